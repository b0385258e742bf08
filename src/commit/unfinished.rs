//! Committed journals whose cleanup could not be finished at the time: kept in
//! `.patchdeck/unfinished/<commit id>`, sealed as the live journal is, and finished by a later
//! command that writes. A full disk, or a folder out of reach for a moment, so costs a
//! warning and a later retry, never a refusal of every command after it.
//!
//! Only a committed journal is set aside: its commit stands, and what is left of it is
//! bookkeeping (its originals into the undo history, what it left beside its files removed),
//! which can wait. A journal of a commit that was not committed is rolled back before anything
//! else is written, as it always was.

use super::journal::{Journal, Progress, State, JOURNAL};
use crate::fs::Root;
use crate::state::as_untrusted;
use crate::state::seal::as_foreign;
use crate::state::{State as StateFolder, UNFINISHED_DIR as UNFINISHED};
use std::ffi::{OsStr, OsString};
use std::io;

/// Sets the live journal `journal`, committed, whose cleanup failed with `cause`, aside for a
/// later command to finish; the warnings to give. When waiting cannot help (the undo history
/// is a folder patchdeck will not use: that takes a person) or setting it aside fails, its
/// cleanup is done now without an undo record (see [`Journal::give_up_undo`]).
pub fn park(journal: &Journal, root: &Root, state: &StateFolder, cause: &io::Error) -> Vec<String> {
    let give_up = || {
        let mut warnings = vec![format!(
            "the commit is done, but its undo record could not be kept ({cause}): `patchdeck undo` cannot take it back"
        )];
        warnings.extend(journal.give_up_undo(root, state));
        warnings
    };
    if as_untrusted(cause).is_some() {
        return give_up();
    }
    // Set aside once it is renamed (a sync that fails after that changes nothing of where it
    // is: the next command finds it there).
    let parked = state.folder(UNFINISHED, true).and_then(|dir| {
        let dir = dir.expect("made");
        state
            .dir()
            .rename(OsStr::new(JOURNAL), &dir, OsStr::new(&journal.id))?;
        let _ = dir.sync().and_then(|()| state.dir().sync());
        Ok(())
    });
    match parked {
        Ok(()) => vec![format!(
            "the commit is done, but not its cleanup ({cause}): the originals stay beside its files, and `patchdeck undo` cannot take it back, until a later patchdeck command that writes finishes it (`patchdeck recover` does)"
        )],
        Err(_) => give_up(),
    }
}

/// The IDs of the commits set aside, oldest first: those whose sealed journal opens and
/// names them (they are rare, so each is read); anything else there is not counted.
pub fn ids(state: &StateFolder) -> Vec<OsString> {
    let Ok(Some(dir)) = state.folder(UNFINISHED, false) else {
        return Vec::new();
    };
    dir.list()
        .unwrap_or_default()
        .into_iter()
        .filter(|id| {
            matches!(Journal::load_from(state, &dir, id),
                Ok(Some((journal, _))) if OsStr::new(&journal.id) == id)
        })
        .collect()
}

/// Whether anything is in the folder of commits set aside (a commit, or junk to name).
pub fn any(state: &StateFolder) -> bool {
    matches!(state.folder(UNFINISHED, false), Ok(Some(dir)) if !dir.list().unwrap_or_default().is_empty())
}

/// Finishes every commit set aside. Returns how many it finished, and a warning for each one
/// that still cannot be, or that is not one of this workspace's; it never fails.
pub fn finish_all(root: &Root, state: &StateFolder) -> (usize, Vec<String>) {
    let dir = match state.folder(UNFINISHED, false) {
        Ok(Some(dir)) => dir,
        Ok(None) => return (0, Vec::new()),
        Err(e) => {
            return (
                0,
                vec![format!(
                    "{e}: the commits whose cleanup waits there are left"
                )],
            )
        }
    };
    let names = match dir.list() {
        Ok(names) => names,
        Err(e) => return (0, vec![format!("{}: {e}", dir.rel().display())]),
    };
    let (mut finished, mut warnings) = (0, Vec::new());
    for name in names {
        let what = dir.rel().join(&name).display().to_string();
        let journal = match Journal::load_from(state, &dir, &name) {
            Ok(Some((journal, _)))
                if journal.state == State::Committed && OsStr::new(&journal.id) == name =>
            {
                journal
            }
            // Not one of this workspace's commits: nothing to finish, and nothing patchdeck
            // will read again. It goes, said, so that it is not read at every command.
            Ok(Some(_)) => {
                let removed = crate::state::remove_any(&dir, &name);
                warnings.push(not_one(
                    &what,
                    "it is not a committed journal set aside under that name",
                    removed,
                ));
                continue;
            }
            Ok(None) => continue,
            Err(e) => {
                match as_foreign(&e) {
                    Some(foreign) => {
                        let removed = crate::state::remove_any(&dir, &name);
                        warnings.push(not_one(&what, &foreign.why, removed));
                    }
                    // It may be one (the disk, the process's limits): kept for next time.
                    None => warnings.push(format!(
                        "{what} cannot be read ({e}): the cleanup it waits for is tried again at the next command that writes"
                    )),
                }
                continue;
            }
        };
        let settled = journal
            .settle(root, state, &Progress::default())
            .and_then(|recovery| {
                dir.remove_file_if_exists(&name)?;
                dir.sync()?;
                Ok(recovery)
            });
        match settled {
            Ok(recovery) => {
                warnings.extend(recovery.warnings);
                finished += 1;
            }
            // Waiting cannot help: the undo history is a folder patchdeck will not use.
            Err(e) if as_untrusted(&e).is_some() => {
                warnings.push(format!(
                    "the undo record of commit {} could not be kept ({e}): `patchdeck undo` cannot take it back",
                    journal.id
                ));
                warnings.extend(journal.give_up_undo(root, state));
                let _ = dir.remove_file_if_exists(&name);
            }
            Err(e) => warnings.push(format!(
                "the cleanup of commit {} is still not done ({e}): patchdeck tries again at the next command that writes",
                journal.id
            )),
        }
    }
    let _ = state.dir().remove_dir(OsStr::new(UNFINISHED));
    (finished, warnings)
}

/// The warning for what was found among the commits set aside that is not one of them.
fn not_one(what: &str, why: &str, removed: io::Result<()>) -> String {
    match removed {
        Ok(()) => format!(
            "removed {what}: not a commit of this workspace's whose cleanup waits ({why})"
        ),
        Err(e) => format!(
            "{what} is not a commit of this workspace's whose cleanup waits ({why}), and it cannot be removed ({e}): remove it"
        ),
    }
}
