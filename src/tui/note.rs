//! Notes for the model: `t` writes one on the selected change (rejecting it when it is
//! undecided: "reject this, and tell the model why"), `M` one on the whole batch. A note is
//! typed in the status line, as a search is; Enter keeps it, an empty one takes the note away,
//! Esc leaves it as it was. The core keeps it with the decisions ([`crate::review::Review::note`]),
//! so it is undone like any decision, saved in the session, and said to the model by the
//! feedback and by an agent's tool result.

use super::app::{App, Effect, Overlay, Tone};
use super::keys::{Action, Key};
use super::words::change_name;
use crate::review::At;

/// A note being typed: on a change, or on the whole batch (`at` none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Noting {
    pub at: Option<At>,
    pub input: String,
}

impl App {
    /// Starts typing a note on the selected change (`batch` false) or on the batch, from the
    /// note it has.
    pub(super) fn start_note(&mut self, batch: bool) {
        let at = match (batch, self.selected()) {
            (true, _) => None,
            (false, Some(at)) => Some(at),
            (false, None) => return self.say(Tone::Info, "no change to write a note on"),
        };
        let decisions = self.decisions();
        let input = match at {
            Some(at) => decisions.note_on(&self.review().change(at).change.id),
            None => decisions.batch_note(),
        };
        let input = input.unwrap_or_default().to_owned();
        self.overlay = Some(Overlay::Note(Noting { at, input }));
    }

    /// Typing a note: text keys edit it; `None` leaves the key to the key map.
    pub(super) fn note_typing(&mut self, key: Key) -> Option<Effect> {
        let Some(Overlay::Note(noting)) = &mut self.overlay else {
            return None;
        };
        match key {
            Key::Char(c) => noting.input.push(c),
            Key::Backspace | Key::Ctrl('h') => {
                noting.input.pop();
            }
            Key::Ctrl('u') => noting.input.clear(),
            _ => return None,
        }
        Some(Effect::None)
    }

    pub(super) fn note_action(&mut self, action: Action, noting: Noting) -> Effect {
        if action != Action::Confirm {
            return Effect::None;
        }
        let was_undecided = noting
            .at
            .is_some_and(|at| !self.is_decided(self.pos_of(at)));
        let at = noting
            .at
            .unwrap_or_else(|| self.selected().unwrap_or_default());
        let written = match noting.at {
            Some(at) => self.review_mut().note(at, Some(&noting.input)),
            None => self.review_mut().note_batch(at, Some(&noting.input)),
        };
        match written {
            Err(why) => {
                let text = format!("the note is not kept: {why}");
                self.say(Tone::Warning, text);
                self.overlay = Some(Overlay::Note(noting));
            }
            Ok(false) => self.say(Tone::Info, "the note is as it was"),
            Ok(true) => {
                self.save_session();
                let text = self.noted(&noting, was_undecided);
                self.say(Tone::Info, text);
            }
        }
        Effect::None
    }

    /// What writing `noting` did.
    fn noted(&self, noting: &Noting, was_undecided: bool) -> String {
        let empty = noting.input.trim().is_empty();
        match noting.at {
            None if empty => "the batch's note is taken away".to_owned(),
            None => "note on the batch kept: the model gets it with the result".to_owned(),
            Some(at) => {
                let name = change_name(self.review(), at);
                match (empty, was_undecided) {
                    (true, _) => format!("the note on {name} is taken away"),
                    (false, true) => {
                        format!("rejected {name}, with a note: the model gets it with the result")
                    }
                    (false, false) => {
                        format!("note on {name} kept: the model gets it with the result")
                    }
                }
            }
        }
    }

    /// The status line while a note is typed: where it goes, and the text so far.
    pub fn note_prompt(&self, noting: &Noting) -> String {
        match noting.at {
            Some(at) => format!("note on {}: ", change_name(self.review(), at)),
            None => "note on the batch: ".to_owned(),
        }
    }
}
