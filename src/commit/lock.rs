//! The workspace lock: one commit (or recovery) at a time under a root.
//!
//! The lock is the file `.patchdeck/lock`, holding the owner's pid. It appears with its content
//! in one step (the pid is written to a temporary file that is then hard-linked into place), so
//! a process killed while taking it never leaves an empty lock that nobody could judge. A lock
//! whose owner no longer runs is stale and is taken over (and said so). A live owner makes the
//! caller wait up to a limit, then fail with the owner named.

use crate::error::{Error, Result};
use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    /// Set when a stale lock of a dead process was taken over.
    pub took_over_from: Option<u32>,
}

impl Lock {
    /// Takes the lock in `state_dir`, waiting up to `wait` for a live owner to finish.
    pub fn acquire(state_dir: &Path, wait: Duration) -> Result<Lock> {
        let path = state_dir.join("lock");
        let started = Instant::now();
        let mut took_over_from = None;
        let pid = std::process::id();
        let tmp = state_dir.join(format!("lock.{pid}.tmp"));
        loop {
            let linked = File::create(&tmp)
                .and_then(|mut file| writeln!(file, "{pid}"))
                .and_then(|()| fs::hard_link(&tmp, &path));
            let _ = fs::remove_file(&tmp);
            match linked {
                Ok(()) => {
                    return Ok(Lock {
                        path,
                        took_over_from,
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let owner = fs::read_to_string(&path).unwrap_or_default();
                    let pid = owner.trim().parse::<u32>().ok();
                    match pid {
                        Some(pid) if !process_alive(pid) => {
                            // The owner died without releasing: take over.
                            let _ = fs::remove_file(&path);
                            took_over_from = Some(pid);
                            continue;
                        }
                        _ if started.elapsed() >= wait => {
                            return Err(Error::Locked {
                                lock: path,
                                owner: match pid {
                                    Some(pid) => format!("held by process {pid}"),
                                    None => "owner unknown".into(),
                                },
                            })
                        }
                        _ => std::thread::sleep(Duration::from_millis(25)),
                    }
                }
                Err(e) => {
                    return Err(Error::CommitFailed {
                        path: path.display().to_string(),
                        step: "taking the workspace lock".into(),
                        cause: e.to_string(),
                        rolled_back: true,
                    })
                }
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Removes a lock whose owner no longer runs, returning that owner's pid, and the temporary
/// files of lock takers that died before finishing.
pub fn clear_stale(state_dir: &Path) -> Option<u32> {
    if let Ok(entries) = fs::read_dir(state_dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let taker = name
                .strip_prefix("lock.")
                .and_then(|rest| rest.strip_suffix(".tmp"))
                .and_then(|pid| pid.parse::<u32>().ok());
            if taker.is_some_and(|pid| !process_alive(pid)) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    let path = state_dir.join("lock");
    let pid = fs::read_to_string(&path).ok()?.trim().parse::<u32>().ok()?;
    if process_alive(pid) {
        return None;
    }
    fs::remove_file(&path).ok().map(|()| pid)
}

fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks whether the process exists.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_waits_then_fails_naming_the_owner() {
        let dir = tempfile::tempdir().unwrap();
        let held = Lock::acquire(dir.path(), Duration::ZERO).unwrap();
        let err = Lock::acquire(dir.path(), Duration::from_millis(60)).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(held);
        assert!(Lock::acquire(dir.path(), Duration::ZERO).is_ok());
    }

    #[test]
    fn a_takers_leftover_temporary_is_cleared_when_its_process_is_dead() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let leftover = dir.path().join(format!("lock.{dead}.tmp"));
        fs::write(&leftover, format!("{dead}\n")).unwrap();
        let mine = dir.path().join(format!("lock.{}.tmp", std::process::id()));
        fs::write(&mine, "in progress\n").unwrap();
        assert_eq!(clear_stale(dir.path()), None, "there is no lock itself");
        assert!(!leftover.exists());
        assert!(mine.exists(), "a live taker's temporary is left alone");
    }

    #[test]
    fn a_dead_owners_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        fs::write(dir.path().join("lock"), format!("{dead}\n")).unwrap();
        let lock = Lock::acquire(dir.path(), Duration::ZERO).unwrap();
        assert_eq!(lock.took_over_from, Some(dead));
    }
}
