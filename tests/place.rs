//! Placing a change where the person knows it belongs: a change whose expected lines stand at
//! many places, or an insertion in a changed file, is placed in the reviewer (the diff shows
//! it at the proposed place first), saved with the decisions, and applied headless from a
//! decisions file, each time reported as an override.

use crate::common::reviewer::{open_input, screen};
use crate::common::{json_out, patchdeck, sha, stderr, workspace_with};
use patchdeck::tui::keys::Key;
use serde_json::json;
use std::fs;

/// A file where `guard();` stands 40 times, and a batch whose change expects it at line 3
/// (where it is not: the file was rewritten).
fn repeated() -> (tempfile::TempDir, Vec<u8>, String) {
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("fn f{i}() {{\n    guard();\n}}\n"));
    }
    let ws = workspace_with(&[("lib.rs", text.as_bytes())]);
    let batch = json!({"files": [{"docPath": "lib.rs", "originalSha256": sha(text.as_bytes()), "changes": [
        {"changeKey": "check", "operation": "replace", "startLine": 3, "endLine": 3,
         "expectedOriginalLines": ["    guard();"], "newLines": ["    guard_checked();"]}]}]});
    (ws, batch.to_string().into_bytes(), text)
}

#[test]
fn a_change_found_at_many_places_is_placed_where_the_person_says_and_committed() {
    let (ws, batch, text) = repeated();
    let mut app = open_input(ws.path(), "b.json", &batch);
    app.key(Key::Char('a'));
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("p places it at one of the 40 places"),
        "{:?}",
        app.message
    );
    app.key(Key::Char('p'));
    let shown = screen(&mut app, 140, 36);
    // Compact: the count and the nearest few, never 40 numbers.
    assert!(
        shown.contains("place at line 2 · 1 of 40 place(s): 2, 5, 8, 11, …"),
        "{shown}"
    );
    app.key(Key::Char('j'));
    let shown = screen(&mut app, 140, 36);
    assert!(shown.contains("place at line 5 · 2 of 40"), "{shown}");
    assert!(
        shown.contains("-     guard();") && shown.contains("+     guard_checked();"),
        "the diff shows it at line 5 before it is taken:\n{shown}"
    );
    // A typed line that does not hold the expected lines is refused, and the picker stays.
    for c in "7".chars() {
        app.key(Key::Char(c));
    }
    app.key(Key::Enter);
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("cannot place it at line 7"),
        "{:?}",
        app.message
    );
    app.key(Key::Backspace);
    for c in "29".chars() {
        app.key(Key::Char(c));
    }
    app.key(Key::Enter);
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("placed lib.rs#1 \"check\" at line 29"),
        "{:?}",
        app.message
    );
    app.key(Key::Char('c'));
    let summary: Vec<String> = app.summary_lines().iter().map(|l| l.text.clone()).collect();
    assert!(
        summary
            .iter()
            .any(|l| l.contains("placed by you at line 29 instead of line 3")),
        "{summary:?}"
    );
    app.key(Key::Char('y'));
    let written = fs::read_to_string(ws.path().join("lib.rs")).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines[28], "    guard_checked();");
    assert_eq!(written.matches("guard_checked").count(), 1);
    assert_eq!(written.len(), text.len() + "_checked".len());
}

#[test]
fn a_placement_in_a_decisions_file_applies_headless_and_is_reported() {
    let (ws, batch, _) = repeated();
    let outside = tempfile::tempdir().unwrap();
    let batch_path = outside.path().join("b.json");
    fs::write(&batch_path, &batch).unwrap();
    let root = ws.path().to_str().unwrap();
    let check = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        root,
        batch_path.to_str().unwrap(),
    ]));
    let id = check["files"][0]["changes"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let decisions = outside.path().join("d.json");
    for (line, code) in [(7, 1), (8, 0)] {
        fs::write(
            &decisions,
            json!({"decisions": {&id: "accept"}, "placements": {&id: line}}).to_string(),
        )
        .unwrap();
        let out = patchdeck(&[
            "apply",
            "--json",
            "--root",
            root,
            "--decisions",
            decisions.to_str().unwrap(),
            batch_path.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(code),
            "line {line}: {}",
            stderr(&out)
        );
        if code == 0 {
            let report = json_out(&out);
            assert!(
                report["overrides"][0]
                    .as_str()
                    .unwrap()
                    .contains("placed by the person at line 8 instead of line 3"),
                "{report}"
            );
        }
    }
    let written = fs::read_to_string(ws.path().join("lib.rs")).unwrap();
    assert_eq!(written.lines().nth(7), Some("    guard_checked();"));
}

#[test]
fn a_change_the_format_could_not_place_is_not_offered_a_place() {
    let ws = crate::common::sample_workspace();
    let bytes = fs::read(crate::common::samples().join("structured-conflicting.json")).unwrap();
    let mut app = open_input(ws.path(), "structured-conflicting.json", &bytes);
    // Replacement 1's text stands twice, replacement 2's nowhere: neither has lines of its
    // own to check at a place, so p refuses rather than promise a write the plan refuses.
    for _ in 0..2 {
        app.key(Key::Char('p'));
        assert!(app.overlay.is_none(), "no picker");
        let said = app.message.as_ref().unwrap().text.clone();
        assert!(said.starts_with("cannot place it"), "{said}");
        assert!(!screen(&mut app, 120, 30)
            .lines()
            .last()
            .unwrap()
            .contains("p place"));
        app.key(Key::Char('j'));
    }
}

#[test]
fn taking_back_a_placement_says_an_edit_goes_with_it() {
    let (ws, batch, _) = repeated();
    let tools = tempfile::tempdir().unwrap();
    let mut app = open_input(ws.path(), "b.json", &batch);
    app.env.editor = crate::common::reviewer::editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/guard_checked/guard_verified/' \"$1\"",
    );
    app.key(Key::Char('p'));
    app.key(Key::Enter);
    let effect = app.key(Key::Char('e'));
    crate::common::reviewer::run_edit(&mut app, effect, tools.path());
    assert!(
        matches!(
            app.decisions().get(&app.change(0).change.id),
            patchdeck::review::Decision::Edit(_)
        ),
        "{:?}",
        app.message
    );
    app.key(Key::Char('p'));
    let said = app.message.as_ref().unwrap().text.clone();
    assert!(
        said.contains("your edit of it is dropped with the place (u brings both back)"),
        "{said}"
    );
    app.key(Key::Char('u'));
    assert!(matches!(
        app.decisions().get(&app.change(0).change.id),
        patchdeck::review::Decision::Edit(_)
    ));
}
