//! Feedback for the model that wrote a batch: which of its changes do not fit the files as
//! they are now, and what is really there, as data ([`Feedback`]) that renders as Markdown for
//! a chat ([`Feedback::to_markdown`]) or serialises as JSON for an agent.
//!
//! A change *failed* when it has a problem of its own (its expected lines are not where it
//! says, its range leaves the file, a format could not place its text, or it is an insertion
//! into a file whose SHA-256 differs, which nothing confirms) and the decisions do not resolve
//! it. The decisions resolve a failure by writing the change all the same: accepted and moved
//! where its expected lines are (`--relocate`, `m`), placed by the person, or edited over the
//! lines on disk. Such a change is listed as *resolved*, in one line, not as a failure: it will
//! be written, and the model has nothing to fix. A rejected or undecided change that does not
//! fit is still a failure (rejecting is how a pipeline applies the rest). A change applied
//! already is neither. A file-level problem (a SHA-256 that differs, a missing file...) is said
//! once, on its file, with the file's SHA-256 now; the changes it alone holds back are
//! counted, not quoted. Quoting is bounded: a few lines of context, at most
//! [`MAX_QUOTED_LINES`] lines a quote and [`MAX_PLACES`] places a change.
//!
//! This module reads a checked batch and decisions; it writes nothing and knows no terminal.

mod markdown;
mod quote;

use quote::{around, excerpt};
pub use quote::{Excerpt, Quote, CONTEXT, MAX_PLACES, MAX_QUOTED_LINES};

use crate::lines::Lines;
use crate::model::{FileAction, FilePatch, LineRange, Operation, Stance};
use crate::plan::Blocker;
use crate::problem::ProblemKind;
use crate::review::rules::{self, Placement};
use crate::review::rules::{overridden, FileOverride};
use crate::review::{Decision, Decisions};
use crate::text_lines::TextLines;
use crate::verify::Checked;
use crate::verify::{ChangeCheck, FileCheck, Placed, Problem, Status};
use serde::Serialize;

/// What to tell the model about a batch, as decided.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feedback {
    pub batch: BatchName,
    pub format: String,
    pub source: String,
    pub summary: Summary,
    /// Files with a failed change or a problem of their own, in batch order.
    pub files: Vec<FileFeedback>,
    /// Failures the decisions resolve: written all the same, nothing to fix.
    pub resolved: Vec<Resolved>,
    /// The person's note on the whole batch, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Changes that fit, which the person rejected (in batch order, the first
    /// [`MAX_REJECTED`]), each with the person's note and the file now around it. A rejected
    /// change that does not fit is a failure, in `files`, with its note there.
    pub rejected: Vec<RejectedChange>,
    /// Rejected changes past the first [`MAX_REJECTED`], counted.
    pub more_rejected: usize,
    /// For the work tree's changes: those the person kept with lines of their own (the first
    /// [`MAX_REJECTED`]), each with the file around it as the edit leaves it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<RejectedChange>,
    /// `standing` for the work tree's changes (`--worktree`): then `rejected` are the agent's
    /// changes the person undid, each with the file around it as undoing leaves it (the
    /// base's lines back, marked).
    #[serde(skip_serializing_if = "Stance::is_proposed")]
    pub stance: Stance,
}

/// How many rejected changes the feedback names; the rest are counted.
pub const MAX_REJECTED: usize = 100;

/// A change that fits, which the person rejected.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RejectedChange {
    pub path: String,
    pub id: String,
    pub key: Option<String>,
    /// Its place in its file patch, from 1 (`PATH#N`).
    pub number: usize,
    pub description: Option<String>,
    pub operation: Operation,
    pub start_line: usize,
    pub end_line: usize,
    /// Why, in the person's words, when they wrote a note.
    pub note: Option<String>,
    /// The file now around its range (none when there is no file to read).
    pub current: Option<Excerpt>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BatchName {
    pub id: String,
    pub key: Option<String>,
    pub label: Option<String>,
}

/// Counts over the whole batch. Every change is counted once: `ok + failed + heldBack +
/// resolved + alreadyApplied = changes`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub files: usize,
    pub changes: usize,
    /// Changes that fit where they say, in a file nothing holds back (or rejected).
    pub ok: usize,
    /// Changes that do not fit, for a reason of their own, and that no decision resolves.
    pub failed: usize,
    /// Changes that fit where they say, not rejected, whose file has a problem of its own.
    pub held_back: usize,
    /// Changes whose failure the decisions resolve (listed in [`Feedback::resolved`], with
    /// the files whose problem an override lifts).
    pub resolved: usize,
    pub already_applied: usize,
}

/// One file with what failed in it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileFeedback {
    /// The file patch's ID.
    pub id: String,
    pub key: Option<String>,
    /// The file's path under the root, as resolved (the docPath when it could not be).
    pub path: String,
    pub doc_path: String,
    pub label: Option<String>,
    pub action: FileAction,
    pub expected_sha256: Option<String>,
    /// The SHA-256 of the file as it is now (absent when there is no file to read).
    pub actual_sha256: Option<String>,
    pub sha_mismatch: bool,
    /// How many lines the file has now (absent when there is no file to read).
    pub line_count: Option<usize>,
    /// The file's own problems that no decision lifts, and what the plan refuses for it.
    pub problems: Vec<Rule>,
    /// Changes of this file that fit where they say but wait on `problems`.
    pub held_back: usize,
    /// The names (key, else ID) of the first of those, for a person to read.
    #[serde(skip)]
    pub held_back_names: Vec<String>,
    pub changes: Vec<ChangeFeedback>,
}

/// A rule a file or change breaks: its kind and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub kind: ProblemKind,
    pub message: String,
}

impl From<&Problem> for Rule {
    fn from(problem: &Problem) -> Rule {
        Rule {
            kind: problem.kind,
            message: problem.message.clone(),
        }
    }
}

/// One failed change: what it expected, why it failed, and what the file holds now.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeFeedback {
    pub id: String,
    pub key: Option<String>,
    /// Its place in its file patch, from 1 (`PATH#N`).
    pub number: usize,
    pub description: Option<String>,
    pub operation: Operation,
    /// `conflict`, or `invalid` when the change breaks a rule of the batch itself.
    pub status: Status,
    /// What the decisions say of it: `accept`, `reject`, `edit` or `undecided`.
    pub decision: &'static str,
    /// As the batch says it: the first line replaced (for an insertion, the line it goes
    /// before), the last (for an insertion, the line it goes after) and, for an insertion,
    /// `afterLine`.
    pub start_line: usize,
    pub end_line: usize,
    pub after_line: Option<usize>,
    /// False when a format could not place the change (its text stands nowhere, or at
    /// several places): its range is then only a stand-in.
    pub located: bool,
    pub problems: Vec<Rule>,
    /// The lines it expected at its range (none for an insertion).
    pub expected: Option<Quote>,
    /// The file now around its range (none when its range means nothing: a format could
    /// not place it, or there is no file to read).
    pub current: Option<Excerpt>,
    /// The file now at each place its expected lines stand, nearest its range first.
    pub found_at: Vec<Excerpt>,
    /// Places its expected lines stand that are not quoted.
    pub more_places: usize,
    /// The person's note on it, for the model.
    pub note: Option<String>,
}

/// A failure the decisions resolve.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    pub path: String,
    pub file_id: String,
    /// The change, for a change's resolution (absent for a file's override).
    pub change_id: Option<String>,
    pub key: Option<String>,
    pub how: Resolution,
    pub message: String,
}

/// How a failure is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Moved to where its expected lines were found.
    Relocated,
    /// Placed by the person at a line of their choosing.
    Placed,
    /// Edited by the person over the lines at its range.
    EditedOver,
    /// The file is written although its SHA-256 differs.
    ShaOverride,
    /// The file is written although it has other hard links.
    HardLinkOverride,
    /// The created file is written over the one that exists.
    Overwrite,
}

/// The feedback on a checked batch under these decisions (`Decisions::accept_all` for what a
/// plain `apply` would do).
pub fn message(checked: &Checked, decisions: &Decisions) -> Feedback {
    let batch = &checked.batch;
    // What the plan refuses beyond the problems verification found (a file written twice,
    // changes moved onto one another...).
    let plan = checked.plan_blockers(decisions);
    let mut summary = Summary {
        files: batch.files.len(),
        changes: batch.change_count(),
        ..Summary::default()
    };
    let mut resolved = Vec::new();
    let mut rejected = Rejections::default();
    let mut edited = Rejections::default();
    let files = (0..batch.files.len())
        .filter_map(|index| {
            let about = About {
                file: &batch.files[index],
                check: &checked.verification.files[index],
                decisions,
            };
            let planned = plan
                .blockers
                .iter()
                .filter(|b| b.file == index && planned_kind(b.kind));
            about.feedback(
                planned,
                &mut summary,
                &mut resolved,
                &mut rejected,
                &mut edited,
            )
        })
        .collect();
    Feedback {
        batch: BatchName {
            id: batch.id.to_string(),
            key: batch.key.clone(),
            label: batch.label.clone(),
        },
        format: batch.format.clone(),
        source: batch.source.clone(),
        summary,
        files,
        resolved,
        note: decisions.batch_note().map(str::to_owned),
        rejected: rejected.named,
        more_rejected: rejected.more,
        edited: edited.named,
        stance: batch.stance,
    }
}

/// The rejected changes that fit, as the files are gone through.
#[derive(Default)]
struct Rejections {
    named: Vec<RejectedChange>,
    more: usize,
}

/// One file patch with its verdict and the decisions, as the feedback reads them.
struct About<'a> {
    file: &'a FilePatch,
    check: &'a FileCheck,
    decisions: &'a Decisions,
}

impl About<'_> {
    /// The file's entry, when something failed in it; counts each of its changes in
    /// `summary`, and adds what the decisions resolve to `resolved`.
    fn feedback<'b>(
        &self,
        planned: impl Iterator<Item = &'b Blocker>,
        summary: &mut Summary,
        resolved: &mut Vec<Resolved>,
        rejected: &mut Rejections,
        edited: &mut Rejections,
    ) -> Option<FileFeedback> {
        let (file, check, decisions) = (self.file, self.check, self.decisions);
        let path = check.display_path(file);
        let mut problems: Vec<Rule> = check
            .problems
            .iter()
            .filter(|p| p.blocking && !overridden(p.kind, file, decisions))
            .map(Rule::from)
            .collect();
        problems.extend(planned.map(|b| Rule {
            kind: b.kind,
            message: b.message.clone(),
        }));
        let written = file.changes.iter().any(|c| decisions.writes(&c.id));
        for problem in check.problems.iter().filter(|p| p.blocking && written) {
            if let Some(how) = file_override(problem.kind, file, decisions) {
                resolved.push(Resolved {
                    path: path.clone(),
                    file_id: file.id.to_string(),
                    change_id: None,
                    key: file.key.clone(),
                    how,
                    message: file_resolution_message(how),
                });
            }
        }
        // Split into lines only for a file the feedback quotes.
        let lines = std::cell::OnceCell::new();
        let lines = || lines.get_or_init(|| Lines::split(check.base_bytes()));
        let mut entry = FileFeedback {
            id: file.id.to_string(),
            key: file.key.clone(),
            path: path.clone(),
            doc_path: file.doc_path.clone(),
            label: file.label.clone(),
            action: check.action,
            expected_sha256: file.expected_sha256.clone(),
            actual_sha256: check.actual_sha256().map(str::to_owned),
            sha_mismatch: check.sha_mismatch(),
            line_count: None,
            problems,
            held_back: 0,
            held_back_names: Vec::new(),
            changes: Vec::new(),
        };
        for (i, (change, change_check)) in file.changes.iter().zip(&check.changes).enumerate() {
            let decision = decisions.get(&change.id);
            if !has_trouble(change_check) {
                if *decision == Decision::Reject && change_check.placed != Placed::Applied {
                    rejected.add(|| self.rejected(&path, lines(), i));
                }
                // A work tree change kept with the person's lines: the agent's lines are gone.
                if let Decision::Edit(written) = decision {
                    if self.decisions.stance() == Stance::Standing {
                        edited.add(|| self.undone(&path, lines(), i, written));
                    }
                }
                if change_check.placed == Placed::Applied {
                    summary.already_applied += 1;
                } else if entry.problems.is_empty() || *decision == Decision::Reject {
                    summary.ok += 1;
                } else {
                    entry.held_back += 1;
                    if entry.held_back_names.len() < markdown::HELD_BACK_NAMED {
                        entry
                            .held_back_names
                            .push(change.key.clone().unwrap_or_else(|| change.id.to_string()));
                    }
                }
                continue;
            }
            // Asked as if the file were written over its SHA-256 mismatch: an insertion there
            // is a failure of its own, whatever is decided for the file.
            match (
                decision.writes(decisions.stance()),
                rules::placement(file, check, i, decisions, check.sha_mismatch()),
            ) {
                (_, Ok(Placement::AlreadyApplied)) => summary.already_applied += 1,
                (true, Ok(placement)) => {
                    summary.resolved += 1;
                    resolved.push(change_resolution(&path, file, i, placement));
                }
                _ => {
                    let mut failed = failed_change(file, check, lines(), i, decision);
                    failed.note = decisions.note_on(&change.id).map(str::to_owned);
                    entry.changes.push(failed);
                }
            }
        }
        summary.failed += entry.changes.len();
        summary.held_back += entry.held_back;
        if entry.problems.is_empty() && entry.changes.is_empty() {
            return None;
        }
        entry.line_count = check.snapshot.as_ref().map(|_| lines().len());
        Some(entry)
    }
}

impl About<'_> {
    /// Change `index`, which fits and which the person rejected.
    fn rejected(&self, path: &str, lines: &Lines<'_>, index: usize) -> RejectedChange {
        let change = &self.file.changes[index];
        if self.decisions.stance() == Stance::Standing {
            return self.undone(path, lines, index, &change.new_lines);
        }
        let readable = self.check.snapshot.is_some() && !lines.is_empty();
        RejectedChange {
            path: path.to_owned(),
            id: change.id.to_string(),
            key: change.key.clone(),
            number: index + 1,
            description: change.description.clone(),
            operation: change.operation,
            start_line: change.range.start,
            end_line: change.range.end() - 1,
            note: self.decisions.note_on(&change.id).map(str::to_owned),
            current: readable.then(|| around(lines, change.range)),
        }
    }
}

impl About<'_> {
    /// A change of the work tree the person undid (`written` the base's lines) or edited
    /// (`written` theirs): its place and the file around it as that leaves it, the lines
    /// written at its range (marked).
    fn undone(
        &self,
        path: &str,
        lines: &Lines<'_>,
        index: usize,
        written: &TextLines,
    ) -> RejectedChange {
        let change = &self.file.changes[index];
        let range = change.range;
        let end = range.end().min(lines.len() + 1);
        let mut now = String::new();
        for n in 1..range.start.min(end) {
            now.push_str(&lines.get(n - 1).text_str());
            now.push('\n');
        }
        for line in written {
            now.push_str(line);
            now.push('\n');
        }
        for n in end..=lines.len() {
            now.push_str(&lines.get(n - 1).text_str());
            now.push('\n');
        }
        // The hunk's context lines stay: only the lines that differ are marked.
        let (base, disk) = (written, change.expected.clone().unwrap_or_default());
        let same = |a: usize, b: usize| base.get(a).is_some() && base.get(a) == disk.get(b);
        let mut head = 0;
        while same(head, head) {
            head += 1;
        }
        let mut tail = 0;
        while head + tail < base.len().min(disk.len())
            && same(base.len() - 1 - tail, disk.len() - 1 - tail)
        {
            tail += 1;
        }
        let back = LineRange {
            start: range.start + head,
            count: base.len() - head - tail,
        };
        let now_lines = Lines::split(now.as_bytes());
        RejectedChange {
            path: path.to_owned(),
            id: change.id.to_string(),
            key: change.key.clone(),
            number: index + 1,
            description: change.description.clone(),
            operation: change.operation,
            start_line: back.start,
            end_line: back.end() - 1,
            note: self.decisions.note_on(&change.id).map(str::to_owned),
            current: (!now_lines.is_empty()).then(|| around(&now_lines, back)),
        }
    }
}

impl Rejections {
    /// Names the change `make` makes, or counts it past the first [`MAX_REJECTED`].
    fn add(&mut self, make: impl FnOnce() -> RejectedChange) {
        match self.named.len() < MAX_REJECTED {
            true => self.named.push(make()),
            false => self.more += 1,
        }
    }
}

impl Feedback {
    /// Whether anything failed: a change, or a file of its own.
    pub fn has_failures(&self) -> bool {
        !self.files.is_empty()
    }

    /// The feedback as one JSON object (field names are only ever added).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("feedback always serialises")
    }
}

/// Whether the plan found this kind of problem itself (verification did not): the feedback
/// adds it to the file's problems.
fn planned_kind(kind: ProblemKind) -> bool {
    matches!(
        kind,
        ProblemKind::SameFileTwice
            | ProblemKind::PathConflict
            | ProblemKind::PartialDelete
            | ProblemKind::Overlap
    )
}

/// Whether a change has a problem of its own: a blocking one, or an insertion whose position
/// a changed file cannot confirm.
fn has_trouble(check: &ChangeCheck) -> bool {
    check.problems.iter().any(|p| p.blocking) || rules::unverified_position(check)
}

/// The override the decisions make for a file-level problem of this kind, if they make one.
fn file_override(kind: ProblemKind, file: &FilePatch, decisions: &Decisions) -> Option<Resolution> {
    let how = FileOverride::lifting(kind).filter(|how| how.granted(decisions, &file.id))?;
    Some(match how {
        FileOverride::Sha => Resolution::ShaOverride,
        FileOverride::HardLink => Resolution::HardLinkOverride,
        FileOverride::Overwrite => Resolution::Overwrite,
    })
}

fn file_resolution_message(how: Resolution) -> String {
    match how {
        Resolution::HardLinkOverride => {
            "written although it has other hard links (they keep the old content)"
        }
        Resolution::Overwrite => "written over the file that exists there",
        _ => "written although its SHA-256 differs (where every written change finds its lines)",
    }
    .to_owned()
}

fn change_resolution(path: &str, file: &FilePatch, index: usize, placement: Placement) -> Resolved {
    let change = &file.changes[index];
    let from = change.range.start;
    let (how, message) = match placement {
        Placement::Relocated { to } => (
            Resolution::Relocated,
            format!("moved from line {from} to line {to}, where its expected lines are"),
        ),
        Placement::Placed { to } => (
            Resolution::Placed,
            format!("placed by the person at line {to} instead of line {from}"),
        ),
        _ => (
            Resolution::EditedOver,
            format!(
                "edited by the person to replace what is at {} now",
                change.range.describe_lines()
            ),
        ),
    };
    Resolved {
        path: path.to_owned(),
        file_id: file.id.to_string(),
        change_id: Some(change.id.to_string()),
        key: change.key.clone(),
        how,
        message,
    }
}

fn decision_name(decision: &Decision) -> &'static str {
    match decision {
        Decision::Undecided => "undecided",
        Decision::Accept => "accept",
        Decision::Reject => "reject",
        Decision::Edit(_) => "edit",
    }
}

/// A failed change, with its quotes of the file as it is now.
fn failed_change(
    file: &FilePatch,
    check: &FileCheck,
    lines: &Lines<'_>,
    index: usize,
    decision: &Decision,
) -> ChangeFeedback {
    let change = &file.changes[index];
    let change_check = &check.changes[index];
    let mut problems: Vec<Rule> = change_check
        .problems
        .iter()
        .filter(|p| p.blocking)
        .map(Rule::from)
        .collect();
    if problems.is_empty() {
        problems.extend(
            change_check
                .problems
                .iter()
                .filter(|p| p.kind == ProblemKind::UnverifiedPosition)
                .map(Rule::from),
        );
    }
    let expected = change.expected.as_ref().filter(|e| !e.is_empty());
    let unplaced = change.unplaced();
    let readable = check.snapshot.is_some() || check.copied_from.is_some();
    let current =
        (unplaced.is_none() && readable && !lines.is_empty()).then(|| around(lines, change.range));
    let mut places: Vec<usize> = match (unplaced, expected) {
        (Some(places), _) => places.to_vec(),
        (None, Some(expected)) => lines.find_all(expected),
        (None, None) => Vec::new(),
    };
    places.sort_by_key(|&line| (line.abs_diff(change.range.start), line));
    let span = expected.map_or(1, |e| e.len());
    let found_at = places
        .iter()
        .take(MAX_PLACES)
        .map(|&at| {
            excerpt(
                lines,
                LineRange {
                    start: at,
                    count: span,
                },
            )
        })
        .collect();
    let insert = change.operation == Operation::Insert;
    ChangeFeedback {
        id: change.id.to_string(),
        key: change.key.clone(),
        number: index + 1,
        description: change.description.clone(),
        operation: change.operation,
        status: change_check.status.max(Status::Conflict),
        decision: decision_name(decision),
        start_line: change.range.start,
        end_line: change.range.end() - 1,
        after_line: insert.then(|| change.range.start - 1),
        located: unplaced.is_none(),
        problems,
        expected: expected.map(Quote::of),
        current,
        found_at,
        more_places: places.len().saturating_sub(MAX_PLACES),
        note: None,
    }
}
