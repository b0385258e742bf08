//! The commit journal: the durable record that lets an interrupted commit be rolled back or
//! finished, so a workspace always ends all-old or all-new.
//!
//! The journal (`.patchdeck/journal`) is written, fsynced, before any file is touched. It lists
//! every file with its staged name (the new content, beside its target), the name its original
//! is kept under (beside it too, so every move stays on the target's own file system, mount
//! points inside the root included) and its hashes before and after. A file's original leaves
//! its name only by an atomic exchange with the staged file, or by a move aside for a deletion;
//! so at every moment the original is at the target's name, at the staged name or at the
//! original's name. A journal in state `prepared` is rolled back (each original moved back to
//! its name, found by hash); one in state `committed` is finished (the originals removed, or
//! kept for undo). Rollback is idempotent: running it twice is the same as once.
//!
//! A journal is read back only when its seal opens ([`crate::state::seal`]: written by patchdeck
//! for this user in this workspace, not brought by a clone, an archive or a copy), and only after
//! [`Journal::validate`] has held every path in it to the shapes patchdeck itself writes (a
//! file path beneath the root, its staged and original names beside it); every file operation
//! then goes through [`crate::fs::beneath`], which never follows a link. A journal planted in a cloned
//! repository therefore cannot reach outside the root or into `.git`.

use crate::checksum::Checksum;
use crate::fs::RepoPath;
use crate::fs::{Dir, Folders, Kind, Root, Stat};
use crate::plan::WriteKind;
use crate::sha256::sha256_hex;
use crate::state::seal::{Origin, Purpose};
use crate::state::{self, State as StateFolder};
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Written before anything is staged: no target has been touched, and the new contents'
    /// checksums are not known yet (each is made as its file is staged). Rolled back by
    /// removing what was staged.
    Staging,
    /// Every new content staged and durable, its checksum recorded: targets may have been
    /// exchanged. Rolled back by putting every original back.
    Prepared,
    Committed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Modify,
    Create,
    Delete,
    /// A modification whose new content staging found to be the file as it is, bytes and
    /// permissions: nothing is written to it, nothing is kept of it.
    Unchanged,
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

/// One file of a commit. Paths are relative to the workspace root. Contents are named by a
/// hash of their bytes, of the kind the journal's version says ([`Hashing`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub path: PathBuf,
    pub kind: EntryKind,
    /// The temporary file the new content is staged in, beside the target (none for a
    /// deletion). Once exchanged with the target, it holds the original.
    pub staged: Option<PathBuf>,
    /// Where the original is kept when it is not at the staged name (none for a creation):
    /// beside the target while the commit runs (a deletion moves it there; a file system that
    /// cannot exchange links it there); in the undo history once archived.
    pub backup: Option<PathBuf>,
    /// The original's hash (none for a creation).
    #[serde(rename = "preHash", alias = "preSha256")]
    pub pre_hash: Option<String>,
    /// The new content's hash (none for a deletion, and none until staging has made it).
    #[serde(rename = "postHash", alias = "postSha256")]
    pub post_hash: Option<String>,
    /// For a write that leaves the bytes as they are and changes only the permissions (the
    /// two hashes the same), the original's permission bits and the new content's, as found
    /// on disk (version 3): recovery tells the two apart by them. None otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_mode: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_mode: Option<u32>,
    /// Folders the commit creates for this file, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

/// The journal's format. Version 1 kept originals in a folder of patchdeck's own, which a mount
/// point inside the root could put on another file system; version 2 named contents by their
/// SHA-256 and had no `staging` state; version 3 names them by [`Checksum`]. Versions 2 and 3
/// are read (a journal or undo record left by the patchdeck before an upgrade still
/// recovers and undoes); version 3 is written.
pub const VERSION: u32 = 3;

/// How a journal of some version names contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hashing {
    /// SHA-256, 64 hex digits (version 2).
    Sha256,
    /// [`Checksum`], 32 hex digits (version 3).
    Checksum,
}

impl Hashing {
    /// How journals of `version` name contents, if patchdeck reads that version.
    pub fn of(version: u32) -> Option<Hashing> {
        match version {
            2 => Some(Hashing::Sha256),
            3 => Some(Hashing::Checksum),
            _ => None,
        }
    }

    /// The name of `bytes`.
    pub fn hash(self, bytes: &[u8]) -> String {
        match self {
            Hashing::Sha256 => sha256_hex(bytes),
            Hashing::Checksum => Checksum::of(bytes).hex(),
        }
    }

    /// Whether `hash` is a name of this kind, as patchdeck writes it (lowercase hex).
    fn names(self, hash: &str) -> bool {
        match self {
            Hashing::Sha256 => {
                hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            }
            Hashing::Checksum => Checksum::parse(hash).is_some(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    pub version: u32,
    pub id: String,
    pub pid: u32,
    pub state: State,
    pub entries: Vec<Entry>,
    /// What was committed, for `undo` to name it.
    #[serde(default)]
    pub label: String,
    /// Whether the originals go to the undo history when the commit is finished.
    #[serde(default)]
    pub keep_history: bool,
}

/// Where a journal's originals are: beside their targets (a live journal), or in a record's
/// folder of the undo history.
#[derive(Clone, Copy, Debug)]
pub enum Originals<'a> {
    Beside,
    In(&'a Path),
}

/// How far a recovery has got, read by another thread for a progress line: the files done
/// of the interrupted commit's files (both 0 until its journal is read).
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    /// One more file done.
    pub(super) fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// (files done, files in all).
    pub fn get(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
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
    /// Another program's content found beside a file, at a name the commit had used (it wrote
    /// the file twice, and the commit had moved its first version aside): kept where it is,
    /// never removed, for a person to look at.
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

pub const JOURNAL: &str = "journal";
/// The name an earlier patchdeck wrote its journal under before renaming it into place.
const JOURNAL_TMP_BEFORE: &str = "journal.tmp";

/// The journals being written that a process killed before renaming them into place left in
/// the state folder (nothing had been touched yet).
pub fn leftovers(state: &Dir) -> io::Result<Vec<std::ffi::OsString>> {
    Ok(state
        .list()?
        .into_iter()
        .filter(|name| name == JOURNAL_TMP_BEFORE || state::is_temp_of(name, JOURNAL))
        .collect())
}

/// Whether `id` has the shape of the IDs patchdeck gives commits: 32 hex digits (a sequence
/// number and the time), a dash and a pid.
pub fn is_commit_id(id: &str) -> bool {
    id.split_once('-').is_some_and(|(nanos, pid)| {
        nanos.len() == 32
            && nanos.bytes().all(|b| b.is_ascii_hexdigit())
            && !pid.is_empty()
            && pid.len() <= 10
            && pid.bytes().all(|b| b.is_ascii_digit())
    })
}

pub fn journal_path(state_dir: &Path) -> PathBuf {
    state_dir.join(JOURNAL)
}

/// How much of a target's name its staged name repeats: enough to see whose it is, short
/// enough that the staged name fits any file system's 255-byte limit whatever the target's.
const NAME_PREFIX: usize = 64;

/// `dir/.name.pd-ID-N.tmp`: beside its target, so the rename stays on one file system. A
/// name longer than `NAME_PREFIX` bytes is cut there (the ID and N keep it unique), so the
/// staged name is at most about 120 bytes and a commit, or its rollback, never fails on a name
/// patchdeck chose.
pub fn staged_name(rel: &Path, id: &str, n: usize) -> PathBuf {
    beside(rel, id, n, "tmp")
}

/// `dir/.name.pd-ID-N.orig`: where a deletion moves its original, and where a file system that
/// cannot exchange keeps a link to it; beside the target, bounded like [`staged_name`].
pub fn original_name(rel: &Path, id: &str, n: usize) -> PathBuf {
    beside(rel, id, n, "orig")
}

fn beside(rel: &Path, id: &str, n: usize, ext: &str) -> PathBuf {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let mut end = name.len().min(NAME_PREFIX);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    rel.with_file_name(format!(".{}.pd-{id}-{n}.{ext}", &name[..end]))
}

impl Journal {
    /// How this journal names contents; its version was checked when it was read.
    pub fn hashing(&self) -> Hashing {
        Hashing::of(self.version).unwrap_or(Hashing::Checksum)
    }

    /// Writes the journal, sealed, atomically and durably into the state folder.
    pub fn save(&self, state: &StateFolder) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        state.write_sealed(
            state.dir(),
            OsStr::new(JOURNAL),
            Purpose::Journal,
            &bytes,
            true,
        )
    }

    /// Reads and validates the journal, if there is one, with where it was made;
    /// [`crate::state::seal::Foreign`] when its seal does not open for this user and this
    /// workspace.
    pub fn load(state: &StateFolder) -> io::Result<Option<(Journal, Origin)>> {
        Journal::load_from(state, state.dir(), OsStr::new(JOURNAL))
    }

    /// [`Journal::load`] of the journal kept as `name` in `dir`, a folder of the state folder.
    pub fn load_from(
        state: &StateFolder,
        dir: &Dir,
        name: &OsStr,
    ) -> io::Result<Option<(Journal, Origin)>> {
        let Some(record) = state.read_sealed(dir, name, Purpose::Journal, state::MOST_RECORD)?
        else {
            return Ok(None);
        };
        let journal: Journal = serde_json::from_slice(&record.body).map_err(|e| {
            io::Error::new(
                ErrorKind::InvalidData,
                format!("{}: {e}", dir.rel().join(name).display()),
            )
        })?;
        journal.validate(Originals::Beside)?;
        Ok(Some((journal, record.origin)))
    }

    /// Holds every path in the journal to the shapes patchdeck writes, with its originals
    /// where `originals` says; anything else means the journal was not written by patchdeck
    /// (or was damaged), and nothing is done with it.
    pub fn validate(&self, originals: Originals) -> io::Result<()> {
        let bad = |why: String| {
            io::Error::new(
                ErrorKind::InvalidData,
                format!("the journal was not written by this version of patchdeck: {why}; nothing was done with it"),
            )
        };
        let Some(hashing) = Hashing::of(self.version) else {
            return Err(bad(format!("version {}", self.version)));
        };
        if self.state == State::Staging && hashing != Hashing::Checksum {
            return Err(bad(format!(
                "a version {} journal while staging",
                self.version
            )));
        }
        if !is_commit_id(&self.id) {
            return Err(bad(format!("commit id \"{}\"", self.id)));
        }
        for (n, entry) in self.entries.iter().enumerate() {
            let path = entry
                .path
                .to_str()
                .ok_or_else(|| bad("a path is not UTF-8".into()))?;
            RepoPath::parse(path).map_err(|p| bad(p.message))?;
            let staged_ok = match (entry.kind, &entry.staged) {
                (EntryKind::Delete | EntryKind::Unchanged, None) => true,
                (EntryKind::Delete | EntryKind::Unchanged, Some(_)) | (_, None) => false,
                (_, Some(staged)) => *staged == staged_name(&entry.path, &self.id, n),
            };
            let backup_ok = match (entry.kind, &entry.backup) {
                (EntryKind::Create | EntryKind::Unchanged, None) => true,
                (EntryKind::Create | EntryKind::Unchanged, Some(_)) | (_, None) => false,
                (_, Some(backup)) => match originals {
                    Originals::Beside => *backup == original_name(&entry.path, &self.id, n),
                    Originals::In(dir) => *backup == dir.join(n.to_string()),
                },
            };
            let dirs_ok = entry.created_dirs.iter().all(|d| {
                !d.as_os_str().is_empty() && entry.path.starts_with(d) && *d != entry.path
            });
            let hashes_ok = [&entry.pre_hash, &entry.post_hash]
                .iter()
                .all(|h| h.as_deref().is_none_or(|h| hashing.names(h)));
            // What each kind records: an original's hash wherever there is an original, a
            // new content's wherever one is written (and, while staging, nowhere yet).
            let post_ok = match entry.kind {
                EntryKind::Delete | EntryKind::Unchanged => entry.post_hash.is_none(),
                _ if self.state == State::Staging => entry.post_hash.is_none(),
                _ => entry.post_hash.is_some(),
            };
            let pre_ok = (entry.kind == EntryKind::Create) == entry.pre_hash.is_none();
            // Kinds and fields version 2 never wrote; folders made only for a new file.
            let v3_ok = hashing == Hashing::Checksum
                || (entry.kind != EntryKind::Unchanged && entry.pre_mode.is_none());
            let made_ok = entry.kind == EntryKind::Create || entry.created_dirs.is_empty();
            let unchanged_ok = entry.kind != EntryKind::Unchanged || self.state != State::Staging;
            let modes_ok = match (entry.pre_mode, entry.post_mode) {
                (None, None) => true,
                (Some(pre), Some(post)) => {
                    entry.kind == EntryKind::Modify
                        && entry.pre_hash.is_some()
                        && entry.pre_hash == entry.post_hash
                        && pre <= 0o7777
                        && post <= 0o7777
                }
                _ => false,
            };
            let shape_ok = staged_ok && backup_ok && dirs_ok && hashes_ok && post_ok && pre_ok;
            if !(shape_ok && v3_ok && made_ok && unchanged_ok && modes_ok) {
                return Err(bad(format!("entry {n} ({path})")));
            }
        }
        Ok(())
    }

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

/// What a finished entry may still leave beside its target, the original's name first, then
/// the staged name: each name that holds something, with its stat (`None` when the stat
/// failed, so that removing it is still tried). The original is the first that holds a
/// regular file: at the original's name when it was moved or linked there, else at the staged
/// name (exchanged with the target).
pub fn beside_of<'e>(folders: &Folders, entry: &'e Entry) -> Vec<(&'e Path, Option<Stat>)> {
    [&entry.backup, &entry.staged]
        .into_iter()
        .flatten()
        .filter_map(|name| match folders.stat(name) {
            Ok(None) => None,
            Ok(found) => Some((name.as_path(), found)),
            Err(_) => Some((name.as_path(), None)),
        })
        .collect()
}

/// Removes what a finished entry leaves beside its target: the staged name and the
/// original's name, whichever still hold a file.
pub fn remove_beside(folders: &Folders, entry: &Entry) -> io::Result<()> {
    for name in [&entry.staged, &entry.backup].into_iter().flatten() {
        match folders.parent_of(name) {
            Ok((dir, file)) => dir.remove_file_if_exists(file)?,
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Removes what staging left of one file: its staged content, and the folders a creation made
/// when nothing else is in them. Its target was never touched while staging.
fn unstage_entry(root: &Root, entry: &Entry) -> io::Result<()> {
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
fn rollback_entry(
    root: &Root,
    entry: &Entry,
    hashing: Hashing,
    recovery: &mut Recovery,
) -> io::Result<()> {
    // Staging found nothing to write: nothing was, and the file is not even looked at.
    if entry.kind == EntryKind::Unchanged {
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
            let ours = match entry.kind {
                EntryKind::Delete => current.is_none(),
                _ => is(&current, post),
            };
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
                    recovery.left_alone.push(entry.path.clone());
                }
            } else {
                recovery.left_alone.push(entry.path.clone());
            }
            // What is left beside it is the new content, or a second name or copy of the
            // original, and goes. Anything else is another program's (a file it wrote that
            // the commit moved aside, or what it put there): it is kept, and named.
            for leftover in [&staged, &original].into_iter().flatten() {
                let found = identity_in(&dir, leftover, hashing)?;
                let spare = match found {
                    Some(_) => is(&found, pre) || is(&found, post),
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

/// What recovery knows a regular file by: the hash of its bytes (of the kind its journal's
/// version says) and its permission bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub hash: String,
    pub mode: u32,
}

impl Identity {
    /// Whether this is the content a journal names by `hash`, and by `mode` when it names one.
    pub fn is(&self, hash: &Option<String>, mode: Option<u32>) -> bool {
        hash.as_deref() == Some(self.hash.as_str()) && mode.is_none_or(|mode| mode == self.mode)
    }
}

/// The [`Identity`] of the regular file `name` in `dir`; `None` when there is none.
pub(super) fn identity_in(
    dir: &Dir,
    name: &OsStr,
    hashing: Hashing,
) -> io::Result<Option<Identity>> {
    use std::os::unix::fs::MetadataExt;
    let (file, meta) = match dir.stat(name)? {
        Some(stat) if stat.kind == Kind::File => dir.open_file_stat(name)?,
        _ => return Ok(None),
    };
    let mode = meta.mode() & 0o7777;
    let bytes = crate::fs::Unread::with(file, meta)?.finish_bytes()?;
    Ok(Some(Identity {
        hash: hashing.hash(&bytes),
        mode,
    }))
}

/// The [`Identity`] of the regular file at `rel`, reached without following links; `None`
/// when there is no regular file there.
pub fn identity_beneath(root: &Root, rel: &Path, hashing: Hashing) -> io::Result<Option<Identity>> {
    match root.parent_of(rel) {
        Ok((dir, name)) => identity_in(&dir, name, hashing),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a whole regular file in `dir` (its size asked once, so that it is read in as few
/// calls as it can be).
pub fn read_all(dir: &Dir, name: &OsStr) -> io::Result<Vec<u8>> {
    let (file, meta) = dir.open_file_stat(name)?;
    crate::fs::Unread::with(file, meta)?.finish_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(entries: Vec<Entry>) -> Journal {
        let id = format!("{:032x}-42", 7);
        Journal {
            version: VERSION,
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
            backup: Some(original_name(Path::new(path), id, 0)),
            pre_hash: Some("a".repeat(32)),
            post_hash: Some("b".repeat(32)),
            pre_mode: None,
            post_mode: None,
            created_dirs: Vec::new(),
        }
    }

    /// Killed between exchanging a file and exchanging it back: the target holds the new
    /// content, and the staged name what another program had put at the target just before,
    /// which may be a link or a folder (no hash to find it by). Recovery puts it back at the
    /// target as it is and names the file; nothing is left at the staged name.
    #[test]
    fn another_programs_entry_at_the_staged_name_goes_back_whatever_it_is() {
        use std::os::unix::fs::symlink;
        for theirs in ["file", "link", "folder"] {
            let dir = tempfile::tempdir().unwrap();
            let id = format!("{:032x}-42", 7);
            let mut entry = modify("app.py", &id);
            entry.pre_hash = Some(Checksum::of(b"old\n").hex());
            entry.post_hash = Some(Checksum::of(b"new\n").hex());
            let target = dir.path().join("app.py");
            std::fs::write(&target, b"new\n").unwrap();
            let staged = dir.path().join(entry.staged.as_ref().unwrap());
            match theirs {
                "file" => std::fs::write(&staged, b"their bytes\n").unwrap(),
                "link" => symlink("elsewhere", &staged).unwrap(),
                _ => {
                    std::fs::create_dir(&staged).unwrap();
                    std::fs::write(staged.join("inside"), b"x").unwrap();
                }
            }
            let root = Root::open(dir.path()).unwrap();
            let mut recovery = Recovery::default();
            rollback_entry(&root, &entry, Hashing::Checksum, &mut recovery).unwrap();
            assert_eq!(recovery.left_alone, [PathBuf::from("app.py")], "{theirs}");
            assert!(recovery.restored.is_empty(), "{theirs}");
            match theirs {
                "file" => assert_eq!(std::fs::read(&target).unwrap(), b"their bytes\n"),
                "link" => assert_eq!(std::fs::read_link(&target).unwrap(), Path::new("elsewhere")),
                _ => assert_eq!(std::fs::read(target.join("inside")).unwrap(), b"x"),
            }
            assert!(
                std::fs::symlink_metadata(&staged).is_err(),
                "{theirs}: something is left at the staged name"
            );
        }
    }

    /// A journal left by the patchdeck before an upgrade (version 2, contents named by SHA-256)
    /// is still read and rolled back: the original, at the staged name after its exchange, is
    /// found by its SHA-256 and put back.
    #[test]
    fn a_version_2_journal_rolls_back_by_sha256() {
        let dir = tempfile::tempdir().unwrap();
        let id = format!("{:032x}-42", 7);
        let mut entry = modify("app.py", &id);
        entry.pre_hash = Some(sha256_hex(b"old\n"));
        entry.post_hash = Some(sha256_hex(b"new\n"));
        let mut old = journal(vec![entry.clone()]);
        old.version = 2;
        assert!(old.validate(Originals::Beside).is_ok());
        assert_eq!(old.hashing(), Hashing::Sha256);
        std::fs::write(dir.path().join("app.py"), b"new\n").unwrap();
        std::fs::write(dir.path().join(entry.staged.as_ref().unwrap()), b"old\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let mut recovery = Recovery::default();
        rollback_entry(&root, &entry, old.hashing(), &mut recovery).unwrap();
        assert_eq!(recovery.restored, [PathBuf::from("app.py")]);
        assert_eq!(std::fs::read(dir.path().join("app.py")).unwrap(), b"old\n");
        assert!(!dir.path().join(entry.staged.as_ref().unwrap()).exists());
        // The same names under version 3 are not checksums: not patchdeck's shape.
        old.version = 3;
        assert!(old.validate(Originals::Beside).is_err());
    }

    /// What each state and kind records is held to what patchdeck writes: no new content's
    /// checksum while staging, and nothing beside a file staging found unchanged.
    #[test]
    fn staging_and_unchanged_entries_hold_to_their_shape() {
        let id = format!("{:032x}-42", 7);
        let mut staging = journal(vec![modify("src/app.py", &id)]);
        staging.state = State::Staging;
        assert!(staging.validate(Originals::Beside).is_err(), "a post hash");
        staging.entries[0].post_hash = None;
        assert!(staging.validate(Originals::Beside).is_ok());
        staging.version = 2;
        assert!(
            staging.validate(Originals::Beside).is_err(),
            "v2 never stages"
        );

        let mut unchanged = modify("src/app.py", &id);
        unchanged.kind = EntryKind::Unchanged;
        unchanged.post_hash = None;
        assert!(journal(vec![unchanged.clone()])
            .validate(Originals::Beside)
            .is_err());
        unchanged.staged = None;
        unchanged.backup = None;
        assert!(journal(vec![unchanged]).validate(Originals::Beside).is_ok());
    }

    /// Rolling back a journal written while staging removes what was staged and never reads or
    /// touches a target, whatever is there now.
    #[test]
    fn a_staging_journal_removes_what_was_staged_and_leaves_targets() {
        let dir = tempfile::tempdir().unwrap();
        let id = format!("{:032x}-42", 7);
        let mut entry = modify("app.py", &id);
        entry.post_hash = None;
        std::fs::write(dir.path().join("app.py"), b"edited by someone\n").unwrap();
        std::fs::write(dir.path().join(entry.staged.as_ref().unwrap()), b"new\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        unstage_entry(&root, &entry).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("app.py")).unwrap(),
            b"edited by someone\n"
        );
        assert!(!dir.path().join(entry.staged.as_ref().unwrap()).exists());
        unstage_entry(&root, &entry).unwrap();
    }

    /// `journal`, written as the commit writes it in a `.patchdeck` folder of `dir`, read back
    /// and recovered as the next command would.
    fn recovered(dir: &Path, journal: &Journal) -> Recovery {
        let root = Root::open(dir).unwrap();
        let state = StateFolder::ensure(&root).unwrap();
        journal.save(&state).unwrap();
        let (read, _) = Journal::load(&state).unwrap().expect("just saved");
        read.recover(&root, &state).unwrap()
    }

    /// Recovery of a journal written while staging goes by what staging can have done: it
    /// removes the staged files and never looks at a target, so a deletion whose target
    /// another program removed meanwhile is no error (rolling back a prepared journal, it
    /// would look for the original to put back).
    #[test]
    fn a_staging_journal_recovers_without_looking_at_targets() {
        let dir = tempfile::tempdir().unwrap();
        let id = format!("{:032x}-42", 7);
        let mut modified = modify("a.txt", &id);
        modified.post_hash = None;
        let mut deleted = modify("b.txt", &id);
        deleted.kind = EntryKind::Delete;
        deleted.staged = None;
        deleted.post_hash = None;
        deleted.backup = Some(original_name(Path::new("b.txt"), &id, 1));
        let mut staging = journal(vec![modified.clone(), deleted]);
        staging.state = State::Staging;
        assert!(staging.validate(Originals::Beside).is_ok());
        std::fs::write(dir.path().join("a.txt"), b"old\n").unwrap();
        std::fs::write(dir.path().join(modified.staged.as_ref().unwrap()), b"new\n").unwrap();
        let recovery = recovered(dir.path(), &staging);
        assert!(recovery.restored.is_empty() && recovery.left_alone.is_empty());
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"old\n");
        assert!(!dir.path().join(modified.staged.as_ref().unwrap()).exists());
        assert!(!dir.path().join(".patchdeck/journal").exists());
    }

    /// A file staging found unchanged was never written: rolling back does not read it, nor
    /// even walk to it (here its folder is a file, which a walk would fail on).
    #[test]
    fn an_unchanged_entry_is_not_even_looked_at_by_recovery() {
        let dir = tempfile::tempdir().unwrap();
        let id = format!("{:032x}-42", 7);
        std::fs::write(dir.path().join("notafolder"), b"x").unwrap();
        let mut unchanged = modify("notafolder/same.txt", &id);
        unchanged.kind = EntryKind::Unchanged;
        unchanged.staged = None;
        unchanged.backup = None;
        unchanged.post_hash = None;
        let prepared = journal(vec![unchanged]);
        assert!(prepared.validate(Originals::Beside).is_ok());
        let recovery = recovered(dir.path(), &prepared);
        assert!(recovery.restored.is_empty() && recovery.left_alone.is_empty());
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
        assert!(j.validate(Originals::Beside).is_ok());
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
            let err = j.validate(Originals::Beside).unwrap_err();
            assert!(
                err.to_string().contains("not written by"),
                "{entry:?}: {err}"
            );
        }
        let mut j = journal(vec![modify("src/app.py", &id)]);
        j.version = 1;
        assert!(j.validate(Originals::Beside).is_err());
    }
}
