//! A batch checked or applied again after part or all of it was committed: what is in the
//! files already is reported as applied (`already_applied`), for every format, wherever it
//! was written (moved with the rest of the file, or partly); re-applying a batch whose
//! changes are all in place writes nothing and exits 0, and one partly applied applies the
//! rest.

use crate::common::{json_out, patchdeck, sha, stderr, stdout, user_tree, workspace_with};
use serde_json::json;
use std::fs;

/// `patchdeck ARGS --root ws BATCH`.
fn run(ws: &std::path::Path, args: &[&str], batch: &std::path::Path) -> std::process::Output {
    let mut all = args.to_vec();
    all.extend(["--root", ws.to_str().unwrap(), batch.to_str().unwrap()]);
    patchdeck(&all)
}

/// Every change of a `check --json` report with its status and the kind of its first
/// problem, in order.
fn statuses(report: &serde_json::Value) -> Vec<(String, String)> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["changes"].as_array().unwrap())
        .map(|c| {
            (
                c["status"].as_str().unwrap().to_owned(),
                c["problems"][0]["kind"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// A module whose lines the batch changes: long lines with identity, and short common ones
/// between them.
fn module() -> String {
    let mut text = String::new();
    for n in 1..=6 {
        text.push_str(&format!(
            "fn handler_{n}(request: &Request, store: &mut Store) -> Result<Response> {{\n    let value = store.get(request.key())?;\n    Ok(Response::new(value))\n}}\n\n"
        ));
    }
    text
}

/// A batch written against `base`, changing three handlers' first lines (with identity) and
/// deleting two short lines that stand in every handler.
fn batch(base: &str) -> serde_json::Value {
    let changes: Vec<serde_json::Value> = [1, 3, 5]
        .iter()
        .flat_map(|&n| {
            let first = (n - 1) * 5 + 1;
            [
                json!({"changeKey": format!("sig-{n}"), "operation": "replace", "startLine": first, "endLine": first,
                    "expectedOriginalLines": [format!("fn handler_{n}(request: &Request, store: &mut Store) -> Result<Response> {{")],
                    "newLines": [format!("pub fn handler_{n}(request: &Request, store: &mut Store) -> Result<Response> {{")]}),
                json!({"changeKey": format!("body-{n}"), "operation": "replace", "startLine": first + 1, "endLine": first + 1,
                    "expectedOriginalLines": ["    let value = store.get(request.key())?;"],
                    "newLines": ["    let value = store.get(request.key()).ok_or(Missing)?;"]}),
            ]
        })
        .collect();
    json!({"files": [{"docPath": "handlers.rs", "originalSha256": sha(base.as_bytes()), "changes": changes}]})
}

/// A batch moved with the file (29 lines the person added above it), written where `--relocate`
/// found each change, then checked and applied again: every change is applied, there is
/// nothing to write, and the feedback says nothing failed.
#[test]
fn a_batch_committed_where_it_was_moved_checks_as_applied_and_writes_nothing() {
    let base = module();
    let added: String = (1..=29)
        .map(|n| format!("// added by the person, line {n}\n"))
        .collect();
    let ws = workspace_with(&[("handlers.rs", format!("{added}{base}").as_bytes())]);
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("batch.json");
    fs::write(&path, batch(&base).to_string()).unwrap();
    let out = run(ws.path(), &["check", "--json"], &path);
    assert_eq!(out.status.code(), Some(1));
    let report = json_out(&out);
    for change in report["files"][0]["changes"].as_array().unwrap() {
        let start = change["startLine"].as_u64().unwrap();
        assert_eq!(change["problems"][0]["foundAt"], start + 29, "{change}");
    }
    let out = run(
        ws.path(),
        &["apply", "--allow-sha-mismatch", "--relocate"],
        &path,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = user_tree(ws.path());
    let out = run(ws.path(), &["check", "--json"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json_out(&out);
    assert_eq!(
        statuses(&report),
        vec![("ok".to_owned(), "already_applied".to_owned()); 6],
        "{report}"
    );
    assert_eq!(report["files"][0]["problems"][0]["kind"], "already_applied");
    let out = run(ws.path(), &["feedback"], &path);
    assert!(
        stdout(&out).contains("of its 6 changes, 6 are applied already"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("did not apply"), "{}", stdout(&out));
    for args in [vec!["apply"], vec!["apply", "--allow-sha-mismatch"]] {
        let out = run(ws.path(), &args, &path);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(user_tree(ws.path()), written, "{args:?} wrote something");
    }
}

/// A diff of three files, two of them applied with `--only`: checked again, their hunks are
/// applied (not `not_found`), and applying the whole diff writes the third alone; once more,
/// nothing.
#[test]
fn a_diff_applied_in_part_is_finished_by_applying_it_again() {
    let ws = workspace_with(&[
        ("a.txt", b"alpha\nbeta\ngamma\n"),
        ("b.txt", b"one\ntwo\nthree\n"),
        ("c.txt", b"red\ngreen\nblue\n"),
    ]);
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("three.diff");
    fs::write(
        &path,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n red\n-green\n+GREEN\n blue\n",
    )
    .unwrap();
    let out = run(
        ws.path(),
        &["apply", "--only", "a.txt", "--only", "b.txt"],
        &path,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        fs::read(ws.path().join("c.txt")).unwrap(),
        b"red\ngreen\nblue\n"
    );
    let out = run(ws.path(), &["check", "--json"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        statuses(&json_out(&out)),
        [
            ("ok", "already_applied"),
            ("ok", "already_applied"),
            ("ok", "")
        ]
        .map(|(s, k)| (s.to_owned(), k.to_owned()))
    );
    let out = run(ws.path(), &["apply"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        fs::read(ws.path().join("a.txt")).unwrap(),
        b"alpha\nBETA\ngamma\n"
    );
    assert_eq!(
        fs::read(ws.path().join("c.txt")).unwrap(),
        b"red\nGREEN\nblue\n"
    );
    let written = user_tree(ws.path());
    let out = run(ws.path(), &["apply"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(user_tree(ws.path()), written);
}

/// A TUL-002 batch applied in part, then again: the part is applied already (its file's
/// SHA-256 explained by it), the rest is written.
#[test]
fn a_batch_applied_in_part_applies_the_rest() {
    let base = module();
    let ws = workspace_with(&[("handlers.rs", base.as_bytes())]);
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("batch.json");
    fs::write(&path, batch(&base).to_string()).unwrap();
    let out = run(
        ws.path(),
        &["apply", "--only", "sig-3", "--only", "body-5"],
        &path,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(ws.path(), &["check", "--json"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let kinds: Vec<String> = statuses(&json_out(&out))
        .into_iter()
        .map(|(_, k)| k)
        .collect();
    assert_eq!(
        kinds,
        ["", "", "already_applied", "", "", "already_applied"]
    );
    let out = run(ws.path(), &["apply"], &path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let now = fs::read_to_string(ws.path().join("handlers.rs")).unwrap();
    assert_eq!(now.matches("pub fn handler_").count(), 3, "{now}");
    assert_eq!(now.matches("ok_or(Missing)").count(), 3, "{now}");
}
