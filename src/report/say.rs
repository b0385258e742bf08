//! What the commands say of a commit in words: the batch's name, a recovery, what was
//! written and how to take it back, an interrupted commit left alone. The command line and the
//! reviewer say the same sentences.

use crate::commit::settle::Recovery;
use crate::commit::{self, Committed};
use crate::model::{Batch, ChangeId};
use crate::plan;
use crate::plan::Override;
use crate::review::rules::FileOverride;
use crate::review::{Decision, Decisions};
use std::path::Path;

/// What a reading command says of an interrupted commit it left alone.
pub fn describe_interrupted(journal: &Path) -> String {
    format!(
        "an interrupted commit is waiting ({}): the files are read as it left them, and nothing was done about it; run `patchdeck recover` to finish it or roll it back",
        journal.display()
    )
}

/// The name a person knows a batch by: its label, key or ID.
pub fn batch_name(batch: &Batch) -> String {
    batch
        .label
        .clone()
        .or_else(|| batch.key.clone())
        .unwrap_or_else(|| batch.id.to_string())
}

/// Recovery described for a person, one line per file.
pub fn describe_recovery(recovery: &Recovery) -> String {
    let mut lines = Vec::new();
    if recovery.had_journal && recovery.finished {
        lines.push("finished an interrupted commit that had completed".to_owned());
    } else if recovery.had_journal {
        lines.push("rolled back an interrupted commit".to_owned());
    }
    if let Some(label) = &recovery.undo_finished {
        lines.push(format!(
            "finished an interrupted undo of \"{label}\": its files had been restored; its record is now removed"
        ));
    }
    if recovery.finished_later > 0 {
        lines.push(format!(
            "finished the cleanup of {} earlier commit(s) that had been set aside; `patchdeck undo` can take them back",
            recovery.finished_later
        ));
    }
    if let Some(pid) = recovery.stale_lock {
        lines.push(format!(
            "removed the workspace lock left by process {pid}, which no longer holds it"
        ));
    }
    for path in &recovery.restored {
        lines.push(format!("  restored {}", path.display()));
    }
    for path in &recovery.left_alone {
        lines.push(format!(
            "  left {} as it is: another program changed it while the commit was running",
            path.display()
        ));
    }
    for path in &recovery.kept {
        lines.push(format!(
            "  kept {}: content the commit had moved aside (the original, or another program's earlier content), beside a file another program changed",
            path.display()
        ));
    }
    for path in &recovery.removed {
        lines.push(format!(
            "  removed {} (created by the interrupted commit)",
            path.display()
        ));
    }
    lines.join("\n")
}

/// A commit's files counted in words: `wrote 3 file(s): 2 modified, 1 created`.
pub fn describe_totals(written: &[commit::Written]) -> String {
    match written.len() {
        0 => "wrote nothing".to_owned(),
        n => format!(
            "wrote {n} file(s): {}",
            plan::describe_kinds(written.iter().map(|w| w.kind))
        ),
    }
}

/// What a commit of the work tree's changes (`--worktree`) did to one file, from the plan's
/// write of it and the decisions: which of the agent's changes it undid, which it wrote as
/// edited. The file's action is the undoing's: the agent's deletion undone puts the file back,
/// its new file undone removes it.
pub fn describe_standing_write(
    write: &plan::FileWrite,
    batch: &Batch,
    decisions: &Decisions,
) -> String {
    let file = &batch.files[write.file];
    let (mut undone, mut edited) = (0, 0);
    for &c in &write.changes {
        match decisions.get(&file.changes[c].id) {
            Decision::Edit(_) => edited += 1,
            _ => undone += 1,
        }
    }
    let path = write.rel.display();
    let how = match (undone, edited) {
        (u, 0) => format!("undid {u} of the agent's change(s)"),
        (0, e) => format!("kept {e} change(s) as edited"),
        (u, e) => format!("undid {u} of the agent's change(s), kept {e} as edited"),
    };
    match write.kind {
        plan::WriteKind::Create => format!("put back {path}: {how}"),
        plan::WriteKind::Delete => format!("removed {path}, which the agent made: {how}"),
        plan::WriteKind::Modify => format!("wrote {path}: {how}"),
    }
}

/// How to take a commit back.
pub fn describe_undo(committed: &Committed) -> String {
    match &committed.history_id {
        Some(id) => format!("`patchdeck undo` restores every file as it was (commit {id})"),
        None => "this commit is not kept in the undo history: `patchdeck undo` cannot take it back"
            .to_owned(),
    }
}

/// A commit for a person once it is done, in a few lines however many files it wrote: the
/// totals, the first `shown` paths and how many more, and how to take it back.
pub fn describe_committed(committed: &Committed, shown: usize) -> String {
    let mut paths: Vec<String> = committed
        .written
        .iter()
        .take(shown)
        .map(|w| w.rel.display().to_string())
        .collect();
    let more = committed.written.len().saturating_sub(shown);
    if more > 0 {
        paths.push(format!("… and {more} more"));
    }
    let mut text = describe_totals(&committed.written);
    if !paths.is_empty() {
        text = format!("{text} ({})", paths.join(", "));
    }
    if !committed.written.is_empty() {
        text = format!("{text}\n{}", describe_undo(committed));
    }
    text
}

/// Whom an override is described to: the person in the reviewer, before the commit, or the
/// report of a commit done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    Reviewer,
    Report,
}

/// An override of a plan in words (how to take it back is each client's to add): `path`
/// names a file patch's file, `change` one of its changes.
pub fn describe_override(
    o: &Override,
    told: Told,
    path: impl Fn(usize) -> String,
    change: impl Fn(usize, &ChangeId) -> String,
) -> String {
    let reviewer = told == Told::Reviewer;
    match o {
        Override::File { file, how } => {
            let what = match how {
                FileOverride::Sha => "written although its SHA-256 differs from the batch's",
                FileOverride::HardLink => {
                    "written although it has several hard links; its other names keep the old content"
                }
                FileOverride::Overwrite if reviewer => {
                    "written over the file that is there, which the batch never showed"
                }
                FileOverride::Overwrite => {
                    "written over the file that existed there, which the batch never showed"
                }
            };
            format!("{}: {what}", path(*file))
        }
        Override::EditedOver { file, change: id, at } => format!(
            "{} edited to replace the lines now at line {at}, which are not the batch's expected lines",
            change(*file, id)
        ),
        Override::Placed {
            file,
            change: id,
            from,
            to,
        } => format!(
            "{} placed by {} at line {to} instead of line {from}",
            change(*file, id),
            if reviewer { "you" } else { "the person" }
        ),
        Override::Relocated {
            file,
            change: id,
            from,
            to,
        } => format!(
            "{} moved from line {from} to line {to}, where its expected lines are",
            change(*file, id)
        ),
    }
}
