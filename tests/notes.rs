//! Notes for the model: a person's line on a change (why it was rejected) and on the whole
//! batch. They are decisions like any other: written in the reviewer (`t`, `M`), undone with
//! `u`, kept in the session, read from a decisions file; and they reach the model in the
//! feedback, next to the file as it is now.

use crate::common::terminal::Terminal;
use crate::common::{patchdeck, sample_workspace, samples, stderr, stdout};
use serde_json::{json, Value};
use std::path::Path;

const DROP_DEMO_ADD: &str = "chg-4f10261748f76c3e";
const LOG_LOAD: &str = "chg-2a84275a722d6ab6";

fn decisions_file(dir: &Path, value: &Value) -> String {
    let path = dir.join("decisions.json");
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

fn feedback(root: &Path, decisions: &str, json: bool) -> std::process::Output {
    let demo = samples().join("demo.json");
    let mut args = vec![
        "feedback",
        "--root",
        root.to_str().unwrap(),
        "--decisions",
        decisions,
    ];
    if json {
        args.push("--json");
    }
    args.push(demo.to_str().unwrap());
    patchdeck(&args)
}

#[test]
fn a_rejection_with_a_note_reaches_the_model_with_the_lines_on_disk() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let decisions = decisions_file(
        dir.path(),
        &json!({
            "decisions": {LOG_LOAD: "accept", DROP_DEMO_ADD: "reject"},
            "notes": {DROP_DEMO_ADD: "keep the demo add: the tutorial runs it"},
            "note": "good otherwise; no new dependencies, please",
        }),
    );
    let out = feedback(ws.path(), &decisions, false);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("The reviewer rejected 1 change that fits: not written."),
        "{text}"
    );
    assert!(
        text.contains(
            "The reviewer's note on the batch:\n\n> good otherwise; no new dependencies, please"
        ),
        "{text}"
    );
    assert!(
        text.contains("## Rejected by the reviewer (not written)"),
        "{text}"
    );
    assert!(
        text.contains("The reviewer's note: keep the demo add: the tutorial runs it"),
        "{text}"
    );

    let out = feedback(ws.path(), &decisions, true);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["note"], "good otherwise; no new dependencies, please");
    let rejected = json["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), 1, "only the rejected change: {json}");
    assert_eq!(rejected[0]["id"], DROP_DEMO_ADD);
    assert_eq!(
        rejected[0]["note"],
        "keep the demo add: the tutorial runs it"
    );
    // The excerpt is the file on disk, line for line.
    let disk = std::fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    let disk: Vec<&str> = disk.lines().collect();
    let current = &rejected[0]["current"];
    let start = current["startLine"].as_u64().unwrap() as usize;
    for (i, line) in current["lines"].as_array().unwrap().iter().enumerate() {
        assert_eq!(line.as_str().unwrap(), disk[start - 1 + i], "{current}");
    }
    let marked = current["markedStart"].as_u64().unwrap() as usize;
    assert_eq!(marked, rejected[0]["startLine"].as_u64().unwrap() as usize);
}

#[test]
fn a_note_that_is_not_one_line_or_names_no_change_is_refused_where_it_is() {
    let ws = sample_workspace();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            json!({"notes": {DROP_DEMO_ADD: "two\nlines"}}),
            format!("notes.{DROP_DEMO_ADD}: a note is one line, found a line break inside"),
        ),
        (
            json!({"note": "x".repeat(1_001)}),
            "note: a note holds at most 1000 characters, found 1001".to_owned(),
        ),
        (
            json!({"notes": {"chg-0000000000000000": "why"}}),
            "names change IDs that are not in this batch: chg-0000000000000000".to_owned(),
        ),
    ];
    for (value, said) in cases {
        let decisions = decisions_file(dir.path(), &value);
        let out = feedback(ws.path(), &decisions, false);
        assert_eq!(out.status.code(), Some(2), "{value}");
        assert!(stderr(&out).contains(&said), "{value}: {}", stderr(&out));
    }
}

/// The reviewer: `t` on an undecided change rejects it with the note typed, in one step that
/// `u` undoes; `M` writes the batch's; both are saved with the session and written to the
/// feedback `F` hands back.
#[test]
fn the_reviewer_writes_notes_undoes_them_and_keeps_them_in_the_session() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let batch = samples().join("demo.json");
    let args = [
        "--root",
        ws.path().to_str().unwrap(),
        batch.to_str().unwrap(),
    ];
    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    term.wait_for("1/4 log-load");
    term.keys(&["t"]);
    term.wait_for("note on src/app.py#1 \"log-load\":");
    term.keys(&["use the logger"]);
    term.wait_for("use the logger▏");
    term.keys(&["\r"]);
    term.wait_for("rejected src/app.py#1 \"log-load\", with a note");
    term.wait_for("your note for the model: use the logger");
    term.wait_for("1/9 decided");
    term.keys(&["u"]);
    term.wait_for("undone: note on src/app.py#1");
    term.wait_for("0/9 decided");
    term.keys(&["U"]);
    term.wait_for("your note for the model: use the logger");
    term.keys(&["M"]);
    term.wait_for("note on the batch:");
    term.keys(&["thanks"]);
    term.keys(&["\r"]);
    term.wait_for("decided ✔ 0 ✎ 0 ✘ 1  ⚠ 2 open conflict(s)   note: thanks");
    term.keys(&["F"]);
    let said = term.wait_for("written to");
    let written = said
        .split("written to ")
        .nth(1)
        .and_then(|rest| rest.split("feedback.md").next())
        .map(|p| format!("{}feedback.md", p.trim_start()))
        .unwrap();
    let markdown = std::fs::read_to_string(written.trim()).unwrap();
    assert!(
        markdown.contains("The reviewer's note: use the logger"),
        "{markdown}"
    );
    assert!(markdown.contains("> thanks"), "{markdown}");
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");

    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    term.wait_for("resumed 1 decision(s)");
    term.keys(&["g"]);
    term.wait_for("your note for the model: use the logger");
    term.wait_for("note: thanks");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
}
