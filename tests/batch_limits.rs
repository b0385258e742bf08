//! The largest batches patchdeck takes, and those just past its limits: the largest allowed
//! TUL-002 batch (a million changes) is read in under eight times its size, and a batch over a
//! limit, or holding millions of faults, is refused as it is read, in bounded memory. The
//! batches are made here, as JSON text, so that their size is exact.

use crate::common::{self, sha, stderr, workspace_with};
use patchdeck::formats::{MAX_CHANGES, MAX_FILES};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Runs `patchdeck check` of the batch file in `dir` (with `args` besides), measuring its
/// peak memory (MiB).
fn check_measured(root: &Path, batch: &Path, args: &[&str]) -> (std::process::Output, u64) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args([
            "check",
            "--config",
            "none",
            "--root",
            root.to_str().unwrap(),
        ])
        .args(args)
        .arg(batch);
    common::run_measured(&mut command)
}

/// The ways a batch past a limit is written: as JSON (its format detected), and going on
/// after the limit with text that is not JSON (its format given, as detection reads the whole
/// input): a reader that held the batch before counting would say the JSON is broken.
fn past_the_limit(
    head: &str,
    entry: &str,
    count: usize,
    tail: &str,
) -> [(String, &'static [&'static str]); 2] {
    let entries = format!("{head}{}{entry}", format!("{entry},").repeat(count));
    [
        (format!("{entries}{tail}"), &[]),
        (
            format!("{entries}, and then anything at all"),
            &["--format", "tul002"],
        ),
    ]
}

/// A million one-line insertions, a thousand in each of a thousand files: the most changes a
/// batch may have, each as small as TUL-002 allows, so the model weighs the most against the
/// input. Before TUL-002 was read as a stream it took 25 times its size (1.4 GB for 56 MB).
#[test]
fn the_largest_allowed_batch_is_read_in_under_eight_times_its_size() {
    let ws = tempfile::tempdir().unwrap();
    let files = 1_000;
    let per_file = MAX_CHANGES / files;
    let mut batch = String::with_capacity(60 << 20);
    batch.push_str("{\"files\":[");
    for f in 0..files {
        let content: String = (1..=per_file + 1).map(|i| format!("line {i}\n")).collect();
        let name = format!("f{f:04}.txt");
        fs::write(ws.path().join(&name), &content).unwrap();
        if f > 0 {
            batch.push(',');
        }
        let _ = write!(
            batch,
            "{{\"docPath\":\"{name}\",\"originalSha256\":\"{}\",\"changes\":[",
            sha(content.as_bytes())
        );
        for i in 1..=per_file {
            if i > 1 {
                batch.push(',');
            }
            let _ = write!(
                batch,
                "{{\"operation\":\"insert\",\"afterLine\":{i},\"newLines\":[\"n\"]}}"
            );
        }
        batch.push_str("]}");
    }
    batch.push_str("]}");
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("million.json");
    fs::write(&path, &batch).unwrap();
    let input_mib = batch.len() as u64 >> 20;
    drop(batch);
    let (out, peak_mib) = check_measured(ws.path(), &path, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        common::stdout(&out).contains("1000 files, 1000000 changes: 1000000 ok"),
        "{}",
        common::stdout(&out)
    );
    assert!(
        peak_mib < 8 * input_mib,
        "peak {peak_mib} MiB for a batch of {input_mib} MiB: more than 8 times its size"
    );
}

/// One change too many is refused when it is read, before the rest of the input.
#[test]
fn a_batch_over_the_change_limit_is_refused_as_it_is_read() {
    let ws = workspace_with(&[("a.txt", b"a\n")]);
    let head = format!(
        "{{\"files\":[{{\"docPath\":\"a.txt\",\"originalSha256\":\"{}\",\"changes\":[",
        sha(b"a\n")
    );
    // The smallest changes there are: empty objects, each one a change with problems.
    for (batch, args) in past_the_limit(&head, "{}", MAX_CHANGES, "]}]}") {
        let outside = tempfile::tempdir().unwrap();
        let path = outside.path().join("over.json");
        fs::write(&path, &batch).unwrap();
        let (out, peak_mib) = check_measured(ws.path(), &path, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("files[0].changes[{MAX_CHANGES}] (line 1, column"))
                && err.contains(&format!(
                    "more than {MAX_CHANGES} changes; patchdeck takes at most"
                )),
            "{args:?}: {err}"
        );
        assert!(!err.contains("not valid JSON"), "{args:?}: {err}");
        // A million changes that are not changes hold nothing.
        assert!(peak_mib < 100, "{args:?}: peak {peak_mib} MiB");
    }
}

/// The same for file patches: the one past the limit is refused as it is read.
#[test]
fn a_batch_over_the_file_limit_is_refused_as_it_is_read() {
    let ws = workspace_with(&[]);
    let head = "{\"batchLabel\":\"many\",\"files\":[";
    for (batch, args) in past_the_limit(head, "0", MAX_FILES, "]}") {
        let outside = tempfile::tempdir().unwrap();
        let path = outside.path().join("over.json");
        fs::write(&path, &batch).unwrap();
        let (out, _) = check_measured(ws.path(), &path, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("files[{MAX_FILES}] (line 1, column"))
                && err.contains(&format!("more than {MAX_FILES} file patches")),
            "{args:?}: {err}"
        );
    }
}

/// A batch with millions of faults lists the first thousand and counts the rest: 64 MiB of
/// zeros where file patches belong took 1.1 GB when every fault was kept.
#[test]
fn millions_of_faults_are_counted_not_listed() {
    let ws = workspace_with(&[]);
    let outside = tempfile::tempdir().unwrap();
    let faults = MAX_FILES - 1;
    let cases = [
        // Not a batch in any format: told from the bounded view detection reads.
        ("zeros.json", format!("[{}0]", "0,".repeat(30_000_000))),
        // A TUL-002 batch whose file patches are numbers.
        (
            "numbers.json",
            format!(
                "{{\"batchLabel\":\"x\",\"files\":[{}0]}}",
                "0,".repeat(faults)
            ),
        ),
    ];
    for (name, text) in cases {
        let path = outside.path().join(name);
        fs::write(&path, &text).unwrap();
        let (out, peak_mib) = check_measured(ws.path(), &path, &[]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        if name == "numbers.json" {
            assert!(
                err.contains("files[0]: expected an object, found a number")
                    && err.contains(&format!(
                        "and {} more problem(s), not listed (the first 1000 are)",
                        faults + 1 - 1000
                    )),
                "{err}"
            );
        } else {
            assert!(err.contains("not a patch batch in any format"), "{err}");
        }
        assert!(peak_mib < 150, "{name}: peak {peak_mib} MiB");
    }
}
