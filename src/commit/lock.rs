//! The workspace lock: one commit (or recovery) at a time under a root.
//!
//! The lock is an exclusive `flock` on the file `.patchdeck/lock`, which holds the owner's pid
//! for messages. The kernel releases a `flock` when its owner dies, so a killed patchdeck
//! never blocks the next one, and two processes can never both believe they took over a dead
//! owner's lock. The owner removes the file before it lets go; a taker that locked a file which
//! has meanwhile been removed (or replaced) lets go and tries again, so the lock held is always
//! the file at the path. A lock file left with a pid in it was left by a process that died
//! while holding it; the next taker says so. A live owner makes the caller wait up to a limit,
//! then fail with the owner named.

use super::beneath::Dir;
use crate::error::{Error, Result};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{ErrorKind, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

const LOCK: &str = "lock";

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    state: Dir,
    file: File,
    /// Set when the lock file of a process that died holding it was taken over.
    pub took_over_from: Option<u32>,
}

impl Lock {
    /// Takes the lock in the state folder, waiting up to `wait` for a live owner to finish.
    pub fn acquire(state: &Dir, wait: Duration) -> Result<Lock> {
        let started = Instant::now();
        let failed = |e: std::io::Error| Error::CommitFailed {
            path: state.rel().join(LOCK).display().to_string(),
            step: "taking the workspace lock".into(),
            cause: e.to_string(),
            rolled_back: true,
        };
        loop {
            let mut file = open_lock_file(state).map_err(failed)?;
            // SAFETY: flock on a descriptor we own.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc != 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != ErrorKind::WouldBlock {
                    return Err(failed(e));
                }
                if started.elapsed() >= wait {
                    return Err(Error::Locked {
                        lock: state.rel().join(LOCK),
                        owner: match read_pid(&mut file) {
                            Some(pid) => format!("held by process {pid}"),
                            None => "owner unknown".into(),
                        },
                    });
                }
                std::thread::sleep(Duration::from_millis(25));
                continue;
            }
            // The previous owner may have removed the file between our open and our lock.
            let ours = file.metadata().map_err(failed)?;
            let at_path = state.stat(OsStr::new(LOCK)).map_err(failed)?;
            if at_path.is_none_or(|st| {
                use std::os::unix::fs::MetadataExt;
                (st.stamp.dev, st.stamp.ino) != (ours.dev(), ours.ino())
            }) {
                continue;
            }
            let took_over_from = read_pid(&mut file);
            let pid = std::process::id();
            let written = file
                .set_len(0)
                .and_then(|()| file.rewind())
                .and_then(|()| writeln!(file, "{pid}"));
            if let Err(e) = written {
                // Held, so ours to remove: a full disk must not leave a lock file behind.
                let _ = state.remove_file(OsStr::new(LOCK));
                return Err(failed(e));
            }
            return Ok(Lock {
                state: state.try_clone().map_err(failed)?,
                file,
                took_over_from,
            });
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held, then released as the file closes.
        let _ = self.state.remove_file(OsStr::new(LOCK));
        let _ = &self.file;
    }
}

/// Clears the lock file of a process that died holding it, returning that process's pid.
/// A lock held by a live process is left alone.
pub fn clear_stale(state: &Dir) -> Option<u32> {
    state.stat(OsStr::new(LOCK)).ok()??;
    Lock::acquire(state, Duration::ZERO).ok()?.took_over_from
}

fn open_lock_file(state: &Dir) -> std::io::Result<File> {
    let name = std::ffi::CString::new(LOCK).expect("no NUL");
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
    let fd = unsafe {
        libc::openat(
            state.as_raw_fd(),
            name.as_ptr(),
            flags,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// The process ID written in a lock file. A lock file holds a few digits; one that holds more
/// was not written by patchdeck (a planted or damaged file) and names no process.
fn read_pid(file: &mut File) -> Option<u32> {
    const MOST: u64 = 32;
    file.rewind().ok()?;
    let bytes = crate::bounded::read_from(&mut *file, MOST).ok()?;
    std::str::from_utf8(&bytes).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::beneath::Root;

    fn state() -> (tempfile::TempDir, Dir) {
        let dir = tempfile::tempdir().unwrap();
        let state = Root::open(dir.path()).unwrap().top().unwrap();
        (dir, state)
    }

    #[test]
    fn a_second_taker_waits_then_fails_naming_the_owner() {
        let (dir, state) = state();
        let held = Lock::acquire(&state, Duration::ZERO).unwrap();
        let err = Lock::acquire(&state, Duration::from_millis(60)).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        assert_eq!(clear_stale(&state), None, "a live lock is left alone");
        drop(held);
        assert!(
            !dir.path().join(LOCK).exists(),
            "released locks leave no file"
        );
        assert!(Lock::acquire(&state, Duration::ZERO).is_ok());
    }

    #[test]
    fn a_dead_owners_lock_is_taken_over_and_named() {
        let (dir, state) = state();
        std::fs::write(dir.path().join(LOCK), "4242\n").unwrap();
        let lock = Lock::acquire(&state, Duration::ZERO).unwrap();
        assert_eq!(lock.took_over_from, Some(4242));
        drop(lock);
        std::fs::write(dir.path().join(LOCK), "4243\n").unwrap();
        assert_eq!(clear_stale(&state), Some(4243));
        assert!(!dir.path().join(LOCK).exists());
    }

    #[test]
    fn a_huge_planted_lock_file_is_not_read_whole() {
        let (dir, state) = state();
        // Sparse: 8 GiB that read whole would exhaust memory, found at the file's first bytes.
        let planted = std::fs::File::create(dir.path().join(LOCK)).unwrap();
        planted.set_len(8 << 30).unwrap();
        let lock = Lock::acquire(&state, Duration::ZERO).unwrap();
        assert_eq!(lock.took_over_from, None, "names no process");
        drop(lock);
        assert!(!dir.path().join(LOCK).exists());
    }

    #[test]
    fn a_lock_file_that_is_a_link_is_not_followed() {
        let (dir, state) = state();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep\n").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join(LOCK)).unwrap();
        assert!(Lock::acquire(&state, Duration::ZERO).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    }
}
