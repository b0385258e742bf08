//! The calls both clients make: open a workspace, load and verify a batch, plan, commit.
//!
//! The CLI and the reviewer UI go through these functions and nothing else, so a batch applied
//! from either takes exactly the same path. Opening a workspace to write first recovers any
//! commit that was interrupted, as every writing command must; opening it to read (`check`,
//! `show`, `diff`, `--read-only`, `--dry-run`) writes nothing, and only says that an
//! interrupted commit is waiting.

pub use crate::commit::journal::Progress;
use crate::commit::journal::Recovery;
use crate::commit::{self, CommitOptions, Committed};
use crate::error::{Error, Result};
use crate::formats::{self, Input, LoadOptions};
use crate::model::Batch;
use crate::plan::{self, Plan};
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
    pub recovered: Option<Recovery>,
    /// Opened to read: the journal of an interrupted commit that is waiting for `recover`.
    pub interrupted: Option<PathBuf>,
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
    let (recovered, interrupted) = match access {
        Access::Write => (
            commit::recover_counted(&workspace, lock_wait, progress)?,
            None,
        ),
        Access::Read => (None, commit::pending(&workspace)),
    };
    Ok(Opened {
        workspace,
        recovered,
        interrupted,
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

/// [`load`] with every loading option (`-p`, the size limit).
pub fn load_with(workspace: &Workspace, input: &Input, options: &LoadOptions) -> Result<Checked> {
    let batch = formats::load_with(input, workspace, options)?;
    let verification = verify::verify(&batch, workspace);
    Ok(Checked {
        batch,
        verification,
    })
}

impl Checked {
    /// Verifies again against the files as they are now (after a reload).
    pub fn reverify(&mut self, workspace: &Workspace) {
        workspace.forget_reads();
        self.verification = verify::verify(&self.batch, workspace);
    }

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
}

/// Commits a plan atomically; see [`commit::commit`].
pub fn commit(workspace: &Workspace, plan: &Plan, options: &CommitOptions) -> Result<Committed> {
    commit::commit(workspace, plan, options)
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
    if let Some(pid) = recovery.stale_lock {
        lines.push(format!(
            "removed the workspace lock left by process {pid}, which is no longer running"
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
    for path in &recovery.removed {
        lines.push(format!(
            "  removed {} (created by the interrupted commit)",
            path.display()
        ));
    }
    lines.join("\n")
}
