//! Search: `/` over paths, keys, labels, descriptions and lines of every change, `n`/`N` to
//! step through the matches, as in vim and less. Matching ignores case. The search runs as it
//! is typed (vim's `incsearch`): the first match from where it started is shown at once, and
//! Esc goes back there.

use super::app::{App, Effect, Origin, Overlay, Tone};
use super::keys::{Action, Key};
use crate::review::ChangeView;

/// What the status line adds when a search goes past the last match, as vim says it.
const WRAPPED_TO_TOP: &str = "search hit BOTTOM, continuing at TOP";
/// ... or past the first, searching backwards.
const WRAPPED_TO_BOTTOM: &str = "search hit TOP, continuing at BOTTOM";

impl App {
    pub(super) fn start_search(&mut self) {
        self.search.input.clear();
        self.search.origin = Some(Origin {
            pos: self.pos,
            scroll: self.scroll,
            hscroll: self.hscroll,
            query: self.search.query.clone(),
            matches: self.search.matches.clone(),
        });
        self.overlay = Some(Overlay::Search);
    }

    /// Typing in search mode: text keys edit the query; `None` leaves the key to the key map.
    pub(super) fn search_typing(&mut self, key: Key) -> Option<Effect> {
        match key {
            Key::Char(c) => self.search.input.push(c),
            Key::Backspace | Key::Ctrl('h') => {
                self.search.input.pop();
            }
            _ => return None,
        }
        self.run_search();
        Some(Effect::None)
    }

    /// Runs the search typed so far from where it started: the first match from there on,
    /// wrapping to the top, as vim does.
    fn run_search(&mut self) {
        let origin = self.search.origin.as_ref().map_or(self.pos, |o| o.pos);
        self.search.query = self.search.input.clone();
        if self.search.query.is_empty() {
            self.search.matches.clear();
            self.go(origin);
            self.message = None;
            return;
        }
        self.search.matches = self.find_all(&self.search.query.to_lowercase());
        if self.search.matches.is_empty() {
            self.go(origin);
            let text = format!("no change matches \"{}\"", self.search.query);
            self.say(Tone::Warning, text);
        } else {
            let matches = &self.search.matches;
            let first = matches.iter().copied().find(|&p| p >= origin);
            self.go(first.unwrap_or(matches[0]));
            self.say_match(first.is_none().then_some(WRAPPED_TO_TOP));
        }
    }

    pub(super) fn search_action(&mut self, action: Action) -> Effect {
        let Some(origin) = self.search.origin.take() else {
            return Effect::None;
        };
        let typed = !std::mem::take(&mut self.search.input).is_empty();
        // Esc, or Enter on nothing typed: back to the view and the search before `/`; Enter
        // on nothing typed then runs that search again, forward, as vim does.
        if !typed || action != Action::Confirm {
            self.search.query = origin.query;
            self.search.matches = origin.matches;
            self.go(origin.pos);
            self.scroll = origin.scroll;
            self.hscroll = origin.hscroll;
            self.message = None;
            if action == Action::Confirm {
                self.search_step(true);
            }
        }
        Effect::None
    }

    pub(super) fn search_step(&mut self, forward: bool) {
        if self.search.matches.is_empty() {
            self.say(Tone::Info, "no search: / starts one");
            return;
        }
        let matches = &self.search.matches;
        let (next, wrapped) = if forward {
            match matches.iter().copied().find(|&p| p > self.pos) {
                Some(p) => (p, None),
                None => (matches[0], Some(WRAPPED_TO_TOP)),
            }
        } else {
            match matches.iter().rev().copied().find(|&p| p < self.pos) {
                Some(p) => (p, None),
                None => (*matches.last().expect("not empty"), Some(WRAPPED_TO_BOTTOM)),
            }
        };
        self.go(next);
        self.say_match(wrapped);
    }

    /// The search being shown, lowercase, while it has matches (the screen marks them).
    pub fn search_needle(&self) -> Option<String> {
        (!self.search.matches.is_empty()).then(|| self.search.query.to_lowercase())
    }

    fn say_match(&mut self, wrapped: Option<&str>) {
        let at = self.search.matches.iter().position(|&p| p == self.pos);
        let text = format!(
            "/{}: match {} of {}{}",
            self.search.query,
            at.map_or(0, |i| i + 1),
            self.search.matches.len(),
            wrapped.map_or_else(String::new, |w| format!(" ({w})"))
        );
        self.say(
            if wrapped.is_some() {
                Tone::Warning
            } else {
                Tone::Info
            },
            text,
        );
    }

    /// Every change whose file or own text contains `needle` (already lowercase).
    fn find_all(&self, needle: &str) -> Vec<usize> {
        let has = |text: &str| text.to_lowercase().contains(needle);
        let has_opt = |text: &Option<String>| text.as_deref().is_some_and(has);
        (0..self.flat.len())
            .filter(|&pos| {
                let ChangeView {
                    file,
                    change,
                    file_check: check,
                    ..
                } = self.change(pos);
                has(&file.doc_path)
                    || check
                        .resolved
                        .as_ref()
                        .is_some_and(|r| has(&r.rel().to_string_lossy()))
                    || has_opt(&file.key)
                    || has_opt(&file.label)
                    || has_opt(&change.key)
                    || has(change.id.as_str())
                    || has_opt(&change.description)
                    || change.new_lines.iter().any(&has)
                    || change.expected.iter().flatten().any(&has)
            })
            .collect()
    }
}
