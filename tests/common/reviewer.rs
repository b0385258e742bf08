//! Helpers for the reviewer's tests: a reviewer opened on one of the sample batches over a
//! workspace, with an environment the test chooses, and keys pressed in it.

use super::samples;
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::review::ChangeView;
use patchdeck::session::Session;
use patchdeck::tui::app::{App, Config, ReviewerSetup};
use patchdeck::tui::env::{ColorDepth, Env};
use patchdeck::tui::keys::{Key, KeyMap};
use patchdeck::tui::theme::Palette;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// How a test opens the reviewer.
pub struct Open<'a> {
    pub batch: &'a str,
    pub colors: ColorDepth,
    pub editor: Option<String>,
    pub session: bool,
    pub fresh: bool,
    pub read_only: bool,
    pub theme: &'a str,
    pub keymap: KeyMap,
}

impl Default for Open<'_> {
    fn default() -> Self {
        Open {
            batch: "demo.json",
            colors: ColorDepth::TrueColor,
            editor: None,
            session: true,
            fresh: false,
            read_only: false,
            theme: "dark",
            keymap: KeyMap::default(),
        }
    }
}

/// The reviewer on a sample batch (named by its file under `sample-batches/`, given a stable
/// source name so snapshots do not depend on temporary paths) over the workspace at `root`.
pub fn open(root: &Path, how: Open) -> App {
    let bytes = fs::read(samples().join(how.batch)).unwrap();
    open_bytes(root, how.batch, bytes, how)
}

/// The reviewer on the demo batch over the workspace at `root`, without a session.
pub fn open_demo(root: &Path) -> App {
    open(
        root,
        Open {
            session: false,
            ..Open::default()
        },
    )
}

/// The reviewer on a batch given as bytes (named `name`), without a session.
pub fn open_input(root: &Path, name: &str, bytes: &[u8]) -> App {
    let how = Open {
        session: false,
        ..Open::default()
    };
    open_bytes(root, name, bytes.to_vec(), how)
}

/// The screen of the reviewer at `width` x `height`, as text.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    use ratatui::backend::TestBackend;
    app.size = (width, height);
    let mut terminal = ratatui::Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| patchdeck::tui::draw::draw(frame, app))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    (0..height)
        .map(|y| {
            let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
            line.trim_end().to_owned() + "\n"
        })
        .collect()
}

pub fn open_bytes(root: &Path, name: &str, bytes: Vec<u8>, how: Open) -> App {
    let opened = pipeline::open(root, pipeline::Access::Write, Duration::from_secs(5)).unwrap();
    let input = Input::from_bytes(name, bytes);
    let checked = pipeline::load(&opened.workspace, &input, None).unwrap();
    let no_color = (how.colors == ColorDepth::None).then(|| "1".to_owned());
    let colorterm = (how.colors == ColorDepth::TrueColor).then(|| "truecolor".to_owned());
    let env = Env::from_vars(no_color, colorterm, None, how.editor.clone());
    let palette = Palette::load(how.theme, env.colors).unwrap();
    let session = how
        .session
        .then(|| Session::for_batch(&opened.workspace, &checked.batch));
    App::new(ReviewerSetup {
        workspace: opened.workspace,
        checked,
        env,
        palette,
        keymap: how.keymap,
        config: Config {
            read_only: how.read_only,
            report: None,
            stage: false,
        },
        session,
        fresh: how.fresh,
    })
}

/// Presses keys given as a string: each character is a key.
pub fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let effect = app.key(Key::Char(c));
        assert_eq!(
            effect,
            patchdeck::tui::app::Effect::None,
            "key {c:?} asked for an effect the test does not run"
        );
    }
}

/// The key (or "#N") of the selected change.
pub fn selected_key(app: &App) -> String {
    let ChangeView { change, .. } = app.change(app.pos);
    change.key.clone().unwrap_or_default()
}

/// The status line's message, or nothing.
pub fn message(app: &App) -> String {
    app.message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

/// Moves to the change with this key.
pub fn select(app: &mut App, key: &str) {
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.key.as_deref() == Some(key))
        .unwrap_or_else(|| panic!("no change {key}"));
    app.go(pos);
}

/// Writes an executable editor script that runs `body` (sh) with the file as "$1".
pub fn editor_script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// Runs the editor the reviewer asked for (`effect`), in `dir`, and hands back what it saved.
pub fn run_edit(app: &mut App, effect: patchdeck::tui::app::Effect, dir: &Path) {
    let patchdeck::tui::app::Effect::RunEditor { pos, buffer } = effect else {
        panic!("expected the editor to be asked for, got {effect:?}");
    };
    let saved =
        patchdeck::tui::editor::run(&app.env.editor, &buffer, dir).map_err(|e| e.to_string());
    app.finish_edit(pos, saved);
}
