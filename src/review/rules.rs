//! The rule of what a selected change needs to be written, in one place: the plan asks it for
//! every selected change, and the reviewer asks it before it promises anything (that `o` will
//! let a file through, that a change is resolved). Where the two asked different rules, the
//! screen promised a write the commit then refused.

use super::decisions::Decisions;
use crate::lines::Lines;
use crate::model::{Change, FilePatch, FilePatchId};
use crate::problem::ProblemKind;
use crate::verify::{ChangeCheck, FileCheck, Placed, Status};

/// Where a selected change is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// At its own range, which verifies.
    AsIs,
    /// Where its expected lines were found, which the person chose (`--relocate`, `m`).
    Relocated { to: usize },
    /// Edited by the person over the lines they saw at its range, which are still there.
    EditedOver { at: usize },
    /// Lower or higher than its range says, because changes before it are applied already.
    Shifted { to: usize },
    /// Applied already: writing it changes nothing.
    AlreadyApplied,
    /// Where the person placed it (its expected lines stand there, or it is an insertion).
    Placed { to: usize },
}

/// Why a selected change cannot be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stuck {
    /// Its own lines do not verify, and nothing the person chose resolves it.
    Unresolved {
        status: Status,
        /// Where its expected lines were found instead, when at exactly one place.
        found_at: Option<usize>,
    },
    /// An insertion, which has no expected lines, in a file written although its SHA-256
    /// differs: nothing confirms it lands where it was meant to.
    UnverifiedUnderOverride,
}

/// Whether a change is an insertion whose position a changed file cannot confirm.
pub fn unverified_position(check: &ChangeCheck) -> bool {
    check
        .problems
        .iter()
        .any(|p| p.kind == ProblemKind::UnverifiedPosition)
}

/// Where change `index` of `file` is written if it is selected, or why it cannot be, given the
/// person's `decisions` and whether the file is written over a SHA-256 mismatch.
pub fn placement(
    file: &FilePatch,
    check: &FileCheck,
    index: usize,
    decisions: &Decisions,
    over_sha_mismatch: bool,
) -> Result<Placement, Stuck> {
    let change = &file.changes[index];
    let change_check = &check.changes[index];
    if let Some(line) = decisions.placed_at(&change.id) {
        return placed_by_person(check, change, line).ok_or(Stuck::Unresolved {
            status: change_check.status.max(Status::Conflict),
            found_at: change_check.found_at(),
        });
    }
    match change_check.placed {
        Placed::Applied => return Ok(Placement::AlreadyApplied),
        Placed::At(to) => return Ok(Placement::Shifted { to }),
        Placed::AsIs => {}
    }
    let placed = match change_check.status {
        Status::Ok => Placement::AsIs,
        status => resolution(check, change, change_check, decisions).ok_or(Stuck::Unresolved {
            status,
            found_at: change_check.found_at(),
        })?,
    };
    if over_sha_mismatch && unverified_position(change_check) {
        return Err(Stuck::UnverifiedUnderOverride);
    }
    Ok(placed)
}

/// How the person resolved a change whose lines do not verify, if they did: moved where its
/// expected lines were found, or edited over the lines they saw, which the file still holds.
fn resolution(
    check: &FileCheck,
    change: &Change,
    change_check: &ChangeCheck,
    decisions: &Decisions,
) -> Option<Placement> {
    if change_check.status != Status::Conflict {
        return None;
    }
    if decisions.relocated(&change.id) {
        if let Some(to) = change_check.found_at() {
            return Some(Placement::Relocated { to });
        }
    }
    let seen = decisions.edited_over(&change.id)?;
    let on_its_lines = change_check
        .problems
        .iter()
        .all(|p| !p.blocking || line_conflict(p.kind));
    let still_there = || {
        Lines::split(check.base_bytes())
            .matches_at(change.range, &crate::text_lines::TextLines::from(seen))
    };
    (decisions.writes(&change.id) && on_its_lines && still_there()).then_some(
        Placement::EditedOver {
            at: change.range.start,
        },
    )
}

/// Whether a problem of this kind is a conflict of the lines at a change's place (not what it
/// expected there, not found there, found at several places), which the person resolves by
/// writing over the lines that are there: an edit, or the proposal taken as it is, for every
/// format (a TUL-002 change, a diff hunk).
pub fn line_conflict(kind: ProblemKind) -> bool {
    matches!(
        kind,
        ProblemKind::ExpectedMismatch | ProblemKind::NotFound | ProblemKind::Ambiguous
    )
}

/// The first line of the range change `change` takes when placed at `line` (the line it goes
/// after, for an insertion), if its lines allow it there: an insertion goes anywhere in the
/// file; a replacement or deletion only where its expected lines stand. `None` otherwise.
pub fn place_start(lines: &Lines<'_>, change: &Change, line: usize) -> Option<usize> {
    match (&change.expected, change.operation) {
        (_, crate::model::Operation::Insert) => (line <= lines.len()).then_some(line + 1),
        (Some(expected), _) if !expected.is_empty() => {
            let range = crate::model::LineRange {
                start: line,
                count: expected.len(),
            };
            (line >= 1 && lines.matches_at(range, expected)).then_some(line)
        }
        _ => None,
    }
}

fn placed_by_person(check: &FileCheck, change: &Change, line: usize) -> Option<Placement> {
    if change.unplaced().is_some() && change.expected.is_none() {
        return None;
    }
    let lines = Lines::split(check.base_bytes());
    place_start(&lines, change, line).map(|to| Placement::Placed { to })
}

/// A file-level problem the person may allow explicitly, by the override that lifts it: the
/// one place that says which override lifts which problem kind, what it is called on the
/// command line, and whether the decisions make it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOverride {
    /// Writing a file whose SHA-256 differs from the batch's (`sha_mismatch`).
    Sha,
    /// Writing a file that has other hard links (`hard_link`).
    HardLink,
    /// Writing a file the batch creates over the file that exists there (`file_exists`).
    Overwrite,
}

impl FileOverride {
    /// The override that lifts a file-level problem of this kind, if one does.
    pub fn lifting(kind: ProblemKind) -> Option<FileOverride> {
        match kind {
            ProblemKind::ShaMismatch => Some(FileOverride::Sha),
            ProblemKind::HardLink => Some(FileOverride::HardLink),
            ProblemKind::FileExists => Some(FileOverride::Overwrite),
            _ => None,
        }
    }

    /// Whether the decisions make this override for file patch `file`.
    pub fn granted(self, decisions: &Decisions, file: &FilePatchId) -> bool {
        match self {
            FileOverride::Sha => decisions.sha_overridden(file),
            FileOverride::HardLink => decisions.hard_link_overridden(file),
            FileOverride::Overwrite => decisions.overwrite_allowed(file),
        }
    }

    /// Its long option on the command line, without the dashes (clap's definition uses it).
    pub const fn long(self) -> &'static str {
        match self {
            FileOverride::Sha => "allow-sha-mismatch",
            FileOverride::HardLink => "allow-hard-links",
            FileOverride::Overwrite => "allow-overwrite",
        }
    }
}

/// The long option that applies conflicts where their expected lines were found.
pub const RELOCATE: &str = "relocate";

/// Whether the person explicitly allowed a file-level problem of this kind.
pub fn overridden(kind: ProblemKind, file: &FilePatch, decisions: &Decisions) -> bool {
    FileOverride::lifting(kind).is_some_and(|how| how.granted(decisions, &file.id))
}
