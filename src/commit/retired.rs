//! Records pruned from the undo history. The commit that makes the eleventh record moves the
//! oldest aside into `.patchdeck/retired/`, one rename, and a later command that opens the
//! workspace to write removes it on a thread of its own while it does its work ([`Sweeper`]).
//! Removing a record of a 2,000-file commit is 2,000 unlinks, about 220 ms, which used to stand
//! between the last exchange and the report.
//!
//! A crash anywhere leaves the record in the history, in `retired/`, or partly removed there:
//! what is in `retired/` is never read again but to be removed, so no state of it is wrong, and
//! each sweep goes on where the last one stopped. Only what patchdeck put there is removed: a
//! record sealed for this workspace, or a folder named as one holding no more than its mark
//! and journal (what a sweep stopped between its last two removals leaves). Anything else is
//! left as it is, and named in a warning by the commit that prunes (`history.rs`).

use super::history::{self, MARK, RECORD};
use crate::fs::Dir;
use crate::state::{self, State};
use std::ffi::OsStr;
use std::io;
use std::thread::JoinHandle;

const RETIRED: &str = state::RETIRED_DIR;

/// Removes what the history moved aside, as far as it can.
pub fn sweep(state: &State) -> io::Result<()> {
    let Some(retired) = state.folder(RETIRED, false)? else {
        return Ok(());
    };
    for name in retired.list()? {
        if history::removable(state, &retired, &name)? {
            remove_record(&retired, &name)?;
        }
    }
    Ok(())
}

/// A sweep on a thread of its own, waited for when dropped (so that a command does not exit
/// in the middle of it, and a test sees it done).
pub struct Sweeper(Option<JoinHandle<()>>);

impl Sweeper {
    /// Starts sweeping `state`'s retired records; errors are left to the next sweep.
    pub fn start(state: State) -> Sweeper {
        let handle = std::thread::Builder::new()
            .name("patchdeck-sweep".to_owned())
            .spawn(move || {
                let _ = sweep(&state);
            })
            .ok();
        Sweeper(handle)
    }

    /// A sweeper with nothing to do.
    pub fn idle() -> Sweeper {
        Sweeper(None)
    }
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

/// Removes a record: its originals first, then its journal, then its mark, then the folder,
/// so that a sweep stopped anywhere leaves what the next one recognizes.
fn remove_record(retired: &Dir, name: &OsStr) -> io::Result<()> {
    let record = retired.subdir(name)?;
    let (mark, journal) = (OsStr::new(MARK), OsStr::new(RECORD));
    for entry in record.list()? {
        if entry != mark && entry != journal {
            state::remove_any(&record, &entry)?;
        }
    }
    record.remove_file_if_exists(journal)?;
    record.remove_file_if_exists(mark)?;
    retired.remove_dir(name)
}
