//! The JSON formats other than TUL-002 on the sample workspace: the editing-v2 directive, the
//! Aptix bundle and structured patch, and patch-tool calls.

use crate::common;
use crate::common::formats;

use crate::common::{json_out, sample_workspace};
use formats::{
    apply, assert_untouched, input_problems, kinds, original, read, report, run, sample,
};

#[test]
fn a_directive_applies_its_diff_when_the_document_version_matches() {
    let (ws, code, out) = apply("directive-clean.json", &[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        read(&ws, "src/Utils.py"),
        original("src/Utils.py").replace("int(text)", "int(text.strip())")
    );
    let r = report("directive-clean.json");
    assert_eq!(r["format"], "directive");
    assert_eq!(
        r["batch"]["label"],
        "Accept quantities with surrounding spaces."
    );
}

#[test]
fn a_stale_document_version_is_a_sha_mismatch_and_writes_nothing() {
    let (ws, code, out) = apply("directive-stale.json", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("sha_mismatch"), "{out}");
    assert_untouched(&ws);
}

#[test]
fn a_malformed_directive_names_each_field() {
    let problems = input_problems("directive-malformed.json");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("diff: must not be empty")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("document_version: expected a SHA-256 digest")),
        "{problems:?}"
    );
}

#[test]
fn a_bundle_replacement_is_split_into_hunks_each_accepted_alone() {
    let r = report("bundle-clean.json");
    assert_eq!(r["format"], "bundle");
    let app = &r["files"][0];
    assert_eq!(app["path"], "src/app.py");
    assert_eq!(
        app["changes"].as_array().unwrap().len(),
        2,
        "two separate edits, two hunks: {app}"
    );
    // Reject the second hunk: only the first edit is written, the rest of the file is the
    // person's own.
    let second = app["changes"][1]["id"].as_str().unwrap().to_owned();
    let (ws, code, out) = apply("bundle-clean.json", &["--reject", &second]);
    assert_eq!(code, 0, "{out}");
    let app = read(&ws, "src/app.py");
    assert!(app.contains("log.info(\"loaded %d items\""), "{app}");
    assert!(
        app.contains("inventory.add(\"apples\", \"3\")"),
        "the rejected hunk stays as it was"
    );
    assert!(
        !ws.path().join("src/inventory.toml").exists(),
        "the deletion was applied"
    );
    assert_eq!(
        read(&ws, "docs/changelog.md"),
        "# Changelog\n\n- Log item loads instead of printing them.\n"
    );
}

#[test]
fn bundle_create_over_a_file_and_delete_of_a_missing_one_are_conflicts() {
    let (ws, code, out) = apply("bundle-conflicting.json", &[]);
    assert_eq!(code, 1, "{out}");
    let r = report("bundle-conflicting.json");
    assert_eq!(kinds(&r), vec!["file_exists", "missing_file"]);
    let missing = r["files"][1]["problems"][0]["message"].as_str().unwrap();
    assert!(
        missing.contains("does not exist; the batch expects to delete it"),
        "{missing}"
    );
    assert_untouched(&ws);
}

#[test]
fn a_bundle_keeps_the_files_line_endings() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b.json");
    let content = original("windows/setup.bat")
        .replace("\r\n", "\n")
        .replace("echo done", "echo finished");
    std::fs::write(&bundle, serde_json::to_vec(&serde_json::json!({"root": ".", "files": [{"path": "windows/setup.bat", "content": content}]})).unwrap()).unwrap();
    let out = run(ws.path(), "apply", &[bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let after = std::fs::read_to_string(ws.path().join("windows/setup.bat")).unwrap();
    assert_eq!(
        after,
        original("windows/setup.bat").replace("echo done", "echo finished")
    );
}

#[test]
fn malformed_bundles_name_the_json_path() {
    let problems = input_problems("bundle-malformed.json");
    assert_eq!(
        problems,
        vec![
            "files[0].operation: expected \"create\", \"replace\", \"delete\", \"patch\" or \"gitPatch\", found \"overwrite\"",
            "files[1].content: required for create: the entire file content",
        ]
    );
}

#[test]
fn structured_replacements_apply_in_order_including_replace_all() {
    let (ws, code, out) = apply("structured-clean.json", &[]);
    assert_eq!(code, 0, "{out}");
    let app = original("src/app.py")
        .replace(
            "print(\"loaded\", len(self.items), \"items\")",
            "log.info(\"loaded %d items\", len(self.items))",
        )
        .replace(
            "raise ValueError(\"not enough \" + name)",
            "raise ValueError(f\"not enough {name}: {current} left, {quantity} asked\")",
        );
    assert_eq!(read(&ws, "src/app.py"), app);
    assert_eq!(
        read(&ws, "src/inventory.toml"),
        original("src/inventory.toml").replace("\"info\"", "\"debug\"")
    );
}

#[test]
fn a_structured_find_that_occurs_twice_is_ambiguous_and_one_missing_is_not_found() {
    let r = report("structured-conflicting.json");
    assert_eq!(kinds(&r), vec!["ambiguous", "not_found"]);
    // The changes keep the author's order of the replacements, placed or not.
    let descriptions: Vec<&str> = r["files"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["description"].as_str().unwrap())
        .collect();
    assert!(
        descriptions[0].starts_with("replacement 1:")
            && descriptions[1].starts_with("replacement 2:")
            && descriptions[2].starts_with("replacement 3:"),
        "{descriptions:?}"
    );
    let ambiguous = &r["files"][0]["changes"][0]["problems"][0]["message"];
    assert!(
        ambiguous.as_str().unwrap().contains("at lines 22, 27"),
        "{ambiguous}"
    );
    let (ws, code, _) = apply("structured-conflicting.json", &[]);
    assert_eq!(code, 1);
    assert_untouched(&ws);
}

#[test]
fn a_structured_replacement_that_matches_text_an_earlier_one_wrote_works_in_order() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("s.json");
    std::fs::write(&input, serde_json::to_vec(&serde_json::json!({"root": ".", "patches": [{"path": "src/inventory.toml", "replacements": [
        {"find": "max_items = 100", "replace": "max_items = 250"},
        {"find": "250", "replace": "300"}]}]})).unwrap()).unwrap();
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/inventory.toml")).unwrap(),
        original("src/inventory.toml").replace("100", "300")
    );
}

#[test]
fn malformed_structured_patches_name_every_problem() {
    let problems = input_problems("structured-malformed.json");
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[1].starts_with("patches[0].replacements[1].limit: expected \"once\" or \"all\"")
    );
}

#[test]
fn patch_tool_calls_replace_tolerantly_copy_with_clipboards_reindent_and_create() {
    let (ws, code, out) = apply("edits-clean.json", &[]);
    assert_eq!(code, 0, "{out}");
    let utils = read(&ws, "src/Utils.py");
    assert!(
        utils.contains("    value = int(text.strip())\n    if value < 0:\n"),
        "re-indented by the matched shift: {utils}"
    );
    assert!(
        utils.ends_with("    return value\n\n\n# Copied from app.py for reference:\n"),
        "{utils:?}"
    );
    // The clipboard held the matched save() text; reindent stripped four spaces.
    assert_eq!(
        read(&ws, "docs/notes/reference.py"),
        "def save(self):\n    with open(self.path, \"w\") as handle:\n        json.dump(self.items, handle)\n"
    );
    let r = report("edits-clean.json");
    let tiers: Vec<&str> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["match"].as_str().unwrap())
        })
        .collect();
    assert!(tiers.contains(&"indent"), "{tiers:?}");
}

#[test]
fn one_failed_patch_fails_its_whole_call() {
    let r = report("edits-conflicting.json");
    assert_eq!(kinds(&r), vec!["ambiguous", "ambiguous", "call_failed"]);
    let (ws, code, _) = apply("edits-conflicting.json", &[]);
    assert_eq!(code, 1);
    assert_untouched(&ws);
}

#[test]
fn missing_clipboards_and_failed_reindent_preconditions_are_errors() {
    let problems = input_problems("edits-malformed.json");
    assert!(
        problems[0].contains("clipboard \"never-stored\" does not exist"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("patches[1].reindent: strip precondition failed: line 2"),
        "{problems:?}"
    );
}

#[test]
fn a_missing_file_takes_only_append_prepend_and_overwrite() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.json");
    std::fs::write(&input, serde_json::to_vec(&serde_json::json!([
        {"path": "new/dir/a.txt", "patches": [{"operation": "append_eof", "newText": "two\n"}, {"operation": "prepend_bof", "newText": "one\n"}]},
        {"path": "new/b.txt", "patches": [{"operation": "replace", "oldText": "x", "newText": "y"}]}
    ])).unwrap()).unwrap();
    let out = run(ws.path(), "check", &["--json", input.to_str().unwrap()]);
    let r = common::json_out(&out);
    assert_eq!(kinds(&r), vec!["not_found"]);
    assert!(r["files"][1]["changes"][0]["problems"][0]["message"]
        .as_str()
        .unwrap()
        .contains("allows only append_eof, prepend_bof and overwrite"));
    let out = run(
        ws.path(),
        "apply",
        &["--reject", "new/b.txt", input.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("new/dir/a.txt")).unwrap(),
        "one\ntwo\n"
    );
}

#[test]
fn the_same_clipboard_name_for_both_is_a_copy() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.json");
    std::fs::write(&input, serde_json::to_vec(&serde_json::json!({"path": "src/inventory.toml", "patches": [
        {"operation": "replace", "oldText": "log_level = \"info\"", "toClipboard": "c", "fromClipboard": "c", "newText": "ignored"}
    ]})).unwrap()).unwrap();
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/inventory.toml")).unwrap(),
        original("src/inventory.toml")
    );
    let _ = sample("edits-clean.json");
}

#[test]
fn a_clipboard_copy_found_with_the_indent_tier_leaves_the_text_as_it_is() {
    // The find is written four spaces less indented than the file: the indent tier matches.
    // The clipboard then holds the file's text; the copy must not shift it a second time.
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.json");
    std::fs::write(
        &input,
        serde_json::to_vec(&serde_json::json!({"path": "src/app.py", "patches": [
            {"operation": "replace",
             "oldText": "def save(self):\n    with open(self.path, \"w\") as handle:\n",
             "toClipboard": "c", "fromClipboard": "c"}
        ]}))
        .unwrap(),
    )
    .unwrap();
    let r = json_out(&run(
        ws.path(),
        "check",
        &["--json", input.to_str().unwrap()],
    ));
    assert_eq!(r["files"][0]["changes"][0]["match"], "indent", "{r}");
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(read(&ws, "src/app.py"), original("src/app.py"));
}

#[test]
fn a_later_call_for_the_same_file_is_placed_against_what_the_earlier_calls_wrote() {
    // REQ-PATCH-002 makes the patches of one call simultaneous; calls follow one another (as
    // their clipboards do), so the second call may replace what the first one wrote.
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.json");
    std::fs::write(&input, serde_json::to_vec(&serde_json::json!([
        {"path": "src/app.py", "patches": [
            {"operation": "replace", "oldText": "print(\"loaded\", len(self.items), \"items\")", "newText": "log.info(\"loaded\")"}]},
        {"path": "new/notes.md", "patches": [{"operation": "overwrite", "newText": "# Notes\n"}]},
        {"path": "src/app.py", "patches": [
            {"operation": "replace", "oldText": "log.info(\"loaded\")", "newText": "log.debug(\"loaded %d\", len(self.items))"},
            {"operation": "append_eof", "newText": "# end\n"}]},
        {"path": "new/notes.md", "patches": [{"operation": "replace", "oldText": "# Notes", "newText": "# Release notes"}]}
    ])).unwrap()).unwrap();
    let r = json_out(&run(
        ws.path(),
        "check",
        &["--json", input.to_str().unwrap()],
    ));
    assert_eq!(r["summary"]["conflicts"], 0, "{r}");
    assert_eq!(kinds(&r), Vec::<String>::new(), "{r}");
    assert_eq!(r["files"].as_array().unwrap().len(), 2, "{r}");
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let expected = original("src/app.py").replace(
        "print(\"loaded\", len(self.items), \"items\")",
        "log.debug(\"loaded %d\", len(self.items))",
    ) + "# end\n";
    assert_eq!(read(&ws, "src/app.py"), expected);
    assert_eq!(read(&ws, "new/notes.md"), "# Release notes\n");
}

#[test]
fn two_bundle_entries_for_one_file_block() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("b.json");
    std::fs::write(
        &input,
        serde_json::to_vec(&serde_json::json!({"root": ".", "files": [
            {"path": "notes/new.md", "content": "one\n"},
            {"path": "notes/NEW.md", "content": "two\n"}
        ]}))
        .unwrap(),
    )
    .unwrap();
    let r = json_out(&run(
        ws.path(),
        "check",
        &["--json", input.to_str().unwrap()],
    ));
    assert_eq!(kinds(&r), vec!["same_file_twice", "same_file_twice"], "{r}");
    assert_eq!(r["files"][0]["problems"][0]["blocking"], true, "{r}");
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_untouched(&ws);
}

#[test]
fn two_structured_entries_for_one_file_apply_in_order() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("s.json");
    std::fs::write(&input, serde_json::to_vec(&serde_json::json!({"root": ".", "patches": [
        {"path": "src/inventory.toml", "replacements": [{"find": "\"info\"", "replace": "\"debug\""}]},
        {"path": "src/inventory.toml", "replacements": [{"find": "\"debug\"", "replace": "\"trace\""}]}
    ]})).unwrap()).unwrap();
    let r = json_out(&run(
        ws.path(),
        "check",
        &["--json", input.to_str().unwrap()],
    ));
    assert_eq!(kinds(&r), Vec::<String>::new(), "{r}");
    let out = run(ws.path(), "apply", &[input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(
        read(&ws, "src/inventory.toml"),
        original("src/inventory.toml").replace("\"info\"", "\"trace\"")
    );
}

/// The formats that find their changes in the file as read pin the file to it: the report's
/// `expectedSha256` of every file they modify (and of a file a bundle deletes) is the SHA-256
/// of its bytes (hashed together once the batch is read, so a later change to the file is a
/// conflict, as for TUL-002). A file Codex moves is not pinned: its lines are moved as read.
#[test]
fn formats_that_read_the_file_pin_it_to_the_bytes_they_read() {
    for name in [
        "bundle-clean.json",
        "structured-clean.json",
        "edits-clean.json",
        "codex-clean.patch",
        "aider-clean.md",
    ] {
        let r = report(name);
        let files = r["files"].as_array().unwrap();
        let pinned: Vec<&serde_json::Value> = files
            .iter()
            .filter(|f| {
                f["action"] == "modify" || (name.starts_with("bundle") && f["action"] == "delete")
            })
            .collect();
        assert!(!pinned.is_empty(), "{name}: {r}");
        for file in pinned {
            let path = file["path"].as_str().unwrap();
            assert_eq!(
                file["expectedSha256"].as_str(),
                Some(common::sha(original(path).as_bytes()).as_str()),
                "{name}: {path}"
            );
        }
    }
}
