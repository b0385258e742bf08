//! Undo and redo of decisions: each step records what every entry it touched was before and
//! after, so undoing and redoing cost only what the step touched, whatever the batch's size.
//!
//! A `Tx` is a step being built: each change is applied to the decisions at once and
//! recorded. The [`History`] keeps the steps, with the change each was about, for the client
//! to show where the undone decision was.

use super::decisions::{Decision, Decisions};
use super::rules::FileOverride;
use crate::model::{ChangeId, FilePatchId};

/// How many steps undo remembers.
const UNDO_LIMIT: usize = 1_000;

/// One entry a step changed, with its value before and after.
#[derive(Clone, Debug)]
enum Delta {
    Decision(ChangeId, Decision, Decision),
    Relocate(ChangeId, bool, bool),
    Override(FilePatchId, FileOverride, bool, bool),
    Place(ChangeId, Option<usize>, Option<usize>),
    Replaces(ChangeId, Option<Vec<String>>, Option<Vec<String>>),
    Note(ChangeId, Option<String>, Option<String>),
    BatchNote(Option<String>, Option<String>),
}

/// One undoable step, and the change it was about (where the person was).
#[derive(Clone, Debug)]
struct Step {
    about: super::At,
    what: Done,
    deltas: Vec<Delta>,
}

/// What a step did, in a word a client can show ("undone: accept of src/app.py#2").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    Accept,
    Reject,
    Edit,
    Relocate,
    Unrelocate,
    Place,
    Unplace,
    /// A file's override made (`on`) or taken back.
    Override {
        how: FileOverride,
        on: bool,
    },
    AcceptFile,
    RejectFile,
    AcceptVerified,
    /// The proposal taken over the lines on disk.
    TakeOver,
    /// Every conflict with one place the evidence supports moved there.
    RelocateAll,
    /// A change's note written, changed or taken away (rejecting the change when it was
    /// undecided).
    Note,
    /// The batch's note written, changed or taken away.
    BatchNote,
}

/// A step undone or redone: what it did, and the change it was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub what: Done,
    pub about: super::At,
}

#[derive(Default, Debug)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

impl History {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }

    /// Keeps a step; a new step makes what was undone no longer redoable.
    pub(super) fn push(&mut self, about: super::At, what: Done, tx: Tx) -> bool {
        if tx.deltas.is_empty() {
            return false;
        }
        self.undo.push(Step {
            about,
            what,
            deltas: tx.deltas,
        });
        if self.undo.len() > UNDO_LIMIT {
            self.undo.remove(0);
        }
        self.redo.clear();
        true
    }

    pub(super) fn undo(&mut self, decisions: &mut Decisions) -> Option<Replayed> {
        let step = self.undo.pop()?;
        for delta in step.deltas.iter().rev() {
            apply(decisions, delta, false);
        }
        let replayed = Replayed {
            what: step.what,
            about: step.about,
        };
        self.redo.push(step);
        Some(replayed)
    }

    pub(super) fn redo(&mut self, decisions: &mut Decisions) -> Option<Replayed> {
        let step = self.redo.pop()?;
        for delta in &step.deltas {
            apply(decisions, delta, true);
        }
        let replayed = Replayed {
            what: step.what,
            about: step.about,
        };
        self.undo.push(step);
        Some(replayed)
    }
}

fn pick<T>(forward: bool, before: T, after: T) -> T {
    if forward {
        after
    } else {
        before
    }
}

fn apply(decisions: &mut Decisions, delta: &Delta, forward: bool) {
    match delta {
        Delta::Decision(id, before, after) => {
            decisions.set(id.clone(), pick(forward, before, after).clone());
        }
        Delta::Relocate(id, before, after) => {
            if *pick(forward, before, after) {
                decisions.relocate.insert(id.clone());
            } else {
                decisions.relocate.remove(id);
            }
        }
        Delta::Override(id, how, before, after) => {
            let set = match how {
                FileOverride::Sha => &mut decisions.sha_overrides,
                FileOverride::HardLink => &mut decisions.hard_link_overrides,
                FileOverride::Overwrite => &mut decisions.overwrites,
            };
            if *pick(forward, before, after) {
                set.insert(id.clone());
            } else {
                set.remove(id);
            }
        }
        Delta::Place(id, before, after) => match pick(forward, before, after) {
            Some(line) => {
                decisions.placements.insert(id.clone(), *line);
            }
            None => {
                decisions.placements.remove(id);
            }
        },
        Delta::Replaces(id, before, after) => match pick(forward, before, after) {
            Some(lines) => {
                decisions.replaces.insert(id.clone(), lines.clone());
            }
            None => {
                decisions.replaces.remove(id);
            }
        },
        Delta::Note(id, before, after) => match pick(forward, before, after) {
            Some(note) => {
                decisions.notes.insert(id.clone(), note.clone());
            }
            None => {
                decisions.notes.remove(id);
            }
        },
        Delta::BatchNote(before, after) => {
            decisions.note = pick(forward, before, after).clone();
        }
    }
}

/// A step being built: each change is applied at once and recorded.
pub(super) struct Tx<'a> {
    decisions: &'a mut Decisions,
    deltas: Vec<Delta>,
}

impl<'a> Tx<'a> {
    pub fn new(decisions: &'a mut Decisions) -> Tx<'a> {
        Tx {
            decisions,
            deltas: Vec::new(),
        }
    }

    pub fn decide(&mut self, id: &ChangeId, decision: Decision) {
        let before = self.decisions.get(id).clone();
        if before != decision {
            self.record(Delta::Decision(id.clone(), before, decision));
        }
    }

    pub fn relocate(&mut self, id: &ChangeId, on: bool) {
        let before = self.decisions.relocate.contains(id);
        if before != on {
            self.record(Delta::Relocate(id.clone(), before, on));
        }
    }

    pub fn file_override(&mut self, id: &FilePatchId, how: FileOverride, on: bool) {
        let before = how.granted(self.decisions, id);
        if before != on {
            self.record(Delta::Override(id.clone(), how, before, on));
        }
    }

    pub fn place(&mut self, id: &ChangeId, line: Option<usize>) {
        let before = self.decisions.placements.get(id).copied();
        if before != line {
            self.record(Delta::Place(id.clone(), before, line));
        }
    }

    pub fn replaces(&mut self, id: &ChangeId, lines: Option<Vec<String>>) {
        let before = self.decisions.replaces.get(id).cloned();
        if before != lines {
            self.record(Delta::Replaces(id.clone(), before, lines));
        }
    }

    pub fn note(&mut self, id: &ChangeId, note: Option<String>) {
        let before = self.decisions.notes.get(id).cloned();
        if before != note {
            self.record(Delta::Note(id.clone(), before, note));
        }
    }

    pub fn batch_note(&mut self, note: Option<String>) {
        let before = self.decisions.note.clone();
        if before != note {
            self.record(Delta::BatchNote(before, note));
        }
    }

    /// The decisions as this step has left them so far.
    pub fn decisions(&self) -> &Decisions {
        self.decisions
    }

    fn record(&mut self, delta: Delta) {
        apply(self.decisions, &delta, true);
        self.deltas.push(delta);
    }
}
