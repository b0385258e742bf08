//! `check` lets each file go once it is checked (`Workspace::release_files`): it must report
//! exactly what a check that keeps every file reports, on every batch of every format we have
//! (the sample batches, and every real commit of the corpus in each of its formats, on its
//! base, drift and stale workspaces), while holding no file's bytes at the end.

use crate::common::{
    corpus, each_sample_batch, json_out, patchdeck, sha, workspace_of, workspace_with,
};
use patchdeck::formats::{Input, LoadOptions};
use patchdeck::pipeline;
use patchdeck::report::Report;
use patchdeck::review::Decisions;
use patchdeck::verify::Verification;
use patchdeck::workspace::{Release, Workspace};
use std::path::Path;

/// The JSON and text reports of checking `batch` in `root`, or the error loading it; with
/// `release`, every file must have been let go.
fn check(root: &Path, batch: &Path, release: Option<Release>) -> Result<(String, String), String> {
    let workspace = Workspace::open(root).unwrap();
    if let Some(release) = release {
        workspace.release_files(release);
    }
    let input = Input::read(batch.to_str().unwrap()).map_err(|e| e.to_string())?;
    let options = LoadOptions {
        max_tokens: None,
        ..LoadOptions::default()
    };
    let checked = pipeline::load_with(&workspace, &input, &options).map_err(|e| e.to_string())?;
    if release.is_some() {
        assert_all_released(&checked.verification, batch);
    }
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    let report = Report::check(&checked.batch, &checked.verification, &plan);
    let json = if release.is_none_or(|r| r.sha256) {
        report.to_json()
    } else {
        String::new()
    };
    Ok((json, report.to_text()))
}

fn assert_all_released(verification: &Verification, batch: &Path) {
    for (i, file) in verification.files.iter().enumerate() {
        let held = [&file.snapshot, &file.copied_from]
            .into_iter()
            .flatten()
            .any(|s| !s.is_released());
        assert!(
            !held,
            "{}: file {i} ({:?}) still holds its bytes after the check",
            batch.display(),
            file.resolved
        );
    }
}

/// Checks `batch` in `root` keeping files, then releasing them (with and without hashing),
/// and says what differs.
fn same_either_way(root: &Path, batch: &Path) {
    let kept = check(root, batch, None);
    for sha256 in [true, false] {
        let released = check(
            root,
            batch,
            Some(Release {
                sha256,
                commit: false,
            }),
        );
        match (&kept, &released) {
            (Ok((kept_json, kept_text)), Ok((json, text))) => {
                if sha256 {
                    assert_eq!(json, kept_json, "{}: JSON reports differ", batch.display());
                }
                assert_eq!(text, kept_text, "{}: text reports differ", batch.display());
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{}: errors differ", batch.display()),
            _ => panic!(
                "{}: keeping files gave {:?}, releasing them {:?}",
                batch.display(),
                kept.as_ref().map(|_| "a report"),
                released.as_ref().map(|_| "a report")
            ),
        }
    }
}

#[test]
fn every_sample_batch_checks_the_same_with_files_released() {
    each_sample_batch(same_either_way);
}

#[test]
fn every_real_commit_checks_the_same_with_files_released_in_every_format() {
    corpus::each_batch(same_either_way);
}

#[test]
fn the_check_command_reports_every_hash_though_it_keeps_no_file() {
    let files: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| {
            (
                format!("src/f{i}.txt"),
                format!("one {i}\ntwo\nthree\n").into_bytes(),
            )
        })
        .collect();
    let ws = workspace_of(&files);
    let diff: String = files
        .iter()
        .map(|(p, b)| {
            let first = String::from_utf8_lossy(b)
                .lines()
                .next()
                .unwrap()
                .to_owned();
            format!("--- a/{p}\n+++ b/{p}\n@@ -1,3 +1,3 @@\n {first}\n-two\n+TWO\n three\n")
        })
        .collect();
    let batch = ws.path().join("batch.diff");
    std::fs::write(&batch, diff).unwrap();
    let root = ws.path().to_str().unwrap();
    let report = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        root,
        batch.to_str().unwrap(),
    ]));
    assert_eq!(report["summary"]["conflicts"], 0, "{report}");
    for (i, (path, bytes)) in files.iter().enumerate() {
        assert_eq!(report["files"][i]["docPath"], path.as_str());
        assert_eq!(
            report["files"][i]["actualSha256"],
            sha(bytes).as_str(),
            "{path}"
        );
    }
    let quiet = patchdeck(&[
        "check",
        "-q",
        "--json",
        "--root",
        root,
        batch.to_str().unwrap(),
    ]);
    assert_eq!((quiet.status.code(), quiet.stdout.len()), (Some(0), 0));
}

/// The command's peak memory, with `args` before the batch.
fn peak_of(root: &Path, batch: &Path, args: &[&str]) -> u64 {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args(["--config", "none"])
        .args(args)
        .args(["--root", root.to_str().unwrap()])
        .arg(batch);
    let (output, peak) = crate::common::run_measured(&mut command);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    peak
}

#[test]
fn check_and_apply_hold_a_file_only_while_they_check_or_stage_it() {
    // Files of 1 MiB, eight per core (48 at least), and a diff of a line in each: a command
    // that holds every file holds them all at once (`diff`, which prints every new content);
    // `check`, which lets each go once checked, about one per core; `apply`, which lets each go
    // once checked and reads it again to stage it, one per staging thread.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let count = 8 * cores.max(6);
    let line = |i: usize| format!("line {i:07} of a file large enough to weigh on the peak\n");
    let body: String = (0..20_000).map(line).collect();
    let body = &body.as_bytes()[..1 << 20];
    let files: Vec<String> = (0..count).map(|i| format!("src/f{i}.txt")).collect();
    let named: Vec<(&str, &[u8])> = files.iter().map(|p| (p.as_str(), body)).collect();
    let ws = workspace_with(&named);
    let (before, old, after) = (line(9), line(10), line(11));
    let diff: String = files
        .iter()
        .map(|p| {
            format!("--- a/{p}\n+++ b/{p}\n@@ -10,3 +10,3 @@\n {before}-{old}+changed\n {after}")
        })
        .collect();
    let batch = ws.path().join("batch.diff");
    std::fs::write(&batch, diff).unwrap();
    let holding = peak_of(ws.path(), &batch, &["diff"]);
    let checking = peak_of(ws.path(), &batch, &["check", "-q"]);
    let reporting = peak_of(ws.path(), &batch, &["check", "--json"]);
    let dry = peak_of(ws.path(), &batch, &["apply", "--dry-run"]);
    // Last: it writes.
    let applying = peak_of(ws.path(), &batch, &["apply", "-q"]);
    assert!(
        std::fs::read_to_string(ws.path().join(&files[count - 1]))
            .unwrap()
            .contains("\nchanged\n"),
        "the apply wrote its changes"
    );
    let half = count as u64 / 2;
    assert!(
        [checking, reporting, dry, applying]
            .iter()
            .all(|&peak| holding >= peak + half),
        "peak memory: diff {holding} MiB, check -q {checking} MiB, check --json {reporting} MiB, apply --dry-run {dry} MiB, apply {applying} MiB"
    );
}
