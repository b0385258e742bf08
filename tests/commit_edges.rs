//! The commit at the edges of what a file system allows: names at the length limit (and what
//! patchdeck's own names must never exceed), and a batch that needs one path to be a file and
//! a folder at once.

use crate::common::{
    json_out, patchdeck, patchdeck_env, stderr, stdout, user_tree, workspace_with,
};
use std::fs;

/// A name of 250 bytes is legal (the limit is 255); the temporary name patchdeck stages it
/// under must be too, or the commit, and then its rollback, fail on a name patchdeck chose.
#[test]
fn a_file_with_a_name_at_the_length_limit_commits_and_rolls_back() {
    let name = format!("{}.txt", "n".repeat(246));
    assert_eq!(name.len(), 250);
    let ws = workspace_with(&[(&name, b"old\n")]);
    let root = ws.path().to_str().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("long.diff");
    fs::write(
        &batch,
        format!("--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-old\n+new\n"),
    )
    .unwrap();
    let batch = batch.to_str().unwrap();
    let before = user_tree(ws.path());

    for failpoint in ["rename=error", "rename=kill"] {
        let out = patchdeck_env(
            &["apply", "--root", root, batch],
            &[("PATCHDECK_FAILPOINT", failpoint)],
        );
        assert_ne!(out.status.code(), Some(0), "{failpoint}");
        if failpoint.ends_with("kill") {
            let recovered = patchdeck(&["recover", "--root", root]);
            assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
        } else {
            assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
            assert!(
                stderr(&out).contains("every file was restored"),
                "{}",
                stderr(&out)
            );
        }
        assert!(
            user_tree(ws.path()) == before,
            "{failpoint}: not rolled back"
        );
        assert!(
            !ws.path().join(".patchdeck/journal").exists(),
            "{failpoint}"
        );
    }
    let out = patchdeck(&["apply", "--root", root, batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join(&name)).unwrap(), b"new\n");
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert!(user_tree(ws.path()) == before);
}

/// Creating `x` and `x/y` cannot both happen: `check` and `diff` say so as a path conflict,
/// `apply` writes nothing (it used to fail halfway, blaming "another program"), and rejecting
/// one of the two lets the other through.
#[test]
fn a_file_and_a_file_inside_it_are_a_path_conflict_found_at_check_time() {
    let outside = tempfile::tempdir().unwrap();
    let both = outside.path().join("both.json");
    fs::write(
        &both,
        r#"{"root": ".", "files": [{"path": "x", "content": "a\n"}, {"path": "x/y", "content": "b\n"}]}"#,
    )
    .unwrap();
    let replace = outside.path().join("replace.json");
    fs::write(
        &replace,
        r#"{"root": ".", "files": [{"path": "x", "operation": "delete"}, {"path": "x/y", "content": "b\n"}]}"#,
    )
    .unwrap();
    let ws = workspace_with(&[]);
    let root = ws.path().to_str().unwrap();
    let batch = both.to_str().unwrap();
    let check = patchdeck(&["check", "--json", "--root", root, batch]);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    let report = json_out(&check);
    let blocked = report["blocked"].to_string();
    assert!(
        blocked.contains("path conflict") && blocked.contains("x/y inside it"),
        "{report}"
    );
    let diff = patchdeck(&["diff", "--root", root, batch]);
    assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
    let apply = patchdeck(&["apply", "--root", root, batch]);
    assert_eq!(apply.status.code(), Some(1), "{}", stderr(&apply));
    assert!(
        !stderr(&apply).contains("changed by another program"),
        "{}",
        stderr(&apply)
    );
    assert!(user_tree(ws.path()).is_empty());
    // Where x already is a file, x/y is refused as invalid before any plan.
    let ws = workspace_with(&[("x", b"old\n")]);
    let before = user_tree(ws.path());
    let root = ws.path().to_str().unwrap();
    let apply = patchdeck(&["apply", "--root", root, replace.to_str().unwrap()]);
    assert_eq!(apply.status.code(), Some(2), "{}", stderr(&apply));
    assert!(stdout(&apply).contains("not_a_file"), "{}", stdout(&apply));
    assert!(user_tree(ws.path()) == before);
    let ws = workspace_with(&[]);
    let root = ws.path().to_str().unwrap();
    let out = patchdeck(&[
        "apply",
        "--reject",
        "x",
        "--root",
        root,
        both.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("x/y")).unwrap(), b"b\n");
}
