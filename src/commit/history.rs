//! The undo history: the originals of the last committed batches, kept under
//! `.patchdeck/history/<commit id>/` with the commit's journal, for `patchdeck undo`.
//!
//! Finishing a commit moves each original here instead of deleting it (a rename, or a durable
//! copy for an original with other names or on another file system) and prunes the history to
//! the newest [`KEEP`] records (the older are moved aside, and removed by a later command:
//! `retired.rs`). Archiving is idempotent, so a crash in the middle of it is finished by
//! the next recovery.
//!
//! A folder of the history is a record only when it is one of patchdeck's, made for this
//! workspace: named as a commit ID, a real folder of this user's, holding a `mark` sealed for
//! this workspace that names it, and its `journal.json` (sealed and validated like the live
//! journal before `undo` trusts it). Anything else there (empty folders, files, links, a copy
//! of another workspace's record) is ignored and named in a warning: never counted against the
//! records kept, never removed, never a reason to refuse a command.

use super::identity::identity_beneath;
use super::journal::{beside_of, is_commit_id, EntryKind, Journal, Originals};
use crate::fs::path::STATE_DIR;
use crate::fs::{Dir, Folders, Kind, Root};
use crate::git::index::Note;
use crate::state::seal::{self, Purpose};
use crate::state::{self, State};
use crate::workspace::Workspace;
use std::ffi::{OsStr, OsString};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// How many committed batches can be undone.
pub const KEEP: usize = 10;

const HISTORY: &str = state::HISTORY_DIR;
pub(super) const RECORD: &str = "journal.json";
/// The sealed mark that makes a folder of the history a record of this workspace: its body is
/// the record's commit ID.
pub(super) const MARK: &str = "mark";
/// What `apply --stage` did to git's index, beside the record (`git::index::Change`s).
const INDEX_NOTE: &str = "index.json";
/// The feedback kept with a commit, as Markdown and as JSON.
const FEEDBACK_MARKDOWN: &str = "feedback.md";
const FEEDBACK_JSON: &str = "feedback.json";
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

/// The history folder's records, oldest first, and the names in it that are not records.
struct Listing {
    history: Dir,
    records: Vec<OsString>,
    /// What is not a record, and why not.
    ignored: Vec<(OsString, &'static str)>,
}

impl Listing {
    /// The history of `state`; `None` when there is none.
    fn of(state: &State) -> io::Result<Option<Listing>> {
        let Some(history) = state.folder(HISTORY, false)? else {
            return Ok(None);
        };
        // A commit whose cleanup waits (`unfinished/`) has the start of its record here.
        let waiting = match state.folder(state::UNFINISHED_DIR, false) {
            Ok(Some(unfinished)) => unfinished.list()?,
            _ => Vec::new(),
        };
        let (mut records, mut ignored) = (Vec::new(), Vec::new());
        for name in history.list()? {
            match is_record(state, &history, &name)? {
                Ok(()) => records.push(name),
                Err(_) if waiting.contains(&name) => {}
                Err(why) => ignored.push((name, why)),
            }
        }
        Ok(Some(Listing {
            history,
            records,
            ignored,
        }))
    }

    fn newest(&self) -> io::Result<Option<Dir>> {
        self.records
            .last()
            .map(|id| self.history.subdir(id))
            .transpose()
    }

    /// What a person hears of what was ignored, when anything was.
    fn warning(&self) -> Option<String> {
        warn_ignored(&self.history, &self.ignored)
    }
}

/// The warning for names of the history folder `history` that are not records of this
/// workspace's.
fn warn_ignored(history: &Dir, ignored: &[(OsString, &str)]) -> Option<String> {
    const NAMED: usize = 3;
    let (first, more) = match ignored.len() {
        0 => return None,
        n => (&ignored[..n.min(NAMED)], n.saturating_sub(NAMED)),
    };
    let mut names: Vec<String> = first
        .iter()
        .map(|(n, why)| format!("{}: {why}", history.rel().join(n).display()))
        .collect();
    if more > 0 {
        names.push(format!("and {more} more"));
    }
    Some(format!(
        "ignored {} in {} that {} not an undo record patchdeck made in this workspace ({}): patchdeck neither counts nor removes {}; look, then remove {}",
        match ignored.len() {
            1 => "1 entry".to_owned(),
            n => format!("{n} entries"),
        },
        history.rel().display(),
        if ignored.len() == 1 { "is" } else { "are" },
        names.join(", "),
        if ignored.len() == 1 { "it" } else { "them" },
        if ignored.len() == 1 { "it" } else { "them" },
    ))
}

/// Whether `name` in `history` is a record of this workspace's (see the module's docs), or
/// why not; an error only when that cannot be told (the disk, the process's limits).
pub(super) fn is_record(
    state: &State,
    history: &Dir,
    name: &OsStr,
) -> io::Result<Result<(), &'static str>> {
    let not = |why: &'static str| Ok(Err(why));
    match history.stat(name)? {
        Some(st) if st.kind == Kind::Dir => {}
        Some(st) if st.kind == Kind::Symlink => return not("a symbolic link"),
        Some(st) if st.kind == Kind::File => return not("a file"),
        _ => return not("not a folder"),
    }
    let Some(id) = name.to_str().filter(|id| is_commit_id(id)) else {
        return not("not named as patchdeck names its records");
    };
    let record = match state.folder_in(history, name, false) {
        Ok(Some(record)) => record,
        Ok(None) => return not("not a folder"),
        Err(e) if state::as_untrusted(&e).is_some() => {
            return not("a folder patchdeck will not use (not yours alone, or not open to you)")
        }
        Err(e) => return Err(e),
    };
    let journal = matches!(record.stat(OsStr::new(RECORD))?, Some(st) if st.kind == Kind::File);
    match state.read_sealed(&record, OsStr::new(MARK), Purpose::RecordMark, state::MOST_MARK) {
        Ok(Some(mark)) if mark.body == id.as_bytes() && journal => Ok(Ok(())),
        Ok(Some(mark)) if mark.body == id.as_bytes() => not("no journal"),
        Ok(Some(_)) => not("a mark that names another record"),
        // Records the patchdeck before this one made had no mark.
        Ok(None) if journal => not(
            "an undo record of the patchdeck before this one, which did not seal records for their workspace: it can no longer be undone",
        ),
        Ok(None) => not("no seal of this workspace's"),
        Err(e) if seal::as_foreign(&e).is_some() => not("no seal of this workspace's"),
        Err(e) => Err(e),
    }
}

/// Moves a committed journal's originals into the history, with the journal beside them: each
/// by a rename into `history/ID/N` when it is on the same file system and has no other name,
/// else by a durable copy (a mount point inside the root, or an original whose other names
/// would change it later), after which its name beside the target is removed. Idempotent: an
/// original already archived is not archived again. Returns a warning when the history holds
/// what is not a record of this workspace's.
pub fn archive(
    journal: &Journal,
    root: &Root,
    state: &State,
    progress: &super::journal::Progress,
) -> io::Result<Option<String>> {
    let history = state.folder(HISTORY, true)?.expect("made");
    let id = OsStr::new(&journal.id);
    // A record folder made here holds nothing yet, so no name in it needs looking up; one an
    // interrupted archive left may hold some originals already. (Each lookup of a missing name
    // reads the whole folder, which grows to one name per file of the commit.)
    let fresh = history.stat(id)?.is_none();
    let dest = state.folder_in(&history, id, true)?.expect("made");
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
    state.write_sealed(
        &dest,
        OsStr::new(MARK),
        Purpose::RecordMark,
        id.as_encoded_bytes(),
        true,
    )?;
    let bytes = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
    state.write_sealed(&dest, OsStr::new(RECORD), Purpose::UndoRecord, &bytes, true)?;
    history.sync()?;
    prune(state, KEEP)
}

/// Removes the record of commit `id`: after it was undone, or what is left of it when archiving
/// it failed (its originals then cannot be kept, and a half-made record must not stand for
/// one).
pub fn forget(state: &State, id: &str) -> io::Result<()> {
    match state.folder(HISTORY, false)? {
        Some(history) => history.remove_tree(OsStr::new(id)),
        None => Ok(()),
    }
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
    let copied = (|| {
        io::copy(&mut from, &mut to)?;
        to.set_permissions(from.metadata()?.permissions())?;
        {
            use std::os::unix::fs::MetadataExt;
            let meta = from.metadata()?;
            let _ = std::os::unix::fs::fchown(&to, Some(meta.uid()), Some(meta.gid()));
        }
        crate::fs::platform::sync(&to)?;
        dest.rename(&tmp, dest, name)
    })();
    if copied.is_err() {
        // A full disk must not stay full of a copy that did not finish.
        let _ = dest.remove_file_if_exists(&tmp);
    }
    copied.map(|()| false)
}

/// The state folder and the record folder of the archived commit `id`.
fn record_of(workspace: &Workspace, id: &str) -> io::Result<(State, Dir)> {
    let root = Root::open(workspace.root())?;
    let none = || io::Error::new(ErrorKind::NotFound, "there is no undo history");
    let state = State::open(&root)?.ok_or_else(none)?;
    let history = state.folder(HISTORY, false)?.ok_or_else(none)?;
    let dir = history.subdir(OsStr::new(id))?;
    Ok((state, dir))
}

/// Keeps, beside the archived commit `id`, what `apply --stage` then did to git's index, so
/// that `undo` can put the index back too.
pub fn keep_index_note(workspace: &Workspace, id: &str, note: &Note) -> io::Result<()> {
    let (_, dir) = record_of(workspace, id)?;
    let bytes = serde_json::to_vec_pretty(note).map_err(io::Error::other)?;
    state::write_fresh(&dir, OsStr::new(INDEX_NOTE), &bytes, true)
}

/// Keeps, sealed, beside the archived commit `id`, the feedback of the review it was made
/// from (for `patchdeck feedback --last`).
pub fn keep_feedback(
    workspace: &Workspace,
    id: &str,
    markdown: &str,
    json: &str,
) -> io::Result<()> {
    let (state, dir) = record_of(workspace, id)?;
    for (name, body) in [(FEEDBACK_MARKDOWN, markdown), (FEEDBACK_JSON, json)] {
        state.write_sealed(
            &dir,
            OsStr::new(name),
            Purpose::Feedback,
            body.as_bytes(),
            true,
        )?;
    }
    Ok(())
}

/// The newest commit's label, and the feedback it kept (`None` when it kept none).
pub struct KeptFeedback {
    pub label: String,
    pub text: Option<String>,
}

/// The feedback kept with the newest commit (as JSON when `json`): `None` when there is no
/// commit. A warning comes with it when the history holds what is not this workspace's.
pub fn last_feedback(
    root: &Root,
    json: bool,
) -> io::Result<(Option<KeptFeedback>, Option<String>)> {
    let Some(state) = State::open(root)? else {
        return Ok((None, None));
    };
    let (newest, warning) = newest(&state)?;
    let Some((dir, journal)) = newest else {
        return Ok((None, warning));
    };
    let name = match json {
        true => FEEDBACK_JSON,
        false => FEEDBACK_MARKDOWN,
    };
    let kept = state.read_sealed_reading(
        &dir,
        OsStr::new(name),
        Purpose::Feedback,
        state::MOST_RECORD,
    )?;
    let text = kept
        .map(|record| String::from_utf8(record.body.to_vec()))
        .transpose()
        .map_err(|e| io::Error::new(ErrorKind::InvalidData, e))?;
    Ok((
        Some(KeptFeedback {
            label: journal.label,
            text,
        }),
        warning,
    ))
}

/// The index note kept beside an archived commit: `None` when there is none (the commit was
/// not staged), an error naming the note when it cannot be read.
pub fn index_note(record: &Dir) -> Option<Result<Note, String>> {
    let name = OsStr::new(INDEX_NOTE);
    let where_ = || record.rel().join(INDEX_NOTE).display().to_string();
    match state::read(record, name, state::MOST_RECORD) {
        Ok(None) => None,
        Err(e) => Some(Err(format!("{}: {e}", where_()))),
        Ok(Some(bytes)) => {
            Some(serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", where_())))
        }
    }
}

/// The sequence number the next commit's ID begins with: one past the newest record's. IDs
/// are `SEQ NANOS-PID` (16 + 16 hex digits), so they sort in the order the commits were made
/// whatever the clock did between them; IDs of the earlier form (32 hex digits of nanoseconds,
/// whose first 16 are zeros) read as 0 and sort first. Only records (and commits whose
/// cleanup waits) count: a folder named to look like one with a huge number moves nothing.
pub fn next_sequence(state: &State) -> io::Result<u64> {
    // A history patchdeck will not use (a link, say) holds no record: a commit is not
    // refused for it, and is not kept in it (its cleanup says why).
    let records = match Listing::of(state) {
        Ok(listing) => listing.map(|l| l.records).unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    // A commit whose cleanup waits will have its record later, under its own number.
    let waiting = super::unfinished::ids(state);
    let newest = records
        .iter()
        .chain(&waiting)
        .filter_map(|id| u64::from_str_radix(id.to_str()?.get(..16)?, 16).ok())
        .max()
        .unwrap_or(0);
    Ok(newest.saturating_add(1))
}

/// A record of the history: its folder and its validated journal.
pub type Record = (Dir, Journal);

/// The newest record: its folder and its validated journal (`None` when there is none), and a
/// warning when the history holds what is not a record of this workspace's.
pub fn newest(state: &State) -> io::Result<(Option<Record>, Option<String>)> {
    let Some(listing) = Listing::of(state)? else {
        return Ok((None, None));
    };
    let warning = listing.warning();
    let Some(dir) = listing.newest()? else {
        return Ok((None, warning));
    };
    let bytes = state
        .read_sealed(
            &dir,
            OsStr::new(RECORD),
            Purpose::UndoRecord,
            state::MOST_RECORD,
        )?
        .ok_or_else(|| io::Error::new(ErrorKind::NotFound, "the record's journal is gone"))?;
    let journal: Journal = serde_json::from_slice(&bytes.body).map_err(|e| {
        io::Error::new(
            ErrorKind::InvalidData,
            format!("{}: {e}", dir.rel().join(RECORD).display()),
        )
    })?;
    if OsStr::new(&journal.id) != dir.rel().file_name().unwrap_or_default() {
        return Err(io::Error::new(
            ErrorKind::InvalidData,
            format!("{} records another commit", dir.rel().display()),
        ));
    }
    journal.validate(Originals::In(&record_dir_of(&journal.id)))?;
    Ok((Some((dir, journal)), warning))
}

/// Puts the sessions kept in `record` (the review its commit was made from) back among the
/// sessions, replacing any made since: an undo brings back the decisions with the files.
pub fn return_sessions(state: &State, record: &Dir) -> io::Result<usize> {
    let kept: Vec<OsString> = record
        .list()?
        .into_iter()
        .filter(|name| {
            name.to_str()
                .is_some_and(|n| n.starts_with(state::KEPT_SESSION))
        })
        .collect();
    if kept.is_empty() {
        return Ok(0);
    }
    let sessions = state.folder(state::SESSIONS_DIR, true)?.expect("made");
    for name in &kept {
        let back = &name.to_str().expect("checked")[state::KEPT_SESSION.len()..];
        record.rename(name, &sessions, OsStr::new(back))?;
    }
    sessions.sync()?;
    Ok(kept.len())
}

/// Marks the record in `record` as being undone, durably, before its files are restored.
pub fn mark_undoing(record: &Dir) -> io::Result<()> {
    state::write_fresh(record, OsStr::new(UNDOING), b"", true)
}

/// Takes the mark off again: the undo wrote nothing.
pub fn unmark_undoing(record: &Dir) -> io::Result<()> {
    record.remove_file_if_exists(OsStr::new(UNDOING))?;
    record.sync()
}

/// Whether the newest record carries the mark of an undo that may have been interrupted.
pub fn undo_interrupted(state: &State) -> bool {
    let marked = || -> io::Result<bool> {
        let Some(record) = Listing::of(state)?
            .map(|l| l.newest())
            .transpose()?
            .flatten()
        else {
            return Ok(false);
        };
        Ok(record.stat(OsStr::new(UNDOING))?.is_some())
    };
    marked().unwrap_or(false)
}

/// Finishes an undo that was killed after it restored the files but before it forgot their
/// record: when the newest record is marked and every file it names is back as it was before
/// that commit, the record is forgotten (its label returned); when none of them was restored,
/// the mark is taken off; otherwise both are left for `undo` to name what changed.
pub fn finish_interrupted_undo(root: &Root, state: &State) -> io::Result<Option<String>> {
    if !undo_interrupted(state) {
        return Ok(None);
    }
    let (Some((record, journal)), _) = newest(state)? else {
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
        state.dir().sync()?;
        Ok(Some(journal.label))
    } else {
        if untouched {
            unmark_undoing(&record)?;
        }
        Ok(None)
    }
}

/// Moves all but the newest `keep` records aside, to be removed by a later command
/// (`retired.rs`); what is not a record is left, and named in the warning returned.
fn prune(state: &State, keep: usize) -> io::Result<Option<String>> {
    let Some(listing) = Listing::of(state)? else {
        return Ok(None);
    };
    let excess = listing.records.len().saturating_sub(keep);
    retire(state, &listing.history, &listing.records[..excess])?;
    let retired_junk = retired_junk(state)?;
    Ok(match (listing.warning(), retired_junk) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    })
}

/// Whether `name` in the folder of retired records is patchdeck's to remove (`retired.rs`): a
/// record sealed for this workspace, or a folder named as one holding no more than its mark and
/// journal (what a sweep stopped between its last two removals leaves).
pub(super) fn removable(state: &State, retired: &Dir, name: &OsStr) -> io::Result<bool> {
    if is_record(state, retired, name)?.is_ok() {
        return Ok(true);
    }
    if !name.to_str().is_some_and(is_commit_id) {
        return Ok(false);
    }
    let record = match state.folder_in(retired, name, false) {
        Ok(Some(record)) => record,
        Ok(None) => return Ok(false),
        Err(e) if state::as_untrusted(&e).is_some() => return Ok(false),
        Err(e) => return Err(e),
    };
    Ok(record
        .list()?
        .iter()
        .all(|n| n == OsStr::new(MARK) || n == OsStr::new(RECORD)))
}

/// The warning for what the folder of retired records holds that patchdeck did not put there
/// (it is never removed).
fn retired_junk(state: &State) -> io::Result<Option<String>> {
    let Some(retired) = state.folder(state::RETIRED_DIR, false)? else {
        return Ok(None);
    };
    let mut junk = Vec::new();
    for name in retired.list()? {
        if !removable(state, &retired, &name)? {
            junk.push((name, "not a record patchdeck retired here"));
        }
    }
    Ok(warn_ignored(&retired, &junk))
}

/// Moves the records `ids` of `history` into `retired/`, each by one rename.
fn retire(state: &State, history: &Dir, ids: &[OsString]) -> io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let retired = state.folder(state::RETIRED_DIR, true)?.expect("made");
    for id in ids {
        // A record's ID is never reused: what is at its name there is left by another program.
        if retired.stat(id)?.is_some() {
            state::set_aside(&retired, id)?;
        }
        history.rename(id, &retired, id)?;
    }
    retired.sync()?;
    history.sync()
}
