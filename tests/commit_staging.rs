//! Staging reads each target again under the commit's lock and makes its new content from what
//! it read: `apply` holds no file it has checked. What that must get right: a write that turns
//! out to change nothing is not written, and a commit of more files than the process may hold
//! open stages them all.

use crate::common::{
    patchdeck, staged_leftovers, stderr, stdout, tree, user_tree, workspace_of, workspace_with,
};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A diff whose hunk for `same.txt` replaces a line with itself, and whose hunk for
/// `real.txt` changes one.
const MIXED: &str = "--- a/same.txt\n+++ b/same.txt\n@@ -1,2 +1,2 @@\n-keep\n+keep\n two\n--- a/real.txt\n+++ b/real.txt\n@@ -1 +1 @@\n-old\n+new\n";

#[test]
fn a_write_that_changes_nothing_is_left_alone_and_not_kept_for_undo() {
    let ws = workspace_with(&[("same.txt", b"keep\ntwo\n"), ("real.txt", b"old\n")]);
    let root = ws.path().to_str().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("mixed.diff");
    fs::write(&batch, MIXED).unwrap();
    let same = ws.path().join("same.txt");
    let inode = fs::metadata(&same).unwrap().ino();
    let out = patchdeck(&["apply", "--root", root, batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("wrote real.txt"), "{said}");
    assert!(
        !said.contains("same.txt"),
        "a file left as it was is not said written: {said}"
    );
    assert_eq!(fs::read(ws.path().join("real.txt")).unwrap(), b"new\n");
    assert_eq!(fs::read(&same).unwrap(), b"keep\ntwo\n");
    assert_eq!(
        fs::metadata(&same).unwrap().ino(),
        inode,
        "same.txt was replaced"
    );
    // Undo puts back what was written, and has nothing to put back for the other.
    let undo = patchdeck(&["undo", "--root", root]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert_eq!(fs::read(ws.path().join("real.txt")).unwrap(), b"old\n");
    assert_eq!(fs::metadata(&same).unwrap().ino(), inode);
    assert!(!stdout(&undo).contains("same.txt"), "{}", stdout(&undo));
}

#[test]
fn a_batch_that_changes_nothing_writes_nothing_and_records_nothing() {
    let ws = workspace_with(&[("same.txt", b"keep\ntwo\n")]);
    let root = ws.path().to_str().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("same.diff");
    fs::write(&batch, &MIXED[..MIXED.find("--- a/real.txt").unwrap()]).unwrap();
    let before = user_tree(ws.path());
    let out = patchdeck(&["apply", "--root", root, batch.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("nothing to write"),
        "{}",
        stdout(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
    // The file was read (to make its content and find it the same) before anything was
    // written, not even patchdeck's own folder.
    assert!(
        !ws.path().join(".patchdeck").exists(),
        "{:?}",
        tree(ws.path()).into_keys().collect::<Vec<_>>()
    );
    let undo = patchdeck(&["undo", "--root", root]);
    assert_ne!(undo.status.code(), Some(0), "there is nothing to undo");
}

/// A workspace of `n` files in three folders, and (in a folder of its own) a diff changing one
/// line of each.
fn many(n: usize) -> (tempfile::TempDir, tempfile::TempDir, std::path::PathBuf) {
    let files: Vec<(String, Vec<u8>)> = (0..n)
        .map(|i| {
            let body: String = (0..20).map(|l| format!("file {i} line {l}\n")).collect();
            (format!("d{}/f{i}.txt", i % 3), body.into_bytes())
        })
        .collect();
    let ws = workspace_of(&files);
    let diff: String = (0..n)
        .map(|i| {
            let p = format!("d{}/f{i}.txt", i % 3);
            format!(
                "--- a/{p}\n+++ b/{p}\n@@ -5,3 +5,3 @@\n file {i} line 4\n-file {i} line 5\n+file {i} line FIVE\n file {i} line 6\n"
            )
        })
        .collect();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("many.diff");
    fs::write(&batch, diff).unwrap();
    (ws, outside, batch)
}

/// `patchdeck apply` of `batch` under a limit of `open` files (soft and hard: it cannot be
/// raised), with the failpoints of `spec` armed.
fn apply_limited(root: &Path, batch: &Path, open: u64, spec: Option<&str>) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args(["apply", "-q", "--root"])
        .arg(root)
        .arg(batch)
        .env_remove("PATCHDECK_FAILPOINT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(spec) = spec {
        command.env("PATCHDECK_FAILPOINT", spec);
    }
    // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: open,
                rlim_max: open,
            };
            match libc::setrlimit(libc::RLIMIT_NOFILE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    command.spawn().unwrap()
}

fn assert_applied(ws: &Path, n: usize, out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    for i in 0..n {
        let text = fs::read_to_string(ws.join(format!("d{}/f{i}.txt", i % 3))).unwrap();
        assert!(
            text.contains(&format!("file {i} line FIVE\n")),
            "f{i}: {text}"
        );
    }
    let stray = staged_leftovers(ws);
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn a_commit_of_more_files_than_it_may_hold_open_stages_them_all() {
    // 64 descriptors leave the commit none to keep a staged file open with: each is opened
    // again to be synced. 300 leave it some: it keeps those, and opens the rest again.
    for open in [64, 300] {
        let (ws, _outside, batch) = many(300);
        let out = apply_limited(ws.path(), &batch, open, None)
            .wait_with_output()
            .unwrap();
        assert_applied(ws.path(), 300, &out);
    }
}

#[test]
fn staged_files_are_kept_open_only_within_the_budget() {
    // Under a limit of 400 descriptors (which it cannot raise), the commit keeps open for their
    // sync at most half of what is left once it has set aside 256 for itself, one for each
    // of its 4 folders (the root and three) and two per staging thread (32): 54 staged files.
    // Stopped after the 100th file is staged, it holds 54, and at most one more per staging
    // thread (16) mid-write.
    let (ws, _outside, batch) = many(300);
    let child = apply_limited(ws.path(), &batch, 400, Some("stage:100=stop"));
    let start = Instant::now();
    let staged_open = loop {
        let stat = fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap_or_default();
        if stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('T'))
        {
            let fds = fs::read_dir(format!("/proc/{}/fd", child.id())).unwrap();
            break fds
                .filter_map(|fd| fs::read_link(fd.unwrap().path()).ok())
                .filter(|target| target.to_string_lossy().contains(".pd-"))
                .count();
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "patchdeck never reached its failpoint: {stat}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGCONT) };
    let out = child.wait_with_output().unwrap();
    assert!(
        (54..=54 + 16).contains(&staged_open),
        "{staged_open} staged files open"
    );
    assert_applied(ws.path(), 300, &out);
}

/// A write the plan cannot tell is unchanged (here, its flag cleared by hand, as a change
/// without expected lines would leave it) is found unchanged only as staging reads it: it is
/// recorded `unchanged` in the journal, left alone (the same inode), not said written, and
/// `undo` of the commit puts back only what was written.
#[test]
fn a_write_found_unchanged_only_as_it_is_staged_is_left_alone() {
    use patchdeck::commit::{commit_with, CommitOptions, NewContents};
    use patchdeck::formats::Input;
    use patchdeck::fs::Snapshot;
    use patchdeck::pipeline;
    use patchdeck::review::Decisions;
    use patchdeck::workspace::Release;
    let ws = workspace_with(&[("same.txt", b"keep\ntwo\n"), ("real.txt", b"old\n")]);
    let same = ws.path().join("same.txt");
    let inode = fs::metadata(&same).unwrap().ino();
    let opened =
        pipeline::open(ws.path(), pipeline::Access::Write, Duration::from_secs(5)).unwrap();
    opened.workspace.release_files(Release {
        sha256: false,
        commit: true,
    });
    let input = Input::from_bytes("mixed.diff", MIXED.as_bytes().to_vec());
    let checked = pipeline::load(&opened.workspace, &input, None).unwrap();
    let decisions = Decisions::accept_all(&checked.batch);
    let mut plan = checked.plan_blockers(&decisions);
    assert_eq!(plan.writes.len(), 2);
    let flagged: Vec<bool> = plan.writes.iter().map(|w| w.may_be_unchanged).collect();
    assert_eq!(
        flagged,
        [true, false],
        "same.txt's change puts back its own lines"
    );
    for write in &mut plan.writes {
        write.may_be_unchanged = false;
    }
    let make = |write: &patchdeck::plan::FileWrite, target: Option<&Snapshot>| {
        checked.content_of(&decisions, write, target)
    };
    let committed = commit_with(
        &opened.workspace,
        &plan,
        NewContents::Made(&make),
        &CommitOptions::default(),
    )
    .unwrap();
    let written: Vec<_> = committed
        .written
        .iter()
        .map(|w| w.rel.to_path_buf())
        .collect();
    assert_eq!(written, [Path::new("real.txt")]);
    assert_eq!(fs::metadata(&same).unwrap().ino(), inode);
    assert_eq!(fs::read(ws.path().join("real.txt")).unwrap(), b"new\n");
    let undo = patchdeck(&["undo", "--root", ws.path().to_str().unwrap()]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert_eq!(fs::read(ws.path().join("real.txt")).unwrap(), b"old\n");
    assert_eq!(fs::metadata(&same).unwrap().ino(), inode);
}

/// Every folder of a commit stays open through it; the staged files it keeps open for their
/// sync must fit beside them. 340 files in 340 folders under a limit of 400 descriptors
/// (which the commit cannot raise) leave no room to keep any: all are staged and synced. (A
/// budget of half of what 256 leave, 72, would pass the limit.)
#[test]
fn a_commit_across_many_folders_under_a_low_limit_keeps_within_it() {
    let files: Vec<(String, Vec<u8>)> = (0..340)
        .map(|i| {
            (
                format!("d{i}/f.txt"),
                format!("one {i}\ntwo {i}\n").into_bytes(),
            )
        })
        .collect();
    let ws = workspace_of(&files);
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("folders.diff");
    let diff: String = (0..340)
        .map(|i| {
            format!("--- a/d{i}/f.txt\n+++ b/d{i}/f.txt\n@@ -1,2 +1,2 @@\n one {i}\n-two {i}\n+TWO {i}\n")
        })
        .collect();
    fs::write(&batch, diff).unwrap();
    let out = apply_limited(ws.path(), &batch, 400, None)
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for i in 0..340 {
        assert_eq!(
            fs::read_to_string(ws.path().join(format!("d{i}/f.txt"))).unwrap(),
            format!("one {i}\nTWO {i}\n")
        );
    }
}

/// A write of the permissions alone leaves the same bytes: the original and the new content
/// have one hash. Killed after the exchange, recovery tells them apart by their modes and puts
/// the original back, the same file with its own permissions.
#[test]
fn a_permissions_only_write_killed_after_its_exchange_is_rolled_back() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace_with(&[("run.sh", b"keep\n")]);
    let target = ws.path().join("run.sh");
    fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
    let inode = fs::metadata(&target).unwrap().ino();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("mode.diff");
    fs::write(
        &batch,
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-keep\n+keep\n",
    )
    .unwrap();
    for point in ["check=kill", "mark=kill"] {
        let ws_path = ws.path().to_str().unwrap();
        let out = crate::common::patchdeck_env(
            &["apply", "--root", ws_path, batch.to_str().unwrap()],
            &[("PATCHDECK_FAILPOINT", point)],
        );
        assert_eq!(out.status.code(), None, "{point}: {}", stderr(&out));
        let recovered = patchdeck(&["recover", "--root", ws_path]);
        assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
        let meta = fs::metadata(&target).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, 0o644, "{point}");
        assert_eq!(meta.ino(), inode, "{point}: the original itself is back");
        assert_eq!(fs::read(&target).unwrap(), b"keep\n");
        let stray = staged_leftovers(ws.path());
        assert!(stray.is_empty(), "{point}: {stray:?}");
    }
    // Done whole, it writes the mode.
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        batch.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o755
    );
}
