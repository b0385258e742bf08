//! Recovery: what every command that writes does first, and what a command that only reads
//! says instead. An interrupted commit's journal is rolled back (before its mark) or finished
//! (after); commits whose cleanup was set aside are finished; an undo killed after restoring
//! its files has its record forgotten; a lock left by a dead process is cleared.
//!
//! State patchdeck did not make, or made for another workspace, is never acted on and never
//! stops a command: a `.patchdeck` that is a link or open to others, a journal whose seal does
//! not open (set aside once, as `journal.ignored`), something at the lock's name that is not a
//! lock, junk in the history. Each is said in the recovery's warnings.

use super::journal::{self, Journal};
use super::settle::Recovery;
use super::{history, open_root, unfinished};
use crate::error::{Error, Result};
use crate::fs::path::STATE_DIR;
use crate::fs::{Kind, Root};
use crate::state::lock::Lock;
use crate::state::seal::{as_foreign, Origin};
use crate::state::{as_untrusted, State as StateFolder};
use crate::workspace::Workspace;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Rolls back or finishes an interrupted commit, if a journal says there was one.
pub fn recover(workspace: &Workspace, lock_wait: Duration) -> Result<Option<Recovery>> {
    recover_counted(workspace, lock_wait, &journal::Progress::default())
}

/// [`recover`], counting the files it has put back or finished in `progress`. State that is
/// not this user's, made for this workspace (a `.patchdeck` that is a link or open to others,
/// a journal sealed elsewhere, junk in the history) is ignored, and said in the recovery's
/// warnings: it never stops the command.
pub fn recover_counted(
    workspace: &Workspace,
    lock_wait: Duration,
    progress: &journal::Progress,
) -> Result<Option<Recovery>> {
    let root = open_root(workspace)?;
    let state = match StateFolder::open(&root) {
        Ok(Some(state)) => state,
        Ok(None) => return Ok(None),
        Err(e) if as_untrusted(&e).is_some() => return Ok(Some(ignored_state(&e))),
        Err(e) => return Err(recovery_failed(workspace, e)),
    };
    let dir = state.dir();
    let journal = dir
        .stat(OsStr::new(journal::JOURNAL))
        .map_err(|e| recovery_failed(workspace, e))?;
    let leftover = journal::leftovers(dir).is_ok_and(|names| !names.is_empty());
    let waiting = journal.is_some()
        || leftover
        || history::undo_interrupted(&state)
        || unfinished::any(&state);
    if !waiting {
        // No interrupted commit; the lock of a process that died holding it may be left.
        let mut recovery = Recovery::default();
        if dir.stat(OsStr::new("lock")).ok().flatten().is_some() {
            if let Ok(lock) = Lock::acquire(dir, Duration::ZERO) {
                recovery.stale_lock = lock.took_over_from;
                recovery
                    .warnings
                    .extend(lock.removed_foreign.iter().map(removed_lock));
            }
        }
        return Ok(recovery.said_anything().then_some(recovery));
    }
    let lock = Lock::acquire(dir, lock_wait)?;
    let recovered = recover_locked(workspace, &root, &state, Finish::All, progress)?;
    let mut recovery = recovered.unwrap_or_default();
    recovery.stale_lock = lock.took_over_from;
    recovery
        .warnings
        .splice(0..0, lock.removed_foreign.iter().map(removed_lock));
    Ok(recovery.said_anything().then_some(recovery))
}

/// What a command that only reads finds of an interrupted commit, without acting on it: the
/// journal of one that is waiting (sealed by this user for this workspace), and warnings of
/// state it would ignore.
pub fn pending(workspace: &Workspace) -> (Option<PathBuf>, Vec<String>) {
    let Ok(root) = open_root(workspace) else {
        return (None, Vec::new());
    };
    let state = match StateFolder::open(&root) {
        Ok(Some(state)) => state,
        Ok(None) => return (None, Vec::new()),
        Err(e) if as_untrusted(&e).is_some() => return (None, ignored_state(&e).warnings),
        Err(_) => return (None, Vec::new()),
    };
    let name = OsStr::new(journal::JOURNAL);
    match state.dir().stat(name) {
        Ok(Some(stat)) if stat.kind != Kind::File => {
            return (
                None,
                vec![ignored_journal(&not_a_file(&state, stat.kind), false)],
            )
        }
        Ok(Some(_)) => {}
        _ => return (None, Vec::new()),
    }
    let purpose = crate::state::seal::Purpose::Journal;
    match state.read_sealed_reading(state.dir(), name, purpose, crate::state::MOST_RECORD) {
        Ok(Some(_)) => (
            Some(journal::journal_path(&workspace.state_dir())),
            Vec::new(),
        ),
        Ok(None) => (None, Vec::new()),
        Err(e) if as_foreign(&e).is_some() => (None, vec![ignored_journal(&e, false)]),
        // Unreadable: a command that writes says what is wrong with it.
        Err(_) => (
            Some(journal::journal_path(&workspace.state_dir())),
            Vec::new(),
        ),
    }
}

/// The warning for a state folder patchdeck will not use.
fn ignored_state(error: &io::Error) -> Recovery {
    Recovery {
        warnings: vec![format!(
            "{error}; until then patchdeck ignores it: no interrupted commit is looked for there, and nothing can be committed"
        )],
        ..Recovery::default()
    }
}

/// Where a journal whose seal does not open is set aside by the first command that writes
/// (see [`crate::state::set_aside`]).
const JOURNAL_IGNORED: &str = "journal.ignored";

/// The live journal, when there is one; [`crate::state::seal::Foreign`] when it is not one of
/// this user's for this workspace, or not even a file (a folder, a link, a FIFO at its name).
fn load_journal(state: &StateFolder) -> io::Result<Option<(Journal, Origin)>> {
    let name = OsStr::new(journal::JOURNAL);
    match state.dir().stat(name)? {
        Some(stat) if stat.kind != Kind::File => Err(not_a_file(state, stat.kind)),
        _ => Journal::load(state),
    }
}

/// What a person hears of a journal of this user's recovered though it was sealed elsewhere
/// than this workspace as it is now.
fn said_of(origin: &Origin) -> Option<String> {
    match origin {
        Origin::Here => None,
        Origin::Moved { from } => Some(format!(
            "the interrupted commit was made when this workspace was at {}; it is the same folder, so it was recovered here",
            from.display()
        )),
        Origin::Earlier => Some(
            "the interrupted commit was sealed by the patchdeck before this one; it was recovered here"
                .to_owned(),
        ),
    }
}

/// The refusal of something at the journal's name that is not a file.
fn not_a_file(state: &StateFolder, kind: Kind) -> io::Error {
    let what = match kind {
        Kind::Dir => "a folder",
        Kind::Symlink => "a symbolic link, not followed",
        _ => "a special file",
    };
    crate::state::seal::foreign(
        state
            .dir()
            .rel()
            .join(journal::JOURNAL)
            .display()
            .to_string(),
        format!("it is {what}, not a file patchdeck writes"),
    )
}

/// The warning for a journal whose seal does not open. `set_aside` says whether it was set
/// aside (by a command that writes).
fn ignored_journal(error: &io::Error, set_aside: bool) -> String {
    let aside = Path::new(STATE_DIR).join(JOURNAL_IGNORED);
    let then = match set_aside {
        true => format!(
            "nothing was done with it; it is set aside as {} for you to look at",
            aside.display()
        ),
        false => "it is ignored: patchdeck will not act on it".to_owned(),
    };
    match as_foreign(error) {
        Some(foreign) => format!("{foreign}: {then}"),
        None => format!("{error}: {then}"),
    }
}

/// The warning for what was found at the lock's name that patchdeck did not make.
pub(super) fn removed_lock(what: &String) -> String {
    format!(
        "{}/lock was not a lock patchdeck made ({what}); its name was removed and the lock taken",
        STATE_DIR
    )
}

/// The error of a commit refused by its state folder.
pub(super) fn state_failed(workspace: &Workspace, error: io::Error) -> Error {
    match as_untrusted(&error) {
        Some(untrusted) => Error::Untrusted {
            path: untrusted.path.clone(),
            why: untrusted.why.clone(),
        },
        None => Error::CommitFailed {
            path: workspace.state_dir().display().to_string(),
            step: "preparing patchdeck's state folder".into(),
            cause: error.to_string(),
            rolled_back: true,
        },
    }
}

fn recovery_failed(workspace: &Workspace, cause: io::Error) -> Error {
    let journal = journal::journal_path(&workspace.state_dir());
    match as_untrusted(&cause) {
        Some(untrusted) => Error::Untrusted {
            path: untrusted.path.clone(),
            why: untrusted.why.clone(),
        },
        None => Error::RecoveryFailed {
            journal,
            cause: cause.to_string(),
        },
    }
}

/// What [`recover_locked`] finishes besides the live journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Finish {
    /// Commits set aside, and an undo interrupted after restoring its files: what a command
    /// does first.
    All,
    /// An interrupted undo, not the commits set aside: what a commit does under its lock (the
    /// command tried those as it began).
    Undo,
    /// Nothing more: an undo's own commit, which must not take that undo's mark for one an
    /// earlier undo left.
    Journal,
}

pub(super) fn recover_locked(
    workspace: &Workspace,
    root: &Root,
    state: &StateFolder,
    finish: Finish,
    progress: &journal::Progress,
) -> Result<Option<Recovery>> {
    let mut recovery = match load_journal(state) {
        Ok(Some((journal, origin))) => {
            let mut recovery = journal
                .recover_counted(root, state, progress)
                .map_err(|e| recovery_failed(workspace, e))?;
            recovery.warnings.extend(said_of(&origin));
            Some(recovery)
        }
        Ok(None) => None,
        // Not this user's, or not this workspace's: never acted on, never a reason to stop.
        // It is set aside, once, for a person to look at.
        Err(e) if as_foreign(&e).is_some() => {
            let set_aside = crate::state::set_aside(state.dir(), OsStr::new(journal::JOURNAL));
            Some(Recovery {
                warnings: vec![ignored_journal(&e, set_aside.is_ok())],
                ..Recovery::default()
            })
        }
        Err(e) => return Err(recovery_failed(workspace, e)),
    };
    // A journal being written when its process died: nothing had been touched yet. What
    // cannot be removed is said, and stops nothing.
    let mut warnings = Vec::new();
    for leftover in journal::leftovers(state.dir()).unwrap_or_default() {
        let path = state.dir().rel().join(&leftover);
        let file = matches!(state.dir().stat(&leftover), Ok(Some(st)) if st.kind == Kind::File);
        match crate::state::remove_any(state.dir(), &leftover) {
            Err(e) => warnings.push(format!(
                "{}: a journal left half-written cannot be removed ({e}); remove it by hand",
                path.display()
            )),
            // Not what patchdeck leaves there: said, as it is gone.
            Ok(()) if !file => warnings.push(format!(
                "removed {}: not a file, at a name patchdeck keeps for a journal being written",
                path.display()
            )),
            Ok(()) => {}
        }
    }
    // Commits whose cleanup was set aside: finished now if they can be, else said again
    // (once per command: a command's own commit does not try them again).
    let mut finished_later = 0;
    if finish == Finish::All {
        let (finished, said) = unfinished::finish_all(root, state);
        finished_later = finished;
        warnings.extend(said);
    }
    if finished_later > 0 || !warnings.is_empty() {
        let recovery = recovery.get_or_insert_with(Recovery::default);
        recovery.finished_later += finished_later;
        recovery.warnings.extend(warnings);
    }
    // After the journal: an undo's own commit is rolled back or finished first.
    if finish == Finish::Journal {
        return Ok(recovery);
    }
    let undone = history::finish_interrupted_undo(root, state).map_err(|e| {
        let error = recovery_failed(workspace, e);
        match error {
            Error::RecoveryFailed { cause, .. } => Error::RecoveryFailed {
                journal: history::history_dir(&workspace.state_dir()),
                cause,
            },
            other => other,
        }
    })?;
    if let Some(label) = undone {
        recovery.get_or_insert_with(Recovery::default).undo_finished = Some(label);
    }
    Ok(recovery)
}
