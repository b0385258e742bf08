//! The commit against a hostile world: a folder swapped for a link while commits run, a
//! journal file that is a link, and saved originals changed behind the undo history's back
//! (journals planted in a workspace are in `planted.rs`). Nothing may be written outside the root, and nothing patchdeck did
//! not verify may be overwritten.

use crate::common::{patchdeck, stderr, stdout, workspace_with};
use patchdeck::commit::{commit, CommitOptions};
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::review::Decisions;
use std::ffi::CStr;
use std::fs;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

const DIFF: &str = "\
--- a/d/f.txt
+++ b/d/f.txt
@@ -1 +1 @@
-old
+new
";

/// Swaps two names in `folder` atomically (a folder and a link), as an attacker racing the
/// commit would.
fn exchange(folder: &fs::File, a: &CStr, b: &CStr) -> bool {
    let folder = folder.as_fd();
    patchdeck::fs::platform::exchange(folder, a, folder, b).unwrap_or(false)
}

#[test]
fn a_folder_swapped_for_a_link_while_commits_run_never_leads_a_write_outside() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("f.txt"), "outside\n").unwrap();
    let swaps = AtomicUsize::new(0);
    for trial in 0..30 {
        let ws = workspace_with(&[("d/f.txt", b"old\n")]);
        std::os::unix::fs::symlink(outside.path(), ws.path().join("link")).unwrap();
        let opened =
            pipeline::open(ws.path(), pipeline::Access::Write, Duration::from_secs(1)).unwrap();
        let checked = pipeline::load(
            &opened.workspace,
            &Input::from_bytes("race.diff", DIFF),
            None,
        )
        .unwrap();
        let plan = checked.plan(&Decisions::accept_all(&checked.batch));
        let top = fs::File::open(ws.path()).unwrap();
        let stop = AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    if exchange(&top, c"d", c"link") {
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
            let result = commit(&opened.workspace, &plan, &CommitOptions::default());
            stop.store(true, Ordering::Relaxed);
            result
        });
        // A refused commit may have had to leave its journal (its rollback could not pass
        // the link either); once the folder is back under its name, recovery finishes it.
        if fs::symlink_metadata(ws.path().join("d"))
            .unwrap()
            .is_symlink()
        {
            assert!(exchange(&top, c"d", c"link"));
        }
        pipeline::open(ws.path(), pipeline::Access::Write, Duration::from_secs(1)).unwrap();
        let outside_now: Vec<_> = fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(outside_now, vec!["f.txt"], "trial {trial}: {result:?}");
        assert_eq!(
            fs::read(outside.path().join("f.txt")).unwrap(),
            b"outside\n",
            "trial {trial}: written outside the root ({result:?})"
        );
        let real = ws.path().join("d");
        let names: Vec<_> = fs::read_dir(&real)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["f.txt"], "trial {trial}: {result:?}");
        let bytes = fs::read(real.join("f.txt")).unwrap();
        match &result {
            Ok(_) => assert_eq!(bytes, b"new\n", "trial {trial}"),
            Err(_) => assert_eq!(bytes, b"old\n", "trial {trial}"),
        }
    }
    assert!(swaps.load(Ordering::Relaxed) > 0, "the race never ran");
}

#[test]
fn a_journal_file_that_is_a_link_is_never_written_through() {
    let victim = tempfile::tempdir().unwrap();
    fs::write(victim.path().join("profile"), "keep\n").unwrap();
    let ws = workspace_with(&[("d/f.txt", b"old\n")]);
    fs::create_dir_all(ws.path().join(".patchdeck")).unwrap();
    std::os::unix::fs::symlink(
        victim.path().join("profile"),
        ws.path().join(".patchdeck/journal.tmp"),
    )
    .unwrap();
    let batch = ws.path().join("../race.diff");
    fs::write(&batch, DIFF).unwrap();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        batch.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(victim.path().join("profile")).unwrap(), b"keep\n");
    assert_eq!(fs::read(ws.path().join("d/f.txt")).unwrap(), b"new\n");
}

#[test]
fn undo_restores_an_original_whose_other_name_was_edited_since() {
    let ws = workspace_with(&[("a.txt", b"old\n")]);
    fs::hard_link(ws.path().join("a.txt"), ws.path().join("b.txt")).unwrap();
    let batch = tempfile::NamedTempFile::new().unwrap();
    fs::write(
        batch.path(),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck(&[
        "apply",
        "--root",
        root,
        "--allow-hard-links",
        batch.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // b.txt still names the original inode; editing it must not change what undo restores.
    fs::write(ws.path().join("b.txt"), "user edit to b\n").unwrap();
    let out = patchdeck(&["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"old\n");
    assert_eq!(
        fs::read(ws.path().join("b.txt")).unwrap(),
        b"user edit to b\n"
    );
}

#[test]
fn undo_refuses_a_damaged_saved_original_and_writes_nothing() {
    let ws = workspace_with(&[("a.txt", b"old\n")]);
    let batch = tempfile::NamedTempFile::new().unwrap();
    fs::write(
        batch.path(),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck(&["apply", "--root", root, batch.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let history = ws.path().join(".patchdeck/history");
    let record = fs::read_dir(&history)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::write(record.join("0"), "tampered\n").unwrap();
    let out = patchdeck(&["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("a.txt no longer have the bytes they were saved with"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"new\n");
}

/// Two first commits in a workspace at the same moment both make patchdeck's folder: neither
/// may fail because the other made it first.
#[test]
fn two_first_commits_at_once_both_succeed() {
    let outside = tempfile::tempdir().unwrap();
    let a = outside.path().join("a.json");
    let b = outside.path().join("b.json");
    fs::write(
        &a,
        r#"{"root": ".", "files": [{"path": "a.txt", "content": "a\n"}]}"#,
    )
    .unwrap();
    fs::write(
        &b,
        r#"{"root": ".", "files": [{"path": "b.txt", "content": "b\n"}]}"#,
    )
    .unwrap();
    for trial in 0..30 {
        let ws = workspace_with(&[]);
        let root = ws.path().to_str().unwrap();
        let spawn = |batch: &Path| {
            std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
                .args(["apply", "--root", root, batch.to_str().unwrap()])
                .stderr(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let (first, second) = (spawn(&a), spawn(&b));
        for child in [first, second] {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "trial {trial}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"a\n");
        assert_eq!(fs::read(ws.path().join("b.txt")).unwrap(), b"b\n");
        assert_eq!(
            fs::read(ws.path().join(".patchdeck/.gitignore")).unwrap(),
            b"# patchdeck's own state\n*\n"
        );
    }
}
