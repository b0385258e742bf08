//! The headless command line as scripts and agents use it: exit statuses, the JSON report,
//! selectors, decisions files, `diff` against real `git apply`, `show`, standard input.

use crate::common;
use crate::common::{json_out, patchdeck, sample_workspace, samples, stderr, stdout, user_tree};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

fn sample(name: &str) -> String {
    samples().join(name).display().to_string()
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec![args[0], "--root", root.to_str().unwrap()];
    all.extend_from_slice(&args[1..]);
    patchdeck(&all)
}

#[test]
fn check_exit_status_says_clean_conflict_or_invalid() {
    let ws = sample_workspace();
    for (batch, code) in [
        ("clean.json", 0),
        ("stale-sha.json", 1),
        ("moved-line.json", 1),
        ("invalid-ranges.json", 2),
        ("out-of-range.json", 2),
    ] {
        let out = run(ws.path(), &["check", &sample(batch)]);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{batch}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

#[test]
fn check_json_has_the_contract_fields() {
    let ws = sample_workspace();
    let report = json_out(&run(
        ws.path(),
        &["check", "--json", &sample("moved-line.json")],
    ));
    assert_eq!(report["format"], "tul002");
    for key in ["id", "key", "label"] {
        assert!(report["batch"].get(key).is_some(), "batch.{key}");
    }
    let file = &report["files"][0];
    for key in [
        "id",
        "key",
        "path",
        "docPath",
        "label",
        "action",
        "expectedSha256",
        "actualSha256",
        "status",
        "problems",
        "changes",
    ] {
        assert!(file.get(key).is_some(), "files[0].{key} missing: {file}");
    }
    assert_eq!(file["status"], "conflict");
    assert_eq!(file["problems"][0]["kind"], "sha_mismatch");
    let change = &file["changes"][0];
    for key in [
        "id",
        "key",
        "operation",
        "description",
        "startLine",
        "endLine",
        "status",
        "problems",
    ] {
        assert!(
            change.get(key).is_some(),
            "changes[0].{key} missing: {change}"
        );
    }
    assert_eq!(change["status"], "conflict");
    let problem = &change["problems"][0];
    assert_eq!(problem["kind"], "expected_mismatch");
    assert_eq!(problem["foundAt"], 19);
    assert_eq!(
        problem["expected"][0],
        "        print(\"loaded\", len(self.items), \"items\")"
    );
    assert_eq!(
        report["summary"],
        json!({"files": 1, "changes": 2, "ok": 0, "conflicts": 2, "invalid": 0, "applied": 0, "rejected": 0, "blocked": 1})
    );
}

#[test]
fn the_summary_counts_changes_held_back_by_their_file_as_conflicts() {
    let ws = sample_workspace();
    fs::write(ws.path().join("src/Utils.py"), b"caf\xe9\n").unwrap();
    let notes = fs::read(ws.path().join("notes.txt")).unwrap();
    let batch = json!({"files": [{"docPath": "src/utils.py", "originalSha256": common::sha(b"caf\xe9\n"),
        "changes": [{"operation": "insert", "afterLine": 1, "newLines": ["x"]}]},
        {"docPath": "notes.txt", "originalSha256": common::sha(&notes),
        "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, &batch);
    for (batch, want) in [
        (sample("stale-sha.json"), json!([1, 1, 1])),
        (path.display().to_string(), json!([1, 1, 1])),
    ] {
        let out = run(ws.path(), &["check", "--json", &batch]);
        assert_eq!(out.status.code(), Some(1), "{batch}");
        let s = &json_out(&out)["summary"];
        assert_eq!(
            json!([s["ok"], s["conflicts"], s["blocked"]]),
            want,
            "{batch}"
        );
        let text = stdout(&run(ws.path(), &["check", &batch]));
        assert!(
            text.contains(
                "1 ok, 1 conflict, 0 invalid (1 of them verifies but is in a blocked file)"
            ),
            "{text}"
        );
    }
}

#[test]
fn check_fails_whenever_a_plain_apply_would_be_blocked() {
    let ws = sample_workspace();
    let batch = sample("markdown-same-file.md");
    let out = run(ws.path(), &["check", "--json", &batch]);
    assert_eq!(out.status.code(), Some(1));
    let report = json_out(&out);
    assert!(
        report["summary"]["conflicts"].as_u64().unwrap() > 0,
        "{report}"
    );
    assert!(
        report["blocked"][0]
            .as_str()
            .unwrap()
            .contains("changed by file patches 1 and 2"),
        "{report}"
    );
    let text = stdout(&run(ws.path(), &["check", &batch]));
    assert!(
        text.contains("blocked: src/Utils.py: changed by file patches 1 and 2"),
        "{text}"
    );
    assert_eq!(run(ws.path(), &["apply", &batch]).status.code(), Some(1));
}

#[test]
fn check_text_reads_like_a_compiler() {
    let ws = sample_workspace();
    let out = stdout(&run(ws.path(), &["check", &sample("moved-line.json")]));
    assert!(
        out.contains("src/app.py:21: conflict: expected_mismatch: change #1 \"log-load\""),
        "{out}"
    );
    assert!(
        out.contains("    expected |         print(\"loaded\""),
        "{out}"
    );
    assert!(
        out.contains("    found    |     def add(self, name, quantity):"),
        "{out}"
    );
    assert!(out.contains("found at line 19"), "{out}");
}

#[test]
fn invalid_input_exits_2_with_every_problem_located_and_json_on_request() {
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &["check", "--json", &sample("invalid-ranges.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    let body = json_out(&out);
    assert_eq!(body["error"]["exitCode"], 2);
    let locations: Vec<&str> = body["error"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["location"].as_str().unwrap())
        .collect();
    assert!(
        locations.contains(&"files[0].changes[0].endLine"),
        "{locations:?}"
    );
    assert!(
        locations.contains(&"files[1].originalSha256"),
        "{locations:?}"
    );
    assert!(stderr(&out).contains("invalid tul002 batch"));
}

#[test]
fn apply_writes_every_change_with_the_files_own_line_endings() {
    let ws = sample_workspace();
    let out = run(ws.path(), &["apply", &sample("clean.json")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let read = |p: &str| fs::read(ws.path().join(p)).unwrap();
    assert_eq!(
        read("windows/setup.bat"),
        b"@echo off\r\nrem Set up the inventory service on Windows\r\npython -m venv .venv\r\n.venv\\Scripts\\pip install --quiet -r requirements.txt\r\necho done\r\n"
    );
    assert_eq!(
        read("notes.txt"),
        b"Notes\n- check the quantity parser\n- the last line has no newline\n- test CRLF files"
    );
    assert_eq!(
        read("docs/changelog.md"),
        b"# Changelog\n\n- Log item loads instead of printing them.\n"
    );
    let utils = String::from_utf8(read("src/Utils.py")).unwrap();
    assert!(
        utils.contains("int(text.strip())"),
        "the lowercase docPath reached Utils.py"
    );
    assert!(!ws.path().join("src/utils.py").exists());
    let out = stdout(&out);
    assert!(out.contains("created docs/changelog.md"), "{out}");
    assert!(out.contains("9 applied, 0 rejected"), "{out}");
}

#[test]
fn apply_json_reports_applied_and_new_hashes() {
    let ws = sample_workspace();
    let report = json_out(&run(
        ws.path(),
        &[
            "apply",
            "--json",
            "--reject",
            "config/debug-logs",
            &sample("clean.json"),
        ],
    ));
    assert_eq!(report["summary"]["applied"], 8);
    assert_eq!(report["summary"]["rejected"], 1);
    let config = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "config")
        .unwrap();
    assert_eq!(config["changes"][0]["status"], "rejected");
    assert!(config.get("newSha256").is_none());
    let app = &report["files"][0];
    assert_eq!(app["changes"][0]["status"], "applied");
    let on_disk = common::sha(&fs::read(ws.path().join("src/app.py")).unwrap());
    assert_eq!(app["newSha256"], on_disk.as_str());
}

#[test]
fn a_conflict_blocks_apply_and_writes_nothing() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    for batch in ["stale-sha.json", "moved-line.json"] {
        let out = run(ws.path(), &["apply", &sample(batch)]);
        assert_eq!(out.status.code(), Some(1), "{batch}");
        assert!(stdout(&out).contains("blocked: "), "{}", stdout(&out));
        assert!(stderr(&out).contains("nothing was written"));
        assert_eq!(user_tree(ws.path()), before, "{batch} wrote something");
    }
    let out = run(ws.path(), &["apply", &sample("invalid-ranges.json")]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(ws.path(), &["apply", &sample("out-of-range.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn allow_sha_mismatch_writes_a_changed_file_whose_changes_verify_and_says_so() {
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &["apply", "--allow-sha-mismatch", &sample("stale-sha.json")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("override: src/app.py: written although its SHA-256 differs"),
        "{}",
        stdout(&out)
    );
    assert!(fs::read_to_string(ws.path().join("src/app.py"))
        .unwrap()
        .contains("log.info(\"loaded %d items\""));
}

#[test]
fn allow_sha_mismatch_does_not_write_a_change_whose_lines_conflict() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let out = run(
        ws.path(),
        &["apply", "--allow-sha-mismatch", &sample("moved-line.json")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("--relocate applies it there"),
        "{}",
        stdout(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn a_blocked_file_names_every_flag_it_needs() {
    let ws = sample_workspace();
    let out = run(ws.path(), &["apply", &sample("moved-line.json")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("(to write it, apply with --allow-sha-mismatch --relocate)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_creation_over_an_existing_file_is_file_exists_whatever_the_sha_override() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let batch = json!({"files": [{"docPath": "notes.txt", "originalSha256": patchdeck::model::EMPTY_SHA256,
        "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["hello"]}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, &batch);
    let path = path.to_str().unwrap();
    let report = json_out(&run(ws.path(), &["check", "--json", path]));
    let kinds: Vec<&str> = report["files"][0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["file_exists"]);
    assert_eq!(report["files"][0]["action"], "create");
    let out = run(ws.path(), &["apply", "--allow-sha-mismatch", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn allow_sha_mismatch_does_not_write_an_insertion_it_cannot_verify() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let stale = "0".repeat(64);
    let batch = json!({"files": [{"docPath": "notes.txt", "originalSha256": stale, "changes": [
        {"changeKey": "top", "operation": "insert", "afterLine": 0, "newLines": ["hello"]}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, &batch);
    let path = path.to_str().unwrap();
    let out = run(ws.path(), &["apply", "--allow-sha-mismatch", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("blocked: notes.txt: change #1 top: an insertion (after line 0) in a file whose SHA-256 differs"),
        "{}",
        stdout(&out)
    );
    // Nothing was written, so no override is claimed.
    assert!(!stdout(&out).contains("override:"), "{}", stdout(&out));
    assert_eq!(user_tree(ws.path()), before);
    // Without the override, the hint says the insertion cannot be written by any flag.
    let out = run(ws.path(), &["apply", path]);
    assert!(
        stdout(&out).contains("reject change #1 top (an insertion, its position unverified)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn relocate_applies_a_moved_change_where_its_lines_are() {
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &[
            "apply",
            "--relocate",
            "--allow-sha-mismatch",
            &sample("moved-line.json"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("moved from line 21 to line 19"),
        "{}",
        stdout(&out)
    );
    let app = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert_eq!(
        app.lines().nth(18),
        Some("        log.info(\"loaded %d items\", len(self.items))")
    );
    // Applied where it was found, the change no longer counts as a conflict: `conflicts` is
    // above 0 exactly when conflicts block.
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &[
            "apply",
            "--json",
            "--relocate",
            "--allow-sha-mismatch",
            &sample("moved-line.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = &json_out(&out)["summary"];
    assert_eq!(summary["conflicts"], 0, "{summary}");
    assert_eq!(summary["applied"], summary["changes"], "{summary}");
}

#[test]
fn rejecting_the_conflicting_change_lets_the_rest_apply() {
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &[
            "apply",
            "--allow-sha-mismatch",
            "--reject",
            "log-load",
            &sample("moved-line.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let app = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert!(app.contains("left, {quantity} asked"));
    assert!(app.contains("print(\"loaded\""));
}

#[test]
fn selectors_name_changes_by_id_key_file_key_and_position() {
    let ws = sample_workspace();
    let check = json_out(&run(ws.path(), &["check", "--json", &sample("clean.json")]));
    let first_id = check["files"][0]["changes"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let file_id = check["files"][1]["id"].as_str().unwrap().to_owned();
    for (selector, applied) in [
        (first_id.as_str(), 1),
        ("clearer-error", 1),
        ("app/drop-demo-add", 1),
        ("src/app.py#2", 1),
        ("app", 4),
        ("src/inventory.toml", 1),
        (file_id.as_str(), 1),
    ] {
        let report = json_out(&run(
            ws.path(),
            &[
                "apply",
                "--dry-run",
                "--json",
                "--only",
                selector,
                &sample("clean.json"),
            ],
        ));
        assert_eq!(
            report["summary"]["rejected"],
            9 - applied,
            "--only {selector}"
        );
    }
    let out = run(
        ws.path(),
        &["apply", "--only", "no-such-change", &sample("clean.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("selector \"no-such-change\" names no change"),
        "{}",
        stderr(&out)
    );
    let out = run(
        ws.path(),
        &["apply", "--only", "src/app.py#9", &sample("clean.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has 4 change(s)"), "{}", stderr(&out));
}

#[test]
fn a_change_key_used_in_two_files_is_ambiguous() {
    let ws = common::workspace_with(&[("a.txt", b"x\n"), ("b.txt", b"x\n")]);
    let change =
        json!([{"changeKey": "same", "operation": "insert", "afterLine": 1, "newLines": ["y"]}]);
    let batch = json!({"files": [
        {"docPath": "a.txt", "originalSha256": common::sha(b"x\n"), "changes": change},
        {"docPath": "b.txt", "originalSha256": common::sha(b"x\n"), "changes": change}]});
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, &batch);
    let out = run(
        ws.path(),
        &["apply", "--reject", "same", path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("as a changeKey it names 2 changes: a.txt#1, b.txt#1"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("hint: "), "{}", stderr(&out));
}

/// A batch file in its own folder; returns the folder (keep it alive) and the path.
fn write_batch(batch: &Value) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, batch).display().to_string();
    (dir, path)
}

#[test]
fn repeated_keys_and_readings_that_disagree_are_refused_not_resolved_by_precedence() {
    let ws = common::workspace_with(&[("a.txt", b"x\n"), ("b.txt", b"x\n")]);
    let sha = common::sha(b"x\n");
    let insert = |key: &str, after: usize| json!({"changeKey": key, "operation": "insert", "afterLine": after, "newLines": ["y"]});
    // A changeKey twice in one file, and a fileKey on two files.
    let (_d, path) = write_batch(&json!({"files": [
        {"fileKey": "f", "docPath": "a.txt", "originalSha256": sha, "changes": [insert("k", 0), insert("k", 1)]},
        {"fileKey": "f", "docPath": "b.txt", "originalSha256": sha, "changes": [insert("m", 0)]}]}));
    let out = run(ws.path(), &["apply", "--reject", "k", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("as a changeKey it names 2 changes: a.txt#1, a.txt#2"),
        "{}",
        stderr(&out)
    );
    let out = run(ws.path(), &["apply", "--only", "f", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("as a fileKey it names 2 file patches"),
        "{}",
        stderr(&out)
    );
    let check = stdout(&run(ws.path(), &["check", &path]));
    assert!(check.contains("warning: files[1].fileKey"), "{check}");
    // A string that is one change's ID and another change's key.
    let (_d, path) = write_batch(&json!({"files": [
        {"docPath": "a.txt", "originalSha256": sha, "changes": [
            {"changeId": "c1", "changeKey": "c2", "operation": "insert", "afterLine": 0, "newLines": ["y"]},
            {"changeId": "c2", "operation": "insert", "afterLine": 1, "newLines": ["z"]}]}]}));
    let out = run(ws.path(), &["apply", "--only", "c2", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("names different changes depending on how it is read: as a changeId, a.txt#2; as a changeKey, a.txt#1"),
        "{}",
        stderr(&out)
    );
    // Readings that agree are fine: a file whose key is its own docPath.
    let (_d, path) = write_batch(&json!({"files": [
        {"fileKey": "a.txt", "docPath": "a.txt", "originalSha256": sha, "changes": [insert("k", 0)]}]}));
    assert_eq!(
        run(ws.path(), &["apply", "--only", "a.txt", &path])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn path_selectors_take_the_resolved_path_in_any_case() {
    let ws = sample_workspace();
    let batch = sample("clean.json");
    let report = json_out(&run(ws.path(), &["check", "--json", &batch]));
    let utils = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["docPath"] == "src/utils.py")
        .unwrap();
    assert_eq!(utils["path"], "src/Utils.py");
    let changes = utils["changes"].as_array().unwrap().len() as u64;
    for selector in [
        "src/Utils.py#1",
        "SRC/UTILS.PY#1",
        "src/utils.py#1",
        "src/Utils.py",
    ] {
        let out = run(
            ws.path(),
            &["apply", "--dry-run", "--json", "--only", selector, &batch],
        );
        assert_eq!(out.status.code(), Some(0), "{selector}: {}", stderr(&out));
        let want = if selector.contains('#') { 1 } else { changes };
        assert_eq!(
            json_out(&out)["summary"]["rejected"].as_u64().unwrap(),
            report["summary"]["changes"].as_u64().unwrap() - want,
            "{selector}"
        );
    }
}

#[test]
fn contradictory_selections_are_errors_naming_the_selectors() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let batch = sample("clean.json");
    let out = run(
        ws.path(),
        &[
            "apply",
            "--only",
            "clearer-error",
            "--reject",
            "clearer-error",
            &batch,
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--only \"clearer-error\" selects nothing to apply: --reject \"clearer-error\" rejects it"),
        "{}",
        stderr(&out)
    );
    // --only narrows a decisions file: naming only a change it leaves undecided is an error.
    let report = json_out(&run(ws.path(), &["check", "--json", &batch]));
    let first = report["files"][0]["changes"][0]["id"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let decisions = dir.path().join("d.json");
    fs::write(
        &decisions,
        json!({"decisions": {first: "accept"}}).to_string(),
    )
    .unwrap();
    let d = decisions.to_str().unwrap();
    let out = run(
        ws.path(),
        &["apply", "--decisions", d, "--only", "clearer-error", &batch],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("--only \"clearer-error\" selects nothing to apply: {d} leaves undecided every change it names")),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
    // Naming the accepted change, or a file holding it, applies just that.
    let out = run(
        ws.path(),
        &["apply", "--json", "--decisions", d, "--only", "app", &batch],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_out(&out)["summary"]["applied"], 1);
}

#[test]
fn dry_run_writes_nothing() {
    let ws = sample_workspace();
    let before = user_tree(ws.path());
    let out = run(ws.path(), &["apply", "--dry-run", &sample("clean.json")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("would create docs/changelog.md"),
        "{}",
        stdout(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn a_decisions_file_applies_accepted_and_edited_changes_only() {
    let ws = sample_workspace();
    let check = json_out(&run(ws.path(), &["check", "--json", &sample("clean.json")]));
    let ids: Vec<String> = check["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
        })
        .collect();
    let decisions = json!({"decisions": {
        ids[0].clone(): "accept",
        ids[1].clone(): {"edit": ["        assert name, \"item name must not be empty\""]},
        ids[2].clone(): "reject"
    }});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("decisions.json");
    fs::write(&path, decisions.to_string()).unwrap();
    let report = json_out(&run(
        ws.path(),
        &[
            "apply",
            "--json",
            "--decisions",
            path.to_str().unwrap(),
            &sample("clean.json"),
        ],
    ));
    assert_eq!(report["summary"]["applied"], 2);
    assert_eq!(report["summary"]["rejected"], 1);
    assert_eq!(report["files"][0]["changes"][3]["status"], "undecided");
    assert_eq!(report["files"][0]["changes"][0]["edited"], false);
    assert_eq!(report["files"][0]["changes"][1]["edited"], true);
    let app = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert!(app.contains("assert name, \"item name must not be empty\""));
    assert!(
        app.contains("raise ValueError(\"not enough \" + name)"),
        "rejected change not applied"
    );
    assert!(
        !ws.path().join("docs/changelog.md").exists(),
        "undecided change not applied"
    );
    // A decisions file naming a change that is not in the batch is refused.
    fs::write(&path, r#"{"decisions": {"chg-unknown": "accept"}}"#).unwrap();
    let out = run(
        ws.path(),
        &[
            "apply",
            "--decisions",
            path.to_str().unwrap(),
            &sample("clean.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("chg-unknown"));
}

#[test]
fn a_decisions_file_is_read_strictly_and_edits_are_whole_lines_and_reported() {
    let ws = common::workspace_with(&[("w.txt", b"one\r\ntwo\r\n")]);
    let before = user_tree(ws.path());
    let (_d, batch) = write_batch(&json!({"files": [{"docPath": "w.txt",
        "originalSha256": common::sha(b"one\r\ntwo\r\n"), "changes": [
        {"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": ["one"], "newLines": ["ONE"]}]}]}));
    let id = json_out(&run(ws.path(), &["check", "--json", &batch]))["files"][0]["changes"][0]
        ["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("decisions.json");
    let d = path.to_str().unwrap();
    let apply = |decisions: &str| {
        fs::write(&path, decisions).unwrap();
        run(ws.path(), &["apply", "--decisions", d, &batch])
    };
    // A line break inside an edited line would write a bare LF (and CR CR LF) into a CRLF file.
    let out = apply(&json!({"decisions": {&id: {"edit": ["a\nb", "c\r", "fine"]}}}).to_string());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "decisions.{id}.edit[0], decisions.{id}.edit[1]: each edited line must be one line"
        )),
        "{}",
        stderr(&out)
    );
    // A key written twice is refused, located, rather than the last one winning.
    let out = apply(&format!(
        r#"{{"decisions": {{"{id}": "reject", "{id}": "accept"}}}}"#
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{d}: decisions (line 1, column"))
            && stderr(&out).contains(&format!("duplicate key \"{id}\"")),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
    // An edit that is whole lines is written, and the text report says it was edited.
    let out = apply(&json!({"decisions": {&id: {"edit": ["Uno", "Dos"]}}}).to_string());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("w.txt:1: edited: change #1"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        fs::read(ws.path().join("w.txt")).unwrap(),
        b"Uno\r\nDos\r\ntwo\r\n"
    );
}

fn git_apply(dir: &Path, patch: &[u8]) -> std::process::Output {
    let mut child = Command::new("git")
        .args(["apply", "--whitespace=nowarn", "-"])
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(patch).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn diff_applied_by_git_apply_gives_the_same_bytes_as_apply() {
    let batch = sample("clean.json");
    for extra in [
        vec![],
        vec!["--reject", "app/validate-name", "--reject", "notes"],
    ] {
        let by_patchdeck = sample_workspace();
        let by_git = sample_workspace();
        let with = |command: &'static str| -> Vec<&str> {
            let mut args = vec![command];
            args.extend(extra.iter().copied());
            args.push(&batch);
            args
        };
        let diff = run(by_git.path(), &with("diff"));
        assert_eq!(diff.status.code(), Some(0), "{}", stderr(&diff));
        let git = git_apply(by_git.path(), &diff.stdout);
        assert!(
            git.status.success(),
            "git apply refused the diff: {}\n{}",
            String::from_utf8_lossy(&git.stderr),
            stdout(&diff)
        );
        assert_eq!(
            run(by_patchdeck.path(), &with("apply")).status.code(),
            Some(0)
        );
        assert_eq!(
            user_tree(by_git.path()),
            user_tree(by_patchdeck.path()),
            "extra args {extra:?}"
        );
    }
}

#[test]
fn removing_or_adding_at_the_end_keeps_a_missing_final_newline_and_git_apply_agrees() {
    let original: &[u8] = b"a\nb\nc";
    let sha = common::sha(original);
    for (changes, want) in [
        (
            json!([{"operation": "delete", "startLine": 3, "endLine": 3, "expectedOriginalLines": ["c"]}]),
            &b"a\nb"[..],
        ),
        (
            json!([{"operation": "delete", "startLine": 2, "endLine": 3, "expectedOriginalLines": ["b", "c"]}]),
            b"a",
        ),
        (
            json!([{"operation": "insert", "afterLine": 3, "newLines": ["d"]}]),
            b"a\nb\nc\nd",
        ),
    ] {
        let batch =
            json!({"files": [{"docPath": "f.txt", "originalSha256": sha, "changes": changes}]});
        let dir = tempfile::tempdir().unwrap();
        let path = common::batch_file(&dir, &batch);
        let path = path.to_str().unwrap();
        let by_patchdeck = common::workspace_with(&[("f.txt", original)]);
        let by_git = common::workspace_with(&[("f.txt", original)]);
        let out = run(by_patchdeck.path(), &["apply", path]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            fs::read(by_patchdeck.path().join("f.txt")).unwrap(),
            want,
            "{changes}"
        );
        let diff = run(by_git.path(), &["diff", path]);
        let git = git_apply(by_git.path(), &diff.stdout);
        assert!(git.status.success(), "{}", stderr(&git));
        assert_eq!(fs::read(by_git.path().join("f.txt")).unwrap(), want);
    }
}

#[test]
fn diff_of_a_blocked_batch_prints_nothing_and_says_why() {
    let ws = sample_workspace();
    let out = run(ws.path(), &["diff", &sample("stale-sha.json")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("blocked: src/app.py"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn show_prints_a_change_a_file_or_the_batch() {
    let ws = sample_workspace();
    let out = stdout(&run(
        ws.path(),
        &["show", &sample("clean.json"), "clearer-error"],
    ));
    assert!(out.contains("change chg-"), "{out}");
    assert!(out.contains("\"clearer-error\" (#3 of src/app.py"), "{out}");
    assert!(
        out.contains("description: Say how many are left in the error."),
        "{out}"
    );
    assert!(
        out.contains("-            raise ValueError(\"not enough \" + name)"),
        "{out}"
    );
    assert!(
        out.contains("+            raise ValueError(f\"not enough {name}"),
        "{out}"
    );
    let out = stdout(&run(ws.path(), &["show", &sample("clean.json"), "utils"]));
    assert!(
        out.contains("path: src/Utils.py (docPath src/utils.py)"),
        "{out}"
    );
    let out = stdout(&run(
        ws.path(),
        &["show", &sample("clean.json"), "inventory-cleanup"],
    ));
    assert!(out.contains("6 files, 9 changes"), "{out}");
    // The batch itself: identity, then every file patch with its changes' IDs, keys, ranges
    // and descriptions.
    assert!(out.starts_with("batch batch-"), "{out}");
    assert!(
        out.contains("\"inventory-cleanup\"\n  format: tul002\n"),
        "{out}"
    );
    assert!(
        out.contains("  label: Inventory: logging, validation and clearer errors\n"),
        "{out}"
    );
    assert!(out.contains("file patch file-"), "{out}");
    assert!(
        out.contains(" validate-name insert after line 22 ok: Refuse empty item names.\n"),
        "{out}"
    );
    assert!(out.contains(" clearer-error replace line 30 ok: "), "{out}");
    assert_eq!(out.matches("file patch ").count(), 6, "{out}");
    let entry: Value = json_out(&run(
        ws.path(),
        &["show", "--json", &sample("moved-line.json"), "log-load"],
    ));
    assert_eq!(entry["problems"][0]["foundAt"], 19);
    let out = stdout(&run(
        ws.path(),
        &["show", &sample("moved-line.json"), "log-load"],
    ));
    assert!(out.contains("as written in the batch"), "{out}");
}

#[test]
fn inserts_say_the_line_they_go_after() {
    let ws = sample_workspace();
    let batch = sample("clean.json");
    let entry = json_out(&run(
        ws.path(),
        &["show", "--json", &batch, "validate-name"],
    ));
    assert_eq!(
        (
            &entry["operation"],
            &entry["afterLine"],
            &entry["startLine"],
            &entry["endLine"]
        ),
        (&json!("insert"), &json!(22), &json!(23), &json!(22))
    );
    let replace = json_out(&run(
        ws.path(),
        &["show", "--json", &batch, "clearer-error"],
    ));
    assert!(replace.get("afterLine").is_none(), "{replace}");
    let out = stdout(&run(ws.path(), &["show", &batch, "validate-name"]));
    assert!(out.contains("  operation: insert after line 22\n"), "{out}");
    let out = stdout(&run(ws.path(), &["show", &batch, "app"]));
    assert!(
        out.contains(" validate-name insert after line 22 "),
        "{out}"
    );
    assert!(out.contains(" log-load replace line 19 "), "{out}");
}

#[test]
fn shown_lines_make_control_characters_visible() {
    let ws = common::workspace_with(&[("f.txt", b"a\nb\r\r\nc\n")]);
    let (_d, batch) = write_batch(&json!({"files": [{"docPath": "f.txt",
        "originalSha256": common::sha(b"a\nb\r\r\nc\n"), "changes": [
        {"changeKey": "k\u{1b}[2J", "operation": "replace", "startLine": 2, "endLine": 2, "expectedOriginalLines": ["b"], "newLines": ["B"]}]}]}));
    let out = stdout(&run(ws.path(), &["check", &batch]));
    assert!(out.contains("    found    | b\u{240d}\n"), "{out:?}");
    let out = stdout(&run(ws.path(), &["show", &batch, "f.txt"]));
    assert!(out.contains(" k\u{241b}[2J replace line 2 "), "{out:?}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
}

#[test]
fn input_can_come_from_standard_input() {
    let ws = sample_workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args([
            "check",
            "--json",
            "--root",
            ws.path().to_str().unwrap(),
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&fs::read(sample("clean.json")).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_out(&out)["source"], "-");
}

#[test]
fn unknown_formats_and_missing_inputs_are_usage_errors() {
    let ws = sample_workspace();
    let out = run(
        ws.path(),
        &["check", "--format", "nope", &sample("clean.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown format \"nope\""));
    let out = run(ws.path(), &["check", "/no/such/batch.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read /no/such/batch.json"));
    let out = patchdeck(&["check", "--root", "/no/such/root", &sample("clean.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("workspace root /no/such/root"));
}

#[test]
fn unknown_fields_are_reported_as_warnings() {
    let ws = common::workspace_with(&[("a.txt", b"x\n")]);
    let batch = json!({"model": "m", "files": [{"docPath": "a.txt", "originalSha256": common::sha(b"x\n"),
        "changes": [{"operation": "insert", "afterLine": 1, "newLines": ["y"]}]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = common::batch_file(&dir, &batch);
    let out = run(ws.path(), &["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("warning: model: unknown field, ignored"),
        "{}",
        stdout(&out)
    );
}

/// Runs the binary with standard output closed before it writes, as `| head -1` does once it
/// has its line, and returns the exit status.
fn status_into_closed_pipe(args: &[&str]) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args(args)
        .env_remove("PATCHDECK_FAILPOINT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code()
}

#[test]
fn a_closed_pipe_ends_the_output_quietly_with_the_status_earned() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let stale = sample("stale-sha.json");
    let clean = sample("clean.json");
    assert_eq!(
        status_into_closed_pipe(&["check", "--json", "--root", root, &stale]),
        Some(1)
    );
    assert_eq!(
        status_into_closed_pipe(&["check", "--root", root, &clean]),
        Some(0)
    );
    assert_eq!(
        status_into_closed_pipe(&["show", "--root", root, &clean, "app"]),
        Some(0)
    );
    // An error reported as JSON (no commit to undo yet).
    assert_eq!(
        status_into_closed_pipe(&["undo", "--json", "--root", root]),
        Some(2)
    );
    // The apply happened; only its report was cut short.
    assert_eq!(
        status_into_closed_pipe(&["apply", "--json", "--root", root, &clean]),
        Some(0)
    );
    assert_ne!(
        fs::read(ws.path().join("src/app.py")).unwrap(),
        fs::read(samples().join("workspace/src/app.py")).unwrap()
    );
    assert_eq!(
        status_into_closed_pipe(&["undo", "--json", "--root", root]),
        Some(0)
    );
}

/// A failure to write the output is an I/O failure of its own status (4), with what failed,
/// not a usage error: the person asked for nothing wrong.
#[test]
fn output_that_cannot_be_written_is_an_io_failure_not_a_usage_error() {
    let ws = sample_workspace();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args(["check", "--json", "--root", ws.path().to_str().unwrap()])
        .arg(samples().join("clean.json"))
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("writing to standard output failed: No space left on device"),
        "{}",
        stderr(&out)
    );
}
