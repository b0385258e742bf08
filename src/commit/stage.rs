//! Staging: each target read once under the lock and checked to be the bytes that were
//! verified, its new content made (or taken from the plan) and written to a fresh file beside
//! it, with the original's owner, group and permissions, its writeback started. The commit
//! makes every staged file durable in one later pass, through the descriptor staging kept
//! open where it could.

use crate::checksum::Checksum;
use crate::content::Content;
use crate::fs::{platform, Dir, Folders};
use crate::fs::{Snapshot, Stamp, Unread};
use crate::plan::{FileWrite, WriteKind};
use std::fmt;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Makes a write's new content from its target as staging read it (checked to hold the
/// verified bytes; `None` for a file to create).
pub type Make<'a> = dyn Fn(&FileWrite, Option<&Snapshot>) -> Content + Sync + 'a;

/// Where the commit takes each new content from.
#[derive(Clone, Copy)]
pub enum NewContents<'a> {
    /// The plan's own ([`FileWrite::after`]), computed with it.
    Planned,
    /// Made by this function as each file is staged, from the file as staging has just read
    /// it: a plan computed without its contents ([`crate::plan::Contents::Skipped`]) commits
    /// holding one file's bytes at a time on each staging thread, not every original at once.
    Made(&'a Make<'a>),
}

/// What staging one file found and did.
pub(super) struct Staged {
    pub outcome: Outcome,
    /// The target as staging read it (none for a file to create): the file the exchange must
    /// find again.
    pub found: Option<Stamp>,
}

pub(super) enum Outcome {
    /// The new content is staged beside the target.
    Written {
        checksum: Checksum,
        /// The new content's SHA-256, when the commit was asked for it.
        sha256: Option<String>,
        /// Whether the original's owner and group could be kept.
        owner_kept: bool,
        /// The staged file, still open for the sync pass (within [`OpenBudget`]).
        file: Option<File>,
        /// For a write of the permissions alone (the new content's checksum is the
        /// original's), the staged file's permission bits as the disk has them (a file
        /// system may ignore what was asked): the journal tells the two apart by them.
        mode_on_disk: Option<u32>,
    },
    /// A deletion's target, read and checked; nothing is staged for it.
    Checked,
    /// The new content is the file as it is, bytes and permissions: nothing to write.
    Unchanged,
}

/// A target that is no longer the file that was verified: the commit stops and says so.
#[derive(Debug)]
pub struct Changed {
    pub what: String,
}

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for Changed {}

/// The error of a target found changed, for callers that speak `io::Error`.
pub(super) fn changed(what: String) -> io::Error {
    io::Error::other(Changed { what })
}

/// The change inside an error, when the error is one.
pub fn as_changed(error: &io::Error) -> Option<&Changed> {
    error.get_ref().and_then(|e| e.downcast_ref::<Changed>())
}

/// How many staged files may stay open from staging to the sync pass: half of what the
/// process may still open once every folder of the commit is open and each staging thread
/// holds its two files, the limit first raised as far as the system lets it (thousands of
/// files held open could otherwise pass it). A file past the budget is closed, and opened
/// again to be synced. The limit goes back to what it was when the budget is dropped, so that
/// what patchdeck starts afterwards (git, an editor) gets the limit it was given.
pub(super) struct OpenBudget {
    left: AtomicUsize,
    raised_from: Option<libc::rlimit>,
}

impl OpenBudget {
    /// The budget of a commit that holds `folders` folders open and stages on `threads`
    /// threads.
    pub fn new(folders: usize, threads: usize) -> OpenBudget {
        let (limit, raised_from) = raise_open_limit();
        // What the commit holds besides: the journal, the lock, the standard streams, git's
        // pipes, the threads' own.
        let held = 256 + folders + 2 * threads;
        OpenBudget {
            left: AtomicUsize::new(limit.saturating_sub(held) / 2),
            raised_from,
        }
    }

    /// Takes one place; false when none is left.
    fn take(&self) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }
}

impl Drop for OpenBudget {
    fn drop(&mut self) {
        if let Some(limit) = self.raised_from {
            // SAFETY: setrlimit reads the struct it is given; a failure leaves the raised
            // limit, which is no harm.
            unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
        }
    }
}

/// Raises this process's limit on open files to its hard limit (at most 65,536), as far as
/// the system allows: the limit now, and the one it was raised from, if it was.
fn raise_open_limit() -> (usize, Option<libc::rlimit>) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given; the result is checked.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return (0, None);
    }
    let wanted = limit.rlim_max.min(1 << 16);
    if wanted > limit.rlim_cur {
        let raised = libc::rlimit {
            rlim_cur: wanted,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given; the result is checked.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return (wanted as usize, Some(limit));
        }
    }
    (limit.rlim_cur as usize, None)
}

/// How staging goes for one write: where its content comes from and what the commit was asked.
pub(super) struct Staging<'a> {
    pub folders: &'a Folders<'a>,
    pub contents: NewContents<'a>,
    pub budget: &'a OpenBudget,
    /// Whether each new content's SHA-256 is wanted (what `apply` prints, the JSON report).
    pub sha256: bool,
}

impl Staging<'_> {
    /// Stages one write at `staged` (none for a deletion): reads its target, checks it is the
    /// verified file (stamp and checksum), makes its new content and writes it beside it.
    pub fn stage(&self, write: &FileWrite, staged: Option<&Path>) -> io::Result<Staged> {
        let target = match &write.before {
            Some(before) => Some(self.read_target(write, before)?),
            None => None,
        };
        let found = target.as_ref().map(|t| t.stamp);
        let (Some(staged), false) = (staged, write.kind == WriteKind::Delete) else {
            return Ok(Staged {
                outcome: Outcome::Checked,
                found,
            });
        };
        let content = match self.contents {
            NewContents::Planned => write.after.clone(),
            NewContents::Made(make) => {
                let content = make(write, target.as_ref());
                // A plan made without contents could not leave out a write that changes
                // nothing; here it is known.
                if let Some(target) = target.as_ref().filter(|t| content == **t.bytes()) {
                    if keeps_permissions(write, &target.stamp) {
                        return Ok(Staged {
                            outcome: Outcome::Unchanged,
                            found,
                        });
                    }
                }
                content
            }
        };
        // The original's bytes go once the new content is made: what is held from here on is
        // the new content alone (which shares runs of them until it is written).
        drop(target);
        let mode = write
            .mode
            .or(write.before.as_ref().map(|b| b.stamp.mode))
            .map(|m| m & 0o7777);
        let owner = write
            .owner
            .or(write.before.as_ref().map(|b| (b.stamp.uid, b.stamp.gid)));
        let (file, owner_kept) = stage(
            self.folders,
            staged,
            &content,
            (mode, write.executable),
            owner,
        )?;
        let checksum = content.checksum();
        let mode_on_disk = match &write.before {
            Some(before) if before.checksum() == checksum => {
                use std::os::unix::fs::MetadataExt;
                Some(file.metadata()?.mode() & 0o7777)
            }
            _ => None,
        };
        Ok(Staged {
            outcome: Outcome::Written {
                checksum,
                sha256: self.sha256.then(|| content.sha256()),
                owner_kept,
                file: self.budget.take().then_some(file),
                mode_on_disk,
            },
            found,
        })
    }

    /// The target read whole under the lock, checked to be the file that was verified: the
    /// same size, modification time, permissions and link count, and bytes with the same
    /// checksum.
    fn read_target(&self, write: &FileWrite, before: &Snapshot) -> io::Result<Snapshot> {
        let (dir, name) = self.folders.parent_of(&write.rel)?;
        let (file, meta) = dir
            .open_file_stat(name)
            .map_err(|e| gone_or(&dir, name, e))?;
        let now = Unread::with(file, meta)?.finish()?;
        if !still_verified(before, &now) {
            return Err(changed(edited(before, now.bytes())));
        }
        if let Some(what) = permissions_changed(&before.stamp, &now.stamp) {
            return Err(changed(what));
        }
        Ok(now)
    }
}

/// Whether `now`, a file read again, holds what `before` verified: the same size and
/// modification time, and bytes with the same checksum.
pub(super) fn still_verified(before: &Snapshot, now: &Snapshot) -> bool {
    let (was, is) = (&before.stamp, &now.stamp);
    (is.size, is.mtime_sec, is.mtime_nsec) == (was.size, was.mtime_sec, was.mtime_nsec)
        && now.checksum() == before.checksum()
}

/// Why a target could not be opened: another program deleted it, or put a link, a folder or
/// something else that is not a regular file at its name (a change: the commit stops as
/// changed on disk); else the error as it is (the process's limit on open files, the disk),
/// which fails the commit as any I/O error does.
fn gone_or(dir: &Dir, name: &std::ffi::OsStr, error: io::Error) -> io::Error {
    use crate::fs::Kind;
    match dir.stat(name) {
        Ok(None) => changed("it was deleted since the batch was verified".into()),
        Ok(Some(st)) if st.kind == Kind::Symlink => {
            changed("it became a symbolic link since the batch was verified".into())
        }
        Ok(Some(st)) if st.kind != Kind::File => changed("it is no longer a regular file".into()),
        _ => error,
    }
}

/// How a file edited since it was verified is described: by its SHA-256 then (when it is
/// known: a released file's is kept only when something asked for it) and now.
pub(super) fn edited(before: &Snapshot, now: &[u8]) -> String {
    let now = crate::sha256::sha256_hex(now);
    match before.known_sha256() {
        Some(then) => format!(
            "it was edited since the batch was verified (SHA-256 {} then, {} now)",
            short(&then),
            short(&now)
        ),
        None => format!(
            "it was edited since the batch was verified (SHA-256 {} now)",
            short(&now)
        ),
    }
}

fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}

/// What changed of a file's permissions or links since it was verified, if anything.
pub(super) fn permissions_changed(was: &Stamp, is: &Stamp) -> Option<String> {
    if is.mode != was.mode {
        return Some(format!(
            "its permissions changed since the batch was verified ({:o} then, {:o} now)",
            was.mode & 0o7777,
            is.mode & 0o7777
        ));
    }
    if is.nlink != was.nlink {
        return Some(format!(
            "its number of hard links changed since the batch was verified ({} then, {} now)",
            was.nlink, is.nlink
        ));
    }
    None
}

/// Whether writing `write` over a file of `stamp` leaves its permissions as they are.
pub(super) fn keeps_permissions(write: &FileWrite, stamp: &Stamp) -> bool {
    let mode = stamp.mode & 0o7777;
    let new_mode = write.mode.map(|m| m & 0o7777).unwrap_or(mode);
    let new_mode = write
        .executable
        .map_or(new_mode, |x| with_execute_bits(new_mode, x));
    new_mode == mode
}

/// Writes the new content to a fresh temporary file (its runs gathered into `writev` calls)
/// with the original's owner, group and permissions, and starts writing it out to the disk
/// ([`platform::start_writeback`]); the commit makes it durable ([`platform::sync`]) once every
/// file is staged. The owner is given where this process may give it (root may; anyone may
/// pass a file to a group of theirs); where it may not, the file is the writer's, as with any
/// editor, and the answer is false so that the commit says so. `(mode, executable)`: the
/// permissions (`None` for a new file's default, 0666 less the umask), and whether the batch
/// makes the file executable or not (see [`with_execute_bits`]). Returns the staged file,
/// still open.
fn stage(
    folders: &Folders,
    staged: &Path,
    content: &Content,
    (mode, executable): (Option<u32>, Option<bool>),
    owner: Option<(u32, u32)>,
) -> io::Result<(File, bool)> {
    use std::os::unix::fs::MetadataExt;
    let (dir, name) = folders.parent_of(staged)?;
    // Created with the permissions it will have where the umask allows them (then no chmod).
    let mut file = dir.create_new(name, mode.unwrap_or(0o666))?;
    content.write_to(&mut file)?;
    platform::start_writeback(&file);
    let created = file.metadata()?;
    let chowned = owner.is_some_and(|owner| (created.uid(), created.gid()) != owner);
    let kept = match owner {
        Some(owner) if chowned => give_to(&file, owner)?,
        _ => true,
    };
    let default = mode.unwrap_or(created.mode() & 0o7777);
    let mode = match executable {
        Some(executable) => with_execute_bits(default, executable),
        None => default,
    };
    // A change of owner clears set-user-ID bits: the permissions are set after it.
    if chowned || mode != created.mode() & 0o7777 {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    Ok((file, kept))
}

/// Makes a staged file durable ([`platform::sync`]): through the descriptor staging kept open,
/// else opened again. Its metadata too, not only its data: the permissions and owner staging
/// gave it must last.
pub(super) fn sync_staged(folders: &Folders, staged: &Path, kept: Option<&File>) -> io::Result<()> {
    match kept {
        Some(file) => platform::sync(file),
        None => {
            let (dir, name) = folders.parent_of(staged)?;
            platform::sync(dir.open_file(name)?)
        }
    }
}

/// Permissions made executable as `git apply` makes them (each execute bit where its read bit
/// is: 0644 becomes 0755, 0600 becomes 0700, as 0777 less the same umask), or not (every
/// execute bit cleared).
pub(super) fn with_execute_bits(mode: u32, executable: bool) -> u32 {
    if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    }
}

/// Gives a file to `(uid, gid)` as far as this process may: both, else the group alone.
/// Whether it now has both. Call it before setting permissions: a change of owner clears
/// set-user-ID bits.
pub(super) fn give_to(file: &File, (uid, gid): (u32, u32)) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let has = |file: &File| -> io::Result<bool> {
        let now = file.metadata()?;
        Ok((now.uid(), now.gid()) == (uid, gid))
    };
    if has(file)? {
        return Ok(true);
    }
    let _ = std::os::unix::fs::fchown(file, Some(uid), Some(gid))
        .or_else(|_| std::os::unix::fs::fchown(file, None, Some(gid)));
    has(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::Root;

    /// A target that cannot be opened is a change only when another program took it away or
    /// put something else at its name; any other error (too many open files, the disk) is
    /// the error it is, and fails the commit as I/O errors do, never as a conflict.
    #[test]
    fn only_a_target_gone_or_replaced_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), b"x").unwrap();
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        std::os::unix::fs::symlink("file", dir.path().join("link")).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let top = root.top().unwrap();
        let emfile = || io::Error::from_raw_os_error(libc::EMFILE);
        let said = |name: &str| {
            let error = gone_or(&top, std::ffi::OsStr::new(name), emfile());
            as_changed(&error).map(|c| c.what.clone())
        };
        assert_eq!(said("file"), None, "a file still there: the error itself");
        assert_eq!(
            gone_or(&top, std::ffi::OsStr::new("file"), emfile()).raw_os_error(),
            Some(libc::EMFILE)
        );
        assert!(said("missing").unwrap().contains("deleted"));
        assert!(said("link").unwrap().contains("symbolic link"));
        assert!(said("folder").unwrap().contains("no longer a regular file"));
    }
}
