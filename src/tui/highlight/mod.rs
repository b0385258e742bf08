//! Syntax highlighting of the rows on screen, by file type, with syntect.
//!
//! Syntax definitions are loaded once per process and the theme once per reviewer; only the
//! rows on screen are highlighted. Colours deep in a file depend on everything above (a
//! comment or string opened at line 10 may run to line 90,000), so a background thread
//! (`background`) parses each file shown from its first line and publishes the exact parse
//! state every [`CHECKPOINT_EVERY`] lines. A frame starts from the checkpoint just above its
//! first row, so it parses fewer than [`CHECKPOINT_EVERY`] lines however big the file.
//!
//! A row the background has not reached yet is first painted *provisionally*: parsed from a
//! fresh state at a checkpoint line a little above it (at most [`CHECKPOINT_EVERY`] +
//! [`MIN_LEAD`] lines of parsing), which gives the right colours except inside a construct
//! opened further up. The screen then says it is [`Highlighter::waiting`], the event loop
//! wakes when [`Highlighter::repaint_due`], and the repaint uses the exact state. The text is
//! the same either way; only colours may change.

mod background;
mod states;

use super::theme::Palette;
use crate::lines::LineIndex;
use crate::preview::{Row, RowKind};
use background::{Background, Job};
use ratatui::style::Style;
use states::LeftStates;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use syntect::highlighting::{
    HighlightIterator, HighlightState, Highlighter as Styler, Theme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

/// Lines between cached parse states.
pub const CHECKPOINT_EVERY: usize = 100;
/// The fewest lines parsed above a provisionally painted row, so that constructs opened just
/// above it are seen.
pub const MIN_LEAD: usize = 20;

/// A run of text in one style.
pub type Piece = (Style, String);

type State = (ParseState, HighlightState);

/// How many highlighted screens are remembered, so a redraw costs no parsing.
const SCREENS_REMEMBERED: usize = 64;

/// Highlighted rows of one screen: one list of pieces per row, and the checkpoint of the
/// background it waits for when it was painted provisionally.
struct Screen {
    pieces: Vec<Vec<Piece>>,
    waits_for: Option<usize>,
}

/// The syntax definitions bundled with syntect, loaded (and their patterns compiled as they
/// are first used) once per process, as delta does: reviewers opened one after another (the
/// bench, the tests) share them.
fn bundled_syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The themes bundled with syntect, loaded once per process.
fn bundled_themes() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

/// Loads the bundled syntaxes and themes on a thread of their own, so that a reviewer opened
/// later finds them loaded: the reviewer starts this before it reads the batch, whose disk
/// reads leave the processor free.
pub fn load_in_background() {
    std::thread::spawn(|| {
        bundled_themes();
        bundled_syntaxes();
    });
}

/// What one file is read from: its bytes on disk and their line index.
pub struct Source<'a> {
    /// The file's index in the batch (keys the caches).
    pub file: usize,
    pub path: &'a str,
    pub bytes: &'a Arc<Vec<u8>>,
    pub index: &'a Arc<LineIndex>,
}

/// Loaded syntaxes and theme, the background parser, and the caches of what was drawn.
pub struct Highlighter {
    syntaxes: &'static SyntaxSet,
    /// None means plain text (as under `NO_COLOR`, or an unknown theme name).
    theme: Option<Theme>,
    /// Started when a file is first highlighted.
    background: RefCell<Option<Background>>,
    /// The file last asked of the background, so a redraw does not ask again.
    requested: Cell<Option<usize>>,
    /// States earlier frames left, so the next one parses only from the nearest.
    left: RefCell<LeftStates>,
    /// Highlighted rows by (file, a hash of the rows shown).
    screens: RefCell<HashMap<(usize, u64), Screen>>,
    /// (file, checkpoint) the screen drawn last waits for, when it was painted provisionally.
    waiting: Cell<Option<(usize, usize)>>,
    /// Lines parsed on the input path, for tests.
    #[cfg(test)]
    parsed: Cell<usize>,
    /// Jobs kept from the background while a test holds it.
    #[cfg(test)]
    held: RefCell<Option<Vec<Job>>>,
}

impl Highlighter {
    /// Loads the palette's syntax theme (and, on first use, the syntaxes).
    pub fn new(palette: &Palette) -> Highlighter {
        let theme = palette
            .syntax
            .as_ref()
            .and_then(|name| bundled_themes().themes.get(name).cloned());
        let syntaxes = if theme.is_some() {
            bundled_syntaxes()
        } else {
            static NONE: OnceLock<SyntaxSet> = OnceLock::new();
            NONE.get_or_init(SyntaxSet::new)
        };
        Highlighter {
            syntaxes,
            theme,
            background: RefCell::new(None),
            requested: Cell::new(None),
            left: RefCell::new(LeftStates::default()),
            screens: RefCell::new(HashMap::new()),
            waiting: Cell::new(None),
            #[cfg(test)]
            parsed: Cell::new(0),
            #[cfg(test)]
            held: RefCell::new(None),
        }
    }

    /// Forgets every parse state and stops the background (after the files were read again).
    pub fn clear(&self) {
        self.background.borrow_mut().take();
        self.requested.set(None);
        self.left.borrow_mut().clear();
        self.screens.borrow_mut().clear();
        self.waiting.set(None);
    }

    /// Whether the screen drawn last was painted provisionally and waits for the background.
    pub fn waiting(&self) -> bool {
        self.waiting.get().is_some()
    }

    /// Whether the background has reached what the screen drawn last waits for, so a redraw
    /// now shows exact colours.
    pub fn repaint_due(&self) -> bool {
        let Some((file, k)) = self.waiting.get() else {
            return false;
        };
        let background = self.background.borrow();
        background
            .as_ref()
            .is_some_and(|b| b.checkpoints.count(file) > k)
    }

    /// Waits until the background has parsed every file asked of it (tests and the bench).
    pub fn settle(&self) {
        if let Some(background) = self.background.borrow().as_ref() {
            background.settle();
        }
    }

    fn syntax_for(&self, path: &str, first_line: &str) -> Option<&'static SyntaxReference> {
        let syntaxes = self.syntaxes;
        let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        syntaxes
            .find_syntax_by_extension(ext)
            .or_else(|| syntaxes.find_syntax_by_extension(&ext.to_lowercase()))
            .or_else(|| syntaxes.find_syntax_by_first_line(first_line))
    }

    /// Asks the background to parse this file first, unless it was the last one asked.
    fn request(&self, source: &Source, syntax: &'static SyntaxReference, theme: &Theme) {
        let mut background = self.background.borrow_mut();
        let background =
            background.get_or_insert_with(|| Background::start(self.syntaxes, theme.clone()));
        if self.requested.get() != Some(source.file) {
            self.requested.set(Some(source.file));
            let job = Job {
                file: source.file,
                bytes: Arc::clone(source.bytes),
                index: Arc::clone(source.index),
                syntax,
            };
            #[cfg(test)]
            if let Some(held) = self.held.borrow_mut().as_mut() {
                held.push(job);
                return;
            }
            background.request(job);
        }
    }

    /// The styled pieces of `rows` (consecutive rows of one file's diff, read from `source`).
    pub fn rows(&self, palette: &Palette, source: &Source, rows: &[Row]) -> Vec<Vec<Piece>> {
        self.waiting.set(None);
        let plain = || {
            rows.iter()
                .map(|r| vec![(Style::default(), r.text.clone())])
                .collect()
        };
        let Some(theme) = &self.theme else {
            return plain();
        };
        let first = if source.index.is_empty() {
            ""
        } else {
            source.index.line(source.bytes, 1)
        };
        let Some(syntax) = self.syntax_for(source.path, first) else {
            return plain();
        };
        self.request(source, syntax, theme);
        let key = (source.file, screen_hash(rows));
        if let Some(screen) = self.screens.borrow().get(&key) {
            match screen.waits_for {
                None => return screen.pieces.clone(),
                Some(k) if !self.exact_known(source.file, k) => {
                    self.waiting.set(Some((source.file, k)));
                    return screen.pieces.clone();
                }
                // The exact state has arrived: highlight again.
                Some(_) => {}
            }
        }
        let styler = Styler::new(theme);
        let old_len = source.index.len();
        let mut out = Vec::with_capacity(rows.len());
        let mut waits_for: Option<usize> = None;
        // The running state, the old line it stands before (None after added lines) and
        // whether it is provisional; and the old file's state kept across added lines.
        let mut current: Option<(State, Option<usize>, bool)> = None;
        let mut resume: Option<(State, usize, bool)> = None;
        for row in rows {
            let at_old = match row.kind {
                RowKind::Added => None,
                _ => row.old,
            };
            let fresh = match (&current, at_old) {
                (None, _) => true,
                (Some((_, next, _)), Some(line)) => *next != Some(line),
                (Some(_), None) => false,
            };
            if fresh {
                let before = at_old.unwrap_or(1).min(old_len.max(1));
                current = Some(match resume.take() {
                    Some((state, line, provisional)) if line == before => {
                        (state, Some(before), provisional)
                    }
                    _ => {
                        let (state, waits) = self.state_before(source, syntax, &styler, before);
                        waits_for = waits_for.max(waits);
                        (state, Some(before), waits.is_some())
                    }
                });
            }
            let (state, next, provisional) = current.as_mut().expect("set above");
            if let (RowKind::Added, Some(line)) = (row.kind, *next) {
                // Added lines are coloured after the lines they replace; the rows after them
                // go on from the file's own state.
                resume = Some((state.clone(), line, *provisional));
            }
            out.push(highlight_line(
                self.syntaxes,
                &styler,
                palette,
                state,
                &row.text,
            ));
            *next = at_old.map(|l| l + 1);
        }
        if let Some((state, Some(line), provisional)) = &current {
            let mut left = self.left.borrow_mut();
            left.keep(source.file, *line, state, !provisional);
        }
        self.waiting.set(waits_for.map(|k| (source.file, k)));
        let mut screens = self.screens.borrow_mut();
        if screens.len() >= SCREENS_REMEMBERED {
            screens.clear();
        }
        screens.insert(
            key,
            Screen {
                pieces: out.clone(),
                waits_for,
            },
        );
        out
    }

    fn exact_known(&self, file: usize, k: usize) -> bool {
        let background = self.background.borrow();
        background
            .as_ref()
            .is_some_and(|b| b.checkpoints.count(file) > k)
    }

    fn exact_checkpoint(&self, file: usize, k: usize) -> Option<State> {
        let background = self.background.borrow();
        background.as_ref().and_then(|b| b.checkpoints.get(file, k))
    }

    /// The parse state just before 1-based line `line`, parsed from the nearest exact state
    /// above it (the background's checkpoint, the top of the file, or one an earlier frame
    /// left), or, before the background has reached it, from a provisional one (then the
    /// checkpoint it waits for comes back too).
    fn state_before(
        &self,
        source: &Source,
        syntax: &SyntaxReference,
        styler: &Styler,
        line: usize,
    ) -> (State, Option<usize>) {
        let file = source.file;
        let k = (line - 1) / CHECKPOINT_EVERY;
        let checkpoint_line = k * CHECKPOINT_EVERY + 1;
        let farthest = line.saturating_sub(CHECKPOINT_EVERY + MIN_LEAD).max(1);
        let left = self.left.borrow().nearest(file, true, farthest..=line);
        let checkpoint = if k == 0 {
            Some(fresh_state(syntax, styler))
        } else {
            self.exact_checkpoint(file, k)
        };
        let (mut at, mut state, waits_for) = match (left, checkpoint) {
            (Some((at, state)), _) if at >= checkpoint_line => (at, state, None),
            (_, Some(state)) => (checkpoint_line, state, None),
            (Some((at, state)), None) => (at, state, None),
            (None, None) => {
                let lead_k = (line.saturating_sub(MIN_LEAD).max(1) - 1) / CHECKPOINT_EVERY;
                let start = lead_k * CHECKPOINT_EVERY + 1;
                if lead_k == 0 {
                    // From the top of the file, a parse is exact whoever does it.
                    (1, fresh_state(syntax, styler), None)
                } else {
                    let left = self.left.borrow().nearest(file, false, start..=line);
                    let (at, state) = left.unwrap_or_else(|| {
                        let state = fresh_state(syntax, styler);
                        self.left.borrow_mut().keep(file, start, &state, false);
                        (start, state)
                    });
                    (at, state, Some(k))
                }
            }
        };
        let exact = waits_for.is_none();
        let parsed_from = at;
        while at < line {
            advance(
                self.syntaxes,
                styler,
                &mut state,
                source.index.line(source.bytes, at),
            );
            #[cfg(test)]
            self.parsed.set(self.parsed.get() + 1);
            at += 1;
            if !exact && (at - 1) % CHECKPOINT_EVERY == 0 {
                // The stretch below goes on from here rather than from a fresh state.
                self.left.borrow_mut().keep(file, at, &state, false);
            }
        }
        if at > parsed_from {
            self.left.borrow_mut().keep(file, line, &state, exact);
        }
        (state, waits_for)
    }
}

/// The state before a file's first line.
fn fresh_state(syntax: &SyntaxReference, styler: &Styler) -> State {
    (
        ParseState::new(syntax),
        HighlightState::new(styler, ScopeStack::new()),
    )
}

/// Moves `state` past one line of the file (given without its ending). The background and
/// the input path both go through here, so their states agree.
fn advance(syntaxes: &SyntaxSet, styler: &Styler, state: &mut State, line: &str) {
    let text = format!("{line}\n");
    if let Ok(ops) = state.0.parse_line(&text, syntaxes) {
        for _ in HighlightIterator::new(&mut state.1, &ops, &text, styler) {}
    }
}

fn screen_hash(rows: &[Row]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for row in rows {
        (row.kind as u8, row.old, &row.text).hash(&mut hasher);
    }
    hasher.finish()
}

fn highlight_line(
    syntaxes: &SyntaxSet,
    styler: &Styler,
    palette: &Palette,
    state: &mut State,
    text: &str,
) -> Vec<Piece> {
    let line = format!("{text}\n");
    let Ok(ops) = state.0.parse_line(&line, syntaxes) else {
        return vec![(Style::default(), text.to_owned())];
    };
    HighlightIterator::new(&mut state.1, &ops, &line, styler)
        .filter_map(|(style, piece)| {
            let piece = piece.strip_suffix('\n').unwrap_or(piece);
            if piece.is_empty() {
                return None;
            }
            let fg = style.foreground;
            let mut out = Style::default();
            if let Some(color) = palette.rgb(fg.r, fg.g, fg.b) {
                out = out.fg(color);
            }
            Some((out, piece.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests;
