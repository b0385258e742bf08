//! Why a decision cannot be made, as data: what is in the way and which of the person's ways
//! out of it there are. A client says it in its own words, naming its own keys (the reviewer
//! the keys in effect, after any remapping), so no rule here knows a key.

use super::rules::Stuck;
use super::At;
use crate::problem::ProblemKind;

/// A way out of a refusal: a decision the person can take instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Edit the change over the lines really on disk.
    Edit,
    /// Write its proposal, as it is, over the lines really on disk.
    TakeOver,
    /// Apply it where its expected lines were found, at this line.
    Relocate { to: usize },
    /// Place it at a line of the person's choosing (these candidates first, nearest first).
    Place { candidates: usize },
    /// Leave it out.
    Reject,
}

/// Why the change or file asked about cannot be decided that way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its file cannot be written at all (missing, a path outside the root, not UTF-8...).
    FileBlocked { kind: ProblemKind, message: String },
    /// The format could not place the change: the text it replaces occurs nowhere (`places`
    /// empty), or at several places (the first line of each).
    Unplaced { places: Vec<usize> },
    /// The change breaks a rule of its format or of the file (its range is past the end...).
    Invalid { why: String },
    /// Its lines do not verify; these are the ways to resolve it.
    Conflict { ways: Vec<Way> },
    /// A file deletion has no lines to edit: it is accepted or rejected whole.
    Deletion,
    /// Its lines are not in the file (past its end), so there is nothing to edit over.
    NotInFile,
    /// It cannot be moved: its expected lines were not found at one other place the evidence
    /// supports (`why` says what was found, and why it was not taken).
    NoPlace { why: String },
    /// There is nothing to take over the lines on disk: the change is not a conflict of the
    /// lines at its place (or is resolved already).
    NothingToTake,
    /// It cannot be placed at that line: its expected lines do not stand there (or the line
    /// is past the end of the file).
    NotThere { line: usize },
    /// It cannot be placed at all: it has no lines to find (a text find that matched nothing).
    CannotPlace,
    /// The file has nothing to override: its SHA-256 matches the batch's, and it is not a
    /// creation where a file exists.
    NothingToOverride,
    /// Overriding the file's SHA-256 would still leave these changes unwritable: the override
    /// would promise a write the commit refuses.
    Unresolved { changes: Vec<StillBlocking> },
}

/// A change that would still not be written, why, and the ways out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StillBlocking {
    pub at: At,
    pub stuck: Stuck,
    pub ways: Vec<Way>,
}

/// A conflict's ways out, given where its expected lines were found (if at one place),
/// whether it can be edited, and how many places it could be put at (`None` when it cannot be
/// placed).
pub fn conflict_ways(found_at: Option<usize>, editable: bool, places: Option<usize>) -> Vec<Way> {
    let mut ways = Vec::new();
    if editable {
        ways.push(Way::Edit);
        ways.push(Way::TakeOver);
    }
    if let Some(to) = found_at {
        ways.push(Way::Relocate { to });
    }
    if let Some(candidates) = places.filter(|_| found_at.is_none()) {
        ways.push(Way::Place { candidates });
    }
    ways.push(Way::Reject);
    ways
}
