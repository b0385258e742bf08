//! The report: what `check` and `apply` found and did, as one JSON object or as text.
//!
//! The JSON shape is a contract other tools rely on (see `docs/cli.md`); fields are only ever
//! added. The text form reads like a compiler's diagnostics: `path:line: conflict: ...` with the
//! expected and found lines shown under it. Both are built from the same [`Report`].

pub mod say;

use crate::commit::Committed;
use crate::fs::Snapshot;
use crate::lines::visible;
use crate::model::{Batch, ChangeId, FilePatch, InputWarning, MatchTier, Stance};
use crate::plan::{Blocker, Override, Plan};
use crate::problem::ProblemKind;
use crate::review::rules::{overridden, FileOverride};
use crate::review::{Decision, Decisions};
use crate::verify::{FileCheck, Problem, Status, Verification};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Report<'a> {
    pub format: &'a str,
    pub source: &'a str,
    /// `standing` for the work tree's changes since a base (`--worktree`): each change undoes
    /// an edit on disk, so its file's `action` is what undoing does, and an applied change is
    /// `kept` or `undone`.
    #[serde(skip_serializing_if = "Stance::is_proposed")]
    pub stance: Stance,
    pub batch: BatchInfo<'a>,
    pub files: Vec<FileReport<'a>>,
    pub summary: Summary,
    pub warnings: &'a [InputWarning],
    /// Explicit overrides used by an apply (a SHA mismatch written anyway, a relocated change).
    pub overrides: Vec<String>,
    /// Why an apply wrote nothing, when it did not; for `check`, why `apply` with every change
    /// selected would write nothing.
    pub blocked: Vec<String>,
    /// The same blockers as data: each one's kind, file patch, change and message.
    pub blocked_by: Vec<BlockerReport<'a>>,
    /// The blockers the text form shows, when not all of them: `check` leaves out those that
    /// only restate a conflict it shows above.
    #[serde(skip)]
    blocked_text: Option<Vec<String>>,
    /// After `apply --stage`: which written files git's index now holds, and which not, why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staging: Option<crate::git::Staging>,
    /// A command that only reads found an interrupted commit waiting, and left it alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted_commit: Option<Interrupted>,
    /// Files an apply wrote that now belong to the writer: their owner or group could not be
    /// kept (this user may not give a file to another user, or to a group it is not in).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_not_kept: Vec<String>,
}

/// One reason nothing (or not everything) can be written.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct BlockerReport<'a> {
    pub kind: ProblemKind,
    pub status: &'static str,
    pub file_patch_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<&'a str>,
    /// What is wrong, with the command line's way to lift it when there is one.
    pub message: String,
}

impl<'a> BlockerReport<'a> {
    fn of(batch: &'a Batch, blocker: &'a Blocker) -> BlockerReport<'a> {
        BlockerReport {
            kind: blocker.kind,
            status: blocker.status.as_str(),
            file_patch_id: batch.files[blocker.file].id.as_str(),
            change_id: blocker.change.as_ref().map(ChangeId::as_str),
            message: blocker.cli_text(),
        }
    }
}

/// An interrupted commit a reading command found and left for `patchdeck recover`.
#[derive(Serialize, Debug)]
pub struct Interrupted {
    pub journal: String,
    pub message: String,
}

impl Interrupted {
    pub fn new(journal: &std::path::Path) -> Interrupted {
        Interrupted {
            journal: journal.display().to_string(),
            message: say::describe_interrupted(journal),
        }
    }
}

#[derive(Serialize, Debug)]
pub struct BatchInfo<'a> {
    pub id: &'a str,
    pub key: Option<&'a str>,
    pub label: Option<&'a str>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FileReport<'a> {
    pub id: &'a str,
    pub key: Option<&'a str>,
    /// The file's path under the root, as resolved (the docPath when it could not be).
    pub path: String,
    pub doc_path: &'a str,
    pub label: Option<&'a str>,
    pub action: &'static str,
    /// The mode the batch gives the file (`100644`, `100755`), when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    pub expected_sha256: Option<&'a str>,
    /// SHA-256 of the file as read: hashed when the report is written as JSON (on every
    /// core, see [`Report::write_json`]), never for the text report.
    #[serde(serialize_with = "sha256_of")]
    pub actual_sha256: Option<&'a Snapshot>,
    /// SHA-256 of what an apply wrote (absent when nothing was written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_sha256: Option<&'a str>,
    pub status: &'static str,
    pub problems: Vec<ProblemReport<'a>>,
    pub changes: Changes<'a>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ChangeReport<'a> {
    pub id: &'a str,
    pub key: Option<&'a str>,
    pub operation: &'static str,
    pub description: Option<&'a str>,
    /// First line the change replaces; for an insert, the line it goes before.
    pub start_line: usize,
    /// Last line the change replaces; for an insert, the line it goes after (so one less than
    /// `start_line`: an insert replaces no line).
    pub end_line: usize,
    /// For an insert: the line it goes after (0 for the top of the file), as TUL-002 says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_line: Option<usize>,
    #[serde(rename = "match")]
    pub match_tier: MatchTier,
    pub status: ChangeOutcome,
    /// Whether the decisions replace the change's new lines with edited ones.
    pub edited: bool,
    pub problems: Vec<ProblemReport<'a>>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ProblemReport<'a> {
    pub kind: ProblemKind,
    pub message: &'a str,
    pub found_at: Option<usize>,
    /// False for notes that do not block a commit on their own.
    pub blocking: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<&'a [String]>,
}

/// Counts of changes. `ok`, `conflicts` and `invalid` add up to `changes`: a change counts as
/// a conflict (or invalid) when it cannot be written as the batch stands, whether because of
/// its own lines or because its file is blocked (a SHA-256 mismatch not overridden, a missing
/// file, a file the plan would write twice...). So `conflicts > 0` exactly when conflicts block.
#[derive(Serialize, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub changes: usize,
    pub ok: usize,
    pub conflicts: usize,
    pub invalid: usize,
    pub applied: usize,
    pub rejected: usize,
    /// Of `conflicts` and `invalid`: changes that verify on their own but whose file is blocked.
    pub blocked: usize,
    /// Of the work tree's changes (`--worktree`): those kept (accepted, or edited and written).
    #[serde(skip_serializing_if = "is_zero")]
    pub kept: usize,
    /// Of the work tree's changes: those undone (the base's lines written back).
    #[serde(skip_serializing_if = "is_zero")]
    pub undone: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What an apply decided and did, for the report.
pub struct Decided<'a> {
    pub decisions: &'a Decisions,
    pub plan: &'a Plan,
    /// Present when the commit happened.
    pub committed: Option<&'a Committed>,
}

impl<'a> From<&'a Problem> for ProblemReport<'a> {
    fn from(p: &'a Problem) -> Self {
        ProblemReport {
            kind: p.kind,
            message: &p.message,
            found_at: p.found_at,
            blocking: p.blocking,
            expected: p.mismatch.as_ref().map(|m| m.expected.as_slice()),
            actual: p.mismatch.as_ref().map(|m| m.actual.as_slice()),
        }
    }
}

/// The changes of one file as the report says them. Each entry is made when it is asked for
/// (written as JSON or text, or shown), not held: the report of a batch of a million changes
/// would otherwise hold every change a second time.
#[derive(Debug)]
pub struct Changes<'a> {
    file: &'a FilePatch,
    check: &'a FileCheck,
    /// The decisions of an apply (none for `check`).
    decisions: Option<&'a Decisions>,
    /// The changes written by the commit, by index, in order (empty when nothing was).
    written: &'a [usize],
    /// The worst status of what holds the whole file back (a file-level problem nobody
    /// overrode, a blocker without a change).
    file_held: Option<Status>,
    /// Blockers of single changes: (change index, status), in order.
    change_held: Vec<(usize, Status)>,
}

/// What became of a change, as its entry says it: the verdict for `check`; for `apply`, the
/// decision and what was written.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChangeOutcome {
    Ok,
    Conflict,
    Invalid,
    AlreadyApplied,
    Rejected,
    Undecided,
    Applied,
    /// Of the work tree's changes: accepted, the edit stays (nothing written), or edited and
    /// written as the person edited it.
    Kept,
    /// Of the work tree's changes: rejected, and the base's lines written back.
    Undone,
}

impl ChangeOutcome {
    /// The outcome that is the verdict alone.
    fn verdict(status: Status) -> ChangeOutcome {
        match status {
            Status::Ok => ChangeOutcome::Ok,
            Status::Conflict => ChangeOutcome::Conflict,
            Status::Invalid => ChangeOutcome::Invalid,
        }
    }

    /// Its name in a report.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeOutcome::Ok => "ok",
            ChangeOutcome::Conflict => "conflict",
            ChangeOutcome::Invalid => "invalid",
            ChangeOutcome::AlreadyApplied => "already_applied",
            ChangeOutcome::Rejected => "rejected",
            ChangeOutcome::Undecided => "undecided",
            ChangeOutcome::Applied => "applied",
            ChangeOutcome::Kept => "kept",
            ChangeOutcome::Undone => "undone",
        }
    }
}

impl std::fmt::Display for ChangeOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a change is, counted in the summary and said in its entry.
struct ChangeStatus {
    /// Whether it can be written as the batch stands (its own verdict, or worse because its
    /// file is held back).
    counted: Status,
    /// Whether it verifies but its file is held back.
    blocked: bool,
    /// The entry's status: the verdict for `check`, what became of it for `apply`.
    said: ChangeOutcome,
}

impl<'a> Changes<'a> {
    pub fn len(&self) -> usize {
        self.file.changes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.file.changes.is_empty()
    }

    /// The entry of the change at `index`.
    pub fn get(&self, index: usize) -> ChangeReport<'a> {
        let change = &self.file.changes[index];
        let check = &self.check.changes[index];
        let status = self.status(index);
        ChangeReport {
            id: change.id.as_str(),
            key: change.key.as_deref(),
            operation: change.operation.as_str(),
            description: change.description.as_deref(),
            start_line: change.range.start,
            end_line: change.range.end() - 1,
            after_line: (change.range.count == 0).then(|| change.range.start - 1),
            match_tier: change.match_tier,
            status: status.said,
            edited: self
                .decisions
                .is_some_and(|d| matches!(d.get(&change.id), Decision::Edit(_))),
            problems: check.problems.iter().map(ProblemReport::from).collect(),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = ChangeReport<'a>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Whether the change at `index` can be written as the batch stands: its own verdict, or
    /// worse when its file or a blocker holds it back (what the summary counts it as).
    pub fn writable(&self, index: usize) -> Status {
        self.status(index).counted
    }

    fn status(&self, index: usize) -> ChangeStatus {
        let change = &self.file.changes[index];
        let verified = self.check.changes[index].status;
        let from = self.change_held.partition_point(|(i, _)| *i < index);
        let held = self.change_held[from..]
            .iter()
            .take_while(|(i, _)| *i == index)
            .map(|(_, status)| *status)
            .chain(self.file_held)
            .max();
        let was_written = self.written.binary_search(&index).is_ok();
        // A change written by an override (moved with --relocate, edited) no longer
        // conflicts: it was applied.
        let (counted, blocked) = match held {
            _ if verified != Status::Ok && was_written => (Status::Ok, false),
            Some(status) if status > verified => (status, verified == Status::Ok),
            _ => (verified, false),
        };
        let already = self.check.changes[index].placed == crate::verify::Placed::Applied;
        let standing = self.decisions.map(Decisions::stance) == Some(Stance::Standing);
        let said = match self.decisions.map(|d| d.get(&change.id)) {
            None => ChangeOutcome::verdict(verified),
            Some(decision) if standing => standing_outcome(decision, was_written, verified),
            Some(Decision::Accept) if already => ChangeOutcome::AlreadyApplied,
            Some(Decision::Reject) => ChangeOutcome::Rejected,
            Some(Decision::Undecided) => ChangeOutcome::Undecided,
            Some(Decision::Accept | Decision::Edit(_)) if was_written => ChangeOutcome::Applied,
            Some(Decision::Accept | Decision::Edit(_)) => ChangeOutcome::verdict(verified),
        };
        ChangeStatus {
            counted,
            blocked,
            said,
        }
    }
}

/// What became of a change of the work tree (a [`Stance::Standing`] batch): kept when
/// accepted, or when edited and written; undone when rejected and written.
fn standing_outcome(decision: &Decision, was_written: bool, verified: Status) -> ChangeOutcome {
    match decision {
        Decision::Undecided => ChangeOutcome::Undecided,
        Decision::Accept => ChangeOutcome::Kept,
        Decision::Edit(_) if was_written => ChangeOutcome::Kept,
        Decision::Reject if was_written => ChangeOutcome::Undone,
        Decision::Edit(_) | Decision::Reject => ChangeOutcome::verdict(verified),
    }
}

impl Serialize for Changes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'a> Report<'a> {
    /// The report of an apply (or, with no `applied`, of a verification alone).
    pub fn build(
        batch: &'a Batch,
        verification: &'a Verification,
        applied: Option<&'a Decided<'a>>,
    ) -> Report<'a> {
        Report::build_with(batch, verification, applied, applied.map(|a| a.plan))
    }

    /// The report of `check`: the verification, with what `plan` (every change selected, as
    /// a plain `apply` would do) would be blocked by.
    pub fn check(batch: &'a Batch, verification: &'a Verification, plan: &'a Plan) -> Report<'a> {
        let mut report = Report::build_with(batch, verification, None, Some(plan));
        report.blocked = plan.blockers.iter().map(|b| b.cli_text()).collect();
        report.blocked_by = plan
            .blockers
            .iter()
            .map(|b| BlockerReport::of(batch, b))
            .collect();
        report.blocked_text = Some(
            plan.blockers
                .iter()
                .filter(|b| !b.restates_problem)
                .map(|b| b.cli_text())
                .collect(),
        );
        report
    }

    /// The report of `batch` as verified, with what `applied` decided and did and what `plan`
    /// is blocked by (for `check`, the plan of every change selected).
    fn build_with(
        batch: &'a Batch,
        verification: &'a Verification,
        applied: Option<&'a Decided<'a>>,
        plan: Option<&'a Plan>,
    ) -> Report<'a> {
        let mut summary = Summary {
            files: batch.files.len(),
            changes: batch.change_count(),
            ..Summary::default()
        };
        let committed = applied.and_then(|a| a.committed);
        let lookup = Lookup::new(applied, plan);
        let mut files = Vec::with_capacity(batch.files.len());
        for (index, (file, check)) in batch.files.iter().zip(&verification.files).enumerate() {
            let report = FileReport::of(index, file, check, &lookup);
            summary.count(&report.changes);
            files.push(report);
        }
        let (overrides, blocked) = match applied {
            Some(a) => (
                a.plan
                    .overrides
                    .iter()
                    .map(|o| describe_override(batch, verification, o))
                    .collect(),
                a.plan.blockers.iter().map(|b| b.cli_text()).collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        Report {
            format: &batch.format,
            source: &batch.source,
            stance: batch.stance,
            batch: BatchInfo {
                id: batch.id.as_str(),
                key: batch.key.as_deref(),
                label: batch.label.as_deref(),
            },
            files,
            summary,
            warnings: &batch.warnings,
            overrides,
            blocked,
            blocked_by: applied
                .map(|a| {
                    a.plan
                        .blockers
                        .iter()
                        .map(|b| BlockerReport::of(batch, b))
                        .collect()
                })
                .unwrap_or_default(),
            blocked_text: None,
            staging: None,
            interrupted_commit: None,
            owner_not_kept: committed
                .map(|c| {
                    c.owner_not_kept
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Writes the report as one JSON object to `out`, as it is made: a large batch's report is
    /// never held as text.
    pub fn write_json(&self, out: impl std::io::Write) -> std::io::Result<()> {
        use std::io::Write;
        self.hash_files();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        serde_json::to_writer_pretty(&mut out, self).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    pub fn to_json(&self) -> String {
        self.hash_files();
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }

    /// Computes every file's `actualSha256` on every core, ahead of writing them one by one.
    fn hash_files(&self) {
        let unhashed: Vec<&Snapshot> = self
            .files
            .iter()
            .filter_map(|f| f.actual_sha256)
            .filter(|s| !s.is_hashed())
            .collect();
        crate::parallel::map(&unhashed, |s| {
            s.sha256();
        });
    }

    /// The report as compiler-style text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for warning in self.warnings {
            let _ = writeln!(
                out,
                "{}: warning: {}: {}",
                self.source,
                crate::lines::visible(&warning.location),
                warning.message
            );
        }
        for file in &self.files {
            // A path a batch names (or a work tree holds) may hold what a terminal acts on.
            let path = crate::lines::visible(&file.path);
            for problem in &file.problems {
                let severity = if problem.blocking {
                    file.status
                } else {
                    "note"
                };
                let _ = writeln!(
                    out,
                    "{path}: {severity}: {}: {}",
                    problem.kind, problem.message
                );
            }
            for (i, change) in file.changes.iter().enumerate() {
                for problem in &change.problems {
                    let severity = if problem.blocking { "conflict" } else { "note" };
                    let severity = if change.status == ChangeOutcome::Invalid {
                        "invalid"
                    } else {
                        severity
                    };
                    let _ = writeln!(
                        out,
                        "{path}:{}: {severity}: {}: {}: {}",
                        change.start_line.max(1),
                        problem.kind,
                        change_label(i, &change),
                        problem.message
                    );
                    write_mismatch(&mut out, problem);
                }
                if change.edited {
                    let what = if change.status == ChangeOutcome::Kept {
                        "kept with the lines as edited in place of the agent's".to_owned()
                    } else if change.status == ChangeOutcome::Applied {
                        "written with edited lines instead of the batch's new lines".to_owned()
                    } else {
                        format!(
                            "edited lines instead of the batch's new lines ({})",
                            change.status
                        )
                    };
                    let _ = writeln!(
                        out,
                        "{path}:{}: edited: {}: {what}",
                        change.start_line.max(1),
                        change_label(i, &change)
                    );
                }
            }
        }
        for line in &self.overrides {
            let _ = writeln!(out, "override: {line}");
        }
        for line in self.blocked_text.as_ref().unwrap_or(&self.blocked) {
            let _ = writeln!(out, "blocked: {line}");
        }
        let s = &self.summary;
        let _ = write!(
            out,
            "{}: {} file{}, {} change{}: {} ok, {} conflict{}, {} invalid",
            self.batch.label.unwrap_or(self.batch.id),
            s.files,
            plural(s.files),
            s.changes,
            plural(s.changes),
            s.ok,
            s.conflicts,
            plural(s.conflicts),
            s.invalid
        );
        if s.blocked > 0 {
            let _ = write!(
                out,
                " ({} of them verif{} but {} in a blocked file)",
                s.blocked,
                if s.blocked == 1 { "ies" } else { "y" },
                if s.blocked == 1 { "is" } else { "are" }
            );
        }
        if self.stance == Stance::Standing && s.kept + s.undone > 0 {
            let _ = write!(out, "; {} kept, {} undone", s.kept, s.undone);
        } else if s.applied + s.rejected > 0
            || (!self.blocked.is_empty() && self.blocked_text.is_none())
        {
            let _ = write!(out, "; {} applied, {} rejected", s.applied, s.rejected);
        }
        out.push('\n');
        out
    }
}

/// What the report looks up for each file, gathered once: batches have thousands of files.
struct Lookup<'a> {
    /// The SHA-256 of each file the commit wrote, by path.
    new_shas: HashMap<&'a std::path::Path, &'a String>,
    /// The changes the commit wrote, by file index (none when nothing was committed).
    written: HashMap<usize, &'a [usize]>,
    /// The plan's blockers, by file index.
    blockers: HashMap<usize, Vec<&'a Blocker>>,
    /// What an apply decided and did (none for `check`).
    applied: Option<&'a Decided<'a>>,
}

impl<'a> Lookup<'a> {
    /// The lookups of a report of what `applied` decided and did, blocked by `plan`'s
    /// blockers.
    fn new(applied: Option<&'a Decided<'a>>, plan: Option<&'a Plan>) -> Lookup<'a> {
        let committed = applied.and_then(|a| a.committed);
        let new_shas = committed
            .map(|c| {
                c.written
                    .iter()
                    .filter_map(|w| Some((w.rel.as_path(), w.sha256.as_ref()?)))
                    .collect()
            })
            .unwrap_or_default();
        let written = match (applied, committed) {
            (Some(a), Some(_)) => a
                .plan
                .writes
                .iter()
                .map(|w| (w.file, w.changes.as_slice()))
                .collect(),
            _ => HashMap::new(),
        };
        let mut blockers: HashMap<usize, Vec<&Blocker>> = HashMap::new();
        for blocker in plan.into_iter().flat_map(|p| &p.blockers) {
            blockers.entry(blocker.file).or_default().push(blocker);
        }
        Lookup {
            new_shas,
            written,
            blockers,
            applied,
        }
    }
}

impl<'a> FileReport<'a> {
    /// The entry of the batch's file at `index`, with its changes: its path as resolved, the
    /// SHA-256 of what the commit wrote to it, and what holds it or its changes back.
    fn of(
        index: usize,
        file: &'a FilePatch,
        check: &'a FileCheck,
        lookup: &Lookup<'a>,
    ) -> FileReport<'a> {
        let path = check.display_path(file);
        let new_sha256 = check
            .resolved
            .as_ref()
            .and_then(|r| lookup.new_shas.get(r.rel().as_path()))
            .map(|sha| sha.as_str());
        let own = lookup.blockers.get(&index).map_or(&[][..], Vec::as_slice);
        let (file_held, change_held) = held_back(file, check, own, lookup.applied);
        let changes = Changes {
            file,
            check,
            decisions: lookup.applied.map(|a| a.decisions),
            written: lookup.written.get(&index).copied().unwrap_or_default(),
            file_held,
            change_held,
        };
        FileReport {
            id: file.id.as_str(),
            key: file.key.as_deref(),
            path,
            doc_path: &file.doc_path,
            label: file.label.as_deref(),
            action: check.action.as_str(),
            mode: file.mode.map(crate::model::FileMode::as_git),
            expected_sha256: file.expected_sha256.as_deref(),
            actual_sha256: check.snapshot.as_ref(),
            new_sha256,
            status: check.status.as_str(),
            problems: check.problems.iter().map(ProblemReport::from).collect(),
            changes,
        }
    }
}

/// What holds back the changes of one file, given its `own` blockers: the worst status of
/// what holds back the whole file (a file-level problem nobody overrode, a blocker without a
/// change), and the blockers of single changes as (change index, status), in order.
fn held_back(
    file: &FilePatch,
    check: &FileCheck,
    own: &[&Blocker],
    applied: Option<&Decided<'_>>,
) -> (Option<Status>, Vec<(usize, Status)>) {
    // A file-level problem nobody overrode holds back every change of the file.
    let file_problem = check
        .problems
        .iter()
        .filter(|p| p.blocking && !applied.is_some_and(|a| overridden(p.kind, file, a.decisions)))
        .map(|_| check.status.max(Status::Conflict))
        .max();
    let file_held = own
        .iter()
        .filter(|b| b.change.is_none())
        .map(|b| b.status)
        .chain(file_problem)
        .max();
    let mut change_held = Vec::new();
    if own.iter().any(|b| b.change.is_some()) {
        let at: HashMap<&ChangeId, usize> = file
            .changes
            .iter()
            .enumerate()
            .map(|(i, c)| (&c.id, i))
            .collect();
        change_held = own
            .iter()
            .filter_map(|b| Some((*at.get(b.change.as_ref()?)?, b.status)))
            .collect();
        change_held.sort_unstable();
    }
    (file_held, change_held)
}

impl Summary {
    /// Counts the changes of one file: each by whether it can be written as the batch stands,
    /// whether it verifies but its file is held back, and whether it was applied or rejected.
    fn count(&mut self, changes: &Changes<'_>) {
        for i in 0..changes.len() {
            let status = changes.status(i);
            match status.counted {
                Status::Ok => self.ok += 1,
                Status::Conflict => self.conflicts += 1,
                Status::Invalid => self.invalid += 1,
            }
            self.blocked += usize::from(status.blocked);
            match status.said {
                ChangeOutcome::Applied => self.applied += 1,
                ChangeOutcome::Rejected => self.rejected += 1,
                ChangeOutcome::Kept => self.kept += 1,
                ChangeOutcome::Undone => self.undone += 1,
                _ => {}
            }
        }
    }
}

fn change_label(index: usize, change: &ChangeReport<'_>) -> String {
    let mut label = format!("change #{}", index + 1);
    if let Some(key) = &change.key {
        let _ = write!(label, " \"{}\"", visible(key));
    }
    let _ = write!(label, " ({})", change.id);
    label
}

fn write_mismatch(out: &mut String, problem: &ProblemReport) {
    let (Some(expected), Some(actual)) = (problem.expected, problem.actual) else {
        return;
    };
    for line in expected {
        let _ = writeln!(out, "    expected | {}", visible(line));
    }
    for line in actual {
        let _ = writeln!(out, "    found    | {}", visible(line));
    }
    if actual.is_empty() {
        let _ = writeln!(out, "    found    | (end of file)");
    }
}

fn describe_override(batch: &Batch, verification: &Verification, o: &Override) -> String {
    let path = |file: usize| verification.files[file].display_path(&batch.files[file]);
    let said = say::describe_override(o, say::Told::Report, path, |file, id| {
        format!("{}: change {id}", path(file))
    });
    match o {
        Override::File {
            how: FileOverride::Sha,
            ..
        } => format!("{said} (each written change found its expected lines where it says; no insertion was written)"),
        _ => said,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A file's `actualSha256`: its snapshot's hash, computed now if it was not yet.
fn sha256_of<S: serde::Serializer>(
    snapshot: &Option<&Snapshot>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match snapshot {
        Some(snapshot) => serializer.serialize_str(snapshot.sha256()),
        None => serializer.serialize_none(),
    }
}
