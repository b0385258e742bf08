//! The commit from the reviewer: the summary of what will be written, the core's apply (the
//! same call `patchdeck apply` makes), what happened, and reloading when a file changed on disk
//! since the review began.
//!
//! The summary is the core's [`crate::plan::Plan`] for the current decisions, so the reviewer
//! commits exactly what `patchdeck apply --decisions` would. A commit that stops because a file
//! changed names the file and offers to reload: the batch is verified again and every decision
//! whose change can still be written as decided is kept.

use super::app::{App, Effect, Outcome, Overlay, Tone};
use super::keys::Action;
use super::summary::{Summary, SummaryLine};
use crate::commit::{CommitOptions, NewContents};
use crate::error::Error;
use crate::fs::Snapshot;
use crate::pipeline;
use crate::plan::FileWrite;
use crate::report::Decided;

/// Why nothing can be committed in read-only mode, in patchdeck's words.
pub const READ_ONLY_REFUSAL: &str = "read-only review (--read-only): nothing can be written; open the batch again without --read-only to commit";

impl App {
    pub(super) fn open_summary(&mut self) {
        if self.config.read_only {
            self.say(Tone::Error, READ_ONLY_REFUSAL);
            return;
        }
        if self.committed() {
            self.say(
                Tone::Info,
                "already committed; quit and open the batch again to review the files as they are now",
            );
            return;
        }
        let summary = Summary::open(self.review(), &self.words());
        self.overlay = Some(Overlay::CommitSummary(summary));
    }

    /// The summary being shown, as lines.
    pub fn summary_lines(&self) -> &[SummaryLine] {
        match &self.overlay {
            Some(Overlay::CommitSummary(summary)) => &summary.lines,
            _ => &[],
        }
    }

    /// Whether the summary shown has lines still to count ([`App::count_summary`]).
    pub fn summary_counting(&self) -> bool {
        matches!(&self.overlay, Some(Overlay::CommitSummary(s)) if s.counting())
    }

    /// Counts more of the summary's lines, for up to `budget`: the loop calls it while no key
    /// waits, until [`App::summary_counting`] is false.
    pub fn count_summary(&mut self, budget: std::time::Duration) {
        if let Some(Overlay::CommitSummary(summary)) = &mut self.overlay {
            summary.count_more(&self.review, budget);
        }
    }

    pub(super) fn summary_action(&mut self, action: Action, summary: Summary) -> Effect {
        if action == Action::Confirm {
            self.commit(summary);
        }
        Effect::None
    }

    fn commit(&mut self, summary: Summary) {
        if self.config.read_only || summary.plan.is_blocked() {
            let text = if self.config.read_only {
                READ_ONLY_REFUSAL.to_owned()
            } else {
                format!(
                    "cannot commit: {} blocker(s) listed in the summary; nothing was written",
                    summary.plan.blockers.len()
                )
            };
            self.overlay = Some(Overlay::CommitSummary(summary));
            self.say(Tone::Error, text);
            return;
        }
        let plan = summary.plan;
        self.flush_session();
        let options = CommitOptions {
            label: crate::report::say::batch_name(self.review().batch()),
            ..CommitOptions::default()
        };
        // Each new content is made as its file is staged, from the file as the commit reads
        // it under its lock, as `patchdeck apply` makes it.
        let checked = self.review.checked();
        let decisions = self.review.decisions();
        let make = |write: &FileWrite, target: Option<&Snapshot>| {
            checked.content_of(decisions, write, target)
        };
        let applied = pipeline::apply_with(
            &self.workspace,
            &plan,
            NewContents::Made(&make),
            &options,
            self.config.stage,
        );
        match applied {
            Ok(applied) => {
                let report = self.config.report.clone().map(|path| {
                    let decided = Decided {
                        decisions: self.decisions(),
                        plan: &plan,
                        committed: Some(&applied.committed),
                    };
                    let json = applied.report(self.review().checked(), &decided).to_json();
                    std::fs::write(&path, json + "\n")
                        .map(|()| path.clone())
                        .map_err(|e| format!("cannot write the report {}: {e}", path.display()))
                });
                // Every decision written first (dropping the saver waits for it), then the
                // session goes with the commit's undo record: `patchdeck undo` brings the
                // decisions back with the files (an edit made here among them).
                let session = self.session().cloned();
                self.saver = None;
                if let Some(session) = session {
                    let _ = session.keep_for_undo(applied.committed.history_id.as_deref());
                }
                let mut warnings = applied.warnings.clone();
                // What the person undid, and why, for the agent: `patchdeck feedback --last`.
                if self.review().batch().stance == crate::model::Stance::Standing {
                    let checked = self.review().checked();
                    warnings.extend(pipeline::keep_feedback(
                        &self.workspace,
                        checked,
                        self.decisions(),
                        &applied,
                    ));
                }
                if !warnings.is_empty() {
                    self.say(Tone::Warning, warnings.join("; "));
                }
                self.outcome = Some(Outcome::Written {
                    committed: Box::new(applied.committed),
                    report,
                });
                self.overlay = Some(Overlay::Committed { scroll: 0 });
            }
            Err(Error::ChangedOnDisk { path, what }) => {
                self.overlay = Some(Overlay::Reload {
                    what: format!("{path}: {what}"),
                });
            }
            Err(error) => {
                let mut text = error.to_string();
                if let Some(hint) = error.hint() {
                    text.push_str(&format!(" (hint: {hint})"));
                }
                self.outcome = Some(Outcome::Failed(text));
                self.overlay = Some(Overlay::Committed { scroll: 0 });
            }
        }
    }

    pub(super) fn reload_action(&mut self, action: Action, what: String) -> Effect {
        if action == Action::Confirm {
            self.reload();
        } else {
            self.say(Tone::Warning, format!("not reloaded: {what}"));
        }
        Effect::None
    }

    /// Verifies the batch again against the files as they are now, keeping what the core's
    /// rules keep (every rejection, and every decision whose change can still be written as
    /// decided).
    pub fn reload(&mut self) {
        let verification =
            crate::pipeline::verify_again(&self.review.checked().batch, &self.workspace);
        let retained = self.review.reverify(verification);
        self.forget_file_caches();
        self.save_session();
        self.say(
            if retained.dropped > 0 {
                Tone::Warning
            } else {
                Tone::Info
            },
            format!(
                "reloaded: kept {} decision(s); {} whose change no longer verifies are undecided again",
                retained.kept, retained.dropped
            ),
        );
    }
}
