//! File modes in a diff, held against real `git apply`: `new file mode 100755` creates an
//! executable file with the permissions git gives it; `old mode`/`new mode` is a change the
//! reviewer sees (its own change when there is no hunk) and the commit writes atomically, and
//! `undo` takes back; a symbolic link or a submodule is a `special_file` conflict, never a
//! text file.

use crate::common::formats::{kinds, run_input};
use crate::common::{json_out, patchdeck, stderr, stdout, user_tree, workspace_with};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

fn mode_of(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// `git apply` of `patch` (outside any repository) on a workspace holding `files`, whose
/// executable files are listed in `executable`: the workspace after, or `None` when git
/// refused.
fn by_git(files: &[(&str, &[u8])], executable: &[&str], patch: &str) -> Option<tempfile::TempDir> {
    use std::io::Write;
    let ws = workspace(files, executable);
    let mut child = Command::new("git")
        .args(["apply", "-"])
        .current_dir(ws.path())
        .env("GIT_CEILING_DIRECTORIES", ws.path().parent().unwrap())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(patch.as_bytes())
        .unwrap();
    child
        .wait_with_output()
        .unwrap()
        .status
        .success()
        .then_some(ws)
}

fn workspace(files: &[(&str, &[u8])], executable: &[&str]) -> tempfile::TempDir {
    let ws = workspace_with(files);
    for name in executable {
        let path = ws.path().join(name);
        let mode = mode_of(&path);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode | 0o111)).unwrap();
    }
    ws
}

#[test]
fn a_new_executable_file_gets_the_permissions_git_apply_gives_it() {
    let patch = "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hi\n";
    let git = by_git(&[], &[], patch).expect("git applies it");
    let (ws, out) = run_input(&[], "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let (ours, theirs) = (
        mode_of(&ws.path().join("run.sh")),
        mode_of(&git.path().join("run.sh")),
    );
    assert_eq!(ours, theirs, "patchdeck {ours:o}, git {theirs:o}");
    assert_ne!(ours & 0o100, 0, "{ours:o}");
    let (_, out) = run_input(&[], "check", &["--json"], patch.as_bytes());
    assert_eq!(json_out(&out)["files"][0]["mode"], "100755");
}

#[test]
fn a_mode_change_is_a_change_of_its_own_that_commits_and_undoes() {
    let files: &[(&str, &[u8])] = &[("tool.sh", b"echo tool\n")];
    let patch = "diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755\n";
    let git = by_git(files, &[], patch).expect("git applies it");
    let (_, out) = run_input(files, "check", &["--json"], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    let file = &report["files"][0];
    assert_eq!(file["mode"], "100755");
    let changes = file["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{file}");
    assert!(
        changes[0]["description"]
            .as_str()
            .unwrap()
            .contains("mode 100644 → 100755"),
        "{file}"
    );
    assert!(
        report["warnings"].as_array().is_none_or(|w| w.is_empty()),
        "{report}"
    );
    let (ws, out) = run_input(files, "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let path = ws.path().join("tool.sh");
    assert_eq!(mode_of(&path), mode_of(&git.path().join("tool.sh")));
    assert_ne!(mode_of(&path) & 0o100, 0);
    assert_eq!(std::fs::read(&path).unwrap(), b"echo tool\n");
    let out = patchdeck(&["undo", "--root", ws.path().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(mode_of(&path) & 0o111, 0, "{:o}", mode_of(&path));
}

#[test]
fn a_mode_change_with_hunks_writes_both_and_can_clear_the_executable_bit() {
    let files: &[(&str, &[u8])] = &[("tool.sh", b"echo tool\n")];
    let patch = "diff --git a/tool.sh b/tool.sh\nold mode 100755\nnew mode 100644\n--- a/tool.sh\n+++ b/tool.sh\n@@ -1 +1 @@\n-echo tool\n+echo TOOL\n";
    let git = by_git(files, &["tool.sh"], patch).expect("git applies it");
    let ws = workspace(files, &["tool.sh"]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mode.patch");
    std::fs::write(&input, patch).unwrap();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck(&["apply", "--root", root, input.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let path = ws.path().join("tool.sh");
    assert_eq!(std::fs::read(&path).unwrap(), b"echo TOOL\n");
    assert_eq!(mode_of(&path), mode_of(&git.path().join("tool.sh")));
    assert_eq!(mode_of(&path) & 0o111, 0);
}

#[test]
fn symbolic_links_and_submodules_are_refused_never_written_as_text() {
    let files: &[(&str, &[u8])] = &[("target.txt", b"x\n")];
    let link = "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1de5659\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+target.txt\n\\ No newline at end of file\n";
    let submodule = "diff --git a/lib b/lib\nnew file mode 160000\nindex 0000000..4b825dc\n--- /dev/null\n+++ b/lib\n@@ -0,0 +1 @@\n+Subproject commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
    for (patch, what) in [(link, "symbolic link"), (submodule, "submodule")] {
        refused_as_special_file(files, patch, &[what]);
    }
}

/// `patch` over a workspace holding `files`: `check` reports one `special_file` conflict
/// whose message says each of `says`, and `apply` writes nothing.
fn refused_as_special_file(files: &[(&str, &[u8])], patch: &str, says: &[&str]) {
    let (_, out) = run_input(files, "check", &["--json"], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    assert_eq!(kinds(&report), vec!["special_file"], "{report}");
    let message = report["files"][0]["problems"][0]["message"]
        .as_str()
        .unwrap();
    assert!(says.iter().all(|s| message.contains(s)), "{message}");
    let (ws, out) = run_input(files, "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        user_tree(ws.path()),
        user_tree(workspace_with(files).path())
    );
}

#[test]
fn a_link_known_by_its_index_line_or_deleted_mode_is_refused_as_git_refuses_it() {
    let files: &[(&str, &[u8])] = &[("link", b"old-target")];
    let changed = "diff --git a/link b/link\nindex 1de5659..a4c0f4a 120000\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-old-target\n\\ No newline at end of file\n+new-target\n\\ No newline at end of file\n";
    let deleted = "diff --git a/link b/link\ndeleted file mode 120000\nindex 1de5659..0000000\n--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-old-target\n\\ No newline at end of file\n";
    for (patch, line) in [
        (changed, "`index … 120000`"),
        (deleted, "`deleted file mode 120000`"),
    ] {
        assert!(by_git(files, &[], patch).is_none(), "git applies {line}");
        refused_as_special_file(files, patch, &[line, "symbolic link"]);
    }
    // A regular file's index line is no refusal: git applies it, and so does patchdeck.
    let regular = "diff --git a/link b/link\nindex 1de5659..a4c0f4a 100644\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-old-target\n\\ No newline at end of file\n+new-target\n\\ No newline at end of file\n";
    let git = by_git(files, &[], regular).expect("git applies it");
    let (ws, out) = run_input(files, "apply", &[], regular.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), user_tree(git.path()));
}
