//! The commit: the summary of what will be written, the core's atomic commit, what happened,
//! and reloading when a file changed on disk since the review began.
//!
//! The summary is the core's [`Plan`] for the current decisions, so the reviewer commits
//! exactly what `patchdeck apply --decisions` would. A commit that stops because a file changed
//! names the file and offers to reload: the batch is verified again and every decision whose
//! change still verifies is kept.

use super::app::{App, Effect, Outcome, Tone};
use super::keys::{Action, Mode};
use crate::commit::CommitOptions;
use crate::error::Error;
use crate::pipeline;
use crate::plan::{Blocker, Override, Remedy, WriteKind};
use crate::report::{Applied, Report};
use crate::review::Decision;
use crate::verify::Status;

/// The message the patch-tool spec gives in restricted mode, adapted to patchdeck.
pub const READ_ONLY_REFUSAL: &str = "Patch tool is disabled in Restricted mode (--read-only): nothing can be written. Run patchdeck again without --read-only to get write access.";

/// One line of the commit summary, with whether it warns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryLine {
    pub warn: bool,
    pub text: String,
}

impl App {
    pub(super) fn open_summary(&mut self) {
        if matches!(self.outcome, Some(Outcome::Written { .. })) {
            self.say(
                Tone::Info,
                "already committed; quit and open the batch again to review the files as they are now",
            );
            return;
        }
        self.summary = Some(self.checked.plan(&self.decisions));
        self.summary_scroll = 0;
        self.mode = Mode::CommitSummary;
    }

    /// The summary as lines: every write with its counts, every file that has accepted changes
    /// but will not be written, then overrides, warnings and blockers with the keys that lift
    /// them.
    pub fn summary_lines(&self) -> Vec<SummaryLine> {
        let Some(plan) = &self.summary else {
            return Vec::new();
        };
        let line = |warn, text: String| SummaryLine { warn, text };
        let mut out = Vec::new();
        for write in &plan.writes {
            let file = &self.checked.batch.files[write.file];
            let edited = write
                .changes
                .iter()
                .filter(|&&c| matches!(self.decisions.get(&file.changes[c].id), Decision::Edit(_)))
                .count();
            let (added, removed) = line_counts(
                write.before.as_ref().map_or(&[][..], |b| &b.bytes),
                &write.after,
            );
            let verb = match write.kind {
                WriteKind::Modify => "write ",
                WriteKind::Create => "create",
                WriteKind::Delete => "delete",
            };
            out.push(line(
                false,
                format!(
                    "{verb} {}  {} of {} change(s){}  +{added} -{removed}",
                    write.rel.display(),
                    write.changes.len(),
                    file.changes.len(),
                    if edited > 0 {
                        format!(" ({edited} edited)")
                    } else {
                        String::new()
                    }
                ),
            ));
        }
        let mut any_accepted = false;
        for (index, file) in self.checked.batch.files.iter().enumerate() {
            let accepted = file
                .changes
                .iter()
                .filter(|c| self.decisions.get(&c.id).is_selected())
                .count();
            any_accepted |= accepted > 0;
            if accepted > 0 && !plan.writes.iter().any(|w| w.file == index) {
                out.push(line(
                    true,
                    format!(
                        "blocked {}  {accepted} of {} change(s) accepted, not written (see below)",
                        self.file_path(index),
                        file.changes.len()
                    ),
                ));
            }
        }
        if plan.writes.is_empty() {
            out.push(if any_accepted {
                line(
                    true,
                    "nothing can be written until every blocker below is lifted".into(),
                )
            } else {
                line(false, "nothing to write: no change is accepted".into())
            });
        }
        for o in &plan.overrides {
            out.push(line(
                true,
                format!("override: {}", self.describe_override(o)),
            ));
        }
        let undecided = self
            .flat
            .iter()
            .filter(|&&(f, c)| {
                let id = &self.checked.batch.files[f].changes[c].id;
                *self.decisions.get(id) == Decision::Undecided
            })
            .count();
        if undecided > 0 {
            out.push(line(
                true,
                format!("{undecided} change(s) are undecided and will not be applied"),
            ));
        }
        for blocker in &plan.blockers {
            out.push(line(
                true,
                format!("blocked: {}{}", blocker.message, self.remedy_hint(blocker)),
            ));
        }
        out
    }

    /// A file's path under the root (its docPath when it could not be resolved).
    pub fn file_path(&self, file: usize) -> String {
        let (patch, check) = self.file(file);
        check
            .resolved
            .as_ref()
            .map_or_else(|| patch.doc_path.clone(), |r| r.rel().display().to_string())
    }

    /// The name a person knows a change by: its key, or its number in its file.
    pub fn change_name(&self, id: &crate::model::ChangeId) -> String {
        self.checked
            .batch
            .files
            .iter()
            .find_map(|f| {
                let at = f.changes.iter().position(|c| &c.id == id)?;
                Some(f.changes[at].key.clone().unwrap_or(format!("#{}", at + 1)))
            })
            .unwrap_or_else(|| id.to_string())
    }

    /// The key of a reviewing action, as the footer names it.
    fn key_name(&self, action: Action) -> String {
        self.keymap
            .key_for(Mode::Browse, action)
            .map_or_else(|| "?".to_owned(), |k| k.label())
    }

    /// An override of the plan, in the reviewer's words: changes by their keys, and the key
    /// that takes it back.
    fn describe_override(&self, o: &Override) -> String {
        match o {
            Override::ShaMismatch { file } => format!(
                "{}: written although its SHA-256 differs from the batch's ({} takes it back)",
                self.file_path(*file),
                self.key_name(Action::OverrideSha)
            ),
            Override::HardLink { file } => format!(
                "{}: written although it has several hard links; its other names keep the old content",
                self.file_path(*file)
            ),
            Override::EditedOver { file, change, at } => format!(
                "{}: {} edited to replace the lines now at line {at}, which are not the batch's expected lines",
                self.file_path(*file),
                self.change_name(change)
            ),
            Override::Relocated {
                file,
                change,
                from,
                to,
            } => format!(
                "{}: {} moved from line {from} to line {to}, where its expected lines are ({} takes it back)",
                self.file_path(*file),
                self.change_name(change),
                self.key_name(Action::Relocate)
            ),
        }
    }

    /// What lifts a blocker, in the reviewer's keys.
    fn remedy_hint(&self, blocker: &Blocker) -> String {
        match blocker.remedy {
            Some(Remedy::OverrideSha) => match self.override_refusal(blocker.file) {
                None => format!(
                    " ({} on a change of this file overrides it)",
                    self.key_name(Action::OverrideSha)
                ),
                Some(_) => format!(
                    " (resolve its conflicting changes, then {} overrides it)",
                    self.key_name(Action::OverrideSha)
                ),
            },
            Some(Remedy::Relocate) => format!(
                " ({} on the change moves it there)",
                self.key_name(Action::Relocate)
            ),
            Some(Remedy::OverrideHardLink) => format!(
                " (the reviewer does not override this; `patchdeck apply` can: {})",
                Remedy::OverrideHardLink.cli_hint()
            ),
            None => String::new(),
        }
    }

    pub(super) fn summary_action(&mut self, action: Action) -> Effect {
        match action {
            Action::Confirm => self.commit(),
            Action::NextChange => {
                let most = super::draw::summary_max_scroll(self);
                self.summary_scroll = (self.summary_scroll + 1).min(most);
            }
            Action::PrevChange => self.summary_scroll = self.summary_scroll.saturating_sub(1),
            _ => {
                self.summary = None;
                self.mode = Mode::Browse;
            }
        }
        Effect::None
    }

    fn commit(&mut self) {
        if self.config.read_only {
            self.say(Tone::Error, READ_ONLY_REFUSAL);
            return;
        }
        let Some(plan) = self.summary.take() else {
            return;
        };
        if plan.is_blocked() {
            let text = format!(
                "cannot commit: {} blocker(s) listed in the summary; nothing was written",
                plan.blockers.len()
            );
            self.summary = Some(plan);
            self.say(Tone::Error, text);
            return;
        }
        self.flush_session();
        let options = CommitOptions {
            read_only: self.config.read_only,
            label: pipeline::batch_name(&self.checked.batch),
            ..CommitOptions::default()
        };
        match pipeline::commit(&self.workspace, &plan, &options) {
            Ok(committed) => {
                let report = self.config.report.clone().map(|path| {
                    let applied = Applied {
                        decisions: &self.decisions,
                        plan: &plan,
                        committed: Some(&committed),
                    };
                    let json = Report::build(
                        &self.checked.batch,
                        &self.checked.verification,
                        Some(&applied),
                    )
                    .to_json();
                    std::fs::write(&path, json + "\n")
                        .map(|()| path.clone())
                        .map_err(|e| format!("cannot write the report {}: {e}", path.display()))
                });
                if let Some(session) = self.session() {
                    let _ = session.remove();
                }
                self.saver = None;
                self.outcome = Some(Outcome::Written { committed, report });
                self.mode = Mode::Committed;
            }
            Err(Error::ChangedOnDisk { path, what }) => {
                self.changed_on_disk = Some(format!("{path}: {what}"));
                self.mode = Mode::Reload;
            }
            Err(error) => {
                let mut text = error.to_string();
                if let Some(hint) = error.hint() {
                    text.push_str(&format!(" (hint: {hint})"));
                }
                self.outcome = Some(Outcome::Failed(text));
                self.mode = Mode::Committed;
            }
        }
    }

    pub(super) fn reload_action(&mut self, action: Action) -> Effect {
        self.mode = Mode::Browse;
        if action == Action::Confirm {
            self.reload();
        }
        Effect::None
    }

    /// Verifies the batch again against the files as they are now, keeping every decision
    /// whose change still verifies (and every rejection).
    pub fn reload(&mut self) {
        self.checked.reverify(&self.workspace);
        if let Some(status) = crate::git::status(self.workspace.root()) {
            crate::git::mark_uncommitted(&mut self.checked.verification, &status);
        }
        self.forget_file_caches();
        self.changed_on_disk = None;
        let mut dropped = 0;
        let mut kept = 0;
        for &(f, c) in &self.flat {
            let change = &self.checked.batch.files[f].changes[c];
            let check = &self.checked.verification.files[f].changes[c];
            let decision = self.decisions.get(&change.id).clone();
            let verifies = check.status == Status::Ok
                || (self.decisions.relocate.contains(&change.id) && check.found_at().is_some());
            match decision {
                Decision::Undecided => {}
                Decision::Reject => kept += 1,
                _ if verifies && !self.decisions.replaces.contains_key(&change.id) => kept += 1,
                _ => {
                    self.decisions.set(change.id.clone(), Decision::Undecided);
                    self.decisions.relocate.remove(&change.id);
                    self.decisions.replaces.remove(&change.id);
                    dropped += 1;
                }
            }
        }
        // An override stays only while it is still allowed: the mismatch is there and every
        // change verifies or is resolved.
        let still_allowed: Vec<bool> = (0..self.checked.batch.files.len())
            .map(|f| self.file(f).1.sha_mismatch() && self.override_refusal(f).is_none())
            .collect();
        let files = &self.checked.batch.files;
        self.decisions.sha_overrides.retain(|id| {
            files
                .iter()
                .zip(&still_allowed)
                .any(|(f, allowed)| &f.id == id && *allowed)
        });
        self.history.clear();
        self.save_session();
        self.say(
            if dropped > 0 { Tone::Warning } else { Tone::Info },
            format!(
                "reloaded: kept {kept} decision(s); {dropped} whose change no longer verifies are undecided again"
            ),
        );
    }
}

/// Lines added and removed between two versions of a file (a line diff).
fn line_counts(before: &[u8], after: &[u8]) -> (usize, usize) {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut counts = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => counts.0 += 1,
            similar::ChangeTag::Delete => counts.1 += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    counts
}
