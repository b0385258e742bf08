//! The undo history: the originals of the last committed batches, kept under
//! `.patchdeck/history/<commit id>/` with the commit's journal, for `patchdeck undo`.
//!
//! Finishing a commit moves its backup folder here instead of deleting it (a rename: the
//! backups are hard links to, or copies of, the original files) and prunes the history to the
//! newest [`KEEP`] commits. Archiving is idempotent, so a crash in the middle of it is finished
//! by the next recovery. A recorded journal is sealed and validated like the live one before
//! `undo` trusts it.

use super::beneath::{Dir, Root};
use super::journal::{read_all, write_durably, Journal};
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

/// Moves a committed journal's backups into the history, with the journal beside them.
pub fn archive(journal: &Journal, state: &Dir) -> io::Result<()> {
    let history = open(state, true)?.expect("created");
    let id = OsStr::new(&journal.id);
    let backups = journal.backup_dir.file_name().unwrap_or_default();
    if state.stat(backups)?.is_some() {
        state.rename(backups, &history, id)?;
    } else if history.stat(id)?.is_none() {
        history.mkdir(id)?;
    }
    let dest = history.subdir(id)?;
    let record_dir = record_dir_of(&journal.id);
    let mut record = Journal {
        backup_dir: record_dir.clone(),
        ..journal.clone()
    };
    for (n, entry) in record.entries.iter_mut().enumerate() {
        if entry.backup.is_some() {
            entry.backup = Some(record_dir.join(n.to_string()));
        }
    }
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
    let newest = entries(state)?
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
        if let Ok(dir) = history.subdir(&id) {
            if dir.stat(OsStr::new(RECORD))?.is_some() {
                ids.push(id);
            }
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
    journal.validate(&record_dir_of(&journal.id))?;
    Ok(Some((dir, journal)))
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
