//! The report: what `check` and `apply` found and did, as one JSON object or as text.
//!
//! The JSON shape is a contract other tools rely on (see the README); fields are only ever
//! added. The text form reads like a compiler's diagnostics: `path:line: conflict: ...` with the
//! expected and found lines shown under it. Both are built from the same [`Report`].

use crate::commit::Committed;
use crate::lines::visible;
use crate::model::{Batch, Change, ChangeId, InputWarning, MatchTier};
use crate::plan::{overridden, Override, Plan};
use crate::review::{Decision, Decisions};
use crate::verify::{Problem, Status, Verification};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub format: String,
    pub source: String,
    pub batch: BatchInfo,
    pub files: Vec<FileReport>,
    pub summary: Summary,
    pub warnings: Vec<InputWarning>,
    /// Explicit overrides used by an apply (a SHA mismatch written anyway, a relocated change).
    pub overrides: Vec<String>,
    /// Why an apply wrote nothing, when it did not; for `check`, why `apply` with every change
    /// selected would write nothing.
    pub blocked: Vec<String>,
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
            message: crate::pipeline::describe_interrupted(journal),
        }
    }
}

#[derive(Serialize, Debug)]
pub struct BatchInfo {
    pub id: String,
    pub key: Option<String>,
    pub label: Option<String>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    pub id: String,
    pub key: Option<String>,
    /// The file's path under the root, as resolved (the docPath when it could not be).
    pub path: String,
    pub doc_path: String,
    pub label: Option<String>,
    pub action: &'static str,
    pub expected_sha256: Option<String>,
    pub actual_sha256: Option<String>,
    /// SHA-256 of what an apply wrote (absent when nothing was written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_sha256: Option<String>,
    pub status: &'static str,
    pub problems: Vec<ProblemReport>,
    pub changes: Vec<ChangeReport>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ChangeReport {
    pub id: String,
    pub key: Option<String>,
    pub operation: &'static str,
    pub description: Option<String>,
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
    pub status: &'static str,
    /// Whether the decisions replace the change's new lines with edited ones.
    pub edited: bool,
    pub problems: Vec<ProblemReport>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ProblemReport {
    pub kind: &'static str,
    pub message: String,
    pub found_at: Option<usize>,
    /// False for notes that do not block a commit on their own.
    pub blocking: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Vec<String>>,
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
}

/// What an apply decided and did, for the report.
pub struct Applied<'a> {
    pub decisions: &'a Decisions,
    pub plan: &'a Plan,
    /// Present when the commit happened.
    pub committed: Option<&'a Committed>,
}

impl From<&Problem> for ProblemReport {
    fn from(p: &Problem) -> Self {
        ProblemReport {
            kind: p.kind,
            message: p.message.clone(),
            found_at: p.found_at,
            blocking: p.blocking,
            expected: p.mismatch.as_ref().map(|m| m.expected.clone()),
            actual: p.mismatch.as_ref().map(|m| m.actual.clone()),
        }
    }
}

impl Report {
    /// The report of an apply (or, with no `applied`, of a verification alone).
    pub fn build(batch: &Batch, verification: &Verification, applied: Option<&Applied>) -> Report {
        Report::build_with(batch, verification, applied, applied.map(|a| a.plan))
    }

    /// The report of `check`: the verification, with what `plan` (every change selected, as
    /// a plain `apply` would do) would be blocked by.
    pub fn check(batch: &Batch, verification: &Verification, plan: &Plan) -> Report {
        let mut report = Report::build_with(batch, verification, None, Some(plan));
        report.blocked = plan.blockers.iter().map(|b| b.cli_text()).collect();
        report.blocked_text = Some(
            plan.blockers
                .iter()
                .filter(|b| !b.restates_problem)
                .map(|b| b.cli_text())
                .collect(),
        );
        report
    }

    fn build_with(
        batch: &Batch,
        verification: &Verification,
        applied: Option<&Applied>,
        plan: Option<&Plan>,
    ) -> Report {
        let mut summary = Summary {
            files: batch.files.len(),
            changes: batch.change_count(),
            ..Summary::default()
        };
        let mut files = Vec::with_capacity(batch.files.len());
        // What was written, looked up once per file and change (batches have thousands).
        let new_shas: std::collections::HashMap<&std::path::Path, &String> = applied
            .and_then(|a| a.committed)
            .map(|c| {
                c.written
                    .iter()
                    .filter_map(|w| Some((w.rel.as_path(), w.sha256.as_ref()?)))
                    .collect()
            })
            .unwrap_or_default();
        let written: std::collections::HashSet<(usize, &ChangeId)> = applied
            .filter(|a| a.committed.is_some())
            .map(|a| {
                a.plan
                    .writes
                    .iter()
                    .flat_map(|w| w.changes.iter().map(move |c| (w.file, c)))
                    .collect()
            })
            .unwrap_or_default();
        for (index, (file, check)) in batch.files.iter().zip(&verification.files).enumerate() {
            let path = check
                .resolved
                .as_ref()
                .map_or_else(|| file.doc_path.clone(), |r| r.rel().display().to_string());
            let new_sha256 = check
                .resolved
                .as_ref()
                .and_then(|r| new_shas.get(r.rel()))
                .map(|sha| (*sha).clone());
            // A file-level problem nobody overrode holds back every change of the file.
            let file_blocked = check
                .problems
                .iter()
                .filter(|p| {
                    p.blocking && !applied.is_some_and(|a| overridden(p.kind, file, a.decisions))
                })
                .map(|_| check.status.max(Status::Conflict))
                .max();
            let changes = file
                .changes
                .iter()
                .zip(&check.changes)
                .map(|(change, change_check)| {
                    let held = plan
                        .into_iter()
                        .flat_map(|p| &p.blockers)
                        .filter(|b| {
                            b.file == index && b.change.as_ref().is_none_or(|id| *id == change.id)
                        })
                        .map(|b| b.status)
                        .chain(file_blocked)
                        .max();
                    // A change written by an override (moved with --relocate, edited) no
                    // longer conflicts: it was applied.
                    let written_over = applied.is_some()
                        && change_check.status != Status::Ok
                        && written.contains(&(index, &change.id));
                    let counted = match held {
                        _ if written_over => Status::Ok,
                        Some(status) if status > change_check.status => {
                            if change_check.status == Status::Ok {
                                summary.blocked += 1;
                            }
                            status
                        }
                        _ => change_check.status,
                    };
                    match counted {
                        Status::Ok => summary.ok += 1,
                        Status::Conflict => summary.conflicts += 1,
                        Status::Invalid => summary.invalid += 1,
                    }
                    let status = match applied {
                        None => change_check.status.as_str(),
                        Some(a) => {
                            let was_written = written.contains(&(index, &change.id));
                            apply_status(a, was_written, change, change_check.status, &mut summary)
                        }
                    };
                    let edited = applied
                        .is_some_and(|a| matches!(a.decisions.get(&change.id), Decision::Edit(_)));
                    change_report(change, status, edited, &change_check.problems)
                })
                .collect();
            files.push(FileReport {
                id: file.id.to_string(),
                key: file.key.clone(),
                path,
                doc_path: file.doc_path.clone(),
                label: file.label.clone(),
                action: check.action.as_str(),
                expected_sha256: file.expected_sha256.clone(),
                actual_sha256: check.actual_sha256().map(str::to_owned),
                new_sha256,
                status: check.status.as_str(),
                problems: check.problems.iter().map(ProblemReport::from).collect(),
                changes,
            });
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
            format: batch.format.clone(),
            source: batch.source.clone(),
            batch: BatchInfo {
                id: batch.id.to_string(),
                key: batch.key.clone(),
                label: batch.label.clone(),
            },
            files,
            summary,
            warnings: batch.warnings.clone(),
            overrides,
            blocked,
            blocked_text: None,
            staging: None,
            interrupted_commit: None,
            owner_not_kept: applied
                .and_then(|a| a.committed)
                .map(|c| {
                    c.owner_not_kept
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }

    /// The report as compiler-style text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for warning in &self.warnings {
            let _ = writeln!(
                out,
                "{}: warning: {}: {}",
                self.source, warning.location, warning.message
            );
        }
        for file in &self.files {
            for problem in &file.problems {
                let severity = if problem.blocking {
                    file.status
                } else {
                    "note"
                };
                let _ = writeln!(
                    out,
                    "{}: {severity}: {}: {}",
                    file.path, problem.kind, problem.message
                );
            }
            for (i, change) in file.changes.iter().enumerate() {
                for problem in &change.problems {
                    let severity = if problem.blocking { "conflict" } else { "note" };
                    let severity = if change.status == "invalid" {
                        "invalid"
                    } else {
                        severity
                    };
                    let _ = writeln!(
                        out,
                        "{}:{}: {severity}: {}: {}: {}",
                        file.path,
                        change.start_line.max(1),
                        problem.kind,
                        change_label(i, change),
                        problem.message
                    );
                    write_mismatch(&mut out, problem);
                }
                if change.edited {
                    let what = if change.status == "applied" {
                        "written with edited lines instead of the batch's new lines".to_owned()
                    } else {
                        format!(
                            "edited lines instead of the batch's new lines ({})",
                            change.status
                        )
                    };
                    let _ = writeln!(
                        out,
                        "{}:{}: edited: {}: {what}",
                        file.path,
                        change.start_line.max(1),
                        change_label(i, change)
                    );
                }
            }
        }
        for line in &self.overrides {
            let _ = writeln!(out, "override: {line}");
        }
        for path in &self.owner_not_kept {
            let _ = writeln!(
                out,
                "{path}: warning: written as yours: its owner and group could not be kept (only root may give a file to another user)"
            );
        }
        for line in self.blocked_text.as_ref().unwrap_or(&self.blocked) {
            let _ = writeln!(out, "blocked: {line}");
        }
        let s = &self.summary;
        let _ = write!(
            out,
            "{}: {} file{}, {} change{}: {} ok, {} conflict{}, {} invalid",
            self.batch.label.as_deref().unwrap_or(&self.batch.id),
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
        if s.applied + s.rejected > 0 || (!self.blocked.is_empty() && self.blocked_text.is_none()) {
            let _ = write!(out, "; {} applied, {} rejected", s.applied, s.rejected);
        }
        out.push('\n');
        out
    }
}

fn apply_status(
    applied: &Applied,
    written: bool,
    change: &Change,
    verified: Status,
    summary: &mut Summary,
) -> &'static str {
    match applied.decisions.get(&change.id) {
        Decision::Reject => {
            summary.rejected += 1;
            "rejected"
        }
        Decision::Undecided => "undecided",
        Decision::Accept | Decision::Edit(_) => {
            if written {
                summary.applied += 1;
                "applied"
            } else {
                verified.as_str()
            }
        }
    }
}

fn change_report(
    change: &Change,
    status: &'static str,
    edited: bool,
    problems: &[Problem],
) -> ChangeReport {
    ChangeReport {
        id: change.id.to_string(),
        key: change.key.clone(),
        operation: change.operation.as_str(),
        description: change.description.clone(),
        start_line: change.range.start,
        end_line: change.range.end() - 1,
        after_line: (change.range.count == 0).then(|| change.range.start - 1),
        match_tier: change.match_tier,
        status,
        edited,
        problems: problems.iter().map(ProblemReport::from).collect(),
    }
}

fn change_label(index: usize, change: &ChangeReport) -> String {
    let mut label = format!("change #{}", index + 1);
    if let Some(key) = &change.key {
        let _ = write!(label, " \"{}\"", visible(key));
    }
    let _ = write!(label, " ({})", change.id);
    label
}

fn write_mismatch(out: &mut String, problem: &ProblemReport) {
    let (Some(expected), Some(actual)) = (&problem.expected, &problem.actual) else {
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
    let path = |file: usize| {
        verification.files[file].resolved.as_ref().map_or_else(
            || batch.files[file].doc_path.clone(),
            |r| r.rel().display().to_string(),
        )
    };
    match o {
        Override::ShaMismatch { file } => format!(
            "{}: written although its SHA-256 differs from the batch's (each written change found its expected lines where it says; no insertion was written)",
            path(*file)
        ),
        Override::HardLink { file } => format!(
            "{}: written although it has several hard links; its other names keep the old content",
            path(*file)
        ),
        Override::EditedOver { file, change, at } => format!(
            "{}: change {change} edited to replace the lines now at line {at}, which are not the batch's expected lines",
            path(*file)
        ),
        Override::Relocated { file, change, from, to } => {
            format!("{}: change {change} moved from line {from} to line {to}, where its expected lines are", path(*file))
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
