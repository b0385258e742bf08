//! Deciding from the keyboard: each key asks the [`crate::review::Review`], which makes the
//! decision (one undoable step) or refuses it; the reviewer says which, in words with its own
//! keys. After a decision the cursor moves to the next undecided change, as in `git add -p`,
//! and the session is saved.

use super::app::{App, Tone};
use super::words::{change_name, Asked};
use crate::review::{Decision, Done, FileOverride, Overridden, Relocation};

impl App {
    /// The words of a refusal of `asked` on the change at `pos`, if it is refused.
    pub fn refusal_words(&self, asked: Asked, pos: usize) -> Option<String> {
        if self.committed() {
            return Some(self.words().committed());
        }
        let at = self.flat[pos];
        let review = self.review();
        let refusal = match asked {
            Asked::Accept => review.accept_refusal(at),
            Asked::Edit => review.edit_refusal(at),
            Asked::TakeOver => review.take_over_refusal(at),
            Asked::Relocate => review.relocate_refusal(at),
            Asked::Override => review.override_refusal(at.file),
            Asked::Place => review
                .placeable(at)
                .is_none()
                .then_some(crate::review::Refusal::CannotPlace),
        }?;
        Some(self.words().refusal(asked, &refusal, review))
    }

    pub(super) fn accept(&mut self) {
        let Some(at) = self.selected() else { return };
        if let Err(refusal) = self.review_mut().accept(at) {
            let text = self.words().refusal(Asked::Accept, &refusal, self.review());
            self.say(Tone::Error, text);
            return;
        }
        self.save_session();
        let note = match self.review().file_override(at.file) {
            Some(kind) if !self.review().overridden(at.file) => {
                Some(self.words().accepted_before_override(kind))
            }
            _ => None,
        };
        self.advance();
        if let Some(note) = note {
            self.say(Tone::Warning, note);
        }
    }

    pub(super) fn reject(&mut self) {
        let Some(at) = self.selected() else { return };
        self.review_mut().reject(at);
        self.save_session();
        self.advance();
    }

    /// Moves to the next undecided change after the current one, or says all are decided.
    pub(super) fn advance(&mut self) {
        match self.next_undecided_from(self.pos + 1) {
            Some(pos) => self.go(pos),
            None => {
                let text = self.words().all_decided();
                self.say(Tone::Info, text);
            }
        }
    }

    pub(super) fn accept_file(&mut self) {
        let file = self.file_index();
        let (accepted, left) = self.review_mut().accept_file(file);
        self.save_session();
        let mut text = format!("accepted {accepted} change(s) of this file");
        if left > 0 {
            text.push_str(&format!(
                "; {left} conflicting change(s) left for you to resolve"
            ));
        }
        self.say(if left > 0 { Tone::Warning } else { Tone::Info }, text);
    }

    pub(super) fn reject_file(&mut self) {
        let file = self.file_index();
        let count = self.review_mut().reject_file(file);
        self.save_session();
        self.say(
            Tone::Info,
            format!("rejected {count} change(s) of this file"),
        );
    }

    /// Toggles moving a conflicting change to where its expected lines were found. Moving it
    /// accepts it and goes on to the next undecided change, as accepting does; moving it back
    /// makes it undecided (and takes back its file's SHA-256 override when that no longer
    /// holds).
    pub(super) fn relocate(&mut self) {
        let Some(at) = self.selected() else { return };
        match self.review_mut().relocate(at) {
            Err(refusal) => {
                let text = self
                    .words()
                    .refusal(Asked::Relocate, &refusal, self.review());
                self.say(Tone::Error, text);
            }
            Ok(Relocation::Back {
                override_taken_back,
                edit_dropped,
            }) => {
                self.save_session();
                let mut text = "no longer moved; the change is undecided again".to_owned();
                if override_taken_back {
                    text.push_str(", and its file's SHA-256 override is taken back");
                }
                let tone = if edit_dropped {
                    text.push_str(&format!(
                        "; your edit of it is dropped with the move ({} brings both back)",
                        self.words().key(super::keys::Action::Undo)
                    ));
                    Tone::Warning
                } else {
                    Tone::Info
                };
                self.say(tone, text);
            }
            Ok(Relocation::Moved { to }) => {
                self.save_session();
                self.advance();
                let text = format!("moved to line {to} and accepted");
                match &self.message {
                    Some(m) => {
                        let text = format!("{text}; {}", m.text);
                        self.say(Tone::Info, text);
                    }
                    None => self.say(Tone::Info, text),
                }
            }
        }
    }

    /// `T`: asks whether to write the selected conflict's proposal over the lines on disk,
    /// showing both, or says why it cannot be.
    pub(super) fn ask_take_over(&mut self) {
        if let Some(refusal) = self.refusal_words(Asked::TakeOver, self.pos) {
            self.say(Tone::Error, refusal);
            return;
        }
        self.overlay = Some(super::app::Overlay::ConfirmTakeOver { pos: self.pos });
    }

    /// The question the confirmation of taking a proposal asks: both sides, as they are.
    pub fn take_over_question(&self, pos: usize) -> Vec<String> {
        let sides = self.review().take_over_sides(self.flat[pos]);
        let mut text = vec![format!(
            "{}: the batch expected other lines at {}. These lines are on disk there now:",
            change_name(self.review(), self.flat[pos]),
            sides.range.describe()
        )];
        text.extend(sides.on_disk.iter().map(|l| format!("- {l}")));
        text.push("and would be replaced by its proposal:".to_owned());
        text.extend(sides.proposal.iter().map(|l| format!("+ {l}")));
        text.push(
            "It is written only while the file still holds exactly the lines above.".to_owned(),
        );
        text
    }

    /// Takes the proposal of the change at `pos` over the lines on disk (confirmed).
    pub(super) fn take_over(&mut self, pos: usize) {
        self.go(pos);
        let at = self.flat[pos];
        match self.review_mut().take_over(at) {
            Err(refusal) => {
                let text = self
                    .words()
                    .refusal(Asked::TakeOver, &refusal, self.review());
                self.say(Tone::Error, text);
            }
            Ok(()) => {
                self.save_session();
                self.advance();
                let text = "taken: its proposal is written over the lines on disk (listed in the commit summary)";
                match &self.message {
                    Some(m) => {
                        let text = format!("{text}; {}", m.text);
                        self.say(Tone::Info, text);
                    }
                    None => self.say(Tone::Info, text),
                }
            }
        }
    }

    /// `&`: moves every undecided conflict the evidence places, and says how many it left.
    pub(super) fn relocate_all(&mut self) {
        let at = self.selected().unwrap_or_default();
        let moved = self.review_mut().relocate_all(at);
        if moved.moved > 0 {
            self.save_session();
        }
        let mut text = format!(
            "moved {} conflict(s) to where their expected lines stand, and accepted them",
            moved.moved
        );
        if moved.left > 0 {
            text.push_str(&format!(
                "; {} conflict(s) left: their lines stand at no place the evidence supports ({} says why, on each)",
                moved.left,
                self.words().key(super::keys::Action::NextConflict)
            ));
        }
        self.say(
            if moved.left > 0 {
                Tone::Warning
            } else {
                Tone::Info
            },
            text,
        );
    }

    /// Toggles the selected file's override: writing it over its SHA-256 mismatch, or over
    /// the file that exists where the batch creates one.
    pub(super) fn override_file(&mut self) {
        let file = self.file_index();
        match self.review_mut().override_file(file) {
            Err(refusal) => {
                let text = self
                    .words()
                    .refusal(Asked::Override, &refusal, self.review());
                self.say(Tone::Error, text);
            }
            Ok(Overridden { kind, on }) => {
                self.save_session();
                let text = match (kind, on) {
                    (FileOverride::Sha, true) => "override: this file will be written although its SHA-256 differs (listed in the commit summary)",
                    (FileOverride::Overwrite, true) => "override: this file will be written over the file that is there, which the batch never showed (listed in the commit summary)",
                    (FileOverride::HardLink, true) => "override: this file will be written although it has other hard links, which keep the old content (listed in the commit summary)",
                    (_, false) => "override removed",
                };
                self.say(Tone::Warning, text);
            }
        }
    }

    pub(super) fn undo(&mut self) {
        match self.review_mut().undo() {
            None => self.say(Tone::Info, "nothing to undo"),
            Some(replayed) => {
                self.save_session();
                self.go(self.pos_of(replayed.about));
                let text = format!("undone: {}", self.step_words(replayed.what, replayed.about));
                self.say(Tone::Info, text);
            }
        }
    }

    pub(super) fn redo(&mut self) {
        match self.review_mut().redo() {
            None => self.say(Tone::Info, "nothing to redo"),
            Some(replayed) => {
                self.save_session();
                self.go(self.pos_of(replayed.about));
                let text = format!("redone: {}", self.step_words(replayed.what, replayed.about));
                self.say(Tone::Info, text);
            }
        }
    }

    /// What a step did, about which change or file: `accept of src/app.py#2 "log-load"`.
    fn step_words(&self, what: Done, about: crate::review::At) -> String {
        let change = || change_name(self.review(), about);
        let file = || self.review().change(about).path();
        match what {
            Done::Accept => format!("accept of {}", change()),
            Done::Reject => format!("reject of {}", change()),
            Done::Edit => format!("edit of {}", change()),
            Done::Relocate => format!("move of {}", change()),
            Done::Unrelocate => format!("moving back of {}", change()),
            Done::Place => format!("placing of {}", change()),
            Done::Unplace => format!("unplacing of {}", change()),
            Done::Override { how, on: true } => match how {
                FileOverride::Sha => format!("SHA-256 override of {}", file()),
                FileOverride::Overwrite => {
                    format!("writing {} over the file that is there", file())
                }
                FileOverride::HardLink => format!("hard-link override of {}", file()),
            },
            Done::Override { how, on: false } => match how {
                FileOverride::Sha => format!("removal of the SHA-256 override of {}", file()),
                FileOverride::Overwrite => format!("removal of the overwrite of {}", file()),
                FileOverride::HardLink => {
                    format!("removal of the hard-link override of {}", file())
                }
            },
            Done::AcceptFile => format!("accepting every change of {} that could be", file()),
            Done::RejectFile => format!("rejecting every change of {}", file()),
            Done::AcceptVerified => "accepting every verified change".to_owned(),
            Done::TakeOver => format!("taking the proposal of {} over the lines on disk", change()),
            Done::RelocateAll => "moving every conflict the evidence places".to_owned(),
            Done::Note => format!("note on {}", change()),
            Done::BatchNote => "note on the batch".to_owned(),
        }
    }

    /// Whether the change at `pos` is decided at all.
    pub fn is_decided(&self, pos: usize) -> bool {
        *self.decisions().get(&self.change(pos).change.id) != Decision::Undecided
    }
}
