//! `undo`: restoring the files of the last committed batch from the undo history.
//!
//! Undo is allowed only when every file the batch wrote still has the hash it wrote (and every
//! file it deleted is still absent), and every saved original still has the hash it was saved
//! with; otherwise it names the files and does nothing. Each file is read once, and that one
//! reading is both what is compared and what the commit re-checks. The restoration is itself
//! one atomic commit through [`super::commit`], and it is not recorded in the history, so
//! undoing twice undoes the two last batches.

use super::identity::read_all;
use super::journal::{Entry, EntryKind, Hashing, Journal};
use super::{commit, history, open_root, CommitOptions, Committed};
use crate::content::Content;
use crate::error::{Error, Result};
use crate::failpoint::{hit, Step};
use crate::fs::read_beneath;
use crate::fs::{Dir, Root};
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
    let failed = |cause| history_failed(workspace, cause);
    let unfinished = |cause| undo_unfinished(workspace, cause);
    let (state, record, journal, mut warnings) = find_record(workspace, &root)?;
    let writes = check_files(&root, &record, &journal, failed)?;
    let options = CommitOptions {
        keep_history: false,
        undoing: true,
        label: format!("undo of {}", journal.label),
        ..options
    };
    let committed = restore_files(workspace, &record, writes, &options, failed)?;
    remove_created_dirs(&root, &journal);
    hit(options.failpoint.as_ref(), Step::Forget).map_err(unfinished)?;
    // The index goes back before the record (and the note in it) is forgotten.
    let index = restore_index(workspace, &record, &journal);
    forget_record(&state, &record, &journal, &mut warnings).map_err(unfinished)?;
    Ok(Undone {
        label: journal.label,
        committed,
        index,
        warnings,
    })
}

/// The error of an undo that failed reading the undo history, before anything was restored:
/// a record sealed for someone else, state not to be trusted, or the failure itself.
fn history_failed(workspace: &Workspace, cause: std::io::Error) -> Error {
    match (seal::as_foreign(&cause), as_untrusted(&cause)) {
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
    }
}

/// The error of an undo that restored the files but could not forget the record: the
/// bookkeeping is what is left, for the next recovery.
fn undo_unfinished(workspace: &Workspace, cause: std::io::Error) -> Error {
    Error::UndoFailed {
        path: history::history_dir(&workspace.state_dir()),
        cause: cause.to_string(),
        restored: true,
    }
}

/// The error of an undo with no record to restore.
fn nothing_to_undo(workspace: &Workspace) -> Error {
    Error::Usage {
        message: format!("nothing to undo under {}", workspace.root().display()),
        hint: Some(format!(
            "patchdeck keeps the last {} committed batches; none is recorded here",
            history::KEEP
        )),
    }
}

/// Finds the newest record of the undo history: the state folder, the record's folder, its
/// journal, and the warnings about entries of the history that were ignored. Refused when
/// there is none, and when the last commit's cleanup waits: its undo record is not made yet,
/// and undoing the one before it would not be undoing the last commit.
fn find_record(workspace: &Workspace, root: &Root) -> Result<(State, Dir, Journal, Vec<String>)> {
    let failed = |cause| history_failed(workspace, cause);
    let Some(state) = State::open(root).map_err(failed)? else {
        return Err(nothing_to_undo(workspace));
    };
    let (newest, warning) = history::newest(&state).map_err(failed)?;
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
            None => nothing_to_undo(workspace),
        });
    };
    Ok((state, record, journal, warnings))
}

/// Why a file of the record cannot be restored.
enum Unrestorable {
    /// The file is not what the batch wrote (or no longer absent, for one it deleted).
    Changed,
    /// The saved original no longer has the hash it was saved with.
    Damaged,
}

/// Checks every file the batch wrote, each read once: the writes that restore them, or, when
/// any file changed since or any saved original is damaged, the error that names them all.
fn check_files(
    root: &Root,
    record: &Dir,
    journal: &Journal,
    failed: impl Fn(std::io::Error) -> Error + Copy,
) -> Result<Vec<FileWrite>> {
    let mut changed = Vec::new();
    let mut damaged = Vec::new();
    let mut writes = Vec::new();
    let hashing = journal.hashing();
    for (n, entry) in journal.entries.iter().enumerate() {
        // Nothing was written to it: there is nothing to put back.
        if entry.kind == EntryKind::Unchanged {
            continue;
        }
        match check_file(root, record, hashing, n, entry, failed)? {
            Ok(write) => writes.push(write),
            Err(Unrestorable::Changed) => changed.push(entry.path.display().to_string()),
            Err(Unrestorable::Damaged) => damaged.push(entry.path.display().to_string()),
        }
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
    Ok(writes)
}

/// Checks the file of the record's entry `n`: that it still has the hash the batch wrote (or
/// is still absent, for a deletion), and that its saved original (none for a file the batch
/// created) still has the hash it was saved with. The write that restores it, or why it
/// cannot be restored. The file as read now is the write's `before`, which the commit
/// re-checks; the original, read once, is its `after`.
fn check_file(
    root: &Root,
    record: &Dir,
    hashing: Hashing,
    n: usize,
    entry: &Entry,
    failed: impl Fn(std::io::Error) -> Error,
) -> Result<std::result::Result<FileWrite, Unrestorable>> {
    let now = match entry.kind == EntryKind::Delete && gone_for_a_folder(root, &entry.path) {
        true => None,
        false => read_beneath(root, &entry.path).map_err(|e| Error::UndoUnreadable {
            path: entry.path.clone(),
            cause: e.to_string(),
        })?,
    };
    let expected = match entry.kind {
        EntryKind::Delete => None,
        _ => entry.post_hash.as_deref(),
    };
    if now.as_ref().map(|s| hashing.hash(s.bytes())).as_deref() != expected {
        return Ok(Err(Unrestorable::Changed));
    }
    let (original, saved) = if entry.kind == EntryKind::Create {
        (Vec::new(), None)
    } else {
        let name = n.to_string();
        let bytes = read_all(record, OsStr::new(&name)).map_err(&failed)?;
        if Some(hashing.hash(&bytes)) != entry.pre_hash {
            return Ok(Err(Unrestorable::Damaged));
        }
        let stamp = record
            .stat(OsStr::new(&name))
            .map_err(&failed)?
            .map(|st| st.stamp);
        (bytes, stamp)
    };
    // The record's paths passed the lexical check when it was read (`Journal::validate`).
    let rel = crate::fs::RepoPath::from_record(&entry.path).map_err(&failed)?;
    Ok(Ok(FileWrite {
        file: n,
        rel,
        kind: match entry.kind {
            EntryKind::Modify => WriteKind::Modify,
            EntryKind::Create => WriteKind::Delete,
            EntryKind::Delete => WriteKind::Create,
            EntryKind::Unchanged => unreachable!("passed over by check_files"),
        },
        before: now,
        after: Content::owned(original),
        changes: Vec::new(),
        ranges: Vec::new(),
        mode: saved.as_ref().map(|s| s.mode),
        owner: saved.as_ref().map(|s| (s.uid, s.gid)),
        executable: None,
        may_be_unchanged: false,
    }))
}

/// Puts the originals back in one atomic commit, the record marked as being undone first:
/// killed between restoring the files and forgetting the record, the next recovery finds the
/// mark and the files restored, and finishes the bookkeeping. A commit rolled back takes the
/// mark off again, and the record stands as it was.
fn restore_files(
    workspace: &Workspace,
    record: &Dir,
    writes: Vec<FileWrite>,
    options: &CommitOptions,
    failed: impl Fn(std::io::Error) -> Error,
) -> Result<Committed> {
    let plan = Plan {
        writes,
        ..Plan::default()
    };
    history::mark_undoing(record).map_err(failed)?;
    commit(workspace, &plan, options).inspect_err(|e| {
        // Rolled back: the record stands as it was.
        if let Error::CommitFailed {
            rolled_back: true, ..
        } = e
        {
            let _ = history::unmark_undoing(record);
        }
    })
}

/// Removes the folders the batch created for new files, innermost first, each when nothing
/// else is in it.
fn remove_created_dirs(root: &Root, journal: &Journal) {
    for entry in journal
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Create)
    {
        for created in entry.created_dirs.iter().rev() {
            remove_empty_dir(root, created);
        }
    }
}

/// Puts git's index back as it was before `apply --stage` staged this batch, from the note
/// the record keeps (none when the batch was not staged). A note that names a file this
/// commit did not write is refused, and the index left alone.
fn restore_index(
    workspace: &Workspace,
    record: &Dir,
    journal: &Journal,
) -> Option<std::result::Result<Restored, String>> {
    history::index_note(record).map(|note| {
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
    })
}

/// Forgets the record once its files are restored. The review the commit was made from comes
/// back with its files first, best effort: the undo is done either way, and a review that
/// cannot be put back is said in `warnings`.
fn forget_record(
    state: &State,
    record: &Dir,
    journal: &Journal,
    warnings: &mut Vec<String>,
) -> std::io::Result<()> {
    if let Err(e) = history::return_sessions(state, record) {
        warnings.push(format!(
            "the review session this commit was made from could not be put back ({e}): its decisions start over when the batch is opened again"
        ));
    }
    history::forget(state, &journal.id)
}

/// Whether a file the batch deleted is still absent because a folder stands at its name, or a
/// file at a folder above it: a file that became a folder, or the reverse, whose undo the
/// commit makes (as it made the batch).
fn gone_for_a_folder(root: &Root, rel: &Path) -> bool {
    match root.stat(rel) {
        Ok(Some(st)) => st.kind == crate::fs::Kind::Dir,
        Ok(None) => false,
        Err(e) => e.kind() == std::io::ErrorKind::NotADirectory,
    }
}

fn remove_empty_dir(root: &Root, rel: &Path) {
    if let Ok((parent, name)) = root.parent_of(rel) {
        let _ = parent.remove_dir(name);
    }
}
