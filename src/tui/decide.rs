//! Deciding: accept, reject, move, override, for one change or a whole file, with undo and redo.
//!
//! Every decision is one step of [`History`] that records what each touched entry was before and
//! after, so undo and redo cost only what the step touched, whatever the batch's size. A
//! conflicting change cannot simply be accepted: it is resolved by editing it, by moving it to
//! where its expected lines were found, or (for a SHA mismatch whose changes all verify) by an
//! explicit override of its file. After a decision the cursor moves to the next undecided
//! change, as in `git add -p`, and the session is saved.

use super::app::{App, Tone};
use crate::model::{ChangeId, FilePatchId};
use crate::problem::ProblemKind;
use crate::review::{Decision, Decisions};
use crate::verify::Status;

/// Why a change the format could not place cannot be edited or accepted.
pub fn unplaced_reason(places: &[usize]) -> String {
    if places.is_empty() {
        "the lines this change replaces were not found in the file, so it has no place to apply"
            .to_owned()
    } else {
        let list: Vec<String> = places.iter().map(usize::to_string).collect();
        format!(
            "the lines this change replaces occur {} times (at lines {}), so its place is ambiguous",
            places.len(),
            list.join(", ")
        )
    }
}

/// How many steps undo remembers.
const UNDO_LIMIT: usize = 1_000;

/// One entry a step changed, with its value before and after.
#[derive(Clone, Debug)]
enum Delta {
    Decision(ChangeId, Decision, Decision),
    Relocate(ChangeId, bool, bool),
    Override(FilePatchId, bool, bool),
    Replaces(ChangeId, Option<Vec<String>>, Option<Vec<String>>),
}

/// One undoable step, and where the cursor was.
#[derive(Clone, Debug)]
struct Step {
    pos: usize,
    deltas: Vec<Delta>,
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

    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
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
        Delta::Override(id, before, after) => {
            if *pick(forward, before, after) {
                decisions.sha_overrides.insert(id.clone());
            } else {
                decisions.sha_overrides.remove(id);
            }
        }
        Delta::Replaces(id, before, after) => match pick(forward, before, after) {
            Some(lines) => {
                decisions.replaces.insert(id.clone(), lines.clone());
            }
            None => {
                decisions.replaces.remove(id);
            }
        },
    }
}

/// A step being built: each change is applied at once and recorded.
pub(super) struct Tx<'a> {
    decisions: &'a mut Decisions,
    deltas: Vec<Delta>,
}

impl Tx<'_> {
    pub fn decide(&mut self, id: &ChangeId, decision: Decision) {
        let before = self.decisions.get(id).clone();
        if before != decision {
            let delta = Delta::Decision(id.clone(), before, decision);
            apply(self.decisions, &delta, true);
            self.deltas.push(delta);
        }
    }

    pub fn relocate(&mut self, id: &ChangeId, on: bool) {
        let before = self.decisions.relocate.contains(id);
        if before != on {
            let delta = Delta::Relocate(id.clone(), before, on);
            apply(self.decisions, &delta, true);
            self.deltas.push(delta);
        }
    }

    pub fn override_sha(&mut self, id: &FilePatchId, on: bool) {
        let before = self.decisions.sha_overrides.contains(id);
        if before != on {
            let delta = Delta::Override(id.clone(), before, on);
            apply(self.decisions, &delta, true);
            self.deltas.push(delta);
        }
    }

    pub fn replaces(&mut self, id: &ChangeId, lines: Option<Vec<String>>) {
        let before = self.decisions.replaces.get(id).cloned();
        if before != lines {
            let delta = Delta::Replaces(id.clone(), before, lines);
            apply(self.decisions, &delta, true);
            self.deltas.push(delta);
        }
    }
}

impl App {
    /// Runs `body` as one undoable step; saves the session when it changed anything.
    pub(super) fn step(&mut self, body: impl FnOnce(&mut Tx)) -> bool {
        let mut tx = Tx {
            decisions: &mut self.decisions,
            deltas: Vec::new(),
        };
        body(&mut tx);
        let deltas = tx.deltas;
        if deltas.is_empty() {
            return false;
        }
        self.history.undo.push(Step {
            pos: self.pos,
            deltas,
        });
        if self.history.undo.len() > UNDO_LIMIT {
            self.history.undo.remove(0);
        }
        self.history.redo.clear();
        self.save_session();
        true
    }

    /// Whether the change at `pos` verifies, or its conflict is resolved: moved to where its
    /// expected lines are, or edited over the lines on disk. What the plan will check for it
    /// then holds, so it counts as verified for a SHA-256 override.
    pub fn verified_or_resolved(&self, pos: usize) -> bool {
        let (_, change, _, check) = self.change(pos);
        match check.status {
            Status::Ok => true,
            Status::Invalid => false,
            Status::Conflict => {
                (self.decisions.relocate.contains(&change.id) && check.found_at().is_some())
                    || (self.decisions.replaces.contains_key(&change.id)
                        && matches!(self.decisions.get(&change.id), Decision::Edit(_)))
            }
        }
    }

    /// Why a file's SHA-256 mismatch cannot be overridden, if it cannot.
    pub fn override_refusal(&self, file: usize) -> Option<String> {
        if let Some(refusal) = self.committed_refusal() {
            return Some(refusal.to_owned());
        }
        let (_, check) = self.file(file);
        if !check.sha_mismatch() {
            return Some("o overrides a SHA-256 mismatch; this file's hash matches".into());
        }
        let unresolved = (0..self.flat.len())
            .filter(|&p| self.flat[p].0 == file && !self.verified_or_resolved(p))
            .count();
        (unresolved > 0).then(|| {
            format!(
                "cannot override: {unresolved} change(s) of this file do not verify against it; resolve them first (e edits, m moves where the expected lines were found, r rejects)"
            )
        })
    }

    /// Why the change at `pos` cannot be moved to where its expected lines were found.
    pub fn relocate_refusal(&self, pos: usize) -> Option<String> {
        if let Some(refusal) = self.committed_refusal() {
            return Some(refusal.to_owned());
        }
        let (_, _, _, check) = self.change(pos);
        (check.status != Status::Conflict || check.found_at().is_none()).then(|| {
            "m moves a conflicting change whose expected lines were found once elsewhere; this one has no such place".to_owned()
        })
    }

    /// Why the selected change cannot be accepted as it is, if it cannot.
    pub fn accept_refusal(&self, pos: usize) -> Option<String> {
        if let Some(refusal) = self.committed_refusal() {
            return Some(refusal.to_owned());
        }
        let (_, change, file_check, check) = self.change(pos);
        if let Some(problem) = file_check
            .problems
            .iter()
            .find(|p| p.blocking && p.kind != ProblemKind::ShaMismatch)
        {
            return Some(format!("cannot accept: {}", problem.message));
        }
        let resolved = self.decisions.relocate.contains(&change.id)
            || self.decisions.replaces.contains_key(&change.id);
        if let Some(places) = change.unplaced() {
            return Some(format!(
                "cannot accept: {}; r rejects it",
                unplaced_reason(places)
            ));
        }
        match check.status {
            Status::Ok => None,
            _ if resolved => None,
            Status::Invalid => Some(format!(
                "cannot accept: change {} is invalid ({}); reject it",
                change.key.as_deref().unwrap_or(change.id.as_str()),
                check.problems.first().map_or("", |p| p.message.as_str())
            )),
            Status::Conflict => {
                let mut ways = vec!["e edits it over the lines on disk".to_owned()];
                if let Some(at) = check.found_at() {
                    ways.push(format!(
                        "m moves it to line {at}, where its expected lines are"
                    ));
                }
                Some(format!(
                    "conflict: this change cannot simply be accepted; {} (or r rejects it)",
                    ways.join(", ")
                ))
            }
        }
    }

    /// Why the change at `pos` cannot be rejected (only once the batch is committed).
    pub fn reject_refusal(&self, _pos: usize) -> Option<String> {
        self.committed_refusal().map(str::to_owned)
    }

    pub(super) fn accept(&mut self) {
        if let Some(refusal) = self.accept_refusal(self.pos) {
            self.say(Tone::Error, refusal);
            return;
        }
        let (file, change, file_check, _) = self.change(self.pos);
        let id = change.id.clone();
        let note = (file_check.sha_mismatch() && !self.decisions.sha_overrides.contains(&file.id))
            .then(|| {
                "accepted, but this file's SHA-256 differs from the batch's: o overrides it, or the commit will stop"
                    .to_owned()
            });
        if !matches!(self.decisions.get(&id), Decision::Edit(_)) {
            self.step(|tx| tx.decide(&id, Decision::Accept));
        }
        self.advance();
        if let Some(note) = note {
            self.say(Tone::Warning, note);
        }
    }

    pub(super) fn reject(&mut self) {
        let id = self.change(self.pos).1.id.clone();
        self.step(|tx| tx.decide(&id, Decision::Reject));
        self.advance();
    }

    /// Moves to the next undecided change after the current one, or says all are decided.
    pub(super) fn advance(&mut self) {
        match self.next_undecided_from(self.pos + 1) {
            Some(pos) => self.go(pos),
            None => self.say(
                Tone::Info,
                "every change is decided: c shows what will be written",
            ),
        }
    }

    pub(super) fn accept_file(&mut self) {
        let file = self.file_index();
        let positions: Vec<usize> = (0..self.flat.len())
            .filter(|&p| self.flat[p].0 == file)
            .collect();
        let (ok, skipped): (Vec<usize>, Vec<usize>) = positions
            .into_iter()
            .partition(|&p| self.accept_refusal(p).is_none());
        let ids: Vec<ChangeId> = ok
            .iter()
            .map(|&p| self.change(p).1.id.clone())
            .filter(|id| !matches!(self.decisions.get(id), Decision::Edit(_)))
            .collect();
        self.step(|tx| ids.iter().for_each(|id| tx.decide(id, Decision::Accept)));
        let text = format!(
            "accepted {} change(s) of this file{}",
            ok.len(),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} conflicting change(s) left for you to resolve",
                    skipped.len()
                )
            }
        );
        self.say(
            if skipped.is_empty() {
                Tone::Info
            } else {
                Tone::Warning
            },
            text,
        );
    }

    pub(super) fn reject_file(&mut self) {
        let file = self.file_index();
        let ids: Vec<ChangeId> = self.checked.batch.files[file]
            .changes
            .iter()
            .map(|c| c.id.clone())
            .collect();
        self.step(|tx| ids.iter().for_each(|id| tx.decide(id, Decision::Reject)));
        self.say(
            Tone::Info,
            format!("rejected {} change(s) of this file", ids.len()),
        );
    }

    /// Toggles moving a conflicting change to where its expected lines were found. Moving it
    /// accepts it and goes on to the next undecided change, as `a` does; moving it back makes it
    /// undecided (and takes back its file's SHA-256 override, which needed it resolved).
    pub(super) fn relocate(&mut self) {
        if let Some(refusal) = self.relocate_refusal(self.pos) {
            self.say(Tone::Error, refusal);
            return;
        }
        let (file, change, _, check) = self.change(self.pos);
        let (id, file_id) = (change.id.clone(), file.id.clone());
        let at = check.found_at().unwrap_or_default();
        if self.decisions.relocate.contains(&id) {
            let overridden = self.decisions.sha_overrides.contains(&file_id);
            self.step(|tx| {
                tx.relocate(&id, false);
                tx.decide(&id, Decision::Undecided);
                if overridden {
                    tx.override_sha(&file_id, false);
                }
            });
            self.say(
                Tone::Info,
                if overridden {
                    "no longer moved; the change is undecided again and its file's SHA-256 override is taken back"
                } else {
                    "no longer moved; the change is undecided again"
                },
            );
        } else {
            self.step(|tx| {
                tx.relocate(&id, true);
                tx.decide(&id, Decision::Accept);
            });
            self.advance();
            let text = format!("moved to line {at} and accepted");
            match &self.message {
                Some(m) => {
                    let text = format!("{text}; {}", m.text);
                    self.say(Tone::Info, text);
                }
                None => self.say(Tone::Info, text),
            }
        }
    }

    /// Toggles the explicit override of the selected file's SHA-256 mismatch.
    pub(super) fn override_sha(&mut self) {
        if let Some(refusal) = self.override_refusal(self.file_index()) {
            self.say(Tone::Error, refusal);
            return;
        }
        let id = self.file(self.file_index()).0.id.clone();
        let on = !self.decisions.sha_overrides.contains(&id);
        self.step(|tx| tx.override_sha(&id, on));
        self.say(
            Tone::Warning,
            if on {
                "override: this file will be written although its SHA-256 differs (listed in the commit summary)"
            } else {
                "override removed"
            },
        );
    }

    pub(super) fn undo(&mut self) {
        let Some(step) = self.history.undo.pop() else {
            self.say(Tone::Info, "nothing to undo");
            return;
        };
        for delta in step.deltas.iter().rev() {
            apply(&mut self.decisions, delta, false);
        }
        self.go(step.pos);
        self.history.redo.push(step);
        self.save_session();
        self.say(Tone::Info, "undone");
    }

    pub(super) fn redo(&mut self) {
        let Some(step) = self.history.redo.pop() else {
            self.say(Tone::Info, "nothing to redo");
            return;
        };
        for delta in &step.deltas {
            apply(&mut self.decisions, delta, true);
        }
        self.go(step.pos);
        self.history.undo.push(step);
        self.save_session();
        self.say(Tone::Info, "redone");
    }
}
