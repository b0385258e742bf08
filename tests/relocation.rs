//! Where a change belongs when its lines are not where it says: a place is taken only on
//! evidence (`src/locate.rs`), and what `check` says, the hint it gives, `--relocate`, the
//! reviewer's `m` and the commit all follow the one judgement.

use crate::common::reviewer::{open_input, press};
use crate::common::{json_out, patchdeck, sha, stderr, stdout, workspace_with};
use serde_json::json;
use std::fs;

/// A file of two structs holding the same two field lines, as a real commit of ripgrep's
/// `globset` does: `GlobMatcher` near the top, `GlobStrategic` 29 lines further down.
fn two_structs(edited: bool) -> String {
    let mut text = String::new();
    for n in 1..=20 {
        text.push_str(&format!("// preamble line {n}\n"));
    }
    text.push_str("/// Matches a single glob pattern.\npub struct GlobMatcher {\n    /// The underlying pattern.\n    pat: Glob,\n    /// The pattern, as a compiled regex.\n    re: Regex,\n}\n");
    for n in 1..=22 {
        text.push_str(&format!("// between the structs, line {n}\n"));
    }
    text.push_str("/// A strategic matcher for a single pattern.\nstruct GlobStrategic {\n");
    text.push_str(if edited {
        "    /// The underlying pattern. (kept for the error message)\n"
    } else {
        "    /// The underlying pattern.\n"
    });
    text.push_str("    pat: Glob,\n    /// The pattern, as a compiled regex.\n    strategy: MatchStrategy, // picked once, when the glob is built\n}\n");
    for n in 1..=10 {
        text.push_str(&format!("// after the structs, line {n}\n"));
    }
    text
}

fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| *l == needle)
        .nth(nth)
        .map(|(i, _)| i + 1)
        .unwrap()
}

/// A batch written against the unedited file: one change near the top, the deletion of the
/// second struct's two field lines, one change near the end.
fn batch(base: &str) -> serde_json::Value {
    let field = line_of(base, "    /// The underlying pattern.", 1);
    json!({"files": [{"docPath": "glob.rs", "originalSha256": sha(base.as_bytes()), "changes": [
        {"changeKey": "doc", "operation": "replace", "startLine": 21, "endLine": 21,
         "expectedOriginalLines": ["/// Matches a single glob pattern."],
         "newLines": ["/// Matches one glob pattern."]},
        {"changeKey": "drop-pat", "operation": "delete", "startLine": field, "endLine": field + 1,
         "expectedOriginalLines": ["    /// The underlying pattern.", "    pat: Glob,"]},
        {"changeKey": "tail", "operation": "replace", "startLine": 61, "endLine": 61,
         "expectedOriginalLines": ["// after the structs, line 5"],
         "newLines": ["// after the structs, line five"]}
    ]}]})
}

/// The person edited the first of the two lines where the change deletes them; the same two
/// lines stand, unedited, 29 lines up, in the other struct. Taking them there would delete
/// the field from the wrong struct: nothing says so, nothing suggests it, nothing writes it.
#[test]
fn short_lines_found_in_another_struct_are_never_taken_for_the_edited_ones() {
    let (base, now) = (two_structs(false), two_structs(true));
    let ws = workspace_with(&[("glob.rs", now.as_bytes())]);
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("batch.json");
    fs::write(&path, batch(&base).to_string()).unwrap();
    let (root, path) = (ws.path().to_str().unwrap(), path.to_str().unwrap());
    let out = patchdeck(&["check", "--json", "--root", root, path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json_out(&out);
    let changes = &report["files"][0]["changes"];
    assert_eq!(changes[0]["status"], "ok");
    assert_eq!(changes[2]["status"], "ok");
    let problem = &changes[1]["problems"][0];
    assert_eq!(problem["foundAt"], serde_json::Value::Null, "{problem}");
    let message = problem["message"].as_str().unwrap();
    for said in [
        "they were found at line 23 (-29 lines), not taken as where it belongs",
        "at line 52 they nearly stand (1 of 2 lines edited there), so that is where it belongs",
        "the changes around it stand where they say",
        "its lines are short and common (37 characters)",
    ] {
        assert!(message.contains(said), "{said:?} in {message}");
    }
    let out = patchdeck(&["check", "--root", root, path]);
    assert!(!stdout(&out).contains("--relocate"), "{}", stdout(&out));
    // Asked to relocate anyway, it writes nothing: the place is not one to take.
    let out = patchdeck(&[
        "apply",
        "--allow-sha-mismatch",
        "--relocate",
        "--root",
        root,
        path,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(fs::read_to_string(ws.path().join("glob.rs")).unwrap(), now);
    // The reviewer's m refuses it, and says why.
    let mut app = open_input(ws.path(), "batch.json", batch(&base).to_string().as_bytes());
    crate::common::reviewer::select(&mut app, "drop-pat");
    press(&mut app, "m");
    let said = &app.message.as_ref().unwrap().text;
    assert!(
        said.contains("has none") && said.contains("nearly stand"),
        "{said}"
    );
}

/// Without the edit, the short lines still do not outweigh the changes around them, which
/// stand where they say; a line that carries identity at one place is taken (a model's line
/// number off by two), and `--relocate` writes it there.
#[test]
fn lines_with_identity_are_taken_where_short_ones_are_not() {
    let base = two_structs(false);
    // The batch's lines for the second struct, stated 12 lines off.
    let mut moved = batch(&base);
    moved["files"][0]["changes"][1]["startLine"] = json!(40);
    moved["files"][0]["changes"][1]["endLine"] = json!(41);
    let ws = workspace_with(&[("glob.rs", base.as_bytes())]);
    let outside = tempfile::tempdir().unwrap();
    let path = outside.path().join("batch.json");
    fs::write(&path, moved.to_string()).unwrap();
    let (root, path_str) = (ws.path().to_str().unwrap(), path.to_str().unwrap());
    let out = patchdeck(&["check", "--json", "--root", root, path_str]);
    let report = json_out(&out);
    let problem = &report["files"][0]["changes"][1]["problems"][0];
    assert_eq!(problem["foundAt"], serde_json::Value::Null, "{report}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{report}"))
            .contains("they occur 2 times, at lines 23, 52, and none is taken"),
        "{problem}"
    );
    // One line with identity, two lines off, between changes that stand where they say.
    let mut identity = batch(&base);
    identity["files"][0]["changes"][1] = json!({"changeKey": "strategy", "operation": "replace",
        "startLine": 57, "endLine": 57,
        "expectedOriginalLines": ["    strategy: MatchStrategy, // picked once, when the glob is built"],
        "newLines": ["    strategy: Strategy,"]});
    fs::write(&path, identity.to_string()).unwrap();
    let out = patchdeck(&["check", "--json", "--root", root, path_str]);
    let problem = &json_out(&out)["files"][0]["changes"][1]["problems"][0];
    assert_eq!(problem["foundAt"], 55, "{problem}");
    let out = patchdeck(&["apply", "--relocate", "--root", root, path_str]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = fs::read_to_string(ws.path().join("glob.rs")).unwrap();
    assert_eq!(written.lines().nth(54), Some("    strategy: Strategy,"));
}
