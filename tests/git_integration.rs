//! patchdeck in a git repository (`docs/cli.md`, "git integration"): a file with changes git
//! has not recorded is noted by `check` and marked `M` in the reviewer (a conflict included),
//! without blocking; `apply --stage` stages what it wrote and nothing else, and names what it
//! could not stage; git's status is read without taking the index lock; outside a repository,
//! or with no git at all, nothing is marked and nothing fails.

use crate::common::clean_env::{batch, json, run_in, text};
use crate::common::reviewer::{self, open_input, screen};
use crate::common::{copy_tree, git, sample_workspace, samples, sha, workspace_with};
use patchdeck::tui::draw::draw;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::process::Command;

fn notes_of(report: &Value, path: &str) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == path)
        .flat_map(|f| f["problems"].as_array().unwrap().clone())
        .filter(|p| p["blocking"] == false)
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn files_with_uncommitted_changes_are_marked_and_apply_stage_stages_what_it_wrote() {
    let repo = tempfile::tempdir().unwrap();
    // The workspace is a subfolder of the repository, as a monorepo package would be.
    let ws = repo.path().join("pkg");
    fs::create_dir(&ws).unwrap();
    copy_tree(&samples().join("workspace"), &ws);
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let home = tempfile::tempdir().unwrap();
    let root = ws.to_str().unwrap();
    let clean = batch("clean.json");

    // Committed and untouched: no note.
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(notes_of(&json(&out), "src/app.py").is_empty());

    // A local edit that the batch does not touch the lines of: still verifies, now noted.
    let app = ws.join("src/app.py");
    let mut bytes = fs::read(&app).unwrap();
    bytes.extend_from_slice(b"# local work\n");
    fs::write(&app, &bytes).unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    let report = json(&out);
    // The SHA differs now, so the file conflicts; the git note is there as well.
    assert_eq!(notes_of(&report, "src/app.py"), vec!["uncommitted_changes"]);
    let out = run_in(None, home.path(), &["check", "--root", root, &clean], &[]);
    let report_text = text(&out.stdout);
    assert!(
        report_text.contains("src/app.py: note: uncommitted_changes: "),
        "{report_text}"
    );
    assert!(!report_text.contains("\x1b["), "piped output has no colour");

    // The usual case: the agent wrote the batch against a working copy that git has not
    // recorded. It verifies (exit 0) and carries the note.
    let original = fs::read(&app).unwrap()[..bytes.len() - b"# local work\n".len()].to_vec();
    git(repo.path(), &["commit", "-qam", "local work committed"]);
    fs::write(&app, &original).unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        notes_of(&json(&out), "src/app.py"),
        vec!["uncommitted_changes"]
    );

    // Apply with --stage: the written files are staged, nothing else.
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "back to the batch's base"]);
    fs::write(ws.join("unrelated.txt"), "mine\n").unwrap();
    let out = run_in(
        None,
        home.path(),
        &["apply", "--stage", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    let staged: Vec<&str> = staged.lines().collect();
    assert!(staged.contains(&"pkg/src/app.py"), "{staged:?}");
    assert!(
        !staged.iter().any(|p| p.contains("unrelated")),
        "{staged:?}"
    );
    assert!(
        git(repo.path(), &["diff", "--name-only"]).is_empty(),
        "everything written is staged"
    );
}

#[test]
fn apply_stage_says_which_files_were_not_staged_and_reports_it_in_json() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), repo.path());
    fs::write(repo.path().join(".gitignore"), "docs/\n").unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let home = tempfile::tempdir().unwrap();
    let root = repo.path().to_str().unwrap();
    // clean.json writes six files, one of them docs/changelog.md, which git ignores.
    let out = run_in(
        None,
        home.path(),
        &[
            "apply",
            "--stage",
            "--json",
            "--root",
            root,
            &batch("clean.json"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let staging = &json(&out)["staging"];
    assert_eq!(staging["staged"].as_array().unwrap().len(), 5, "{staging}");
    assert_eq!(
        staging["notStaged"][0]["path"], "docs/changelog.md",
        "{staging}"
    );
    assert!(
        staging["notStaged"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("ignored"),
        "{staging}"
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: docs/changelog.md was written but not staged: ignored"),
        "{err}"
    );
    assert!(
        !err.contains("the files were written but not staged"),
        "{err}"
    );
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    assert_eq!(staged.lines().count(), 5, "{staged}");
}

/// A git on a PATH of its own that logs each call (its first arguments and
/// GIT_OPTIONAL_LOCKS), then runs the real one.
struct LoggedGit {
    bin: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl LoggedGit {
    fn new() -> LoggedGit {
        let real = String::from_utf8(
            Command::new("sh")
                .args(["-c", "command -v git"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let bin = tempfile::tempdir().unwrap();
        let script = format!(
            "#!/bin/sh\necho \"$1 $2 $3 $4 locks=$GIT_OPTIONAL_LOCKS\" >> {}\nexec {} \"$@\"\n",
            bin.path().join("log").display(),
            real.trim()
        );
        fs::write(bin.path().join("git"), script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(bin.path().join("git"), fs::Permissions::from_mode(0o755)).unwrap();
        LoggedGit {
            bin,
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs patchdeck with `args`; the calls git got meanwhile.
    fn calls(&self, args: &[&str]) -> String {
        let _ = fs::remove_file(self.bin.path().join("log"));
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap()
        );
        let out = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
            .args(args)
            .env_clear()
            .env("HOME", self.home.path())
            .env("PATH", path)
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        fs::read_to_string(self.bin.path().join("log")).unwrap_or_default()
    }
}

#[test]
fn reading_the_git_status_never_takes_the_index_lock() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), repo.path());
    git(repo.path(), &["init", "-q"]);
    let logged = LoggedGit::new();
    let calls = logged.calls(&[
        "check",
        "--root",
        repo.path().to_str().unwrap(),
        &batch("clean.json"),
    ]);
    assert!(calls.contains("status"), "{calls}");
    for call in calls.lines() {
        assert!(call.ends_with("locks=0"), "{calls}");
    }
}

/// `git status` is asked only where its answer is shown: never with `-q`, nor by `diff`,
/// `export` and `feedback`, which show no notes.
#[test]
fn git_is_asked_only_where_its_answer_is_shown() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), repo.path());
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let root = repo.path().to_str().unwrap();
    let clean = batch("clean.json");
    let logged = LoggedGit::new();
    for args in [
        &["check", "--root", root, &clean][..],
        &["check", "--json", "--root", root, &clean],
        &["show", "--root", root, &clean, "src/app.py"],
        &["apply", "--dry-run", "--root", root, &clean],
    ] {
        assert!(logged.calls(args).contains("status"), "{args:?}");
    }
    for args in [
        &["-q", "check", "--root", root, &clean][..],
        &["-q", "apply", "--dry-run", "--root", root, &clean],
        &["diff", "--root", root, &clean],
        &["export", "--root", root, &clean],
        &["feedback", "--root", root, &clean],
    ] {
        let calls = logged.calls(args);
        assert!(!calls.contains("status"), "{args:?}: {calls}");
    }
}

#[test]
fn outside_a_repository_nothing_is_marked_and_nothing_fails() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let root = ws.path().to_str().unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &batch("clean.json")],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stdout).contains("uncommitted_changes"));
    // Without git on the PATH at all.
    let out = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args([
            "apply",
            "--stage",
            "--json",
            "--root",
            root,
            &batch("clean.json"),
        ])
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn the_reviewer_marks_files_with_uncommitted_changes() {
    let ws = sample_workspace();
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "base"]);
    // HEAD moves on while the working copy keeps the bytes the batch was written against:
    // notes.txt verifies, and carries changes git has not recorded.
    let notes = ws.path().join("notes.txt");
    let original = fs::read(&notes).unwrap();
    fs::write(&notes, b"committed later\n").unwrap();
    git(ws.path(), &["commit", "-qam", "later"]);
    fs::write(&notes, &original).unwrap();
    let mut app = reviewer::open(ws.path(), reviewer::Open::default());
    let status = patchdeck::git::status(ws.path()).expect("a git work tree");
    assert!(
        status.dirty.contains_key(Path::new("notes.txt")),
        "{status:?}"
    );
    // Loading marked it: the reviewer asks git as `check` does.
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    app.size = (120, 40);
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let screen: Vec<String> = (0..40)
        .map(|y| {
            (0..120)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect()
        })
        .collect();
    let row = |path: &str| {
        screen
            .iter()
            .find(|l| l.contains(&format!(" {path} ")))
            .unwrap_or_else(|| panic!("{path} is listed:\n{}", screen.join("\n")))
            .clone()
    };
    assert!(
        row("notes.txt").contains("M notes.txt"),
        "{}",
        row("notes.txt")
    );
    let file = app
        .review()
        .batch()
        .files
        .iter()
        .position(|f| f.doc_path == "notes.txt")
        .unwrap();
    assert_eq!(
        app.review().verification().files[file].status,
        patchdeck::verify::Status::Ok,
        "the note does not block"
    );
    assert!(!row("src/Utils.py").contains("M src/Utils.py"));
}

#[test]
fn a_conflict_in_a_file_with_uncommitted_work_keeps_its_m_mark() {
    let ws = workspace_with(&[("a.txt", b"one\ntwo\n"), ("b.txt", b"x\n")]);
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "start"]);
    fs::write(ws.path().join("a.txt"), "one\ntwo\nmine\n").unwrap();
    let batch = json!({"files": [
        {"docPath": "a.txt", "originalSha256": sha(b"one\ntwo\n"), "changes": [
            {"operation": "replace", "startLine": 1, "endLine": 1,
             "expectedOriginalLines": ["one"], "newLines": ["ONE"]}]},
        {"docPath": "b.txt", "originalSha256": sha(b"x\n"), "changes": [
            {"operation": "replace", "startLine": 1, "endLine": 1,
             "expectedOriginalLines": ["x"], "newLines": ["y"]}]}]});
    let mut app = open_input(ws.path(), "b.json", batch.to_string().as_bytes());
    let shown = screen(&mut app, 120, 30);
    assert!(shown.contains("▸⚠M a.txt"), "{shown}");
    assert!(shown.contains("   b.txt"), "{shown}");
}
