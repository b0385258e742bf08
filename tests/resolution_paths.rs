//! Every way a person resolves a conflict, in every format it applies to, held to one rule:
//! what the screen calls resolved, the commit writes, there, with those lines. The reviewer is
//! asked through its keys, as a person asks it; the screen is read back; the bytes on disk
//! are checked after the commit.

use crate::common::reviewer::{editor_script, open_bytes, press, run_edit, screen, Open};
use crate::common::{sha, workspace_with};
use patchdeck::tui::app::App;
use patchdeck::tui::keys::Key;
use serde_json::json;
use std::fs;
use std::path::Path;

/// The file every case starts from.
const FILE: &str = "header\nfirst\nold value\nmiddle\nold value\nlast\n";

/// The reviewer on `batch` (named `name`) over a workspace holding `a.txt` = `text`, with an
/// editor that replaces every `+` line of the buffer with `+edited`.
fn reviewer(text: &str, name: &str, batch: &[u8]) -> (tempfile::TempDir, tempfile::TempDir, App) {
    let ws = workspace_with(&[("a.txt", text.as_bytes())]);
    let tools = tempfile::tempdir().unwrap();
    let editor = editor_script(tools.path(), "edit.sh", "sed -i 's/^+.*$/+edited/' \"$1\"");
    let app = open_bytes(
        ws.path(),
        name,
        batch.to_vec(),
        Open {
            editor: Some(editor),
            session: false,
            ..Open::default()
        },
    );
    (ws, tools, app)
}

/// The screen says the change's conflict is resolved, and the header counts no open conflict.
fn said_resolved(app: &mut App, case: &str) {
    assert!(
        app.review().resolved(app.flat[app.pos]),
        "{case}: not resolved by the rule"
    );
    let shown = screen(app, 160, 40);
    assert!(shown.contains(" 0 open conflict(s)"), "{case}:\n{shown}");
    assert!(
        shown.contains("resolved") && !shown.contains("CONFLICT"),
        "{case}: the screen does not call it resolved:\n{shown}"
    );
}

/// Commits, and the file is `expected`.
fn commits(app: &mut App, ws: &Path, expected: &str, case: &str) {
    press(app, "c");
    press(app, "y");
    assert_eq!(
        fs::read_to_string(ws.join("a.txt")).unwrap(),
        expected,
        "{case}"
    );
}

/// A TUL-002 batch of one replacement of `expected` at `line` with `new`, against `base`.
fn tul002(base: &str, line: usize, expected: &str, new: &str) -> Vec<u8> {
    json!({"files": [{"docPath": "a.txt", "originalSha256": sha(base.as_bytes()), "changes": [
        {"changeKey": "x", "operation": "replace", "startLine": line, "endLine": line,
         "expectedOriginalLines": [expected], "newLines": [new]}]}]})
    .to_string()
    .into_bytes()
}

#[test]
fn every_resolution_of_a_tul002_conflict_is_what_the_commit_writes() {
    // Edited over the lines on disk: the batch expected "stale value" at line 3.
    let batch = tul002(FILE, 3, "stale value", "new value");
    let (ws, tools, mut app) = reviewer(FILE, "b.json", &batch);
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    app.go(0);
    said_resolved(&mut app, "tul002 edit");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "edited", 1),
        "tul002 edit",
    );

    // The proposal taken over the lines on disk.
    let (ws, _tools, mut app) = reviewer(FILE, "b.json", &batch);
    press(&mut app, "Ty");
    app.go(0);
    said_resolved(&mut app, "tul002 take");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "new value", 1),
        "tul002 take",
    );

    // Placed at one of the two places its expected lines stand (the second).
    let batch = tul002(FILE, 2, "old value", "new value");
    let (ws, _tools, mut app) = reviewer(FILE, "b.json", &batch);
    press(&mut app, "p");
    for key in "5".chars() {
        app.key(Key::Char(key));
    }
    app.key(Key::Enter);
    app.go(0);
    said_resolved(&mut app, "tul002 place");
    commits(
        &mut app,
        ws.path(),
        "header\nfirst\nold value\nmiddle\nnew value\nlast\n",
        "tul002 place",
    );

    // Moved where its lines (with identity) stand, two lines up.
    let text = "header\nfirst\nthe one line that says exactly what it is\nmiddle\nlast\n";
    let batch = tul002(
        text,
        5,
        "the one line that says exactly what it is",
        "new value",
    );
    let (ws, _tools, mut app) = reviewer(text, "b.json", &batch);
    press(&mut app, "m");
    app.go(0);
    said_resolved(&mut app, "tul002 move");
    commits(
        &mut app,
        ws.path(),
        &text.replace("the one line that says exactly what it is", "new value"),
        "tul002 move",
    );

    // Its file overridden: its SHA-256 differs, its lines verify.
    let batch = tul002("another base\n", 3, "old value", "new value");
    let (ws, _tools, mut app) = reviewer(FILE, "b.json", &batch);
    press(&mut app, "a");
    app.go(0);
    press(&mut app, "o");
    said_resolved(&mut app, "tul002 override");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "new value", 1),
        "tul002 override",
    );
}

#[test]
fn every_resolution_of_a_diff_conflict_is_what_the_commit_writes() {
    // A hunk whose lines stand nowhere: "stale" is not at line 3, nor anywhere.
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -3 +3 @@\n-stale\n+new value\n";
    let (ws, tools, mut app) = reviewer(FILE, "b.diff", diff.as_bytes());
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    app.go(0);
    said_resolved(&mut app, "diff edit");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "edited", 1),
        "diff edit",
    );

    let (ws, _tools, mut app) = reviewer(FILE, "b.diff", diff.as_bytes());
    press(&mut app, "Ty");
    app.go(0);
    said_resolved(&mut app, "diff take");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "new value", 1),
        "diff take",
    );

    // A hunk whose lines stand at two places, neither where it says: placed at the first.
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old value\n+new value\n";
    let (ws, _tools, mut app) = reviewer(FILE, "b.diff", diff.as_bytes());
    press(&mut app, "p");
    app.key(Key::Char('3'));
    app.key(Key::Enter);
    app.go(0);
    said_resolved(&mut app, "diff place");
    commits(
        &mut app,
        ws.path(),
        &FILE.replacen("old value", "new value", 1),
        "diff place",
    );
}

#[test]
fn a_find_of_whole_lines_that_matches_twice_is_placed_where_the_person_says() {
    let cases: [(&str, String); 2] = [
        (
            "b.md",
            "a.txt\n```\n<<<<<<< SEARCH\nold value\n=======\nnew value\n>>>>>>> REPLACE\n```\n"
                .to_owned(),
        ),
        (
            "b.patch",
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-old value\n+new value\n*** End Patch\n"
                .to_owned(),
        ),
    ];
    for (name, batch) in cases {
        let (ws, _tools, mut app) = reviewer(FILE, name, batch.as_bytes());
        press(&mut app, "p");
        app.key(Key::Char('5'));
        app.key(Key::Enter);
        let said = format!("{:?}", app.message);
        app.go(0);
        assert!(
            app.review().resolved(app.flat[0]),
            "{name}: {said}\n{}",
            screen(&mut app, 160, 40)
        );
        said_resolved(&mut app, name);
        commits(
            &mut app,
            ws.path(),
            "header\nfirst\nold value\nmiddle\nnew value\nlast\n",
            name,
        );
    }
}
