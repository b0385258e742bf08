//! The one key map: every key the reviewer understands, in every mode, as a named [`Action`].
//!
//! The event loop looks keys up here, the footer lists the bindings of the current mode that
//! apply right now, and the help overlay lists them all, so the three cannot drift apart. This
//! module knows keys and names; what an action does lives in the app's `update`.

use crate::config::KeyOverride;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::borrow::Cow;

/// Everything a person can ask the reviewer to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    NextChange,
    PrevChange,
    NextFile,
    PrevFile,
    NextConflict,
    FirstChange,
    LastChange,
    PageDown,
    PageUp,
    /// The top of the selected change's diff.
    DiffTop,
    /// The end of the selected change's diff.
    DiffEnd,
    ScrollLeft,
    ScrollRight,
    Accept,
    Reject,
    AcceptFile,
    RejectFile,
    AcceptVerified,
    Filter,
    Edit,
    /// Write a conflict's proposal, as it is, over the lines on disk (asks first).
    TakeOver,
    Relocate,
    /// Move every conflict the evidence places where its expected lines stand.
    RelocateAll,
    Place,
    OverrideSha,
    Undo,
    Redo,
    ToggleWholeFile,
    Search,
    SearchNext,
    SearchPrev,
    Help,
    CommitSummary,
    /// Write a note on the change for the model (rejecting it when undecided).
    Note,
    /// Write a note on the whole batch for the model.
    BatchNote,
    /// Write the feedback for the model that wrote the batch.
    Feedback,
    /// Write the batch as decided, rebased on the files as they are.
    Export,
    Quit,
    /// `y` in a prompt: commit, quit, reload.
    Confirm,
    /// `n` or Esc in a prompt or overlay.
    Cancel,
    EditAgain,
    Discard,
}

/// Which set of keys is live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Browse,
    Help,
    /// Typing a search (keys other than these are text).
    Search,
    CommitSummary,
    Committed,
    ConfirmQuit,
    EditFailed,
    Reload,
    /// Choosing where to place a change (digits type a line).
    Place,
    ConfirmAcceptVerified,
    /// Taking a conflict's proposal over the lines on disk, once the person has seen both.
    ConfirmTakeOver,
    /// Typing a note for the model (keys other than these are text).
    Note,
}

/// A key as the map names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    Esc,
    Backspace,
}

impl Key {
    /// The key of a terminal key event, when the map can name it.
    pub fn of(event: &KeyEvent) -> Option<Key> {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        Some(match event.code {
            KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Esc,
            KeyCode::Backspace => Key::Backspace,
            _ => return None,
        })
    }

    /// Reads a key name as the config file writes it: a character, `C-x`, `Space`, `Enter`,
    /// `Esc`, `Backspace`, `Up`, `Down`, `Left`, `Right`, `PageUp`, `PageDown`, `Home`, `End`.
    pub fn parse(name: &str) -> Option<Key> {
        let mut chars = name.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Some(Key::Char(c));
        }
        if let Some(rest) = name
            .strip_prefix("C-")
            .or_else(|| name.strip_prefix("Ctrl-"))
        {
            let mut chars = rest.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                return Some(Key::Ctrl(c.to_ascii_lowercase()));
            }
            return None;
        }
        Some(match name.to_ascii_lowercase().as_str() {
            "space" => Key::Char(' '),
            "enter" | "return" => Key::Enter,
            "esc" | "escape" => Key::Esc,
            "backspace" => Key::Backspace,
            "up" => Key::Up,
            "down" => Key::Down,
            "left" => Key::Left,
            "right" => Key::Right,
            "pageup" | "pgup" => Key::PageUp,
            "pagedown" | "pgdn" => Key::PageDown,
            "home" => Key::Home,
            "end" => Key::End,
            _ => return None,
        })
    }

    pub fn label(self) -> String {
        match self {
            Key::Char(' ') => "Space".into(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("C-{c}"),
            Key::Up => "↑".into(),
            Key::Down => "↓".into(),
            Key::Left => "←".into(),
            Key::Right => "→".into(),
            Key::PageUp => "PgUp".into(),
            Key::PageDown => "PgDn".into(),
            Key::Home => "Home".into(),
            Key::End => "End".into(),
            Key::Enter => "Enter".into(),
            Key::Esc => "Esc".into(),
            Key::Backspace => "Backspace".into(),
        }
    }
}

/// One line of the key map.
#[derive(Clone, Debug)]
pub struct Binding {
    pub mode: Mode,
    pub keys: Cow<'static, [Key]>,
    pub action: Action,
    /// A word or two for the footer.
    pub short: &'static str,
    /// A sentence for the help overlay.
    pub help: &'static str,
}

use Action as A;
use Key as K;
use Mode as M;

const fn bind(
    mode: Mode,
    keys: &'static [Key],
    action: Action,
    short: &'static str,
    help: &'static str,
) -> Binding {
    Binding {
        mode,
        keys: Cow::Borrowed(keys),
        action,
        short,
        help,
    }
}

/// The key map, in the order the footer and the help show it: the order is the footer's
/// priority (it shows as many of the keys that apply now as fit, skipping the rest), so deciding
/// comes first, then committing and undoing, then moving around.
#[rustfmt::skip]
pub static BINDINGS: &[Binding] = &[
    bind(M::Browse, &[K::Char('a')], A::Accept, "accept", "accept the change, go to the next undecided one"),
    bind(M::Browse, &[K::Char('r')], A::Reject, "reject", "reject the change, go to the next undecided one"),
    bind(M::Browse, &[K::Char('e')], A::Edit, "edit", "edit the change's lines in $VISUAL/$EDITOR (accepts it)"),
    bind(M::Browse, &[K::Char('m')], A::Relocate, "move", "move a conflicting change to where its expected lines were found (accepts it)"),
    bind(M::Browse, &[K::Char('p')], A::Place, "place", "place a conflicting change at a line you pick or type (accepts it)"),
    bind(M::Browse, &[K::Char('o')], A::OverrideSha, "override", "write the file over its SHA-256 mismatch, or over a file where it creates one"),
    bind(M::Browse, &[K::Char('c')], A::CommitSummary, "commit", "review what will be written, then commit"),
    bind(M::Browse, &[K::Char('u')], A::Undo, "undo", "undo the last decision"),
    bind(M::Browse, &[K::Ctrl('r'), K::Char('U')], A::Redo, "redo", "redo what was undone"),
    bind(M::Browse, &[K::Right, K::Char('l')], A::ScrollRight, "scroll", "scroll long lines right (› marks a line that goes on)"),
    bind(M::Browse, &[K::Left, K::Char('h')], A::ScrollLeft, "scroll", "scroll long lines back left (‹ marks a line that starts earlier)"),
    bind(M::Browse, &[K::Char('!')], A::NextConflict, "next conflict", "next conflicting change (its own lines, or its file's SHA-256 or state)"),
    bind(M::Browse, &[K::Char('j'), K::Down], A::NextChange, "next", "next change (into the next file)"),
    bind(M::Browse, &[K::Char('k'), K::Up], A::PrevChange, "prev", "previous change (into the previous file)"),
    bind(M::Browse, &[K::Char(']'), K::Char('J')], A::NextFile, "next file", "first change of the next file"),
    bind(M::Browse, &[K::Char('['), K::Char('K')], A::PrevFile, "prev file", "first change of the previous file"),
    bind(M::Browse, &[K::Char('A')], A::AcceptFile, "accept file", "accept every change of this file that verifies"),
    bind(M::Browse, &[K::Char('R')], A::RejectFile, "reject file", "reject every change of this file"),
    bind(M::Browse, &[K::Char('V')], A::AcceptVerified, "accept verified", "accept every undecided change that verifies, batch-wide (asks first)"),
    bind(M::Browse, &[K::Char('T')], A::TakeOver, "take", "write a conflict's proposal as it is over the lines on disk (shows both first; accepts it)"),
    bind(M::Browse, &[K::Char('&')], A::RelocateAll, "move all", "move every undecided conflict whose expected lines stand at one place the evidence supports (accepts them)"),
    bind(M::Browse, &[K::Char('t')], A::Note, "tell", "tell the model why: a note with this change (rejects it when undecided)"),
    bind(M::Browse, &[K::Char('M')], A::BatchNote, "message", "a note for the model on the whole batch"),
    bind(M::Browse, &[K::Char('F')], A::Feedback, "feedback", "write what failed and what is on disk, for the model (as `patchdeck feedback`)"),
    bind(M::Browse, &[K::Char('X')], A::Export, "export", "write the batch as decided, rebased on the files now (as `patchdeck export`)"),
    bind(M::Browse, &[K::Char('w')], A::ToggleWholeFile, "whole file", "toggle: this change, or the whole file with all changes in place"),
    bind(M::Browse, &[K::Char('/')], A::Search, "search", "search paths, keys, IDs, labels, descriptions and lines"),
    bind(M::Browse, &[K::Char('n')], A::SearchNext, "next match", "next search match"),
    bind(M::Browse, &[K::Char('N')], A::SearchPrev, "prev match", "previous search match"),
    bind(M::Browse, &[K::Char('f')], A::Filter, "filter", "show every change, only undecided ones, or only open conflicts"),
    bind(M::Browse, &[K::Char('g')], A::FirstChange, "first", "first change"),
    bind(M::Browse, &[K::Char('G')], A::LastChange, "last", "last change"),
    bind(M::Browse, &[K::Home], A::DiffTop, "top", "the top of the diff"),
    bind(M::Browse, &[K::End], A::DiffEnd, "end", "the end of the diff (a long one, as in less)"),
    bind(M::Browse, &[K::PageDown, K::Ctrl('d'), K::Char(' ')], A::PageDown, "page down", "scroll the diff down a page"),
    bind(M::Browse, &[K::PageUp, K::Ctrl('u')], A::PageUp, "page up", "scroll the diff up a page"),
    bind(M::Browse, &[K::Char('q'), K::Ctrl('c')], A::Quit, "quit", "quit (asks first when decisions would be lost)"),
    bind(M::Browse, &[K::Char('?')], A::Help, "help", "show every key"),
    bind(M::Help, &[K::Esc, K::Char('?'), K::Char('q')], A::Cancel, "close", "close the help"),
    bind(M::Help, &[K::Char('j'), K::Down], A::NextChange, "scroll", "scroll the help down a line"),
    bind(M::Help, &[K::Char('k'), K::Up], A::PrevChange, "scroll up", "scroll the help up a line"),
    bind(M::Help, &[K::PageDown, K::Char(' '), K::Ctrl('d')], A::PageDown, "page", "scroll the help down a page"),
    bind(M::Help, &[K::PageUp, K::Char('b'), K::Ctrl('u')], A::PageUp, "page up", "scroll the help up a page"),
    bind(M::Help, &[K::Char('g'), K::Home], A::FirstChange, "top", "the help's top"),
    bind(M::Help, &[K::Char('G'), K::End], A::LastChange, "end", "the help's end"),
    bind(M::Search, &[K::Enter], A::Confirm, "find", "go to the first match"),
    bind(M::Search, &[K::Esc], A::Cancel, "cancel", "stop searching"),
    bind(M::Note, &[K::Enter], A::Confirm, "keep", "keep the note (an empty one takes the note away)"),
    bind(M::Note, &[K::Esc], A::Cancel, "cancel", "leave the note as it was"),
    bind(M::CommitSummary, &[K::Char('y')], A::Confirm, "commit", "write every accepted change atomically"),
    bind(M::CommitSummary, &[K::Char('n'), K::Esc], A::Cancel, "back", "back to the review"),
    bind(M::CommitSummary, &[K::Char('j'), K::Down], A::NextChange, "scroll", "scroll the summary down a line"),
    bind(M::CommitSummary, &[K::Char('k'), K::Up], A::PrevChange, "scroll up", "scroll the summary up a line"),
    bind(M::CommitSummary, &[K::PageDown, K::Char(' '), K::Ctrl('d')], A::PageDown, "page", "scroll the summary down a page"),
    bind(M::CommitSummary, &[K::PageUp, K::Char('b'), K::Ctrl('u')], A::PageUp, "page up", "scroll the summary up a page"),
    bind(M::CommitSummary, &[K::Char('g'), K::Home], A::FirstChange, "top", "the summary's top"),
    bind(M::CommitSummary, &[K::Char('G'), K::End], A::LastChange, "end", "the summary's end"),
    bind(M::Committed, &[K::Char('q')], A::Quit, "quit", "quit"),
    bind(M::Committed, &[K::Esc], A::Cancel, "back", "back to the review"),
    bind(M::Committed, &[K::Char('j'), K::Down], A::NextChange, "scroll", "scroll the list down a line"),
    bind(M::Committed, &[K::Char('k'), K::Up], A::PrevChange, "scroll up", "scroll the list up a line"),
    bind(M::Committed, &[K::PageDown, K::Char(' '), K::Ctrl('d')], A::PageDown, "page", "scroll the list down a page"),
    bind(M::Committed, &[K::PageUp, K::Char('b'), K::Ctrl('u')], A::PageUp, "page up", "scroll the list up a page"),
    bind(M::Committed, &[K::Char('g'), K::Home], A::FirstChange, "top", "the list's top"),
    bind(M::Committed, &[K::Char('G'), K::End], A::LastChange, "end", "the list's end"),
    bind(M::ConfirmQuit, &[K::Char('y')], A::Confirm, "quit", "quit now"),
    bind(M::ConfirmQuit, &[K::Char('n'), K::Esc], A::Cancel, "stay", "keep reviewing"),
    bind(M::EditFailed, &[K::Char('e')], A::EditAgain, "edit again", "open the editor again on what you wrote"),
    bind(M::EditFailed, &[K::Char('d'), K::Esc], A::Discard, "discard", "throw the edit away"),
    bind(M::Place, &[K::Enter], A::Confirm, "place", "place the change at the line shown and accept it"),
    bind(M::Place, &[K::Char('j'), K::Down], A::NextChange, "next place", "the next place, further from where it was expected"),
    bind(M::Place, &[K::Char('k'), K::Up], A::PrevChange, "prev place", "the place before"),
    bind(M::Place, &[K::Esc], A::Cancel, "cancel", "leave the change as it was"),
    bind(M::ConfirmAcceptVerified, &[K::Char('y')], A::Confirm, "accept them", "accept every change counted"),
    bind(M::ConfirmAcceptVerified, &[K::Char('n'), K::Esc], A::Cancel, "not now", "back to the review"),
    bind(M::ConfirmTakeOver, &[K::Char('y')], A::Confirm, "take it", "write the proposal over the lines on disk shown, and accept it"),
    bind(M::ConfirmTakeOver, &[K::Char('n'), K::Esc], A::Cancel, "not now", "leave the conflict as it was"),
    bind(M::Reload, &[K::Char('y')], A::Confirm, "reload", "verify again against the files as they are now"),
    bind(M::Reload, &[K::Char('n'), K::Esc], A::Cancel, "not now", "back to the review"),
];

/// The key map in use: the built-in [`BINDINGS`] with the user's remappings applied.
#[derive(Clone, Debug)]
pub struct KeyMap {
    bindings: Vec<Binding>,
}

impl Default for KeyMap {
    fn default() -> KeyMap {
        KeyMap {
            bindings: BINDINGS.to_vec(),
        }
    }
}

/// The names `[keys]` in the config file uses for the reviewing actions (Browse mode).
pub const ACTION_NAMES: &[(&str, Action)] = &[
    ("accept", Action::Accept),
    ("reject", Action::Reject),
    ("edit", Action::Edit),
    ("move", Action::Relocate),
    ("move_all", Action::RelocateAll),
    ("take", Action::TakeOver),
    ("place", Action::Place),
    ("override_sha", Action::OverrideSha),
    ("next", Action::NextChange),
    ("prev", Action::PrevChange),
    ("commit", Action::CommitSummary),
    ("undo", Action::Undo),
    ("redo", Action::Redo),
    ("next_conflict", Action::NextConflict),
    ("next_file", Action::NextFile),
    ("prev_file", Action::PrevFile),
    ("accept_file", Action::AcceptFile),
    ("accept_verified", Action::AcceptVerified),
    ("filter", Action::Filter),
    ("reject_file", Action::RejectFile),
    ("whole_file", Action::ToggleWholeFile),
    ("search", Action::Search),
    ("next_match", Action::SearchNext),
    ("prev_match", Action::SearchPrev),
    ("first", Action::FirstChange),
    ("last", Action::LastChange),
    ("page_down", Action::PageDown),
    ("page_up", Action::PageUp),
    ("diff_top", Action::DiffTop),
    ("diff_end", Action::DiffEnd),
    ("scroll_left", Action::ScrollLeft),
    ("scroll_right", Action::ScrollRight),
    ("note", Action::Note),
    ("batch_note", Action::BatchNote),
    ("feedback", Action::Feedback),
    ("export", Action::Export),
    ("help", Action::Help),
    ("quit", Action::Quit),
];

impl KeyMap {
    /// The built-in map with `overrides` (from the config file) replacing the keys of the
    /// reviewing actions they name. An unknown action or key name, or a key left meaning two
    /// actions, is an error that says where it was written.
    pub fn with_overrides(overrides: &[KeyOverride]) -> Result<KeyMap, String> {
        let mut map = KeyMap::default();
        for o in overrides {
            let at = format!("{}: keys.{}", o.origin, o.action);
            let action = ACTION_NAMES
                .iter()
                .find(|(name, _)| *name == o.action)
                .map(|(_, a)| *a)
                .ok_or_else(|| {
                    let names: Vec<&str> = ACTION_NAMES.iter().map(|(n, _)| *n).collect();
                    format!("{at}: unknown action; the actions are {}", names.join(", "))
                })?;
            let keys = o
                .keys
                .iter()
                .map(|k| Key::parse(k).ok_or_else(|| format!("{at}: \"{k}\" is not a key name (a character, C-x, Space, Enter, Esc, Backspace, Up, Down, Left, Right, PageUp, PageDown, Home, End)")))
                .collect::<Result<Vec<Key>, String>>()?;
            let binding = map
                .bindings
                .iter_mut()
                .find(|b| b.mode == Mode::Browse && b.action == action)
                .expect("every named action has a Browse binding");
            binding.keys = Cow::Owned(keys);
        }
        let browse: Vec<&Binding> = map.bindings(Mode::Browse).collect();
        for (i, a) in browse.iter().enumerate() {
            for b in &browse[i + 1..] {
                if let Some(key) = a.keys.iter().find(|k| b.keys.contains(k)) {
                    let name = |action| {
                        ACTION_NAMES
                            .iter()
                            .find(|(_, x)| *x == action)
                            .map_or("?", |(n, _)| *n)
                    };
                    // Where the remapping that made the clash was written.
                    let at = overrides
                        .iter()
                        .rev()
                        .find(|o| o.action == name(a.action) || o.action == name(b.action))
                        .map_or_else(String::new, |o| {
                            format!("{}: keys.{}: ", o.origin, o.action)
                        });
                    return Err(format!(
                        "{at}key {} would mean both {} and {}; remap one of them too",
                        key.label(),
                        name(a.action),
                        name(b.action)
                    ));
                }
            }
        }
        Ok(map)
    }

    /// The action a key means in a mode.
    pub fn lookup(&self, mode: Mode, key: Key) -> Option<Action> {
        self.bindings
            .iter()
            .find(|b| b.mode == mode && b.keys.contains(&key))
            .map(|b| b.action)
    }

    /// The bindings of a mode, in map order.
    pub fn bindings(&self, mode: Mode) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(move |b| b.mode == mode)
    }

    /// The first key of an action in a mode, as the footer names it.
    pub fn key_for(&self, mode: Mode, action: Action) -> Option<Key> {
        self.bindings(mode)
            .find(|b| b.action == action)
            .and_then(|b| b.keys.first().copied())
    }
}

/// The action a key means in a mode, in the built-in map.
pub fn lookup(mode: Mode, key: Key) -> Option<Action> {
    BINDINGS
        .iter()
        .find(|b| b.mode == mode && b.keys.contains(&key))
        .map(|b| b.action)
}

/// How a binding's keys read: `j/↓`.
pub fn keys_label(binding: &Binding) -> String {
    binding
        .keys
        .iter()
        .map(|k| k.label())
        .collect::<Vec<_>>()
        .join("/")
}

/// What each mode is called in the help overlay.
pub fn mode_title(mode: Mode) -> &'static str {
    match mode {
        Mode::Browse => "Reviewing",
        Mode::Help => "Help",
        Mode::Search => "Typing a search",
        Mode::CommitSummary => "Commit summary",
        Mode::Committed => "After a commit",
        Mode::ConfirmQuit => "Quitting",
        Mode::EditFailed => "An edit that cannot apply",
        Mode::Reload => "A file changed on disk",
        Mode::Place => "Placing a change (digits type a line)",
        Mode::ConfirmAcceptVerified => "Accepting every verified change",
        Mode::ConfirmTakeOver => "Taking a proposal over the lines on disk",
        Mode::Note => "Typing a note for the model",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_means_two_things_in_one_mode() {
        for a in BINDINGS {
            for b in BINDINGS {
                if std::ptr::eq(a, b) || a.mode != b.mode {
                    continue;
                }
                for key in a.keys.iter() {
                    assert!(
                        !b.keys.contains(key),
                        "{key:?} is bound twice in {:?}",
                        a.mode
                    );
                }
            }
        }
    }

    #[test]
    fn the_fixed_keys_mean_what_users_rely_on() {
        assert_eq!(
            lookup(Mode::Browse, Key::Char('j')),
            Some(Action::NextChange)
        );
        assert_eq!(lookup(Mode::Browse, Key::Down), Some(Action::NextChange));
        assert_eq!(
            lookup(Mode::Browse, Key::Char('k')),
            Some(Action::PrevChange)
        );
        assert_eq!(lookup(Mode::Browse, Key::Up), Some(Action::PrevChange));
        assert_eq!(lookup(Mode::Browse, Key::Char('a')), Some(Action::Accept));
        assert_eq!(lookup(Mode::Browse, Key::Char('r')), Some(Action::Reject));
        assert_eq!(
            lookup(Mode::Browse, Key::Char('c')),
            Some(Action::CommitSummary)
        );
        assert_eq!(lookup(Mode::Browse, Key::Char('q')), Some(Action::Quit));
        assert_eq!(
            lookup(Mode::CommitSummary, Key::Char('y')),
            Some(Action::Confirm)
        );
        assert_eq!(
            lookup(Mode::CommitSummary, Key::Char('n')),
            Some(Action::Cancel)
        );
        assert_eq!(lookup(Mode::CommitSummary, Key::Esc), Some(Action::Cancel));
    }
}
