//! The edges of the dialects patchdeck reads, each found by an adversarial probe where a
//! reading wrote something the diff did not mean, silently, or said something untrue: each is
//! now refused as git refuses it, or read as git reads it.

use crate::common::{patchdeck_env, stderr, stdout, workspace_with};
use crate::dialects::apply_on;
use std::fs;
use std::path::Path;
use std::process::Output;

/// `patchdeck apply` of `patch` (kept outside the workspace) on the workspace at `root`, with
/// `extra` arguments and `env`.
fn apply_in(root: &Path, patch: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.diff");
    fs::write(&input, patch).unwrap();
    let root = root.to_str().unwrap();
    let args = ["apply", "--config", "none", "--root", root];
    patchdeck_env(
        &[&args[..], extra, &[input.to_str().unwrap()]].concat(),
        env,
    )
}

/// Applies `patch` on `files`; the exit code, what was said, and each file's bytes after.
fn after(files: &[(&str, &[u8])], patch: &str) -> (i32, String, Vec<Option<Vec<u8>>>) {
    let (code, said, ws) = apply_on(files, patch);
    let bytes = files
        .iter()
        .map(|(name, _)| fs::read(ws.path().join(name)).ok())
        .collect();
    (code, said, bytes)
}

#[test]
fn a_deletion_replaced_by_a_rename_still_expects_the_content_it_deletes() {
    let files: [(&str, &[u8]); 2] = [("f", b"LOCAL EDIT\n"), ("g", b"g1\n")];
    let patch = "diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-f1\ndiff --git a/g b/f\nsimilarity index 100%\nrename from g\nrename to f\n";
    let (code, said, bytes) = after(&files, patch);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("not the content the deletion expects"),
        "{said}"
    );
    assert_eq!(
        bytes,
        vec![Some(b"LOCAL EDIT\n".to_vec()), Some(b"g1\n".to_vec())]
    );
}

#[test]
fn a_deletion_that_keeps_lines_and_a_creation_that_needs_them_are_refused() {
    let file: [(&str, &[u8]); 1] = [("f.txt", b"a\nb\n")];
    // GNU diff of a file whose new mtime is 0: the epoch, with lines kept and added.
    let epoch = "--- a/f.txt\t2024-05-01 10:00:00.000000000 +0000\n+++ b/f.txt\t1970-01-01 00:00:00.000000000 +0000\n@@ -1,2 +1,3 @@\n a\n b\n+c\n";
    let (code, said, bytes) = after(&file, epoch);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("cannot still have contents"), "{said}");
    assert_eq!(bytes, vec![Some(b"a\nb\n".to_vec())]);
    // The same in ctime form is no epoch to git: a modification.
    let ctime = epoch.replace(
        "1970-01-01 00:00:00.000000000 +0000",
        "Thu Jan 01 00:00:00 1970 +0000",
    );
    let (code, said, bytes) = after(&file, &ctime);
    assert_eq!(code, 0, "{said}");
    assert_eq!(bytes, vec![Some(b"a\nb\nc\n".to_vec())]);
    let new = "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    let (code, said, _) = after(&file, new);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("cannot depend on old contents"), "{said}");
}

#[test]
fn a_new_file_whose_counts_run_past_its_lines_is_refused_not_written_short() {
    let file: [(&str, &[u8]); 1] = [("f.txt", b"a\nb\n")];
    let patch = "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,5 @@\n+one\n+two\n+three\ndiff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    let (code, said, bytes) = after(&file, patch);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("cut short"), "{said}");
    assert_eq!(bytes, vec![Some(b"a\nb\n".to_vec())]);
}

#[test]
fn a_hunk_without_numbers_keeps_its_no_newline_markers() {
    let (code, said, bytes) = after(
        &[("f.txt", b"a\nb\n")],
        "--- f.txt\n+++ f.txt\n@@ ... @@\n a\n-b\n+B\n\\ No newline at end of file\n",
    );
    assert_eq!(code, 0, "{said}");
    assert_eq!(bytes, vec![Some(b"a\nB".to_vec())]);
    let (code, said, bytes) = after(
        &[("f.txt", b"a\nb")],
        "--- f.txt\n+++ f.txt\n@@ ... @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n",
    );
    assert_eq!(code, 0, "{said}");
    assert_eq!(bytes, vec![Some(b"a\nb\nc\n".to_vec())]);
}

#[test]
fn a_mail_signature_after_a_hunk_without_numbers_is_no_removed_line() {
    let patch = "From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n f.md | 2 +-\n\ndiff --git a/f.md b/f.md\n--- a/f.md\n+++ b/f.md\n@@ ... @@\n # title\n-old\n+new\n-- \n2.43.0\n\n";
    let (code, said, bytes) = after(&[("f.md", b"# title\nold\n-\nend\n")], patch);
    assert_eq!(code, 0, "{said}");
    assert_eq!(bytes, vec![Some(b"# title\nnew\n-\nend\n".to_vec())]);
}

#[test]
fn a_name_as_written_is_taken_only_over_a_name_that_does_not_exist() {
    let ws =
        crate::common::workspace_with(&[("src/app.py", b"a\nb\n"), ("other/app.py", b"a\nb\n")]);
    std::os::unix::fs::symlink("other/app.py", ws.path().join("app.py")).unwrap();
    let patch = "--- src/app.py\n+++ src/app.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    let out = apply_in(ws.path(), patch, &[], &[]);
    let said = stdout(&out);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("does not exist and"), "{said}");
    assert_eq!(fs::read(ws.path().join("src/app.py")).unwrap(), b"a\nb\n");
}

#[test]
fn odd_zones_and_a_spaced_epoch_are_no_absence() {
    let file: [(&str, &[u8]); 1] = [("f.txt", b"a\nb\n")];
    for zone in ["\u{e9}", "+0\u{e9}0", "X0000"] {
        let patch = format!(
            "--- a/f.txt\n+++ b/f.txt\t1970-01-01 00:00:00 {zone}\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
        );
        let (code, said, bytes) = after(&file, &patch);
        assert_eq!(code, 0, "{zone}: {said}");
        assert_eq!(bytes, vec![Some(b"a\nB\n".to_vec())]);
    }
    // An epoch set off by spaces is a timestamp, not an absence (git reads it so): the file
    // is emptied, as git empties it, not deleted.
    let spaced = "--- a/f.txt\t2024-05-01 10:00:00 +0000\n+++ b/f.txt  1970-01-01 00:00:00 +0000\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    let (code, said, bytes) = after(&file, spaced);
    assert_eq!(code, 0, "{said}");
    assert_eq!(bytes, vec![Some(Vec::new())]);
}

#[test]
fn rejecting_the_new_half_of_a_rename_or_swap_never_loses_the_old_content() {
    let a: String = (1..=20).map(|n| format!("A{n}\n")).collect();
    let b: String = (1..=20).map(|n| format!("B{n}\n")).collect();
    let files: [(&str, &[u8]); 2] = [("a", a.as_bytes()), ("b", b.as_bytes())];
    let swap = "diff --git a/a b/b\nsimilarity index 95%\nrename from a\nrename to b\n--- a/a\n+++ b/b\n@@ -4,3 +4,3 @@\n A4\n-A5\n+A5x\n A6\ndiff --git a/b b/a\nsimilarity index 100%\nrename from b\nrename to a\n";
    let ws = workspace_with(&files);
    let run = |reject: &str| {
        let out = apply_in(ws.path(), swap, &["--reject", reject], &[]);
        (out.status.code(), stdout(&out))
    };
    let (code, said) = run("b");
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("half_rename") || said.contains("kept nowhere"),
        "{said}"
    );
    assert_eq!(fs::read_to_string(ws.path().join("a")).unwrap(), a);
    assert_eq!(fs::read_to_string(ws.path().join("b")).unwrap(), b);
}

/// The patch of a case of `dialects/cases`.
fn case_patch(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dialects/cases");
    fs::read_to_string(dir.join(name).join("patch")).unwrap()
}

#[test]
fn a_folder_holding_an_empty_folder_never_becomes_a_file_nor_is_undone_into_one() {
    // A folder that becomes a file, with an empty folder in it that no deletion empties: git
    // refuses it, and so does patchdeck, writing nothing.
    let ws = workspace_with(&[("foo/baz", b"if only I knew\n")]);
    fs::create_dir(ws.path().join("foo/empty")).unwrap();
    let out = apply_in(ws.path(), &case_patch("git-t4114-dir-to-file"), &[], &[]);
    assert_ne!(out.status.code(), Some(0));
    assert!(ws.path().join("foo/empty").is_dir());
    let baz = || fs::read(ws.path().join("foo/baz")).unwrap();
    assert_eq!(baz(), b"if only I knew\n");
    // A file that became a folder, in which someone then made a folder: undo would remove it
    // unsaid; it refuses, and the folder stays.
    let ws = workspace_with(&[("foo", b"hello world\n")]);
    let out = apply_in(ws.path(), &case_patch("git-t4114-file-to-dir"), &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    fs::create_dir(ws.path().join("foo/mine")).unwrap();
    let undo = patchdeck_env(&["undo", "--root", ws.path().to_str().unwrap()], &[]);
    assert_ne!(undo.status.code(), Some(0));
    assert!(stderr(&undo).contains("foo/mine is an empty folder"));
    assert!(ws.path().join("foo/mine").is_dir());
    assert_eq!(
        fs::read(ws.path().join("foo/baz")).unwrap(),
        b"if only I knew\n"
    );
}

#[test]
fn a_rolled_back_folder_comes_back_with_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace_with(&[("foo/secret/k", b"key\n"), ("keep", b"old\n")]);
    fs::set_permissions(
        ws.path().join("foo/secret"),
        fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    fs::set_permissions(ws.path().join("foo"), fs::Permissions::from_mode(0o750)).unwrap();
    let patch = "diff --git a/foo/secret/k b/foo/secret/k\ndeleted file mode 100644\n--- a/foo/secret/k\n+++ /dev/null\n@@ -1 +0,0 @@\n-key\ndiff --git a/foo b/foo\nnew file mode 100644\n--- /dev/null\n+++ b/foo\n@@ -0,0 +1 @@\n+file\ndiff --git a/keep b/keep\n--- a/keep\n+++ b/keep\n@@ -1 +1 @@\n-old\n+new\n";
    // The folders are removed before the last file (keep) is put in place, which then fails.
    let failing = [("PATCHDECK_FAILPOINT", "rename:3=error")];
    let out = apply_in(ws.path(), patch, &[], &failing);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let mode = |rel: &str| {
        fs::metadata(ws.path().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!((mode("foo"), mode("foo/secret")), (0o750, 0o700));
    assert_eq!(fs::read(ws.path().join("foo/secret/k")).unwrap(), b"key\n");
    assert_eq!(fs::read(ws.path().join("keep")).unwrap(), b"old\n");
}
