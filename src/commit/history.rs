//! The undo history: the originals of the last committed batches, kept under
//! `.patchdeck/history/<commit id>/` with the commit's journal, for `patchdeck undo`.
//!
//! Finishing a commit moves each original here instead of deleting it (a rename, or a durable
//! copy for an original with other names or on another file system) and prunes the history to
//! the newest [`KEEP`] commits. Archiving is idempotent, so a crash in the middle of it is finished
//! by the next recovery. A recorded journal is sealed and validated like the live one before
//! `undo` trusts it.

use super::beneath::{Dir, Folders, Kind, Root};
use super::journal::{
    beside_of, identity_beneath, read_all, write_durably, EntryKind, Journal, Originals,
};
use super::seal::{Key, Purpose};
use crate::git::index::Note;
use crate::workspace::{Workspace, STATE_DIR};
use std::ffi::{OsStr, OsString};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// How many committed batches can be undone.
pub const KEEP: usize = 10;

const HISTORY: &str = "history";
const RECORD: &str = "journal.json";
/// What `apply --stage` did to git's index, beside the record (`git::index::Change`s).
const INDEX_NOTE: &str = "index.json";
/// Beside a record while `undo` restores it: a process killed between restoring the files
/// and forgetting the record leaves it, and the next recovery finishes the undo's bookkeeping.
const UNDOING: &str = "undoing";

/// Threads that move a commit's originals into its record.
const ARCHIVE_THREADS: usize = 4;

pub fn history_dir(state_dir: &Path) -> PathBuf {
    state_dir.join(HISTORY)
}

/// Where a commit's originals are kept once it is in the history (relative to the root).
pub fn record_dir_of(id: &str) -> PathBuf {
    Path::new(STATE_DIR).join(HISTORY).join(id)
}

/// Opens the history folder, creating it when `create` is set; `None` when there is none.
fn open(state: &Dir, create: bool) -> io::Result<Option<Dir>> {
    match state.subdir(OsStr::new(HISTORY)) {
        Ok(dir) => Ok(Some(dir)),
        Err(e) if e.kind() == ErrorKind::NotFound && create => {
            state.mkdir(OsStr::new(HISTORY))?;
            state.subdir(OsStr::new(HISTORY)).map(Some)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Moves a committed journal's originals into the history, with the journal beside them: each
/// by a rename into `history/ID/N` when it is on the same file system and has no other name,
/// else by a durable copy (a mount point inside the root, or an original whose other names
/// would change it later), after which its name beside the target is removed. Idempotent: an
/// original already archived is not archived again.
pub fn archive(
    journal: &Journal,
    root: &Root,
    state: &Dir,
    progress: &super::journal::Progress,
) -> io::Result<()> {
    let history = open(state, true)?.expect("created");
    let id = OsStr::new(&journal.id);
    // A record folder made here holds nothing yet, so no name in it needs looking up; one an
    // interrupted archive left may hold some originals already. (Each lookup of a missing name
    // reads the whole folder, which grows to one name per file of the commit.)
    let fresh = history.stat(id)?.is_none();
    if fresh {
        history.mkdir(id)?;
    }
    let dest = history.subdir(id)?;
    let record_dir = record_dir_of(&journal.id);
    let mut record = journal.clone();
    let folders = Folders::new(root);
    // Each file on its own: the moves all go into one folder, which takes them one at a time,
    // but finding each original and removing what is left beside its target run side by side.
    let kept: Vec<usize> = (0..journal.entries.len())
        .filter(|&n| journal.entries[n].backup.is_some())
        .collect();
    crate::parallel::try_each(&kept, ARCHIVE_THREADS, |&n| {
        let name = OsString::from(n.to_string());
        let beside = beside_of(&folders, &journal.entries[n]);
        let mut moved = None;
        if fresh || dest.stat(&name)?.is_none() {
            let original = beside
                .iter()
                .find_map(|(from, st)| st.filter(|st| st.kind == Kind::File).map(|st| (*from, st)));
            if let Some((from, st)) = original {
                let (dir, file) = folders.parent_of(from)?;
                if move_original(&dir, file, st.stamp.nlink > 1, &dest, &name)? {
                    moved = Some(from);
                }
            }
        }
        // What is left beside the target goes: a second name of the original, the new
        // content's staged name, or the original itself when it was copied.
        for (left, _) in beside.iter().filter(|(left, _)| Some(*left) != moved) {
            match folders.parent_of(left) {
                Ok((dir, file)) => dir.remove_file_if_exists(file)?,
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        progress.step();
        Ok(())
    })?;
    for &n in &kept {
        record.entries[n].backup = Some(record_dir.join(n.to_string()));
    }
    dest.sync()?;
    let bytes = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
    write_durably(
        &dest,
        OsStr::new("journal.json.tmp"),
        OsStr::new(RECORD),
        &Key::mine()?.seal(Purpose::UndoRecord, &bytes),
    )?;
    history.sync()?;
    prune(&history, KEEP)
}

/// Moves `file` in `dir` to `name` in `dest`: a rename where it can be one (`true`: `file` is
/// gone), else a durable copy under a temporary name, renamed into place (`false`: `file` is
/// still there). A file with other names (`shared`) is copied, so that a later write through
/// them cannot change what `undo` restores.
fn move_original(
    dir: &Dir,
    file: &OsStr,
    shared: bool,
    dest: &Dir,
    name: &OsStr,
) -> io::Result<bool> {
    if !shared {
        match dir.rename(file, dest, name) {
            Ok(()) => return Ok(true),
            Err(e) if e.kind() == ErrorKind::CrossesDevices => {}
            Err(e) => return Err(e),
        }
    }
    let mut tmp = name.to_os_string();
    tmp.push(".tmp");
    dest.remove_file_if_exists(&tmp)?;
    let mut from = dir.open_file(file)?;
    let mut to = dest.create_new(&tmp, 0o600)?;
    io::copy(&mut from, &mut to)?;
    to.set_permissions(from.metadata()?.permissions())?;
    {
        use std::os::unix::fs::MetadataExt;
        let meta = from.metadata()?;
        let _ = std::os::unix::fs::fchown(&to, Some(meta.uid()), Some(meta.gid()));
    }
    to.sync_all()?;
    dest.rename(&tmp, dest, name)?;
    Ok(false)
}

/// Keeps, beside the archived commit `id`, what `apply --stage` then did to git's index, so
/// that `undo` can put the index back too.
pub fn keep_index_note(workspace: &Workspace, id: &str, note: &Note) -> io::Result<()> {
    let root = Root::open(workspace.root())?;
    let dir = root.dir(&record_dir_of(id))?;
    let bytes = serde_json::to_vec_pretty(note).map_err(io::Error::other)?;
    write_durably(
        &dir,
        OsStr::new("index.json.tmp"),
        OsStr::new(INDEX_NOTE),
        &bytes,
    )
}

/// The index note kept beside an archived commit: `None` when there is none (the commit was
/// not staged), an error naming the note when it cannot be read.
pub fn index_note(record: &Dir) -> Option<Result<Note, String>> {
    let name = OsStr::new(INDEX_NOTE);
    let where_ = || record.rel().join(INDEX_NOTE).display().to_string();
    match read_all(record, name) {
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => Some(Err(format!("{}: {e}", where_()))),
        Ok(bytes) => Some(serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", where_()))),
    }
}

/// The sequence number the next commit's ID begins with: one past the newest archived
/// commit's. IDs are `SEQ NANOS-PID` (16 + 16 hex digits), so they sort in the order the
/// commits were made whatever the clock did between them; IDs of the earlier form (32 hex
/// digits of nanoseconds, whose first 16 are zeros) read as 0 and sort first.
pub fn next_sequence(state: &Dir) -> io::Result<u64> {
    let Some(history) = open(state, false)? else {
        return Ok(1);
    };
    let newest = history
        .list()?
        .iter()
        .filter_map(|id| u64::from_str_radix(id.to_str()?.get(..16)?, 16).ok())
        .max()
        .unwrap_or(0);
    Ok(newest.saturating_add(1))
}

/// The archived commits' ids, oldest first.
pub fn entries(state: &Dir) -> io::Result<Vec<OsString>> {
    let Some(history) = open(state, false)? else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for id in history.list()? {
        match history.stat(&id)? {
            Some(stat) if stat.kind == Kind::Dir => {}
            // Something patchdeck did not put there: said, never followed or passed over.
            Some(stat) if stat.kind == Kind::Symlink => {
                return Err(io::Error::other(format!(
                    "{} is a symbolic link, not a record patchdeck made (patchdeck never follows links in its own folder); remove it",
                    history.rel().join(&id).display()
                )))
            }
            _ => continue,
        }
        if history.subdir(&id)?.stat(OsStr::new(RECORD))?.is_some() {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The newest archived commit: its folder and its validated journal.
pub fn newest(state: &Dir) -> io::Result<Option<(Dir, Journal)>> {
    let Some(id) = entries(state)?.pop() else {
        return Ok(None);
    };
    let history = open(state, false)?.expect("listed");
    let dir = history.subdir(&id)?;
    let bytes = read_all(&dir, OsStr::new(RECORD))?;
    let what = format!("the undo record {}", dir.rel().join(RECORD).display());
    let bytes = Key::mine()?.open(Purpose::UndoRecord, &what, &bytes)?;
    let journal: Journal = serde_json::from_slice(bytes).map_err(|e| {
        io::Error::new(
            ErrorKind::InvalidData,
            format!("{}: {e}", dir.rel().join(RECORD).display()),
        )
    })?;
    if OsStr::new(&journal.id) != id {
        return Err(io::Error::new(
            ErrorKind::InvalidData,
            format!("{} records another commit", dir.rel().display()),
        ));
    }
    journal.validate(Originals::In(&record_dir_of(&journal.id)))?;
    Ok(Some((dir, journal)))
}

/// Marks the record in `record` as being undone, durably, before its files are restored.
pub fn mark_undoing(record: &Dir) -> io::Result<()> {
    write_durably(record, OsStr::new("undoing.tmp"), OsStr::new(UNDOING), b"")
}

/// Takes the mark off again: the undo wrote nothing.
pub fn unmark_undoing(record: &Dir) -> io::Result<()> {
    record.remove_file_if_exists(OsStr::new(UNDOING))?;
    record.sync()
}

/// Whether the newest record carries the mark of an undo that may have been interrupted.
pub fn undo_interrupted(state: &Dir) -> bool {
    let newest = || -> io::Result<bool> {
        let Some(id) = entries(state)?.pop() else {
            return Ok(false);
        };
        let history = open(state, false)?.expect("listed");
        Ok(history.subdir(&id)?.stat(OsStr::new(UNDOING))?.is_some())
    };
    newest().unwrap_or(false)
}

/// Finishes an undo that was killed after it restored the files but before it forgot their
/// record: when the newest record is marked and every file it names is back as it was before
/// that commit, the record is forgotten (its label returned); when none of them was restored,
/// the mark is taken off; otherwise both are left for `undo` to name what changed.
pub fn finish_interrupted_undo(root: &Root, state: &Dir) -> io::Result<Option<String>> {
    if !undo_interrupted(state) {
        return Ok(None);
    }
    let Some((record, journal)) = newest(state)? else {
        return Ok(None);
    };
    let (mut restored, mut untouched) = (true, true);
    let hashing = journal.hashing();
    for entry in journal
        .entries
        .iter()
        .filter(|e| e.kind != EntryKind::Unchanged)
    {
        // Each file as the commit found it, and as it wrote it: by hash, and by permissions
        // where the commit wrote those alone.
        let now = identity_beneath(root, &entry.path, hashing)?;
        let was = |hash: &Option<String>, mode: Option<u32>| match (&now, hash) {
            (None, None) => true,
            (Some(now), Some(_)) => now.is(hash, mode),
            _ => false,
        };
        let (before, after) = match entry.kind {
            EntryKind::Create => ((&None, None), (&entry.post_hash, entry.post_mode)),
            EntryKind::Delete => ((&entry.pre_hash, entry.pre_mode), (&None, None)),
            _ => (
                (&entry.pre_hash, entry.pre_mode),
                (&entry.post_hash, entry.post_mode),
            ),
        };
        restored &= was(before.0, before.1);
        untouched &= was(after.0, after.1);
    }
    if restored {
        forget(state, &journal.id)?;
        state.sync()?;
        Ok(Some(journal.label))
    } else {
        if untouched {
            unmark_undoing(&record)?;
        }
        Ok(None)
    }
}

/// Removes one archived commit (after it was undone).
pub fn forget(state: &Dir, id: &str) -> io::Result<()> {
    match open(state, false)? {
        Some(history) => history.remove_tree(OsStr::new(id)),
        None => Ok(()),
    }
}

/// Removes all but the newest `keep` archived commits.
fn prune(history: &Dir, keep: usize) -> io::Result<()> {
    let ids = history.list()?;
    let excess = ids.len().saturating_sub(keep);
    for id in &ids[..excess] {
        history.remove_tree(id)?;
    }
    Ok(())
}
