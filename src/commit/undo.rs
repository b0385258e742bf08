//! `undo`: restoring the files of the last committed batch from the undo history.
//!
//! Undo is allowed only when every file the batch wrote still has the hash it wrote (and every
//! file it deleted is still absent); otherwise it names the files changed since and does
//! nothing. The restoration is itself one atomic commit through [`super::commit`], and it is
//! not recorded in the history, so undoing twice undoes the two last batches.

use super::history;
use super::journal::{hash_if_exists, EntryKind};
use super::{commit, CommitOptions, Committed};
use crate::error::{Error, Result};
use crate::plan::{FileWrite, Plan, WriteKind};
use crate::workspace::{read_snapshot, Workspace};
use std::fs;
use std::os::unix::fs::MetadataExt;

/// What an undo restored.
pub struct Undone {
    /// The label the batch was committed with.
    pub label: String,
    pub committed: Committed,
}

/// Restores the last committed batch.
pub fn undo(workspace: &Workspace, options: CommitOptions) -> Result<Undone> {
    let state_dir = workspace.state_dir();
    let failed = |cause: std::io::Error| Error::CommitFailed {
        path: history::history_dir(&state_dir).display().to_string(),
        step: "reading the undo history".into(),
        cause: cause.to_string(),
        rolled_back: true,
    };
    let Some((dir, journal)) = history::newest(&state_dir).map_err(failed)? else {
        return Err(Error::Usage {
            message: format!("nothing to undo under {}", workspace.root().display()),
            hint: Some(format!(
                "patchdeck keeps the last {} committed batches; none is recorded here",
                history::KEEP
            )),
        });
    };
    let mut changed = Vec::new();
    let mut writes = Vec::new();
    for (n, entry) in journal.entries.iter().enumerate() {
        let abs = workspace.abs(&entry.path);
        let now = hash_if_exists(&abs).map_err(failed)?;
        let expected = match entry.kind {
            EntryKind::Delete => None,
            _ => entry.post_sha256.clone(),
        };
        if now != expected {
            changed.push(entry.path.display().to_string());
            continue;
        }
        let backup = entry
            .backup
            .as_ref()
            .map(|_| dir.join(n.to_string()))
            .filter(|_| entry.kind != EntryKind::Create);
        let original = match &backup {
            Some(path) => Some(fs::read(path).map_err(failed)?),
            None => None,
        };
        let mode = match &backup {
            Some(path) => Some(fs::metadata(path).map_err(failed)?.mode()),
            None => None,
        };
        let before = match entry.kind {
            EntryKind::Delete => None,
            _ => Some(read_snapshot(&abs).map_err(failed)?),
        };
        let kind = match entry.kind {
            EntryKind::Modify => WriteKind::Modify,
            EntryKind::Create => WriteKind::Delete,
            EntryKind::Delete => WriteKind::Create,
        };
        writes.push(FileWrite {
            file: n,
            rel: entry.path.clone(),
            kind,
            before,
            after: original.unwrap_or_default(),
            changes: Vec::new(),
            mode,
        });
    }
    if !changed.is_empty() {
        return Err(Error::UndoBlocked {
            label: journal.label.clone(),
            changed,
        });
    }
    let plan = Plan {
        writes,
        ..Plan::default()
    };
    let options = CommitOptions {
        keep_history: false,
        label: format!("undo of {}", journal.label),
        ..options
    };
    let committed = commit(workspace, &plan, &options)?;
    // Folders the batch created for new files go too, when nothing else is in them.
    for entry in journal
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Create)
    {
        for created in entry.created_dirs.iter().rev() {
            let _ = fs::remove_dir(workspace.abs(created));
        }
    }
    fs::remove_dir_all(&dir).map_err(failed)?;
    Ok(Undone {
        label: journal.label,
        committed,
    })
}
