//! `patchdeck undo`: the last committed batch restored byte for byte and permission for
//! permission, atomically, only when nothing changed since; a bounded history.

use crate::common;
use crate::common::{
    patchdeck, patchdeck_env, sample_workspace, samples, sha, stderr, stdout, user_tree,
};
use patchdeck::commit::undo::undo;
use patchdeck::commit::{commit, CommitOptions};
use patchdeck::fs::read_snapshot;
use patchdeck::plan::{FileWrite, Plan, WriteKind};
use patchdeck::workspace::Workspace;
use serde_json::json;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn apply(root: &Path, batch: &Path) {
    let out = patchdeck(&[
        "apply",
        "--root",
        root.to_str().unwrap(),
        batch.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A batch, labelled "FROM to TO", that turns `a.txt` from the line FROM to the line TO.
fn one_line_batch(dir: &Path, from: &str, to: &str) -> std::path::PathBuf {
    let batch = json!({"batchLabel": format!("{from} to {to}"), "files": [{"docPath": "a.txt", "originalSha256": sha(format!("{from}\n").as_bytes()),
        "changes": [{"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": [from], "newLines": [to]}]}]});
    let path = dir.join(format!("{to}.json"));
    fs::write(&path, batch.to_string()).unwrap();
    path
}

fn undo_cli(root: &Path) -> std::process::Output {
    patchdeck(&["undo", "--root", root.to_str().unwrap()])
}

#[test]
fn undo_restores_every_file_the_batch_wrote_and_removes_what_it_created() {
    let ws = sample_workspace();
    fs::set_permissions(
        ws.path().join("windows/setup.bat"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let before = user_tree(ws.path());
    apply(ws.path(), &samples().join("clean.json"));
    assert_ne!(user_tree(ws.path()), before);
    let out = undo_cli(ws.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("restored src/app.py"), "{text}");
    assert!(text.contains("removed docs/changelog.md"), "{text}");
    assert!(
        text.contains("undid \"Inventory: logging, validation and clearer errors\""),
        "{text}"
    );
    assert_eq!(
        user_tree(ws.path()),
        before,
        "undo did not give back the original tree"
    );
    // The undone batch left the history: nothing more to undo.
    let again = undo_cli(ws.path());
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("nothing to undo"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn undo_refuses_when_a_written_file_changed_since_and_writes_nothing() {
    let ws = sample_workspace();
    apply(ws.path(), &samples().join("clean.json"));
    fs::write(
        ws.path().join("src/inventory.toml"),
        "edited after the commit\n",
    )
    .unwrap();
    let after = user_tree(ws.path());
    let out = undo_cli(ws.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("changed since it was committed: src/inventory.toml"),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), after);
}

#[test]
fn undo_twice_undoes_the_two_last_batches_in_turn() {
    let ws = common::workspace_with(&[("a.txt", b"one\n")]);
    let dir = tempfile::tempdir().unwrap();
    let step = |from: &str, to: &str| one_line_batch(dir.path(), from, to);
    apply(ws.path(), &step("one", "two"));
    apply(ws.path(), &step("two", "three"));
    assert!(stdout(&undo_cli(ws.path())).contains("undid \"two to three\""));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"two\n");
    assert!(stdout(&undo_cli(ws.path())).contains("undid \"one to two\""));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"one\n");
}

#[test]
fn the_history_keeps_the_last_ten_batches() {
    let ws = common::workspace_with(&[("n.txt", b"0\n")]);
    let dir = tempfile::tempdir().unwrap();
    for i in 0..12 {
        let batch = json!({"files": [{"docPath": "n.txt", "originalSha256": sha(format!("{i}\n").as_bytes()),
            "changes": [{"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": [i.to_string()], "newLines": [(i + 1).to_string()]}]}]});
        let path = dir.path().join("b.json");
        fs::write(&path, batch.to_string()).unwrap();
        apply(ws.path(), &path);
    }
    let kept = fs::read_dir(ws.path().join(".patchdeck/history"))
        .unwrap()
        .count();
    assert_eq!(kept, patchdeck::commit::history::KEEP);
    for _ in 0..10 {
        assert_eq!(undo_cli(ws.path()).status.code(), Some(0));
    }
    assert_eq!(fs::read(ws.path().join("n.txt")).unwrap(), b"2\n");
    assert_eq!(
        undo_cli(ws.path()).status.code(),
        Some(2),
        "the two oldest batches were pruned"
    );
}

/// The history follows the order the commits were made in, not the clock: each commit here
/// is made with the clock set an hour further back than the one before.
#[test]
fn the_history_keeps_commit_order_when_the_clock_goes_back() {
    let ws = common::workspace_with(&[("n.txt", b"0\n")]);
    let root = ws.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for i in 0..11 {
        let batch = json!({"batchLabel": format!("{i} to {}", i + 1), "files": [{"docPath": "n.txt", "originalSha256": sha(format!("{i}\n").as_bytes()),
            "changes": [{"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": [i.to_string()], "newLines": [(i + 1).to_string()]}]}]});
        let path = dir.path().join("b.json");
        fs::write(&path, batch.to_string()).unwrap();
        let skew = format!("-{}", i * 3600);
        let out = patchdeck_env(
            &["apply", "--root", root, path.to_str().unwrap()],
            &[("PATCHDECK_CLOCK_SKEW_SECS", &skew)],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // The clock really went back for this commit: its ID's time (the 16 hex digits after
        // the sequence number) is before the time of every commit made before it.
        let times = commit_times(ws.path());
        let newest = *times.last().unwrap();
        assert!(
            times[..times.len() - 1].iter().all(|t| *t > newest),
            "commit {i} was not made with the clock set back: {times:?}"
        );
    }
    for i in (1..11).rev() {
        let out = undo_cli(ws.path());
        assert!(
            stdout(&out).contains(&format!("undid \"{i} to {}\"", i + 1)),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    assert_eq!(fs::read(ws.path().join("n.txt")).unwrap(), b"1\n");
    assert_eq!(
        undo_cli(ws.path()).status.code(),
        Some(2),
        "the oldest was pruned"
    );
}

/// The times (nanoseconds) in the IDs of the history's records, in sequence order.
fn commit_times(root: &Path) -> Vec<u64> {
    let mut ids: Vec<String> = fs::read_dir(root.join(".patchdeck/history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.len() > 32)
        .collect();
    ids.sort();
    ids.iter()
        .map(|id| u64::from_str_radix(&id[16..32], 16).unwrap())
        .collect()
}

#[test]
fn undo_of_a_deletion_recreates_the_file_with_its_permissions() {
    let ws = common::workspace_with(&[("tool.sh", b"#!/bin/sh\necho hi\n")]);
    let path = ws.path().join("tool.sh");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
    let workspace = Workspace::open(ws.path()).unwrap();
    let plan = Plan {
        writes: vec![FileWrite {
            file: 0,
            rel: patchdeck::fs::RepoPath::parse("tool.sh").unwrap().0,
            kind: WriteKind::Delete,
            before: Some(read_snapshot(&path).unwrap()),
            after: patchdeck::content::Content::default(),
            changes: Vec::new(),
            ranges: Vec::new(),
            mode: None,
            owner: None,
            executable: None,
            may_be_unchanged: false,
        }],
        ..Plan::default()
    };
    commit(
        &workspace,
        &plan,
        &CommitOptions {
            label: "delete the tool".into(),
            ..CommitOptions::default()
        },
    )
    .unwrap();
    assert!(!path.exists());
    let undone = undo(&workspace, CommitOptions::default()).unwrap();
    assert_eq!(undone.label, "delete the tool");
    assert_eq!(fs::read(&path).unwrap(), b"#!/bin/sh\necho hi\n");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o750
    );
}

#[test]
fn an_undo_that_fails_partway_restores_the_committed_state() {
    let ws = sample_workspace();
    apply(ws.path(), &samples().join("clean.json"));
    let committed = user_tree(ws.path());
    let out = patchdeck_env(
        &["undo", "--root", ws.path().to_str().unwrap()],
        &[("PATCHDECK_FAILPOINT", "rename:3")],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(user_tree(ws.path()), committed);
    // The batch can still be undone afterwards.
    assert_eq!(undo_cli(ws.path()).status.code(), Some(0));
}

/// Killed between restoring the files and forgetting their record, an undo is finished by the
/// next command that writes; undo run again after the crash does not go on to undo the batch
/// before, and the one after it does.
#[test]
fn an_undo_killed_before_it_forgot_its_record_is_finished_by_the_next_command() {
    let ws = common::workspace_with(&[("a.txt", b"one\n")]);
    let root = ws.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let step = |from: &str, to: &str| one_line_batch(dir.path(), from, to);
    apply(ws.path(), &step("one", "two"));
    apply(ws.path(), &step("two", "three"));
    let killed = patchdeck_env(
        &["undo", "--root", root],
        &[("PATCHDECK_FAILPOINT", "forget=kill")],
    );
    assert_eq!(killed.status.code(), None, "{}", stderr(&killed));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"two\n");

    let again = undo_cli(ws.path());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("finished an interrupted undo of \"two to three\""),
        "{}",
        stderr(&again)
    );
    assert!(
        stdout(&again).contains("undid \"two to three\""),
        "{}",
        stdout(&again)
    );
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"two\n");

    let next = undo_cli(ws.path());
    assert_eq!(next.status.code(), Some(0), "{}", stderr(&next));
    assert!(
        stdout(&next).contains("undid \"one to two\""),
        "{}",
        stdout(&next)
    );
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"one\n");
}

/// Killed while its own commit renamed files, an undo is rolled back by recovery, and the
/// record stands: undo then works as if nothing had happened.
#[test]
fn an_undo_killed_while_restoring_is_rolled_back_and_can_be_run_again() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    apply(ws.path(), &samples().join("clean.json"));
    let after = user_tree(ws.path());
    let root = ws.path().to_str().unwrap();
    let killed = patchdeck_env(
        &["undo", "--root", root],
        &[("PATCHDECK_FAILPOINT", "rename:2=kill")],
    );
    assert_eq!(killed.status.code(), None);
    let recovered = patchdeck(&["recover", "--root", root]);
    assert!(
        stdout(&recovered).contains("rolled back an interrupted commit"),
        "{}",
        stdout(&recovered)
    );
    assert_eq!(user_tree(ws.path()), after);
    let out = undo_cli(ws.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_tree(ws.path()), before);
}

/// The files are restored whatever becomes of the words: a full standard output is a
/// warning, and the status says the undo happened.
#[test]
fn an_undo_that_cannot_print_still_says_it_happened() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    apply(ws.path(), &samples().join("clean.json"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args(["undo", "--root", ws.path().to_str().unwrap()])
        .stdout(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the undo is done, but saying so failed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}

/// A record swapped for a link out of the workspace is not one of this workspace's: it is
/// named and ignored, never followed, and nothing is said restored.
#[test]
fn an_unreadable_history_is_named_and_nothing_is_said_restored() {
    let ws = sample_workspace();
    apply(ws.path(), &samples().join("clean.json"));
    let after = user_tree(ws.path());
    let history = ws.path().join(".patchdeck/history");
    let id = fs::read_dir(&history)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::rename(history.join(&id), elsewhere.path().join("record")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("record"), history.join(&id)).unwrap();
    let out = undo_cli(ws.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: a symbolic link", id.to_string_lossy())),
        "{err}"
    );
    assert!(err.contains("nothing to undo"), "{err}");
    assert!(!err.contains("restored"), "{err}");
    assert_eq!(user_tree(ws.path()), after);
    assert!(elsewhere.path().join("record/journal.json").exists());
}

/// A written file that cannot be read is named as itself, never as the undo history.
#[test]
fn a_written_file_that_cannot_be_read_is_named_and_nothing_is_done() {
    let ws = sample_workspace();
    apply(ws.path(), &samples().join("clean.json"));
    let target = ws.path().join("src/app.py");
    fs::remove_file(&target).unwrap();
    fs::create_dir(&target).unwrap();
    let after = user_tree(ws.path());
    let out = undo_cli(ws.path());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot undo: src/app.py cannot be read"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!err.contains("history"), "{err}");
    assert_eq!(user_tree(ws.path()), after);
}

/// A file keeps its owner and group through a commit and its undo. As root (CI), the file
/// belongs to another user and group, which root must give back; as anyone else it belongs
/// to the tester, and the test holds that it still does.
#[test]
fn written_and_restored_files_keep_their_owner_and_group() {
    use std::os::unix::fs::MetadataExt;
    let ws = common::workspace_with(&[("owned.txt", b"old\n")]);
    let path = ws.path().join("owned.txt");
    // SAFETY: geteuid and getegid have no preconditions.
    let (me, my_group) = unsafe { (libc::geteuid(), libc::getegid()) };
    let owner = if me == 0 {
        (4321, 4322)
    } else {
        (me, my_group)
    };
    std::os::unix::fs::chown(&path, Some(owner.0), Some(owner.1)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("b.diff");
    fs::write(
        &batch,
        "--- a/owned.txt\n+++ b/owned.txt\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    apply(ws.path(), &batch);
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new\n");
    assert_eq!((meta.uid(), meta.gid()), owner, "after the commit");
    assert_eq!(undo_cli(ws.path()).status.code(), Some(0));
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"old\n");
    assert_eq!((meta.uid(), meta.gid()), owner, "after the undo");
}

/// A user who may not give a file back to its owner (anyone but root, for a file another user
/// owns) writes it as theirs, as any editor would: apply and undo say so, naming the file,
/// and the JSON report lists it. Run as root, the test plays that user (uid 4321) on a file
/// owned by uid 4555 that 4321 may write.
#[test]
fn a_file_whose_owner_cannot_be_kept_is_named() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    assert_eq!(
        unsafe { libc::geteuid() },
        0,
        "this test runs patchdeck as another user, which needs root (CI runs as root); run the suite as root, or leave this test out with --skip owner_cannot_be_kept"
    );
    let (player, owner) = (4321, 4555);
    let ws = common::workspace_with(&[("shared.txt", b"old\n")]);
    let path = ws.path().join("shared.txt");
    std::os::unix::fs::chown(&path, Some(owner), Some(owner)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    fs::set_permissions(ws.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::set_permissions(outside.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let batch = outside.path().join("b.diff");
    fs::write(
        &batch,
        "--- a/shared.txt\n+++ b/shared.txt\n@@ -1 +1 @@\n-old\n+new\n",
    )
    .unwrap();
    let state = outside.path().join("state");
    fs::create_dir(&state).unwrap();
    std::os::unix::fs::chown(&state, Some(player), Some(player)).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
            .args(args)
            .args(["--root", ws.path().to_str().unwrap()])
            .env("XDG_STATE_HOME", &state)
            .env("HOME", &state)
            .uid(player)
            .gid(player)
            .output()
            .unwrap()
    };
    let out = run(&["apply", "--json", batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = common::json_out(&out);
    assert_eq!(report["ownerNotKept"], json!(["shared.txt"]), "{report}");
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new\n");
    assert_eq!((meta.uid(), meta.gid()), (player, player));
    let text = run(&["undo"]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    assert!(
        stderr(&text)
            .contains("shared.txt was restored as yours: its owner and group could not be kept"),
        "{}",
        stderr(&text)
    );
    assert_eq!(fs::read(&path).unwrap(), b"old\n");
}
