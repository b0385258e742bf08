//! The reviewer: a keyboard-driven terminal UI over the core, and the only place in patchdeck
//! that knows a terminal (ratatui, crossterm, syntect live here and nowhere else; a test holds
//! that boundary).
//!
//! One loop: a terminal event becomes an [`keys::Action`] through the key map, [`app::App`]
//! updates, and [`draw::draw`] redraws from the state alone. What a key needs measured (a page
//! of the main pane, how far an overlay scrolls, what was clicked) it asks of [`layout`], as
//! the drawing does; the update never calls the drawing. Running the editor is the one
//! effect that needs the terminal itself, so `update` hands it back to the loop, which suspends
//! the screen around it. A screen painted with provisional syntax colours is redrawn when the
//! background parser catches up (`highlight`). Deciding, searching, editing and committing each have their own file.

pub mod app;
pub mod caller;
pub mod commit_flow;
pub mod decide;
pub mod draw;
pub mod editor;
pub mod env;
pub mod glyphs;
pub mod handback;
pub mod highlight;
pub mod keys;
pub mod layout;
pub mod loading;
pub mod note;
pub mod place;
pub mod saver;
pub mod scroll;
pub mod search;
pub mod summary;
pub mod text;
pub mod theme;
pub mod words;

use app::{App, Effect};
use keys::{Action, Key, Mode};
use layout::list_window;
use loading::Arrived;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEvent,
    MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::layout::{Position, Rect};
use ratatui::DefaultTerminal;
use std::io::{self, stdout};
use std::time::Duration;

/// Checks the reviewer's settings in a configuration, once, for every subcommand (a setting
/// the reviewer would refuse is refused by `check` too): the key map with its remappings, and
/// the theme. Each error names where the setting was written.
pub fn check_settings(config: &crate::config::Config) -> Result<keys::KeyMap, String> {
    let keymap = keys::KeyMap::with_overrides(&config.keys)?;
    theme::Palette::load(&config.theme.value, env::ColorDepth::TrueColor)
        .map_err(|e| format!("{}: theme: {e}", config.theme.origin))?;
    Ok(keymap)
}

/// Runs the reviewer on the terminal until the person quits, or until the batch whose first
/// files it shows turns out not to load (that error).
pub fn run(app: &mut App) -> Result<(), crate::error::Error> {
    let result = on_terminal(|terminal| event_loop(terminal, app));
    app.flush_session();
    match result? {
        Some(failed) => Err(failed),
        None => Ok(()),
    }
}

/// Runs `work` on the terminal, made ready for the reviewer (the alternate screen, raw mode,
/// the mouse) and given back as it was afterwards, whatever `work` does.
pub fn on_terminal<T>(
    work: impl FnOnce(&mut DefaultTerminal) -> io::Result<T>,
) -> Result<T, crate::error::Error> {
    let drawing = |e| crate::error::Error::io("drawing the reviewer on the terminal", e);
    let mut terminal = ratatui::try_init().map_err(drawing)?;
    let _ = execute!(stdout(), EnableMouseCapture);
    let result = work(&mut terminal);
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
    result.map_err(drawing)
}

/// Runs the reviewer on a terminal made ready by [`on_terminal`] until the person quits
/// (`None`) or the whole batch fails to load.
pub fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
) -> io::Result<Option<crate::error::Error>> {
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    loop {
        terminal.draw(|frame| draw::draw(frame, app))?;
        if app.is_loading() {
            match wait_while_loading(app)? {
                Some(Arrived::Failed(error)) => return Ok(Some(error)),
                Some(Arrived::Loaded(held)) => {
                    let (effect, dropped) = app.replay(held);
                    if do_effect(terminal, app, effect)? {
                        return Ok(None);
                    }
                    app.say_dropped(dropped);
                    continue;
                }
                // The header has a new stage to say.
                None if !event::poll(Duration::ZERO)? => continue,
                None => {}
            }
        }
        count_summary_while_idle(terminal, app)?;
        let effect = match next_event(terminal, app)? {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                Key::of(&key).map_or(Effect::None, |key| app.key(key))
            }
            Event::Mouse(mouse_event) => {
                mouse(app, mouse_event);
                Effect::None
            }
            Event::Resize(width, height) => {
                app.size = (width, height);
                Effect::None
            }
            _ => Effect::None,
        };
        if do_effect(terminal, app, effect)? {
            return Ok(None);
        }
    }
}

/// Does what only the loop can; true when the reviewer is to end.
fn do_effect(terminal: &mut DefaultTerminal, app: &mut App, effect: Effect) -> io::Result<bool> {
    match effect {
        Effect::None => {}
        Effect::Quit => return Ok(true),
        Effect::RunEditor { pos, buffer } => {
            let _ = execute!(stdout(), DisableMouseCapture);
            ratatui::restore();
            let saved = editor::run(&app.env.editor, &buffer, &std::env::temp_dir())
                .map_err(|e| format!("the editor failed: {e}"));
            *terminal = ratatui::try_init()?;
            let _ = execute!(stdout(), EnableMouseCapture);
            terminal.clear()?;
            app.finish_edit(pos, saved);
        }
    }
    Ok(false)
}

/// How often the loop looks whether the whole batch has arrived, while it loads.
const LOADING_POLL: Duration = Duration::from_millis(10);

/// Waits while the whole batch loads, until a terminal event comes (`None`, and the loop reads
/// it), the batch arrives, or its load moves on to a stage the header should say.
fn wait_while_loading(app: &mut App) -> io::Result<Option<Arrived>> {
    loop {
        if event::poll(LOADING_POLL)? {
            return Ok(None);
        }
        if let Some(arrived) = app.poll_loading() {
            return Ok(Some(arrived));
        }
        if app.loading_moved_on() || app.highlighter.repaint_due() {
            return Ok(None);
        }
    }
}

/// Counts the lines of the commit summary shown, a step at a time while no terminal event
/// waits, redrawing after each step (see `summary::Summary`).
fn count_summary_while_idle(terminal: &mut DefaultTerminal, app: &mut App) -> io::Result<()> {
    while app.summary_counting() && !event::poll(Duration::ZERO)? {
        app.count_summary(summary::STEP);
        terminal.draw(|frame| draw::draw(frame, app))?;
    }
    Ok(())
}

/// How often the header of an agent's batch is redrawn while no key comes.
const CALLER_POLL: Duration = Duration::from_millis(250);

/// How often the loop looks whether the background parser has reached a provisionally
/// coloured screen.
const REPAINT_POLL: Duration = Duration::from_millis(50);

/// The next terminal event. While the screen shows provisional syntax colours (see
/// `highlight`), it is redrawn as soon as the background parser has reached it.
fn next_event(terminal: &mut DefaultTerminal, app: &App) -> io::Result<Event> {
    // An agent's batch: what the header says of it (batches behind it, the agent gone) moves
    // on without a key.
    if app.caller.is_some() {
        while !event::poll(CALLER_POLL)? {
            terminal.draw(|frame| draw::draw(frame, app))?;
        }
    }
    while app.highlighter.waiting() {
        if event::poll(REPAINT_POLL)? {
            break;
        }
        if app.highlighter.repaint_due() {
            terminal.draw(|frame| draw::draw(frame, app))?;
            if app.highlighter.repaint_due() {
                // The screen no longer shows what waited (no diff is drawn): nothing to wait for.
                break;
            }
        }
    }
    event::read()
}

/// Mouse: the wheel scrolls the diff (or moves between changes over the lists), sideways too;
/// a click selects the file or change under it.
pub fn mouse(app: &mut App, event: MouseEvent) {
    if app.mode() != Mode::Browse || app.holds_keys() {
        return;
    }
    let areas = layout::areas(app);
    let at = Position::new(event.column, event.row);
    let over_lists = areas.files.contains(at) || areas.changes.contains(at);
    match event.kind {
        MouseEventKind::ScrollDown if over_lists => {
            app.update(Action::NextChange);
        }
        MouseEventKind::ScrollUp if over_lists => {
            app.update(Action::PrevChange);
        }
        MouseEventKind::ScrollDown => app.scroll_by(3),
        MouseEventKind::ScrollUp => app.scroll_by(-3),
        MouseEventKind::ScrollRight => {
            app.update(Action::ScrollRight);
        }
        MouseEventKind::ScrollLeft => {
            app.update(Action::ScrollLeft);
        }
        MouseEventKind::Down(MouseButton::Left) => {
            let row_in = |area: Rect| {
                (at.y > area.y && at.y < area.y + area.height - 1)
                    .then(|| (at.y - area.y - 1) as usize)
            };
            if let Some(row) = areas
                .files
                .contains(at)
                .then(|| row_in(areas.files))
                .flatten()
            {
                let files = app.review().batch().files.len();
                let height = areas.files.height.saturating_sub(2) as usize;
                let file = list_window(files, app.file_index(), height) + row;
                if let Some(pos) = app.first_of_file(file) {
                    app.go(pos);
                }
            } else if let Some(row) = areas
                .changes
                .contains(at)
                .then(|| row_in(areas.changes))
                .flatten()
            {
                let Some(first) = app.first_of_file(app.file_index()) else {
                    return;
                };
                let count = app.review().batch().files[app.file_index()].changes.len();
                let height = areas.changes.height.saturating_sub(2) as usize;
                let index = list_window(count, app.pos - first, height) + row;
                if index < count {
                    app.go(first + index);
                }
            }
        }
        _ => {}
    }
}
