//! TUL-002 on real commits: every case of the corpus (this repository's history and the
//! scripted one, built by `common::corpus`) must turn base/ into expected/ byte for byte
//! through `apply`, and through `diff` piped to real `git apply`; its drift and stale variants
//! must conflict as they should.

use crate::common::corpus;
use crate::common::{copy_tree, git, json_out, patchdeck, stderr, user_tree};
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
                // evidence is weak (the same lines occur elsewhere too, or short lines with no
                // change around them placed): then the report says where they were found and
                // why that is not taken, and moves nothing.
                let problem = &change["problems"][0];
                assert_eq!(
                    problem["kind"],
                    "expected_mismatch",
                    "{}: {change}",
                    case.name()
                );
                assert!(
                    problem["foundAt"] == start + 2
                        || problem["message"]
                            .as_str()
                            .unwrap()
                            .contains("taken as where it belongs"),
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

/// The scripted history stands in for the project's own on a checkout without one, so it
/// alone must give every format and every variant the corpus tests check.
#[test]
fn the_scripted_history_alone_gives_every_format_and_variant() {
    let corpus = corpus::scripted();
    let cases = &corpus.cases;
    let count = |what: &dyn Fn(&corpus::Case) -> bool| cases.iter().filter(|c| what(c)).count();
    for format in ["unified", "bundle", "tul002", "structured", "edits"] {
        assert!(count(&|c| c.has(format)) > 0, "no {format} case");
    }
    let bundle = |c: &corpus::Case| std::fs::read_to_string(c.dir.join("bundle.json")).unwrap();
    let diff = |c: &corpus::Case| std::fs::read_to_string(c.dir.join("diff.patch")).unwrap();
    let tul002 =
        |c: &corpus::Case| std::fs::read_to_string(c.dir.join("tul002.json")).unwrap_or_default();
    assert!(count(&|c| c.dir.join("drift").exists()) > 0, "no drift");
    assert!(count(&|c| c.dir.join("stale").exists()) > 0, "no stale");
    assert!(
        count(&|c| bundle(c).contains("\"delete\"")) > 0,
        "no deletion"
    );
    assert!(
        count(&|c| diff(c).contains("new file mode")) > 0,
        "no creation"
    );
    assert!(
        count(&|c| diff(c).contains("\\ No newline at end of file")) > 0,
        "no file without a final newline"
    );
    assert!(
        count(&|c| tul002(c).contains("\"insert\"")) > 0,
        "no insertion"
    );
    // A docPath whose case differs from the file's: identity ignores case.
    assert!(
        count(&|c| tul002(c).contains("src/inventory.py")) > 0,
        "no mixed-case path"
    );
    // A replaced line that occurs several times in its file: ambiguous once drifted.
    let ambiguous = cases.iter().any(|c| {
        let Some(meta) = c.meta.get("drift") else {
            return false;
        };
        let path = meta["path"].as_str().unwrap();
        let text = std::fs::read_to_string(c.dir.join("base").join(path)).unwrap();
        let batch: serde_json::Value = serde_json::from_str(&tul002(c)).unwrap();
        batch["files"].as_array().unwrap().iter().any(|f| {
            f["changes"].as_array().unwrap().iter().any(|ch| {
                ch["expectedOriginalLines"].as_array().is_some_and(|lines| {
                    lines.len() == 1
                        && text
                            .lines()
                            .filter(|l| *l == lines[0].as_str().unwrap())
                            .count()
                            > 1
                })
            })
        })
    });
    assert!(
        ambiguous,
        "no change whose expected line occurs more than once"
    );
}

/// A shallow clone or a source tarball has no history to build from; the corpus says why and
/// is built from the scripted history alone. A full clone is used.
#[test]
fn a_checkout_without_history_is_recognised() {
    let repository = corpus::scripted::repository();
    let full = repository.path();
    assert!(corpus::usable_history(full).is_ok());

    let outside = tempfile::tempdir().unwrap();
    let url = format!("file://{}", full.display());
    let shallow = outside.path().join("shallow");
    git(
        outside.path(),
        &["clone", "-q", "--depth", "1", &url, "shallow"],
    );
    let why = corpus::usable_history(&shallow).unwrap_err();
    assert!(why.contains("shallow"), "{why}");

    let tarball = outside.path().join("tarball");
    std::fs::create_dir(&tarball).unwrap();
    copy_tree(full, &tarball);
    std::fs::remove_dir_all(tarball.join(".git")).unwrap();
    let why = corpus::usable_history(&tarball).unwrap_err();
    assert!(why.contains("not a git repository"), "{why}");

    // A tarball unpacked inside someone else's repository: that history is not this one's.
    let nested = full.join("unpacked");
    std::fs::create_dir(&nested).unwrap();
    let why = corpus::usable_history(&nested).unwrap_err();
    assert!(why.contains("not a repository of its own"), "{why}");
}
