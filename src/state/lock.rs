//! The workspace lock: one commit (or recovery) at a time under a root.
//!
//! The lock is an exclusive `flock` on the file `.patchdeck/lock`, which holds the owner's pid
//! for messages. The kernel releases a `flock` when its owner dies, so a killed patchdeck
//! never blocks the next one.
//!
//! patchdeck never writes into a lock file it finds: a clone or an archive can put anything at
//! that name, a hard link to a tracked file say. Every change to the name (making the lock,
//! clearing a dead owner's, removing what is not a lock) is made while holding a second,
//! short `flock` on the state folder itself, so two takers never both decide about the same
//! name: a taker looks at what stands at `lock`; nothing, it makes its own file there
//! exclusively, locks it and writes its pid in it before it lets the folder go, so no live
//! lock is ever seen unlocked or empty; a file, it opens it to read only, without following a
//! link, and locks it: held by a live process, the taker waits up to a limit, then fails
//! naming the owner; held by no one, it is what a process that died holding the lock left,
//! or something patchdeck did not make, and its name is removed (never its contents
//! written) before the taker looks again. The owner removes its own file before it lets go.

use crate::error::{Error, Result};
use crate::fs::{Dir, Kind, Stat};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

const LOCK: &str = "lock";

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    state: Dir,
    file: File,
    /// Set when the lock file of a process that died holding it was taken over.
    pub took_over_from: Option<u32>,
    /// What was found at the lock's name that patchdeck did not make, and was removed.
    pub removed_foreign: Option<String>,
}

/// What stood at the lock's name.
enum Found {
    /// Nothing: the name is free.
    Nothing,
    /// A live process holds it.
    Held(Option<u32>),
    /// No one held it: its name was removed. `Ok(pid)` for a lock file of patchdeck's whose
    /// owner died; `Err(what)` for something patchdeck does not make.
    Cleared(std::result::Result<Option<u32>, String>),
}

impl Lock {
    /// Takes the lock in the state folder, waiting up to `wait` for a live owner to finish.
    pub fn acquire(state: &Dir, wait: Duration) -> Result<Lock> {
        let started = Instant::now();
        let failed = |e: std::io::Error| Error::LockFailed {
            lock: state.rel().join(LOCK),
            cause: e.to_string(),
        };
        // The folder opened anew: a `flock` is held by an open file, which this process's
        // other openings of the folder must not share.
        let folder = state.reopen().map_err(failed)?;
        let (mut took_over_from, mut removed_foreign) = (None, None);
        let mut deciding = None;
        loop {
            if deciding.is_none() {
                deciding = Some(Deciding::on(&folder).map_err(failed)?);
            }
            match found(state).map_err(failed)? {
                Found::Held(owner) => {
                    deciding = None;
                    if started.elapsed() >= wait {
                        return Err(Error::Locked {
                            lock: state.rel().join(LOCK),
                            owner: match owner {
                                Some(pid) => format!("held by process {pid}"),
                                None => "owner unknown".into(),
                            },
                        });
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
                Found::Cleared(Ok(pid)) => took_over_from = took_over_from.or(pid),
                Found::Cleared(Err(what)) => removed_foreign = Some(what),
                // Made under the same hold as the look that found the name free (`make`
                // fails, and the taker looks again, only if something that does not take
                // part in this protocol put a file there meanwhile).
                Found::Nothing => {
                    let file = match make(state) {
                        Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                        made => made.map_err(failed)?,
                    };
                    drop(deciding);
                    return Ok(Lock {
                        state: state.try_clone().map_err(failed)?,
                        file,
                        took_over_from,
                        removed_foreign,
                    });
                }
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held (only when it is still this lock's file), then released as
        // the file closes.
        if let (Ok(Some(at)), Ok(ours)) = (self.state.stat(OsStr::new(LOCK)), self.file.metadata())
        {
            use std::os::unix::fs::MetadataExt;
            if (at.stamp.dev, at.stamp.ino) == (ours.dev(), ours.ino()) {
                let _ = self.state.remove_file(OsStr::new(LOCK));
            }
        }
    }
}

/// The short `flock` on the state folder under which the lock's name changes; released when
/// dropped.
struct Deciding<'f>(&'f Dir);

impl<'f> Deciding<'f> {
    fn on(folder: &'f Dir) -> std::io::Result<Deciding<'f>> {
        loop {
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(folder.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(Deciding(folder));
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl Drop for Deciding<'_> {
    fn drop(&mut self) {
        // SAFETY: flock on a descriptor we own.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Looks at what stands at the lock's name, and clears it when no one holds it. Called while
/// [`Deciding`].
fn found(state: &Dir) -> std::io::Result<Found> {
    let name = OsStr::new(LOCK);
    let Some(stat) = state.stat(name)? else {
        return Ok(Found::Nothing);
    };
    let remove = |what: Option<String>| -> std::io::Result<Found> {
        let removed = match stat.kind {
            // A folder planted there (no live lock is one): removed with what is in it,
            // without following a link.
            Kind::Dir => state.remove_tree(name),
            _ => state.remove_file(name),
        };
        let lock = state.rel().join(LOCK);
        match (removed, &what) {
            (Ok(()), _) => Ok(Found::Cleared(what.map_or(Ok(None), Err))),
            (Err(e), _) if e.kind() == ErrorKind::NotFound => Ok(Found::Nothing),
            (Err(e), Some(what)) => Err(std::io::Error::new(
                e.kind(),
                format!(
                    "{} is not a lock file patchdeck made ({what}), and it cannot be removed ({e}): remove it",
                    lock.display()
                ),
            )),
            (Err(e), None) => Err(std::io::Error::new(
                e.kind(),
                format!(
                    "{} was left by a patchdeck that no longer holds it, and it cannot be removed ({e})",
                    lock.display()
                ),
            )),
        }
    };
    if stat.kind != Kind::File {
        // No live patchdeck's lock is anything but a regular file.
        let what = match stat.kind {
            Kind::Symlink => "a symbolic link",
            Kind::Dir => "a folder",
            _ => "a special file",
        };
        return remove(Some(format!("{what}, which was not followed")));
    }
    let file = match state.open_file_stat(name) {
        Ok((file, _)) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Nothing),
        // A live patchdeck's lock is always a file its user can read: this one is not.
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            return remove(Some(format!("a file patchdeck may not read ({e})")))
        }
        Err(e) => return Err(e),
    };
    // SAFETY: flock on a descriptor we own.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return match e.kind() {
            ErrorKind::WouldBlock => Ok(Found::Held(read_pid(&file))),
            _ => Err(e),
        };
    }
    // Held by no one now, and by this process until `file` closes: still the file at the name?
    let now = state.stat(name)?;
    if now.is_none_or(|now| !same_file(&now, &stat)) {
        return Ok(Found::Nothing);
    }
    if stat.stamp.uid != super::euid() || stat.stamp.nlink != 1 {
        let what = match stat.stamp.nlink {
            1 => format!("a file of user {}", stat.stamp.uid),
            n => format!("a file with {n} names, whose contents were not touched"),
        };
        return remove(Some(what));
    }
    let pid = read_pid(&file);
    remove(None).map(|found| match found {
        Found::Cleared(Ok(None)) => Found::Cleared(Ok(pid)),
        other => other,
    })
}

/// Makes the lock file, locked and holding this process's pid. Called while [`Deciding`], on
/// a name found free: no other taker looks at it before it is done.
fn make(state: &Dir) -> std::io::Result<File> {
    let name = OsStr::new(LOCK);
    let mut file = state.create_new(name, 0o600)?;
    let made = (|| {
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        writeln!(file, "{}", std::process::id())
    })();
    if let Err(e) = made {
        // A full disk must leave no lock file behind.
        let _ = state.remove_file(name);
        return Err(e);
    }
    Ok(file)
}

fn same_file(a: &Stat, b: &Stat) -> bool {
    (a.stamp.dev, a.stamp.ino) == (b.stamp.dev, b.stamp.ino)
}

/// The process ID written in a lock file. A lock file holds a few digits; one that holds more
/// was not written by patchdeck (a planted or damaged file) and names no process.
fn read_pid(file: &File) -> Option<u32> {
    use std::os::unix::fs::FileExt;
    let mut bytes = [0u8; 32];
    let n = file.read_at(&mut bytes, 0).ok()?;
    std::str::from_utf8(&bytes[..n]).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::Root;

    fn state() -> (tempfile::TempDir, Dir) {
        let dir = tempfile::tempdir().unwrap();
        let state = Root::open(dir.path()).unwrap().top().unwrap();
        (dir, state)
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_second_taker_waits_then_fails_naming_the_owner() {
        let (dir, state) = state();
        let held = Lock::acquire(&state, Duration::ZERO).unwrap();
        assert_eq!(names(dir.path()), ["lock"], "no temporary is left");
        let err = Lock::acquire(&state, Duration::from_millis(60)).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        assert!(
            matches!(
                Lock::acquire(&state, Duration::ZERO),
                Err(Error::Locked { .. })
            ),
            "a live lock is left alone"
        );
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
        assert_eq!(lock.removed_foreign, None);
        drop(lock);
        std::fs::write(dir.path().join(LOCK), "4243\n").unwrap();
        assert_eq!(
            Lock::acquire(&state, Duration::ZERO)
                .unwrap()
                .took_over_from,
            Some(4243)
        );
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
        let lock = Lock::acquire(&state, Duration::ZERO).unwrap();
        assert!(lock
            .removed_foreign
            .as_deref()
            .unwrap()
            .contains("symbolic link"));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
        drop(lock);
        assert_eq!(names(dir.path()), ["victim"]);
    }

    /// A lock file extracted from an archive as a hard link to a tracked file: the tracked
    /// file keeps its bytes, and the lock is a file of patchdeck's own.
    #[test]
    fn a_lock_file_that_is_a_hard_link_is_never_written() {
        let (dir, state) = state();
        let tracked = dir.path().join("tracked.py");
        std::fs::write(&tracked, "print('keep')\n").unwrap();
        std::fs::hard_link(&tracked, dir.path().join(LOCK)).unwrap();
        let lock = Lock::acquire(&state, Duration::ZERO).unwrap();
        assert!(
            lock.removed_foreign.as_deref().unwrap().contains("2 names"),
            "{:?}",
            lock.removed_foreign
        );
        assert_eq!(lock.took_over_from, None);
        assert_eq!(
            std::fs::read_to_string(&tracked).unwrap(),
            "print('keep')\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(LOCK)).unwrap(),
            format!("{}\n", std::process::id())
        );
        drop(lock);
        assert_eq!(
            std::fs::read_to_string(&tracked).unwrap(),
            "print('keep')\n"
        );
    }

    /// Many takers at once, with a link, a folder, a stale lock or a hard link planted at the
    /// name again and again among them: each holds the lock alone, and nothing is left behind.
    #[test]
    fn takers_racing_hold_the_lock_one_at_a_time() {
        let (dir, state) = state();
        let holders = std::sync::atomic::AtomicUsize::new(0);
        let planting = std::sync::atomic::AtomicBool::new(true);
        let tracked = dir.path().join("tracked");
        std::fs::write(&tracked, "keep\n").unwrap();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let at = dir.path().join(LOCK);
                for n in 0..400 {
                    if !planting.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                    let _ = match n % 4 {
                        0 => std::os::unix::fs::symlink("/nowhere", &at),
                        1 => std::fs::create_dir(&at),
                        2 => std::fs::hard_link(&tracked, &at),
                        _ => std::fs::OpenOptions::new()
                            .write(true)
                            .create_new(true)
                            .open(&at)
                            .map(drop),
                    };
                    std::thread::yield_now();
                }
            });
            let takers: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        for _ in 0..20 {
                            let lock = Lock::acquire(&state, Duration::from_secs(30)).unwrap();
                            let now = holders.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            assert_eq!(now, 0, "two holders at once");
                            std::thread::yield_now();
                            holders.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                            drop(lock);
                        }
                    })
                })
                .collect();
            for taker in takers {
                taker.join().unwrap();
            }
            planting.store(false, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(std::fs::read_to_string(&tracked).unwrap(), "keep\n");
        let _ = Lock::acquire(&state, Duration::ZERO).map(drop);
        assert_eq!(names(dir.path()), ["tracked"]);
    }
}
