//! Line endings never decide whether a model's text is found: a find written with LF endings
//! matches a CRLF file alike in a structured patch (once and all), patch-tool calls and Aider
//! blocks, through the one shared matcher. Each keeps the file's CRLF endings and reports the
//! tolerance it needed (`eol`) on the change.

use crate::common::formats::{kinds, run_input};
use crate::common::{json_out, stderr, stdout};
use serde_json::json;

const FILE: &[u8] = b"@echo off\r\nset A=1\r\nset B=2\r\necho %A%\r\n";
const FILES: &[(&str, &[u8])] = &[("setup.bat", FILE)];
const WANTED: &[u8] = b"@echo off\r\nset A=10\r\nset B=20\r\necho %A%\r\n";

/// Checks and applies `input` in `format` against the CRLF file: the change's match tiers,
/// the problem kinds, and the file after.
fn checked_and_applied(format: &str, input: &[u8]) -> (Vec<String>, Vec<String>, Vec<u8>) {
    let (_, out) = run_input(FILES, "check", &["--json", "--format", format], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{format}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    let tiers = report["files"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["match"].as_str().unwrap().to_owned())
        .collect();
    let (ws, out) = run_input(FILES, "apply", &["--format", format], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{format}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    (
        tiers,
        kinds(&report),
        std::fs::read(ws.path().join("setup.bat")).unwrap(),
    )
}

#[test]
fn an_lf_find_matches_a_crlf_file_in_every_find_and_replace_format() {
    let find = "set A=1\nset B=2\n";
    let replace = "set A=10\nset B=20\n";
    let structured = json!({"root": ".", "patches": [{"path": "setup.bat", "replacements": [
        {"find": find, "replace": replace}]}]});
    let structured_all = json!({"root": ".", "patches": [{"path": "setup.bat", "replacements": [
        {"find": find, "replace": replace, "limit": "all"}]}]});
    let edits = json!({"path": "setup.bat", "patches": [
        {"operation": "replace", "oldText": find, "newText": replace}]});
    let aider = format!("setup.bat\n<<<<<<< SEARCH\n{find}=======\n{replace}>>>>>>> REPLACE\n");
    let inputs = [
        ("structured", structured.to_string().into_bytes()),
        ("structured", structured_all.to_string().into_bytes()),
        ("edits", edits.to_string().into_bytes()),
        ("aider", aider.into_bytes()),
    ];
    for (format, input) in inputs {
        let (tiers, kinds, after) = checked_and_applied(format, &input);
        assert_eq!(tiers, vec!["eol"], "{format}");
        assert_eq!(kinds, vec!["tolerant_match"], "{format}");
        assert_eq!(
            after,
            WANTED,
            "{format}: {}",
            String::from_utf8_lossy(&after)
        );
    }
}

#[test]
fn a_structured_find_with_trailing_spaces_is_found_and_noted() {
    let patch = json!({"root": ".", "patches": [{"path": "setup.bat", "replacements": [
        {"find": "set A=1   \n", "replace": "set A=10\n"}]}]});
    let (tiers, kinds, after) = checked_and_applied("structured", patch.to_string().as_bytes());
    assert_eq!(tiers, vec!["trailing-ws"]);
    assert_eq!(kinds, vec!["tolerant_match"]);
    assert_eq!(after, b"@echo off\r\nset A=10\r\nset B=2\r\necho %A%\r\n");
}
