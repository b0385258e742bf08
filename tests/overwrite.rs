//! A file the batch creates where a file exists is a conflict, written over only on an
//! explicit yes: `--allow-overwrite`, a decisions file's `overwrites`, or `o` in the reviewer;
//! the override is reported, and the reviewer shows the diff against what is on disk.

use crate::common::reviewer::{open_input, press};
use crate::common::{json_out, patchdeck, stderr, workspace_with};
use std::fs;

const ADD: &str = "*** Begin Patch\n*** Add File: a.txt\n+new one\n+new two\n*** End Patch\n";

fn batch(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("b.patch");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_creation_over_a_file_is_refused_unless_allowed_then_written_and_reported() {
    let ws = workspace_with(&[("a.txt", b"theirs\n")]);
    let outside = tempfile::tempdir().unwrap();
    let path = batch(outside.path(), ADD);
    let root = ws.path().to_str().unwrap();
    let refused = patchdeck(&["apply", "--root", root, path.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"theirs\n");
    let allowed = patchdeck(&[
        "apply",
        "--json",
        "--allow-overwrite",
        "--root",
        root,
        path.to_str().unwrap(),
    ]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert_eq!(
        fs::read(ws.path().join("a.txt")).unwrap(),
        b"new one\nnew two\n"
    );
    let report = json_out(&allowed);
    assert!(
        report["overrides"][0]
            .as_str()
            .unwrap()
            .contains("written over the file that existed there"),
        "{report}"
    );
    // And undone like any write.
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"theirs\n");
}

#[test]
fn the_reviewer_overwrites_on_o_shows_the_diff_against_the_file_and_lists_it() {
    let ws = workspace_with(&[("a.txt", b"theirs\n")]);
    let mut app = open_input(ws.path(), "b.patch", ADD.as_bytes());
    press(&mut app, "a");
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("a file exists where this one is created: o writes over it"),
        "{:?}",
        app.message
    );
    let text = crate::common::reviewer::screen(&mut app, 120, 30);
    assert!(
        text.contains("- theirs"),
        "the diff is against the file on disk:\n{text}"
    );
    assert!(text.contains("+ new one"), "{text}");
    press(&mut app, "o");
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("written over the file that is there"),
        "{:?}",
        app.message
    );
    press(&mut app, "c");
    let summary: Vec<String> = app.summary_lines().iter().map(|l| l.text.clone()).collect();
    assert!(
        summary
            .iter()
            .any(|l| l.starts_with("override: a.txt: written over the file")),
        "{summary:?}"
    );
    press(&mut app, "y");
    assert_eq!(
        fs::read(ws.path().join("a.txt")).unwrap(),
        b"new one\nnew two\n"
    );
}
