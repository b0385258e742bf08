//! Verification against real files on disk: every conflict kind, line endings, final newlines,
//! case-insensitive resolution, creation and path safety.

use crate::common;
use crate::common::{parse, sha, workspace_with};
use patchdeck::model::{FileAction, EMPTY_SHA256};
use patchdeck::problem::ProblemKind;
use patchdeck::verify::{verify, Status, Verification};
use patchdeck::workspace::{Resolved, Workspace};
use serde_json::{json, Value};
use std::path::Path;

const FILE: &[u8] = b"one\ntwo\nthree\nfour\nfive\n";

fn check(root: &Path, value: &Value) -> Verification {
    let batch = parse(value).unwrap();
    verify(&batch, &Workspace::open(root).unwrap())
}

fn kinds(v: &Verification) -> Vec<&'static str> {
    v.files
        .iter()
        .flat_map(|f| {
            f.problems
                .iter()
                .chain(f.changes.iter().flat_map(|c| c.problems.iter()))
        })
        .map(|p| p.kind.as_str())
        .collect()
}

fn one_file(doc_path: &str, sha: &str, changes: Value) -> Value {
    json!({"files": [{"docPath": doc_path, "originalSha256": sha, "changes": changes}]})
}

fn replace(line: usize, old: &str, new: &str) -> Value {
    json!({"operation": "replace", "startLine": line, "endLine": line, "expectedOriginalLines": [old], "newLines": [new]})
}

#[test]
fn matching_sha_and_lines_verify_ok() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(FILE), json!([replace(2, "two", "TWO")])),
    );
    assert_eq!(v.worst(), Status::Ok);
    assert!(kinds(&v).is_empty());
    assert_eq!(v.files[0].actual_sha256(), Some(sha(FILE).as_str()));
}

#[test]
fn a_different_sha_is_a_file_conflict_while_its_changes_still_verify() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(b"older"), json!([replace(2, "two", "TWO")])),
    );
    assert_eq!(v.files[0].status, Status::Conflict);
    assert_eq!(kinds(&v), vec!["sha_mismatch"]);
    assert_eq!(v.files[0].changes[0].status, Status::Ok);
    let msg = &v.files[0].problems[0].message;
    assert!(
        msg.contains(&sha(b"older")) && msg.contains(&sha(FILE)),
        "{msg}"
    );
}

#[test]
fn expected_lines_that_differ_are_a_conflict_with_both_sides() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(FILE), json!([replace(2, "deux", "TWO")])),
    );
    let change = &v.files[0].changes[0];
    assert_eq!(change.status, Status::Conflict);
    let problem = &change.problems[0];
    assert_eq!(problem.kind, ProblemKind::ExpectedMismatch);
    let mismatch = problem.mismatch.as_ref().unwrap();
    assert_eq!(
        (
            mismatch.at,
            mismatch.expected.clone(),
            mismatch.actual.clone()
        ),
        (2, vec!["deux".to_string()], vec!["two".to_string()])
    );
    assert_eq!(problem.found_at, None);
    assert!(
        problem.message.contains("occur nowhere"),
        "{}",
        problem.message
    );
}

#[test]
fn expected_lines_found_once_elsewhere_are_reported_and_taken_when_they_say_enough() {
    let ws = workspace_with(&[("a.txt", b"new top\nnew top 2\none\ntwo\nthree\n")]);
    let v = check(
        ws.path(),
        &one_file(
            "a.txt",
            &sha(FILE),
            json!([
                {"operation": "replace", "startLine": 1, "endLine": 2, "expectedOriginalLines": ["one", "two"], "newLines": ["x"]}
            ]),
        ),
    );
    let problem = &v.files[0].changes[0].problems[0];
    assert_eq!(problem.kind, ProblemKind::ExpectedMismatch);
    // Two short lines, with no change around them to say where they went, are weak evidence
    // (they may as well be another function's): where they were found is said, not taken.
    assert_eq!(problem.found_at, None);
    assert!(
        problem.message.contains("found at line 3 (+2 lines)"),
        "{}",
        problem.message
    );
    // A line that carries identity of its own, found at one place: taken, as `foundAt`.
    let long = "    raise ValueError(\"the inventory holds no such item\")";
    let file = format!("new top\nnew top 2\n{long}\nthree\n");
    let ws = workspace_with(&[("a.txt", file.as_bytes())]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(b"other"), json!([replace(1, long, "x")])),
    );
    let problem = &v.files[0].changes[0].problems[0];
    assert_eq!(problem.found_at, Some(3), "{}", problem.message);
}

#[test]
fn expected_lines_found_several_times_are_ambiguous_and_not_moved() {
    let ws = workspace_with(&[("a.txt", b"x\nsame\ny\nsame\n")]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(b"other"), json!([replace(1, "same", "z")])),
    );
    let problem = &v.files[0].changes[0].problems[0];
    assert_eq!(problem.found_at, None);
    assert!(
        problem.message.contains("occur 2 times, at lines 2, 4"),
        "{}",
        problem.message
    );
}

#[test]
fn a_range_past_the_end_is_out_of_range() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    // Same SHA: the batch contradicts its own base, so the change is invalid.
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(FILE), json!([replace(9, "nine", "x")])),
    );
    assert_eq!(kinds(&v), vec!["out_of_range"]);
    assert_eq!(v.files[0].changes[0].status, Status::Invalid);
    assert!(v.files[0].changes[0].problems[0]
        .message
        .contains("which has 5 lines"));
    // Stale SHA: the file got shorter since, so it is a conflict.
    let v = check(
        ws.path(),
        &one_file(
            "a.txt",
            &sha(b"longer"),
            json!([{"operation": "insert", "afterLine": 6, "newLines": ["x"]}]),
        ),
    );
    assert_eq!(v.files[0].changes[0].status, Status::Conflict);
    assert_eq!(kinds(&v), vec!["sha_mismatch", "out_of_range"]);
}

#[test]
fn insert_at_the_very_end_is_in_range() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file(
            "a.txt",
            &sha(FILE),
            json!([{"operation": "insert", "afterLine": 5, "newLines": ["six"]}]),
        ),
    );
    assert_eq!(v.worst(), Status::Ok);
}

#[test]
fn an_insert_into_a_changed_file_carries_a_note() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file(
            "a.txt",
            &sha(b"x"),
            json!([{"operation": "insert", "afterLine": 2, "newLines": ["x"]}]),
        ),
    );
    let note = &v.files[0].changes[0].problems[0];
    assert_eq!(
        (note.kind, note.blocking),
        (ProblemKind::UnverifiedPosition, false)
    );
    assert_eq!(v.files[0].changes[0].status, Status::Ok);
}

#[test]
fn a_missing_file_with_a_real_sha_is_a_conflict() {
    let ws = workspace_with(&[]);
    let v = check(
        ws.path(),
        &one_file("gone.txt", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(kinds(&v), vec!["missing_file"]);
    assert_eq!(v.files[0].status, Status::Conflict);
    assert_eq!(v.files[0].changes[0].status, Status::Conflict);
}

#[test]
fn a_missing_file_with_the_empty_sha_is_a_creation() {
    let ws = workspace_with(&[("docs/readme.md", b"x\n")]);
    let v = check(
        ws.path(),
        &one_file(
            "docs/new/guide.md",
            EMPTY_SHA256,
            json!([{"operation": "insert", "afterLine": 0, "newLines": ["# Guide"]}]),
        ),
    );
    assert_eq!(v.worst(), Status::Ok);
    assert_eq!(v.files[0].action, FileAction::Create);
    assert_eq!(
        v.files[0].resolved,
        Some(Resolved::Missing {
            rel: repo_path("docs/new/guide.md")
        })
    );
}

#[test]
fn an_existing_empty_file_with_the_empty_sha_is_modified() {
    let ws = workspace_with(&[("empty.txt", b"")]);
    let v = check(
        ws.path(),
        &one_file(
            "empty.txt",
            EMPTY_SHA256,
            json!([{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]),
        ),
    );
    assert_eq!(v.worst(), Status::Ok);
    assert_eq!(v.files[0].action, FileAction::Modify);
}

#[test]
fn creating_over_an_existing_file_is_file_exists_not_a_sha_mismatch() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file(
            "a.txt",
            EMPTY_SHA256,
            json!([{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]),
        ),
    );
    // Not a changed version of the file the author saw, so --allow-sha-mismatch cannot write it.
    assert_eq!(kinds(&v), vec!["file_exists"]);
    assert_eq!(v.files[0].status, Status::Conflict);
    assert_eq!(v.files[0].action, patchdeck::model::FileAction::Create);
}

#[test]
fn crlf_files_verify_against_lf_batches() {
    let crlf = b"one\r\ntwo\r\nthree\r\n";
    let ws = workspace_with(&[("w.bat", crlf)]);
    let v = check(
        ws.path(),
        &one_file("w.bat", &sha(crlf), json!([replace(2, "two", "TWO")])),
    );
    assert_eq!(v.worst(), Status::Ok);
}

#[test]
fn a_file_without_final_newline_verifies_its_last_line() {
    let bytes = b"one\ntwo";
    let ws = workspace_with(&[("n.txt", bytes)]);
    let v = check(
        ws.path(),
        &one_file("n.txt", &sha(bytes), json!([replace(2, "two", "2")])),
    );
    assert_eq!(v.worst(), Status::Ok);
}

#[test]
fn doc_paths_resolve_case_insensitively_when_the_exact_path_is_missing() {
    let ws = workspace_with(&[("Src/Services/Orchestrator.cs", FILE)]);
    let v = check(
        ws.path(),
        &one_file(
            "src/services/orchestrator.cs",
            &sha(FILE),
            json!([replace(1, "one", "x")]),
        ),
    );
    assert_eq!(v.worst(), Status::Ok);
    assert_eq!(
        v.files[0].resolved,
        Some(Resolved::File {
            rel: repo_path("Src/Services/Orchestrator.cs"),
            by_case: true
        })
    );
}

#[test]
fn the_exact_path_wins_over_case_variants() {
    let ws = workspace_with(&[("a.txt", FILE), ("A.txt", b"other\n")]);
    let v = check(
        ws.path(),
        &one_file("a.txt", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(
        v.files[0].resolved,
        Some(Resolved::File {
            rel: repo_path("a.txt"),
            by_case: false
        })
    );
}

#[test]
fn two_case_variants_without_an_exact_match_are_ambiguous() {
    let ws = workspace_with(&[("README.md", FILE), ("Readme.md", FILE)]);
    let v = check(
        ws.path(),
        &one_file("readme.md", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(kinds(&v), vec!["ambiguous_path"]);
    assert_eq!(v.files[0].status, Status::Invalid);
    let msg = &v.files[0].problems[0].message;
    assert!(
        msg.contains("README.md") && msg.contains("Readme.md"),
        "{msg}"
    );
}

#[test]
fn creation_uses_the_on_disk_spelling_of_existing_folders() {
    let ws = workspace_with(&[("Docs/x.md", b"x\n")]);
    let v = check(
        ws.path(),
        &one_file(
            "docs/new.md",
            EMPTY_SHA256,
            json!([{"operation": "insert", "afterLine": 0, "newLines": ["n"]}]),
        ),
    );
    assert_eq!(
        v.files[0].resolved,
        Some(Resolved::Missing {
            rel: repo_path("Docs/new.md")
        })
    );
}

#[test]
fn paths_leaving_the_root_are_refused() {
    let ws = workspace_with(&[("a.txt", FILE)]);
    for doc in ["/etc/passwd", "../outside.txt", "a/../../x", "c:/dev/x.cs"] {
        let v = check(
            ws.path(),
            &one_file(doc, &sha(FILE), json!([replace(1, "one", "x")])),
        );
        assert_eq!(kinds(&v), vec!["path_outside_root"], "{doc}");
        assert_eq!(v.files[0].status, Status::Invalid);
    }
}

#[test]
fn a_symlink_leading_out_of_the_root_is_refused() {
    let outside = workspace_with(&[("secret.txt", FILE)]);
    let ws = workspace_with(&[]);
    std::os::unix::fs::symlink(outside.path(), ws.path().join("link")).unwrap();
    let v = check(
        ws.path(),
        &one_file(
            "link/secret.txt",
            &sha(FILE),
            json!([replace(1, "one", "x")]),
        ),
    );
    assert_eq!(kinds(&v), vec!["path_outside_root"]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        ws.path().join("file-link"),
    )
    .unwrap();
    let v = check(
        ws.path(),
        &one_file("file-link", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(kinds(&v), vec!["path_outside_root"]);
}

#[test]
fn a_symlink_inside_the_root_is_not_written_through() {
    let ws = workspace_with(&[("real/a.txt", FILE)]);
    std::os::unix::fs::symlink(ws.path().join("real"), ws.path().join("alias")).unwrap();
    let v = check(
        ws.path(),
        &one_file("alias/a.txt", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(kinds(&v), vec!["symlink"]);
}

#[test]
fn a_folder_where_a_file_is_expected_is_refused() {
    let ws = workspace_with(&[("dir/x.txt", FILE)]);
    let v = check(
        ws.path(),
        &one_file("dir", &sha(FILE), json!([replace(1, "one", "x")])),
    );
    assert_eq!(kinds(&v), vec!["not_a_file"]);
}

#[test]
fn git_and_patchdeck_folders_are_protected() {
    let ws = workspace_with(&[]);
    for doc in [
        ".git/config",
        "sub/.git/hooks/pre-commit",
        ".patchdeck/journal",
    ] {
        let v = check(
            ws.path(),
            &one_file(
                doc,
                EMPTY_SHA256,
                json!([{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]),
            ),
        );
        assert_eq!(kinds(&v), vec!["protected_path"], "{doc}");
    }
}

#[test]
fn a_file_that_is_not_utf8_is_refused_with_the_offset() {
    let bytes = b"ok\n\xff\xfe bad\n";
    let ws = workspace_with(&[("bin.txt", bytes)]);
    let v = check(
        ws.path(),
        &one_file("bin.txt", &sha(bytes), json!([replace(1, "ok", "x")])),
    );
    assert_eq!(kinds(&v), vec!["not_utf8"]);
    assert!(v.files[0].problems[0].message.contains("offset 3"));
}

#[test]
fn the_moved_line_sample_reports_where_the_line_went() {
    let ws = common::sample_workspace();
    let workspace = Workspace::open(ws.path()).unwrap();
    let input = patchdeck::formats::Input::read(
        common::samples().join("moved-line.json").to_str().unwrap(),
    )
    .unwrap();
    let batch = patchdeck::formats::load(&input, None, &workspace).unwrap();
    let v = verify(&batch, &workspace);
    assert_eq!(v.files[0].changes[0].found_at(), Some(19));
    assert_eq!(v.files[0].changes[1].status, Status::Ok);
}

/// A path under the root, as resolving gives it.
fn repo_path(path: &str) -> patchdeck::fs::RepoPath {
    patchdeck::fs::RepoPath::parse(path).unwrap().0
}
