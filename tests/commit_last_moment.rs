//! The last moment of a commit: another program writes a target after the commit re-checked
//! it and before the new content takes its name. The commit is stopped right there
//! (`rename=stop`, SIGSTOP), the test plays the other program, and lets it go on: what the other
//! program wrote must be what the file holds after, the commit must stop saying so, and nothing
//! of it may remain. Hard-linked originals come back as the same file, links intact.

use crate::common::terminal::wait_stopped;
use crate::common::{patchdeck_env, stderr, tree, workspace_with};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// How the file system puts files in place: with `renameat2` (exchange and no-replace), or,
/// as on a file system without them, with the commit's fallback (`PATCHDECK_NO_RENAME2`).
const RENAMES: [Option<&str>; 2] = [None, Some("1")];

/// Starts `patchdeck apply` of `batch`, armed to stop at the `nth` rename.
fn apply_stopping_at(root: &Path, batch: &Path, nth: usize) -> Child {
    apply_stopping_with(root, batch, nth, None)
}

/// [`apply_stopping_at`], with or without `renameat2`.
fn apply_stopping_with(root: &Path, batch: &Path, nth: usize, no_rename2: Option<&str>) -> Child {
    apply_armed(root, batch, &format!("rename:{nth}=stop"), no_rename2)
}

/// Starts `patchdeck apply` of `batch` with the failpoints of `spec` armed.
fn apply_armed(root: &Path, batch: &Path, spec: &str, no_rename2: Option<&str>) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    if let Some(value) = no_rename2 {
        command.env("PATCHDECK_NO_RENAME2", value);
    }
    command
        .args([
            "apply",
            "--root",
            root.to_str().unwrap(),
            batch.to_str().unwrap(),
        ])
        .env("PATCHDECK_FAILPOINT", spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn resume(child: Child) -> std::process::Output {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGCONT) };
    child.wait_with_output().unwrap()
}

/// Another program rewrites `target` in place with `bytes` (as long as what it held, so that
/// its size is the verified one) and puts its times back: only its bytes tell.
fn rewrite_in_place(target: &Path, bytes: &[u8]) {
    use std::io::Write;
    let times = fs::metadata(target).unwrap();
    assert_eq!(times.len(), bytes.len() as u64, "the same size");
    let file = fs::OpenOptions::new().write(true).open(target).unwrap();
    (&file).write_all(bytes).unwrap();
    file.set_times(
        fs::FileTimes::new()
            .set_modified(times.modified().unwrap())
            .set_accessed(times.accessed().unwrap()),
    )
    .unwrap();
}

/// A diff changing `a.txt` and `b.txt` (`old a` to `new a`, `old b` to `new b`), in a folder of
/// its own.
fn a_and_b() -> (tempfile::TempDir, std::path::PathBuf) {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.diff");
    fs::write(
        &batch,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old b\n+new b\n",
    )
    .unwrap();
    (outside, batch)
}

fn no_leftovers(root: &Path) {
    let left: Vec<_> = tree(root)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".pd-") || p.starts_with(".patchdeck/journal"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_file_replaced_just_before_its_rename_is_kept_and_the_commit_stops() {
    let (outside, batch) = a_and_b();
    // Replaced by a new file (a new inode), or written in place with its time put back (the
    // same inode and stamp: only its bytes tell); with renameat2 and without.
    for (in_place, no_rename2) in [false, true]
        .into_iter()
        .flat_map(|p| RENAMES.map(|r| (p, r)))
    {
        let ws = workspace_with(&[("a.txt", b"old a\n"), ("b.txt", b"old b\n")]);
        let child = apply_stopping_with(ws.path(), &batch, 2, no_rename2);
        wait_stopped(child.id());
        let target = ws.path().join("b.txt");
        if in_place {
            rewrite_in_place(&target, b"OLD B\n");
        } else {
            fs::write(outside.path().join("theirs"), "their b\n").unwrap();
            fs::rename(outside.path().join("theirs"), &target).unwrap();
        }
        let theirs = fs::read(&target).unwrap();
        let out = resume(child);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("b.txt was changed by another program just before patchdeck replaced it"),
            "{no_rename2:?}: {err}"
        );
        assert_eq!(
            fs::read(&target).unwrap(),
            theirs,
            "in place: {in_place}, without renameat2: {no_rename2:?}"
        );
        assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"old a\n");
        no_leftovers(ws.path());
        let again = patchdeck_env(&["recover", "--root", ws.path().to_str().unwrap()], &[]);
        assert!(
            String::from_utf8_lossy(&again.stdout).contains("nothing to recover"),
            "{}",
            stderr(&again)
        );
    }
}

/// Between the re-check (a stat, before the journal) and staging (which reads the file): a
/// target rewritten in place with its size and time kept passes the stat, and only its bytes
/// tell. `apply` holds no copy of what it verified, only its checksum: staging catches it,
/// the commit stops as changed on disk (exit 1), and nothing of it is left.
#[test]
fn a_file_rewritten_before_it_is_staged_stops_the_commit_as_changed() {
    let (_outside, batch) = a_and_b();
    let ws = workspace_with(&[("a.txt", b"old a\n"), ("b.txt", b"old b\n")]);
    // Stopped once the first journal is written: the re-check is done, nothing is staged.
    let child = apply_armed(ws.path(), &batch, "journal:1=stop", None);
    wait_stopped(child.id());
    let target = ws.path().join("b.txt");
    rewrite_in_place(&target, b"OLD B\n");
    let out = resume(child);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("b.txt: it was edited since the batch was verified")
            && err.contains("the commit stopped before writing anything"),
        "{err}"
    );
    assert_eq!(fs::read(&target).unwrap(), b"OLD B\n");
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"old a\n");
    no_leftovers(ws.path());
    assert!(
        !ws.path().join(".patchdeck/history").exists(),
        "a commit that wrote nothing entered the undo history"
    );
}

/// A batch of 60 one-line modifications, `f00.txt` to `f59.txt`, and a workspace for it.
fn sixty_files() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    tempfile::TempDir,
    Vec<String>,
) {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.diff");
    let names: Vec<String> = (0..60).map(|i| format!("f{i:02}.txt")).collect();
    let diff: String = names
        .iter()
        .map(|n| format!("--- a/{n}\n+++ b/{n}\n@@ -1 +1 @@\n-old {n}\n+new {n}\n"))
        .collect();
    fs::write(&batch, diff).unwrap();
    let contents: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|n| (n.clone(), format!("old {n}\n").into_bytes()))
        .collect();
    let files: Vec<(&str, &[u8])> = contents
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    (outside, batch, workspace_with(&files), names)
}

/// Asserts that each of `names` (of [`sixty_files`]) holds its original line again.
fn all_put_back<'n>(root: &Path, names: impl IntoIterator<Item = &'n String>, case: &str) {
    for name in names {
        assert_eq!(
            fs::read(root.join(name)).unwrap(),
            format!("old {name}\n").into_bytes(),
            "{case}: {name} was not put back"
        );
    }
}

/// Another program replaces three of 60 targets just before the first exchange: one with a
/// new file, one with a link, one with a folder. The commit checks each exchanged original
/// on other threads while it exchanges the next files, so several files may be in place by
/// the time it finds one changed: each changed one must end as that program left it, and
/// every other file must come back.
#[test]
fn targets_replaced_before_the_first_rename_stop_a_commit_of_many() {
    use std::os::unix::fs::symlink;
    for no_rename2 in RENAMES {
        let (outside, batch, ws, names) = sixty_files();
        let child = apply_stopping_with(ws.path(), &batch, 1, no_rename2);
        wait_stopped(child.id());
        let root = ws.path();
        fs::write(outside.path().join("theirs"), "their f00\n").unwrap();
        fs::rename(outside.path().join("theirs"), root.join("f00.txt")).unwrap();
        fs::remove_file(root.join("f20.txt")).unwrap();
        symlink("f21.txt", root.join("f20.txt")).unwrap();
        fs::remove_file(root.join("f40.txt")).unwrap();
        fs::create_dir(root.join("f40.txt")).unwrap();
        fs::write(root.join("f40.txt/inside"), "theirs").unwrap();
        let out = resume(child);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            ["f00.txt", "f20.txt", "f40.txt"]
                .iter()
                .any(|n| err.contains(&format!(
                    "{n} was changed by another program just before patchdeck replaced it"
                ))),
            "{no_rename2:?}: {err}"
        );
        assert_eq!(fs::read(root.join("f00.txt")).unwrap(), b"their f00\n");
        assert_eq!(
            fs::read_link(root.join("f20.txt")).unwrap(),
            Path::new("f21.txt")
        );
        assert_eq!(fs::read(root.join("f40.txt/inside")).unwrap(), b"theirs");
        let theirs = ["f00.txt", "f20.txt", "f40.txt"];
        let others = names.iter().filter(|n| !theirs.contains(&n.as_str()));
        all_put_back(root, others, &format!("{no_rename2:?}"));
        no_leftovers(root);
        let again = patchdeck_env(&["recover", "--root", root.to_str().unwrap()], &[]);
        assert!(
            String::from_utf8_lossy(&again.stdout).contains("nothing to recover"),
            "{no_rename2:?}: {}",
            stderr(&again)
        );
    }
}

/// The first file is replaced just before its exchange, and its check takes a second and a
/// half (a slow disk): every other file is exchanged, and checked, before the commit finds
/// the first changed. All 59 must come back from the journal, and the first stay as the other
/// program left it.
#[test]
fn a_change_found_after_every_other_exchange_still_puts_every_file_back() {
    let (outside, batch, ws, names) = sixty_files();
    let root = ws.path();
    let child = apply_armed(root, &batch, "rename:1=stop,check:1=sleep", None);
    wait_stopped(child.id());
    fs::write(outside.path().join("theirs"), "their f00\n").unwrap();
    fs::rename(outside.path().join("theirs"), root.join("f00.txt")).unwrap();
    let out = resume(child);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("f00.txt was changed by another program just before patchdeck replaced it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(root.join("f00.txt")).unwrap(), b"their f00\n");
    all_put_back(root, &names[1..], "check:1=sleep");
    no_leftovers(root);
}

/// A commit that fails or dies while it checks what its exchanges took out: exchanged files
/// and files not yet exchanged alike are put back, by the commit itself or by the next
/// command's recovery.
#[test]
fn a_commit_failing_or_killed_at_a_check_puts_every_file_back() {
    for spec in [
        "check:1=kill",
        "check:30=kill",
        "check:2=error",
        "check:59=error",
    ] {
        let (_outside, batch, ws, names) = sixty_files();
        let root = ws.path();
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                root.to_str().unwrap(),
                batch.to_str().unwrap(),
            ],
            &[("PATCHDECK_FAILPOINT", spec)],
        );
        if spec.ends_with("kill") {
            assert_eq!(out.status.code(), None, "{spec}: killed, {}", stderr(&out));
            let again = patchdeck_env(&["recover", "--root", root.to_str().unwrap()], &[]);
            assert!(again.status.success(), "{spec}: {}", stderr(&again));
        } else {
            assert_eq!(out.status.code(), Some(3), "{spec}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("injected failure"),
                "{spec}: {}",
                stderr(&out)
            );
        }
        all_put_back(root, &names, spec);
        no_leftovers(root);
    }
}

#[test]
fn a_file_created_just_before_its_rename_is_kept_and_the_commit_stops() {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.json");
    fs::write(
        &batch,
        r#"{"root": ".", "files": [{"path": "new.txt", "content": "ours\n"}]}"#,
    )
    .unwrap();
    for no_rename2 in RENAMES {
        let ws = workspace_with(&[]);
        let child = apply_stopping_with(ws.path(), &batch, 1, no_rename2);
        wait_stopped(child.id());
        fs::write(ws.path().join("new.txt"), "theirs\n").unwrap();
        let out = resume(child);
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("was created by another program while the commit was running"),
            "{no_rename2:?}: {}",
            stderr(&out)
        );
        assert_eq!(fs::read(ws.path().join("new.txt")).unwrap(), b"theirs\n");
        no_leftovers(ws.path());
    }
}

#[test]
fn a_file_replaced_just_before_its_deletion_is_kept_and_the_commit_stops() {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.json");
    fs::write(
        &batch,
        r#"{"root": ".", "files": [{"path": "gone.txt", "operation": "delete"}]}"#,
    )
    .unwrap();
    let ws = workspace_with(&[("gone.txt", b"old\n")]);
    let child = apply_stopping_at(ws.path(), &batch, 1);
    wait_stopped(child.id());
    fs::write(outside.path().join("theirs"), "theirs\n").unwrap();
    fs::rename(outside.path().join("theirs"), ws.path().join("gone.txt")).unwrap();
    let out = resume(child);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("gone.txt")).unwrap(), b"theirs\n");
    no_leftovers(ws.path());
}

/// With `--allow-hard-links`, a failed commit gives the name its original file back: the same
/// inode its other names share, not a copy that would break the link.
#[test]
fn a_rolled_back_hard_linked_file_is_the_same_file_again() {
    let ws = workspace_with(&[("a.txt", b"old a\n"), ("z.txt", b"old z\n")]);
    fs::hard_link(ws.path().join("a.txt"), ws.path().join("other-name.txt")).unwrap();
    let inode = fs::metadata(ws.path().join("a.txt")).unwrap().ino();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.diff");
    fs::write(
        &batch,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n--- a/z.txt\n+++ b/z.txt\n@@ -1 +1 @@\n-old z\n+new z\n",
    )
    .unwrap();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck_env(
        &[
            "apply",
            "--allow-hard-links",
            "--root",
            root,
            batch.to_str().unwrap(),
        ],
        &[("PATCHDECK_FAILPOINT", "rename:2")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let meta = fs::metadata(ws.path().join("a.txt")).unwrap();
    assert_eq!(meta.ino(), inode, "a.txt is its original file again");
    assert_eq!(meta.nlink(), 2, "and still shares it with other-name.txt");
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"old a\n");
    no_leftovers(ws.path());
}

/// Another program replaces the target twice: once just before the exchange (so the commit
/// moves that version aside), and once more just before the exchange is checked. Its latest
/// version is what the file holds after, the one before is kept beside it and named (never
/// deleted), and the commit stops saying both.
#[test]
fn a_file_replaced_twice_during_its_exchange_keeps_both_versions() {
    // One file, so that its check is the first and only one (checks run on several threads).
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("a.diff");
    fs::write(
        &batch,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n",
    )
    .unwrap();
    let ws = workspace_with(&[("a.txt", b"old a\n"), ("b.txt", b"old b\n")]);
    let child = apply_armed(ws.path(), &batch, "rename:1=stop,check:1=stop", None);
    let target = ws.path().join("a.txt");
    let replace = |bytes: &str| {
        let theirs = outside.path().join("theirs");
        fs::write(&theirs, bytes).unwrap();
        fs::rename(&theirs, &target).unwrap();
    };
    wait_stopped(child.id());
    replace("their first a\n");
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGCONT) };
    // Exchanged (their first version now at the staged name), then stopped at the check.
    let started = std::time::Instant::now();
    while !tree(ws.path()).iter().any(|(p, (bytes, _))| {
        p.to_string_lossy().starts_with(".a.txt.pd-") && bytes == b"their first a\n"
    }) {
        assert!(started.elapsed().as_secs() < 60, "never exchanged");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    wait_stopped(child.id());
    replace("their second a\n");
    let out = resume(child);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("a.txt was replaced by another program twice while patchdeck put it in place: its latest version is left in place, and the one before it is kept as .a.txt.pd-"),
        "{err}"
    );
    assert_eq!(fs::read(&target).unwrap(), b"their second a\n");
    let kept: Vec<_> = tree(ws.path())
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().starts_with(".a.txt.pd-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].1 .0, b"their first a\n");
    assert!(
        err.contains(&format!(
            "the content the commit had moved aside is kept as {}",
            kept[0].0.display()
        )),
        "{err}"
    );
    assert_eq!(fs::read(ws.path().join("b.txt")).unwrap(), b"old b\n");
    assert!(!ws.path().join(".patchdeck/journal").exists());
}

/// A file the batch deletes, written again by another program after the commit moved it aside,
/// while the commit then fails on another file: the rollback leaves that program's file in
/// place and keeps the original beside it, named, since it is the original's only copy.
#[test]
fn a_deleted_file_written_again_keeps_its_original_when_the_commit_rolls_back() {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("d.diff");
    fs::write(
        &batch,
        "diff --git a/foo b/foo\ndeleted file mode 100644\n--- a/foo\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello world\ndiff --git a/keep b/keep\n--- a/keep\n+++ b/keep\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    let ws = workspace_with(&[("foo", b"hello world\n"), ("keep", b"old\n")]);
    // Stopped before the second file (keep) is put in place: foo is moved aside already.
    let child = apply_stopping_at(ws.path(), &batch, 2);
    wait_stopped(child.id());
    fs::write(ws.path().join("foo"), "OTHER\n").unwrap();
    // keep changed too: its exchange is then found changed, and the commit rolls back.
    rewrite_in_place(&ws.path().join("keep"), b"odd\n");
    let out = resume(child);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("foo")).unwrap(), b"OTHER\n");
    let kept: Vec<_> = tree(ws.path())
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().starts_with(".foo.pd-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].1 .0, b"hello world\n", "the original's only copy");
    let err = stderr(&out);
    assert!(err.contains(&kept[0].0.display().to_string()), "{err}");
}

/// A folder becoming a file, where another program writes a file at the folder's name after
/// the commit removed the folder and before it puts the new file in: the commit rolls back,
/// leaves that program's file, keeps the folder's files aside and names them, and leaves no
/// journal that would stop the next command.
#[test]
fn a_file_written_where_a_removed_folder_was_never_locks_the_workspace() {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("r.diff");
    fs::write(
        &batch,
        "diff --git a/keep b/keep\n--- a/keep\n+++ b/keep\n@@ -1 +1 @@\n-old\n+new\ndiff --git a/foo b/foo\nnew file mode 100644\n--- /dev/null\n+++ b/foo\n@@ -0,0 +1 @@\n+file now\ndiff --git a/foo/bar/baz b/foo/bar/baz\ndeleted file mode 100644\n--- a/foo/bar/baz\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\ndiff --git a/foo/z b/foo/z\ndeleted file mode 100644\n--- a/foo/z\n+++ /dev/null\n@@ -1 +0,0 @@\n-c\n",
    )
    .unwrap();
    let ws = workspace_with(&[
        ("foo/bar/baz", b"a\n"),
        ("foo/z", b"c\n"),
        ("keep", b"old\n"),
    ]);
    // The deletions go first, the folders are removed, keep is exchanged: stopped before foo.
    let child = apply_armed(ws.path(), &batch, "rename:4=stop", None);
    wait_stopped(child.id());
    fs::write(ws.path().join("foo"), "EDITOR\n").unwrap();
    let out = resume(child);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("foo")).unwrap(), b"EDITOR\n");
    assert_eq!(fs::read(ws.path().join("keep")).unwrap(), b"old\n");
    let kept: Vec<_> = tree(ws.path())
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().contains(".pd-"))
        .map(|(_, (bytes, _))| bytes)
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(kept.contains(&b"a\n".to_vec()) && kept.contains(&b"c\n".to_vec()));
    assert!(!ws.path().join(".patchdeck/journal").exists());
    let again = patchdeck_env(
        &[
            "check",
            "--root",
            ws.path().to_str().unwrap(),
            batch.to_str().unwrap(),
        ],
        &[],
    );
    assert_ne!(again.status.code(), Some(3), "{}", stderr(&again));
}
