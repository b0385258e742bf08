//! Two decisions that resolve conflicts by what the person sees rather than by what the batch
//! expected: taking a change's proposal, as it is, over the lines on disk at its place (as
//! `git add -p` takes an `e` saved unchanged), and moving every conflict the evidence places
//! at once (as `--relocate` does headless). Both are asked of the same rules the plan applies
//! ([`super::rules`]), so what they resolve is what the commit writes.

use super::edit::replaced_lines;
use super::history::Done;
use super::rules::line_conflict;
use super::{At, Decision, Refusal, Review};
use crate::model::LineRange;
use crate::text_lines::TextLines;
use crate::verify::Status;

/// Both sides of a proposal taken over the lines on disk, for its confirmation to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakeOver<'a> {
    /// Where the lines it is written over are.
    pub range: LineRange,
    /// The lines on disk there now, which it replaces.
    pub on_disk: Vec<String>,
    /// What it writes instead: the change's own lines, or the person's edit.
    pub proposal: &'a TextLines,
}

/// What moving every conflict did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MovedAll {
    /// Moved where their expected lines stand, and accepted.
    pub moved: usize,
    /// Conflicts left as they were: their lines found at no place the evidence supports.
    pub left: usize,
}

impl Review {
    /// Why change `at`'s proposal cannot be taken over the lines on disk, if it cannot: it must
    /// be a conflict of the lines at its place, not resolved yet, and editable there.
    pub fn take_over_refusal(&self, at: At) -> Option<Refusal> {
        if let Some(refusal) = self.edit_refusal(at) {
            return Some(refusal);
        }
        let view = self.change(at);
        let on_its_lines = view.check.status == Status::Conflict
            && view
                .check
                .problems
                .iter()
                .all(|p| !p.blocking || line_conflict(p.kind));
        (!on_its_lines || self.resolved(at) || self.decisions.relocated(&view.change.id))
            .then_some(Refusal::NothingToTake)
    }

    /// What taking change `at`'s proposal would write, over what.
    pub fn take_over_sides(&self, at: At) -> TakeOver<'_> {
        let (range, on_disk) = replaced_lines(self, at);
        TakeOver {
            range,
            on_disk,
            proposal: self.writes(at),
        }
    }

    /// Takes change `at`'s proposal (its lines, or the person's edit) over the lines on disk
    /// at its place, as one step: the decision records those lines, and the commit writes it
    /// only while the file still holds exactly them.
    pub fn take_over(&mut self, at: At) -> Result<(), Refusal> {
        if let Some(refusal) = self.take_over_refusal(at) {
            return Err(refusal);
        }
        let id = self.change(at).change.id.clone();
        let (_, seen) = replaced_lines(self, at);
        let edited = matches!(self.decisions.get(&id), Decision::Edit(_));
        self.step(at, Done::TakeOver, |tx| {
            tx.replaces(&id, Some(seen));
            if !edited {
                tx.decide(&id, Decision::Accept);
            }
        });
        Ok(())
    }

    /// Moves every undecided conflict whose expected lines stand at one place the evidence
    /// supports there, and accepts it, as one step (what `m` does for one, and `--relocate`
    /// headless); the others are left as they are.
    pub fn relocate_all(&mut self, at: At) -> MovedAll {
        let (movable, left): (Vec<At>, Vec<At>) = self
            .places()
            .filter(|&at| {
                let view = self.change(at);
                view.check.status == Status::Conflict
                    && *self.decisions.get(&view.change.id) == Decision::Undecided
            })
            .partition(|&at| self.can_relocate(at));
        let ids: Vec<_> = movable
            .iter()
            .map(|&at| self.change(at).change.id.clone())
            .collect();
        self.step(at, Done::RelocateAll, |tx| {
            for id in &ids {
                tx.relocate(id, true);
                tx.decide(id, Decision::Accept);
            }
        });
        MovedAll {
            moved: ids.len(),
            left: left.len(),
        }
    }
}
