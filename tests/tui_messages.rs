//! What the reviewer's status line says a key did, and what it set aside: leaving the editor
//! without a change records no edit and says so; moving back a moved and edited change warns
//! that the edit goes with the move, and `u` brings both back; `u` names what it undid;
//! `--fresh` says what it sets aside, and keeps it until the first decision.

use crate::common::reviewer::{
    editor_script, message, open, press, run_edit, screen, select, Open,
};
use crate::common::sample_workspace;
use patchdeck::review::Decision;
use patchdeck::tui::app::{App, Tone};
use patchdeck::tui::keys::Key;
use std::fs;

fn decision(app: &App, key: &str) -> Decision {
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.key.as_deref() == Some(key))
        .unwrap();
    app.decisions().get(&app.change(pos).change.id).clone()
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
