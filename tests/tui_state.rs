//! The reviewer as a state machine: keys in, decisions, sessions and bytes on disk out.
//! No terminal is involved; the editor is a script, as `EDITOR` would name it.

use crate::common::reviewer::{
    editor_script, open, open_demo, press, run_edit, screen, select, selected_key, Open,
};
use crate::common::sample_workspace;
use patchdeck::review::Decision;
use patchdeck::tui::app::{App, Effect, Outcome, Overlay, Tone};
use patchdeck::tui::editor;
use patchdeck::tui::keys::{Key, Mode};
use std::fs;
use std::path::Path;

fn decision(app: &patchdeck::tui::app::App, key: &str) -> Decision {
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.key.as_deref() == Some(key))
        .unwrap();
    app.decisions().get(&app.change(pos).change.id).clone()
}

/// Runs the editor the way the event loop does, and hands the result back.
#[test]
fn accept_and_reject_move_to_the_next_undecided_change() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    assert_eq!(selected_key(&app), "log-load");
    press(&mut app, "a");
    assert_eq!(decision(&app, "log-load"), Decision::Accept);
    assert_eq!(selected_key(&app), "validate-name");
    press(&mut app, "r");
    assert_eq!(decision(&app, "validate-name"), Decision::Reject);
    assert_eq!(selected_key(&app), "clearer-error");
    // Going back and deciding again skips what is already decided.
    press(&mut app, "kk");
    assert_eq!(selected_key(&app), "log-load");
    press(&mut app, "r");
    assert_eq!(decision(&app, "log-load"), Decision::Reject);
    assert_eq!(selected_key(&app), "clearer-error");
}

#[test]
fn j_and_k_cross_into_the_next_and_previous_file() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "jjjj");
    assert_eq!(selected_key(&app), "accept-whitespace");
    press(&mut app, "k");
    assert_eq!(selected_key(&app), "drop-demo-add");
    press(&mut app, "]]");
    assert_eq!(selected_key(&app), "debug-logs");
    press(&mut app, "[");
    assert_eq!(selected_key(&app), "accept-whitespace");
    press(&mut app, "G");
    assert_eq!(selected_key(&app), "start-changelog");
    press(&mut app, "g!");
    assert_eq!(
        selected_key(&app),
        "clearer-error",
        "! finds the next conflict"
    );
}

#[test]
fn a_conflicting_change_cannot_simply_be_accepted_but_can_be_moved() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    select(&mut app, "clearer-error");
    press(&mut app, "a");
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    let message = app.message.clone().unwrap();
    assert_eq!(message.tone, Tone::Error);
    assert!(
        message.text.contains("m moves it to line 30"),
        "{}",
        message.text
    );

    press(&mut app, "m");
    assert_eq!(decision(&app, "clearer-error"), Decision::Accept);
    let plan = app.review().checked().plan(app.decisions());
    assert!(!plan.is_blocked(), "{:?}", plan.blockers);
    assert!(plan.overrides.iter().any(|o| matches!(
        o,
        patchdeck::plan::Override::Relocated {
            from: 32,
            to: 30,
            ..
        }
    )));
    press(&mut app, "u");
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    assert!(app.decisions().relocations().is_empty());
}

#[test]
fn undo_and_redo_walk_back_and_forth_several_steps() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "arj"); // accept log-load, reject validate-name, skip the conflict
    press(&mut app, "a"); // accept drop-demo-add
    let all = app.decisions().clone();
    press(&mut app, "uuu");
    assert!(app.decisions().decided().is_empty());
    assert_eq!(
        selected_key(&app),
        "log-load",
        "undo goes back to the change it undid"
    );
    app.key(Key::Ctrl('r'));
    app.key(Key::Ctrl('r'));
    assert_eq!(decision(&app, "log-load"), Decision::Accept);
    assert_eq!(decision(&app, "validate-name"), Decision::Reject);
    assert_eq!(decision(&app, "drop-demo-add"), Decision::Undecided);
    press(&mut app, "U");
    assert_eq!(*app.decisions(), all);
    // A new decision forgets what could be redone.
    press(&mut app, "u");
    select(&mut app, "quiet-pip");
    press(&mut app, "a");
    app.key(Key::Ctrl('r'));
    assert_eq!(decision(&app, "drop-demo-add"), Decision::Undecided);
}

#[test]
fn accept_file_skips_conflicts_and_reject_file_takes_them_all() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "A");
    for key in ["log-load", "validate-name", "drop-demo-add"] {
        assert_eq!(decision(&app, key), Decision::Accept, "{key}");
    }
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    assert_eq!(app.message.as_ref().unwrap().tone, Tone::Warning);
    press(&mut app, "R");
    for key in [
        "log-load",
        "validate-name",
        "clearer-error",
        "drop-demo-add",
    ] {
        assert_eq!(decision(&app, key), Decision::Reject, "{key}");
    }
    press(&mut app, "u");
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    assert_eq!(decision(&app, "log-load"), Decision::Accept);
}

#[test]
fn a_sha_mismatch_blocks_until_explicitly_overridden_and_the_summary_lists_it() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    select(&mut app, "debug-logs");
    press(&mut app, "a");
    assert_eq!(decision(&app, "debug-logs"), Decision::Accept);
    assert_eq!(app.message.as_ref().unwrap().tone, Tone::Warning);
    press(&mut app, "c");
    assert_eq!(app.mode(), Mode::CommitSummary);
    let lines = app.summary_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.warn && l.text.starts_with("blocked: src/inventory.toml")),
        "{lines:?}"
    );
    press(&mut app, "y");
    assert_eq!(
        app.mode(),
        Mode::CommitSummary,
        "a blocked plan is not committed"
    );
    press(&mut app, "n");
    select(&mut app, "debug-logs");
    press(&mut app, "o");
    press(&mut app, "c");
    let lines = app.summary_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.text.starts_with("override: src/inventory.toml")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.text.starts_with("blocked")),
        "{lines:?}"
    );
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Committed);
    let toml = fs::read_to_string(ws.path().join("src/inventory.toml")).unwrap();
    assert!(toml.contains("log_level = \"debug\""));
}

#[test]
fn commit_writes_exactly_the_accepted_changes_and_forgets_the_session() {
    let ws = sample_workspace();
    let before_utils = fs::read(ws.path().join("src/Utils.py")).unwrap();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a"); // log-load
    select(&mut app, "start-changelog");
    press(&mut app, "a");
    app.flush_session();
    let session = app.session().unwrap().path().to_path_buf();
    assert!(session.exists());
    press(&mut app, "c");
    let lines = app.summary_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.text.contains("7 change(s) are undecided")),
        "{lines:?}"
    );
    press(&mut app, "y");
    let Some(Outcome::Written { committed, .. }) = &app.outcome else {
        panic!("expected a commit, got {:?}", app.outcome);
    };
    assert_eq!(committed.written.len(), 2);
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert!(app_py.contains("        log.info(\"loaded %d items\", len(self.items))\n"));
    assert!(
        app_py.contains("raise ValueError(\"not enough \" + name)"),
        "undecided changes are not applied"
    );
    assert_eq!(
        fs::read_to_string(ws.path().join("docs/changelog.md")).unwrap(),
        "# Changelog\n\n- Log item loads instead of printing them.\n"
    );
    assert_eq!(
        fs::read(ws.path().join("src/Utils.py")).unwrap(),
        before_utils
    );
    assert!(
        !session.exists(),
        "a committed review leaves no session behind"
    );
}

#[test]
fn read_only_refuses_to_commit_and_saves_no_session() {
    let ws = sample_workspace();
    let before = fs::read(ws.path().join("src/app.py")).unwrap();
    let mut app = open(
        ws.path(),
        Open {
            read_only: true,
            session: false,
            ..Open::default()
        },
    );
    press(&mut app, "acy");
    let message = app.message.clone().unwrap();
    assert!(
        message
            .text
            .contains("read-only review (--read-only): nothing can be written"),
        "{}",
        message.text
    );
    assert!(
        message.text.contains("without --read-only"),
        "{}",
        message.text
    );
    assert_eq!(fs::read(ws.path().join("src/app.py")).unwrap(), before);
    assert!(!ws.path().join(".patchdeck").exists());
    // Quitting with decisions and no session asks first.
    press(&mut app, "n");
    assert_eq!(app.key(Key::Char('q')), Effect::None);
    assert_eq!(app.mode(), Mode::ConfirmQuit);
    assert_eq!(app.key(Key::Char('y')), Effect::Quit);
}

#[test]
fn editing_with_the_editor_makes_the_change_edited_and_accepted() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let script = editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/^+.*log.info.*$/+        log.debug(\"loaded %d\", len(self.items))/' \"$1\"",
    );
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(script),
            ..Open::default()
        },
    );
    let effect = app.key(Key::Char('e'));
    if let Effect::RunEditor { buffer, .. } = &effect {
        assert!(buffer.starts_with("# patchdeck: edit change \"log-load\" of src/app.py"));
        assert!(buffer.contains("\n-        print(\"loaded\", len(self.items), \"items\")\n"));
    }
    run_edit(&mut app, effect, tools.path());
    assert_eq!(
        decision(&app, "log-load"),
        Decision::Edit(vec!["        log.debug(\"loaded %d\", len(self.items))".to_owned()].into())
    );
    assert_eq!(
        selected_key(&app),
        "validate-name",
        "an edit moves on like an accept"
    );
    press(&mut app, "cy");
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert_eq!(
        app_py.lines().nth(18),
        Some("        log.debug(\"loaded %d\", len(self.items))")
    );
}

#[test]
fn an_empty_edit_cancels_and_a_broken_one_offers_edit_again_or_discard() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let empty = editor_script(tools.path(), "empty.sh", ": > \"$1\"");
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(empty),
            ..Open::default()
        },
    );
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    assert_eq!(decision(&app, "log-load"), Decision::Undecided);
    assert!(app.message.as_ref().unwrap().text.contains("cancelled"));

    // Changing a '-' line means the edit no longer matches what it replaces.
    app.env.editor = editor_script(
        tools.path(),
        "break.sh",
        "sed -i 's/^-.*$/-something else/' \"$1\"",
    );
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    assert_eq!(app.mode(), Mode::EditFailed);
    assert!(
        matches!(&app.overlay, Some(Overlay::EditFailed(failed)) if failed.reason.contains("'-' lines"))
    );
    // Edit again reopens what was written; fixing the '-' line makes it apply.
    let effect = app.key(Key::Char('e'));
    let Effect::RunEditor { buffer, .. } = &effect else {
        panic!("edit again runs the editor");
    };
    assert!(buffer.contains("-something else"));
    app.env.editor = editor_script(
        tools.path(),
        "fix.sh",
        "sed -i 's/^-something else$/-        print(\"loaded\", len(self.items), \"items\")/; s/^+\\(.*\\)$/+\\1  # checked/' \"$1\"",
    );
    run_edit(&mut app, effect, tools.path());
    assert_eq!(app.mode(), Mode::Browse);
    assert!(matches!(decision(&app, "log-load"), Decision::Edit(_)));

    // Discard leaves the change as it was.
    select(&mut app, "validate-name");
    app.env.editor = editor_script(tools.path(), "stray.sh", "echo 'no prefix' >> \"$1\"");
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    assert_eq!(app.mode(), Mode::EditFailed);
    press(&mut app, "d");
    assert_eq!(app.mode(), Mode::Browse);
    assert_eq!(decision(&app, "validate-name"), Decision::Undecided);
}

#[test]
fn editing_a_conflict_over_the_lines_on_disk_resolves_it() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let script = editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/^+.*$/+        return self.items.get(name, 0)/' \"$1\"",
    );
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(script),
            ..Open::default()
        },
    );
    select(&mut app, "clearer-error");
    let effect = app.key(Key::Char('e'));
    if let Effect::RunEditor { buffer, .. } = &effect {
        assert!(buffer.contains("# CONFLICT"), "{buffer}");
        assert!(
            buffer.contains("\n-        return self.items[name]\n"),
            "{buffer}"
        );
    }
    run_edit(&mut app, effect, tools.path());
    assert!(matches!(decision(&app, "clearer-error"), Decision::Edit(_)));
    let plan = app.review().checked().plan(app.decisions());
    assert!(!plan.is_blocked(), "{:?}", plan.blockers);
    press(&mut app, "cy");
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert_eq!(
        app_py.lines().nth(31),
        Some("        return self.items.get(name, 0)")
    );
}

#[test]
fn decisions_resume_from_the_session_and_fresh_starts_over() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "ar");
    app.flush_session();
    let session = app.session().unwrap().path().to_path_buf();
    let saved = app.decisions().clone();
    drop(app);

    let app = open(ws.path(), Open::default());
    assert_eq!(*app.decisions(), saved);
    assert_eq!(app.restored, 2);
    assert_eq!(
        selected_key(&app),
        "clearer-error",
        "resumes at the first undecided change"
    );

    // The session file is a decisions file for `patchdeck apply`.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .arg("apply")
        .arg("--root")
        .arg(ws.path())
        .arg("--decisions")
        .arg(&session)
        .arg(crate::common::samples().join("demo.json"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert!(app_py.contains("log.info(\"loaded %d items\""));
    assert!(
        !app_py.contains("item name must not be empty"),
        "validate-name was rejected"
    );

    let fresh = open(
        ws.path(),
        Open {
            fresh: true,
            ..Open::default()
        },
    );
    assert!(fresh.decisions().decided().is_empty());
}

#[test]
fn a_file_changed_on_disk_stops_the_commit_and_reload_keeps_what_still_verifies() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a"); // log-load
    select(&mut app, "accept-whitespace");
    press(&mut app, "a");
    press(&mut app, "c");
    // Someone edits line 19 of app.py while the summary is open.
    let path = ws.path().join("src/app.py");
    let text = fs::read_to_string(&path).unwrap();
    let changed = text.replace(
        "print(\"loaded\", len(self.items), \"items\")",
        "print(\"loaded!\")",
    );
    fs::write(&path, &changed).unwrap();
    let utils_before = fs::read(ws.path().join("src/Utils.py")).unwrap();
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Reload);
    assert!(matches!(&app.overlay, Some(Overlay::Reload { what }) if what.contains("src/app.py")));
    assert_eq!(
        fs::read(ws.path().join("src/Utils.py")).unwrap(),
        utils_before,
        "nothing was written"
    );
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Browse);
    assert_eq!(
        decision(&app, "log-load"),
        Decision::Undecided,
        "it no longer verifies"
    );
    assert_eq!(decision(&app, "accept-whitespace"), Decision::Accept);
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("kept 1 decision"));
}

#[test]
fn search_finds_keys_paths_and_lines_and_steps_with_n() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "/ValueError");
    assert_eq!(app.mode(), Mode::Search);
    app.key(Key::Enter);
    assert_eq!(app.mode(), Mode::Browse);
    assert_eq!(selected_key(&app), "validate-name");
    press(&mut app, "n");
    assert_eq!(selected_key(&app), "clearer-error");
    press(&mut app, "n");
    assert_eq!(selected_key(&app), "validate-name", "n wraps around");
    press(&mut app, "N");
    assert_eq!(selected_key(&app), "clearer-error");
    press(&mut app, "/SETUP.BAT");
    app.key(Key::Enter);
    assert_eq!(
        selected_key(&app),
        "quiet-pip",
        "paths match, ignoring case"
    );
    press(&mut app, "/nowhere-at-all");
    app.key(Key::Esc);
    assert_eq!(app.mode(), Mode::Browse);
    assert_eq!(
        selected_key(&app),
        "quiet-pip",
        "Esc leaves the cursor alone"
    );
}

#[test]
fn an_edit_over_lines_that_are_no_longer_on_disk_is_blocked() {
    let ws = sample_workspace();
    let app = open_demo(ws.path());
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.key.as_deref() == Some("clearer-error"))
        .unwrap();
    let id = app.change(pos).change.id.clone();
    // Decisions as a file could hold them: the change edited, with the lines seen under it.
    let decisions = |replaces: Option<&str>, decision: serde_json::Value| {
        let mut value = serde_json::json!({"decisions": {id.as_str(): decision}});
        if let Some(line) = replaces {
            value["replaces"] = serde_json::json!({id.as_str(): [line]});
        }
        serde_json::from_value::<patchdeck::review::Decisions>(value).unwrap()
    };
    let edit = serde_json::json!({"edit": ["        pass"]});
    // Without the lines the person saw, the conflict still blocks.
    let plan = |d| app.review().checked().plan(&d);
    assert!(plan(decisions(None, edit.clone())).is_blocked());
    // With lines that are not what is at line 32, it blocks too.
    assert!(plan(decisions(Some("        something else"), edit.clone())).is_blocked());
    // With exactly the lines there, it applies and is listed as an override.
    let applies = plan(decisions(Some("        return self.items[name]"), edit));
    assert!(!applies.is_blocked(), "{:?}", applies.blockers);
    assert!(matches!(
        applies.overrides.as_slice(),
        [patchdeck::plan::Override::EditedOver { at: 32, .. }]
    ));
    // An accept with the lines recorded takes the proposal as it is over them: the same
    // override, as `T` makes it in the reviewer.
    let accept = serde_json::json!("accept");
    let taken = plan(decisions(
        Some("        return self.items[name]"),
        accept.clone(),
    ));
    assert!(!taken.is_blocked(), "{:?}", taken.blockers);
    assert!(matches!(
        taken.overrides.as_slice(),
        [patchdeck::plan::Override::EditedOver { at: 32, .. }]
    ));
    assert!(plan(decisions(Some("        something else"), accept)).is_blocked());
}

#[cfg(unix)]
#[test]
fn the_editor_file_is_private_and_removed() {
    let tools = tempfile::tempdir().unwrap();
    let record = tools.path().join("seen");
    let script = editor_script(
        tools.path(),
        "record.sh",
        &format!("stat -c '%a %n' \"$1\" > '{}'", record.display()),
    );
    let saved = editor::run(&script, "+line\n", tools.path()).unwrap();
    assert_eq!(saved, "+line\n");
    let seen = fs::read_to_string(&record).unwrap();
    let (mode, path) = seen.trim().split_once(' ').unwrap();
    assert_eq!(mode, "600", "only its owner can read the buffer");
    assert!(path.contains("patchdeck-edit-"), "{path}");
    assert!(!Path::new(path).exists(), "removed afterwards");
}

#[test]
fn a_session_that_cannot_be_saved_stays_said_and_quitting_asks_first() {
    let ws = sample_workspace();
    // The state folder cannot be made: a file is in its way.
    fs::write(ws.path().join(".patchdeck"), "not a folder").unwrap();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "a");
    app.flush_session();
    let error = app
        .session_error
        .clone()
        .expect("the failure is remembered");
    assert!(error.contains("session not saved"), "{error}");
    assert!(!app.session_saved());
    // It stays visible after other keys.
    press(&mut app, "jk");
    assert!(app.session_error.is_some());
    let (_, status) = app.status_text().unwrap();
    assert!(status.contains("session not saved"), "{status}");
    // Quitting would lose the decision: it asks, and says why.
    assert_eq!(app.key(Key::Char('q')), Effect::None);
    assert_eq!(app.mode(), Mode::ConfirmQuit);
    assert!(app.quit_question().contains("session not saved"));
    assert!(
        !app.quit_question().contains("y quit"),
        "the keys come from the key map, under the question"
    );
    press(&mut app, "n");
    // Once the folder can be made, the next save works and the warning goes.
    fs::remove_file(ws.path().join(".patchdeck")).unwrap();
    press(&mut app, "a");
    app.flush_session();
    assert!(app.session_error.is_none());
    assert!(app.session_saved());
    assert_eq!(app.key(Key::Char('q')), Effect::Quit);
}

/// A conflict's lines saved unchanged from the editor mean its proposal, over the lines on
/// disk (as `git add -p` takes an `e` saved unchanged): asked first, with both sides shown.
/// Declined, nothing is decided; confirmed, the commit writes the proposal over them.
#[test]
fn saving_a_conflicts_lines_unchanged_asks_to_take_its_proposal() {
    let ws = sample_workspace();
    let tools = tempfile::tempdir().unwrap();
    let before = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    let mut app = open(
        ws.path(),
        Open {
            editor: Some(editor_script(tools.path(), "same.sh", "true")),
            ..Open::default()
        },
    );
    select(&mut app, "clearer-error");
    let effect = app.key(Key::Char('e'));
    run_edit(&mut app, effect, tools.path());
    let question = app.take_over_question(app.pos).join("\n");
    assert!(
        question.contains("- ")
            && question.contains("        return self.items[name]")
            && question.contains("+             raise ValueError(f\"not enough {name}"),
        "both sides are shown:\n{question}"
    );
    assert!(matches!(
        app.overlay,
        Some(patchdeck::tui::app::Overlay::ConfirmTakeOver { .. })
    ));
    press(&mut app, "n");
    assert_eq!(decision(&app, "clearer-error"), Decision::Undecided);
    assert!(app.decisions().edits_over().is_empty(), "nothing was taken");
    assert_eq!(
        selected_key(&app),
        "clearer-error",
        "it stays on the conflict"
    );
    // `T` asks the same, and yes takes it.
    press(&mut app, "T");
    press(&mut app, "y");
    assert_eq!(decision(&app, "clearer-error"), Decision::Accept);
    select(&mut app, "clearer-error");
    assert!(app.review().resolved(app.flat[app.pos]));
    let screen = crate::common::reviewer::screen(&mut app, 160, 40);
    assert!(
        screen.contains("its proposal is taken over the lines on disk: the conflict is resolved"),
        "{screen}"
    );
    // Only it is accepted: the commit writes the proposal at line 32, over the return.
    press(&mut app, "c");
    press(&mut app, "y");
    let after = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    assert_eq!(
        after.lines().nth(31).unwrap(),
        "            raise ValueError(f\"not enough {name}: {current} left, {quantity} asked\")"
    );
    assert_eq!(after.lines().count(), before.lines().count());
}

#[test]
fn one_definition_of_a_conflict_for_the_count_and_the_next_conflict_key() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    let conflicting: Vec<String> = (0..app.flat.len())
        .filter(|&p| app.conflicting(p))
        .map(|p| app.change(p).change.key.clone().unwrap())
        .collect();
    assert_eq!(conflicting, ["clearer-error", "debug-logs"]);
    press(&mut app, "!");
    assert_eq!(selected_key(&app), "clearer-error");
    press(&mut app, "!");
    assert_eq!(
        selected_key(&app),
        "debug-logs",
        "a stale SHA is a conflict too"
    );
    press(&mut app, "!");
    assert_eq!(selected_key(&app), "clearer-error");

    // A file the batch creates but which exists is a conflict of its change too.
    let mut app = open(
        ws.path(),
        Open {
            batch: "codex-conflicting.patch",
            session: false,
            ..Open::default()
        },
    );
    let count = (0..app.flat.len()).filter(|&p| app.conflicting(p)).count();
    assert_eq!(count, 2);
    press(&mut app, "!");
    assert_eq!(app.change(app.pos).file.doc_path, "src/app.py");
    press(&mut app, "!");
    assert_eq!(
        app.change(app.pos).file.doc_path,
        "src/Utils.py",
        "! visits the change of the file that already exists"
    );
}

#[test]
fn a_moved_change_counts_as_verified_so_a_stale_file_can_be_overridden_and_committed() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "moved-line.json",
            ..Open::default()
        },
    );
    assert_eq!(selected_key(&app), "log-load");
    press(&mut app, "o");
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .starts_with("cannot override"),
        "a conflicting change blocks the override"
    );
    press(&mut app, "m");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("moved to line 19"));
    assert_eq!(
        selected_key(&app),
        "clearer-error",
        "m goes on to the next undecided change, as a and r do"
    );
    press(&mut app, "a");
    // Both accepted, but the file's SHA-256 differs: the summary says which file is blocked,
    // with its counts, and names the reviewer's key rather than a command-line flag.
    press(&mut app, "c");
    let lines = app.summary_lines();
    let text: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert!(
        text.iter()
            .any(|l| l.starts_with("blocked src/app.py  2 of 2 change(s) accepted")),
        "{text:?}"
    );
    assert!(
        !text.iter().any(|l| l.contains("no change is accepted")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|l| l.starts_with("blocked: src/app.py")
            && l.ends_with("(o on a change of this file overrides it)")),
        "{text:?}"
    );
    assert!(!text.iter().any(|l| l.contains("--allow")), "{text:?}");
    press(&mut app, "n");
    press(&mut app, "o");
    assert_eq!(app.message.as_ref().unwrap().tone, Tone::Warning);
    assert_eq!(app.decisions().sha_overrides().len(), 1);
    press(&mut app, "c");
    let text: Vec<String> = app.summary_lines().iter().map(|l| l.text.clone()).collect();
    assert!(
        text.iter().any(|l| l
            == "override: src/app.py#1 \"log-load\" moved from line 21 to line 19, where its expected lines are (m takes it back)"),
        "the override names the change by its key: {text:?}"
    );
    assert!(!text.iter().any(|l| l.starts_with("blocked")), "{text:?}");
    press(&mut app, "y");
    assert!(
        matches!(app.outcome, Some(Outcome::Written { .. })),
        "{:?}",
        app.outcome
    );
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    let lines: Vec<&str> = app_py.lines().collect();
    assert_eq!(
        lines[18],
        "        log.info(\"loaded %d items\", len(self.items))"
    );
    assert_eq!(
        lines[29],
        "            raise ValueError(f\"not enough {name}: {current} left, {quantity} asked\")"
    );
}

#[test]
fn moving_a_change_back_takes_back_the_override_it_allowed() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "moved-line.json",
            ..Open::default()
        },
    );
    press(&mut app, "mao");
    assert_eq!(app.decisions().sha_overrides().len(), 1);
    select(&mut app, "log-load");
    press(&mut app, "m");
    assert!(app.decisions().relocations().is_empty());
    assert!(app.decisions().sha_overrides().is_empty());
    press(&mut app, "u");
    assert_eq!(app.decisions().relocations().len(), 1);
    assert_eq!(app.decisions().sha_overrides().len(), 1);
}

#[test]
fn after_a_commit_decisions_are_refused() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "acy");
    assert_eq!(app.mode(), Mode::Committed);
    app.key(Key::Esc);
    assert_eq!(app.mode(), Mode::Browse);
    let before = app.decisions().clone();
    for key in ['a', 'r', 'e', 'u', 'A', 'R'] {
        assert_eq!(app.key(Key::Char(key)), Effect::None, "{key}");
        let message = app.message.clone().unwrap();
        assert!(
            message.text.contains("this batch is committed"),
            "{key}: {}",
            message.text
        );
    }
    assert_eq!(*app.decisions(), before);
}

#[test]
fn changes_the_format_could_not_place_are_neither_edited_nor_accepted() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "structured-conflicting.json",
            ..Open::default()
        },
    );
    // The author's order: replacement 1 (ambiguous), 2 (not found), 3 (placed).
    let descriptions: Vec<String> = (0..app.flat.len())
        .map(|p| app.change(p).change.description.clone().unwrap())
        .collect();
    assert!(
        descriptions[0].starts_with("replacement 1:"),
        "{descriptions:?}"
    );
    assert!(
        descriptions[1].starts_with("replacement 2:"),
        "{descriptions:?}"
    );
    assert!(
        descriptions[2].starts_with("replacement 3:"),
        "{descriptions:?}"
    );
    let label = |app: &patchdeck::tui::app::App, pos| {
        patchdeck::tui::draw::operation_label(app.review(), app.flat[pos])
    };
    assert_eq!(label(&app, 0), "replace (ambiguous: lines 22, 27)");
    assert_eq!(label(&app, 1), "replace (not found)");
    assert_eq!(label(&app, 2), "replace 36");
    assert_eq!(
        app.change(1).change.new_lines,
        vec!["def reset(self):".to_owned()],
        "the replacement is kept to be shown"
    );

    for pos in [0, 1] {
        app.go(pos);
        assert_eq!(app.key(Key::Char('e')), Effect::None, "no editor");
        let refusal = app.message.clone().unwrap();
        assert_eq!(refusal.tone, Tone::Error);
        assert!(refusal.text.starts_with("cannot edit"), "{}", refusal.text);
        press(&mut app, "a");
        assert!(app
            .message
            .as_ref()
            .unwrap()
            .text
            .starts_with("cannot accept"));
    }
    assert!(app.message.as_ref().unwrap().text.contains("not found"));
    app.go(0);
    press(&mut app, "e");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("at lines 22, 27"));
    assert!(app.decisions().decided().is_empty());
}

#[test]
fn the_help_pages_like_a_pager_and_scrolls_no_further_than_its_end() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    app.size = (80, 24);
    press(&mut app, "?");
    let scroll =
        |app: &App| patchdeck::tui::layout::overlay_scroll(app).expect("the help is shown");
    let first = scroll(&app);
    assert!(first.most > 0, "the help is longer than 24 rows");
    assert!(first.page > 10, "{first:?}");
    // The legend is the first thing in it.
    let top = screen(&mut app, 80, 24);
    assert!(top.lines().nth(1).unwrap().contains("Glyphs"), "{top}");
    // Space and PgDn move a page, b and PgUp back, G and End to the end, g and Home to the top.
    press(&mut app, " ");
    assert_eq!(scroll(&app).now, first.page);
    app.key(Key::PageDown);
    assert_eq!(scroll(&app).now, (2 * first.page).min(first.most));
    press(&mut app, "b");
    app.key(Key::PageUp);
    assert_eq!(scroll(&app).now, 0);
    press(&mut app, "G");
    assert_eq!(scroll(&app).now, first.most);
    for _ in 0..20 {
        press(&mut app, "j");
    }
    assert_eq!(scroll(&app).now, first.most, "no further than the end");
    press(&mut app, "k");
    assert_eq!(
        scroll(&app).now,
        first.most - 1,
        "one key back scrolls back at once"
    );
    app.key(Key::Home);
    assert_eq!(scroll(&app).now, 0);
    // At 80 columns a wrapped description keeps to its column, under itself.
    let mut text = String::new();
    for _ in 0..=first.most / first.page + 1 {
        text.push_str(&screen(&mut app, 80, 24));
        press(&mut app, " ");
    }
    let wrapped: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.strip_prefix('│')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_lowercase() || c == ' '))
                && !l.starts_with("│  ")
        })
        .collect();
    assert!(
        wrapped.is_empty(),
        "lines that lost their indent: {wrapped:#?}"
    );
    assert!(
        text.contains("│                  "),
        "some description wraps at 80 columns, under itself:\n{text}"
    );
}

#[test]
fn search_says_when_it_wraps() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    press(&mut app, "/ValueError");
    app.key(Key::Enter);
    assert!(!app.message.as_ref().unwrap().text.contains("continuing"));
    press(&mut app, "n");
    assert!(!app.message.as_ref().unwrap().text.contains("continuing"));
    press(&mut app, "n");
    let message = app.message.clone().unwrap();
    assert!(
        message
            .text
            .contains("search hit BOTTOM, continuing at TOP"),
        "{}",
        message.text
    );
    press(&mut app, "N");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("search hit TOP, continuing at BOTTOM"));
}
