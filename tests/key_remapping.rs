//! Keys remapped in the configuration's `[keys]` table: the remapped key drives the reviewer and
//! shows in the footer and the help; a bad remap says where and why (an unknown action or key
//! name, a key left meaning two actions); and with every reviewing action on another key, no
//! message, hint, summary line or screen names a default key.

use crate::common::reviewer;
use crate::common::sample_workspace;
use patchdeck::config::{KeyOverride, Origin};
use patchdeck::tui::draw::draw;
use patchdeck::tui::keys::{Action, Key, KeyMap, Mode};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn remap(pairs: &[(&str, &[&str])]) -> Result<KeyMap, String> {
    let overrides: Vec<KeyOverride> = pairs
        .iter()
        .enumerate()
        .map(|(i, (action, keys))| KeyOverride {
            action: (*action).to_owned(),
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            origin: Origin::File {
                path: "/c.toml".into(),
                line: i + 2,
            },
        })
        .collect();
    KeyMap::with_overrides(&overrides)
}

#[test]
fn remapped_keys_drive_the_reviewer_and_show_in_footer_and_help() {
    let keymap = remap(&[("accept", &["y"]), ("reject", &["x"]), ("help", &["H"])]).unwrap();
    assert_eq!(
        keymap.lookup(Mode::Browse, Key::Char('y')),
        Some(Action::Accept)
    );
    assert_eq!(keymap.lookup(Mode::Browse, Key::Char('a')), None);

    let ws = sample_workspace();
    let mut app = reviewer::open(ws.path(), reviewer::Open::default());
    app.keymap = keymap;
    let footer: String = patchdeck::tui::draw::footer_spans(&app, 200)
        .iter()
        .map(|s| s.content.to_string())
        .collect();
    assert!(footer.contains(" y accept"), "{footer}");
    assert!(footer.contains(" x reject"), "{footer}");
    assert!(footer.contains(" H help"), "{footer}");
    assert!(!footer.contains(" a accept"), "{footer}");

    // The remapped key decides; the old one no longer does.
    let first = app.pos;
    app.key(Key::Char('a'));
    assert!(app.decisions().decided().is_empty());
    app.key(Key::Char('y'));
    assert_eq!(
        app.decisions().decided().len(),
        1,
        "y accepted change {first}"
    );

    app.key(Key::Char('H'));
    assert_eq!(app.mode(), Mode::Help);
    let mut terminal = Terminal::new(TestBackend::new(100, 60)).unwrap();
    app.size = (100, 60);
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let screen: String = (0..60)
        .map(|y| {
            (0..100)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
                + "\n"
        })
        .collect();
    let accept_line = screen
        .lines()
        .find(|l| l.contains("accept the change"))
        .unwrap_or_else(|| panic!("help lists accept:\n{screen}"));
    assert!(accept_line.contains("│  y "), "{accept_line}");
    assert!(!accept_line.contains("│  a "), "{accept_line}");
}

#[test]
fn bad_key_remaps_say_where_and_why() {
    let error = remap(&[("acept", &["y"])]).unwrap_err();
    assert!(
        error.starts_with("/c.toml:2: keys.acept: unknown action"),
        "{error}"
    );
    let error = remap(&[("accept", &["Hyper-q"])]).unwrap_err();
    assert!(error.contains("\"Hyper-q\" is not a key name"), "{error}");
    // `r` still means reject: a clash, unless reject moves too.
    let error = remap(&[("accept", &["r"])]).unwrap_err();
    assert!(
        error.contains("would mean both accept and reject"),
        "{error}"
    );
    let swapped = remap(&[("accept", &["r"]), ("reject", &["a"])]).unwrap();
    assert_eq!(
        swapped.lookup(Mode::Browse, Key::Char('r')),
        Some(Action::Accept)
    );
    assert_eq!(
        swapped.lookup(Mode::Browse, Key::Char('a')),
        Some(Action::Reject)
    );
    let ctrl = remap(&[("redo", &["C-y", "Space"]), ("page_down", &["PageDown"])]).unwrap();
    assert_eq!(
        ctrl.lookup(Mode::Browse, Key::Ctrl('y')),
        Some(Action::Redo)
    );
    assert_eq!(
        ctrl.lookup(Mode::Browse, Key::Char(' ')),
        Some(Action::Redo)
    );
}

/// With every reviewing action on another key, no message, hint, summary line or screen
/// names a default key: each sentence is made from the key map in effect.
#[test]
fn with_every_key_remapped_no_message_names_a_default_key() {
    use patchdeck::review::{At, Refusal, StillBlocking, Way};
    use patchdeck::tui::words::{Asked, Words};
    let keymap = remap(&[
        ("accept", &["Y"]),
        ("reject", &["B"]),
        ("edit", &["E"]),
        ("move", &["W"]),
        ("override_sha", &["O"]),
        ("commit", &["C"]),
        ("quit", &["Q"]),
        ("undo", &["Z"]),
        ("help", &["H"]),
    ])
    .unwrap();
    let mut said: Vec<String> = Vec::new();
    for batch in ["demo.json", "moved-line.json", "clean.json"] {
        let ws = sample_workspace();
        let mut app = reviewer::open(
            ws.path(),
            reviewer::Open {
                batch,
                session: false,
                keymap: keymap.clone(),
                ..reviewer::Open::default()
            },
        );
        app.size = (200, 60);
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
        let mut screen = |app: &patchdeck::tui::app::App| {
            terminal.draw(|frame| draw(frame, app)).unwrap();
            let buffer = terminal.backend().buffer().clone();
            (0..60)
                .map(|y| {
                    (0..200)
                        .map(|x| buffer[(x, y)].symbol().to_owned())
                        .collect::<String>()
                        + "\n"
                })
                .collect::<String>()
        };
        for pos in 0..app.flat.len() {
            for key in ["Y", "Z", "W", "O", "B", "Z", "E"] {
                app.go(pos);
                said.push(screen(&app));
                let effect = app.key(Key::Char(key.chars().next().unwrap()));
                if let patchdeck::tui::app::Effect::RunEditor { .. } = effect {
                    continue;
                }
                said.extend(app.message.as_ref().map(|m| m.text.clone()));
            }
        }
        // Move and override where that works, accept the rest, then the summary.
        for pos in 0..app.flat.len() {
            app.go(pos);
            app.key(Key::Char('M'));
            app.key(Key::Char('O'));
            app.key(Key::Char('Y'));
            said.extend(app.message.as_ref().map(|m| m.text.clone()));
            said.push(screen(&app));
        }
        app.key(Key::Char('C'));
        said.extend(app.summary_lines().iter().map(|l| l.text.clone()));
        said.push(screen(&app));
        // Every refusal the core can give, in this key map's words.
        let words = Words::new(&keymap);
        let at = At::default();
        let refusals = [
            Refusal::Unplaced { places: vec![] },
            Refusal::Unplaced { places: vec![3, 9] },
            Refusal::Invalid { why: "x".into() },
            Refusal::Conflict {
                ways: vec![Way::Edit, Way::Relocate { to: 4 }, Way::Reject],
            },
            Refusal::Deletion,
            Refusal::NotInFile,
            Refusal::NoPlace { why: "x".into() },
            Refusal::NothingToTake,
            Refusal::NothingToOverride,
            Refusal::Unresolved {
                changes: vec![StillBlocking {
                    at,
                    stuck: patchdeck::review::rules::Stuck::UnverifiedUnderOverride,
                    ways: vec![Way::Edit, Way::Relocate { to: 2 }, Way::Reject],
                }],
            },
        ];
        for refusal in &refusals {
            for asked in [Asked::Accept, Asked::Edit, Asked::Relocate, Asked::Override] {
                said.push(words.refusal(asked, refusal, app.review()));
            }
        }
        said.extend([
            words.committed(),
            words.all_decided(),
            words.accepted_before_override(patchdeck::review::FileOverride::Sha),
            words.accepted_before_override(patchdeck::review::FileOverride::Overwrite),
            words.edit_unchanged(),
        ]);
    }
    let defaults = [
        "a accept",
        "r reject",
        "e edit",
        "m move",
        "o override",
        "c shows",
        "q quits",
        "u undo",
        "(m undoes)",
        "(o undoes)",
        "(m takes",
        "(o takes",
        "o on a change",
        "m on the change",
        "then o ",
        "r rejects",
        "e edits",
        "m moves",
    ];
    // `phrase` as words of their own: "or rejected" does not name the key r.
    let names = |text: &str, phrase: &str| {
        text.match_indices(phrase).any(|(at, _)| {
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
    };
    for text in &said {
        for default in defaults {
            assert!(
                !names(text, default),
                "names the default key ({default:?}):\n{text}"
            );
        }
    }
    let all = said.join("\n");
    for remapped in [
        "W moves",
        "B rejects",
        "E edits",
        "O overrides",
        "Q quits",
        "C shows",
    ] {
        assert!(all.contains(remapped), "no message says {remapped:?}");
    }
}
