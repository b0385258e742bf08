//! No claim the evidence does not carry: a change is called applied only when its new lines
//! stand where the changes around it say they would once it is, moved only where it does not
//! cross them, and two changes are never taken over the same lines. Each case is one an
//! adversarial reading of the judgement found, held to what `check` says and what `apply`
//! writes.

use crate::common::reviewer::open_input;
use crate::common::{json_out, patchdeck, sha, stdout, user_tree, workspace_with};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

fn check(ws: &Path, batch: &Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batch.json");
    fs::write(&path, batch.to_string()).unwrap();
    let out = patchdeck(&[
        "check",
        "--json",
        "--root",
        ws.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    json_out(&out)
}

/// Each change's status, its first problem's kind and its `foundAt`, by key.
fn said(report: &Value) -> Vec<(String, String, String, Value)> {
    report["files"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap_or_default().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
                c["problems"][0]["kind"].as_str().unwrap_or("").to_owned(),
                c["problems"][0]["foundAt"].clone(),
            )
        })
        .collect()
}

fn tul002(base: &str, changes: Value) -> Value {
    json!({"files": [{"docPath": "m.py", "originalSha256": sha(base.as_bytes()), "changes": changes}]})
}

/// The person edited the line a replacement expects, and its new line happens to stand in
/// another function: that is no proof it was applied. It stays a conflict.
#[test]
fn new_lines_standing_elsewhere_are_not_proof_a_change_was_applied() {
    let base = "def a(x):\n    return None\n\ndef b(x):\n    return x.value\n";
    let now = "def a(x):\n    return None\n\ndef b(x):\n    return x.value if x else 0\n";
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        base,
        json!([{"changeKey": "b-none", "operation": "replace", "startLine": 5, "endLine": 5,
            "expectedOriginalLines": ["    return x.value"], "newLines": ["    return None"]}]),
    );
    let report = check(ws.path(), &batch);
    assert_eq!(
        said(&report),
        [(
            "b-none".into(),
            "conflict".into(),
            "expected_mismatch".into(),
            Value::Null
        )]
    );
}

/// An insertion of a blank line where one already stands, between changes that stand where
/// they say: applied, it would have moved the change after it one line down. It is not called
/// applied; in a changed file its place cannot be checked, and it blocks until decided.
#[test]
fn an_insertion_is_not_applied_when_the_change_after_it_did_not_move() {
    let base = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";
    let now = "def a():\n    return 10\n\ndef b():\n    return 2\n\ndef c():\n    return 30\n# trailing note\n";
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        base,
        json!([
            {"changeKey": "one", "operation": "replace", "startLine": 2, "endLine": 2,
             "expectedOriginalLines": ["    return 1"], "newLines": ["    return 10"]},
            {"changeKey": "blank", "operation": "insert", "afterLine": 2, "newLines": [""]},
            {"changeKey": "three", "operation": "replace", "startLine": 8, "endLine": 8,
             "expectedOriginalLines": ["    return 3"], "newLines": ["    return 30"]}
        ]),
    );
    let report = check(ws.path(), &batch);
    let kinds: Vec<String> = said(&report).into_iter().map(|s| s.2).collect();
    assert_eq!(
        kinds,
        ["already_applied", "unverified_position", "already_applied"]
    );
}

/// A deletion whose lines the person edited (a comment appended) is not applied, though the
/// changes on both sides are: its lines nearly stand at its place.
#[test]
fn a_deletion_of_edited_lines_is_not_called_applied() {
    let base = "def compute_total(items, include_tax):\n    total = 0\n    debug_dump(items)\n    log_everything(items)\n    for item in items:\n        total += item.price * item.quantity_in_stock\n    return total\n";
    let now = "def compute_total(items: list[Item], include_tax: bool) -> Decimal:\n    total = 0\n    debug_dump(items, verbose=True)\n    log_everything(items)  # keep for the audit\n    for item in items:\n        total += item.price * item.quantity\n    return total\n";
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        base,
        json!([
            {"changeKey": "sig", "operation": "replace", "startLine": 1, "endLine": 1,
             "expectedOriginalLines": ["def compute_total(items, include_tax):"],
             "newLines": ["def compute_total(items: list[Item], include_tax: bool) -> Decimal:"]},
            {"changeKey": "drop-debug", "operation": "delete", "startLine": 3, "endLine": 4,
             "expectedOriginalLines": ["    debug_dump(items)", "    log_everything(items)"]},
            {"changeKey": "body", "operation": "replace", "startLine": 6, "endLine": 6,
             "expectedOriginalLines": ["        total += item.price * item.quantity_in_stock"],
             "newLines": ["        total += item.price * item.quantity"]}
        ]),
    );
    let report = check(ws.path(), &batch);
    let statuses: Vec<(String, String)> = said(&report)
        .into_iter()
        .map(|(_, status, kind, _)| (status, kind))
        .collect();
    assert_eq!(
        statuses[1],
        ("conflict".to_owned(), "expected_mismatch".to_owned())
    );
}

/// The person rewrote `load_orders`; the same query stands in `archive_orders`, past the
/// invoices change that stands where it says. The change is not moved past its neighbour,
/// and no hint offers `--relocate`.
#[test]
fn a_change_never_moves_past_the_change_after_it() {
    let query = |table: &str| {
        format!("    rows = db.query(\"SELECT * FROM {table} WHERE customer_id = ?\", customer.id)")
    };
    let limited = |table: &str| query(table).replace(" = ?\"", " = ? LIMIT 100\"");
    let base = format!(
        "def load_orders(db, customer):\n{}\n    return [Order.from_row(r) for r in rows]\n\ndef load_invoices(db, customer):\n{}\n    return [Invoice.from_row(r) for r in rows]\n",
        query("orders"),
        query("invoices")
    );
    let now = format!(
        "def load_orders(db, customer):\n    rows = Order.objects.filter(customer=customer)\n    return [Order.from_row(r) for r in rows]\n\ndef load_invoices(db, customer):\n{}\n    return [Invoice.from_row(r) for r in rows]\n\ndef archive_orders(db, customer):\n{}\n    for r in rows:\n        db.archive(r)\n",
        query("invoices"),
        query("orders")
    );
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        &base,
        json!([
            {"changeKey": "orders-limit", "operation": "replace", "startLine": 2, "endLine": 2,
             "expectedOriginalLines": [query("orders")], "newLines": [limited("orders")]},
            {"changeKey": "invoices-limit", "operation": "replace", "startLine": 6, "endLine": 6,
             "expectedOriginalLines": [query("invoices")], "newLines": [limited("invoices")]}
        ]),
    );
    let report = check(ws.path(), &batch);
    let orders = &report["files"][0]["changes"][0]["problems"][0];
    assert_eq!(orders["foundAt"], Value::Null, "{orders}");
    let message = orders["message"].as_str().unwrap();
    assert!(
        message.contains("found at line 10") && message.contains("does not move past another"),
        "{message}"
    );
    let blocked = report["files"][0]["problems"][0]["message"]
        .as_str()
        .unwrap();
    assert!(!blocked.contains("--relocate"), "{blocked}");
}

/// One short line, found once in another function, with no change around it placed: weak,
/// so not taken; the report still says where it was found.
#[test]
fn one_short_line_found_once_elsewhere_is_not_taken() {
    let base = "def total(xs):\n    s = sum(xs)\n    return s\n";
    let now = "def total(xs):\n    return math.fsum(xs)\n\ndef other(ys):\n    s = [y * 2 for y in ys]\n    return s\n";
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        base,
        json!([{"changeKey": "ret", "operation": "replace", "startLine": 3, "endLine": 3,
            "expectedOriginalLines": ["    return s"], "newLines": ["    return round(s, 2)"]}]),
    );
    let report = check(ws.path(), &batch);
    let problem = &report["files"][0]["changes"][0]["problems"][0];
    assert_eq!(problem["foundAt"], Value::Null);
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("found at line 6 (+3 lines), not taken"),
        "{problem}"
    );
}

/// Two changes expecting the same long line, one copy of which the person removed: both find
/// the one that is left, and neither is taken there, for both cannot be written over it.
#[test]
fn two_changes_are_never_taken_over_the_same_lines() {
    let line = "    result = compute_everything(config, inputs, outputs)";
    let base = format!("def a():\n{line}\n\ndef b():\n{line}\n");
    let now = format!("def a():\n    pass\n\ndef b():\n{line}\n");
    let ws = workspace_with(&[("m.py", now.as_bytes())]);
    let batch = tul002(
        &base,
        json!([
            {"changeKey": "a", "operation": "replace", "startLine": 2, "endLine": 2,
             "expectedOriginalLines": [line], "newLines": ["    result = None"]},
            {"changeKey": "b", "operation": "replace", "startLine": 5, "endLine": 5,
             "expectedOriginalLines": [line], "newLines": ["    result = 0"]}
        ]),
    );
    let report = check(ws.path(), &batch);
    for (key, status, _, found_at) in said(&report) {
        // The second stands where it says; the first is not moved over it.
        if key == "a" {
            assert_eq!((status.as_str(), found_at), ("conflict", Value::Null));
        }
    }
}

/// A diff whose hunks add and remove lines, applied, then checked and applied again: every
/// hunk is applied already (measured with the lines the earlier hunks added and removed),
/// exit 0, and nothing is written.
#[test]
fn a_diff_applied_whole_is_applied_again_as_nothing() {
    let file: String = (1..=70).map(|n| format!("l{n:02}\n")).collect();
    let diff = "--- a/f.txt\n+++ b/f.txt\n\
        @@ -3,6 +3,9 @@\n l03\n l04\n l05\n+n1\n+n2\n+n3\n l06\n l07\n l08\n\
        @@ -27,11 +30,6 @@\n l27\n l28\n l29\n-l30\n-l31\n-l32\n-l33\n-l34\n l35\n l36\n l37\n\
        @@ -57,7 +55,7 @@\n l57\n l58\n l59\n-l60\n+QQQ\n l61\n l62\n l63\n";
    let ws = workspace_with(&[("f.txt", file.as_bytes())]);
    let dir = tempfile::tempdir().unwrap();
    let patch = dir.path().join("d.patch");
    fs::write(&patch, diff).unwrap();
    let root = ws.path().to_str().unwrap();
    let patch = patch.to_str().unwrap();
    let first = patchdeck(&["apply", "--root", root, patch]);
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let written = user_tree(ws.path());
    let again = patchdeck(&["check", "--json", "--root", root, patch]);
    assert_eq!(again.status.code(), Some(0), "{}", stdout(&again));
    let kinds: Vec<String> = said(&json_out(&again))
        .into_iter()
        .map(|(_, status, kind, _)| format!("{status} {kind}"))
        .collect();
    assert!(kinds.iter().all(|k| k.starts_with("ok")), "{kinds:?}");
    let applied = patchdeck(&["apply", "--root", root, patch]);
    assert_eq!(applied.status.code(), Some(0), "{}", stdout(&applied));
    assert_eq!(user_tree(ws.path()), written, "nothing written again");
}

/// A hunk whose lines run past the end of the file cannot be taken over the lines there (there
/// are fewer than it replaces), so `T` is not offered for it.
#[test]
fn a_hunk_past_the_end_of_the_file_cannot_be_taken_over() {
    let file = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    let ws = workspace_with(&[("f.txt", file.as_bytes())]);
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -6,4 +6,4 @@\n six\n-SEVEN\n+7\n eight\n nine\n";
    let app = open_input(ws.path(), "d.patch", diff.as_bytes());
    let at = app.flat[0];
    assert_eq!(
        app.review().change(at).check.status,
        patchdeck::verify::Status::Conflict
    );
    assert!(app.review().take_over_refusal(at).is_some());
    assert!(app.review().edit_refusal(at).is_some());
}
