//! Two of Aider's habits, read by a named rule or refused with one, through the real binary on
//! real folders: a SEARCH that elides lines with `...`, and a file named by its base name only.

use crate::common::formats::{kinds, run_input};
use crate::common::{json_out, stderr, stdout, user_tree};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

const APP: &[u8] = b"import os\n\n\ndef load(path):\n    print(\"loading\", path)\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, \"w\").write(text)\n";

/// Asserts a workspace holds exactly these files, as they were written: nothing was written.
fn holds_exactly(root: &Path, files: &[(&str, &[u8])]) {
    let tree = user_tree(root);
    let now: Vec<(String, &[u8])> = tree
        .iter()
        .filter(|(path, _)| !path.to_string_lossy().ends_with('/'))
        .map(|(path, (bytes, _))| (path.display().to_string(), bytes.as_slice()))
        .collect();
    let mut then: Vec<(String, &[u8])> = files.iter().map(|(p, b)| (p.to_string(), *b)).collect();
    then.sort();
    assert_eq!(now, then, "the workspace was changed");
}

/// The problems of the first change of the first file of a `check --json` report.
fn change_problems(report: &Value) -> &Vec<Value> {
    report["files"][0]["changes"][0]["problems"]
        .as_array()
        .unwrap()
}

fn said(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn an_elided_search_is_applied_piece_by_piece_keeping_the_lines_between_with_a_note() {
    let files: &[(&str, &[u8])] = &[("src/app.py", APP)];
    let block = "src/app.py\n```python\n<<<<<<< SEARCH\nimport os\n...\ndef load(path):\n    print(\"loading\", path)\n=======\nimport logging\nimport os\n...\ndef load(path):\n    logging.info(\"loading %s\", path)\n>>>>>>> REPLACE\n```\n";
    let (_, out) = run_input(files, "check", &["--json"], block.as_bytes());
    let report = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let change = &report["files"][0]["changes"][0];
    assert_eq!(
        (change["startLine"].as_u64(), change["endLine"].as_u64()),
        (Some(1), Some(5)),
        "{report}"
    );
    let problems = change_problems(&report);
    assert_eq!(kinds(&report), ["read_as"], "{report}");
    assert_eq!(
        problems[0]["message"],
        "SEARCH elides lines with `...` (Aider's rule): its 2 pieces were found in order at lines 1, 4-5; the lines between are kept"
    );
    assert_eq!(problems[0]["blocking"], false);

    let (ws, out) = run_input(files, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        std::fs::read(ws.path().join("src/app.py")).unwrap(),
        b"import logging\nimport os\n\n\ndef load(path):\n    logging.info(\"loading %s\", path)\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, \"w\").write(text)\n"
    );
}

#[test]
fn a_replace_that_elides_at_other_places_is_refused_naming_the_rule_and_nothing_is_written() {
    let files: &[(&str, &[u8])] = &[("src/app.py", APP)];
    let block = "src/app.py\n<<<<<<< SEARCH\nimport os\n...\ndef load(path):\n...\ndef save(path, text):\n=======\nimport os\n...\ndef load(path, encoding):\ndef save(path, text):\n>>>>>>> REPLACE\n";
    let (_, out) = run_input(files, "check", &["--json"], block.as_bytes());
    let report = json_out(&out);
    assert_eq!(kinds(&report), ["not_found"], "{report}");
    assert_eq!(
        change_problems(&report)[0]["message"],
        "the SEARCH lines of the block at line 2 not found as written; a `...` line in SEARCH elides lines, and REPLACE must elide at the same places: SEARCH has 2, REPLACE has 1"
    );
    let (ws, out) = run_input(files, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("REPLACE must elide at the same places"));
    holds_exactly(ws.path(), files);

    // A piece that is not there, after the one before it, is named with the rule.
    let block = "src/app.py\n<<<<<<< SEARCH\ndef load(path):\n...\nimport os\n=======\ndef load(path):\n...\nimport sys\n>>>>>>> REPLACE\n";
    let (ws, out) = run_input(files, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        said(&out).contains("each piece between them must occur once, after the one before: its piece 2 of 2 (\"import os\") after line 4 not found in the file"),
        "{}",
        said(&out)
    );
    holds_exactly(ws.path(), files);
}

#[test]
fn a_dots_line_the_file_holds_is_matched_as_written_not_read_as_an_elision() {
    let stub: &[u8] = b"class Reader(Protocol):\n    def read(self) -> bytes:\n        ...\n\n    def close(self) -> None:\n        ...\n";
    let files: &[(&str, &[u8])] = &[("io_types.py", stub)];
    // REPLACE elides nowhere: read as an elision, this block would be refused.
    let block = "io_types.py\n<<<<<<< SEARCH\n    def read(self) -> bytes:\n        ...\n=======\n    def read(self, size: int = -1) -> bytes:\n        raise NotImplementedError\n>>>>>>> REPLACE\n";
    let (_, out) = run_input(files, "check", &["--json"], block.as_bytes());
    let report = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(kinds(&report).is_empty(), "{report}");
    let (ws, out) = run_input(files, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert_eq!(
        std::fs::read(ws.path().join("io_types.py")).unwrap(),
        b"class Reader(Protocol):\n    def read(self, size: int = -1) -> bytes:\n        raise NotImplementedError\n\n    def close(self) -> None:\n        ...\n"
    );
}

#[test]
fn a_bare_name_one_file_elsewhere_bears_is_refused_naming_that_file() {
    let files: &[(&str, &[u8])] = &[("src/app.py", APP)];
    let block = "app.py\n<<<<<<< SEARCH\nimport os\n=======\nimport sys\n>>>>>>> REPLACE\n";
    let (_, out) = run_input(files, "check", &["--json"], block.as_bytes());
    let report = json_out(&out);
    assert_eq!(kinds(&report), ["missing_file"], "{report}");
    assert_eq!(
        report["files"][0]["problems"][0]["message"],
        "app.py does not exist; src/app.py is the one file named app.py in the workspace: name it by its path from the root (patchdeck does not take a file by its base name)"
    );
    let (ws, out) = run_input(files, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(said(&out).contains("src/app.py is the one file named app.py"));
    holds_exactly(ws.path(), files);

    // A name no file bears is missing, as before.
    let block = "main.py\n<<<<<<< SEARCH\nimport os\n=======\nimport sys\n>>>>>>> REPLACE\n";
    let (_, out) = run_input(files, "check", &["--json"], block.as_bytes());
    assert_eq!(
        json_out(&out)["files"][0]["problems"][0]["message"],
        "main.py does not exist; the batch expects to modify it"
    );
}

#[test]
fn several_files_of_the_name_are_listed_up_to_five() {
    let block = "util.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    let two: &[(&str, &[u8])] = &[("lib/util.py", b"x = 1\n"), ("app/util.py", b"x = 1\n")];
    let (ws, out) = run_input(two, "apply", &[], block.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        said(&out).contains("util.py does not exist; 2 files in the workspace are named util.py (app/util.py, lib/util.py): name one by its path from the root"),
        "{}",
        said(&out)
    );
    holds_exactly(ws.path(), two);

    let names: Vec<String> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .map(|d| format!("{d}/util.py"))
        .collect();
    let six: Vec<(&str, &[u8])> = names
        .iter()
        .map(|n| (n.as_str(), &b"x = 1\n"[..]))
        .collect();
    let (ws, out) = run_input(&six, "check", &["--json"], block.as_bytes());
    assert_eq!(
        json_out(&out)["files"][0]["problems"][0]["message"],
        "util.py does not exist; more than 5 files in the workspace are named util.py (a/util.py, b/util.py, c/util.py, d/util.py, e/util.py, ...): name one by its path from the root (patchdeck does not take a file by its base name)"
    );
    holds_exactly(ws.path(), &six);
}
