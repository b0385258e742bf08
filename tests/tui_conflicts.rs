//! How the reviewer shows conflicts, applied changes and what a filter keeps: every glyph and
//! count from the rules the commit applies, nothing shown that the filter leaves out, a diff
//! conflict's expected lines on screen, and a review's decisions brought back by `undo`.

use crate::common::reviewer::{
    editor_script, open, open_bytes, press, run_edit, screen, select, Open,
};
use crate::common::{patchdeck, sample_workspace, samples, workspace_with};
use patchdeck::tui::keys::Key;
use std::fs;

/// A rejected conflict shows its rejection alone; a change blocked only by its file's SHA-256
/// shows the conflict glyph until the file is overridden.
#[test]
fn glyphs_say_what_the_commit_sees() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    select(&mut app, "clearer-error");
    press(&mut app, "r");
    select(&mut app, "clearer-error");
    let shown = screen(&mut app, 160, 40);
    let row = shown
        .lines()
        .find(|l| l.contains("clearer-error replace"))
        .unwrap();
    assert!(row.contains("✘ ") && !row.contains("✘⚠"), "{row}");
    select(&mut app, "debug-logs");
    let shown = screen(&mut app, 160, 40);
    let row = shown
        .lines()
        .find(|l| l.contains("debug-logs replace"))
        .unwrap();
    assert!(row.contains("·⚠"), "blocked by its file's SHA-256: {row}");
    press(&mut app, "o");
    let shown = screen(&mut app, 160, 40);
    let row = shown
        .lines()
        .find(|l| l.contains("debug-logs replace"))
        .unwrap();
    assert!(!row.contains("⚠"), "overridden: {row}");
}

/// Under a filter, the lists hold only what it shows (and where the cursor is).
#[test]
fn a_filter_narrows_the_lists_too() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "f"); // undecided
    press(&mut app, "f"); // open conflicts
    let shown = screen(&mut app, 160, 40);
    assert!(
        shown.contains("Files 2 of 6 with open conflicts"),
        "{shown}"
    );
    assert!(
        !shown.contains("src/Utils.py"),
        "no conflict there:\n{shown}"
    );
    assert!(shown.contains("src/inventory.toml"), "{shown}");
    assert!(
        !shown.contains("log-load replace"),
        "not a conflict:\n{shown}"
    );
}

/// A hunk not found where it says shows what it expected against what stands there, as every
/// conflict of expected lines does.
#[test]
fn a_diff_conflict_shows_its_expected_lines() {
    let ws = workspace_with(&[("a.txt", b"one\ntwo\nthree\n")]);
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-deux\n+TWO\n";
    let mut app = open_bytes(
        ws.path(),
        "b.diff",
        diff.as_bytes().to_vec(),
        Open {
            session: false,
            ..Open::default()
        },
    );
    let shown = screen(&mut app, 120, 30);
    assert!(
        shown.contains("expected") && shown.contains("deux"),
        "{shown}"
    );
    assert!(shown.contains("two"), "what stands there:\n{shown}");
}

/// A batch committed in part, opened again: what was applied shows as applied, and counted.
#[test]
fn a_batch_reopened_after_a_partial_commit_counts_what_is_applied() {
    let ws = sample_workspace();
    let out = patchdeck(&[
        "apply",
        "--only",
        "log-load",
        "--root",
        ws.path().to_str().unwrap(),
        samples().join("demo.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let mut app = open(
        ws.path(),
        Open {
            session: false,
            ..Open::default()
        },
    );
    let shown = screen(&mut app, 160, 40);
    assert!(shown.contains("≡ 1 applied already"), "{shown}");
    let row = shown
        .lines()
        .find(|l| l.contains("log-load replace"))
        .unwrap();
    assert!(row.contains("·≡"), "{row}");
}

/// An edit made in the reviewer, committed, then undone: reopening the batch brings the edit
/// back, as the session it was made in went with the commit's undo record.
#[test]
fn undo_brings_back_the_decisions_a_commit_was_made_from() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let editor = editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/^+.*if not name:$/+        if not name or not name.strip():/' \"$1\"",
    );
    let how = || Open {
        editor: Some(editor.clone()),
        ..Open::default()
    };
    let mut app = open(ws.path(), how());
    select(&mut app, "validate-name");
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    let session = app.session().unwrap().path().to_path_buf();
    press(&mut app, "c");
    press(&mut app, "y");
    drop(app);
    assert!(!session.exists(), "the session went with the commit");
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert!(app_py.contains("if not name or not name.strip():"));
    let out = patchdeck(&["undo", "--root", ws.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(session.exists(), "undo put the session back");
    let mut app = open(ws.path(), how());
    assert_eq!(app.restored, 1);
    select(&mut app, "validate-name");
    let shown = screen(&mut app, 160, 40);
    assert!(
        shown.contains("if not name or not name.strip():"),
        "{shown}"
    );
}

/// A file with other hard links is written from the reviewer on the same explicit override
/// as `--allow-hard-links`: `o` makes it (and takes it back), the commit summary lists it, and
/// the commit writes the batch's name only.
#[test]
fn the_reviewer_overrides_a_hard_linked_file_as_apply_does() {
    let ws = workspace_with(&[("a.txt", b"one\n")]);
    fs::hard_link(ws.path().join("a.txt"), ws.path().join("b.txt")).unwrap();
    let batch = serde_json::json!({"files": [{"docPath": "a.txt",
        "originalSha256": crate::common::sha(b"one\n"),
        "changes": [{"changeKey": "up", "operation": "replace", "startLine": 1, "endLine": 1,
            "expectedOriginalLines": ["one"], "newLines": ["ONE"]}]}]});
    let mut app = open_bytes(
        ws.path(),
        "batch.json",
        batch.to_string().into_bytes(),
        Open::default(),
    );
    select(&mut app, "up");
    press(&mut app, "a");
    assert!(app.review().plan().is_blocked(), "blocked until overridden");
    press(&mut app, "o");
    assert!(app.review().overridden(0));
    let plan = app.review().plan();
    assert!(!plan.is_blocked(), "{:?}", plan.blockers);
    assert!(matches!(
        plan.overrides.as_slice(),
        [patchdeck::plan::Override::File {
            how: patchdeck::review::FileOverride::HardLink,
            ..
        }]
    ));
    press(&mut app, "o");
    assert!(!app.review().overridden(0), "taken back");
    assert!(app.review().plan().is_blocked());
}
