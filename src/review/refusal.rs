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
    /// Apply it where its expected lines were found, at this line.
    Relocate { to: usize },
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
    /// It cannot be moved: its expected lines were not found at exactly one other place.
    NoPlace,
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

/// A conflict's ways out, given where its expected lines were found (if at one place) and
/// whether it can be edited.
pub fn conflict_ways(found_at: Option<usize>, editable: bool) -> Vec<Way> {
    let mut ways = Vec::new();
    if editable {
        ways.push(Way::Edit);
    }
    if let Some(to) = found_at {
        ways.push(Way::Relocate { to });
    }
    ways.push(Way::Reject);
    ways
}
