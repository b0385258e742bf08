//! The last step of a commit for each file: putting its staged new content in place (or, for
//! a deletion, moving the file aside) so that nothing another program wrote since the
//! re-check is lost. The exchange leaves the original at the staged name, where it is the
//! backup; where the file system cannot exchange, a link or a copy beside the target keeps it.

use super::beneath::{Dir, Stat};
use super::journal::{self, Entry};
use super::stage::give_to;
use crate::plan::FileWrite;
use crate::workspace::Stamp;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// Puts one file's new content in place (or, for a deletion, moves the file aside), so that
/// nothing another program wrote since the re-check is lost:
/// - a modification exchanges the staged file with the target in one step (`RENAME_EXCHANGE`)
///   and then checks that what came out, now at the staged name, is exactly the verified
///   original (same file, same bytes); if not, it exchanges them back and stops, the other
///   program's file in place. Where the file system cannot exchange, the original is linked
///   beside the target and the target checked just before a plain rename (the README says
///   what window that leaves);
/// - a creation renames only if nothing has appeared at the name (`RENAME_NOREPLACE`);
/// - a deletion moves the target to the original's name and checks it the same way, moving it
///   back if it is not the verified file.
pub(super) fn put_in_place(
    dir: &Dir,
    name: &OsStr,
    entry: &Entry,
    write: &FileWrite,
    stamp: Option<&Stamp>,
) -> io::Result<()> {
    let beside = |p: &Option<PathBuf>| -> io::Result<std::ffi::OsString> {
        p.as_deref()
            .and_then(Path::file_name)
            .map(OsStr::to_os_string)
            .ok_or_else(|| io::Error::other("the journal names no file beside the target"))
    };
    let changed = || {
        io::Error::other(format!(
            "{} was changed by another program just before patchdeck replaced it; it is left as that program made it",
            dir.rel().join(name).display()
        ))
    };
    match entry.kind {
        journal::EntryKind::Modify => {
            let staged = beside(&entry.staged)?;
            if dir.exchange(&staged, name)? {
                if !is_verified_original(dir, &staged, stamp, write)? {
                    dir.exchange(&staged, name)?;
                    return Err(changed());
                }
                return Ok(());
            }
            // No exchange: the original is kept beside the target first and checked there
            // (a hard link is the target itself; a copy holds what the target held), bytes
            // included, then the target's stamp once more just before the plain rename.
            let original = beside(&entry.backup)?;
            let shared = stamp.is_some_and(|s| s.nlink > 1);
            keep_beside(dir, name, &original, shared)?;
            let verified = match (shared, &write.before) {
                (true, Some(before)) => journal::read_all(dir, &original)? == *before.bytes,
                _ => is_verified_original(dir, &original, stamp, write)?,
            };
            if !verified {
                dir.remove_file_if_exists(&original)?;
                return Err(changed());
            }
            still_as_rechecked(dir, name, stamp)?;
            dir.rename(&staged, dir, name)
        }
        journal::EntryKind::Create => {
            let staged = beside(&entry.staged)?;
            match dir.rename_new(&staged, dir, name) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    still_as_rechecked(dir, name, None)?;
                    dir.rename(&staged, dir, name)
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(io::Error::other(format!(
                    "{} was created by another program while the commit was running",
                    dir.rel().join(name).display()
                ))),
                Err(e) => Err(e),
            }
        }
        journal::EntryKind::Delete => {
            let original = beside(&entry.backup)?;
            dir.remove_file_if_exists(&original)?;
            dir.rename(name, dir, &original)?;
            if !is_verified_original(dir, &original, stamp, write)? {
                // Back where it was, unless yet another file has appeared there meanwhile.
                if !matches!(dir.rename_new(&original, dir, name), Ok(true)) {
                    return Err(io::Error::other(format!(
                        "{} was changed by another program just before patchdeck deleted it; that program's file is kept as {}",
                        dir.rel().join(name).display(),
                        dir.rel().join(&original).display()
                    )));
                }
                return Err(changed());
            }
            Ok(())
        }
    }
}

/// Whether `name` is exactly the file the commit re-checked: the same file (device, inode,
/// size, modification time) holding the same bytes as were verified.
fn is_verified_original(
    dir: &Dir,
    name: &OsStr,
    stamp: Option<&Stamp>,
    write: &FileWrite,
) -> io::Result<bool> {
    let (Some(was), Some(before)) = (stamp, write.before.as_ref()) else {
        return Ok(false);
    };
    let Some(Stat { stamp: is, .. }) = dir.stat(name)? else {
        return Ok(false);
    };
    if (was.dev, was.ino, was.size, was.mtime_sec, was.mtime_nsec)
        != (is.dev, is.ino, is.size, is.mtime_sec, is.mtime_nsec)
    {
        return Ok(false);
    }
    Ok(journal::read_all(dir, name)? == *before.bytes)
}

/// The last check before a plain rename (where the file system cannot exchange): the target is
/// still the file the commit re-checked (or still absent).
fn still_as_rechecked(dir: &Dir, name: &OsStr, stamp: Option<&Stamp>) -> io::Result<()> {
    let now = dir.stat(name)?;
    let same = match (stamp, now) {
        (None, None) => true,
        (Some(was), Some(Stat { stamp: is, .. })) => {
            (was.dev, was.ino, was.size, was.mtime_sec, was.mtime_nsec)
                == (is.dev, is.ino, is.size, is.mtime_sec, is.mtime_nsec)
        }
        _ => false,
    };
    let what = match (same, stamp) {
        (true, _) => return Ok(()),
        (false, None) => "created",
        (false, Some(_)) => "changed",
    };
    Err(io::Error::other(format!(
        "{} was {what} by another program while the commit was running",
        dir.rel().join(name).display()
    )))
}

/// Keeps the original `target` as `original` beside it, where the file system cannot
/// exchange: a hard link when it has no other name, else a durable copy (a link would share
/// the inode with the other names, whose later edits would then change the saved original).
fn keep_beside(dir: &Dir, target: &OsStr, original: &OsStr, shared: bool) -> io::Result<()> {
    dir.remove_file_if_exists(original)?;
    if !shared && dir.hard_link(target, dir, original).is_ok() {
        return Ok(());
    }
    let mut from: File = dir.open_file(target)?;
    let mut to = dir.create_new(original, 0o600)?;
    io::copy(&mut from, &mut to)?;
    // The copy is what a rollback puts back: it carries the original's owner where it can.
    let meta = {
        use std::os::unix::fs::MetadataExt;
        let meta = from.metadata()?;
        give_to(&to, (meta.uid(), meta.gid()))?;
        meta
    };
    to.set_permissions(meta.permissions())?;
    to.sync_all()
}
