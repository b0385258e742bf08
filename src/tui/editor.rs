//! Editing a change in `$VISUAL`/`$EDITOR`, as `git add -p`'s `e` does.
//!
//! The buffer shows the lines the change replaces as they are on disk now (`-`) and the lines
//! it will write (`+`) under a short comment header. Saving makes the change edited and
//! accepted; an empty file cancels; a buffer whose `-` lines no longer match the file, or that
//! cannot be read, offers to edit again or discard. Editing a conflicting change over the lines
//! actually there resolves the conflict: the decision records those lines, and the commit
//! checks them instead of the batch's expected lines.

use super::app::{App, Effect, FailedEdit, Tone};
use super::keys::{Action, Mode};
use crate::model::{FileAction, LineRange};
use crate::problem::ProblemKind;
use crate::review::Decision;
use crate::verify::Status;
use std::io::{self, Write};
use std::path::Path;
use std::process::Command;

/// The lines a change replaces (as on disk) and the range they come from.
fn replaced_lines(app: &App, pos: usize) -> (LineRange, Vec<String>) {
    let (fi, _) = app.flat[pos];
    let (_, change, file_check, check) = app.change(pos);
    let mut range = change.range;
    if app.decisions.relocate.contains(&change.id) {
        if let Some(at) = check.found_at() {
            range.start = at;
        }
    }
    let index = app.line_index(fi);
    let bytes = file_check.base_bytes();
    let end = range.end().min(index.len() + 1);
    let lines = (range.start.max(1)..end)
        .map(|n| index.line(bytes, n).to_owned())
        .collect();
    (range, lines)
}

/// The editor buffer for the change at `pos`.
pub fn buffer(app: &App, pos: usize) -> String {
    let (file, change, file_check, check) = app.change(pos);
    let (range, minus) = replaced_lines(app, pos);
    let plus = match app.decisions.get(&change.id) {
        Decision::Edit(lines) => lines.clone(),
        _ => change.new_lines.clone(),
    };
    let path = file_check
        .resolved
        .as_ref()
        .map_or(file.doc_path.clone(), |r| r.rel().display().to_string());
    let mut out = format!(
        "# patchdeck: edit change \"{}\" of {path} ({} {})\n",
        change.key.as_deref().unwrap_or(change.id.as_str()),
        change.operation.as_str(),
        range.describe()
    );
    out.push_str(
        "# Lines starting with '-' are what the change replaces, as on disk now: keep them.\n",
    );
    out.push_str("# Lines starting with '+' are written instead: change, add or remove them\n");
    out.push_str("# ('+' alone is an empty line). Lines starting with '#' are ignored.\n");
    if check.status == Status::Conflict && !app.decisions.relocate.contains(&change.id) {
        out.push_str(&format!(
            "# CONFLICT: the lines at {} are not the ones the batch expected; the '+' lines will\n# replace the '-' lines below, which are what is there now.\n",
            range.describe()
        ));
    }
    out.push_str("# Save an empty file to cancel.\n");
    for line in &minus {
        out.push_str(&format!("-{line}\n"));
    }
    for line in &plus {
        out.push_str(&format!("+{line}\n"));
    }
    out
}

/// Reads an edited buffer: `Ok(None)` cancels, `Ok(Some(lines))` are the new lines, `Err` says
/// why the edit cannot apply. `minus` are the lines the `-` lines must still be.
pub fn parse(text: &str, minus: &[String]) -> Result<Option<Vec<String>>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let mut seen_minus = Vec::new();
    let mut plus = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix('+') {
            plus.push(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix('-') {
            seen_minus.push(rest.to_owned());
        } else if !(line.starts_with('#') || line.is_empty()) {
            return Err(format!(
                "line {} starts with neither '+', '-' nor '#': {line}",
                i + 1
            ));
        }
    }
    if seen_minus != minus {
        return Err(
            "the '-' lines are no longer the lines this change replaces; keep them as they were"
                .to_owned(),
        );
    }
    Ok(Some(plus))
}

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
    /// Why the change at `pos` cannot be edited, if it cannot.
    pub fn edit_refusal(&self, pos: usize) -> Option<String> {
        if let Some(refusal) = self.committed_refusal() {
            return Some(refusal.to_owned());
        }
        let (file, change, file_check, check) = self.change(pos);
        if let Some(places) = change.unplaced() {
            return Some(format!(
                "cannot edit: {}; r rejects it",
                super::decide::unplaced_reason(places)
            ));
        }
        if file_check.action == FileAction::Delete || file.action == FileAction::Delete {
            Some(
                "a file deletion is accepted or rejected as a whole; it has no lines to edit"
                    .to_owned(),
            )
        } else if let Some(p) = file_check
            .problems
            .iter()
            .find(|p| p.blocking && p.kind != ProblemKind::ShaMismatch)
        {
            Some(format!("cannot edit: {}", p.message))
        } else if check.status == Status::Invalid
            || (check
                .problems
                .iter()
                .any(|p| p.kind == ProblemKind::OutOfRange)
                && !self.decisions.relocate.contains(&change.id))
        {
            Some("cannot edit: the change's lines are not in the file; reject it".to_owned())
        } else {
            None
        }
    }

    pub(super) fn start_edit(&mut self) -> Effect {
        if let Some(refusal) = self.edit_refusal(self.pos) {
            self.say(Tone::Error, refusal);
            return Effect::None;
        }
        Effect::RunEditor {
            pos: self.pos,
            buffer: buffer(self, self.pos),
        }
    }

    /// Takes what the editor saved (or why it failed) for the change at `pos`.
    pub fn finish_edit(&mut self, pos: usize, saved: Result<String, String>) {
        self.go(pos);
        let (_, minus) = replaced_lines(self, pos);
        let parsed = saved.clone().and_then(|text| parse(&text, &minus));
        match parsed {
            Ok(None) => self.say(Tone::Info, "edit cancelled: the file was empty"),
            Ok(Some(lines)) => {
                let (_, change, _, check) = self.change(pos);
                let id = change.id.clone();
                let conflict =
                    check.status == Status::Conflict && !self.decisions.relocate.contains(&id);
                // Saving a conflict's lines as they came would write the batch's lines over
                // lines they were never meant for: that is no resolution.
                if conflict && lines == change.new_lines {
                    self.say(
                        Tone::Warning,
                        "nothing changed; still a conflict: as they are, the '+' lines would replace lines the batch did not expect (m moves the change, r rejects it)",
                    );
                    return;
                }
                let over = conflict.then_some(minus);
                self.step(|tx| {
                    tx.replaces(&id, over);
                    tx.decide(&id, Decision::Edit(lines));
                });
                self.advance();
                if self.message.is_none() {
                    self.say(Tone::Info, "edited and accepted");
                }
            }
            Err(reason) => {
                self.failed_edit = Some(FailedEdit {
                    pos,
                    buffer: saved.unwrap_or_else(|_| buffer(self, pos)),
                    reason,
                });
                self.mode = Mode::EditFailed;
            }
        }
    }

    pub(super) fn edit_failed_action(&mut self, action: Action) -> Effect {
        self.mode = Mode::Browse;
        let Some(failed) = self.failed_edit.take() else {
            return Effect::None;
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn s(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn plus_lines_are_the_edit_and_comments_are_ignored() {
        let text = "# header\n-old\n+new one\n+\n+# a comment in the code\n";
        assert_eq!(
            parse(text, &s(&["old"])),
            Ok(Some(s(&["new one", "", "# a comment in the code"])))
        );
    }

    #[test]
    fn an_empty_file_cancels_and_changed_minus_lines_cannot_apply() {
        assert_eq!(parse("  \n", &s(&["old"])), Ok(None));
        assert!(parse("-olD\n+new\n", &s(&["old"])).is_err());
        assert!(parse("stray\n", &[]).unwrap_err().contains("line 1"));
    }
}
