//! Editing a change in `$VISUAL`/`$EDITOR`, as `git add -p`'s `e` does: the buffer and the
//! rules for reading it back are the core's (`review::edit`); this runs the editor and says
//! what came of it. A buffer that cannot be used offers to edit again or discard; leaving the
//! editor without changing the lines cancels.

use super::app::{App, Effect, FailedEdit, Overlay, Tone};
use super::keys::Action;
use super::words::Asked;
use crate::review::{edit, Edited};
use std::io::{self, Write};
use std::path::Path;
use std::process::Command;

/// Runs the editor command (through `sh`, so `code --wait` works) on a file holding `buffer`,
/// and returns what was saved. The file is a new temporary file in `dir` with an unpredictable
/// name, created only for this user (never an existing file, or a link someone placed there),
/// and removed afterwards.
pub fn run(editor: &str, buffer: &str, dir: &Path) -> io::Result<String> {
    let mut file = tempfile::Builder::new()
        .prefix("patchdeck-edit-")
        .suffix(".diff")
        .tempfile_in(dir)?;
    file.write_all(buffer.as_bytes())?;
    file.flush()?;
    let path = file.path().to_path_buf();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status();
    // Read by name: an editor may have saved by writing a new file over the old one.
    let text = crate::bounded::read_to_string(&path, crate::formats::MAX_INPUT_BYTES as u64);
    drop(file);
    let status = status?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "the editor ({editor}) exited with {status}"
        )));
    }
    text
}

impl App {
    pub(super) fn start_edit(&mut self) -> Effect {
        if let Some(refusal) = self.refusal_words(Asked::Edit, self.pos) {
            self.say(Tone::Error, refusal);
            return Effect::None;
        }
        Effect::RunEditor {
            pos: self.pos,
            buffer: edit::buffer(self.review(), self.flat[self.pos]),
        }
    }

    /// Takes what the editor saved (or why it failed) for the change at `pos`.
    pub fn finish_edit(&mut self, pos: usize, saved: Result<String, String>) {
        self.go(pos);
        let at = self.flat[pos];
        let (_, minus) = edit::replaced_lines(self.review(), at);
        let parsed = saved.clone().and_then(|text| edit::parse(&text, &minus));
        match parsed {
            Ok(None) => self.say(Tone::Info, "edit cancelled: the file was empty"),
            Ok(Some(lines)) => match self.review_mut().edit(at, lines) {
                Err(refusal) => {
                    let text = self.words().refusal(Asked::Edit, &refusal, self.review());
                    self.say(Tone::Error, text);
                }
                // A conflict saved as it is: as in `git add -p`, that means its proposal, over
                // the lines on disk; asked first, with both shown.
                Ok(Edited::Unchanged { conflict: true })
                    if self.review().take_over_refusal(at).is_none() =>
                {
                    self.overlay = Some(Overlay::ConfirmTakeOver { pos });
                }
                Ok(Edited::Unchanged { .. }) => {
                    let text = self.words().edit_unchanged();
                    self.say(Tone::Info, text);
                }
                Ok(Edited::Done) => {
                    self.save_session();
                    // Said as the commit will take it: resolved, or still in the way.
                    let resolved = self.review().resolved(at);
                    self.advance();
                    if !resolved {
                        let text = format!(
                            "edited, but still a conflict: {}",
                            self.review()
                                .change(at)
                                .check
                                .problems
                                .iter()
                                .find(|p| p.blocking)
                                .map_or("its lines do not verify", |p| p.message.as_str())
                        );
                        self.say(Tone::Warning, text);
                    } else if self.message.is_none() {
                        self.say(Tone::Info, "edited and accepted");
                    }
                }
            },
            Err(reason) => {
                self.overlay = Some(Overlay::EditFailed(FailedEdit {
                    pos,
                    buffer: saved.unwrap_or_else(|_| edit::buffer(self.review(), at)),
                    reason,
                }));
            }
        }
    }

    pub(super) fn edit_failed_action(&mut self, action: Action, failed: FailedEdit) -> Effect {
        match action {
            Action::EditAgain => Effect::RunEditor {
                pos: failed.pos,
                buffer: failed.buffer,
            },
            _ => {
                self.say(Tone::Info, "edit discarded; the change is as it was");
                Effect::None
            }
        }
    }
}
