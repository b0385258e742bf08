//! `patchdeck mcp` as a coding agent meets it: rmcp's client, the real binary over stdio, a
//! temporary workspace. The tools and their schemas; a read; writes that verify, that are
//! stale and that are invalid; a path outside the root; each unattended policy.

use crate::common::mcp::{Agent, Answer};
use crate::common::{batch_file, patchdeck, sha, stderr, user_tree, workspace_with};
use serde_json::{json, Value};
use std::fs;

pub(crate) const APP: &[u8] = b"def load():\n    return []\n\ndef save(items):\n    pass\n";
pub(crate) const NOTES: &[u8] = b"first\nsecond\n";

/// A batch of two files: `app.py` gets a docstring and a new body for `save`, `notes.txt` a
/// third line; every change verifies against [`APP`] and [`NOTES`].
pub(crate) fn clean_batch() -> Value {
    json!({
        "batchKey": "docs-and-save",
        "batchLabel": "Document load, implement save",
        "files": [
            {"fileKey": "app", "docPath": "app.py", "originalSha256": sha(APP), "changes": [
                {"changeKey": "doc-load", "operation": "insert", "afterLine": 1,
                 "newLines": ["    \"\"\"Load the items.\"\"\""]},
                {"changeKey": "save-body", "operation": "replace", "startLine": 5, "endLine": 5,
                 "expectedOriginalLines": ["    pass"], "newLines": ["    return list(items)"]}
            ]},
            {"fileKey": "notes", "docPath": "notes.txt", "originalSha256": sha(NOTES), "changes": [
                {"changeKey": "third", "operation": "insert", "afterLine": 2, "newLines": ["third"]}
            ]}
        ]
    })
}

const APP_WRITTEN: &[u8] =
    b"def load():\n    \"\"\"Load the items.\"\"\"\n    return []\n\ndef save(items):\n    return list(items)\n";

/// [`clean_batch`] with `notes.txt` written against lines that are not there: its file's
/// SHA-256 and its expected lines are stale, while `app.py` still verifies.
fn stale_batch() -> Value {
    let mut batch = clean_batch();
    batch["files"][1] = json!({"fileKey": "notes", "docPath": "notes.txt",
        "originalSha256": sha(b"first\nsecnd\n"), "changes": [
        {"changeKey": "fix-second", "operation": "replace", "startLine": 2, "endLine": 2,
         "expectedOriginalLines": ["secnd"], "newLines": ["2nd"]}
    ]});
    batch
}

pub(crate) fn workspace() -> tempfile::TempDir {
    workspace_with(&[("app.py", APP), ("notes.txt", NOTES)])
}

fn files_of(answer: &Answer) -> &Vec<Value> {
    answer.structured["files"].as_array().unwrap()
}

#[tokio::test]
async fn tools_are_listed_with_their_input_and_output_schemas() {
    let dir = workspace();
    let agent = Agent::start(dir.path(), &[]).await;
    let tools = agent.tools().await;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "apply_patch",
            "submit_patch",
            "workspace_read_file",
            "workspace_write_patch"
        ]
    );
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap();
    let required = |schema: &serde_json::Map<String, Value>| -> Vec<String> {
        schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_owned())
            .collect()
    };
    // The write tool's arguments are the TUL-002 batch itself.
    let write = tool("workspace_write_patch");
    assert_eq!(required(&write.input_schema), ["files"]);
    let file = &write.input_schema["properties"]["files"]["items"];
    assert_eq!(
        file["required"],
        json!(["docPath", "originalSha256", "changes"])
    );
    assert_eq!(
        file["properties"]["changes"]["items"]["properties"]["operation"]["enum"],
        json!(["insert", "replace", "delete"])
    );
    assert_eq!(required(&tool("apply_patch").input_schema), ["input"]);
    assert_eq!(required(&tool("submit_patch").input_schema), ["patch"]);
    assert_eq!(
        required(&tool("workspace_read_file").input_schema),
        ["docPath"]
    );
    // Every write answers in the TUL-002 response form, described by one output schema.
    for name in ["workspace_write_patch", "apply_patch", "submit_patch"] {
        let output = tool(name).output_schema.as_ref().unwrap();
        for field in ["batchId", "files", "committed", "summary", "message"] {
            assert!(
                required(output).contains(&field.to_owned()),
                "{name}: {field}"
            );
        }
        let change = &output["$defs"]["ChangeResult"];
        assert!(change["required"]
            .as_array()
            .unwrap()
            .contains(&json!("changeId")));
    }
    let read = tool("workspace_read_file").output_schema.as_ref().unwrap();
    assert_eq!(
        required(read),
        [
            "docPath",
            "path",
            "sha256",
            "lineCount",
            "startLine",
            "endLine",
            "lines"
        ]
    );
    assert_eq!(
        tool("workspace_read_file")
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint),
        Some(true)
    );
    agent.stop().await;
}

#[tokio::test]
async fn read_gives_numbered_lines_the_whole_files_sha256_and_line_count() {
    let dir = workspace();
    let agent = Agent::start(dir.path(), &[]).await;
    let whole = agent
        .call("workspace_read_file", json!({"docPath": "app.py"}))
        .await;
    assert!(!whole.is_error, "{}", whole.text);
    assert_eq!(whole.structured["sha256"], sha(APP));
    assert_eq!(whole.structured["lineCount"], 5);
    assert_eq!(
        whole.structured["lines"],
        json!([
            "def load():",
            "    return []",
            "",
            "def save(items):",
            "    pass"
        ])
    );
    assert!(whole.text.contains("     5\t    pass\n"), "{}", whole.text);
    // Part of it: the SHA-256 and the count are still the whole file's.
    let part = agent
        .call(
            "workspace_read_file",
            json!({"docPath": "app.py", "startLine": 4, "endLine": 5}),
        )
        .await;
    assert_eq!(part.structured["sha256"], sha(APP));
    assert_eq!(part.structured["lineCount"], 5);
    assert_eq!(part.structured["startLine"], 4);
    assert_eq!(
        part.structured["lines"],
        json!(["def save(items):", "    pass"])
    );
    assert!(
        part.text
            .contains("     4\tdef save(items):\n     5\t    pass\n"),
        "{}",
        part.text
    );
    let past = agent
        .call(
            "workspace_read_file",
            json!({"docPath": "app.py", "startLine": 9}),
        )
        .await;
    assert!(past.is_error, "{past:#?}");
    assert!(past.text.contains("has 5 line(s)"), "{}", past.text);
    agent.stop().await;
}

#[tokio::test]
async fn paths_a_batch_refuses_are_refused_by_the_read_and_the_write() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let dir = workspace();
    fs::create_dir(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("link.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink("notes.txt", dir.path().join("inner.txt")).unwrap();
    let before = user_tree(dir.path());
    let agent = Agent::start(dir.path(), &["--unattended", "verified"]).await;
    let escape = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    for (path, kind) in [
        (escape.as_str(), "path_outside_root"),
        ("/etc/hostname", "path_outside_root"),
        (".git/config", "protected_path"),
        ("link.txt", "path_outside_root"),
        ("inner.txt", "symlink"),
    ] {
        let read = agent
            .call("workspace_read_file", json!({"docPath": path}))
            .await;
        assert!(read.is_error, "{path}: {read:#?}");
        assert!(read.text.contains(kind), "{path}: {}", read.text);
        assert!(!read.text.contains("secret\n"), "{path}: {}", read.text);
        // A write there is refused as `patchdeck apply` refuses it, even with a policy that
        // writes what verifies.
        let batch = json!({"files": [{"docPath": path, "originalSha256": sha(b"secret\n"),
            "changes": [{"operation": "replace", "startLine": 1, "endLine": 1,
                         "expectedOriginalLines": ["secret"], "newLines": ["mine"]}]}]});
        let write = agent.call("workspace_write_patch", batch).await;
        assert!(!write.is_error, "{path}: {}", write.text);
        assert_eq!(write.structured["committed"], false, "{path}");
        let problems = &files_of(&write)[0]["problems"];
        assert_eq!(problems[0]["kind"], kind, "{path}: {problems}");
        assert_ne!(write.outcomes(), ["applied"], "{path}");
    }
    agent.stop().await;
    assert_eq!(user_tree(dir.path()), before);
    assert_eq!(
        fs::read(outside.path().join("secret.txt")).unwrap(),
        b"secret\n"
    );
}

#[tokio::test]
async fn refuse_writes_nothing_and_says_no_reviewer_is_waiting() {
    let dir = workspace();
    let before = user_tree(dir.path());
    // `refuse` is the default.
    let agent = Agent::start(dir.path(), &[]).await;
    let answer = agent.call("workspace_write_patch", clean_batch()).await;
    agent.stop().await;
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(user_tree(dir.path()), before);
    assert!(
        !dir.path().join(".patchdeck").exists(),
        "nothing written at all"
    );
    let result = &answer.structured;
    assert_eq!(result["committed"], false);
    assert_eq!(result["unattended"], "refuse");
    assert_eq!(answer.outcomes(), ["not_reviewed"; 3]);
    for said in [
        "no reviewer is waiting",
        "start the reviewer in a terminal in the workspace (`patchdeck gate`), then call again",
        "--unattended verified",
    ] {
        assert!(answer.text.contains(said), "{said}: {}", answer.text);
        assert!(result["message"].as_str().unwrap().contains(said));
    }
    assert!(result.get("undo").is_none());
    // Where no gate was found, in case the person expected one.
    let warnings = result["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("no patchdeck gate listens for "),
        "{warnings:?}"
    );
    // The TUL-002 response: IDs assigned, the model's keys echoed.
    assert!(result["batchId"].as_str().unwrap().starts_with("batch-"));
    assert_eq!(result["batchKey"], "docs-and-save");
    let files = files_of(&answer);
    assert_eq!(files[0]["fileKey"], "app");
    assert!(files[0]["filePatchId"]
        .as_str()
        .unwrap()
        .starts_with("file-"));
    assert_eq!(files[0]["changes"][1]["changeKey"], "save-body");
    assert!(files[0]["changes"][1]["changeId"]
        .as_str()
        .unwrap()
        .starts_with("chg-"));
}

#[tokio::test]
async fn verified_writes_a_verifying_batch_and_undo_restores_it() {
    let dir = workspace();
    let before = user_tree(dir.path());
    let agent = Agent::start(dir.path(), &["--unattended", "verified"]).await;
    let mut batch = clean_batch();
    batch["priority"] = json!("high");
    let answer = agent.call("workspace_write_patch", batch).await;
    agent.stop().await;
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(answer.outcomes(), ["applied"; 3]);
    let result = &answer.structured;
    assert_eq!(result["committed"], true);
    assert_eq!(result["summary"]["applied"], 3);
    assert!(result.get("feedback").is_none(), "everything was applied");
    // What `check` would warn of, the model hears.
    let warnings = result["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("priority")),
        "{warnings:?}"
    );
    assert_eq!(fs::read(dir.path().join("app.py")).unwrap(), APP_WRITTEN);
    assert_eq!(
        fs::read(dir.path().join("notes.txt")).unwrap(),
        b"first\nsecond\nthird\n"
    );
    let written = result["written"].as_array().unwrap();
    assert_eq!(written.len(), 2);
    assert_eq!(written[0]["sha256"], sha(APP_WRITTEN));
    let undo = result["undo"].as_str().unwrap();
    assert!(undo.starts_with("patchdeck undo --root "), "{undo}");
    // The commit is `patchdeck apply`'s: `patchdeck undo` takes it back.
    let out = patchdeck(&["undo", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_tree(dir.path()), before);
}

#[tokio::test]
async fn a_stale_change_is_a_conflict_with_what_is_on_disk_under_either_policy() {
    for policy in ["refuse", "verified"] {
        let dir = workspace();
        let agent = Agent::start(dir.path(), &["--unattended", policy]).await;
        let answer = agent.call("workspace_write_patch", stale_batch()).await;
        agent.stop().await;
        assert!(!answer.is_error, "{policy}: {}", answer.text);
        let stale = &files_of(&answer)[1];
        assert_eq!(stale["problems"][0]["kind"], "sha_mismatch", "{policy}");
        let change = &stale["changes"][0];
        assert_eq!(change["outcome"], "conflict", "{policy}");
        assert_eq!(change["changeKey"], "fix-second");
        assert_eq!(change["problems"][0]["kind"], "expected_mismatch");
        assert_eq!(change["onDisk"]["lines"], json!(["first", "second"]));
        assert_eq!(change["onDisk"]["markedStart"], 2);
        // The feedback `patchdeck feedback` writes, for the model to write the change again.
        let feedback = answer.structured["feedback"].as_str().unwrap();
        assert!(feedback.contains("`fix-second`"), "{feedback}");
        assert!(answer.text.contains(feedback));
        assert_eq!(
            fs::read(dir.path().join("notes.txt")).unwrap(),
            NOTES,
            "{policy}"
        );
        match policy {
            "refuse" => {
                assert_eq!(
                    answer.outcomes(),
                    ["not_reviewed", "not_reviewed", "conflict"]
                );
                assert_eq!(answer.structured["committed"], false);
                assert_eq!(fs::read(dir.path().join("app.py")).unwrap(), APP);
            }
            _ => {
                // What verifies is written, atomically; the rest is returned.
                assert_eq!(answer.outcomes(), ["applied", "applied", "conflict"]);
                assert_eq!(answer.structured["committed"], true);
                assert_eq!(answer.structured["summary"]["conflict"], 1);
                assert_eq!(fs::read(dir.path().join("app.py")).unwrap(), APP_WRITTEN);
            }
        }
    }
}

#[tokio::test]
async fn a_batch_written_twice_is_already_applied_the_second_time() {
    let dir = workspace();
    let agent = Agent::start(dir.path(), &["--unattended", "verified"]).await;
    let first = agent.call("workspace_write_patch", clean_batch()).await;
    assert_eq!(first.outcomes(), ["applied"; 3]);
    // The same replacement, written against the file as it is now.
    let again = json!({"files": [{"docPath": "app.py", "originalSha256": sha(APP_WRITTEN),
        "changes": [{"changeKey": "save-body", "operation": "replace", "startLine": 6, "endLine": 6,
                     "expectedOriginalLines": ["    pass"], "newLines": ["    return list(items)"]}]}]});
    let second = agent.call("workspace_write_patch", again).await;
    agent.stop().await;
    assert_eq!(second.outcomes(), ["already_applied"], "{}", second.text);
    assert_eq!(second.structured["committed"], false);
    assert_eq!(fs::read(dir.path().join("app.py")).unwrap(), APP_WRITTEN);
}

#[tokio::test]
async fn an_invalid_batch_fails_with_the_located_messages_check_gives() {
    let dir = workspace();
    let before = user_tree(dir.path());
    // Overlapping changes and a SHA-256 that is not one.
    let batch = json!({"files": [{"docPath": "app.py", "originalSha256": "not-a-sha",
    "changes": [
        {"operation": "replace", "startLine": 1, "endLine": 2,
         "expectedOriginalLines": ["def load():", "    return []"], "newLines": ["x"]},
        {"operation": "delete", "startLine": 2, "endLine": 2,
         "expectedOriginalLines": ["    return []"]}
    ]}]});
    let agent = Agent::start(dir.path(), &["--unattended", "verified"]).await;
    let answer = agent.call("workspace_write_patch", batch.clone()).await;
    agent.stop().await;
    assert!(answer.is_error, "{answer:#?}");
    assert_eq!(user_tree(dir.path()), before);
    let file = batch_file(&dir, &batch);
    let checked = patchdeck(&[
        "check",
        "--root",
        dir.path().to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(checked.status.code(), Some(2));
    let located = |text: &str, source: &str| -> Vec<String> {
        let prefix = format!("  {source}: ");
        let mut lines: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        lines.sort();
        lines
    };
    let expected = located(&stderr(&checked), file.to_str().unwrap());
    assert!(expected.len() >= 2, "{}", stderr(&checked));
    assert_eq!(located(&answer.text, "workspace_write_patch"), expected);
}

#[tokio::test]
async fn apply_patch_and_submit_patch_write_other_formats_through_the_same_commit() {
    let dir = workspace();
    let agent = Agent::start(dir.path(), &["--unattended", "verified"]).await;
    let codex =
        "*** Begin Patch\n*** Update File: notes.txt\n@@\n first\n-second\n+2nd\n*** End Patch\n";
    let answer = agent.call("apply_patch", json!({"input": codex})).await;
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(answer.structured["format"], "codex");
    assert_eq!(answer.outcomes(), ["applied"]);
    assert_eq!(
        fs::read(dir.path().join("notes.txt")).unwrap(),
        b"first\n2nd\n"
    );
    let diff = "--- a/app.py\n+++ b/app.py\n@@ -4,2 +4,2 @@\n def save(items):\n-    pass\n+    return items\n";
    let answer = agent.call("submit_patch", json!({"patch": diff})).await;
    assert_eq!(answer.structured["format"], "unified", "{}", answer.text);
    assert_eq!(answer.outcomes(), ["applied"]);
    let named = agent
        .call("submit_patch", json!({"patch": diff, "format": "aider"}))
        .await;
    assert!(
        named.is_error,
        "a format named is the format read: {named:#?}"
    );
    agent.stop().await;
    assert_eq!(
        fs::read(dir.path().join("app.py")).unwrap(),
        b"def load():\n    return []\n\ndef save(items):\n    return items\n"
    );
    // Each write was its own commit: undo takes back the last, then the one before.
    for _ in 0..2 {
        let out = patchdeck(&["undo", "--root", dir.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(fs::read(dir.path().join("app.py")).unwrap(), APP);
    assert_eq!(fs::read(dir.path().join("notes.txt")).unwrap(), NOTES);
}

#[test]
fn a_root_that_cannot_be_served_is_said_before_the_protocol_starts() {
    let out = patchdeck(&["mcp", "--root", "/nonexistent/patchdeck-root"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "standard output is the protocol's");
    assert!(stderr(&out).contains("/nonexistent/patchdeck-root"));
}
