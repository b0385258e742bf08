//! The calls both clients make: open a workspace, load and verify a batch, plan, commit.
//!
//! The CLI and the reviewer UI go through these functions and nothing else, so a batch applied
//! from either takes exactly the same path. Opening a workspace to write first recovers any
//! commit that was interrupted, as every writing command must; opening it to read (`check`,
//! `show`, `diff`, `--read-only`, `--dry-run`) writes nothing, and only says that an
//! interrupted commit is waiting.

use crate::commit::history::keep_index_note;
pub use crate::commit::journal::Progress;
use crate::commit::journal::Recovery;
use crate::commit::{self, CommitOptions, Committed, NewContents};
use crate::content::Content;
use crate::error::{Error, Result};
use crate::formats::{self, Input, LoadOptions};
use crate::fs::Snapshot;
use crate::git::Staging;
use crate::model::Batch;
use crate::plan::{self, FileWrite, Plan};
use crate::report::{Decided, Report};
use crate::review::Decisions;
use crate::verify::{self, Verification};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a command may do to the workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// It may write: an interrupted commit is recovered first.
    Write,
    /// It writes nothing, not even to finish an interrupted commit.
    Read,
}

/// A workspace, opened, with what recovery had to do first.
pub struct Opened {
    pub workspace: Workspace,
    /// What recovery did (its warnings are in `warnings`).
    pub recovered: Option<Recovery>,
    /// Opened to read: the journal of an interrupted commit that is waiting for `recover`.
    pub interrupted: Option<PathBuf>,
    /// What a person should hear about patchdeck's state folder: what in it was ignored as
    /// not this user's, made for this workspace.
    pub warnings: Vec<String>,
}

/// Opens the workspace at `root`; to write, it first recovers an interrupted commit if there
/// is one.
pub fn open(root: &Path, access: Access, lock_wait: Duration) -> Result<Opened> {
    open_counted(root, access, lock_wait, &Progress::default())
}

/// [`open`], counting in `progress` the files an interrupted commit's recovery has done (for a
/// progress line on another thread).
pub fn open_counted(
    root: &Path,
    access: Access,
    lock_wait: Duration,
    progress: &Progress,
) -> Result<Opened> {
    let workspace = Workspace::open(root).map_err(|e| Error::Root {
        root: root.to_path_buf(),
        message: e.to_string(),
    })?;
    let (recovered, interrupted, warnings) = match access {
        Access::Write => {
            let mut recovered = commit::recover_counted(&workspace, lock_wait, progress)?;
            let warnings = recovered
                .as_mut()
                .map(|r| std::mem::take(&mut r.warnings))
                .unwrap_or_default();
            let recovered = recovered.filter(Recovery::said_anything);
            (recovered, None, warnings)
        }
        Access::Read => {
            let (interrupted, warnings) = commit::pending(&workspace);
            (None, interrupted, warnings)
        }
    };
    Ok(Opened {
        workspace,
        recovered,
        interrupted,
        warnings,
    })
}

/// What a reading command says of an interrupted commit it left alone.
pub fn describe_interrupted(journal: &Path) -> String {
    format!(
        "an interrupted commit is waiting ({}): the files are read as it left them, and nothing was done about it; run `patchdeck recover` to finish it or roll it back",
        journal.display()
    )
}

/// A batch with its verification against the workspace.
pub struct Checked {
    pub batch: Batch,
    pub verification: Verification,
}

/// Parses an input (forcing `format` when given) and verifies it.
pub fn load(workspace: &Workspace, input: &Input, format: Option<&str>) -> Result<Checked> {
    load_with(workspace, input, &LoadOptions::format(format))
}

/// [`load`] with every loading option (`-p`, the size limit). Files git reports as changed
/// carry an `uncommitted_changes` note.
pub fn load_with(workspace: &Workspace, input: &Input, options: &LoadOptions) -> Result<Checked> {
    load_telling(workspace, input, options, |_| {})
}

/// How far [`load_telling`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadStage {
    /// Parsing the batch and placing its changes in the files.
    Reading,
    /// Checking every change against its file.
    Verifying,
    /// Waiting for `git status`.
    AskingGit,
}

/// [`load_with`], telling `tell` as it reaches each [`LoadStage`] (for the reviewer, which
/// loads a large batch behind its first screen).
pub fn load_telling(
    workspace: &Workspace,
    input: &Input,
    options: &LoadOptions,
    tell: impl Fn(LoadStage),
) -> Result<Checked> {
    // git reports its status while the batch is parsed and verified: it reads the index and
    // stats the work tree, independent of patchdeck's work, and starting it takes a while. A
    // batch that cannot be read does not wait for it.
    let root = workspace.root().to_path_buf();
    let status = std::thread::spawn(move || crate::git::status(&root));
    tell(LoadStage::Reading);
    let batch = formats::load_with(input, workspace, options)?;
    tell(LoadStage::Verifying);
    let mut verification = verify::verify(&batch, workspace);
    tell(LoadStage::AskingGit);
    if let Some(status) = status.join().expect("git status does not panic") {
        crate::git::mark_uncommitted(&mut verification, &status);
    }
    Ok(Checked {
        batch,
        verification,
    })
}

/// Verifies a batch again against the files as they are now (after a reload), as
/// [`load_with`] verified it.
pub fn reverify(checked: &mut Checked, workspace: &Workspace) {
    workspace.forget_reads();
    checked.verification = verify::verify(&checked.batch, workspace);
    mark_uncommitted(&mut checked.verification, workspace);
}

/// Notes every target file git reports as changed (nothing outside a git work tree).
fn mark_uncommitted(verification: &mut Verification, workspace: &Workspace) {
    if let Some(status) = crate::git::status(workspace.root()) {
        crate::git::mark_uncommitted(verification, &status);
    }
}

impl Checked {
    /// Plans the writes the decisions select.
    pub fn plan(&self, decisions: &Decisions) -> Plan {
        plan::plan(&self.batch, &self.verification, decisions)
    }

    /// What the decisions would write and what blocks it, without computing new contents.
    pub fn plan_blockers(&self, decisions: &Decisions) -> Plan {
        plan::plan_with(
            &self.batch,
            &self.verification,
            decisions,
            plan::Contents::Skipped,
        )
    }

    /// The new content of a write of a plan the decisions made, from `target`, its target's
    /// bytes (see [`plan::content_of`]): what a plan made without contents
    /// ([`Checked::plan_blockers`]) has the commit make as it stages each file.
    pub fn content_of(
        &self,
        decisions: &Decisions,
        write: &FileWrite,
        target: Option<&Snapshot>,
    ) -> Content {
        plan::content_of(
            &self.batch.files[write.file],
            &self.verification.files[write.file],
            decisions,
            write,
            target,
        )
    }
}

/// Commits a plan atomically; see [`commit::commit`].
pub fn commit(workspace: &Workspace, plan: &Plan, options: &CommitOptions) -> Result<Committed> {
    commit::commit(workspace, plan, options)
}

/// What an apply did besides writing: the commit, what staging the written files in git did,
/// and what the person should hear of it (files written but not staged, an index note that
/// could not be kept for `undo`).
pub struct Applied {
    pub committed: Committed,
    pub staging: Option<Staging>,
    pub warnings: Vec<String>,
}

impl Applied {
    /// The report of this apply, as `apply --json` prints it and the reviewer writes it.
    pub fn report<'a>(&'a self, checked: &'a Checked, decided: &'a Decided<'a>) -> Report<'a> {
        let mut report = Report::build(&checked.batch, &checked.verification, Some(decided));
        report.staging = self.staging.clone();
        report
    }
}

/// Applies a plan without blockers: commits it atomically, then, when `stage` asks, stages
/// the written files in git and keeps what that did to the index with the commit's history,
/// so that `undo` puts the index back too. Both clients apply through here.
pub fn apply(
    workspace: &Workspace,
    plan: &Plan,
    options: &CommitOptions,
    stage: bool,
) -> Result<Applied> {
    apply_with(workspace, plan, NewContents::Planned, options, stage)
}

/// [`apply`], taking each new content from `contents` (see [`commit::commit_with`]): the
/// command line commits a plan made without contents, each made as its file is staged, so
/// that it holds no file it has checked.
pub fn apply_with(
    workspace: &Workspace,
    plan: &Plan,
    contents: NewContents<'_>,
    options: &CommitOptions,
    stage: bool,
) -> Result<Applied> {
    let committed = commit::commit_with(workspace, plan, contents, options)?;
    let mut warnings = Vec::new();
    let staging = (stage && !committed.written.is_empty()).then(|| {
        let paths: Vec<_> = committed.written.iter().map(|w| w.rel.clone()).collect();
        crate::git::stage(workspace.root(), &paths)
    });
    if let (Some(staging), Some(id)) = (&staging, &committed.history_id) {
        let kept = match &staging.index {
            Some(note) if note.changes.is_empty() => Ok(()),
            Some(note) => keep_index_note(workspace, id, note).map_err(|e| e.to_string()),
            None if staging.staged.is_empty() => Ok(()),
            None => Err("git could not list the index entries".to_owned()),
        };
        if let Err(e) = kept {
            warnings.push(format!(
                "cannot keep what was staged for undo ({e}): `patchdeck undo` will restore the files but not git's index"
            ));
        }
    }
    // The files are written either way: a file left unstaged is worth a warning naming it, not
    // an error that would say the apply failed.
    if let Some(staging) = &staging {
        for file in &staging.not_staged {
            warnings.push(format!(
                "{} was written but not staged: {}",
                file.path.display(),
                file.reason
            ));
        }
        if let (Some(error), false) = (&staging.error, staging.not_staged.is_empty()) {
            warnings.push(format!("git said: {error}"));
        }
    }
    warnings.extend(committed.warnings.iter().cloned());
    for path in &committed.owner_not_kept {
        warnings.push(format!(
            "{} was written as yours: its owner and group could not be kept (only root may give a file to another user)",
            path.display()
        ));
    }
    Ok(Applied {
        committed,
        staging,
        warnings,
    })
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
            "  kept {}: another program's earlier content, which the commit had moved aside",
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
