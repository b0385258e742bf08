//! The last step of a commit for each file: putting its staged new content in place (or, for
//! a deletion, moving the file aside) so that nothing another program wrote since the
//! re-check is lost. The exchange leaves the original at the staged name, where it is the
//! backup; where the file system cannot exchange, a link or a copy beside the target keeps it.

use super::journal::{self, Entry};
use super::stage::give_to;
use crate::checksum::Checksum;
use crate::failpoint::{hit, Failpoint, Step};
use crate::fs::{Dir, Folders, Kind, Stat};
use crate::fs::{Stamp, Unread};
use crate::plan::FileWrite;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// A file put in place, and the file the commit still has to check.
pub(super) enum Put {
    /// Done: nothing is left to check.
    Done,
    /// Exchanged with its staged content: what came out, now at the staged name, must still
    /// be found to be the verified original (see [`check_exchanged`]).
    Exchanged(std::ffi::OsString),
}

/// A file exchanged and waiting for its check: its folder, name and staged name, the
/// journal entry, the write and the stamp staging found.
type Exchanged<'a> = (
    Arc<Dir>,
    &'a OsStr,
    std::ffi::OsString,
    &'a Entry,
    &'a FileWrite,
    Option<&'a Stamp>,
);

/// Puts every file in place in the journal's order, the `rename` failpoint reached before
/// each, and stops at the first that fails. A file exchanged with its new content is checked
/// (its original read back from the staged name and compared, the `check` failpoint reached
/// first) on other threads while the next files are exchanged; one found changed is
/// exchanged back there, no further file is put in place, and the error names it. Every file
/// exchanged is checked, even after another failed, so that each one another program changed
/// is exchanged back here; the journal then rolls back the rest, each original found by its
/// hash at the staged name.
pub(super) fn put_all_in_place(
    folders: &Folders,
    entries: &[(&Entry, &FileWrite, Option<&Stamp>)],
    failpoint: Option<&Failpoint>,
) -> Result<(), (PathBuf, io::Error)> {
    let failed = AtomicBool::new(false);
    let (checks, taken) = mpsc::channel::<Exchanged<'_>>();
    let taken = Mutex::new(taken);
    std::thread::scope(|scope| {
        let checkers: Vec<_> = (0..crate::parallel::cores())
            .map(|_| {
                scope.spawn(|| {
                    let mut first = None;
                    loop {
                        let next = taken.lock().expect("no checker panics holding it").recv();
                        let Ok((dir, name, staged, entry, write, stamp)) = next else {
                            return first;
                        };
                        let checked = hit(failpoint, Step::Check).and_then(|()| {
                            check_exchanged(&dir, name, &staged, entry, write, stamp)
                        });
                        if let Err(e) = checked {
                            failed.store(true, Ordering::Relaxed);
                            first.get_or_insert((entry.path.clone(), e));
                        }
                    }
                })
            })
            .collect();
        let mut result = Ok(());
        for &(entry, write, stamp) in entries {
            if failed.load(Ordering::Relaxed) {
                break;
            }
            if entry.is_across() {
                let put = hit(failpoint, Step::Rename)
                    .and_then(|()| put_across(folders, entry, write, stamp, failpoint));
                if let Err(e) = put {
                    result = Err((entry.path.clone(), e));
                    break;
                }
                continue;
            }
            let put = folders.parent_of(&entry.path).and_then(|(dir, name)| {
                hit(failpoint, Step::Rename)?;
                let put = put_in_place(&dir, name, entry, write, stamp)?;
                Ok((dir, name, put))
            });
            match put {
                Ok((dir, name, Put::Exchanged(staged))) => {
                    // The checkers end only when this sender is dropped.
                    let _ = checks.send((dir, name, staged, entry, write, stamp));
                }
                Ok((_, _, Put::Done)) => {}
                Err(e) => {
                    result = Err((entry.path.clone(), e));
                    break;
                }
            }
        }
        drop(checks);
        let checked: Vec<_> = checkers
            .into_iter()
            .filter_map(|checker| checker.join().expect("a checking thread panicked"))
            .collect();
        result.and(checked.into_iter().next().map_or(Ok(()), Err))
    })
}

/// Puts one file's new content in place (or, for a deletion, moves the file aside), so that
/// nothing another program wrote since the re-check is lost:
/// - a modification exchanges the staged file with the target in one step
///   ([`crate::fs::platform::exchange`]) and returns [`Put::Exchanged`]: what came out, now at the staged name, is then checked
///   to be exactly the verified original ([`check_exchanged`]). Where the file system cannot
///   exchange, the original is linked beside the target and checked, and the target checked
///   just before a plain rename (`docs/guarantees.md` says what window that leaves);
/// - a creation renames only if nothing has appeared at the name
///   ([`crate::fs::platform::rename_no_replace`]);
/// - a deletion moves the target to the original's name and checks it the same way, moving it
///   back if it is not the verified file.
pub(super) fn put_in_place(
    dir: &Dir,
    name: &OsStr,
    entry: &Entry,
    write: &FileWrite,
    stamp: Option<&Stamp>,
) -> io::Result<Put> {
    let beside = |p: &Option<PathBuf>| -> io::Result<std::ffi::OsString> {
        p.as_deref()
            .and_then(Path::file_name)
            .map(OsStr::to_os_string)
            .ok_or_else(|| io::Error::other("the journal names no file beside the target"))
    };
    let changed = || changed(dir, name);
    match entry.kind {
        journal::EntryKind::Modify => {
            let staged = beside(&entry.staged)?;
            if dir.exchange(&staged, name)? {
                return Ok(Put::Exchanged(staged));
            }
            // No exchange: the original is kept beside the target first and checked there
            // (a hard link is the target itself; a copy holds what the target held), bytes
            // included, then the target's stamp once more just before the plain rename.
            let original = beside(&entry.backup)?;
            let shared = stamp.is_some_and(|s| s.nlink > 1);
            keep_beside(dir, name, &original, shared)?;
            let verified = match (shared, &write.before) {
                (true, Some(before)) => {
                    Checksum::of(&super::identity::read_all(dir, &original)?) == before.checksum()
                }
                _ => is_verified_original(dir, &original, stamp, write)?,
            };
            if !verified {
                dir.remove_file_if_exists(&original)?;
                return Err(changed());
            }
            still_as_rechecked(dir, name, stamp)?;
            dir.rename(&staged, dir, name).map(|()| Put::Done)
        }
        journal::EntryKind::Create => {
            let staged = beside(&entry.staged)?;
            match dir.rename_new(&staged, dir, name) {
                Ok(true) => Ok(Put::Done),
                Ok(false) => {
                    still_as_rechecked(dir, name, None)?;
                    dir.rename(&staged, dir, name).map(|()| Put::Done)
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(io::Error::other(format!(
                    "{} was created by another program while the commit was running",
                    dir.rel().join(name).display()
                ))),
                Err(e) => Err(e),
            }
        }
        journal::EntryKind::Unchanged => Ok(Put::Done),
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
            Ok(Put::Done)
        }
    }
}

/// Puts in place one entry whose staged or original name is in a folder above its target
/// (see [`super::reshape`]), a file becoming a folder or the reverse:
/// - a deletion moves its file aside into that folder and checks it is the verified
///   original (moving it back if not), then removes the folders it leaves empty
///   ([`Entry::removed_dirs`], innermost first, each with the `mkdir` failpoint);
/// - a creation makes its folders ([`Entry::created_dirs`], outermost first, each with the
///   `mkdir` failpoint), then moves its staged file in from that folder, only if nothing has
///   appeared at its name ([`crate::fs::platform::rename_no_replace`]).
fn put_across(
    folders: &Folders,
    entry: &Entry,
    write: &FileWrite,
    stamp: Option<&Stamp>,
    failpoint: Option<&Failpoint>,
) -> io::Result<()> {
    let root = folders.root();
    match entry.kind {
        journal::EntryKind::Delete => {
            let backup = entry
                .backup
                .as_deref()
                .ok_or_else(|| io::Error::other("the journal names no original"))?;
            let (dir, name) = folders.parent_of(&entry.path)?;
            let (aside, original) = folders.parent_of(backup)?;
            aside.remove_file_if_exists(original)?;
            dir.rename(name, &aside, original)?;
            if !is_verified_original(&aside, original, stamp, write)? {
                if !matches!(aside.rename_new(original, &dir, name), Ok(true)) {
                    return Err(io::Error::other(format!(
                        "{} was changed by another program just before patchdeck deleted it; that program's file is kept as {}",
                        entry.path.display(),
                        backup.display()
                    )));
                }
                return Err(changed(&dir, name));
            }
            for removed in entry.removed_dirs.iter().rev() {
                hit(failpoint, Step::Mkdir)?;
                let (parent, folder) = root.parent_of(removed)?;
                parent.remove_dir(folder).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "{} could not be removed to make way for a file: {e}",
                            removed.display()
                        ),
                    )
                })?;
            }
            Ok(())
        }
        journal::EntryKind::Create => {
            for made in &entry.created_dirs {
                hit(failpoint, Step::Mkdir)?;
                let (parent, folder) = root.parent_of(made)?;
                parent.mkdir(folder)?;
            }
            let staged = entry
                .staged
                .as_deref()
                .ok_or_else(|| io::Error::other("the journal names no staged file"))?;
            let (from, staged) = folders.parent_of(staged)?;
            let (dir, name) = root.parent_of(&entry.path)?;
            match from.rename_new(staged, &dir, name) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    still_as_rechecked(&dir, name, None)?;
                    from.rename(staged, &dir, name)
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(io::Error::other(format!(
                    "{} was created by another program while the commit was running",
                    entry.path.display()
                ))),
                Err(e) => Err(e),
            }
        }
        _ => Err(io::Error::other(format!(
            "{}: only a creation or a deletion is put in place across folders",
            entry.path.display()
        ))),
    }
}

/// The check of a file exchanged with its new content: what came out, now at `staged`, is
/// exactly the verified original (same file, same bytes). If not, another program changed
/// the target since the re-check: its file goes back in place, and the error says so. Nothing
/// another program wrote is lost, even when it writes the target again meanwhile: the two are
/// exchanged back only while the target still holds the commit's new content, and what that
/// puts at the staged name is looked at again. A program that wrote the target twice has its
/// latest version in place and the one before kept at the staged name, which the error names
/// (and the rollback keeps).
fn check_exchanged(
    dir: &Dir,
    name: &OsStr,
    staged: &OsStr,
    entry: &Entry,
    write: &FileWrite,
    stamp: Option<&Stamp>,
) -> io::Result<()> {
    if is_verified_original(dir, staged, stamp, write)? {
        return Ok(());
    }
    let new_content = |at: &OsStr| -> io::Result<bool> {
        let found = super::identity::identity_in(dir, at, journal::Hashing::Checksum)?;
        Ok(found.is_some_and(|found| found.is(&entry.post_hash, entry.post_mode)))
    };
    if new_content(name)? {
        dir.exchange(staged, name)?;
        if new_content(staged)? {
            return Err(changed(dir, name));
        }
        // Written once more between the look and the exchange: that latest version goes back
        // in place, and the earlier one aside again.
        dir.exchange(staged, name)?;
    }
    Err(io::Error::other(format!(
        "{} was replaced by another program twice while patchdeck put it in place: its latest version is left in place, and the one before it is kept as {}",
        dir.rel().join(name).display(),
        dir.rel().join(staged).display()
    )))
}

/// The error for a target another program changed just before the commit replaced it.
fn changed(dir: &Dir, name: &OsStr) -> io::Error {
    io::Error::other(format!(
        "{} was changed by another program just before patchdeck replaced it; it is left as that program made it",
        dir.rel().join(name).display()
    ))
}

/// Whether `name` is exactly the file staging read: the same file (device, inode, size,
/// modification time, as the descriptor it is read through says) holding bytes with the
/// verified checksum.
fn is_verified_original(
    dir: &Dir,
    name: &OsStr,
    stamp: Option<&Stamp>,
    write: &FileWrite,
) -> io::Result<bool> {
    let (Some(was), Some(before)) = (stamp, write.before.as_ref()) else {
        return Ok(false);
    };
    let same = |is: &Stamp| {
        (was.dev, was.ino, was.size, was.mtime_sec, was.mtime_nsec)
            == (is.dev, is.ino, is.size, is.mtime_sec, is.mtime_nsec)
    };
    // Looked at before it is opened (nothing another program put there, a device say, is
    // opened), then again through the descriptor its bytes are read by.
    match dir.stat(name)? {
        Some(Stat {
            kind: Kind::File,
            stamp: is,
            ..
        }) if same(&is) => {}
        _ => return Ok(false),
    }
    let (file, meta) = dir.open_file_stat(name)?;
    if !same(&Stamp::of(&meta)) {
        return Ok(false);
    }
    let bytes = Unread::with(file, meta)?.finish_bytes()?;
    Ok(Checksum::of(&bytes) == before.checksum())
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
    crate::fs::platform::sync(&to)
}
