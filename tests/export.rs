//! `patchdeck export`: a batch as decided, rebased on the files now. On the drifted variants
//! of real commits, an export made with `--relocate --allow-sha-mismatch` (or a decisions file
//! with edits and placements) checks clean, and a plain `apply` of it writes the same tree as
//! `apply` with those flags; the unified form goes through real `git apply` to the same bytes;
//! what TUL-002 cannot say (a deletion, a rename, a mode) is refused by name; a selection
//! `apply` would refuse is refused with the same blockers and status.

use crate::common::corpus;
use crate::common::{
    copy_tree, git, json_out, patchdeck, sample_workspace, samples, sha, stderr, stdout, user_tree,
    workspace_with,
};
use serde_json::{json, Map, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn workspace_from(dir: &Path) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    copy_tree(dir, ws.path());
    ws
}

fn run(command: &str, root: &Path, flags: &[String], batch: &str) -> Output {
    let mut args = vec![command, "--root", root.to_str().unwrap()];
    args.extend(flags.iter().map(String::as_str));
    args.push(batch);
    patchdeck(&args)
}

/// Exports into a file outside the workspace; its path.
fn export_to(dir: &tempfile::TempDir, name: &str, out: &Output) -> PathBuf {
    assert_eq!(out.status.code(), Some(0), "export: {}", stderr(out));
    let path = dir.path().join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

fn git_apply(dir: &Path, patch: &[u8], check: bool) -> Output {
    use std::io::Write;
    let mut args = vec!["apply", "--whitespace=nowarn"];
    if check {
        args.push("--check");
    }
    args.push("-");
    let mut child = Command::new("git")
        .args(&args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(patch).unwrap();
    child.wait_with_output().unwrap()
}

/// How an apply and the export of the same selection both ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Written, to the same bytes.
    Written,
    /// Refused, with the same status and blockers.
    Refused,
    /// Apply had nothing to write; export nothing to give.
    Nothing,
}

/// The lines starting `patchdeck: blocked: ` on standard error, without that start.
fn blocked_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter_map(|l| l.strip_prefix("patchdeck: blocked: "))
        .map(str::to_owned)
        .collect()
}

/// Exports `batch` with `flags` from a copy of `variant` and applies the export to that copy;
/// applies the batch with the same flags to another copy. Both must end alike, whole trees
/// compared: written the same, or refused with the same status and blockers.
fn export_applies_as_apply_would(
    variant: &Path,
    batch: &str,
    flags: &[String],
    name: &str,
) -> Outcome {
    let by_apply = workspace_from(variant);
    let by_export = workspace_from(variant);
    let before = user_tree(by_export.path());
    let applied = run(
        "apply",
        by_apply.path(),
        &[vec!["--json".into()], flags.to_vec()].concat(),
        batch,
    );
    let exported = run("export", by_export.path(), flags, batch);
    if applied.status.code() == Some(0) && user_tree(by_apply.path()) == before {
        // Apply wrote nothing: there is no batch to export, and export says so.
        assert_eq!(exported.status.code(), Some(2), "{name}");
        assert!(exported.stdout.is_empty(), "{name}");
        assert!(
            stderr(&exported).contains("nothing to export"),
            "{name}: {}",
            stderr(&exported)
        );
        return Outcome::Nothing;
    }
    assert_eq!(
        exported.status.code(),
        applied.status.code(),
        "{name}: export and apply end differently: {}",
        stderr(&exported)
    );
    if applied.status.code() != Some(0) {
        assert!(
            exported.stdout.is_empty(),
            "{name}: a refused export printed"
        );
        let report = json_out(&applied);
        let said: Vec<String> = report["blocked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(blocked_lines(&exported), said, "{name}: other blockers");
        assert_eq!(user_tree(by_export.path()), before, "{name}: export wrote");
        return Outcome::Refused;
    }
    let dir = tempfile::tempdir().unwrap();
    let export = export_to(&dir, "export.json", &exported);
    let export = export.to_str().unwrap();
    assert_eq!(user_tree(by_export.path()), before, "{name}: export wrote");
    let check = run("check", by_export.path(), &[], export);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{name}: the export does not check clean: {}",
        stdout(&check)
    );
    let again = run("apply", by_export.path(), &[], export);
    assert_eq!(again.status.code(), Some(0), "{name}: {}", stderr(&again));
    assert!(
        user_tree(by_export.path()) == user_tree(by_apply.path()),
        "{name}: apply of the export wrote other bytes than apply {flags:?}"
    );

    // The same selection as a git diff: git applies it to the same bytes, and so does
    // patchdeck.
    let by_git = workspace_from(variant);
    let diff = run(
        "export",
        by_git.path(),
        &[vec!["--to".into(), "unified".into()], flags.to_vec()].concat(),
        batch,
    );
    assert_eq!(diff.status.code(), Some(0), "{name}: {}", stderr(&diff));
    let checked = git_apply(by_git.path(), &diff.stdout, true);
    assert!(
        checked.status.success(),
        "{name}: git apply --check: {}",
        stderr(&checked)
    );
    let applied_by_git = git_apply(by_git.path(), &diff.stdout, false);
    assert!(
        applied_by_git.status.success(),
        "{name}: git apply: {}",
        stderr(&applied_by_git)
    );
    assert!(
        user_tree(by_git.path()) == user_tree(by_apply.path()),
        "{name}: git apply of the unified export wrote other bytes"
    );
    let by_patchdeck = workspace_from(variant);
    let diff_file = export_to(&dir, "export.patch", &diff);
    let out = run(
        "apply",
        by_patchdeck.path(),
        &[],
        diff_file.to_str().unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    assert!(
        user_tree(by_patchdeck.path()) == user_tree(by_apply.path()),
        "{name}: apply of the unified export wrote other bytes"
    );
    Outcome::Written
}

/// The change IDs of the drifted file's insertions, from `check --json`.
fn drifted_file(case: &corpus::Case, root: &Path, batch: &str) -> Value {
    let report = json_out(&run("check", root, &["--json".into()], batch));
    let doc_path = &case.meta["drift"]["docPath"];
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| &f["docPath"] == doc_path)
        .unwrap()
        .clone()
}

#[test]
fn an_export_of_a_drifted_commit_applies_as_apply_relocate_allow_sha_mismatch_would() {
    let cases = corpus::cases();
    let mut outcomes = Vec::new();
    let mut tally = |outcome| outcomes.push(outcome);
    for case in cases.iter().filter(|c| c.dir.join("drift").exists()) {
        let drift = case.dir.join("drift");
        let batch = case.dir.join("tul002.json");
        let batch = batch.to_str().unwrap();
        let flags: Vec<String> = vec!["--relocate".into(), "--allow-sha-mismatch".into()];
        let name = case.name();
        tally(export_applies_as_apply_would(&drift, batch, &flags, &name));
        // Its insertions, which nothing confirms in a changed file, rejected: the rest moves.
        let file = drifted_file(case, &drift, batch);
        let mut flags = flags;
        for change in file["changes"].as_array().unwrap() {
            if change["operation"] == "insert" {
                flags.extend(["--reject".into(), change["id"].as_str().unwrap().to_owned()]);
            }
        }
        if flags.len() > 2 {
            let name = format!("{name} (insertions rejected)");
            tally(export_applies_as_apply_would(&drift, batch, &flags, &name));
        }
    }
    let count = |which: Outcome| outcomes.iter().filter(|o| **o == which).count();
    let (written, refused, nothing) = (
        count(Outcome::Written),
        count(Outcome::Refused),
        count(Outcome::Nothing),
    );
    assert!(written > 0, "no drifted commit was written: {outcomes:?}");
    eprintln!(
        "drifted selections: {written} exported and applied alike, {refused} refused alike, {nothing} with nothing to write"
    );
}

/// A decisions file for a drifted commit: the drifted file's SHA-256 overridden, every change
/// of it placed two lines lower (where the drift moved its lines), its first change edited and
/// its last rejected when it has more than one; every other change accepted.
fn decisions_for(case: &corpus::Case, drift: &Path, batch: &str) -> Value {
    let report = json_out(&run("check", drift, &["--json".into()], batch));
    let doc_path = &case.meta["drift"]["docPath"];
    let mut decisions = Map::new();
    let mut placements = Map::new();
    let mut overrides = Vec::new();
    for file in report["files"].as_array().unwrap() {
        let changes = file["changes"].as_array().unwrap();
        let drifted = &file["docPath"] == doc_path;
        if drifted {
            overrides.push(file["id"].clone());
        }
        for (i, change) in changes.iter().enumerate() {
            let id = change["id"].as_str().unwrap().to_owned();
            let mut decision = json!("accept");
            if drifted {
                let line = match change["afterLine"].as_u64() {
                    Some(after) => after + 2,
                    None => change["startLine"].as_u64().unwrap() + 2,
                };
                placements.insert(id.clone(), json!(line));
                if i == 0 {
                    decision = json!({"edit": ["// edited in review", "// and placed"]});
                } else if i == changes.len() - 1 {
                    decision = json!("reject");
                }
            }
            decisions.insert(id, decision);
        }
    }
    json!({"decisions": decisions, "placements": placements, "shaOverrides": overrides})
}

#[test]
fn an_export_with_edits_and_placements_applies_as_apply_decisions_would() {
    let cases = corpus::cases();
    let mut exported = 0;
    for case in cases.iter().filter(|c| c.dir.join("drift").exists()) {
        let drift = case.dir.join("drift");
        let batch = case.dir.join("tul002.json");
        let batch = batch.to_str().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let decisions = dir.path().join("decisions.json");
        std::fs::write(&decisions, decisions_for(case, &drift, batch).to_string()).unwrap();
        let flags = vec![
            "--decisions".to_owned(),
            decisions.to_str().unwrap().to_owned(),
        ];
        assert_eq!(
            export_applies_as_apply_would(&drift, batch, &flags, &case.name()),
            Outcome::Written,
            "{}: the decisions were refused",
            case.name()
        );
        // The export keeps the keys and descriptions, and carries the edit.
        let ws = workspace_from(&drift);
        let out = run("export", ws.path(), &flags, batch);
        let export: Value = serde_json::from_slice(&out.stdout).unwrap();
        let original: Value =
            serde_json::from_slice(&std::fs::read(case.dir.join("tul002.json")).unwrap()).unwrap();
        assert_eq!(export["batchKey"], original["batchKey"]);
        let edited = export["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["changes"].as_array().unwrap())
            .filter(|c| c["newLines"] == json!(["// edited in review", "// and placed"]))
            .count();
        assert_eq!(edited, 1, "{}: {export}", case.name());
        for file in export["files"].as_array().unwrap() {
            let from = original["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["fileKey"] == file["fileKey"])
                .unwrap();
            for change in file["changes"].as_array().unwrap() {
                let same = from["changes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["changeKey"] == change["changeKey"])
                    .unwrap_or_else(|| panic!("{}: a key was lost: {change}", case.name()));
                assert_eq!(same["description"], change["description"]);
            }
        }
        exported += 1;
    }
    assert!(exported > 0, "no drifted commit in {} cases", cases.len());
}

/// The commits as git diffs (creations, deletions and files without a final newline among
/// them): exported as a git diff, they go through `git apply` and `apply` to expected/; as
/// TUL-002, they apply to expected/ too, or are refused naming what TUL-002 cannot say.
#[test]
fn real_commits_export_as_unified_and_as_tul002_or_are_refused_by_name() {
    let cases = corpus::cases();
    let (mut as_tul002, mut refused) = (0, 0);
    for case in cases {
        let name = case.name();
        let patch = case.dir.join("diff.patch");
        let patch = patch.to_str().unwrap();
        let expected = user_tree(&case.dir.join("expected"));
        let dir = tempfile::tempdir().unwrap();
        let base = case.dir.join("base");

        let ws = workspace_from(&base);
        let unified = run(
            "export",
            ws.path(),
            &["--to".into(), "unified".into()],
            patch,
        );
        let diff = export_to(&dir, "export.patch", &unified);
        let by_git = workspace_from(&base);
        let out = git_apply(by_git.path(), &unified.stdout, false);
        assert!(out.status.success(), "{name}: git apply: {}", stderr(&out));
        assert!(
            user_tree(by_git.path()) == expected,
            "{name}: git apply of the export"
        );
        let out = run("apply", ws.path(), &[], diff.to_str().unwrap());
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(
            user_tree(ws.path()) == expected,
            "{name}: apply of the unified export"
        );

        let ws = workspace_from(&base);
        let out = run("export", ws.path(), &[], patch);
        if out.status.code() == Some(0) {
            let export = export_to(&dir, "export.json", &out);
            let applied = run("apply", ws.path(), &[], export.to_str().unwrap());
            assert_eq!(
                applied.status.code(),
                Some(0),
                "{name}: {}",
                stderr(&applied)
            );
            assert!(
                user_tree(ws.path()) == expected,
                "{name}: apply of the TUL-002 export"
            );
            as_tul002 += 1;
        } else {
            assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
            assert!(out.stdout.is_empty());
            let said = stderr(&out);
            assert!(
                said.contains("TUL-002 cannot say") && said.contains("--to unified"),
                "{name}: {said}"
            );
            let diff = std::fs::read_to_string(case.dir.join("diff.patch")).unwrap();
            // A deletion, a final newline TUL-002 cannot give, a mode, an empty new file.
            let why = [
                "deleted file mode",
                "\\ No newline at end of file",
                "new mode",
                "new file mode 100755",
                "..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
            ];
            assert!(
                why.iter().any(|w| diff.contains(w)),
                "{name}: refused: {said}"
            );
            if diff.contains("deleted file mode") {
                assert!(said.contains("it deletes the file"), "{name}: {said}");
            }
            refused += 1;
        }
    }
    eprintln!(
        "real commits as TUL-002: {as_tul002} exported and applied, {refused} refused by name"
    );
    assert!(
        as_tul002 > 0 && refused > 0,
        "{as_tul002} as TUL-002, {refused} refused"
    );
}

#[test]
fn a_rename_and_a_mode_export_as_a_git_diff_and_are_refused_as_tul002_by_name() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    git(root, &["init", "-q"]);
    std::fs::write(root.join("old.txt"), "one\ntwo\nthree\nfour\nfive\n").unwrap();
    std::fs::write(root.join("run.sh"), "echo hi\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    git(root, &["mv", "old.txt", "new.txt"]);
    std::fs::write(root.join("new.txt"), "one\ntwo\nTHREE\nfour\nfive\n").unwrap();
    let run_sh = root.join("run.sh");
    std::fs::set_permissions(&run_sh, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(root, &["add", "-A"]);
    let patch = git(root, &["diff", "--cached", "-M"]);
    assert!(
        patch.contains("rename from old.txt") && patch.contains("new mode 100755"),
        "{patch}"
    );
    git(root, &["reset", "-q", "--hard"]);
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.patch");
    std::fs::write(&input, &patch).unwrap();
    let input = input.to_str().unwrap();

    let by_apply = workspace_from(root);
    let out = run("apply", by_apply.path(), &[], input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let ws = workspace_from(root);
    let tul = run("export", ws.path(), &[], input);
    assert_eq!(tul.status.code(), Some(2));
    let said = stderr(&tul);
    assert!(
        said.contains("new.txt (file patch") && said.contains("as a copy of old.txt"),
        "{said}"
    );
    assert!(
        said.contains("old.txt (file patch") && said.contains("it deletes the file"),
        "{said}"
    );
    assert!(
        said.contains("run.sh (file patch") && said.contains("executable (mode 100755)"),
        "{said}"
    );
    assert!(said.contains("hint: export with --to unified"), "{said}");

    let unified = run(
        "export",
        ws.path(),
        &["--to".into(), "unified".into()],
        input,
    );
    let diff = export_to(&dir, "export.patch", &unified);
    assert!(
        stdout(&unified).contains("old mode 100644\nnew mode 100755\n"),
        "{}",
        stdout(&unified)
    );
    let out = run("apply", ws.path(), &[], diff.to_str().unwrap());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_tree(ws.path()), user_tree(by_apply.path()));
    let by_git = workspace_from(root);
    let out = git_apply(by_git.path(), &unified.stdout, false);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(user_tree(by_git.path()), user_tree(by_apply.path()));
}

#[test]
fn a_creation_and_a_creation_over_a_file_export_as_tul002() {
    let ws = workspace_with(&[("there.txt", b"someone's\nfile\n")]);
    let batch = json!({"batchKey": "create", "files": [
        {"docPath": "docs/new.md", "originalSha256": sha(b""), "changes": [
            {"changeKey": "new", "operation": "insert", "afterLine": 0, "newLines": ["# New", "text"]}]},
        {"docPath": "there.txt", "originalSha256": sha(b""), "changes": [
            {"changeKey": "over", "operation": "insert", "afterLine": 0, "description": "a file of ours",
             "newLines": ["ours"]}]}]});
    let dir = tempfile::tempdir().unwrap();
    let input = crate::common::batch_file(&dir, &batch);
    let input = input.to_str().unwrap();
    let flags = vec!["--allow-overwrite".to_owned()];
    assert_eq!(
        export_applies_as_apply_would(ws.path(), input, &flags, "creations"),
        Outcome::Written
    );
    let out = run("export", ws.path(), &flags, input);
    let export: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(export["files"][0]["originalSha256"], sha(b""));
    assert_eq!(
        export["files"][1]["originalSha256"],
        sha(b"someone's\nfile\n")
    );
    assert_eq!(
        export["files"][1]["changes"][0],
        json!({"changeKey": "over", "changeId": export["files"][1]["changes"][0]["changeId"],
               "operation": "replace",
               "description": "a file of ours: replaces the file that was there with the one the batch creates",
               "startLine": 1, "endLine": 2, "expectedOriginalLines": ["someone's", "file"],
               "newLines": ["ours"]})
    );
}

#[test]
fn a_blocked_selection_exports_nothing_with_the_blockers_and_status_of_apply() {
    for (sample, status) in [("moved-line.json", 1), ("out-of-range.json", 2)] {
        let ws = sample_workspace();
        let batch = samples().join(sample);
        let batch = batch.to_str().unwrap();
        assert_eq!(
            export_applies_as_apply_would(ws.path(), batch, &[], sample),
            Outcome::Refused
        );
        let out = run("export", ws.path(), &[], batch);
        assert_eq!(out.status.code(), Some(status), "{sample}");
        assert!(
            stderr(&out).contains("patchdeck: nothing exported"),
            "{sample}"
        );
    }
}

#[test]
fn a_malformed_batch_or_decisions_file_is_an_error_naming_its_place() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let bad = samples().join("invalid-ranges.json");
    let out = run("export", ws.path(), &[], bad.to_str().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("files[1].originalSha256: in \"src/inventory.toml\""),
        "{}",
        stderr(&out)
    );

    let dir = tempfile::tempdir().unwrap();
    let decisions = dir.path().join("d.json");
    std::fs::write(&decisions, "{\"decisions\": {}, \"decisions\": {}}").unwrap();
    let clean = samples().join("clean.json");
    let flags = vec![
        "--decisions".to_owned(),
        decisions.to_str().unwrap().to_owned(),
    ];
    let out = run("export", ws.path(), &flags, clean.to_str().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("d.json: line 1, column 29: not a decisions file: duplicate key"),
        "{}",
        stderr(&out)
    );

    // Nothing selected (every change left undecided): no batch to give.
    std::fs::write(&decisions, "{\"decisions\": {}}").unwrap();
    let out = run("export", ws.path(), &flags, clean.to_str().unwrap());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to export"),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}

/// The reviewer's path, through the library: decisions made on a `Review` (a change moved,
/// another edited, the file's SHA-256 overridden) give feedback with nothing failed, and an
/// export that, loaded and planned with every change accepted, writes the bytes the review's
/// own plan writes.
#[test]
fn a_review_exports_as_decided_and_its_feedback_lists_what_it_resolved() {
    use patchdeck::formats::Input;
    use patchdeck::pipeline;
    use patchdeck::review::{At, Decisions, Review};

    let ws = sample_workspace();
    let opened = pipeline::open(
        ws.path(),
        pipeline::Access::Read,
        std::time::Duration::from_secs(5),
    )
    .unwrap();
    let input = Input::read(samples().join("moved-line.json").to_str().unwrap()).unwrap();
    let checked = pipeline::load(&opened.workspace, &input, None).unwrap();
    let undecided = Decisions::undecided(&checked.batch);
    let mut review = Review::new(checked, undecided);
    let (moved, edited) = (At { file: 0, change: 0 }, At { file: 0, change: 1 });
    review.relocate(moved).unwrap();
    let lines = vec!["            raise ValueError(name + \": not enough\")".to_owned()];
    review.edit(edited, lines.clone()).unwrap();
    review.override_file(0).unwrap();

    let feedback = patchdeck::feedback::message(review.checked(), review.decisions());
    assert!(!feedback.has_failures(), "{}", feedback.to_markdown());
    let how: Vec<_> = feedback.resolved.iter().map(|r| r.how).collect();
    use patchdeck::feedback::Resolution;
    assert_eq!(how, [Resolution::ShaOverride, Resolution::Relocated]);

    let exported = patchdeck::export::export(
        review.checked(),
        review.decisions(),
        patchdeck::export::Format::Tul002,
    )
    .unwrap();
    assert_eq!((exported.files, exported.changes), (1, 2));
    let again = pipeline::load(
        &opened.workspace,
        &Input::from_bytes("export.json", exported.bytes),
        None,
    )
    .unwrap();
    assert_eq!(again.verification.worst(), patchdeck::verify::Status::Ok);
    let by_export = again.plan(&Decisions::accept_all(&again.batch));
    let by_review = review.plan();
    assert!(!by_export.is_blocked() && !by_review.is_blocked());
    let written = |plan: &patchdeck::plan::Plan| -> Vec<(PathBuf, Vec<u8>)> {
        plan.writes
            .iter()
            .map(|w| (w.rel.to_path_buf(), w.after.to_vec()))
            .collect()
    };
    assert_eq!(written(&by_export), written(&by_review));
    let text = String::from_utf8(written(&by_export)[0].1.clone()).unwrap();
    assert!(text.contains(&lines[0]), "the edit is written");
}
