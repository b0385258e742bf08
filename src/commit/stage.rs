//! Staging: each new content written to a fresh file beside its target, with the original's
//! owner, group and permissions, its writeback started; the commit makes every staged file
//! durable in one later pass.

use super::beneath::Folders;
use crate::content::Content;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes the new content to a fresh temporary file (its runs gathered into `writev` calls)
/// with the original's owner, group and permissions, and starts writing it out to the disk
/// (`sync_file_range`); the commit makes it durable (fsync) once every file is staged. The
/// owner is given where this process may give it (root may; anyone may pass a file to a group
/// of theirs); where it may not, the file is the writer's, as with any editor, and the answer
/// is false so that the commit says so. `(mode, executable)`: the permissions (`None` for a new
/// file's default, 0666 less the umask), and whether the batch makes the file executable or not
/// (see [`with_execute_bits`]).
pub(super) fn stage(
    folders: &Folders,
    staged: &Path,
    content: &Content,
    (mode, executable): (Option<u32>, Option<bool>),
    owner: Option<(u32, u32)>,
) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let (dir, name) = folders.parent_of(staged)?;
    // Created with the permissions it will have where the umask allows them (then no chmod).
    let mut file = dir.create_new(name, mode.unwrap_or(0o666))?;
    content.write_to(&mut file)?;
    start_writeback(&file);
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
    Ok(kept)
}

/// Asks the kernel to start writing a file's data out now (`sync_file_range`), without waiting:
/// by the time the commit fsyncs it, the disk has mostly done the work. Advice only: where it
/// is not supported, the fsync does it all.
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a descriptor we own; the call only schedules writeback of its pages.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
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
