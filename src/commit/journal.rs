//! The commit journal: the durable record that lets an interrupted commit be rolled back or
//! finished, so a workspace always ends all-old or all-new.
//!
//! The journal (`.patchdeck/journal`) is written, fsynced, before any file is touched. It lists
//! every file with its staged temporary file, its backup and its hashes before and after. A
//! journal in state `prepared` is rolled back (every file restored from its backup, checked by
//! hash); one in state `committed` is finished (backups and temporaries removed). Rollback is
//! idempotent: running it twice is the same as once.

use crate::model::sha256_hex;
use crate::plan::WriteKind;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Prepared,
    Committed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Modify,
    Create,
    Delete,
}

impl From<WriteKind> for EntryKind {
    fn from(kind: WriteKind) -> EntryKind {
        match kind {
            WriteKind::Modify => EntryKind::Modify,
            WriteKind::Create => EntryKind::Create,
            WriteKind::Delete => EntryKind::Delete,
        }
    }
}

/// One file of a commit. Paths are relative to the workspace root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub path: PathBuf,
    pub kind: EntryKind,
    /// The temporary file the new content is staged in (none for a deletion).
    pub staged: Option<PathBuf>,
    /// Where the original is kept until the commit is marked (none for a creation).
    pub backup: Option<PathBuf>,
    pub pre_sha256: Option<String>,
    pub post_sha256: Option<String>,
    /// Folders the commit creates for this file, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    pub version: u32,
    pub id: String,
    pub pid: u32,
    pub state: State,
    /// Folder (relative to the root) holding this commit's backups.
    pub backup_dir: PathBuf,
    pub entries: Vec<Entry>,
    /// What was committed, for `undo` to name it.
    #[serde(default)]
    pub label: String,
    /// Whether the backups go to the undo history when the commit is finished.
    #[serde(default)]
    pub keep_history: bool,
}

/// What recovery did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Files restored to their original bytes.
    pub restored: Vec<PathBuf>,
    /// Files a rolled-back commit had created, removed.
    pub removed: Vec<PathBuf>,
    /// Whether the interrupted commit had been marked committed (and was finished, not undone).
    pub finished: bool,
    /// Whether there was an interrupted commit at all (a journal).
    pub had_journal: bool,
    /// The process whose lock was left behind (killed before its journal existed, or after it
    /// was removed) and was cleared.
    pub stale_lock: Option<u32>,
}

pub fn journal_path(state_dir: &Path) -> PathBuf {
    state_dir.join("journal")
}

impl Journal {
    /// Writes the journal atomically and durably.
    pub fn save(&self, state_dir: &Path) -> io::Result<()> {
        let path = journal_path(state_dir);
        let tmp = state_dir.join("journal.tmp");
        let bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        let mut file = File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, &path)?;
        sync_dir(state_dir)
    }

    /// Reads the journal, if there is one.
    pub fn load(state_dir: &Path) -> io::Result<Option<Journal>> {
        let path = journal_path(state_dir);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                io::Error::new(ErrorKind::InvalidData, format!("{}: {e}", path.display()))
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // A crash between writing journal.tmp and renaming it leaves only the
                // temporary: nothing had been touched yet.
                let _ = fs::remove_file(state_dir.join("journal.tmp"));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Undoes or finishes this commit, then removes the journal and its backups.
    pub fn recover(&self, root: &Path, state_dir: &Path) -> io::Result<Recovery> {
        let mut recovery = Recovery {
            finished: self.state == State::Committed,
            had_journal: true,
            ..Recovery::default()
        };
        for entry in &self.entries {
            if let Some(staged) = &entry.staged {
                remove_if_exists(&root.join(staged))?;
            }
        }
        if self.state == State::Prepared {
            for entry in self.entries.iter().rev() {
                rollback_entry(root, entry, &mut recovery)?;
            }
        }
        if self.state == State::Committed && self.keep_history {
            super::history::archive(self, root, state_dir)?;
        } else {
            let backups = root.join(&self.backup_dir);
            match fs::remove_dir_all(&backups) {
                Err(e) if e.kind() != ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        remove_if_exists(&journal_path(state_dir))?;
        sync_dir(state_dir)?;
        Ok(recovery)
    }
}

/// Restores one file to its state before the commit, checking hashes so that a partial backup
/// never replaces an intact original.
fn rollback_entry(root: &Path, entry: &Entry, recovery: &mut Recovery) -> io::Result<()> {
    let target = root.join(&entry.path);
    let current = hash_if_exists(&target)?;
    match entry.kind {
        EntryKind::Create => {
            if current.is_some() && current == entry.post_sha256 {
                fs::remove_file(&target)?;
                recovery.removed.push(entry.path.clone());
            }
            for dir in entry.created_dirs.iter().rev() {
                // Only empty folders are removed; anything else put there stays.
                let _ = fs::remove_dir(root.join(dir));
            }
            sync_parent(&target)?;
        }
        EntryKind::Modify | EntryKind::Delete => {
            let backup = entry.backup.as_ref().map(|b| root.join(b));
            if current.is_some() && current == entry.pre_sha256 {
                // Untouched; the backup (if any) is a link to the same bytes.
                if let Some(backup) = backup {
                    remove_if_exists(&backup)?;
                }
                return Ok(());
            }
            let backup = backup.ok_or_else(|| {
                io::Error::other(format!("{} has no backup", entry.path.display()))
            })?;
            let backup_sha = hash_if_exists(&backup)?;
            if backup_sha.is_none() || backup_sha != entry.pre_sha256 {
                return Err(io::Error::other(format!(
                    "{} was changed and its backup {} is missing or incomplete",
                    entry.path.display(),
                    backup.display()
                )));
            }
            fs::rename(&backup, &target)?;
            sync_parent(&target)?;
            recovery.restored.push(entry.path.clone());
        }
    }
    Ok(())
}

pub fn hash_if_exists(path: &Path) -> io::Result<Option<String>> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Some(sha256_hex(&fs::read(path)?))),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub fn remove_if_exists(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Makes a folder's entries (creations, renames, removals) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if parent.exists() => sync_dir(parent),
        _ => Ok(()),
    }
}
