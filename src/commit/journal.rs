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
use crate::fs::{Dir, Folders, Stat};
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
    /// Folders the commit creates for this file, outermost first. For a creation staged away
    /// from its folder ([`Entry::is_across`]) they are made as it is put in place, once the
    /// file a deletion moves out of the way has gone.
    pub created_dirs: Vec<PathBuf>,
    /// For a deletion moved aside away from its folder ([`Entry::is_across`]), the folders it
    /// leaves empty that the commit removes just after moving it, so that a file can be created
    /// where a folder was: outermost first, removed innermost first, made again by a rollback
    /// (version 4 only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed_dirs: Vec<PathBuf>,
    /// The permission bits of each of `removed_dirs`, in the same order, which a rollback
    /// gives the folders it makes again (version 4 only; none in a journal that predates them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed_dir_modes: Vec<u32>,
}

impl Entry {
    /// Whether this entry's staged or original name is not beside its target but in a folder
    /// above it that the commit does not change (version 4): a file becoming a folder, or the
    /// reverse, whose folder is made or removed while the commit puts files in place.
    pub fn is_across(&self) -> bool {
        let parent = |p: &Path| p.parent().map(Path::to_path_buf);
        [&self.staged, &self.backup]
            .into_iter()
            .flatten()
            .any(|name| parent(name) != parent(&self.path))
    }
}

/// The journal's format. Version 1 kept originals in a folder of patchdeck's own, which a mount
/// point inside the root could put on another file system; version 2 named contents by their
/// SHA-256 and had no `staging` state; version 3 names them by [`Checksum`]. Versions 2 and 3
/// are read (a journal or undo record left by the patchdeck before an upgrade still
/// recovers and undoes); version 3 is written. Version 4 is version 3 with entries that keep
/// their staged or original names in a folder above their target and folders removed by the
/// commit ([`Entry::is_across`], [`Entry::removed_dirs`]): written only by a commit that turns
/// a file into a folder or the reverse, so that a patchdeck before it refuses such a journal
/// by its version rather than misread it.
pub const VERSION: u32 = 3;

/// The version of a journal with entries [`Entry::is_across`].
pub const VERSION_ACROSS: u32 = 4;

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
            3 | VERSION_ACROSS => Some(Hashing::Checksum),
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
    pub(super) done: AtomicUsize,
    pub(super) total: AtomicUsize,
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
        let across = self.version == VERSION_ACROSS;
        for (n, entry) in self.entries.iter().enumerate() {
            let path = entry
                .path
                .to_str()
                .ok_or_else(|| bad("a path is not UTF-8".into()))?;
            RepoPath::parse(path).map_err(|p| bad(p.message))?;
            let staged_ok = match (entry.kind, &entry.staged) {
                (EntryKind::Delete | EntryKind::Unchanged, None) => true,
                (EntryKind::Delete | EntryKind::Unchanged, Some(_)) | (_, None) => false,
                (_, Some(staged)) => {
                    *staged == staged_name(&entry.path, &self.id, n)
                        || (across
                            && above(&entry.path, staged, &staged_name(&entry.path, &self.id, n)))
                }
            };
            let backup_ok = match (entry.kind, &entry.backup) {
                (EntryKind::Create | EntryKind::Unchanged, None) => true,
                (EntryKind::Create | EntryKind::Unchanged, Some(_)) | (_, None) => false,
                (_, Some(backup)) => match originals {
                    Originals::Beside => {
                        let beside = original_name(&entry.path, &self.id, n);
                        *backup == beside || (across && above(&entry.path, backup, &beside))
                    }
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
            // Folders removed: only by a deletion moved aside above them, each in the first,
            // which holds the file.
            let removed_ok = entry.removed_dirs.is_empty()
                || (entry.kind == EntryKind::Delete
                    && entry.is_across()
                    && entry.removed_dirs.iter().all(|d| {
                        d.to_str().is_some_and(|d| RepoPath::parse(d).is_ok())
                            && d.starts_with(&entry.removed_dirs[0])
                    })
                    && entry.path.starts_with(&entry.removed_dirs[0])
                    && entry.path != entry.removed_dirs[0]);
            // (In the undo history every original is away from its file.)
            let across_ok = matches!(originals, Originals::In(_))
                || !entry.is_across()
                || matches!(entry.kind, EntryKind::Create | EntryKind::Delete);
            let made_ok = made_ok && removed_ok && across_ok;
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
}

/// Whether `name` is `beside` (a name patchdeck gives beside the target `path`) moved up into
/// a folder above `path`'s own: where a commit that turns a file into a folder, or the
/// reverse, keeps it.
fn above(path: &Path, name: &Path, beside: &Path) -> bool {
    let folder = name.parent().unwrap_or(Path::new(""));
    name.file_name() == beside.file_name()
        && path
            .parent()
            .is_some_and(|p| p != folder && p.starts_with(folder))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::settle::{rollback_entry, unstage_entry, Recovery};
    use crate::fs::Root;

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
            removed_dirs: Vec::new(),
            removed_dir_modes: Vec::new(),
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
