//! `undo`: restoring the files of the last committed batch from the undo history.
//!
//! Undo is allowed only when every file the batch wrote still has the hash it wrote (and every
//! file it deleted is still absent), and every saved original still has the hash it was saved
//! with; otherwise it names the files and does nothing. Each file is read once, and that one
//! reading is both what is compared and what the commit re-checks. The restoration is itself
//! one atomic commit through [`super::commit`], and it is not recorded in the history, so
//! undoing twice undoes the two last batches.

use super::identity::read_all;
use super::journal::EntryKind;
use super::{commit, history, open_root, CommitOptions, Committed};
use crate::content::Content;
use crate::error::{Error, Result};
use crate::failpoint::{hit, Step};
use crate::fs::read_beneath;
use crate::fs::Root;
use crate::git::index::{restore, Restored};
use crate::plan::{FileWrite, Plan, WriteKind};
use crate::state::{as_untrusted, seal, State};
use crate::workspace::Workspace;
use std::ffi::OsStr;
use std::path::Path;

/// What an undo restored.
pub struct Undone {
    /// The label the batch was committed with.
    pub label: String,
    pub committed: Committed,
    /// What became of git's index when `apply --stage` had staged this batch (`None` when it
    /// was not staged): what was put back and what was left, or why the note of what was
    /// staged could not be used.
    pub index: Option<std::result::Result<Restored, String>>,
    /// What a person should hear besides: entries of the history that are not records of
    /// this workspace's, and were ignored.
    pub warnings: Vec<String>,
}

/// Restores the last committed batch.
pub fn undo(workspace: &Workspace, options: CommitOptions) -> Result<Undone> {
    let root = open_root(workspace)?;
    let failed = |cause: std::io::Error| match (seal::as_foreign(&cause), as_untrusted(&cause)) {
        (Some(foreign), _) => Error::Foreign {
            record: history::history_dir(&workspace.state_dir()),
            why: foreign.to_string(),
        },
        (_, Some(untrusted)) => Error::Untrusted {
            path: untrusted.path.clone(),
            why: untrusted.why.clone(),
        },
        _ => Error::UndoFailed {
            path: history::history_dir(&workspace.state_dir()),
            cause: cause.to_string(),
            restored: false,
        },
    };
    let unfinished = |cause: std::io::Error| Error::UndoFailed {
        path: history::history_dir(&workspace.state_dir()),
        cause: cause.to_string(),
        restored: true,
    };
    let nothing = || Error::Usage {
        message: format!("nothing to undo under {}", workspace.root().display()),
        hint: Some(format!(
            "patchdeck keeps the last {} committed batches; none is recorded here",
            history::KEEP
        )),
    };
    let Some(state) = State::open(&root).map_err(failed)? else {
        return Err(nothing());
    };
    let (newest, warning) = history::newest(&state).map_err(failed)?;
    // A commit whose cleanup waits has no undo record yet: when it is the last commit,
    // undoing the one before it would not be undoing the last commit.
    let waiting = super::unfinished::ids(&state).pop();
    let newest_id = newest.as_ref().map(|(_, journal)| journal.id.as_str());
    if let Some(id) =
        waiting.filter(|id| newest_id.is_none_or(|newest| id.as_os_str() > OsStr::new(newest)))
    {
        return Err(Error::Usage {
            message: format!(
                "cannot undo: the cleanup of the last commit ({}) is not finished, so its undo record is not made yet; nothing was written",
                id.to_string_lossy()
            ),
            hint: Some(
                "fix what the warning says (a full disk, say), then run `patchdeck recover`, which finishes it"
                    .into(),
            ),
        });
    }
    let warnings: Vec<String> = warning.into_iter().collect();
    let Some((record, journal)) = newest else {
        return Err(match warnings.first() {
            Some(warning) => Error::Usage {
                message: format!("nothing to undo under {}", workspace.root().display()),
                hint: Some(warning.clone()),
            },
            None => nothing(),
        });
    };
    let mut changed = Vec::new();
    let mut damaged = Vec::new();
    let mut writes = Vec::new();
    let hashing = journal.hashing();
    for (n, entry) in journal.entries.iter().enumerate() {
        // Nothing was written to it: there is nothing to put back.
        if entry.kind == EntryKind::Unchanged {
            continue;
        }
        let now = read_beneath(&root, &entry.path).map_err(|e| Error::UndoUnreadable {
            path: entry.path.clone(),
            cause: e.to_string(),
        })?;
        let expected = match entry.kind {
            EntryKind::Delete => None,
            _ => entry.post_hash.as_deref(),
        };
        if now.as_ref().map(|s| hashing.hash(s.bytes())).as_deref() != expected {
            changed.push(entry.path.display().to_string());
            continue;
        }
        let (original, saved) = if entry.kind == EntryKind::Create {
            (Vec::new(), None)
        } else {
            let name = n.to_string();
            let bytes = read_all(&record, OsStr::new(&name)).map_err(failed)?;
            if Some(hashing.hash(&bytes)) != entry.pre_hash {
                damaged.push(entry.path.display().to_string());
                continue;
            }
            let stamp = record
                .stat(OsStr::new(&name))
                .map_err(failed)?
                .map(|st| st.stamp);
            (bytes, stamp)
        };
        writes.push(FileWrite {
            file: n,
            rel: entry.path.clone(),
            kind: match entry.kind {
                EntryKind::Modify => WriteKind::Modify,
                EntryKind::Create => WriteKind::Delete,
                EntryKind::Delete => WriteKind::Create,
                EntryKind::Unchanged => unreachable!("passed over above"),
            },
            before: now,
            after: Content::owned(original),
            changes: Vec::new(),
            ranges: Vec::new(),
            mode: saved.as_ref().map(|s| s.mode),
            owner: saved.as_ref().map(|s| (s.uid, s.gid)),
            executable: None,
            may_be_unchanged: false,
        });
    }
    if !changed.is_empty() {
        return Err(Error::UndoBlocked {
            label: journal.label.clone(),
            changed,
        });
    }
    if !damaged.is_empty() {
        return Err(Error::UndoDamaged {
            label: journal.label.clone(),
            files: damaged,
        });
    }
    let plan = Plan {
        writes,
        ..Plan::default()
    };
    let options = CommitOptions {
        keep_history: false,
        undoing: true,
        label: format!("undo of {}", journal.label),
        ..options
    };
    // Marked first: killed between restoring the files and forgetting the record, the next
    // recovery finds the mark and the files restored, and finishes the bookkeeping.
    history::mark_undoing(&record).map_err(failed)?;
    let committed = match commit(workspace, &plan, &options) {
        Ok(committed) => committed,
        Err(e) => {
            // Rolled back: the record stands as it was.
            if let Error::CommitFailed {
                rolled_back: true, ..
            } = e
            {
                let _ = history::unmark_undoing(&record);
            }
            return Err(e);
        }
    };
    // Folders the batch created for new files go too, when nothing else is in them.
    for entry in journal
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Create)
    {
        for created in entry.created_dirs.iter().rev() {
            remove_empty_dir(&root, created);
        }
    }
    hit(options.failpoint.as_ref(), Step::Forget).map_err(unfinished)?;
    // The index goes back before the record (and the note in it) is forgotten.
    let index = history::index_note(&record).map(|note| {
        let note = note?;
        if let Some(stray) = note
            .changes
            .iter()
            .find(|c| !journal.entries.iter().any(|e| e.path == c.path))
        {
            return Err(format!(
                "{}: it names {}, which this commit did not write",
                record.rel().join("index.json").display(),
                stray.path.display()
            ));
        }
        Ok(restore(workspace.root(), &note))
    });
    // The review the commit was made from comes back with its files (best effort: the undo
    // is done either way).
    let mut warnings = warnings;
    if let Err(e) = history::return_sessions(&state, &record) {
        warnings.push(format!(
            "the review session this commit was made from could not be put back ({e}): its decisions start over when the batch is opened again"
        ));
    }
    history::forget(&state, &journal.id).map_err(unfinished)?;
    Ok(Undone {
        label: journal.label,
        committed,
        index,
        warnings,
    })
}

fn remove_empty_dir(root: &Root, rel: &Path) {
    if let Ok((parent, name)) = root.parent_of(rel) {
        let _ = parent.remove_dir(name);
    }
}
