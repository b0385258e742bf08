//! The answer to a write call: the TUL-002 response (`batchId`, each file's `filePatchId`, each
//! change's `changeId`, with the model's keys echoed) and what became of each change, whether
//! anything was committed, how to undo it, and, when anything was not applied, the feedback
//! `patchdeck feedback` writes for the model that wrote the batch.
//!
//! Every word of it is taken from the core: each change's outcome from the report an apply
//! prints (the same [`Report`]), what is on disk from the feedback's excerpts. The one
//! translation made here is the report's outcome into the words a model reads, in
//! [`Outcome::of`].

use super::{Settings, Unattended};
use crate::feedback::{self, Excerpt};
use crate::pipeline::Applied;
use crate::plan::{Plan, WriteKind};
use crate::report::{ChangeOutcome, Decided, ProblemReport, Report};
use crate::review::Decisions;
use crate::verify::{Checked, Placed, Status};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;

/// What a write call decided and did, as the write hands it over.
pub struct Written<'a> {
    pub checked: &'a Checked,
    pub decisions: &'a Decisions,
    pub plan: &'a Plan,
    /// The commit, when one was made.
    pub applied: Option<&'a Applied>,
}

/// The result of `workspace_write_patch`, `apply_patch` and `submit_patch`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteResult {
    /// The batch's ID: the SHA-256 of the batch as submitted, or the one it gives.
    pub batch_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_label: Option<String>,
    /// The format the batch was read as (`tul002`, `codex`, `unified`...).
    pub format: String,
    /// What was done with the batch, in a sentence or two.
    pub message: String,
    /// The reviewer's note on the whole batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The policy in effect while no reviewer is waiting: `refuse` or `verified`.
    pub unattended: String,
    /// Whether any file was written (all of them in one atomic commit).
    pub committed: bool,
    /// Each change counted by its outcome.
    pub summary: Summary,
    pub files: Vec<FileResult>,
    /// The files the commit wrote.
    pub written: Vec<WrittenFile>,
    /// The command that takes the commit back, while none of its files changed since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
    /// Why the commit was blocked, when a policy that writes wrote nothing.
    pub blocked: Vec<String>,
    /// When anything was not applied: what failed and what is really there, as
    /// `patchdeck feedback` says it (Markdown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    pub warnings: Vec<String>,
}

/// What became of one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Written.
    Applied,
    /// The file holds it already; nothing to write.
    AlreadyApplied,
    /// It does not fit the file as it is (its lines, its file's SHA-256, a missing file...):
    /// not written; `onDisk` and the problems say what is there.
    Conflict,
    /// It breaks a rule of the batch itself (a range past the end of the file...): not written.
    Invalid,
    /// It verifies, but nobody reviewed it: not written.
    NotReviewed,
    /// A person rejected it: not written.
    Rejected,
    /// It verifies, but the commit it belonged to was blocked (see `blocked`): not written.
    HeldBack,
}

impl Outcome {
    /// The outcome of a change the report says `said` of, which can be written as the batch
    /// stands when `writable` is [`Status::Ok`], and which `already` stands in its file.
    pub fn of(said: ChangeOutcome, writable: Status, already: bool) -> Outcome {
        match (said, writable) {
            (ChangeOutcome::Applied, _) => Outcome::Applied,
            (ChangeOutcome::AlreadyApplied, _) => Outcome::AlreadyApplied,
            (ChangeOutcome::Rejected, _) => Outcome::Rejected,
            (_, Status::Conflict) => Outcome::Conflict,
            (_, Status::Invalid) => Outcome::Invalid,
            (_, Status::Ok) if already => Outcome::AlreadyApplied,
            (ChangeOutcome::Undecided, Status::Ok) => Outcome::NotReviewed,
            (_, Status::Ok) => Outcome::HeldBack,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::AlreadyApplied => "already_applied",
            Outcome::Conflict => "conflict",
            Outcome::Invalid => "invalid",
            Outcome::NotReviewed => "not_reviewed",
            Outcome::Rejected => "rejected",
            Outcome::HeldBack => "held_back",
        }
    }

    fn written(self) -> bool {
        matches!(self, Outcome::Applied | Outcome::AlreadyApplied)
    }
}

/// Changes counted by outcome.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub changes: usize,
    pub applied: usize,
    pub already_applied: usize,
    pub conflict: usize,
    pub invalid: usize,
    pub not_reviewed: usize,
    pub rejected: usize,
    pub held_back: usize,
}

impl Summary {
    fn count(&mut self, outcome: Outcome) {
        self.changes += 1;
        *match outcome {
            Outcome::Applied => &mut self.applied,
            Outcome::AlreadyApplied => &mut self.already_applied,
            Outcome::Conflict => &mut self.conflict,
            Outcome::Invalid => &mut self.invalid,
            Outcome::NotReviewed => &mut self.not_reviewed,
            Outcome::Rejected => &mut self.rejected,
            Outcome::HeldBack => &mut self.held_back,
        } += 1;
    }
}

/// One file patch of the batch.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileResult {
    pub file_patch_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_key: Option<String>,
    pub doc_path: String,
    /// The file's path under the root, as resolved (the docPath when it could not be).
    pub path: String,
    /// The file's own problems (a SHA-256 that differs, a missing file...).
    pub problems: Vec<ProblemResult>,
    pub changes: Vec<ChangeResult>,
}

/// One change of a file patch.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeResult {
    pub change_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_key: Option<String>,
    /// `insert`, `replace` or `delete`.
    pub operation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The first line it replaces (for an insertion, the line it goes before) and the last.
    pub start_line: usize,
    pub end_line: usize,
    pub outcome: Outcome,
    /// The reviewer's note on it (why it was rejected, most often).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub problems: Vec<ProblemResult>,
    /// For a change that did not fit: the file now around its range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_disk: Option<OnDisk>,
}

/// A problem found, as `patchdeck check --json` reports it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProblemResult {
    /// Its kind (`sha_mismatch`, `expected_mismatch`...; `patchdeck check` documents each).
    pub kind: String,
    pub message: String,
    /// Whether it stops the change (or file) from being written; a note does not.
    pub blocking: bool,
    /// Where the expected lines were found instead, when they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_at: Option<usize>,
}

impl From<&ProblemReport<'_>> for ProblemResult {
    fn from(problem: &ProblemReport<'_>) -> ProblemResult {
        ProblemResult {
            kind: problem.kind.as_str().to_owned(),
            message: problem.message.to_owned(),
            blocking: problem.blocking,
            found_at: problem.found_at,
        }
    }
}

/// Consecutive lines of a file as it is now: `lines[0]` is line `startLine`; the change's
/// range is `markedStart..=markedEnd`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnDisk {
    pub start_line: usize,
    pub lines: Vec<String>,
    pub marked_start: usize,
    pub marked_end: usize,
}

impl From<&Excerpt> for OnDisk {
    fn from(excerpt: &Excerpt) -> OnDisk {
        OnDisk {
            start_line: excerpt.start_line,
            lines: excerpt.lines.clone(),
            marked_start: excerpt.marked_start,
            marked_end: excerpt.marked_end,
        }
    }
}

/// A file the commit wrote.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WrittenFile {
    pub path: String,
    /// `modified`, `created` or `deleted`.
    pub action: String,
    /// The SHA-256 of its new content (none for a deletion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The response to a write, from what the core decided and did.
pub fn build(settings: &Settings, written: &Written<'_>, warnings: Vec<String>) -> WriteResult {
    let Written {
        checked,
        decisions,
        plan,
        applied,
    } = *written;
    let committed = applied.map(|a| &a.committed);
    let decided = Decided {
        decisions,
        plan,
        committed,
    };
    let report = Report::build(&checked.batch, &checked.verification, Some(&decided));
    let told = feedback::message(checked, decisions);
    let on_disk: HashMap<&str, &Excerpt> = told
        .files
        .iter()
        .flat_map(|f| &f.changes)
        .filter_map(|c| Some((c.id.as_str(), c.current.as_ref()?)))
        .collect();
    let mut summary = Summary::default();
    let files: Vec<FileResult> = report
        .files
        .iter()
        .zip(&checked.verification.files)
        .zip(&checked.batch.files)
        .map(|((file, check), patch)| FileResult {
            file_patch_id: file.id.to_owned(),
            file_key: file.key.map(str::to_owned),
            doc_path: file.doc_path.to_owned(),
            path: file.path.clone(),
            problems: file.problems.iter().map(ProblemResult::from).collect(),
            changes: (0..file.changes.len())
                .map(|i| {
                    let entry = file.changes.get(i);
                    let already = check.changes[i].placed == Placed::Applied;
                    let outcome = Outcome::of(entry.status, file.changes.writable(i), already);
                    summary.count(outcome);
                    ChangeResult {
                        change_id: entry.id.to_owned(),
                        change_key: entry.key.map(str::to_owned),
                        operation: entry.operation.to_owned(),
                        description: entry.description.map(str::to_owned),
                        start_line: entry.start_line,
                        end_line: entry.end_line,
                        outcome,
                        note: decisions.note_on(&patch.changes[i].id).map(str::to_owned),
                        problems: entry.problems.iter().map(ProblemResult::from).collect(),
                        on_disk: match outcome.written() {
                            true => None,
                            false => on_disk.get(entry.id).map(|e| OnDisk::from(*e)),
                        },
                    }
                })
                .collect(),
        })
        .collect();
    let written: Vec<WrittenFile> = committed
        .map(|c| &c.written[..])
        .unwrap_or_default()
        .iter()
        .map(|w| WrittenFile {
            path: w.rel.display().to_string(),
            action: action(w.kind).to_owned(),
            sha256: w.sha256.clone(),
        })
        .collect();
    let undo = committed
        .and_then(|c| c.history_id.as_ref())
        .map(|_| format!("patchdeck undo --root {}", shell_word(&settings.root)));
    let everything_written = summary.applied + summary.already_applied == summary.changes;
    let batch = &checked.batch;
    WriteResult {
        batch_id: batch.id.to_string(),
        batch_key: batch.key.clone(),
        batch_label: batch.label.clone(),
        format: batch.format.clone(),
        message: message(settings.unattended, &summary, &written, undo.as_deref()),
        note: decisions.batch_note().map(str::to_owned),
        unattended: settings.unattended.as_str().to_owned(),
        committed: !written.is_empty(),
        summary,
        files,
        written,
        undo,
        blocked: report.blocked.clone(),
        feedback: (!everything_written).then(|| told.to_markdown()),
        warnings,
    }
}

fn action(kind: WriteKind) -> &'static str {
    match kind {
        WriteKind::Modify => "modified",
        WriteKind::Create => "created",
        WriteKind::Delete => "deleted",
    }
}

/// What was done, for the model and the person who reads its transcript.
fn message(
    unattended: Unattended,
    summary: &Summary,
    written: &[WrittenFile],
    undo: Option<&str>,
) -> String {
    let not_written = summary.changes - summary.applied - summary.already_applied;
    match unattended {
        Unattended::Refuse => format!(
            "Nothing was written: no reviewer is waiting for this workspace, and this server \
             writes nothing unattended (--unattended refuse). A reviewer that waits for agents \
             (`patchdeck gate`) is not built yet. To write every change that verifies without a \
             review, the server must be started with --unattended verified; a person can review \
             the batch saved to a file with `patchdeck review FILE`, or apply it with \
             `patchdeck apply FILE`. {} of {} change(s) verify as they are.",
            summary.not_reviewed + summary.already_applied,
            summary.changes
        ),
        Unattended::Verified if !written.is_empty() => {
            let mut said = format!(
                "No reviewer is waiting; under --unattended verified, the {} change(s) that \
                 verify were written in one atomic commit ({} file(s)).",
                summary.applied,
                written.len()
            );
            if let Some(undo) = undo {
                let _ = write!(said, " `{undo}` takes it back.");
            }
            if not_written > 0 {
                let _ = write!(
                    said,
                    " {not_written} change(s) were not written: see each change's outcome and the feedback."
                );
            }
            said
        }
        Unattended::Verified if summary.held_back > 0 => format!(
            "Nothing was written: the commit of the {} change(s) that verify was blocked (see blocked).",
            summary.held_back
        ),
        Unattended::Verified if not_written == 0 => {
            "Nothing was written: every change is in its file already.".to_owned()
        }
        Unattended::Verified => format!(
            "Nothing was written: none of the {} change(s) verifies against the files as they \
             are (see each change's outcome and the feedback).",
            summary.changes
        ),
    }
}

/// `path` as one word of a POSIX shell command line.
fn shell_word(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@%,".contains(c));
    match plain && !text.is_empty() {
        true => text,
        false => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

impl WriteResult {
    /// The result as text, for a client that shows only a tool result's text: the message,
    /// each change's outcome, and the feedback.
    pub fn to_text(&self) -> String {
        let mut text = format!("{}\n\nbatch {}", self.message, self.batch_id);
        if let Some(key) = &self.batch_key {
            let _ = write!(text, " \"{key}\"");
        }
        text.push('\n');
        for file in &self.files {
            let _ = writeln!(text, "{} ({})", file.path, file.file_patch_id);
            for problem in &file.problems {
                let _ = writeln!(text, "  {}: {}", problem.kind, problem.message);
            }
            for change in &file.changes {
                let key = change
                    .change_key
                    .as_deref()
                    .map(|k| format!(" \"{k}\""))
                    .unwrap_or_default();
                let _ = writeln!(
                    text,
                    "  {} {}{key}, lines {}-{}",
                    change.outcome.as_str(),
                    change.change_id,
                    change.start_line,
                    change.end_line
                );
            }
        }
        for line in &self.blocked {
            let _ = writeln!(text, "blocked: {line}");
        }
        for warning in &self.warnings {
            let _ = writeln!(text, "warning: {warning}");
        }
        if let Some(feedback) = &self.feedback {
            let _ = write!(text, "\n{feedback}");
        }
        text
    }
}
