//! SHA-256 only where it is the contract: a unified diff is checked without hashing any file,
//! the JSON report still gives every file's `actualSha256`, a batch that names a hash is held
//! to it, and the commit's own re-check (which compares bytes) still refuses a file edited
//! after it was verified, even one edited to the same size with its time put back.

use crate::common::{sha, workspace_with};
use patchdeck::commit::CommitOptions;
use patchdeck::error::Error;
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::report::Report;
use patchdeck::review::Decisions;
use serde_json::Value;
use std::fs;
use std::time::Duration;

const FILE: &[u8] = b"one\ntwo\nthree\n";
const DIFF: &[u8] = b"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";

fn open(root: &std::path::Path) -> pipeline::Opened {
    pipeline::open(root, pipeline::Access::Write, Duration::from_secs(1)).unwrap()
}

#[test]
fn a_unified_diff_is_checked_without_hashing_and_the_json_report_still_has_the_hash() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let opened = open(ws.path());
    let checked = pipeline::load(
        &opened.workspace,
        &Input::from_bytes("a.diff", DIFF.to_vec()),
        None,
    )
    .unwrap();
    let snapshot = checked.verification.files[0].snapshot.as_ref().unwrap();
    assert!(!snapshot.is_hashed(), "checking a diff hashed the file");
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    let report = Report::check(&checked.batch, &checked.verification, &plan);
    let text = report.to_text();
    assert!(!snapshot.is_hashed(), "the text report hashed the file");
    assert!(!text.is_empty());
    let json: Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["files"][0]["actualSha256"], sha(FILE).as_str());
}

#[test]
fn a_batch_that_names_a_hash_is_held_to_it() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let opened = open(ws.path());
    let batch = serde_json::json!({"files": [{"docPath": "a.txt", "originalSha256": sha(b"other"),
        "changes": [{"operation": "replace", "startLine": 2, "endLine": 2,
            "expectedOriginalLines": ["two"], "newLines": ["TWO"]}]}]});
    let checked = pipeline::load(
        &opened.workspace,
        &Input::from_bytes("b.json", serde_json::to_vec(&batch).unwrap()),
        None,
    )
    .unwrap();
    let file = &checked.verification.files[0];
    assert!(file.sha_mismatch());
    assert!(file.snapshot.as_ref().unwrap().is_hashed());
}

#[test]
fn an_edit_of_the_same_size_with_its_time_put_back_is_still_caught_by_the_commit() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let path = ws.path().join("a.txt");
    let opened = open(ws.path());
    let checked = pipeline::load(
        &opened.workspace,
        &Input::from_bytes("a.diff", DIFF.to_vec()),
        None,
    )
    .unwrap();
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    // Another program rewrites the file, same size, and sets its modification time back.
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    fs::write(&path, b"one\ntwo\nthre3\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let err = pipeline::commit(&opened.workspace, &plan, &CommitOptions::default()).unwrap_err();
    match err {
        Error::ChangedOnDisk { what, .. } => {
            assert!(
                what.contains("edited since the batch was verified"),
                "{what}"
            );
            assert!(what.contains(&sha(FILE)[..12]), "{what}");
        }
        other => panic!("expected ChangedOnDisk, got {other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\nthre3\n");
}
