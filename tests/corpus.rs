//! TUL-002 on real commits: every case of this repository's history, built by
//! `make_corpus.py`, must turn base/ into expected/ byte for byte through `apply`, and through
//! `diff` piped to real `git apply`; its drift and stale variants must conflict as they should.

mod common;

#[path = "common/corpus.rs"]
mod corpus;

use common::{copy_tree, json_out, patchdeck, stderr, user_tree};
use std::path::Path;
use std::process::{Command, Stdio};

fn workspace_from(dir: &Path) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    copy_tree(dir, ws.path());
    ws
}

fn git_apply(dir: &Path, patch: &[u8]) -> bool {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["apply", "--whitespace=nowarn", "-"])
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(patch).unwrap();
    child.wait_with_output().unwrap().status.success()
}

#[test]
fn real_commits_as_tul002_batches_apply_exactly() {
    let cases = corpus::cases();
    let tul: Vec<_> = cases.iter().filter(|c| c.has("tul002")).collect();
    assert!(
        !tul.is_empty(),
        "this repository's history gave no TUL-002 case ({} cases)",
        cases.len()
    );
    let mut changes = 0;
    for case in &tul {
        let batch = case.dir.join("tul002.json");
        let batch = batch.to_str().unwrap();
        let expected = user_tree(&case.dir.join("expected"));

        let ws = workspace_from(&case.dir.join("base"));
        let root = ws.path().to_str().unwrap();
        let report = json_out(&patchdeck(&["check", "--json", "--root", root, batch]));
        assert_eq!(
            report["summary"]["conflicts"],
            0,
            "{}: {report}",
            case.name()
        );
        changes += report["summary"]["changes"].as_u64().unwrap();
        let out = patchdeck(&["apply", "--root", root, batch]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            case.name(),
            stderr(&out)
        );
        assert!(
            user_tree(ws.path()) == expected,
            "{}: apply did not give expected/",
            case.name()
        );

        let by_git = workspace_from(&case.dir.join("base"));
        let diff = patchdeck(&["diff", "--root", by_git.path().to_str().unwrap(), batch]);
        assert_eq!(diff.status.code(), Some(0));
        assert!(
            git_apply(by_git.path(), &diff.stdout),
            "{}: git apply refused our diff",
            case.name()
        );
        assert!(
            user_tree(by_git.path()) == expected,
            "{}: git apply of our diff differs",
            case.name()
        );
    }
    eprintln!(
        "{} TUL-002 cases, {changes} changes, applied exactly",
        tul.len()
    );
}

#[test]
fn drifted_files_conflict_and_report_where_each_change_went() {
    let cases = corpus::cases();
    let drifted: Vec<_> = cases
        .iter()
        .filter(|c| c.dir.join("drift").exists())
        .collect();
    assert!(
        !drifted.is_empty(),
        "no drift case in {} cases",
        cases.len()
    );
    for case in drifted {
        let ws = workspace_from(&case.dir.join("drift"));
        let root = ws.path().to_str().unwrap();
        let batch = case.dir.join("tul002.json");
        let batch = batch.to_str().unwrap();
        let before = user_tree(ws.path());
        let out = patchdeck(&["check", "--json", "--root", root, batch]);
        assert_eq!(out.status.code(), Some(1), "{}", case.name());
        let report = json_out(&out);
        let doc_path = case.meta["drift"]["docPath"].as_str().unwrap();
        let file = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["docPath"] == doc_path)
            .unwrap();
        assert_eq!(
            file["problems"][0]["kind"],
            "sha_mismatch",
            "{}",
            case.name()
        );
        let mut inserts = 0;
        for change in file["changes"].as_array().unwrap() {
            let start = change["startLine"].as_u64().unwrap();
            if change["operation"] == "insert" {
                inserts += 1;
                assert_eq!(
                    change["problems"][0]["kind"],
                    "unverified_position",
                    "{}",
                    case.name()
                );
            } else {
                // Two lines were prepended: the expected lines are two lines lower, unless the
                // same lines occur elsewhere too (then the report lists them, and moves nothing).
                let problem = &change["problems"][0];
                assert_eq!(
                    problem["kind"],
                    "expected_mismatch",
                    "{}: {change}",
                    case.name()
                );
                assert!(
                    problem["foundAt"] == start + 2
                        || problem["message"].as_str().unwrap().contains("ambiguous"),
                    "{}: {change}",
                    case.name()
                );
            }
        }
        assert_eq!(
            patchdeck(&["apply", "--root", root, batch]).status.code(),
            Some(1)
        );
        assert_eq!(
            user_tree(ws.path()),
            before,
            "{}: a drifted batch wrote something",
            case.name()
        );
        if inserts == 0
            && case.meta["drift"]["changes"] == file["changes"].as_array().unwrap().len()
        {
            let out = patchdeck(&[
                "apply",
                "--relocate",
                "--allow-sha-mismatch",
                "--root",
                root,
                batch,
            ]);
            if out.status.code() == Some(0) {
                // Relocated, the batch gives expected/ with the two local lines kept on top.
                let path = case.meta["drift"]["path"].as_str().unwrap();
                let got = std::fs::read(ws.path().join(path)).unwrap();
                let want = std::fs::read(case.dir.join("expected").join(path)).unwrap();
                assert_eq!(
                    got,
                    [b"// local edit 1\n// local edit 2\n".as_slice(), &want].concat(),
                    "{}",
                    case.name()
                );
            }
        }
    }
}

#[test]
fn a_stale_expected_line_blocks_exactly_its_change() {
    let cases = corpus::cases();
    let stale: Vec<_> = cases
        .iter()
        .filter(|c| c.dir.join("stale").exists())
        .collect();
    assert!(!stale.is_empty(), "no stale case in {} cases", cases.len());
    for case in stale {
        let ws = workspace_from(&case.dir.join("stale"));
        let root = ws.path().to_str().unwrap();
        let batch = case.dir.join("tul002.json");
        let batch = batch.to_str().unwrap();
        let report = json_out(&patchdeck(&["check", "--json", "--root", root, batch]));
        let doc_path = case.meta["stale"]["docPath"].as_str().unwrap();
        let index = case.meta["stale"]["changeIndex"].as_u64().unwrap() as usize;
        let file = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["docPath"] == doc_path)
            .unwrap();
        for (i, change) in file["changes"].as_array().unwrap().iter().enumerate() {
            let want = if i == index { "conflict" } else { "ok" };
            assert_eq!(change["status"], want, "{}: change {i}", case.name());
        }
        let key = case.meta["stale"]["changeKey"].as_str().unwrap();
        let selector = format!("{}/{key}", file["key"].as_str().unwrap());
        let before = user_tree(ws.path());
        assert_eq!(
            patchdeck(&["apply", "--root", root, batch]).status.code(),
            Some(1)
        );
        assert_eq!(user_tree(ws.path()), before);
        // The override writes the file's other changes once the stale one is rejected, but not
        // its insertions: in a changed file nothing confirms where they land.
        let mut args = vec![
            "apply".to_owned(),
            "--allow-sha-mismatch".to_owned(),
            "--reject".to_owned(),
            selector,
        ];
        let inserts: Vec<String> = file["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["operation"] == "insert")
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect();
        let with_inserts = [
            args.clone(),
            vec!["--root".into(), root.into(), batch.into()],
        ]
        .concat();
        if !inserts.is_empty() {
            let out = patchdeck(&with_inserts.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(out.status.code(), Some(1), "{}", case.name());
            assert_eq!(user_tree(ws.path()), before);
        }
        for id in inserts {
            args.extend(["--reject".to_owned(), id]);
        }
        args.extend(["--root".into(), root.into(), batch.into()]);
        let out = patchdeck(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            case.name(),
            stderr(&out)
        );
    }
}
