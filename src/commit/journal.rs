//! The commit journal: the durable record that lets an interrupted commit be rolled back or
//! finished, so a workspace always ends all-old or all-new.
//!
//! The journal (`.patchdeck/journal`) is written, fsynced, before any file is touched. It lists
//! every file with its staged temporary file, its backup and its hashes before and after. A
//! journal in state `prepared` is rolled back (every file patchdeck replaced is restored from
//! its backup, checked by hash); one in state `committed` is finished (backups and temporaries
//! removed, or kept for undo). Rollback is idempotent: running it twice is the same as once.
//!
//! A journal is read back only when its seal checks ([`super::seal`]: written by patchdeck for
//! this user on this machine, not brought by a clone or an archive), and only after
//! [`Journal::validate`] has held every path in it to the shapes patchdeck itself writes (a file path beneath the root, its staged name beside it, a
//! backup in this commit's own folder); every file operation then goes through [`beneath`],
//! which never follows a link. A journal planted in a cloned repository therefore cannot reach
//! outside the root or into `.git`.

use super::beneath::{Dir, Kind, Root};
use super::seal::{Key, Purpose};
use crate::model::sha256_hex;
use crate::plan::WriteKind;
use crate::workspace::{check_lexically, STATE_DIR};
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
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
    /// Files that another program changed while the commit was running: neither the bytes
    /// patchdeck found nor the ones it wrote. They are left as they are, never overwritten.
    pub left_alone: Vec<PathBuf>,
    /// Whether the interrupted commit had been marked committed (and was finished, not undone).
    pub finished: bool,
    /// Whether there was an interrupted commit at all (a journal).
    pub had_journal: bool,
    /// The process whose lock was left behind (killed while it held it) and was cleared.
    pub stale_lock: Option<u32>,
    /// The label of a batch whose undo was killed after restoring its files: its record,
    /// left behind, was forgotten.
    pub undo_finished: Option<String>,
}

pub const JOURNAL: &str = "journal";
const JOURNAL_TMP: &str = "journal.tmp";

pub fn journal_path(state_dir: &Path) -> PathBuf {
    state_dir.join(JOURNAL)
}

/// The folder (relative to the root) where a commit keeps its backups until it is finished.
pub fn backup_dir_of(id: &str) -> PathBuf {
    Path::new(STATE_DIR).join(format!("tx-{id}"))
}

/// How much of a target's name its staged name repeats: enough to see whose it is, short
/// enough that the staged name fits any file system's 255-byte limit whatever the target's.
const NAME_PREFIX: usize = 64;

/// `dir/.name.pd-ID-N.tmp`: beside its target, so the rename stays on one file system. A
/// name longer than [`NAME_PREFIX`] bytes is cut there (the ID and N keep it unique), so the
/// staged name is at most about 120 bytes and a commit, or its rollback, never fails on a name
/// patchdeck chose.
pub fn staged_name(rel: &Path, id: &str, n: usize) -> PathBuf {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let mut end = name.len().min(NAME_PREFIX);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    rel.with_file_name(format!(".{}.pd-{id}-{n}.tmp", &name[..end]))
}

impl Journal {
    /// Writes the journal atomically and durably into the state folder.
    pub fn save(&self, state: &Dir) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        let sealed = Key::mine()?.seal(Purpose::Journal, &bytes);
        write_durably(state, OsStr::new(JOURNAL_TMP), OsStr::new(JOURNAL), &sealed)
    }

    /// Reads and validates the journal, if there is one.
    pub fn load(state: &Dir) -> io::Result<Option<Journal>> {
        let bytes = match read_all(state, OsStr::new(JOURNAL)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // A crash between writing journal.tmp and renaming it leaves only the
                // temporary: nothing had been touched yet.
                state.remove_file_if_exists(OsStr::new(JOURNAL_TMP))?;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let what = state.rel().join(JOURNAL).display().to_string();
        let bytes = Key::mine()?.open(Purpose::Journal, &format!("the journal {what}"), &bytes)?;
        let journal: Journal = serde_json::from_slice(bytes).map_err(|e| {
            io::Error::new(
                ErrorKind::InvalidData,
                format!("{}: {e}", state.rel().join(JOURNAL).display()),
            )
        })?;
        journal.validate(&backup_dir_of(&journal.id))?;
        Ok(Some(journal))
    }

    /// Holds every path in the journal to the shapes patchdeck writes, with its backups in
    /// `backup_dir`; anything else means the journal was not written by patchdeck (or was
    /// damaged), and nothing is done with it.
    pub fn validate(&self, backup_dir: &Path) -> io::Result<()> {
        let bad = |why: String| {
            io::Error::new(
                ErrorKind::InvalidData,
                format!("the journal was not written by this version of patchdeck: {why}; nothing was done with it"),
            )
        };
        if self.version != 1 {
            return Err(bad(format!("version {}", self.version)));
        }
        let id_ok = self.id.split_once('-').is_some_and(|(nanos, pid)| {
            nanos.len() == 32
                && nanos.bytes().all(|b| b.is_ascii_hexdigit())
                && !pid.is_empty()
                && pid.bytes().all(|b| b.is_ascii_digit())
        });
        if !id_ok {
            return Err(bad(format!("commit id \"{}\"", self.id)));
        }
        if self.backup_dir != backup_dir {
            return Err(bad(format!("backup folder {}", self.backup_dir.display())));
        }
        for (n, entry) in self.entries.iter().enumerate() {
            let path = entry
                .path
                .to_str()
                .ok_or_else(|| bad("a path is not UTF-8".into()))?;
            check_lexically(path).map_err(|p| bad(p.message))?;
            let staged_ok = match (entry.kind, &entry.staged) {
                (EntryKind::Delete, None) => true,
                (EntryKind::Delete, Some(_)) | (_, None) => false,
                (_, Some(staged)) => *staged == staged_name(&entry.path, &self.id, n),
            };
            let backup_ok = match (entry.kind, &entry.backup) {
                (EntryKind::Create, None) => true,
                (EntryKind::Create, Some(_)) | (_, None) => false,
                (_, Some(backup)) => *backup == backup_dir.join(n.to_string()),
            };
            let dirs_ok = entry.created_dirs.iter().all(|d| {
                !d.as_os_str().is_empty() && entry.path.starts_with(d) && *d != entry.path
            });
            let hashes_ok = [&entry.pre_sha256, &entry.post_sha256]
                .iter()
                .all(|h| h.as_ref().is_none_or(|h| h.len() == 64));
            if !(staged_ok && backup_ok && dirs_ok && hashes_ok) {
                return Err(bad(format!("entry {n} ({path})")));
            }
        }
        Ok(())
    }

    /// Undoes or finishes this commit, then removes the journal and its backups.
    pub fn recover(&self, root: &Root, state: &Dir) -> io::Result<Recovery> {
        let mut recovery = Recovery {
            finished: self.state == State::Committed,
            had_journal: true,
            ..Recovery::default()
        };
        for entry in &self.entries {
            if let Some(staged) = &entry.staged {
                match root.parent_of(staged) {
                    Ok((dir, name)) => dir.remove_file_if_exists(name)?,
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        if self.state == State::Prepared {
            for entry in self.entries.iter().rev() {
                rollback_entry(root, entry, &mut recovery)?;
            }
        }
        if self.state == State::Committed && self.keep_history {
            super::history::archive(self, state)?;
        } else {
            let name = self.backup_dir.file_name().unwrap_or_default();
            state.remove_tree(name)?;
        }
        state.remove_file_if_exists(OsStr::new(JOURNAL))?;
        state.sync()?;
        Ok(recovery)
    }
}

/// Restores one file to its state before the commit, checking hashes so that a partial backup
/// never replaces an intact original, and a file another program changed meanwhile is never
/// overwritten.
fn rollback_entry(root: &Root, entry: &Entry, recovery: &mut Recovery) -> io::Result<()> {
    let current = hash_beneath(root, &entry.path)?;
    match entry.kind {
        EntryKind::Create => {
            match root.parent_of(&entry.path) {
                Ok((dir, name)) => {
                    if current.is_some() && current == entry.post_sha256 {
                        dir.remove_file(name)?;
                        recovery.removed.push(entry.path.clone());
                    } else if current.is_some() {
                        recovery.left_alone.push(entry.path.clone());
                    }
                    dir.sync()?;
                }
                // Its folder was never (or not wholly) created: nothing of this file exists,
                // but the folders above it that were made before the kill still must go.
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            for created in entry.created_dirs.iter().rev() {
                // Only empty folders are removed; anything else put there stays.
                if let Ok((parent, name)) = root.parent_of(created) {
                    let _ = parent.remove_dir(name);
                    let _ = parent.sync();
                }
            }
        }
        EntryKind::Modify | EntryKind::Delete => {
            let backup = entry.backup.as_deref();
            if current.is_some() && current == entry.pre_sha256 {
                // Untouched; the backup (if any) is a link to the same bytes.
                if let Some(backup) = backup {
                    match root.parent_of(backup) {
                        Ok((dir, name)) => dir.remove_file_if_exists(name)?,
                        // The backup folder was never made: there is nothing to remove.
                        Err(e) if e.kind() == ErrorKind::NotFound => {}
                        Err(e) => return Err(e),
                    }
                }
                return Ok(());
            }
            let ours = match entry.kind {
                EntryKind::Delete => current.is_none(),
                _ => current.is_some() && current == entry.post_sha256,
            };
            if !ours {
                recovery.left_alone.push(entry.path.clone());
                return Ok(());
            }
            let backup = backup.ok_or_else(|| {
                io::Error::other(format!("{} has no backup", entry.path.display()))
            })?;
            let backup_sha = hash_beneath(root, backup)?;
            if backup_sha.is_none() || backup_sha != entry.pre_sha256 {
                return Err(io::Error::other(format!(
                    "{} was changed and its backup {} is missing or incomplete",
                    entry.path.display(),
                    backup.display()
                )));
            }
            let (from_dir, from) = root.parent_of(backup)?;
            let (to_dir, to) = root.parent_of(&entry.path)?;
            from_dir.rename(from, &to_dir, to)?;
            to_dir.sync()?;
            recovery.restored.push(entry.path.clone());
        }
    }
    Ok(())
}

/// The SHA-256 of the regular file at `rel`, reached without following links; `None` when
/// there is no regular file there.
pub fn hash_beneath(root: &Root, rel: &Path) -> io::Result<Option<String>> {
    let (dir, name) = match root.parent_of(rel) {
        Ok(found) => found,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match dir.stat(name)? {
        Some(stat) if stat.kind == Kind::File => Ok(Some(sha256_hex(&read_all(&dir, name)?))),
        _ => Ok(None),
    }
}

/// Reads a whole regular file in `dir`.
pub fn read_all(dir: &Dir, name: &OsStr) -> io::Result<Vec<u8>> {
    crate::bounded::read_from(dir.open_file(name)?, crate::workspace::MAX_FILE_BYTES)
}

/// Writes `bytes` to `name` in `dir` through the temporary `tmp`, fsynced, then the folder.
pub fn write_durably(dir: &Dir, tmp: &OsStr, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    dir.remove_file_if_exists(tmp)?;
    let mut file = dir.create_new(tmp, 0o644)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    dir.rename(tmp, dir, name)?;
    dir.sync()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(entries: Vec<Entry>) -> Journal {
        let id = format!("{:032x}-42", 7);
        Journal {
            version: 1,
            backup_dir: backup_dir_of(&id),
            id,
            pid: 42,
            state: State::Prepared,
            entries,
            label: String::new(),
            keep_history: false,
        }
    }

    fn modify(path: &str, id: &str) -> Entry {
        Entry {
            path: path.into(),
            kind: EntryKind::Modify,
            staged: Some(staged_name(Path::new(path), id, 0)),
            backup: Some(backup_dir_of(id).join("0")),
            pre_sha256: Some("a".repeat(64)),
            post_sha256: Some("b".repeat(64)),
            created_dirs: Vec::new(),
        }
    }

    #[test]
    fn staged_names_stay_short_whatever_the_target() {
        let id = format!("{:032x}-4194304", 7);
        let long = format!("dir/{}.txt", "é".repeat(150));
        let staged = staged_name(Path::new(&long), &id, 123_456);
        let name = staged.file_name().unwrap().len();
        assert!(name <= 130, "{name} bytes");
        assert!(staged.starts_with("dir"));
        assert_eq!(
            staged_name(Path::new("src/app.py"), "x", 0),
            Path::new("src/.app.py.pd-x-0.tmp")
        );
    }

    #[test]
    fn a_journal_of_patchdecks_own_shape_is_accepted() {
        let id = format!("{:032x}-42", 7);
        let j = journal(vec![modify("src/app.py", &id)]);
        assert!(j.validate(&j.backup_dir).is_ok());
    }

    #[test]
    fn paths_that_leave_the_root_or_stray_from_the_shape_are_refused() {
        let id = format!("{:032x}-42", 7);
        let mut outside = modify("src/app.py", &id);
        outside.staged = Some("/tmp/victim".into());
        let mut climbing = modify("../victim.txt", &id);
        climbing.staged = Some(staged_name(Path::new("../victim.txt"), &id, 0));
        let mut git = modify(".git/config", &id);
        git.staged = Some(staged_name(Path::new(".git/config"), &id, 0));
        let mut backup = modify("src/app.py", &id);
        backup.backup = Some("../victim/tree".into());
        for entry in [outside, climbing, git, backup] {
            let j = journal(vec![entry.clone()]);
            let err = j.validate(&j.backup_dir).unwrap_err();
            assert!(
                err.to_string().contains("not written by"),
                "{entry:?}: {err}"
            );
        }
        let mut j = journal(Vec::new());
        j.backup_dir = "../victim".into();
        assert!(j.validate(&backup_dir_of(&j.id)).is_err());
    }
}
