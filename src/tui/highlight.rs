//! Syntax highlighting of the rows on screen, by file type, with syntect.
//!
//! Syntax definitions and the theme are loaded once. Only visible rows are highlighted. The
//! parser's state is cached every [`CHECKPOINT_EVERY`] lines of each file, so showing line
//! 90,000 parses at most a hundred lines from the nearest checkpoint; a jump far beyond every
//! checkpoint starts a fresh parse a little before the line instead of parsing the whole file on
//! the input path (colours there may be off inside a long string or comment, never the text).

use super::theme::Palette;
use crate::preview::{Row, RowKind};
use ratatui::style::Style;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use syntect::highlighting::{
    HighlightIterator, HighlightState, Highlighter as Styler, Theme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

/// Lines between cached parse states.
pub const CHECKPOINT_EVERY: usize = 100;
/// How far past the last checkpoint a row may be before parsing restarts near it.
const MAX_CATCH_UP: usize = 1_000;

/// A run of text in one style.
pub type Piece = (Style, String);

type State = (ParseState, HighlightState);

/// Highlighted rows of one screen: one list of pieces per row.
type Screen = Vec<Vec<Piece>>;

/// How many highlighted screens are remembered, so a redraw costs no parsing.
const SCREENS_REMEMBERED: usize = 64;

/// Loaded syntaxes and theme, with per-file parse caches.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Option<Theme>,
    caches: RefCell<HashMap<usize, BTreeMap<usize, State>>>,
    /// Highlighted rows by (file, a hash of the rows shown).
    screens: RefCell<HashMap<(usize, u64), Screen>>,
}

impl Highlighter {
    /// Loads the syntaxes and the palette's syntax theme; no theme (as under `NO_COLOR`, or an
    /// unknown name) means plain text.
    pub fn new(palette: &Palette) -> Highlighter {
        let theme = palette.syntax.as_ref().and_then(|name| {
            let mut themes = ThemeSet::load_defaults();
            themes.themes.remove(name)
        });
        let syntaxes = if theme.is_some() {
            SyntaxSet::load_defaults_newlines()
        } else {
            SyntaxSet::new()
        };
        Highlighter {
            syntaxes,
            theme,
            caches: RefCell::new(HashMap::new()),
            screens: RefCell::new(HashMap::new()),
        }
    }

    /// Forgets every cached parse state (after the files were read again).
    pub fn clear(&self) {
        self.caches.borrow_mut().clear();
        self.screens.borrow_mut().clear();
    }

    fn syntax_for(&self, path: &str, first_line: &str) -> Option<&SyntaxReference> {
        let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        self.syntaxes
            .find_syntax_by_extension(ext)
            .or_else(|| self.syntaxes.find_syntax_by_extension(&ext.to_lowercase()))
            .or_else(|| self.syntaxes.find_syntax_by_first_line(first_line))
    }

    /// The styled pieces of `rows` (consecutive rows of one file's diff). `file` keys the
    /// cache; `old_line(n)` gives line `n` of the file on disk, which has `old_len` lines.
    pub fn rows(
        &self,
        palette: &Palette,
        file: usize,
        path: &str,
        old_line: &dyn Fn(usize) -> String,
        old_len: usize,
        rows: &[Row],
    ) -> Vec<Vec<Piece>> {
        let plain = || {
            rows.iter()
                .map(|r| vec![(Style::default(), r.text.clone())])
                .collect()
        };
        let Some(theme) = &self.theme else {
            return plain();
        };
        let first = if old_len > 0 {
            old_line(1)
        } else {
            String::new()
        };
        let Some(syntax) = self.syntax_for(path, &first) else {
            return plain();
        };
        let key = (file, screen_hash(rows));
        if let Some(pieces) = self.screens.borrow().get(&key) {
            return pieces.clone();
        }
        let styler = Styler::new(theme);
        let mut caches = self.caches.borrow_mut();
        let cache = caches.entry(file).or_default();
        let mut out = Vec::with_capacity(rows.len());
        // The running state and the old line it stands before (None after added lines).
        let mut current: Option<(State, Option<usize>)> = None;
        for row in rows {
            let at_old = match row.kind {
                RowKind::Added => None,
                _ => row.old,
            };
            let fresh = match (&current, at_old) {
                (None, _) => true,
                (Some((_, next)), Some(line)) => *next != Some(line),
                (Some(_), None) => false,
            };
            if fresh {
                let before = at_old.unwrap_or(1).min(old_len.max(1));
                let state = self.state_before(cache, syntax, &styler, old_line, before);
                current = Some((state, Some(before)));
            }
            let (state, next) = current.as_mut().expect("set above");
            let pieces = highlight_line(&self.syntaxes, &styler, palette, state, &row.text);
            *next = at_old.map(|l| l + 1);
            out.push(pieces);
        }
        let mut screens = self.screens.borrow_mut();
        if screens.len() >= SCREENS_REMEMBERED {
            screens.clear();
        }
        screens.insert(key, out.clone());
        out
    }

    /// The parse state just before 1-based line `line`, from the nearest cached checkpoint.
    fn state_before(
        &self,
        cache: &mut BTreeMap<usize, State>,
        syntax: &SyntaxReference,
        styler: &Styler,
        old_line: &dyn Fn(usize) -> String,
        line: usize,
    ) -> State {
        let fresh = || {
            (
                ParseState::new(syntax),
                HighlightState::new(styler, ScopeStack::new()),
            )
        };
        let (mut at, mut state) = match cache.range(..=line).next_back() {
            Some((&at, state)) if line - at <= MAX_CATCH_UP => (at, state.clone()),
            _ => {
                let at = line.saturating_sub(CHECKPOINT_EVERY).max(1);
                let state = fresh();
                cache.insert(at, state.clone());
                (at, state)
            }
        };
        while at < line {
            let text = format!("{}\n", old_line(at));
            if let Ok(ops) = state.0.parse_line(&text, &self.syntaxes) {
                for _ in HighlightIterator::new(&mut state.1, &ops, &text, styler) {}
            }
            at += 1;
            if at % CHECKPOINT_EVERY == 1 {
                cache.entry(at).or_insert_with(|| state.clone());
            }
        }
        state
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
