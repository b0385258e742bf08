//! A large git diff opens on its first files while the whole of it loads behind them
//! (`src/loading.rs`, `src/tui/loading.rs`): in process, with the whole batch handed over when
//! the test says, and the real binary in a pseudo-terminal, its load held back by the `load`
//! failpoint.

use crate::common::reviewer::screen;
use crate::common::terminal::Terminal;
use patchdeck::error::Error;
use patchdeck::formats::{Input, LoadOptions};
use patchdeck::loading::{self, Loaded, Loading, FIRST_FILES};
use patchdeck::pipeline;
use patchdeck::tui::app::{App, Config, Effect, ReviewerSetup};
use patchdeck::tui::env::{ColorDepth, Env};
use patchdeck::tui::keys::Mode;
use patchdeck::tui::keys::{Key, KeyMap};
use patchdeck::tui::loading::Arrived;
use patchdeck::tui::theme::Palette;
use std::path::Path;
use std::time::Duration;

/// Files in the batches here: more than the first screen loads.
const FILES: usize = 100;

/// A workspace of `FILES` files of 20 lines, and a git diff changing line 10 of each. The
/// diff of file `conflict` expects a line the file does not have.
fn workspace_and_diff(root: &Path, conflict: usize) -> String {
    let mut diff = String::new();
    for k in 0..FILES {
        let lines: String = (1..=20).map(|i| format!("{k}:{i}\n")).collect();
        let path = format!("src/m{}/f{k:03}.txt", k / 10);
        std::fs::create_dir_all(root.join(&path).parent().unwrap()).unwrap();
        std::fs::write(root.join(&path), lines).unwrap();
        let old = if k == conflict {
            "not in the file".to_owned()
        } else {
            format!("{k}:10")
        };
        diff.push_str(&format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -9,3 +9,3 @@\n {k}:9\n-{old}\n+{k}:ten\n {k}:11\n"
        ));
    }
    diff
}

/// The same change as `workspace_and_diff`'s (without a conflict) as a TUL-002 batch, its
/// `batchKey` after its files.
fn tul002_batch(root: &Path) -> String {
    let files: Vec<serde_json::Value> = (0..FILES)
        .map(|k| {
            let path = format!("src/m{}/f{k:03}.txt", k / 10);
            let bytes = std::fs::read(root.join(&path)).unwrap();
            serde_json::json!({
                "docPath": path,
                "originalSha256": patchdeck::model::sha256_hex(&bytes),
                "changes": [{"operation": "replace", "startLine": 10, "endLine": 10,
                    "expectedOriginalLines": [format!("{k}:10")],
                    "newLines": [format!("{k}:ten")]}]
            })
        })
        .collect();
    format!(
        "{{\"files\": {}, \"batchKey\": \"big\"}}",
        serde_json::to_string_pretty(&files).unwrap()
    )
}

/// A reviewer on the first files of `batch` over `root`, and the sender that hands it the
/// whole batch.
fn behind(
    root: &Path,
    diff: &str,
    read_only: bool,
) -> (
    App,
    std::sync::mpsc::Sender<patchdeck::error::Result<Loaded>>,
) {
    let opened = pipeline::open(root, pipeline::Access::Write, Duration::from_secs(5)).unwrap();
    let input = Input::from_bytes("big.diff", diff);
    let first = first_files(&opened.workspace, &input, &LoadOptions::default())
        .expect("a diff of more files than the first screen is cut");
    assert_eq!(first.checked.batch.files.len(), FIRST_FILES);
    assert!(first.of >= FILES, "{} sections", first.of);
    let (loading, sender) = Loading::pending();
    let env = Env::from_vars(Some("1".into()), None, None, None);
    let palette = Palette::load("dark", ColorDepth::None).unwrap();
    let setup = ReviewerSetup {
        workspace: opened.workspace,
        checked: first.checked,
        env,
        palette,
        keymap: KeyMap::default(),
        config: Config {
            read_only,
            report: None,
            stage: false,
        },
        session: None,
        fresh: false,
    };
    (App::behind(setup, first.of, loading), sender)
}

/// The first files of `input`, cut out and loaded as the reviewer loads them.
fn first_files(
    workspace: &patchdeck::workspace::Workspace,
    input: &Input,
    options: &LoadOptions,
) -> Option<loading::FirstFiles> {
    loading::cut_first(input, options)?.load(workspace, options)
}

/// The whole batch, loaded as the loading thread loads it.
fn whole(root: &Path, batch: &str) -> Loaded {
    let workspace = patchdeck::workspace::Workspace::open(root).unwrap();
    let checked = pipeline::load(&workspace, &Input::from_bytes("big.diff", batch), None).unwrap();
    Loaded { workspace, checked }
}

/// The session of the whole batch.
fn session_of(loaded: &Loaded) -> patchdeck::session::Session {
    patchdeck::session::Session::for_batch(&loaded.workspace, &loaded.checked.batch)
}

/// Saves, as an earlier review would have, a session of the whole batch accepting `ids`.
fn save_accepting(loaded: &Loaded, ids: impl IntoIterator<Item = patchdeck::model::ChangeId>) {
    let decisions = patchdeck::review::Decisions::accepting(&loaded.checked.batch, ids);
    session_of(loaded).save(&decisions).unwrap();
}

/// Hands over the whole batch and replays the keys held for it.
fn arrive(
    app: &mut App,
    sender: &std::sync::mpsc::Sender<patchdeck::error::Result<Loaded>>,
    loaded: Loaded,
) {
    sender.send(Ok(loaded)).unwrap();
    match app.poll_loading() {
        Some(Arrived::Loaded(held)) => {
            let (effect, dropped) = app.replay(held);
            assert_eq!(effect, Effect::None, "the test runs no editor");
            app.say_dropped(dropped);
        }
        other => panic!("the whole batch did not take the first files' place: {other:?}"),
    }
}

#[test]
fn keys_that_decide_wait_for_the_whole_batch_and_are_done_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 80);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    assert!(app.poll_loading().is_none(), "nothing arrived yet");
    let first = screen(&mut app, 120, 40);
    assert!(
        first
            .contains("the first 64 of 100 file(s) · loading the whole batch: reading and placing"),
        "{first}"
    );
    assert!(
        !first.contains("change(s) ·"),
        "no count of the batch yet:\n{first}"
    );
    assert!(first.contains("src/m0/f000.txt"), "{first}");

    // Looking through the first files happens now.
    app.key(Key::Char('j'));
    assert_eq!(app.pos, 1);
    // Deciding waits, and so does every key after it.
    app.key(Key::Char('a'));
    app.key(Key::Char('j'));
    assert_eq!(app.pos, 1, "a key after a held one is held too");
    assert_eq!(app.decided(), 0);
    let waiting = screen(&mut app, 120, 40);
    assert!(waiting.contains("2 key(s) waiting for it"), "{waiting}");
    assert!(
        waiting.contains("2 key(s) wait for the rest of the batch"),
        "{waiting}"
    );

    arrive(&mut app, &sender, whole(dir.path(), &diff));
    assert!(!app.is_loading());
    assert_eq!(
        app.decided(),
        1,
        "the held accept was done on the whole batch"
    );
    assert_eq!(
        app.pos, 3,
        "accepting went on to the next change, then the held move"
    );
    let accepted = app.change(1);
    assert_eq!(accepted.file.doc_path, "src/m0/f001.txt");
    let accepted = accepted.change.id.clone();
    assert!(
        !accepted.as_str().is_empty(),
        "the whole batch's changes have IDs"
    );
    let shown = screen(&mut app, 120, 40);
    assert!(
        shown.contains("100 file(s) · 100 change(s) · 1/100 decided"),
        "{shown}"
    );
    assert!(
        shown.contains("1 open conflict(s)"),
        "file 80's conflict is counted:\n{shown}"
    );
    // The accept was saved in the whole batch's session.
    app.flush_session();
    let session = std::fs::read_to_string(app.session().expect("a session").path()).unwrap();
    assert!(session.contains(accepted.as_str()), "{session}");
}

#[test]
fn the_first_files_load_as_in_the_whole_batch_in_each_format_that_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 3);
    let tul002 = tul002_batch(dir.path());
    let workspace = patchdeck::workspace::Workspace::open(dir.path()).unwrap();
    for (batch, format) in [(&diff, "unified"), (&tul002, "tul002")] {
        let input = Input::from_bytes("batch", batch.as_str());
        let first = first_files(&workspace, &input, &LoadOptions::default())
            .unwrap_or_else(|| panic!("a {format} batch of {FILES} files is cut"));
        let whole = whole(dir.path(), batch).checked;
        assert_eq!(whole.batch.format, format);
        assert_eq!(
            (first.checked.batch.format.as_str(), first.of),
            (format, FILES)
        );
        assert_eq!(first.checked.batch.files.len(), FIRST_FILES);
        let (alone, all) = (&first.checked, &whole);
        for (i, file) in alone.batch.files.iter().enumerate() {
            let other = &all.batch.files[i];
            assert_eq!(file.doc_path, other.doc_path);
            assert_eq!(file.action, other.action);
            assert_eq!(file.expected_sha256, other.expected_sha256);
            assert_eq!(file.changes.len(), other.changes.len());
            for (c, change) in file.changes.iter().enumerate() {
                let theirs = &other.changes[c];
                assert_eq!(change.range, theirs.range);
                assert_eq!(change.expected, theirs.expected);
                assert_eq!(change.new_lines, theirs.new_lines);
            }
            let (check, theirs) = (&alone.verification.files[i], &all.verification.files[i]);
            assert_eq!(check.status, theirs.status, "{} ({format})", file.doc_path);
            let statuses = |c: &patchdeck::verify::FileCheck| {
                c.changes.iter().map(|c| c.status).collect::<Vec<_>>()
            };
            assert_eq!(statuses(check), statuses(theirs));
        }
    }
    // Forced, a format that is not cut is loaded whole.
    let input = Input::from_bytes("batch", diff.as_str());
    let forced = LoadOptions::format(Some("tul002"));
    assert!(first_files(&workspace, &input, &forced).is_none());
}

#[test]
fn a_tul002_batch_opens_on_its_first_files_too() {
    let dir = tempfile::tempdir().unwrap();
    workspace_and_diff(dir.path(), 1_000);
    let batch = tul002_batch(dir.path());
    let (mut app, sender) = behind(dir.path(), &batch, false);
    let first = screen(&mut app, 120, 40);
    assert!(first.contains("the first 64 of 100 file(s)"), "{first}");
    assert!(first.contains("tul002"), "{first}");
    app.key(Key::Char('a'));
    assert_eq!(app.decided(), 0);
    let loaded = whole(dir.path(), &batch);
    let id = loaded.checked.batch.files[0].changes[0].id.clone();
    arrive(&mut app, &sender, loaded);
    assert_eq!(app.decided(), 1);
    assert!(
        app.decisions().decided().contains_key(&id),
        "the whole batch's ID"
    );
    let shown = screen(&mut app, 120, 40);
    assert!(
        shown.contains("[big]"),
        "the key after the files is there:\n{shown}"
    );
    assert!(shown.contains("0 open conflict(s)"), "{shown}");
}

#[test]
fn moving_past_the_last_file_shown_waits_for_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let (mut app, _held_back) = behind(dir.path(), &diff, true);
    // The last change of the batch is not shown yet: going there waits.
    app.key(Key::Char('G'));
    assert_eq!(app.pos, 0, "held");
    let (mut app, sender) = behind(dir.path(), &diff, true);
    assert_eq!(app.flat.len(), FIRST_FILES);
    let last = FIRST_FILES - 1;
    app.go(last);
    app.key(Key::Char('j'));
    assert_eq!(app.pos, last, "held: there is more of the batch after it");
    arrive(&mut app, &sender, whole(dir.path(), &diff));
    assert_eq!(
        app.pos, FIRST_FILES,
        "on to the first file that was not shown"
    );
    assert_eq!(app.change(app.pos).file.doc_path, "src/m6/f064.txt");
    assert!(app.session().is_none(), "read-only: no session");
}

#[test]
fn the_cursor_stays_on_its_change_and_a_saved_session_is_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    // A session with two decisions, saved by an earlier review of the same batch.
    let loaded = whole(dir.path(), &diff);
    let ids: Vec<_> = loaded.checked.batch.files[..2]
        .iter()
        .map(|f| f.changes[0].id.clone())
        .collect();
    save_accepting(&loaded, ids);

    let (mut app, sender) = behind(dir.path(), &diff, false);
    assert_eq!(
        app.decided(),
        0,
        "the first files are not the batch: no session yet"
    );
    for _ in 0..5 {
        app.key(Key::Char('j'));
    }
    assert_eq!(app.pos, 5);
    arrive(&mut app, &sender, loaded);
    assert_eq!(app.restored, 2);
    assert_eq!(app.decided(), 2);
    assert_eq!(app.pos, 5, "the cursor stays where the person put it");
    assert_eq!(app.change(app.pos).file.doc_path, "src/m0/f005.txt");
    let text = screen(&mut app, 120, 40);
    assert!(text.contains("resumed 2 decision(s)"), "{text}");
}

#[test]
fn a_batch_that_fails_to_load_ends_the_review_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    app.key(Key::Char('a'));
    sender
        .send(Err(Error::Usage {
            message: "the test's error".into(),
            hint: None,
        }))
        .unwrap();
    match app.poll_loading() {
        Some(Arrived::Failed(error)) => assert!(error.to_string().contains("the test's error")),
        other => panic!("the failure was not handed on: {other:?}"),
    }
    assert_eq!(app.decided(), 0);
}

#[test]
fn the_real_reviewer_opens_on_the_first_files_and_decides_once_it_has_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let path = home.path().join("big.diff");
    std::fs::write(&path, &diff).unwrap();
    // `load=sleep` holds the whole batch back for a second and a half.
    let mut term = Terminal::review_armed(home.path(), dir.path(), &path, "load=sleep");
    term.wait_for("the first 64 of 100 file(s)");
    term.keys(&["a"]);
    term.wait_for("1 key(s) waiting for it");
    let whole = term.wait_for("1/100 decided");
    assert!(whole.contains("100 file(s) · 100 change(s)"), "{whole}");
    term.keys(&["c"]);
    term.wait_for("Commit: all of these, or nothing");
    term.keys(&["y"]);
    term.wait_for("Committed");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    let written = std::fs::read_to_string(dir.path().join("src/m0/f000.txt")).unwrap();
    assert!(written.contains("0:ten\n"), "{written}");
    let untouched = std::fs::read_to_string(dir.path().join("src/m0/f001.txt")).unwrap();
    assert!(untouched.contains("1:10\n"), "{untouched}");
}

#[test]
fn the_real_reviewer_ends_with_the_error_of_a_batch_broken_after_its_first_files() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut diff = workspace_and_diff(dir.path(), 1_000);
    // A hunk after junk, in the 90th file: git apply refuses the whole diff, and so does
    // patchdeck, however much of it the first screen showed.
    let at = diff.find("diff --git a/src/m9/f090.txt").unwrap();
    let last_line = "\n 90:11\n";
    let end = at + diff[at..].find(last_line).expect("file 90's hunk") + last_line.len();
    diff.insert_str(end, "junk between hunks\n@@ -1 +1 @@\n-90:1\n+90:one\n");
    let path = home.path().join("broken.diff");
    std::fs::write(&path, &diff).unwrap();
    let before = std::fs::read_to_string(dir.path().join("src/m0/f000.txt")).unwrap();
    let mut term = Terminal::review_armed(home.path(), dir.path(), &path, "load=sleep");
    term.wait_for("the first 64 of 100 file(s)");
    term.keys(&["a"]);
    let (code, screen) = term.wait_exit();
    assert_eq!(code, 2, "the exit status of an invalid input:\n{screen}");
    assert!(
        screen.contains("broken.diff"),
        "the input is named:\n{screen}"
    );
    assert!(screen.contains("line "), "the line is named:\n{screen}");
    let after = std::fs::read_to_string(dir.path().join("src/m0/f000.txt")).unwrap();
    assert_eq!(before, after, "nothing is written");
}

#[test]
fn a_failed_load_ends_the_real_reviewer_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let path = home.path().join("big.diff");
    std::fs::write(&path, &diff).unwrap();
    let mut term = Terminal::review_armed(home.path(), dir.path(), &path, "load=error");
    let (code, screen) = term.wait_exit();
    assert_ne!(code, 0, "{screen}");
    assert!(screen.contains("loading the batch"), "{screen}");
}

#[test]
fn quitting_never_waits_and_the_mouse_does_not_overtake_held_keys() {
    use ratatui::crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    app.key(Key::Char('a'));
    // The wheel over the lists would move the cursor: it is ignored while keys wait.
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 2,
        row: 4,
        modifiers: KeyModifiers::NONE,
    };
    patchdeck::tui::mouse(&mut app, wheel);
    assert_eq!(app.pos, 0);
    arrive(&mut app, &sender, whole(dir.path(), &diff));
    let accepted = app.decisions().decided().keys().next().unwrap().clone();
    assert_eq!(
        accepted,
        app.change(0).change.id,
        "the accept the person typed, on change 1"
    );

    let (mut app, _held_back) = behind(dir.path(), &diff, false);
    assert_eq!(
        app.key(Key::Char('q')),
        Effect::Quit,
        "q quits when nothing waits"
    );
    let (mut app, sender) = behind(dir.path(), &diff, false);
    // A search typed ahead: its `q` is a letter of it, not quitting.
    for key in "/eq".chars() {
        assert_eq!(app.key(Key::Char(key)), Effect::None);
    }
    assert_eq!(
        app.key(Key::Ctrl('c')),
        Effect::Quit,
        "Ctrl-c is never held"
    );
    arrive(&mut app, &sender, whole(dir.path(), &diff));
    assert_eq!(
        app.search.query, "eq",
        "the search was typed on the whole batch"
    );
}

#[test]
fn held_keys_act_on_the_change_they_were_typed_on_when_a_later_section_joins_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut diff = workspace_and_diff(dir.path(), 1_000);
    // After the first files, a section changes line 2 of f005, above the change shown.
    let path = "src/m0/f005.txt";
    diff.push_str(&format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n 5:1\n-5:2\n+5:two\n 5:3\n"
    ));
    let (mut app, sender) = behind(dir.path(), &diff, false);
    for _ in 0..5 {
        app.key(Key::Char('j'));
    }
    assert_eq!(app.change(app.pos).file.doc_path, path);
    app.key(Key::Char('a'));
    arrive(&mut app, &sender, whole(dir.path(), &diff));
    let file = app
        .review()
        .batch()
        .files
        .iter()
        .find(|f| f.doc_path == path)
        .unwrap();
    assert_eq!(file.changes.len(), 2, "the later section joined the file");
    let decided: Vec<_> = file
        .changes
        .iter()
        .map(|c| app.decisions().get(&c.id).clone())
        .collect();
    let line_ten = file
        .changes
        .iter()
        .position(|c| c.range.start == 9)
        .unwrap();
    assert_eq!(
        decided[line_ten],
        patchdeck::review::Decision::Accept,
        "{decided:?}"
    );
    assert_eq!(
        decided[1 - line_ten],
        patchdeck::review::Decision::Undecided,
        "{decided:?}"
    );
}

#[test]
fn held_keys_stop_at_the_first_question_and_the_rest_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    // Accept every verified change, yes; commit, yes: typed before any of it was shown.
    for key in ['V', 'y', 'c', 'y'] {
        app.key(Key::Char(key));
    }
    arrive(&mut app, &sender, whole(dir.path(), &diff));
    assert_eq!(
        app.decided(),
        0,
        "nothing accepted without the question shown"
    );
    assert_eq!(
        app.mode(),
        Mode::ConfirmAcceptVerified,
        "the question is asked"
    );
    let text = screen(&mut app, 120, 40);
    assert!(text.contains("Accept"), "{text}");
    let written = std::fs::read_to_string(dir.path().join("src/m9/f099.txt")).unwrap();
    assert!(written.contains("99:10\n"), "nothing written");
}

#[test]
fn what_the_session_says_is_read_before_held_keys_are_done() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let loaded = whole(dir.path(), &diff);
    let session = session_of(&loaded);
    std::fs::create_dir_all(session.path().parent().unwrap()).unwrap();
    std::fs::write(session.path(), "{ not a session").unwrap();
    let (mut app, sender) = behind(dir.path(), &diff, false);
    app.key(Key::Char('a'));
    arrive(&mut app, &sender, loaded);
    assert_eq!(app.decided(), 0, "the held accept is not done");
    let (_, text) = app.status_text().unwrap();
    assert!(text.contains("saved session not used"), "{text}");
    assert!(
        text.contains("1 key(s) typed while the batch loaded were not done"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(session.path()).unwrap(),
        "{ not a session",
        "the session is as it was"
    );
}

#[test]
fn held_keys_are_done_on_the_change_they_were_typed_on_even_when_a_session_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let loaded = whole(dir.path(), &diff);
    // The session decided the first change; the person, on it, rejects it while loading.
    let first = loaded.checked.batch.files[0].changes[0].id.clone();
    save_accepting(&loaded, [first.clone()]);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    app.key(Key::Char('r'));
    arrive(&mut app, &sender, loaded);
    assert_eq!(app.restored, 1);
    assert_eq!(
        *app.decisions().get(&first),
        patchdeck::review::Decision::Reject,
        "the reject was done on the change shown, not the first undecided one"
    );
    assert_eq!(app.decided(), 1);
}

#[test]
fn keys_after_the_editor_are_dropped_and_said_after_what_the_editor_did() {
    let dir = tempfile::tempdir().unwrap();
    let diff = workspace_and_diff(dir.path(), 1_000);
    let (mut app, sender) = behind(dir.path(), &diff, false);
    for key in ['e', 'j', 'a'] {
        app.key(Key::Char(key));
    }
    sender.send(Ok(whole(dir.path(), &diff))).unwrap();
    let Some(Arrived::Loaded(held)) = app.poll_loading() else {
        panic!("the whole batch did not arrive");
    };
    let (effect, dropped) = app.replay(held);
    let Effect::RunEditor { pos, buffer } = effect else {
        panic!("the held `e` asks for the editor: {effect:?}");
    };
    assert_eq!(dropped, 2, "`j a` were typed before the editor was there");
    // The editor gives the lines back unchanged; then the loop says what was dropped.
    app.finish_edit(pos, Ok(buffer));
    app.say_dropped(dropped);
    let (_, text) = app.status_text().unwrap();
    assert!(
        text.contains("2 more key(s) typed while the batch loaded were not done"),
        "{text}"
    );
    assert_eq!(app.decided(), 0);
}
