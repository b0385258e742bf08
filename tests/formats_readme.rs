//! Every example in `docs/formats.md` really loads: each fenced block whose info string names
//! a format (` ```json tul002 `) is loaded with that format forced against the small workspace
//! the page describes, detection names the same format, and nothing in it conflicts.

use crate::common::workspace_with;
use patchdeck::formats::{detect, load, Input, NAMES};
use patchdeck::verify::{verify, Status};
use patchdeck::workspace::Workspace;

const PAGE: &str = include_str!("../docs/formats.md");

/// The workspace the examples of `docs/formats.md` are written against.
const FILES: &[(&str, &[u8])] = &[
    (
        "src/app.py",
        b"import os\n\n\ndef load(path):\n    print(\"loading\", path)\n    return open(path).read()\n",
    ),
    ("notes.txt", b"first\nsecond\n"),
];

/// Each example: the format its fence names, its first line in `docs/formats.md`, and its text.
fn examples() -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String, usize, String)> = None;
    for (i, line) in PAGE.lines().enumerate() {
        match &mut open {
            Some((fence, _, _, text)) if line != fence.as_str() => {
                text.push_str(line);
                text.push('\n');
            }
            Some(_) => {
                let (_, format, at, text) = open.take().unwrap();
                out.push((format, at, text));
            }
            None => {
                let ticks = line.len() - line.trim_start_matches('`').len();
                let info: Vec<&str> = line[ticks..].split_whitespace().collect();
                if ticks >= 3 && info.len() == 2 && NAMES.contains(&info[1]) {
                    open = Some(("`".repeat(ticks), info[1].to_owned(), i + 2, String::new()));
                }
            }
        }
    }
    assert!(open.is_none(), "an example's fence is not closed");
    out
}

#[test]
fn every_example_in_the_formats_page_loads_as_its_format() {
    let examples = examples();
    let mut shown: Vec<&str> = examples.iter().map(|(f, _, _)| f.as_str()).collect();
    shown.sort_unstable();
    shown.dedup();
    let mut all = NAMES.to_vec();
    all.sort_unstable();
    assert_eq!(shown, all, "an example of every format");
    let ws = workspace_with(FILES);
    let workspace = Workspace::open(ws.path()).unwrap();
    for (format, at, text) in &examples {
        let input = Input::from_bytes("docs/formats.md", text.clone());
        let place = format!("the {format} example at line {at} of docs/formats.md");
        assert_eq!(
            detect(&input).ok(),
            Some(format.as_str()),
            "{place}: detected otherwise"
        );
        let batch = load(&input, Some(format), &workspace)
            .unwrap_or_else(|e| panic!("{place} does not load: {e}"));
        assert!(batch.change_count() > 0, "{place} changes nothing");
        let verification = verify(&batch, &workspace);
        for (file, check) in batch.files.iter().zip(&verification.files) {
            assert_eq!(
                check.status,
                Status::Ok,
                "{place}: {} {:?}",
                file.doc_path,
                check
            );
        }
    }
}
