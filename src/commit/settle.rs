//! Settling an interrupted commit from its journal: rolling back one that was not committed
//! (each original found by its hash and put back, a file another program changed meanwhile
//! left as it is), or finishing one that was (its originals into the undo history, or
//! removed), and what recovery did, said.

use super::identity::{identity_in, Identity};
use super::journal::{remove_beside, Entry, EntryKind, Hashing, Journal, Progress, State, JOURNAL};
use crate::fs::{Folders, Root};
use crate::state::State as StateFolder;
use std::ffi::OsStr;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// What recovery did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Files restored to their original bytes.
    pub restored: Vec<PathBuf>,
    /// Files a rolled-back commit had created, removed.
    pub removed: Vec<PathBuf>,
    /// Files that another program changed while the commit was running: neither the bytes
    /// patchdeck found nor the ones it wrote. They are left as they are, never overwritten.
    pub left_alone: Vec<PathBuf>,
    /// Content the commit had moved aside, found beside a file another program changed: that
    /// program's earlier content (it wrote the file twice), or the original, whose only copy
    /// it is once that program's file holds the target. Kept where it is, never removed, for
    /// a person to look at.
    pub kept: Vec<PathBuf>,
    /// Whether the interrupted commit had been marked committed (and was finished, not undone).
    pub finished: bool,
    /// Whether there was an interrupted commit at all (a journal).
    pub had_journal: bool,
    /// The process whose lock was left behind (killed while it held it) and was cleared.
    pub stale_lock: Option<u32>,
    /// The label of a batch whose undo was killed after restoring its files: its record,
    /// left behind, was forgotten.
    pub undo_finished: Option<String>,
    /// How many earlier commits whose cleanup had been set aside were finished.
    pub finished_later: usize,
    /// What a person should hear that did not stop recovery: state patchdeck did not make
    /// and ignored, an undo record that could not be kept, a leftover that could not be
    /// removed.
    pub warnings: Vec<String>,
    /// A committed journal finished with its originals kept in the undo history.
    pub archived: bool,
}

impl Recovery {
    /// Whether recovery did or found anything worth saying.
    pub fn said_anything(&self) -> bool {
        self.had_journal
            || self.stale_lock.is_some()
            || self.undo_finished.is_some()
            || self.finished_later > 0
            || !self.warnings.is_empty()
    }
}

impl Journal {
    /// Undoes or finishes this commit, then removes the journal.
    pub fn recover(&self, root: &Root, state: &StateFolder) -> io::Result<Recovery> {
        self.recover_counted(root, state, &Progress::default())
    }

    /// Recovers from this journal, the live one (`.patchdeck/journal`), counting the files
    /// done in `progress` as it goes, and removes it. A committed journal whose cleanup fails
    /// (a full disk, a folder out of reach just now) is set aside for a later command to
    /// finish (in `.patchdeck/unfinished/`), with a warning: the commit stands, and no later command
    /// waits for it.
    pub fn recover_counted(
        &self,
        root: &Root,
        state: &StateFolder,
        progress: &Progress,
    ) -> io::Result<Recovery> {
        let recovery = match self.settle(root, state, progress) {
            Ok(recovery) => recovery,
            Err(e) if self.state == State::Committed => Recovery {
                finished: true,
                had_journal: true,
                warnings: super::unfinished::park(self, root, state, &e),
                ..Recovery::default()
            },
            Err(e) => return Err(e),
        };
        state.dir().remove_file_if_exists(OsStr::new(JOURNAL))?;
        state.dir().sync()?;
        Ok(recovery)
    }

    /// Undoes or finishes this commit's files, wherever its journal is kept (the caller
    /// removes it): one that was not committed is rolled back, one that was is finished (its
    /// originals into the undo history, or removed when they are not kept).
    pub fn settle(
        &self,
        root: &Root,
        state: &StateFolder,
        progress: &Progress,
    ) -> io::Result<Recovery> {
        let mut recovery = Recovery {
            finished: self.state == State::Committed,
            had_journal: true,
            ..Recovery::default()
        };
        progress.total.store(self.entries.len(), Ordering::Relaxed);
        match self.state {
            State::Staging | State::Prepared => {
                let failpoint = crate::failpoint::from_env();
                let hashing = self.hashing();
                for entry in self.entries.iter().rev() {
                    crate::failpoint::hit(failpoint.as_ref(), crate::failpoint::Step::Recover)?;
                    if self.state == State::Staging {
                        unstage_entry(root, entry)?;
                    } else {
                        rollback_entry(root, entry, hashing, &mut recovery)?;
                    }
                    progress.step();
                }
            }
            State::Committed if self.keep_history => {
                recovery
                    .warnings
                    .extend(super::history::archive(self, root, state, progress)?);
                recovery.archived = true;
            }
            State::Committed => {
                let folders = Folders::new(root);
                for entry in &self.entries {
                    remove_beside(&folders, entry)?;
                    progress.step();
                }
            }
        }
        if self.state == State::Committed {
            // As git does, a folder a deletion left empty goes too (best effort: the commit
            // stands either way).
            for entry in self.entries.iter().filter(|e| e.kind == EntryKind::Delete) {
                remove_empty_parents(root, &entry.path);
            }
        }
        Ok(recovery)
    }

    /// Finishes this committed journal without an undo record: what it left beside its files
    /// is removed, and each leftover that cannot be is named. The last resort when its cleanup
    /// can neither be done nor set aside for later.
    pub fn give_up_undo(&self, root: &Root, state: &StateFolder) -> Vec<String> {
        let _ = super::history::forget(state, &self.id);
        let folders = Folders::new(root);
        let mut warnings = Vec::new();
        for entry in &self.entries {
            if let Err(e) = remove_beside(&folders, entry) {
                warnings.push(format!(
                    "{}: what the commit left beside it could not be removed ({e}); remove the .{}.pd-{}-* file(s) by hand",
                    entry.path.display(),
                    entry.path.file_name().unwrap_or_default().to_string_lossy(),
                    self.id
                ));
            }
        }
        warnings
    }
}

/// Removes what staging left of one file: its staged content, and the folders a creation made
/// when nothing else is in them. Its target was never touched while staging.
pub(super) fn unstage_entry(root: &Root, entry: &Entry) -> io::Result<()> {
    if let Some(staged) = &entry.staged {
        match root.parent_of(staged) {
            Ok((dir, name)) => {
                dir.remove_file_if_exists(name)?;
                dir.sync()?;
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    remove_created_dirs(root, entry);
    Ok(())
}

/// Puts one file back as it was before the commit, wherever the commit had got to with it,
/// checking hashes: the original is found by its hash, never guessed, and a file another
/// program changed meanwhile is never overwritten.
pub(super) fn rollback_entry(
    root: &Root,
    entry: &Entry,
    hashing: Hashing,
    recovery: &mut Recovery,
) -> io::Result<()> {
    // Staging found nothing to write: nothing was, and the file is not even looked at.
    if entry.kind == EntryKind::Unchanged {
        return Ok(());
    }
    // A file becoming a folder or the reverse: its names are not all beside it.
    if entry.is_across() {
        let done = super::reshape::roll_back(root, entry, hashing)?;
        for (did, list) in [
            (done.restored, &mut recovery.restored),
            (done.removed, &mut recovery.removed),
            (done.left_alone, &mut recovery.left_alone),
        ] {
            if did {
                list.push(entry.path.clone());
            }
        }
        recovery.kept.extend(done.kept);
        return Ok(());
    }
    let (dir, name) = match root.parent_of(&entry.path) {
        Ok(found) => found,
        // Its folder was never (or not wholly) created: nothing of this file exists, but the
        // folders above it that were made before the kill still must go.
        Err(e) if e.kind() == ErrorKind::NotFound => {
            remove_created_dirs(root, entry);
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let beside_name = |p: &Option<PathBuf>| {
        p.as_deref()
            .and_then(Path::file_name)
            .map(OsStr::to_os_string)
    };
    let (staged, original) = (beside_name(&entry.staged), beside_name(&entry.backup));
    let current = identity_in(&dir, name, hashing)?;
    // The original and the new content, as recovery knows them: by hash, and by permissions
    // too where the hashes are the same (a write of the permissions alone).
    let (pre, post) = (
        (&entry.pre_hash, entry.pre_mode),
        (&entry.post_hash, entry.post_mode),
    );
    let is = |found: &Option<Identity>, (hash, mode): (&Option<String>, Option<u32>)| {
        found.as_ref().is_some_and(|found| found.is(hash, mode))
    };
    match entry.kind {
        EntryKind::Unchanged => unreachable!("returned above"),
        EntryKind::Create => {
            if is(&current, post) {
                dir.remove_file(name)?;
                recovery.removed.push(entry.path.clone());
            } else if current.is_some() {
                recovery.left_alone.push(entry.path.clone());
            }
            if let Some(staged) = &staged {
                dir.remove_file_if_exists(staged)?;
            }
            dir.sync()?;
            remove_created_dirs(root, entry);
        }
        EntryKind::Modify | EntryKind::Delete => {
            // A deletion's target is the commit's when nothing at all stands there (another
            // program's link or folder is no regular file, and is not the commit's either).
            let ours = match entry.kind {
                EntryKind::Delete => current.is_none() && dir.stat(name)?.is_none(),
                _ => is(&current, post),
            };
            // Whether the original stands at the target once this is done: only then is a
            // copy of it beside the target spare.
            let mut placed_back = true;
            if is(&current, pre) {
                // Untouched, or already put back.
            } else if ours {
                // The target holds what the commit put there (or, for a deletion, nothing):
                // the original goes back, from wherever it was kept. Found neither there nor
                // at the staged name (which, exchanged, holds what the target held), it is
                // lost, and that is an error, not a guess. Each name beside the target is
                // taken with its hash (none for what is not a regular file) and whether
                // anything is there at all.
                let from = [&original, &staged]
                    .into_iter()
                    .flatten()
                    .map(|n| Ok((n, identity_in(&dir, n, hashing)?, dir.stat(n)?.is_some())))
                    .collect::<io::Result<Vec<_>>>()?;
                let back = from.iter().find(|(_, h, _)| is(h, pre)).or_else(|| {
                    // Killed between exchanging and exchanging back a file another program
                    // had replaced: the staged name holds that program's file (a regular
                    // file, or a link, a folder or anything else it put there), which goes
                    // back to the target (and is named as left alone).
                    from.iter()
                        .find(|(n, h, there)| Some(*n) == staged.as_ref() && *there && !is(h, post))
                });
                let Some((back, hash, _)) = back else {
                    return Err(io::Error::other(format!(
                        "{} was changed and its original is no longer beside it ({})",
                        entry.path.display(),
                        entry.backup.as_deref().unwrap_or(Path::new("")).display()
                    )));
                };
                let theirs = !is(hash, pre);
                // Another program's entry may be a folder, which cannot be renamed over the
                // file now at the target; exchanged, the file goes to the staged name and is
                // removed below with what else is left.
                if !(theirs && dir.exchange(back, name)?) {
                    dir.rename(back, &dir, name)?;
                }
                if !theirs {
                    recovery.restored.push(entry.path.clone());
                } else {
                    placed_back = false;
                    recovery.left_alone.push(entry.path.clone());
                }
            } else {
                placed_back = false;
                recovery.left_alone.push(entry.path.clone());
            }
            // What is left beside it is the new content, or a second name or copy of the
            // original, and goes. Anything else is another program's (a file it wrote that
            // the commit moved aside, or what it put there): it is kept, and named. So is the
            // original, where another program's file holds the target: it is its only copy.
            for leftover in [&staged, &original].into_iter().flatten() {
                let found = identity_in(&dir, leftover, hashing)?;
                let spare = match found {
                    Some(_) => (placed_back && is(&found, pre)) || is(&found, post),
                    None => dir.stat(leftover)?.is_none(),
                };
                if spare {
                    dir.remove_file_if_exists(leftover)?;
                } else {
                    recovery.kept.push(dir.rel().join(leftover));
                }
            }
            dir.sync()?;
        }
    }
    Ok(())
}

/// Removes the folders above `rel` that are now empty, innermost first, up to the root.
fn remove_empty_parents(root: &Root, rel: &Path) {
    let mut dir = rel.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        let removed = root
            .parent_of(d)
            .and_then(|(parent, name)| parent.remove_dir(name));
        if removed.is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Removes the folders a creation made, innermost first, when nothing else is in them.
fn remove_created_dirs(root: &Root, entry: &Entry) {
    for created in entry.created_dirs.iter().rev() {
        if let Ok((parent, name)) = root.parent_of(created) {
            let _ = parent.remove_dir(name);
            let _ = parent.sync();
        }
    }
}
