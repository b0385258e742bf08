//! The calls both clients make: open a workspace, load and verify a batch, plan, commit.
//!
//! The CLI and the reviewer UI go through these functions and nothing else, so a batch applied
//! from either takes exactly the same path. Opening a workspace to write first recovers any
//! commit that was interrupted, as every writing command must; opening it to read (`check`,
//! `show`, `diff`, `--read-only`, `--dry-run`) writes nothing, and only says that an
//! interrupted commit is waiting.

use crate::commit::history::keep_index_note;
pub use crate::commit::journal::Progress;
use crate::commit::retired::Sweeper;
use crate::commit::settle::Recovery;
use crate::commit::{self, CommitOptions, Committed, NewContents};
use crate::error::{Error, Result};
use crate::formats::{self, Input, LoadOptions};
use crate::git::Staging;
use crate::model::Batch;
use crate::plan::Plan;
use crate::report::{Decided, Report};
use crate::state::State as StateFolder;
use crate::verify::{self, Checked, Verification};
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
    /// Opened to write: removing the records pruned from the undo history, on a thread of its
    /// own while the command works; waited for when this is dropped.
    pub sweeper: Sweeper,
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
    let (recovered, interrupted, warnings, sweeper) = match access {
        Access::Write => {
            let mut recovered = commit::recover_counted(&workspace, lock_wait, progress)?;
            let warnings = recovered
                .as_mut()
                .map(|r| std::mem::take(&mut r.warnings))
                .unwrap_or_default();
            let recovered = recovered.filter(Recovery::said_anything);
            // A state folder that cannot be opened now was reported by recovery.
            let sweeper = match StateFolder::open(workspace.beneath()) {
                Ok(Some(state)) => Sweeper::start(state),
                _ => Sweeper::idle(),
            };
            (recovered, None, warnings, sweeper)
        }
        Access::Read => {
            let (interrupted, warnings) = commit::pending(&workspace);
            (None, interrupted, warnings, Sweeper::idle())
        }
    };
    Ok(Opened {
        workspace,
        recovered,
        interrupted,
        warnings,
        sweeper,
    })
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
    // batch that cannot be read does not wait for it; a load that shows no notes does not ask.
    let root = workspace.root().to_path_buf();
    let status = options
        .git_status
        .then(|| std::thread::spawn(move || crate::git::status(&root)));
    tell(LoadStage::Reading);
    let batch = formats::load_with(input, workspace, options)?;
    tell(LoadStage::Verifying);
    let mut verification = verify::verify(&batch, workspace);
    if let Some(status) = status {
        tell(LoadStage::AskingGit);
        if let Some(status) = status.join().expect("git status does not panic") {
            crate::git::mark_uncommitted(&mut verification, &status);
        }
    }
    Ok(Checked {
        batch,
        verification,
    })
}

/// The batch verified again against the files as they are now (after a reload), as
/// [`load_with`] verified it.
pub fn verify_again(batch: &Batch, workspace: &Workspace) -> Verification {
    workspace.forget_reads();
    let mut verification = verify::verify(batch, workspace);
    mark_uncommitted(&mut verification, workspace);
    verification
}

/// Notes every target file git reports as changed (nothing outside a git work tree).
fn mark_uncommitted(verification: &mut Verification, workspace: &Workspace) {
    if let Some(status) = crate::git::status(workspace.root()) {
        crate::git::mark_uncommitted(verification, &status);
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

/// Keeps, with the commit `applied` made of `checked` under `decisions`, the feedback the
/// review decided (for a work tree's changes: what the person undid, why, and the lines put
/// back), for `patchdeck feedback --last` and an agent's hook; a warning when it cannot.
pub fn keep_feedback(
    workspace: &Workspace,
    checked: &Checked,
    decisions: &crate::review::Decisions,
    applied: &Applied,
) -> Option<String> {
    let id = applied.committed.history_id.as_deref()?;
    let feedback = crate::feedback::message(checked, decisions);
    crate::commit::history::keep_feedback(workspace, id, &feedback.to_markdown(), &feedback.to_json())
        .err()
        .map(|e| format!("cannot keep the feedback with the commit ({e}): `patchdeck feedback --last` will not have it"))
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
        let paths: Vec<_> = committed
            .written
            .iter()
            .map(|w| w.rel.to_path_buf())
            .collect();
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
