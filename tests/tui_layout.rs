//! The reviewer's screen at every size: the way out and the help stay in the footer down to
//! 40x12; a small terminal shows a conflict and its diff on one screen; a long diff says which
//! rows are in view and `End` and `Home` go to its ends; a unified diff's change is titled by
//! its place; blank and whitespace-only expected lines are visible.

use crate::common::reviewer::{open, open_input, press, screen, select, Open};
use crate::common::{sample_workspace, sha, workspace_with};
use patchdeck::tui::keys::Key;
use serde_json::json;

#[test]
fn the_way_out_and_the_help_always_stay_in_the_footer() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    for (width, height) in [(80, 24), (60, 20), (40, 12)] {
        for key in ["log-load", "clearer-error", "debug-logs"] {
            select(&mut app, key);
            let shown = screen(&mut app, width, height);
            let footer = shown.lines().last().unwrap();
            assert!(
                footer.ends_with("q quit  ? help"),
                "{width}x{height} on {key}: {footer}"
            );
        }
    }
}

#[test]
fn a_small_terminal_shows_the_conflict_and_its_diff_on_one_screen() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    select(&mut app, "clearer-error");
    let shown = screen(&mut app, 60, 20);
    assert!(!shown.contains("Files 1/6"), "the lists give way:\n{shown}");
    assert!(
        shown.contains("clearer-error"),
        "the title names the change:\n{shown}"
    );
    assert!(shown.contains("CONFLICT"), "{shown}");
    assert!(
        shown.contains("30     -             raise ValueError(\"not enough \" + n"),
        "the diff shows without scrolling:\n{shown}"
    );
    // At 80x24 the lines keep their start: the changed word starts in view.
    let shown = screen(&mut app, 80, 24);
    assert!(shown.contains("Files 1/6"), "{shown}");
    assert!(shown.contains("if quantity > current:"), "{shown}");
    assert!(!shown.contains('‹'), "{shown}");
}

#[test]
fn a_long_diff_says_where_it_is_and_end_goes_to_its_end() {
    let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    let ws = workspace_with(&[("long.txt", text.as_bytes())]);
    let expected: Vec<String> = (1..=300).map(|i| format!("line {i}")).collect();
    let batch = json!({"files": [{"docPath": "long.txt", "originalSha256": sha(text.as_bytes()), "changes": [
        {"operation": "delete", "startLine": 1, "endLine": 300, "expectedOriginalLines": expected}]}]});
    let mut app = open_input(ws.path(), "b.json", batch.to_string().as_bytes());
    let shown = screen(&mut app, 100, 30);
    let rows = shown
        .lines()
        .find(|l| l.contains(" rows 1-"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        rows.contains("rows 1-24 of 301 · 7% "),
        "a blank line over 300 rows: {shown}"
    );
    app.key(Key::End);
    let shown = screen(&mut app, 100, 30);
    assert!(shown.contains("line 300"), "{shown}");
    assert!(shown.contains("· 100% ┘"), "{shown}");
    app.key(Key::Home);
    let shown = screen(&mut app, 100, 30);
    assert!(
        shown.contains("line 1\n") || shown.contains("line 1 "),
        "{shown}"
    );
    assert!(!shown.contains("line 300"), "{shown}");
}

#[test]
fn a_unified_diff_change_is_titled_by_its_place() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "unified-clean.patch",
            session: false,
            ..Open::default()
        },
    );
    let shown = screen(&mut app, 140, 30);
    let title = shown.lines().nth(2).unwrap();
    assert!(
        title.contains("docs/changelog.md · 1/1 #1 · insert after 0"),
        "{title}"
    );
    assert!(!title.contains("chg-"), "no hash ID: {title}");
}

#[test]
fn blank_and_whitespace_only_expected_lines_are_visible() {
    let ws = workspace_with(&[("a.txt", b"x\ny\nz\n")]);
    let batch = json!({"files": [{"docPath": "a.txt", "originalSha256": sha(b"x\ny\nz\n"), "changes": [
        {"changeKey": "blank", "operation": "replace", "startLine": 2, "endLine": 2,
         "expectedOriginalLines": [""], "newLines": ["Y"]},
        {"changeKey": "spaces", "operation": "replace", "startLine": 3, "endLine": 3,
         "expectedOriginalLines": ["   "], "newLines": ["Z"]}]}]});
    let mut app = open_input(ws.path(), "b.json", batch.to_string().as_bytes());
    let shown = screen(&mut app, 120, 30);
    assert!(shown.contains("⏎ (blank line)"), "{shown}");
    press(&mut app, "j");
    let shown = screen(&mut app, 120, 30);
    assert!(shown.contains("··· (whitespace only)"), "{shown}");
}
