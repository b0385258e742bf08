//! The apply plan: the new bytes of every file the accepted changes touch, computed in memory.
//!
//! Planning takes a verified batch and the review decisions and either produces the complete
//! set of file writes, or lists every blocker (a conflicting or invalid change that was
//! selected, a SHA mismatch not overridden, relocated changes that collide). Nothing is written
//! here; the commit writes a plan that has no blockers, and `diff` prints one.
//!
//! Each file is planned on its own (`file.rs`), then what is blocked across files
//! (`across.rs`); [`blocker`] holds the vocabulary of what stops a plan and the overrides it
//! uses, [`content`] the splicing of a write's new content.

mod across;
pub mod blocker;
pub mod content;
mod file;

pub use blocker::{Blocker, Override, Remedy};
pub use content::content_of;

use crate::content::Content;
use crate::fs::RepoPath;
use crate::fs::Snapshot;
use crate::model::{Batch, FilePatch, LineRange};
use crate::review::Decisions;
use crate::verify::{Checked, FileCheck, Status, Verification};
use file::FilePlanner;

/// What a write does to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    Modify,
    Create,
    Delete,
}

/// Files counted by what happens to them, in words: `2 modified, 1 created`.
pub fn describe_kinds(kinds: impl IntoIterator<Item = WriteKind>) -> String {
    let mut counts = [0usize; 3];
    for kind in kinds {
        counts[match kind {
            WriteKind::Modify => 0,
            WriteKind::Create => 1,
            WriteKind::Delete => 2,
        }] += 1;
    }
    let words = ["modified", "created", "deleted"];
    let parts: Vec<String> = counts
        .iter()
        .zip(words)
        .filter(|&(&n, _)| n > 0)
        .map(|(n, word)| format!("{n} {word}"))
        .collect();
    parts.join(", ")
}

/// One file the commit will write, create or delete.
#[derive(Clone, Debug)]
pub struct FileWrite {
    /// Index of the file patch in the batch.
    pub file: usize,
    /// Path relative to the workspace root.
    pub rel: RepoPath,
    pub kind: WriteKind,
    /// The file as verified (absent for a creation); the commit re-checks it is unchanged.
    pub before: Option<Snapshot>,
    /// The new content (empty for a deletion): runs of the file it is made from, shared, and
    /// the lines the changes write.
    pub after: Content,
    /// The changes written, by their index in the file patch, in file order.
    pub changes: Vec<usize>,
    /// Where each of `changes` is written: the range of the lines it replaces in the content
    /// it applies to (the file as verified, the file a creation copies, or nothing), after
    /// every move the decisions make. In the same order as `changes`.
    pub ranges: Vec<LineRange>,
    /// Permissions for the written file when not the original's (a file restored by `undo`);
    /// `None` keeps the original's, or the default for a new file.
    pub mode: Option<u32>,
    /// Owner and group for the written file when not the original's (a file restored by
    /// `undo`); `None` keeps the original's, or the writer's for a new file.
    pub owner: Option<(u32, u32)>,
    /// Whether the written file is executable, when the batch says (`FilePatch::mode`): the
    /// execute bits follow the read bits, or are cleared; `None` leaves them as they are.
    pub executable: Option<bool>,
    /// Every change it writes puts back the very lines it replaces (or inserts none), so its
    /// new content may be the file as it is: a plan made without contents cannot tell, and
    /// the commit reads such a file before it writes anything, so that a batch that changes
    /// nothing touches nothing (not even patchdeck's folder).
    pub may_be_unchanged: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub writes: Vec<FileWrite>,
    pub blockers: Vec<Blocker>,
    pub overrides: Vec<Override>,
    /// Whether each write's `after` holds its new content: a plan made without contents
    /// commits only with each content made as its file is staged
    /// ([`crate::commit::NewContents::Made`]).
    pub contents: Contents,
}

impl Plan {
    pub fn is_blocked(&self) -> bool {
        !self.blockers.is_empty()
    }

    /// The worst status among the blockers.
    pub fn blocking_status(&self) -> Option<Status> {
        self.blockers.iter().map(|b| b.status).max()
    }
}

impl Checked {
    /// Plans the writes the decisions select.
    pub fn plan(&self, decisions: &Decisions) -> Plan {
        plan(&self.batch, &self.verification, decisions)
    }

    /// What the decisions would write and what blocks it, without computing new contents.
    pub fn plan_blockers(&self, decisions: &Decisions) -> Plan {
        plan_with(
            &self.batch,
            &self.verification,
            decisions,
            Contents::Skipped,
        )
    }

    /// The new content of a write of a plan the decisions made, from `target`, its target's
    /// bytes (see [`content_of`]): what a plan made without contents
    /// ([`Checked::plan_blockers`]) has the commit make as it stages each file.
    pub fn content_of(
        &self,
        decisions: &Decisions,
        write: &FileWrite,
        target: Option<&Snapshot>,
    ) -> Content {
        content_of(
            &self.batch.files[write.file],
            &self.verification.files[write.file],
            decisions,
            write,
            target,
        )
    }
}

impl crate::review::Review {
    /// The plan the decisions make: every new content, or what blocks the commit.
    pub fn plan(&self) -> Plan {
        self.checked().plan(self.decisions())
    }

    /// What the decisions would write and what blocks it, without the new contents (see
    /// [`Checked::plan_blockers`]): the commit makes each as it stages its file.
    pub fn plan_without_contents(&self) -> Plan {
        self.checked().plan_blockers(self.decisions())
    }
}

/// Plans the writes for the selected changes of a verified batch.
pub fn plan(batch: &Batch, verification: &Verification, decisions: &Decisions) -> Plan {
    plan_with(batch, verification, decisions, Contents::Computed)
}

/// Whether a plan computes the new content of each file it would write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Contents {
    /// Every new file content, in memory, ready to commit.
    #[default]
    Computed,
    /// Only what would be written and what blocks it (`check`, and `apply`, whose commit
    /// makes each content as it stages the file): every `after` is left empty, which saves
    /// computing, and holding, a second copy of every file.
    Skipped,
}

/// [`plan`], choosing whether the new contents are computed.
pub fn plan_with(
    batch: &Batch,
    verification: &Verification,
    decisions: &Decisions,
    contents: Contents,
) -> Plan {
    debug_assert_eq!(
        decisions.stance(),
        batch.stance,
        "decisions are made for the batch they plan"
    );
    // Each file is planned on its own (splicing its new content is most of the work), on
    // every core; the plans are joined in the batch's order.
    let files: Vec<(usize, (&FilePatch, &FileCheck))> = batch
        .files
        .iter()
        .zip(&verification.files)
        .enumerate()
        .collect();
    let per_file = crate::parallel::map(&files, |&(index, (file, check))| {
        FilePlanner::plan(index, file, check, decisions, contents)
    });
    let mut plan = Plan {
        contents,
        ..Plan::default()
    };
    for part in per_file {
        plan.writes.extend(part.writes);
        plan.blockers.extend(part.blockers);
        plan.overrides.extend(part.overrides);
    }
    across::block_files_written_twice(batch, &mut plan);
    across::block_files_under_files(batch, &mut plan);
    across::block_reshapes_without_deletions(batch, verification, &mut plan);
    across::block_halves_of_renames(batch, decisions, &mut plan);
    plan
}
