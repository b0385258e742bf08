//! Every TUL-002 validation rule that needs no workspace, with the message it gives.

use crate::common;
use crate::common::{parse, problems};
use patchdeck::model::{FileAction, LineRange, Operation};
use serde_json::{json, Value};

const SHA: &str = "36c711be783d9b300ac893cc57e46038898a84cfa7ed349f6b3fcbdf33a6bab3";

fn batch_with(changes: Value) -> Value {
    json!({"batchKey": "b", "files": [{"fileKey": "f", "docPath": "src/a.py", "originalSha256": SHA, "changes": changes}]})
}

fn one_problem(value: &Value) -> String {
    let found = problems(value);
    assert_eq!(
        found.len(),
        1,
        "expected exactly one problem, got {found:#?}"
    );
    found.into_iter().next().unwrap()
}

#[test]
fn a_well_formed_batch_becomes_the_model() {
    let batch = parse(&batch_with(json!([
        {"changeKey": "ins", "operation": "insert", "afterLine": 0, "newLines": ["a"], "description": "why"},
        {"operation": "replace", "startLine": 2, "endLine": 3, "expectedOriginalLines": ["x", "y"], "newLines": ["z"]},
        {"operation": "delete", "startLine": 5, "endLine": 5, "expectedOriginalLines": ["w"]}
    ])))
    .unwrap();
    assert_eq!(batch.format, "tul002");
    assert_eq!(batch.key.as_deref(), Some("b"));
    let file = &batch.files[0];
    assert_eq!(
        (file.key.as_deref(), file.doc_path.as_str()),
        (Some("f"), "src/a.py")
    );
    assert_eq!(file.action, FileAction::Modify);
    assert_eq!(file.expected_sha256.as_deref(), Some(SHA));
    let ops: Vec<_> = file
        .changes
        .iter()
        .map(|c| (c.operation, c.range))
        .collect();
    assert_eq!(
        ops,
        vec![
            (Operation::Insert, LineRange::after(0)),
            (Operation::Replace, LineRange::inclusive(2, 3)),
            (Operation::Delete, LineRange::inclusive(5, 5)),
        ]
    );
    assert_eq!(file.changes[0].key.as_deref(), Some("ins"));
    assert_eq!(file.changes[0].description.as_deref(), Some("why"));
    assert_eq!(file.changes[2].new_lines, Vec::<String>::new());
}

#[test]
fn files_must_not_be_empty() {
    assert_eq!(
        one_problem(&json!({"files": []})),
        "files: must list at least one file patch"
    );
}

#[test]
fn files_must_be_present() {
    let found = problems(&json!({"batchLabel": "x"}));
    assert!(
        found[0].starts_with("files: required array is missing"),
        "{found:?}"
    );
}

#[test]
fn each_doc_path_appears_once() {
    let file = json!({"docPath": "src/a.py", "originalSha256": SHA, "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["a"]}]});
    let msg = one_problem(&json!({"files": [file.clone(), file]}));
    assert!(msg.starts_with("files[1].docPath:"), "{msg}");
    assert!(msg.contains("names the same file as files[0]"), "{msg}");
}

#[test]
fn doc_paths_differing_only_in_case_are_the_same_file() {
    let change = json!([{"operation": "insert", "afterLine": 0, "newLines": ["a"]}]);
    let msg = one_problem(&json!({"files": [
        {"docPath": "src/a.py", "originalSha256": SHA, "changes": change},
        {"docPath": "SRC/A.py", "originalSha256": SHA, "changes": change}
    ]}));
    assert!(msg.starts_with("files[1].docPath:"), "{msg}");
}

#[test]
fn doc_paths_differing_only_in_unicode_normalisation_are_the_same_file() {
    let change = json!([{"operation": "insert", "afterLine": 0, "newLines": ["a"]}]);
    // "café" precomposed (U+00E9) and decomposed (e + U+0301).
    let msg = one_problem(&json!({"files": [
        {"docPath": "caf\u{e9}.txt", "originalSha256": SHA, "changes": change},
        {"docPath": "cafe\u{301}.txt", "originalSha256": SHA, "changes": change}
    ]}));
    assert!(msg.contains("Unicode normalisation"), "{msg}");
}

#[test]
fn changes_must_not_be_empty() {
    let msg = one_problem(&batch_with(json!([])));
    assert_eq!(
        msg,
        "files[0].changes: in \"src/a.py\": must have at least one change"
    );
}

#[test]
fn operation_must_be_insert_replace_or_delete() {
    let msg = one_problem(&batch_with(
        json!([{"changeKey": "k", "operation": "upsert"}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].operation: in \"src/a.py\", change #1 \"k\": expected \"insert\", \"replace\" or \"delete\", found \"upsert\""
    );
}

#[test]
fn original_sha_must_be_64_hex_digits() {
    for bad in ["abc", &"g".repeat(64), &"a".repeat(65)] {
        let value = json!({"files": [{"docPath": "a", "originalSha256": bad, "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]});
        let msg = one_problem(&value);
        assert!(
            msg.starts_with("files[0].originalSha256: in \"a\": expected 64 hexadecimal digits"),
            "{msg}"
        );
    }
    // Upper-case hex is a SHA-256 too; it is compared in lower case.
    let value = json!({"files": [{"docPath": "a", "originalSha256": SHA.to_uppercase(), "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]});
    assert_eq!(
        parse(&value).unwrap().files[0].expected_sha256.as_deref(),
        Some(SHA)
    );
}

#[test]
fn original_sha_is_required() {
    let msg = one_problem(
        &json!({"files": [{"docPath": "a", "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]}),
    );
    assert_eq!(
        msg,
        "files[0].originalSha256: in \"a\": required string is missing"
    );
}

#[test]
fn after_line_must_be_a_whole_number() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": -1, "newLines": ["x"]}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].afterLine: in \"src/a.py\", change #1: expected a whole number of 0 or more, found -1"
    );
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": 1.5, "newLines": ["x"]}]),
    ));
    assert!(msg.contains("found the fraction 1.5"), "{msg}");
}

#[test]
fn start_line_counts_from_one() {
    let msg = one_problem(&batch_with(
        json!([{"changeKey": "z", "operation": "delete", "startLine": 0, "endLine": 0, "expectedOriginalLines": ["x"]}]),
    ));
    assert_eq!(msg, "files[0].changes[0].startLine: in \"src/a.py\", change #1 \"z\": lines are numbered from 1, found startLine 0");
}

#[test]
fn end_line_must_not_precede_start_line() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "replace", "startLine": 5, "endLine": 4, "expectedOriginalLines": [], "newLines": ["x"]}]),
    ));
    assert!(msg.starts_with("files[0].changes[0].endLine: in \"src/a.py\", change #1: endLine 4 is before startLine 5"), "{msg}");
}

#[test]
fn expected_lines_match_the_range_length() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "delete", "startLine": 3, "endLine": 5, "expectedOriginalLines": ["a"]}]),
    ));
    assert_eq!(msg, "files[0].changes[0].expectedOriginalLines: in \"src/a.py\", change #1: lines 3-5 are 3 line(s), but expectedOriginalLines has 1 entry");
}

#[test]
fn replace_and_delete_require_expected_lines() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "replace", "startLine": 1, "endLine": 1, "newLines": ["x"]}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].expectedOriginalLines: in \"src/a.py\", change #1: required array is missing"
    );
}

#[test]
fn delete_must_not_have_new_lines() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "delete", "startLine": 1, "endLine": 1, "expectedOriginalLines": ["a"], "newLines": []}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].newLines: in \"src/a.py\", change #1: a delete must not have newLines"
    );
}

#[test]
fn insert_and_replace_require_new_lines() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": 1}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].newLines: in \"src/a.py\", change #1: required array is missing"
    );
    let msg = one_problem(&batch_with(
        json!([{"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": ["a"]}]),
    ));
    assert_eq!(
        msg,
        "files[0].changes[0].newLines: in \"src/a.py\", change #1: required array is missing"
    );
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": 1, "newLines": []}]),
    ));
    assert!(
        msg.ends_with("an insert must have at least one new line"),
        "{msg}"
    );
}

#[test]
fn insert_takes_after_line_not_a_range() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": 1, "startLine": 1, "newLines": ["x"]}]),
    ));
    assert!(
        msg.starts_with("files[0].changes[0].startLine:") && msg.contains("not used by an insert"),
        "{msg}"
    );
}

#[test]
fn a_line_break_inside_an_entry_is_refused() {
    let msg = one_problem(&batch_with(
        json!([{"operation": "insert", "afterLine": 1, "newLines": ["a\nb"]}]),
    ));
    assert!(
        msg.starts_with("files[0].changes[0].newLines[0]:") && msg.contains("line break"),
        "{msg}"
    );
}

#[test]
fn changes_must_be_ordered_top_to_bottom() {
    let msg = one_problem(&batch_with(json!([
        {"changeKey": "late", "operation": "replace", "startLine": 10, "endLine": 10, "expectedOriginalLines": ["a"], "newLines": ["b"]},
        {"changeKey": "early", "operation": "insert", "afterLine": 2, "newLines": ["c"]}
    ])));
    assert_eq!(msg, "files[0].changes[1]: in \"src/a.py\", change #2 \"early\": this change (after line 2) comes before change #1 \"late\" (line 10) in the file; changes must be ordered top to bottom");
}

#[test]
fn changes_must_not_overlap() {
    // The spec's own example: a delete on 10-12 cannot be followed by a replace on 11.
    let msg = one_problem(&batch_with(json!([
        {"operation": "delete", "startLine": 10, "endLine": 12, "expectedOriginalLines": ["a", "b", "c"]},
        {"operation": "replace", "startLine": 11, "endLine": 11, "expectedOriginalLines": ["b"], "newLines": ["x"]}
    ])));
    assert!(
        msg.contains("change #2: this change (line 11) overlaps change #1 (lines 10-12)"),
        "{msg}"
    );
    // An insert inside a replaced range overlaps it; two inserts at one place are ambiguous.
    let msg = one_problem(&batch_with(json!([
        {"operation": "replace", "startLine": 10, "endLine": 12, "expectedOriginalLines": ["a", "b", "c"], "newLines": ["x"]},
        {"operation": "insert", "afterLine": 10, "newLines": ["y"]}
    ])));
    assert!(msg.contains("overlaps"), "{msg}");
    let msg = one_problem(&batch_with(json!([
        {"operation": "insert", "afterLine": 4, "newLines": ["x"]},
        {"operation": "insert", "afterLine": 4, "newLines": ["y"]}
    ])));
    assert!(msg.contains("overlaps"), "{msg}");
}

#[test]
fn adjacent_changes_are_fine() {
    parse(&batch_with(json!([
        {"operation": "insert", "afterLine": 9, "newLines": ["before ten"]},
        {"operation": "replace", "startLine": 10, "endLine": 12, "expectedOriginalLines": ["a", "b", "c"], "newLines": ["x"]},
        {"operation": "insert", "afterLine": 12, "newLines": ["after twelve"]},
        {"operation": "delete", "startLine": 13, "endLine": 13, "expectedOriginalLines": ["d"]}
    ])))
    .unwrap();
}

#[test]
fn every_problem_is_reported_at_once() {
    let found = problems(&json!({"files": [
        {"docPath": "a", "originalSha256": "bad", "changes": [{"operation": "nope"}]},
        {"docPath": "b", "originalSha256": SHA, "changes": []}
    ]}));
    assert_eq!(found.len(), 3, "{found:#?}");
}

#[test]
fn unknown_fields_are_warnings_not_errors() {
    let batch = parse(&json!({"files": [{"docPath": "a", "originalSha256": SHA, "colour": "red",
        "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"], "confidence": 0.9}]}], "model": "m"}))
    .unwrap();
    let locations: Vec<&str> = batch.warnings.iter().map(|w| w.location.as_str()).collect();
    assert_eq!(
        locations,
        vec!["model", "files[0].colour", "files[0].changes[0].confidence"]
    );
    assert!(batch.warnings[0].message.contains("unknown field"));
}

#[test]
fn wrong_types_name_the_path_and_the_type() {
    let msg = one_problem(
        &json!({"files": [{"docPath": 7, "originalSha256": SHA, "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]}),
    );
    assert_eq!(msg, "files[0].docPath: expected a string, found a number");
}

#[test]
fn duplicate_json_keys_are_refused() {
    let input = format!(
        r#"{{"files": [{{"docPath": "a", "docPath": "b", "originalSha256": "{SHA}", "changes": []}}]}}"#
    );
    let err = common::load_bytes(input.as_bytes(), Some("tul002")).unwrap_err();
    assert!(
        err.to_string().contains("duplicate key \"docPath\""),
        "{err}"
    );
}

#[test]
fn response_ids_are_kept_and_keys_round_trip() {
    let batch = parse(&json!({"batchId": "B-1", "batchKey": "bk", "batchLabel": "label", "files": [
        {"filePatchId": "F-1", "fileKey": "fk", "fileLabel": "fl", "docPath": "a", "originalSha256": SHA,
         "changes": [{"changeId": "chg-0007", "changeKey": "ck", "operation": "insert", "afterLine": 0, "newLines": ["x"], "description": "d"}]}
    ]}))
    .unwrap();
    assert_eq!(batch.id.as_str(), "B-1");
    assert_eq!(batch.files[0].id.as_str(), "F-1");
    assert_eq!(batch.files[0].changes[0].id.as_str(), "chg-0007");
    assert_eq!(batch.label.as_deref(), Some("label"));
    assert_eq!(batch.files[0].label.as_deref(), Some("fl"));
}

#[test]
fn a_tool_response_envelope_is_unwrapped() {
    let batch = parse(&json!({"successful": true, "result": {"batchId": "B-2", "files": [
        {"docPath": "a", "originalSha256": SHA, "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]}}))
    .unwrap();
    assert_eq!(batch.id.as_str(), "B-2");
}

#[test]
fn derived_ids_are_the_same_for_the_same_input_and_unique() {
    let value = batch_with(json!([
        {"operation": "insert", "afterLine": 0, "newLines": ["x"]},
        {"operation": "insert", "afterLine": 1, "newLines": ["x"]}
    ]));
    let a = parse(&value).unwrap();
    let b = parse(&value).unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(a.files[0].id, b.files[0].id);
    let ids_a: Vec<_> = a.changes().map(|(_, c)| c.id.clone()).collect();
    let ids_b: Vec<_> = b.changes().map(|(_, c)| c.id.clone()).collect();
    assert_eq!(ids_a, ids_b);
    assert_ne!(ids_a[0], ids_a[1]);
    assert!(ids_a[0].as_str().starts_with("chg-"));
    // A different input gives different IDs.
    let other = parse(&batch_with(
        json!([{"operation": "insert", "afterLine": 0, "newLines": ["y"]}]),
    ))
    .unwrap();
    assert_ne!(other.id, a.id);
}

#[test]
fn duplicate_change_ids_are_refused() {
    let found = problems(
        &json!({"files": [{"docPath": "a", "originalSha256": SHA, "changes": [
        {"changeId": "c1", "operation": "insert", "afterLine": 0, "newLines": ["x"]},
        {"changeId": "c1", "operation": "insert", "afterLine": 1, "newLines": ["y"]}]}]}),
    );
    assert!(found[0].contains("changeId \"c1\""), "{found:?}");
    // Located at the second change, which it names, and pointing at the first.
    assert_eq!(
        found[0],
        "files[0].changes[1].changeId: in \"a\", change #2: changeId \"c1\" is also the ID of files[0].changes[0]; IDs must be unique"
    );
}

#[test]
fn duplicate_file_patch_ids_are_refused() {
    let change = |line: &str| json!([{"operation": "insert", "afterLine": 0, "newLines": [line]}]);
    let msg = one_problem(&json!({"files": [
        {"filePatchId": "F1", "docPath": "a", "originalSha256": SHA, "changes": change("x")},
        {"filePatchId": "F1", "docPath": "b", "originalSha256": SHA, "changes": change("y")}
    ]}));
    assert_eq!(
        msg,
        "files[1].filePatchId: in \"b\": filePatchId \"F1\" is also the ID of files[0]; IDs must be unique"
    );
}

#[test]
fn repeated_keys_are_warnings() {
    let change =
        json!({"changeKey": "k", "operation": "insert", "afterLine": 0, "newLines": ["x"]});
    let mut later = change.clone();
    later["afterLine"] = json!(1);
    let batch = parse(&json!({"files": [
        {"fileKey": "f", "docPath": "a", "originalSha256": SHA, "changes": [change, later]},
        {"fileKey": "f", "docPath": "b", "originalSha256": SHA, "changes": [change]}
    ]}))
    .unwrap();
    let warnings: Vec<&str> = batch.warnings.iter().map(|w| w.location.as_str()).collect();
    assert_eq!(
        warnings,
        vec!["files[0].changes[1].changeKey", "files[1].fileKey"]
    );
    assert!(batch.warnings[0]
        .message
        .contains("also the key of change #1"));
}

#[test]
fn problems_name_the_file_and_change_and_come_in_input_order() {
    let bytes = std::fs::read(common::samples().join("invalid-ranges.json")).unwrap();
    let err = common::load_bytes(&bytes, None).unwrap_err();
    let patchdeck::error::Error::InvalidInput { problems, .. } = err else {
        panic!("expected invalid input, got {err}");
    };
    let locations: Vec<&str> = problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(
        locations,
        vec![
            "files[0].changes[0].endLine",
            "files[0].changes[1].expectedOriginalLines",
            "files[0].changes[2]",
            "files[0].changes[3]",
            "files[0].changes[4].startLine",
            "files[0].changes[5].newLines",
            "files[1].originalSha256",
            "files[1].changes[0].operation",
            "files[2].changes",
        ]
    );
    assert!(problems[2]
        .message
        .starts_with("in \"src/app.py\", change #3 \"overlapping\": "));
    assert!(problems[6]
        .message
        .starts_with("in \"src/inventory.toml\": expected 64 hexadecimal digits"));
    assert!(problems[8].message.starts_with("in \"notes.txt\": "));
}

#[test]
fn an_empty_files_list_is_detected_as_tul002() {
    let err = common::load_bytes(b"{\"files\": []}", None).unwrap_err();
    assert!(
        err.to_string()
            .contains("files: must list at least one file patch"),
        "{err}"
    );
}

#[test]
fn syntax_errors_name_line_and_column() {
    let err = common::load_bytes(b"{\"files\": [\n  {,}\n]}", Some("tul002")).unwrap_err();
    assert!(err.to_string().contains("line 2, column 4"), "{err}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn input_that_is_no_batch_lists_what_was_tried() {
    let err = common::load_bytes(b"hello", None).unwrap_err();
    assert!(err.to_string().contains("tried: tul002"), "{err}");
}
