//! The commit at the edges of what a file system allows: names at the length limit, and what
//! patchdeck's own names must never exceed.

use crate::common::{patchdeck, patchdeck_env, stderr, user_tree, workspace_with};
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
