//! The commit at the edges of what a file system allows: names at the length limit (and what
//! patchdeck's own names must never exceed), and a batch that needs one path to be a file and
//! a folder at once.

#[cfg(target_os = "linux")]
use crate::common::mount::Mount;
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
    // A conflict of its own kind, for scripts to match on.
    assert_eq!(report["blockedBy"][0]["kind"], "path_conflict", "{report}");
    assert_eq!(report["blockedBy"][0]["status"], "conflict", "{report}");
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
    // Where x already is a file that the batch deletes, the file becomes a folder, as git
    // applies it (see commit_reshape.rs), and undo puts the file back.
    let ws = workspace_with(&[("x", b"old\n")]);
    let before = user_tree(ws.path());
    let root = ws.path().to_str().unwrap();
    let apply = patchdeck(&["apply", "--root", root, replace.to_str().unwrap()]);
    assert_eq!(apply.status.code(), Some(0), "{}", stderr(&apply));
    assert_eq!(fs::read(ws.path().join("x/y")).unwrap(), b"b\n");
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
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

/// A mount point inside the root puts some targets on another file system than patchdeck's
/// own folder. Every original is kept beside its target, so a commit killed or failing there
/// is recovered, a full disk there is refused cleanly and can be retried once there is room,
/// and undo restores across the mount.
#[test]
#[cfg(target_os = "linux")]
fn a_mount_point_inside_the_root_never_strands_a_commit() {
    let ws = workspace_with(&[("top.txt", b"old top\n")]);
    let mnt = ws.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let _mount = Mount::tmpfs(&mnt, "64k");
    fs::write(mnt.join("a.txt"), "old a\n").unwrap();
    let root = ws.path().to_str().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.diff");
    fs::write(
        &batch,
        "--- a/top.txt\n+++ b/top.txt\n@@ -1 +1 @@\n-old top\n+new top\n--- a/mnt/a.txt\n+++ b/mnt/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n",
    )
    .unwrap();
    let batch = batch.to_str().unwrap();
    let before = user_tree(ws.path());

    for failpoint in ["rename:2=kill", "mark=kill", "rename:2", "mark=enospc"] {
        let out = patchdeck_env(
            &["apply", "--root", root, batch],
            &[("PATCHDECK_FAILPOINT", failpoint)],
        );
        assert_ne!(out.status.code(), Some(0), "{failpoint}");
        let recovered = patchdeck(&["recover", "--root", root]);
        assert_eq!(
            recovered.status.code(),
            Some(0),
            "{failpoint}: {}",
            stderr(&recovered)
        );
        assert!(user_tree(ws.path()) == before, "{failpoint}: not all old");
        assert!(!ws.path().join(".patchdeck/journal").exists());
    }

    // Killed after the mark: recovery finishes the commit, moving the original kept on the
    // tmpfs into the undo history (a copy across the mount), and undo brings it back.
    let out = patchdeck_env(
        &["apply", "--root", root, batch],
        &[("PATCHDECK_FAILPOINT", "cleanup=kill")],
    );
    assert_eq!(out.status.code(), None);
    let recovered = patchdeck(&["recover", "--root", root]);
    assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
    assert_eq!(fs::read(mnt.join("a.txt")).unwrap(), b"new a\n");
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert!(user_tree(ws.path()) == before);

    // The tmpfs full: staging there fails, everything stays as it was, and with room again
    // the same batch applies.
    let filler = mnt.join("filler");
    let _ = fs::write(&filler, vec![b'x'; 64 << 10]);
    let full = patchdeck(&["apply", "--root", root, batch]);
    assert_eq!(full.status.code(), Some(3), "{}", stderr(&full));
    assert!(
        stderr(&full).contains("No space left on device"),
        "{}",
        stderr(&full)
    );
    fs::remove_file(&filler).unwrap();
    assert!(user_tree(ws.path()) == before);
    let out = patchdeck(&["apply", "--root", root, batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(mnt.join("a.txt")).unwrap(), b"new a\n");
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert!(user_tree(ws.path()) == before);
}

/// What a killed or refused commit must not leave: a folder its deletion emptied, a journal
/// half-written when the process died, a lock file when the disk was full.
#[test]
fn kills_and_full_disks_leave_no_empty_folder_journal_or_lock_behind() {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.json");
    fs::write(
        &batch,
        r#"{"root": ".", "files": [{"path": "todelete/only.txt", "operation": "delete"}]}"#,
    )
    .unwrap();
    let batch = batch.to_str().unwrap();

    // Killed after the mark: recovery finishes the deletion, the emptied folder included.
    let ws = workspace_with(&[("todelete/only.txt", b"x\n"), ("keep.txt", b"k\n")]);
    let root = ws.path().to_str().unwrap();
    let out = patchdeck_env(
        &["apply", "--root", root, batch],
        &[("PATCHDECK_FAILPOINT", "cleanup=kill")],
    );
    assert_eq!(out.status.code(), None);
    let recovered = patchdeck(&["recover", "--root", root]);
    assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
    assert!(
        !ws.path().join("todelete").exists(),
        "the emptied folder is left"
    );

    // A journal left half-written by a process that died: read-only commands leave it, a
    // command that writes clears it.
    let ws = workspace_with(&[("keep.txt", b"k\n")]);
    let root = ws.path().to_str().unwrap();
    fs::create_dir(ws.path().join(".patchdeck")).unwrap();
    fs::write(ws.path().join(".patchdeck/journal.tmp"), "{\"vers").unwrap();
    let other = outside.path().join("c.json");
    fs::write(
        &other,
        r#"{"root": ".", "files": [{"path": "keep.txt", "content": "k2\n"}]}"#,
    )
    .unwrap();
    let check = patchdeck(&["check", "--root", root, other.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(ws.path().join(".patchdeck/journal.tmp").exists());
    let recovered = patchdeck(&["recover", "--root", root]);
    assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
    assert!(!ws.path().join(".patchdeck/journal.tmp").exists());

    // patchdeck's folder on a full file system: the commit is refused, and its lock goes (a
    // tmpfs of the test's own, in a mount namespace: Linux).
    #[cfg(target_os = "linux")]
    {
        let ws = workspace_with(&[("keep.txt", b"k\n")]);
        let root = ws.path().to_str().unwrap();
        let state = ws.path().join(".patchdeck");
        fs::create_dir(&state).unwrap();
        let _mount = Mount::tmpfs(&state, "16k,mode=0700");
        fs::write(state.join(".gitignore"), "*\n").unwrap();
        let _ = fs::write(state.join("filler"), vec![b'x'; 16 << 10]);
        let out = patchdeck(&["apply", "--root", root, other.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("No space left on device"),
            "{}",
            stderr(&out)
        );
        assert!(!state.join("lock").exists(), "a lock file is left");
        assert_eq!(fs::read(ws.path().join("keep.txt")).unwrap(), b"k\n");
    }
}

/// A file created in folders the commit makes is reachable after a power cut only once each
/// new folder's name is durable in its parent too. `a/b/c.txt` in an empty workspace: each pass
/// that syncs folders syncs `a/b` (which holds the file), `a` (which holds `b`) and the root
/// (which holds `a`), three in all, so a failure injected at the third sync stops the commit,
/// and one at the seventh is never reached.
#[test]
fn the_folders_a_creation_makes_are_synced_in_their_parents() {
    let diff = "--- /dev/null\n+++ b/a/b/c.txt\n@@ -0,0 +1 @@\n+new\n";
    for (spec, code) in [("sync:3=error", Some(3)), ("sync:7=error", Some(0))] {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let batch = outside.path().join("create.diff");
        fs::write(&batch, diff).unwrap();
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                ws.path().to_str().unwrap(),
                batch.to_str().unwrap(),
            ],
            &[("PATCHDECK_FAILPOINT", spec)],
        );
        assert_eq!(out.status.code(), code, "{spec}: {}", stderr(&out));
        let created = ws.path().join("a/b/c.txt");
        match code {
            Some(0) => assert_eq!(fs::read(&created).unwrap(), b"new\n"),
            _ => {
                assert!(stderr(&out).contains("syncing a folder to disk"), "{spec}");
                assert!(
                    !ws.path().join("a").exists(),
                    "{spec}: the folders are removed"
                );
            }
        }
    }
}
