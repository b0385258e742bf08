//! The reviewer from a daily user's seat (issue 15): each defect a person met, driven as they
//! met it, and each friction that was taken out.

use crate::common::reviewer::{
    editor_script, open, open_input, press, run_edit, screen, select, selected_key, Open,
};
use crate::common::{git, patchdeck, sample_workspace, sha, stderr, workspace_with};
use patchdeck::review::Decision;
use patchdeck::tui::app::{App, Tone};
use patchdeck::tui::keys::Key;
use serde_json::json;
use std::fs;

fn decision(app: &App, key: &str) -> Decision {
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.key.as_deref() == Some(key))
        .unwrap();
    app.decisions().get(&app.change(pos).change.id).clone()
}

fn message(app: &App) -> String {
    app.message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

#[test]
fn leaving_the_editor_without_a_change_records_no_edit() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(editor_script(tools.path(), "quit.sh", "true")),
            ..Open::default()
        },
    );
    select(&mut app, "validate-name");
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    assert_eq!(decision(&app, "validate-name"), Decision::Undecided);
    assert!(
        message(&app).contains("nothing changed: the edit is cancelled"),
        "{}",
        message(&app)
    );
    app.flush_session();
    let saved = fs::read_to_string(app.session().unwrap().path()).unwrap_or_default();
    assert!(!saved.contains("\"edit\""), "{saved}");
    let top = screen(&mut app, 120, 30);
    assert!(top.contains("✎ 0"), "{top}");
}

#[test]
fn moving_back_a_moved_and_edited_change_says_the_edit_goes_and_undo_brings_it_back() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let editor = editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/ left, / remaining, /' \"$1\"",
    );
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(editor),
            session: false,
            ..Open::default()
        },
    );
    select(&mut app, "clearer-error");
    press(&mut app, "m");
    select(&mut app, "clearer-error");
    // Its title and list row name where it now goes, and where the batch said.
    let shown = screen(&mut app, 160, 40);
    assert!(
        shown.contains("clearer-error · replace 30 (was 32)"),
        "{shown}"
    );
    assert!(
        shown.contains("clearer-error replace 30 (was 32)"),
        "{shown}"
    );
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    assert!(
        matches!(decision(&app, "clearer-error"), Decision::Edit(_)),
        "{:?}: {}",
        decision(&app, "clearer-error"),
        message(&app)
    );
    select(&mut app, "clearer-error");
    press(&mut app, "m");
    let said = app.message.clone().unwrap();
    assert_eq!(said.tone, Tone::Warning);
    assert!(
        said.text
            .contains("your edit of it is dropped with the move (u brings both back)"),
        "{}",
        said.text
    );
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    press(&mut app, "u");
    assert!(matches!(decision(&app, "clearer-error"), Decision::Edit(_)));
}

#[test]
fn fresh_says_what_it_sets_aside_and_keeps_it_until_the_first_decision() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "ar");
    app.flush_session();
    let session = app.session().unwrap().path().to_path_buf();
    let saved = fs::read(&session).unwrap();
    drop(app);

    let fresh = Open {
        fresh: true,
        ..Open::default()
    };
    let app = open(ws.path(), fresh);
    let backup = session.with_extension("json.bak");
    assert!(
        message(&app).contains(&format!(
            "--fresh: starting over; the 2 decision(s) saved before stay until your first decision, and a copy is kept in {}",
            backup.display()
        )),
        "{}",
        message(&app)
    );
    assert!(app.decisions().decided().is_empty());
    drop(app);
    assert_eq!(
        fs::read(&session).unwrap(),
        saved,
        "opening changed nothing"
    );
    assert_eq!(fs::read(&backup).unwrap(), saved);

    // Quitting before a decision: the next plain open resumes the two.
    let app = open(ws.path(), Open::default());
    assert_eq!(app.restored, 2);
    drop(app);

    let mut app = open(
        ws.path(),
        Open {
            fresh: true,
            ..Open::default()
        },
    );
    press(&mut app, "a");
    app.flush_session();
    drop(app);
    assert_ne!(
        fs::read(&session).unwrap(),
        saved,
        "the first decision is saved"
    );
    assert_eq!(fs::read(&backup).unwrap(), saved, "the copy stays");
}

#[test]
fn a_conflict_in_a_file_with_uncommitted_work_keeps_its_m_mark() {
    let ws = workspace_with(&[("a.txt", b"one\ntwo\n"), ("b.txt", b"x\n")]);
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "start"]);
    fs::write(ws.path().join("a.txt"), "one\ntwo\nmine\n").unwrap();
    let batch = json!({"files": [
        {"docPath": "a.txt", "originalSha256": sha(b"one\ntwo\n"), "changes": [
            {"operation": "replace", "startLine": 1, "endLine": 1,
             "expectedOriginalLines": ["one"], "newLines": ["ONE"]}]},
        {"docPath": "b.txt", "originalSha256": sha(b"x\n"), "changes": [
            {"operation": "replace", "startLine": 1, "endLine": 1,
             "expectedOriginalLines": ["x"], "newLines": ["y"]}]}]});
    let mut app = open_input(ws.path(), "b.json", batch.to_string().as_bytes());
    let shown = screen(&mut app, 120, 30);
    assert!(shown.contains("▸⚠M a.txt"), "{shown}");
    assert!(shown.contains("   b.txt"), "{shown}");
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
fn search_runs_as_it_is_typed_and_esc_goes_back() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    assert_eq!(selected_key(&app), "log-load");
    press(&mut app, "/valueerror");
    app.key(Key::Enter);
    assert_eq!(selected_key(&app), "validate-name");
    assert!(message(&app).contains("match 1 of 2"), "{}", message(&app));
    // A second search, typed: it moves before Enter, from where it started.
    press(&mut app, "/quiet");
    assert_eq!(selected_key(&app), "quiet-pip", "found before Enter");
    assert!(
        message(&app).contains("/quiet: match 1 of 1"),
        "{}",
        message(&app)
    );
    app.key(Key::Esc);
    assert_eq!(
        selected_key(&app),
        "validate-name",
        "Esc goes back where it started"
    );
    // ... with the search before it: n goes on with ValueError.
    press(&mut app, "n");
    assert_eq!(selected_key(&app), "clearer-error");
    // Enter on nothing typed runs the last search again, as vim does.
    press(&mut app, "/");
    app.key(Key::Enter);
    assert_eq!(
        selected_key(&app),
        "validate-name",
        "wrapped to the first match"
    );
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
fn demo_dir_reopens_a_demo_and_refuses_a_folder_that_is_not_one() {
    let home = tempfile::tempdir().unwrap();
    let other = home.path().join("other");
    fs::create_dir(&other).unwrap();
    let out = patchdeck(&["demo", "--dir", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("exists and holds no demo"), "{said}");
    assert!(
        said.contains("one a demo was unpacked into before (it is reopened)"),
        "{said}"
    );
    assert!(!said.contains("os error"), "{said}");
}

#[test]
fn undo_names_what_it_undid() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a");
    press(&mut app, "u");
    assert!(
        message(&app).starts_with("undone: accept of src/app.py#1 \"log-load\""),
        "{}",
        message(&app)
    );
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
