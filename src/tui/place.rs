//! Placing a change where the person knows it belongs: the places its expected lines stand
//! at, nearest first to where the file's other changes were found, or any line they type. The
//! diff shows the change at the proposed place before it is taken; the core checks the choice
//! (a replacement's expected lines must stand there) and keeps it in the decisions, where a
//! session and `apply --decisions` find it (`"placements"`).

use super::app::{App, Effect, Overlay, Placing, Tone};
use super::keys::{Action, Key};
use super::words::{change_name, Asked};
use crate::review::At;

impl App {
    /// `p`: opens the place picker on the selected change, or takes back its placement.
    pub(super) fn start_placing(&mut self) {
        let Some(at) = self.selected() else { return };
        let id = self.change(self.pos).change.id.clone();
        if self.decisions().placed_at(&id).is_some() {
            let edit_dropped = self.review_mut().unplace(at);
            self.save_session();
            if edit_dropped {
                let text = format!(
                    "no longer placed; the change is undecided again, and your edit of it is dropped with the place ({} brings both back)",
                    self.words().key(super::keys::Action::Undo)
                );
                self.say(Tone::Warning, text);
            } else {
                self.say(
                    Tone::Info,
                    "no longer placed; the change is undecided again",
                );
            }
            return;
        }
        if self.review().placeable(at).is_none() {
            let refusal = crate::review::Refusal::CannotPlace;
            let text = self.words().refusal(Asked::Place, &refusal, self.review());
            self.say(Tone::Error, text);
            return;
        }
        let candidates = self.review().candidates(at);
        self.overlay = Some(Overlay::Place(Placing {
            at,
            candidates,
            shown: 0,
            typed: String::new(),
        }));
    }

    /// Typing while placing: digits make a line, Backspace takes one back.
    pub(super) fn place_typing(&mut self, key: Key) -> Option<Effect> {
        let Some(Overlay::Place(placing)) = &mut self.overlay else {
            return None;
        };
        match key {
            Key::Char(c) if c.is_ascii_digit() && placing.typed.len() < 12 => placing.typed.push(c),
            Key::Backspace => {
                placing.typed.pop();
            }
            _ => return None,
        }
        Some(Effect::None)
    }

    pub(super) fn place_action(&mut self, action: Action, mut placing: Placing) -> Effect {
        let count = placing.candidates.len();
        match action {
            Action::NextChange if count > 0 => {
                placing.typed.clear();
                placing.shown = (placing.shown + 1).min(count - 1);
            }
            Action::PrevChange => {
                placing.typed.clear();
                placing.shown = placing.shown.saturating_sub(1);
            }
            Action::Confirm => {
                let Some(line) = placing.line() else {
                    self.say(Tone::Error, "type the line to place the change at");
                    self.overlay = Some(Overlay::Place(placing));
                    return Effect::None;
                };
                match self.review_mut().place(placing.at, line) {
                    Ok(()) => {
                        self.save_session();
                        let name = change_name(self.review(), placing.at);
                        self.advance();
                        self.say(
                            Tone::Info,
                            format!("placed {name} at line {line} and accepted"),
                        );
                    }
                    Err(refusal) => {
                        let text = self.words().refusal(Asked::Place, &refusal, self.review());
                        self.say(Tone::Error, text);
                        self.overlay = Some(Overlay::Place(placing));
                    }
                }
                return Effect::None;
            }
            Action::Cancel => return Effect::None,
            _ => {}
        }
        self.overlay = Some(Overlay::Place(placing));
        Effect::None
    }

    /// The placing under way, if the picker is open on the change at `at`.
    pub fn placing(&self, at: At) -> Option<&Placing> {
        match &self.overlay {
            Some(Overlay::Place(placing)) if placing.at == at => Some(placing),
            _ => None,
        }
    }

    /// What the status line says while placing: the line proposed, and a few of the places
    /// (never the whole list, however long).
    pub fn placing_text(&self, placing: &Placing) -> String {
        const SHOWN: usize = 4;
        let count = placing.candidates.len();
        let proposed = match placing.line() {
            Some(line) => format!("place at line {line}"),
            None => "type a line to place it at".to_owned(),
        };
        let listed: Vec<String> = placing
            .candidates
            .iter()
            .take(SHOWN)
            .map(usize::to_string)
            .collect();
        let places = match count {
            0 => String::new(),
            _ if !placing.typed.is_empty() => {
                format!(" · places its lines stand at: {}", listed.join(", "))
            }
            _ => format!(
                " · {} of {count} place(s): {}{}",
                placing.shown + 1,
                listed.join(", "),
                if count > SHOWN { ", …" } else { "" }
            ),
        };
        format!("{proposed}{places} · digits type a line")
    }
}
