//! A file that becomes a folder, and a folder that becomes a file (git's t4114), in one atomic
//! commit: applied as `git apply` applies them, undone to the tree as it was, and, failed or
//! killed at every step of the commit (on both ways of putting files in place), rolled back to
//! the tree as it was with nothing left behind. A creation whose deletion is rejected is
//! blocked, naming both file patches.

use crate::common::{
    patchdeck, patchdeck_env, staged_leftovers, stderr, stdout, user_tree, workspace_with,
};
use std::fs;
use std::path::Path;

/// A file `foo` becomes a folder holding `baz` and `sub/qux`; `keep` is modified beside it.
const FILE_TO_FOLDER: &str = "\
diff --git a/foo b/foo
deleted file mode 100644
--- a/foo
+++ /dev/null
@@ -1 +0,0 @@
-hello world
diff --git a/foo/baz b/foo/baz
new file mode 100644
--- /dev/null
+++ b/foo/baz
@@ -0,0 +1 @@
+if only I knew
diff --git a/foo/sub/qux b/foo/sub/qux
new file mode 100755
--- /dev/null
+++ b/foo/sub/qux
@@ -0,0 +1 @@
+deeper
diff --git a/keep b/keep
--- a/keep
+++ b/keep
@@ -1 +1 @@
-old
+new
";

/// The folder `foo` (with `baz` and `sub/qux`) becomes a file; the file comes first in the
/// diff, the deletions after it.
const FOLDER_TO_FILE: &str = "\
diff --git a/foo b/foo
new file mode 100644
--- /dev/null
+++ b/foo
@@ -0,0 +1 @@
+hello world
diff --git a/foo/baz b/foo/baz
deleted file mode 100644
--- a/foo/baz
+++ /dev/null
@@ -1 +0,0 @@
-if only I knew
diff --git a/foo/sub/qux b/foo/sub/qux
deleted file mode 100644
--- a/foo/sub/qux
+++ /dev/null
@@ -1 +0,0 @@
-deeper
diff --git a/keep b/keep
--- a/keep
+++ b/keep
@@ -1 +1 @@
-old
+new
";

fn file_to_folder() -> tempfile::TempDir {
    workspace_with(&[
        ("foo", b"hello world\n"),
        ("bar", b"hi planet\n"),
        ("keep", b"old\n"),
    ])
}

fn folder_to_file() -> tempfile::TempDir {
    workspace_with(&[
        ("foo/baz", b"if only I knew\n"),
        ("foo/sub/qux", b"deeper\n"),
        ("bar", b"hi planet\n"),
        ("keep", b"old\n"),
    ])
}

type Tree = std::collections::BTreeMap<std::path::PathBuf, (Vec<u8>, u32)>;

/// `patchdeck apply` of `diff` in `root`, with `env`.
fn apply(root: &Path, diff: &Path, env: &[(&str, &str)]) -> std::process::Output {
    patchdeck_env(
        &[
            "apply",
            "--config",
            "none",
            "--root",
            root.to_str().unwrap(),
            "--format",
            "unified",
            diff.to_str().unwrap(),
        ],
        env,
    )
}

/// Nothing of a commit left: no journal, no staged file or original anywhere in the tree.
fn nothing_left(root: &Path, what: &str) {
    assert!(
        staged_leftovers(root).is_empty(),
        "{what}: {:?}",
        staged_leftovers(root)
    );
    assert!(
        !root.join(".patchdeck/journal").exists(),
        "{what}: a journal"
    );
}

/// Applies and undoes one case: the tree after is `after`, the tree after undo the one before.
fn round_trip(make: fn() -> tempfile::TempDir, diff: &str, check_after: fn(&Path)) {
    let ws = make();
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("patch.diff");
    fs::write(&path, diff).unwrap();
    let before = user_tree(ws.path());
    let out = apply(ws.path(), &path, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    check_after(ws.path());
    nothing_left(ws.path(), "apply");
    let root = ws.path().to_str().unwrap();
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert_eq!(user_tree(ws.path()), before, "undo");
    nothing_left(ws.path(), "undo");
}

fn as_folder(root: &Path) {
    assert_eq!(fs::read(root.join("foo/baz")).unwrap(), b"if only I knew\n");
    assert_eq!(fs::read(root.join("foo/sub/qux")).unwrap(), b"deeper\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(root.join("foo/sub/qux"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable");
    assert_eq!(fs::read(root.join("keep")).unwrap(), b"new\n");
}

fn as_file(root: &Path) {
    assert_eq!(fs::read(root.join("foo")).unwrap(), b"hello world\n");
    assert_eq!(fs::read(root.join("keep")).unwrap(), b"new\n");
}

#[test]
fn a_file_becomes_a_folder_and_back_by_undo() {
    round_trip(file_to_folder, FILE_TO_FOLDER, as_folder);
}

#[test]
fn a_folder_becomes_a_file_and_back_by_undo() {
    round_trip(folder_to_file, FOLDER_TO_FILE, as_file);
}

/// Every step of such a commit failed, then killed: each leaves the tree as it was (after
/// `recover`, for a kill), with nothing left behind; a step the commit never reaches lets it
/// finish, and undo puts the tree back. A kill at the mark or after is finished instead.
fn every_step(make: fn() -> tempfile::TempDir, diff: &str, check_after: fn(&Path)) {
    let steps = [
        "journal", "mkdir", "mkdir:2", "mkdir:3", "stage", "stage:2", "sync", "sync:2", "sync:3",
        "sync:4", "prepare", "rename", "rename:2", "rename:3", "rename:4", "rename:5", "check",
        "mark",
    ];
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("patch.diff");
    fs::write(&path, diff).unwrap();
    for no_rename2 in [false, true] {
        let ws = make();
        let root = ws.path().to_str().unwrap().to_owned();
        let before: Tree = user_tree(ws.path());
        for step in steps {
            for action in ["error", "kill"] {
                let spec = format!("{step}={action}");
                let what = format!("{spec} (no RENAME_EXCHANGE: {no_rename2})");
                let mut env = vec![("PATCHDECK_FAILPOINT", spec.as_str())];
                if no_rename2 {
                    env.push(("PATCHDECK_NO_RENAME2", "1"));
                }
                let out = apply(ws.path(), &path, &env);
                if out.status.code() == Some(0) {
                    // The step is not reached: the commit is whole, and undo takes it back.
                    check_after(ws.path());
                    nothing_left(ws.path(), &what);
                    let undo = patchdeck(&["undo", "--root", &root]);
                    assert_eq!(undo.status.code(), Some(0), "{what}: {}", stderr(&undo));
                } else if action == "kill" {
                    // Recovery killed on its first file, then run to its end, twice.
                    let _ = patchdeck_env(
                        &["recover", "--root", &root],
                        &[("PATCHDECK_FAILPOINT", "recover:2=kill")],
                    );
                    for _ in 0..2 {
                        let rec = patchdeck(&["recover", "--root", &root]);
                        assert_eq!(rec.status.code(), Some(0), "{what}: {}", stderr(&rec));
                    }
                } else {
                    assert_eq!(
                        out.status.code(),
                        Some(3),
                        "{what}: {}{}",
                        stdout(&out),
                        stderr(&out)
                    );
                }
                if step == "mark" && action == "kill" && user_tree(ws.path()) != before {
                    // Killed as it marked: a journal marked committed is finished.
                    check_after(ws.path());
                    let undo = patchdeck(&["undo", "--root", &root]);
                    assert_eq!(undo.status.code(), Some(0), "{what}: {}", stderr(&undo));
                }
                assert_eq!(
                    user_tree(ws.path()),
                    before,
                    "{what}: not the tree as it was"
                );
                nothing_left(ws.path(), &what);
            }
        }
        // Killed in its cleanup, after the mark: finished by the next command, then undone.
        let out = apply(ws.path(), &path, &[("PATCHDECK_FAILPOINT", "cleanup=kill")]);
        assert_ne!(out.status.code(), Some(0));
        let rec = patchdeck(&["recover", "--root", &root]);
        assert_eq!(rec.status.code(), Some(0), "{}", stderr(&rec));
        check_after(ws.path());
        nothing_left(ws.path(), "cleanup=kill");
        // The undo itself, failed and killed at its renames, leaves the commit's tree.
        let after = user_tree(ws.path());
        for spec in ["rename:2=error", "rename:3=kill", "mkdir=kill"] {
            let undo = patchdeck_env(&["undo", "--root", &root], &[("PATCHDECK_FAILPOINT", spec)]);
            assert_ne!(undo.status.code(), Some(0), "undo {spec}");
            let rec = patchdeck(&["recover", "--root", &root]);
            assert_eq!(rec.status.code(), Some(0), "{}", stderr(&rec));
            assert_eq!(user_tree(ws.path()), after, "undo {spec}");
            nothing_left(ws.path(), spec);
        }
        let undo = patchdeck(&["undo", "--root", &root]);
        assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
        assert_eq!(user_tree(ws.path()), before);
    }
}

#[test]
fn a_file_becoming_a_folder_failed_or_killed_at_every_step_rolls_back() {
    every_step(file_to_folder, FILE_TO_FOLDER, as_folder);
}

#[test]
fn a_folder_becoming_a_file_failed_or_killed_at_every_step_rolls_back() {
    every_step(folder_to_file, FOLDER_TO_FILE, as_file);
}

/// The creation under `foo` needs the deletion of the file `foo`: rejected, the creation is
/// blocked, and the message names both file patches; the same for a folder becoming a file
/// whose deletions are rejected. Nothing is written.
#[test]
fn a_creation_whose_deletion_is_rejected_is_blocked_naming_both() {
    for (make, diff, reject, says) in [
        (
            file_to_folder as fn() -> tempfile::TempDir,
            FILE_TO_FOLDER,
            "foo",
            "file patch 2",
        ),
        (
            folder_to_file,
            FOLDER_TO_FILE,
            "foo/sub/qux",
            "file patch 3",
        ),
    ] {
        let ws = make();
        let before = user_tree(ws.path());
        let input = tempfile::tempdir().unwrap();
        let path = input.path().join("patch.diff");
        fs::write(&path, diff).unwrap();
        let out = patchdeck(&[
            "apply",
            "--config",
            "none",
            "--root",
            ws.path().to_str().unwrap(),
            "--format",
            "unified",
            "--reject",
            reject,
            path.to_str().unwrap(),
        ]);
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(said.contains(says), "{said}");
        assert!(said.contains(&format!("which deletes {reject}")), "{said}");
        assert!(said.contains("accept the changes of both"), "{said}");
        assert_eq!(user_tree(ws.path()), before);
        assert!(!ws.path().join(".patchdeck").exists());
    }
}

/// A folder that holds a file the batch does not delete cannot become a file: refused as
/// before (`not_a_file`), nothing written.
#[test]
fn a_folder_holding_a_file_the_batch_keeps_stays_a_folder() {
    let ws = workspace_with(&[
        ("foo/baz", b"if only I knew\n"),
        ("foo/sub/qux", b"deeper\n"),
        ("foo/other", b"stays\n"),
        ("keep", b"old\n"),
    ]);
    let before = user_tree(ws.path());
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("patch.diff");
    fs::write(&path, FOLDER_TO_FILE).unwrap();
    let out = apply(ws.path(), &path, &[]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("not a regular file"), "{said}");
    assert_eq!(user_tree(ws.path()), before);
}
