//! Reviewing a batch: the decisions a person makes on it, the rules that say which they may
//! make, and their history, with no terminal in sight.
//!
//! A [`Review`] owns a verified batch and its [`Decisions`]. Each decision is asked of it
//! (`accept`, `reject`, `edit`, `relocate`, `override_sha`, for a change or a whole file) and
//! either made, as one undoable step, or refused with a [`Refusal`] that says what is in the way
//! and the person's ways out of it. What the commit will refuse is answered by the same rules
//! the plan uses ([`rules`]), so nothing is promised that the commit then refuses. The reviewer
//! only shows a review and turns refusals into words with its own keys; the command line's
//! selection ([`Selection`]) and `apply --decisions` ([`Decisions::load`]) build decisions here
//! too.

pub mod decisions;
pub mod edit;
pub mod history;
pub mod refusal;
pub mod rules;
pub mod select;
pub mod take;

pub use decisions::{note_refusal, Decision, Decisions, NOTE_MOST_CHARS};
pub use history::{Done, History, Replayed};
pub use refusal::{Refusal, StillBlocking, Way};
pub use rules::FileOverride;
pub use select::{readings, select, Readings, Selection, Target};
pub use take::{MovedAll, TakeOver};

use crate::lines::Lines;
use crate::model::{Batch, Change, FileAction, FilePatch, LineRange, Operation, Stance};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use crate::verify::Checked;
use crate::verify::{ChangeCheck, FileCheck, Status, Verification};
use history::Tx;
use refusal::conflict_ways;

/// A change's place in a batch: the index of its file patch, and its index there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct At {
    pub file: usize,
    pub change: usize,
}

/// One change with its file patch and their verdicts.
#[derive(Clone, Copy, Debug)]
pub struct ChangeView<'a> {
    pub file: &'a FilePatch,
    pub change: &'a Change,
    pub file_check: &'a FileCheck,
    pub check: &'a ChangeCheck,
}

impl ChangeView<'_> {
    /// The file's path under the root (its docPath when it could not be resolved).
    pub fn path(&self) -> String {
        self.file_check.display_path(self.file)
    }
}

/// What an edit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edited {
    /// The lines are new: the change is edited and accepted.
    Done,
    /// The lines are the ones the change already writes: nothing is recorded. `conflict`:
    /// the change is still a conflict, as it was.
    Unchanged { conflict: bool },
}

/// What moving a change did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relocation {
    /// Moved to where its expected lines are, and accepted.
    Moved { to: usize },
    /// Back at its own place, undecided again; its file's SHA-256 override was taken back when
    /// it no longer held, and the person's edit of it, made at the place it was moved to, is
    /// gone with the move (undo brings both back).
    Back {
        override_taken_back: bool,
        edit_dropped: bool,
    },
}

/// An override made or taken back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overridden {
    pub kind: FileOverride,
    pub on: bool,
}

/// What verifying a review again kept of its decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retained {
    pub kept: usize,
    /// Decisions whose change no longer verifies (nor is resolved): undecided again.
    pub dropped: usize,
}

/// A batch under review: its verification, the decisions made on it, and their history.
pub struct Review {
    checked: Checked,
    decisions: Decisions,
    history: History,
}

impl Review {
    /// A review of a verified batch, from decisions already made (none, a saved session...).
    pub fn new(checked: Checked, mut decisions: Decisions) -> Review {
        // What a decision writes is the batch's to say, whatever the decisions came from.
        decisions.stance = checked.batch.stance;
        Review {
            checked,
            decisions,
            history: History::default(),
        }
    }

    pub fn checked(&self) -> &Checked {
        &self.checked
    }

    pub fn batch(&self) -> &Batch {
        &self.checked.batch
    }

    pub fn verification(&self) -> &Verification {
        &self.checked.verification
    }

    pub fn decisions(&self) -> &Decisions {
        &self.decisions
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn into_parts(self) -> (Checked, Decisions) {
        (self.checked, self.decisions)
    }

    /// The change at `at`, with its file patch and verdicts.
    pub fn change(&self, at: At) -> ChangeView<'_> {
        let file = &self.checked.batch.files[at.file];
        let file_check = &self.checked.verification.files[at.file];
        ChangeView {
            file,
            change: &file.changes[at.change],
            file_check,
            check: &file_check.changes[at.change],
        }
    }

    /// Every change's place, in batch order.
    pub fn places(&self) -> impl Iterator<Item = At> + '_ {
        self.checked
            .batch
            .files
            .iter()
            .enumerate()
            .flat_map(|(file, f)| (0..f.changes.len()).map(move |change| At { file, change }))
    }

    /// The lines change `at` writes as decided: its edited lines, or its own.
    pub fn writes(&self, at: At) -> &TextLines {
        let change = self.change(at).change;
        match self.decisions.get(&change.id) {
            Decision::Edit(lines) => lines,
            _ => &change.new_lines,
        }
    }

    /// The lines a person edits change `at` from, and reads as its new lines: what it writes
    /// as decided for a proposal; for a change that stands on disk (`--worktree`), what is
    /// kept as decided: the person's edit, else the agent's lines as they are on disk.
    pub fn kept_or_written(&self, at: At) -> Vec<String> {
        match (
            self.batch().stance,
            self.decisions.get(&self.change(at).change.id),
        ) {
            (Stance::Standing, Decision::Edit(lines)) => lines.to_vec(),
            (Stance::Standing, _) => edit::replaced_lines(self, at).1,
            (Stance::Proposed, _) => self.writes(at).to_vec(),
        }
    }

    /// Where change `at` is shown: where it applies as decided (moved, shifted by changes
    /// applied before it), else, for a conflict whose expected lines stand at one other place,
    /// there (where moving it would put it), else its own range.
    pub fn shown_at(&self, at: At) -> LineRange {
        if let Some(range) = self.decided_at(at) {
            return range;
        }
        let view = self.change(at);
        let mut range = view.change.range;
        if let Err(rules::Stuck::Unresolved {
            found_at: Some(to), ..
        }) = rules::placement(
            view.file,
            view.file_check,
            at.change,
            &self.decisions,
            false,
        ) {
            range.start = to;
        }
        range
    }

    /// Where change `at` applies as decided when that is not its own range: moved or placed
    /// by the person, or shifted by changes applied before it.
    pub fn decided_at(&self, at: At) -> Option<LineRange> {
        let view = self.change(at);
        let over = view.file_check.sha_mismatch() && self.decisions.sha_overridden(&view.file.id);
        match rules::placement(view.file, view.file_check, at.change, &self.decisions, over) {
            Ok(
                rules::Placement::Relocated { to }
                | rules::Placement::Shifted { to }
                | rules::Placement::Placed { to },
            ) => Some(LineRange {
                start: to,
                ..view.change.range
            }),
            _ => None,
        }
    }

    /// Whether change `at` can be written if selected: it verifies, or the person resolved it
    /// (moved it, edited it over the lines on disk).
    pub fn resolved(&self, at: At) -> bool {
        let view = self.change(at);
        rules::placement(
            view.file,
            view.file_check,
            at.change,
            &self.decisions,
            false,
        )
        .is_ok()
    }

    /// Whether change `at` is a conflict still open: not rejected, and it could not be written
    /// as decided now (its own lines do not verify and nothing resolves them, or its file has a
    /// problem no override lifts yet). Resolving it (moving, placing, editing over the lines
    /// on disk, overriding its file) or rejecting it closes it.
    pub fn open_conflict(&self, at: At) -> bool {
        let view = self.change(at);
        if *self.decisions.get(&view.change.id) == Decision::Reject {
            return false;
        }
        let file_blocked = view
            .file_check
            .problems
            .iter()
            .any(|p| p.blocking && !rules::overridden(p.kind, view.file, &self.decisions));
        let over = view.file_check.sha_mismatch() && self.decisions.sha_overridden(&view.file.id);
        file_blocked
            || rules::placement(view.file, view.file_check, at.change, &self.decisions, over)
                .is_err()
    }

    /// Accepts every undecided change that verifies as it is (its own lines, or applied
    /// already), as one step; returns how many.
    pub fn accept_verified(&mut self, at: At) -> usize {
        let ids: Vec<_> = self
            .verified_undecided_places()
            .map(|at| self.change(at).change.id.clone())
            .collect();
        self.step(at, Done::AcceptVerified, |tx| {
            ids.iter().for_each(|id| tx.decide(id, Decision::Accept))
        });
        ids.len()
    }

    /// How many changes [`Review::accept_verified`] would accept now.
    pub fn verified_undecided(&self) -> usize {
        self.verified_undecided_places().count()
    }

    /// The undecided changes that verify as they are, in a file that nothing blocks, and could
    /// be accepted.
    fn verified_undecided_places(&self) -> impl Iterator<Item = At> + '_ {
        self.places().filter(|&at| {
            let view = self.change(at);
            view.check.status == Status::Ok
                && *self.decisions.get(&view.change.id) == Decision::Undecided
                && self.can_accept(at)
                && !self.open_conflict(at)
        })
    }

    /// Whether change `at` can be accepted as it is: [`Review::accept_refusal`] without
    /// working out the ways out of a refusal (which may search the whole file), for the
    /// questions asked of every change on every frame.
    pub fn can_accept(&self, at: At) -> bool {
        let view = self.change(at);
        file_refusal(view.file_check).is_none()
            && view.change.unplaced().is_none()
            && (view.check.status == Status::Ok || self.resolved(at))
    }

    /// Why change `at` cannot be accepted as it is, if it cannot.
    pub fn accept_refusal(&self, at: At) -> Option<Refusal> {
        if self.can_accept(at) {
            return None;
        }
        let view = self.change(at);
        if let Some(refusal) = file_refusal(view.file_check) {
            return Some(refusal);
        }
        if let Some(places) = view.change.unplaced() {
            return Some(Refusal::Unplaced {
                places: places.to_vec(),
            });
        }
        if self.resolved(at) {
            return None;
        }
        match view.check.status {
            Status::Ok => None,
            Status::Invalid => Some(Refusal::Invalid {
                why: first_message(view.check),
            }),
            Status::Conflict => Some(Refusal::Conflict {
                ways: conflict_ways(
                    view.check.found_at(),
                    self.edit_refusal(at).is_none(),
                    self.placeable(at),
                ),
            }),
        }
    }

    /// Why change `at` cannot be edited, if it cannot.
    pub fn edit_refusal(&self, at: At) -> Option<Refusal> {
        let view = self.change(at);
        if let Some(places) = view.change.unplaced() {
            return Some(Refusal::Unplaced {
                places: places.to_vec(),
            });
        }
        if view.file_check.action == FileAction::Delete || view.file.action == FileAction::Delete {
            return Some(Refusal::Deletion);
        }
        if let Some(refusal) = file_refusal(view.file_check) {
            return Some(refusal);
        }
        // Its lines run past the end of the file (said so, or a hunk that is not found there):
        // there are not as many lines there to write over as it replaces.
        let line_count = || match view.file_check.base() {
            Some(base) if base.is_released() => usize::MAX - 1,
            Some(base) => base.lines().len(),
            None => 0,
        };
        let past_the_end = !self.decisions.relocated(&view.change.id)
            && (view
                .check
                .problems
                .iter()
                .any(|p| p.kind == ProblemKind::OutOfRange)
                || (view.check.status == Status::Conflict
                    && view.change.range.end() > line_count() + 1));
        (view.check.status == Status::Invalid || past_the_end).then_some(Refusal::NotInFile)
    }

    /// Why change `at` cannot be moved to where its expected lines were found, if it cannot.
    pub fn relocate_refusal(&self, at: At) -> Option<Refusal> {
        (!self.can_relocate(at)).then(|| Refusal::NoPlace {
            why: first_message(self.change(at).check),
        })
    }

    /// Whether change `at` can be moved where its expected lines were found (without saying
    /// why not, for a key's availability on every frame).
    pub fn can_relocate(&self, at: At) -> bool {
        let check = self.change(at).check;
        check.status == Status::Conflict && check.found_at().is_some()
    }

    /// What the person may override on file patch `file`: writing it over the file that
    /// exists (a creation where a file is), over its SHA-256 mismatch, or over its other hard
    /// links, in that order when it has several; `None` for none.
    pub fn file_override(&self, file: usize) -> Option<FileOverride> {
        let check = &self.checked.verification.files[file];
        let lifted = check
            .problems
            .iter()
            .filter(|p| p.blocking)
            .filter_map(|p| FileOverride::lifting(p.kind));
        [
            FileOverride::Overwrite,
            FileOverride::Sha,
            FileOverride::HardLink,
        ]
        .into_iter()
        .find(|&how| lifted.clone().any(|l| l == how))
    }

    /// Why file patch `file`'s override cannot be made, if it cannot: nothing to override, or
    /// (for a SHA-256 mismatch) changes that would still not be written (every change not
    /// rejected is asked, as the plan will ask it once accepted).
    pub fn override_refusal(&self, file: usize) -> Option<Refusal> {
        match self.file_override(file) {
            None => Some(Refusal::NothingToOverride),
            Some(FileOverride::Overwrite | FileOverride::HardLink) => None,
            Some(FileOverride::Sha) => {
                let changes = still_blocking(&self.checked, &self.decisions, file);
                (!changes.is_empty()).then_some(Refusal::Unresolved { changes })
            }
        }
    }

    /// Whether file patch `file` is written over its override (SHA-256 mismatch, or the file
    /// that exists).
    pub fn overridden(&self, file: usize) -> bool {
        let id = &self.checked.batch.files[file].id;
        self.file_override(file)
            .is_some_and(|how| how.granted(&self.decisions, id))
    }

    /// Whether change `at` can be placed at a line of the person's choosing, and how many
    /// places its expected lines stand at (`None`: it cannot be placed anywhere). An insertion
    /// can go after any line.
    pub fn placeable(&self, at: At) -> Option<usize> {
        let view = self.change(at);
        // A change that stands where it says needs no place (unless it was placed, so that
        // the placement can be taken back, or it is an insertion nothing confirms).
        let needs_place = view.check.status != Status::Ok
            || rules::unverified_position(view.check)
            || self.decisions.placed_at(&view.change.id).is_some();
        // A change the format could not place has no lines of its own to check at a place
        // (its find text matched inside lines, or nowhere): the plan would refuse any.
        let has_lines = view.change.unplaced().is_none() || view.change.expected.is_some();
        if !needs_place || !has_lines {
            return None;
        }
        let places = places_of(view.file_check, view.change);
        (view.change.operation == Operation::Insert || !places.is_empty()).then_some(places.len())
    }

    /// Where change `at` could be placed, nearest first to where it would be were it as far
    /// off as the file's other changes are: every line its expected lines stand at (for an
    /// insertion, the line it would go after).
    pub fn candidates(&self, at: At) -> Vec<usize> {
        let view = self.change(at);
        let predicted = self.predicted_line(at);
        if view.change.operation == Operation::Insert {
            return vec![predicted];
        }
        let mut places = places_of(view.file_check, view.change);
        places.sort_by_key(|&line| (line.abs_diff(predicted), line));
        places
    }

    /// The line change `at` would be at if it were off by as much as the file's other changes
    /// that were found are (the median of their offsets; none off when none was found). For
    /// an insertion, the line it would go after.
    pub fn predicted_line(&self, at: At) -> usize {
        let file_check = &self.checked.verification.files[at.file];
        let file = &self.checked.batch.files[at.file];
        let mut offsets: Vec<i64> = file
            .changes
            .iter()
            .zip(&file_check.changes)
            .filter_map(|(change, check)| match (check.status, check.found_at()) {
                (_, Some(found)) => Some(found as i64 - change.range.start as i64),
                (Status::Ok, None) if change.operation != Operation::Insert => Some(0),
                _ => None,
            })
            .collect();
        offsets.sort_unstable();
        let offset = offsets.get(offsets.len() / 2).copied().unwrap_or(0);
        let change = &file.changes[at.change];
        let start = (change.range.start as i64 + offset).max(1) as usize;
        match change.operation {
            Operation::Insert => start - 1,
            _ => start,
        }
    }

    /// Why change `at` cannot be placed at `line`, if it cannot.
    pub fn place_refusal(&self, at: At, line: usize) -> Option<Refusal> {
        let view = self.change(at);
        if self.placeable(at).is_none() {
            return Some(Refusal::CannotPlace);
        }
        let lines = Lines::split(view.file_check.base_bytes());
        rules::place_start(&lines, view.change, line)
            .is_none()
            .then_some(Refusal::NotThere { line })
    }

    /// Places change `at` at `line` (the first line it replaces; for an insertion, the line it
    /// goes after) and accepts it (an edited change stays edited).
    pub fn place(&mut self, at: At, line: usize) -> Result<(), Refusal> {
        if let Some(refusal) = self.place_refusal(at, line) {
            return Err(refusal);
        }
        let id = self.change(at).change.id.clone();
        let edited = matches!(self.decisions.get(&id), Decision::Edit(_));
        self.step(at, Done::Place, |tx| {
            tx.relocate(&id, false);
            tx.place(&id, Some(line));
            if !edited {
                tx.decide(&id, Decision::Accept);
            }
        });
        Ok(())
    }

    /// Takes back the placement of change `at`: it is undecided again. Returns whether an
    /// edit of it, made for that place, went with it (undo brings both back).
    pub fn unplace(&mut self, at: At) -> bool {
        let id = self.change(at).change.id.clone();
        let edit_dropped = matches!(self.decisions.get(&id), Decision::Edit(_));
        self.step(at, Done::Unplace, |tx| {
            tx.place(&id, None);
            tx.decide(&id, Decision::Undecided);
        });
        edit_dropped
    }

    /// Accepts change `at` (an edited change stays edited).
    pub fn accept(&mut self, at: At) -> Result<(), Refusal> {
        if let Some(refusal) = self.accept_refusal(at) {
            return Err(refusal);
        }
        let id = self.change(at).change.id.clone();
        if !matches!(self.decisions.get(&id), Decision::Edit(_)) {
            self.step(at, Done::Accept, |tx| tx.decide(&id, Decision::Accept));
        }
        Ok(())
    }

    /// Rejects change `at`.
    pub fn reject(&mut self, at: At) {
        let id = self.change(at).change.id.clone();
        self.step(at, Done::Reject, |tx| tx.decide(&id, Decision::Reject));
    }

    /// Writes the person's note on change `at` for the model (`None` or blank takes it
    /// away). A note on an undecided change rejects it in the same step: "reject this and tell
    /// the model why". Refused when it is not one line of at most [`NOTE_MOST_CHARS`]
    /// characters (the error says why). True when anything changed.
    pub fn note(&mut self, at: At, note: Option<&str>) -> Result<bool, String> {
        let note = tidy_note(note)?;
        let id = self.change(at).change.id.clone();
        let undecided = *self.decisions.get(&id) == Decision::Undecided;
        Ok(self.step(at, Done::Note, |tx| {
            if undecided && note.is_some() {
                tx.decide(&id, Decision::Reject);
            }
            tx.note(&id, note);
        }))
    }

    /// Writes the person's note on the whole batch (`None` or blank takes it away). True when
    /// anything changed.
    pub fn note_batch(&mut self, at: At, note: Option<&str>) -> Result<bool, String> {
        let note = tidy_note(note)?;
        Ok(self.step(at, Done::BatchNote, |tx| tx.batch_note(note)))
    }

    /// Edits change `at` to write `lines` (and accepts it). A conflict edited over the lines
    /// on disk is resolved: the decision records those lines, and the commit checks them
    /// instead of the batch's expected lines.
    pub fn edit(&mut self, at: At, lines: Vec<String>) -> Result<Edited, Refusal> {
        if let Some(refusal) = self.edit_refusal(at) {
            return Err(refusal);
        }
        let view = self.change(at);
        let id = view.change.id.clone();
        let conflict = view.check.status == Status::Conflict && !self.decisions.relocated(&id);
        if self.kept_or_written(at) == lines {
            // Saving what it writes already is no decision; for a conflict, saving the batch's
            // lines as they came would write them over lines they were never meant for.
            return Ok(Edited::Unchanged { conflict });
        }
        let over = conflict.then(|| edit::replaced_lines(self, at).1);
        self.step(at, Done::Edit, |tx| {
            tx.replaces(&id, over);
            tx.decide(&id, Decision::Edit(lines.into()));
        });
        Ok(Edited::Done)
    }

    /// Moves a conflicting change to where its expected lines were found and accepts it, or
    /// (when it was moved) moves it back, undecided.
    pub fn relocate(&mut self, at: At) -> Result<Relocation, Refusal> {
        if let Some(refusal) = self.relocate_refusal(at) {
            return Err(refusal);
        }
        let view = self.change(at);
        let (id, file_id) = (view.change.id.clone(), view.file.id.clone());
        let to = view.check.found_at().expect("a place, or refused above");
        if !self.decisions.relocated(&id) {
            self.step(at, Done::Relocate, |tx| {
                tx.relocate(&id, true);
                tx.decide(&id, Decision::Accept);
            });
            return Ok(Relocation::Moved { to });
        }
        let checked = &self.checked;
        let mut taken_back = false;
        let edit_dropped = matches!(self.decisions.get(&id), Decision::Edit(_));
        self.history.push(at, Done::Unrelocate, {
            let mut tx = Tx::new(&mut self.decisions);
            tx.relocate(&id, false);
            tx.decide(&id, Decision::Undecided);
            // The override needed every change resolved: it goes when this one no longer is.
            if tx.decisions().sha_overridden(&file_id)
                && !still_blocking(checked, tx.decisions(), at.file).is_empty()
            {
                tx.file_override(&file_id, FileOverride::Sha, false);
                taken_back = true;
            }
            tx
        });
        Ok(Relocation::Back {
            override_taken_back: taken_back,
            edit_dropped,
        })
    }

    /// Turns file patch `file`'s override on or off: writing it over its SHA-256 mismatch, or
    /// over the file that exists. Turning it off is never refused.
    pub fn override_file(&mut self, file: usize) -> Result<Overridden, Refusal> {
        let id = self.checked.batch.files[file].id.clone();
        let Some(kind) = self.file_override(file) else {
            return Err(Refusal::NothingToOverride);
        };
        let on = !self.overridden(file);
        if on {
            if let Some(refusal) = self.override_refusal(file) {
                return Err(refusal);
            }
        }
        let about = At { file, change: 0 };
        self.step(about, Done::Override { how: kind, on }, |tx| {
            tx.file_override(&id, kind, on)
        });
        Ok(Overridden { kind, on })
    }

    /// Accepts every change of file patch `file` that can be accepted; returns how many were,
    /// and how many were left (conflicts to resolve one by one).
    pub fn accept_file(&mut self, file: usize) -> (usize, usize) {
        let places: Vec<At> = (0..self.checked.batch.files[file].changes.len())
            .map(|change| At { file, change })
            .collect();
        let (ok, left): (Vec<At>, Vec<At>) =
            places.into_iter().partition(|&at| self.can_accept(at));
        let ids: Vec<_> = ok
            .iter()
            .map(|&at| self.change(at).change.id.clone())
            .filter(|id| !matches!(self.decisions.get(id), Decision::Edit(_)))
            .collect();
        let about = At { file, change: 0 };
        self.step(about, Done::AcceptFile, |tx| {
            ids.iter().for_each(|id| tx.decide(id, Decision::Accept))
        });
        (ok.len(), left.len())
    }

    /// Rejects every change of file patch `file`; returns how many it has.
    pub fn reject_file(&mut self, file: usize) -> usize {
        let ids: Vec<_> = self.checked.batch.files[file]
            .changes
            .iter()
            .map(|c| c.id.clone())
            .collect();
        self.step(At { file, change: 0 }, Done::RejectFile, |tx| {
            ids.iter().for_each(|id| tx.decide(id, Decision::Reject))
        });
        ids.len()
    }

    pub fn undo(&mut self) -> Option<Replayed> {
        self.history.undo(&mut self.decisions)
    }

    pub fn redo(&mut self) -> Option<Replayed> {
        self.history.redo(&mut self.decisions)
    }

    /// Takes the batch's verification against the files as they are now, keeping every rejection and
    /// every decision whose change can still be written as decided; the others are undecided
    /// again. An override stays only while it is still allowed. The history starts over.
    pub fn reverify(&mut self, verification: Verification) -> Retained {
        self.checked.verification = verification;
        let mut retained = Retained::default();
        let places: Vec<At> = self.places().collect();
        for at in places {
            let view = self.change(at);
            let id = view.change.id.clone();
            let writable = rules::placement(
                view.file,
                view.file_check,
                at.change,
                &self.decisions,
                false,
            )
            .is_ok();
            match self.decisions.get(&id) {
                Decision::Undecided => {}
                Decision::Reject => retained.kept += 1,
                _ if writable => retained.kept += 1,
                _ => {
                    self.decisions.set(id.clone(), Decision::Undecided);
                    self.decisions.relocate.remove(&id);
                    self.decisions.replaces.remove(&id);
                    retained.dropped += 1;
                }
            }
        }
        let allowed: Vec<bool> = (0..self.checked.batch.files.len())
            .map(|f| self.override_refusal(f).is_none())
            .collect();
        let files = &self.checked.batch.files;
        self.decisions.sha_overrides.retain(|id| {
            files
                .iter()
                .zip(&allowed)
                .any(|(f, allowed)| &f.id == id && *allowed)
        });
        self.history.clear();
        retained
    }

    /// Runs `body` as one undoable step about `at`; whether it changed anything.
    fn step(&mut self, at: At, what: Done, body: impl FnOnce(&mut Tx)) -> bool {
        let mut tx = Tx::new(&mut self.decisions);
        body(&mut tx);
        self.history.push(at, what, tx)
    }
}

/// A note as kept: trimmed, `None` when blank, refused when it is no note.
fn tidy_note(note: Option<&str>) -> Result<Option<String>, String> {
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    match note.and_then(note_refusal) {
        Some(why) => Err(why),
        None => Ok(note.map(str::to_owned)),
    }
}

/// Why no change of a file can be decided on, when its file cannot be written whatever is
/// decided: a blocking problem of the file other than those an override lifts (a SHA-256
/// mismatch, a file where the batch creates one, other hard links).
fn file_refusal(check: &FileCheck) -> Option<Refusal> {
    check
        .problems
        .iter()
        .find(|p| {
            p.blocking
                && !matches!(
                    p.kind,
                    ProblemKind::ShaMismatch | ProblemKind::HardLink | ProblemKind::FileExists
                )
        })
        .map(|p| Refusal::FileBlocked {
            kind: p.kind,
            message: p.message.clone(),
        })
}

/// The changes of file patch `file`, not rejected, that would not be written were the file
/// written over its SHA-256 mismatch, with their ways out.
fn still_blocking(checked: &Checked, decisions: &Decisions, file: usize) -> Vec<StillBlocking> {
    let patch = &checked.batch.files[file];
    let check = &checked.verification.files[file];
    (0..patch.changes.len())
        .filter(|&c| *decisions.get(&patch.changes[c].id) != Decision::Reject)
        .filter_map(|c| {
            let stuck = rules::placement(patch, check, c, decisions, true).err()?;
            let change = &patch.changes[c];
            let places = places_of(check, change);
            let placeable = (change.operation == Operation::Insert || !places.is_empty())
                .then_some(places.len());
            let ways = match stuck {
                rules::Stuck::Unresolved {
                    status: Status::Conflict,
                    found_at,
                } => conflict_ways(found_at, change.unplaced().is_none(), placeable),
                rules::Stuck::UnverifiedUnderOverride => {
                    vec![Way::Place { candidates: 0 }, Way::Reject]
                }
                _ => vec![Way::Reject],
            };
            Some(StillBlocking {
                at: At { file, change: c },
                stuck,
                ways,
            })
        })
        .collect()
}

fn first_message(check: &ChangeCheck) -> String {
    check
        .problems
        .iter()
        .find(|p| p.blocking)
        .map_or_else(String::new, |p| p.message.clone())
}

/// Every line change's expected lines stand at in its file (for a change a format could not
/// place, the places it found).
fn places_of(check: &FileCheck, change: &Change) -> Vec<usize> {
    if let Some(places) = change.unplaced() {
        return if change.expected.is_some() {
            places.to_vec()
        } else {
            Vec::new()
        };
    }
    match &change.expected {
        Some(expected) if !expected.is_empty() => {
            Lines::split(check.base_bytes()).find_all(expected)
        }
        _ => Vec::new(),
    }
}
