//! The atomic commit under faults: every step failing, the process killed at every step, files
//! changing between verification and commit, locks. The workspace must always end all-old or
//! all-new, byte for byte with permissions, with no temporary, backup or journal left behind.

use crate::common;
use crate::common::{patchdeck, patchdeck_env, sample_workspace, samples, stderr, tree, user_tree};
use patchdeck::commit::{commit, CommitOptions};
use patchdeck::error::Error;
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::review::Decisions;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

fn clean_batch() -> String {
    samples().join("clean.json").display().to_string()
}

/// The tree a successful apply of the clean sample produces.
fn applied_tree() -> std::collections::BTreeMap<std::path::PathBuf, (Vec<u8>, u32)> {
    let ws = sample_workspace();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        &clean_batch(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    user_tree(ws.path())
}

fn assert_no_leftovers(root: &Path) {
    let state = root.join(".patchdeck");
    if state.exists() {
        let left: Vec<_> = fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|name| name != ".gitignore" && name != "history")
            .collect();
        assert!(left.is_empty(), "left in .patchdeck: {left:?}");
    }
    let stray: Vec<_> = tree(root)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".pd-"))
        .collect();
    assert!(stray.is_empty(), "staged files left behind: {stray:?}");
}

/// (step, how many times it is reached while applying the clean sample)
/// The originals are kept beside their targets by the exchange itself: no folder, and no
/// backup step of their own.
const STEPS: &[(&str, usize)] = &[
    ("journal", 1),
    ("mkdir", 1), // docs/ for the new changelog
    ("stage", 6),
    ("sync", 4),    // the folders of the six files: ., docs, src, windows
    ("prepare", 1), // the journal again, with the staged contents' checksums
    ("rename", 6),
    ("mark", 1),
];

/// The environment of a commit on a file system with `renameat2` (exchange, no-replace), and
/// of one without, where the commit falls back to links and plain renames.
const FILE_SYSTEMS: [&[(&str, &str)]; 2] = [&[], &[("PATCHDECK_NO_RENAME2", "1")]];

/// Each failpoint spec of the steps, on each kind of file system.
fn every_step(
    steps: &[(&'static str, usize)],
) -> Vec<(String, &'static [(&'static str, &'static str)])> {
    steps
        .iter()
        .flat_map(|&(step, count)| (1..=count).map(move |nth| format!("{step}:{nth}")))
        .flat_map(|spec| FILE_SYSTEMS.map(|fs| (spec.clone(), fs)))
        .collect()
}

#[test]
fn a_failure_at_any_step_restores_every_file_and_exits_3() {
    for (spec, fs_env) in every_step(STEPS) {
        let ws = sample_workspace();
        let before = user_tree(ws.path());
        let mut env = vec![("PATCHDECK_FAILPOINT", spec.as_str())];
        env.extend_from_slice(fs_env);
        let spec = format!("{spec} {fs_env:?}");
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                ws.path().to_str().unwrap(),
                &clean_batch(),
            ],
            &env,
        );
        assert_eq!(out.status.code(), Some(3), "{spec}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("commit failed") && err.contains("injected failure"),
            "{spec}: {err}"
        );
        assert!(err.contains("every file was restored"), "{spec}: {err}");
        assert_eq!(user_tree(ws.path()), before, "{spec} changed the tree");
        assert_no_leftovers(ws.path());
        assert!(
            !ws.path().join(".patchdeck/history").exists(),
            "{spec}: a failed commit entered the undo history"
        );
    }
}

#[test]
fn disk_full_and_permission_errors_name_the_file_and_cause() {
    for (spec, cause) in [
        ("stage:3=enospc", "No space left on device"),
        ("rename:2=eacces", "Permission denied"),
    ] {
        let ws = sample_workspace();
        let before = user_tree(ws.path());
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                ws.path().to_str().unwrap(),
                &clean_batch(),
            ],
            &[("PATCHDECK_FAILPOINT", spec)],
        );
        assert_eq!(out.status.code(), Some(3));
        let err = stderr(&out);
        assert!(err.contains(cause), "{spec}: {err}");
        // Staging runs on several threads, so the file that fails is whichever was third.
        let named = err
            .split_once("commit failed at ")
            .and_then(|(_, rest)| rest.split_once(" while "))
            .map(|(path, _)| path.to_owned())
            .unwrap_or_default();
        assert!(
            applied_tree().contains_key(Path::new(&named)),
            "the message names a file of the batch: {err}"
        );
        assert_eq!(user_tree(ws.path()), before);
        assert_no_leftovers(ws.path());
    }
}

#[test]
fn a_process_killed_at_any_step_is_recovered_to_all_old_or_all_new() {
    let new = applied_tree();
    let steps: Vec<(&str, usize)> = STEPS.iter().copied().chain([("cleanup", 1)]).collect();
    for (point, fs_env) in every_step(&steps) {
        let ws = sample_workspace();
        let old = user_tree(ws.path());
        let kill = format!("{point}=kill");
        let mut env = vec![("PATCHDECK_FAILPOINT", kill.as_str())];
        env.extend_from_slice(fs_env);
        let spec = format!("{kill} {fs_env:?}");
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                ws.path().to_str().unwrap(),
                &clean_batch(),
            ],
            &env,
        );
        assert_eq!(
            out.status.code(),
            None,
            "{spec}: the process should have been killed"
        );
        let recovered = patchdeck(&["recover", "--root", ws.path().to_str().unwrap()]);
        assert_eq!(
            recovered.status.code(),
            Some(0),
            "{spec}: {}",
            stderr(&recovered)
        );
        let after = user_tree(ws.path());
        let expected = if point.starts_with("cleanup") {
            &new
        } else {
            &old
        };
        assert!(
            after == *expected,
            "{spec}: recovery ended in neither the old nor the new tree"
        );
        assert_no_leftovers(ws.path());
        // Recovery run twice is recovery run once.
        let again = patchdeck(&["recover", "--root", ws.path().to_str().unwrap()]);
        assert!(common::stdout(&again).contains("nothing to recover"));
        assert_eq!(user_tree(ws.path()), after);
    }
}

#[test]
fn writing_commands_recover_an_interrupted_commit_first_and_reading_ones_only_say_so() {
    let ws = sample_workspace();
    let old = user_tree(ws.path());
    let root = ws.path().to_str().unwrap();
    let out = patchdeck_env(
        &["apply", "--root", root, &clean_batch()],
        &[("PATCHDECK_FAILPOINT", "rename:3=kill")],
    );
    assert_eq!(out.status.code(), None);
    let half = tree(ws.path());
    assert_ne!(
        user_tree(ws.path()),
        old,
        "the kill left a half-written tree to recover"
    );
    let batch = clean_batch();
    for args in [
        vec!["check", &batch],
        vec!["check", "--json", &batch],
        vec!["diff", &batch],
        vec!["show", &batch, "src/app.py"],
        vec!["apply", "--read-only", &batch],
        vec!["apply", "--dry-run", &batch],
    ] {
        let mut all = args.clone();
        all.extend(["--root", root]);
        let out = patchdeck(&all);
        assert!(
            stderr(&out).contains("an interrupted commit is waiting")
                && stderr(&out).contains("run `patchdeck recover`"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(tree(ws.path()) == half, "{args:?} wrote something");
        if args.contains(&"--json") {
            let report = common::json_out(&out);
            assert!(
                report["interruptedCommit"]["journal"]
                    .as_str()
                    .unwrap()
                    .ends_with(".patchdeck/journal"),
                "{report}"
            );
        }
    }
    let apply = patchdeck(&["apply", "--root", root, &clean_batch()]);
    assert!(
        stderr(&apply).contains("rolled back an interrupted commit"),
        "{}",
        stderr(&apply)
    );
    assert_eq!(apply.status.code(), Some(0), "{}", stderr(&apply));
    assert!(!ws.path().join(".patchdeck/journal").exists());
}

/// Recovery that has rolled the files back says so in its exit status even when it cannot
/// print: standard output full is a warning, not "nothing was written".
#[test]
fn a_recovery_that_cannot_print_still_says_it_happened() {
    let ws = sample_workspace();
    let old = user_tree(ws.path());
    let root = ws.path().to_str().unwrap();
    let out = patchdeck_env(
        &["apply", "--root", root, &clean_batch()],
        &[("PATCHDECK_FAILPOINT", "rename:3=kill")],
    );
    assert_eq!(out.status.code(), None);
    for json in [false, true] {
        let mut args = vec!["recover", "--root", root];
        if json {
            args.push("--json");
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
            .args(&args)
            .stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        if !json {
            assert!(
                stderr(&out).contains("recovery is done, but saying so failed"),
                "{}",
                stderr(&out)
            );
        }
    }
    assert_eq!(user_tree(ws.path()), old);
    assert!(!ws.path().join(".patchdeck/journal").exists());
}

#[test]
fn a_failed_cleanup_after_the_mark_keeps_the_new_files() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck_env(
        &["apply", "--root", root, &clean_batch()],
        &[("PATCHDECK_FAILPOINT", "cleanup")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recovered = patchdeck(&["recover", "--root", root]);
    assert!(common::stdout(&recovered).contains("finished an interrupted commit"));
    assert_eq!(user_tree(ws.path()), applied_tree());
    assert_no_leftovers(ws.path());
}

#[test]
fn the_state_folder_is_ignored_by_git() {
    let ws = sample_workspace();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        &clean_batch(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    let status =
        String::from_utf8(git(&["status", "--porcelain", "--untracked-files=all"]).stdout).unwrap();
    assert!(!status.contains(".patchdeck"), "{status}");
    assert!(status.contains("src/app.py"), "{status}");
}

#[test]
fn permissions_are_kept() {
    let ws = sample_workspace();
    let bat = ws.path().join("windows/setup.bat");
    fs::set_permissions(&bat, fs::Permissions::from_mode(0o750)).unwrap();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        &clean_batch(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        fs::metadata(&bat).unwrap().permissions().mode() & 0o7777,
        0o750
    );
}

fn load_clean(root: &Path) -> (pipeline::Opened, patchdeck::verify::Checked) {
    let opened = pipeline::open(root, pipeline::Access::Write, Duration::from_secs(1)).unwrap();
    let checked = pipeline::load(
        &opened.workspace,
        &Input::read(&clean_batch()).unwrap(),
        None,
    )
    .unwrap();
    (opened, checked)
}

#[test]
fn a_file_edited_between_verification_and_commit_stops_the_commit() {
    let ws = sample_workspace();
    let (opened, checked) = load_clean(ws.path());
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    // Someone saves the file in their editor meanwhile.
    fs::write(ws.path().join("src/inventory.toml"), "edited by hand\n").unwrap();
    let before = user_tree(ws.path());
    let err = commit(&opened.workspace, &plan, &CommitOptions::default()).unwrap_err();
    match &err {
        Error::ChangedOnDisk { path, .. } => assert_eq!(path, "src/inventory.toml"),
        other => panic!("expected ChangedOnDisk, got {other}"),
    }
    assert_eq!(err.exit_code(), 1);
    assert_eq!(user_tree(ws.path()), before);
    assert_no_leftovers(ws.path());
}

#[test]
fn a_file_created_where_the_batch_creates_one_stops_the_commit() {
    let ws = sample_workspace();
    let (opened, checked) = load_clean(ws.path());
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    fs::create_dir_all(ws.path().join("docs")).unwrap();
    fs::write(ws.path().join("docs/changelog.md"), "mine\n").unwrap();
    let err = commit(&opened.workspace, &plan, &CommitOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("docs/changelog.md: it was created since"),
        "{err}"
    );
    assert_eq!(
        fs::read(ws.path().join("docs/changelog.md")).unwrap(),
        b"mine\n"
    );
}

#[test]
fn a_target_replaced_by_a_symlink_before_the_commit_is_refused() {
    let ws = sample_workspace();
    let outside = tempfile::tempdir().unwrap();
    let (opened, checked) = load_clean(ws.path());
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    let target = ws.path().join("notes.txt");
    let bytes = fs::read(&target).unwrap();
    fs::write(outside.path().join("notes.txt"), &bytes).unwrap();
    fs::remove_file(&target).unwrap();
    std::os::unix::fs::symlink(outside.path().join("notes.txt"), &target).unwrap();
    let err = commit(&opened.workspace, &plan, &CommitOptions::default()).unwrap_err();
    assert!(matches!(err, Error::ChangedOnDisk { .. }), "{err}");
    assert!(err.to_string().contains("notes.txt"), "{err}");
    assert_eq!(
        fs::read(outside.path().join("notes.txt")).unwrap(),
        bytes,
        "nothing written through the link"
    );
}

#[test]
fn a_folder_replaced_by_a_symlink_before_the_commit_is_refused() {
    let ws = sample_workspace();
    let outside = tempfile::tempdir().unwrap();
    let (opened, checked) = load_clean(ws.path());
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    common::copy_tree(&ws.path().join("windows"), outside.path());
    fs::remove_dir_all(ws.path().join("windows")).unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path().join("windows")).unwrap();
    let err = commit(&opened.workspace, &plan, &CommitOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("windows became a symbolic link"),
        "{err}"
    );
}

#[test]
fn a_stale_lock_of_a_dead_process_is_taken_over() {
    let ws = sample_workspace();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    fs::create_dir_all(ws.path().join(".patchdeck")).unwrap();
    fs::write(ws.path().join(".patchdeck/lock"), format!("{dead}\n")).unwrap();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        &clean_batch(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_no_leftovers(ws.path());
}

#[test]
fn recovery_clears_a_lock_left_by_a_dead_process_and_says_so() {
    let ws = sample_workspace();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    fs::create_dir_all(ws.path().join(".patchdeck")).unwrap();
    fs::write(ws.path().join(".patchdeck/lock"), format!("{dead}\n")).unwrap();
    let out = patchdeck(&["recover", "--root", ws.path().to_str().unwrap()]);
    assert!(
        common::stdout(&out).contains(&format!(
            "removed the workspace lock left by process {dead}"
        )),
        "{}",
        common::stdout(&out)
    );
    assert!(!ws.path().join(".patchdeck/lock").exists());
    // A live owner's lock is left alone: the kernel's lock on the file, not the pid in it,
    // says who holds it.
    let state = patchdeck::fs::Root::open(ws.path())
        .unwrap()
        .dir(Path::new(".patchdeck"))
        .unwrap();
    let held = patchdeck::state::lock::Lock::acquire(&state, Duration::ZERO).unwrap();
    let out = patchdeck(&["recover", "--root", ws.path().to_str().unwrap()]);
    assert!(common::stdout(&out).contains("nothing to recover"));
    assert!(ws.path().join(".patchdeck/lock").exists());
    drop(held);
}

#[test]
fn a_live_lock_makes_a_second_commit_fail_clearly() {
    let ws = sample_workspace();
    let (opened, checked) = load_clean(ws.path());
    let plan = checked.plan(&Decisions::accept_all(&checked.batch));
    fs::create_dir_all(ws.path().join(".patchdeck")).unwrap();
    let state = patchdeck::fs::Root::open(ws.path())
        .unwrap()
        .dir(Path::new(".patchdeck"))
        .unwrap();
    let held = patchdeck::state::lock::Lock::acquire(&state, Duration::ZERO).unwrap();
    let options = CommitOptions {
        lock_wait: Duration::from_millis(100),
        ..CommitOptions::default()
    };
    let before = user_tree(ws.path());
    let err = commit(&opened.workspace, &plan, &options).unwrap_err();
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert_eq!(err.exit_code(), 3);
    assert_eq!(user_tree(ws.path()), before);
    drop(held);
    commit(&opened.workspace, &plan, &options).unwrap();
}

/// A file created two folders deep: killed (or failing) after the first folder was made and
/// before the second, the commit is rolled back with the first folder removed too. The random
/// kill series found this: recovery stopped at the missing inner folder and left `new/`.
#[test]
fn a_commit_stopped_between_two_new_folders_removes_the_first() {
    let batch_dir = tempfile::tempdir().unwrap();
    let batch = batch_dir.path().join("nested.json");
    fs::write(
        &batch,
        serde_json::json!({"files": [{
            "docPath": "new/dir/created.txt",
            "originalSha256": patchdeck::model::EMPTY_SHA256,
            "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["created"]}]
        }]})
        .to_string(),
    )
    .unwrap();
    // mkdir 1 is the backup folder, 2 is new/, 3 is new/dir/.
    for action in ["kill", "error"] {
        let ws = tempfile::tempdir().unwrap();
        fs::write(ws.path().join("kept.txt"), "kept\n").unwrap();
        let old = user_tree(ws.path());
        let spec = format!("mkdir:2={action}");
        let out = patchdeck_env(
            &[
                "apply",
                "--root",
                ws.path().to_str().unwrap(),
                batch.to_str().unwrap(),
            ],
            &[("PATCHDECK_FAILPOINT", &spec)],
        );
        if action == "kill" {
            assert_eq!(out.status.code(), None, "{spec}: {}", stderr(&out));
            let recovered = patchdeck(&["recover", "--root", ws.path().to_str().unwrap()]);
            assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
        } else {
            assert_eq!(out.status.code(), Some(3), "{spec}: {}", stderr(&out));
        }
        assert_eq!(user_tree(ws.path()), old, "{spec}: new/ was left behind");
        assert_no_leftovers(ws.path());
    }
}

/// Recovering a large commit takes a while (a 100,000-file one took a minute): in a terminal,
/// a progress line says what is happening and how many files are done. Recovery is slowed
/// here at its second file.
#[test]
fn a_slow_recovery_shows_progress_in_a_terminal() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    // The terminal's patchdeck runs with this home: the killed one must too, to seal its
    // journal with the same key.
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join(".local/state");
    let out = patchdeck_env(
        &["apply", "--root", root, &clean_batch()],
        &[
            ("PATCHDECK_FAILPOINT", "rename:3=kill"),
            ("XDG_STATE_HOME", state.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), None);
    let mut term = crate::common::terminal::Terminal::start(
        home.path(),
        &["recover", "--root", root],
        &[
            ("PATCHDECK_FAILPOINT", "recover:2=sleep"),
            ("NO_COLOR", "1"),
        ],
    );
    // The sample commit writes 6 files; the sleep is before the second, so one is done.
    term.wait_for("patchdeck: recovering an interrupted commit: 1 of 6 files...");
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(
        screen.contains("rolled back an interrupted commit"),
        "{screen}"
    );
    assert!(
        !screen.contains("recovering an interrupted commit..."),
        "the line is erased: {screen}"
    );
}
