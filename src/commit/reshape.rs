//! A file that becomes a folder, or a folder that becomes a file (git's t4114), in one atomic
//! commit.
//!
//! A folder `foo` cannot be made while the file `foo` stands, nor a file `foo` created while
//! the folder does; a new file cannot be staged beside its target in a folder not made yet, nor
//! can a deleted file's original be kept in a folder that must go. So, for the writes
//! involved, the staged new content or the moved-aside original is kept in the nearest folder
//! above that the commit does not change (the journal names it there: [`Entry::is_across`],
//! journal version 4), and the exchange takes the deletions that clear the way first:
//! - a file becoming a folder: the deletion of `foo` comes first; the creation of `foo/baz`,
//!   staged beside `foo`, makes its folders (journaled as `created_dirs`) as it is put in
//!   place, then moves its staged file in (a rename that never replaces, from one folder to
//!   another);
//! - a folder becoming a file: the deletions of every file under `foo` come first, each moved
//!   aside beside `foo`; the last removes the folders it leaves empty (journaled as
//!   `removed_dirs`), innermost first; the creation of `foo` then goes in as any other.
//!
//! A rollback goes in reverse: the created file removed, the folders made removed, the
//! folders removed made again, the originals moved back ([`roll_back`]).

use super::identity::{identity_in, Identity};
use super::journal::{Entry, EntryKind, Hashing};
use crate::fs::{Kind, Root};
use crate::plan::{FileWrite, WriteKind};
use std::collections::{BTreeSet, HashMap};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// What one write of a commit needs beyond the usual when a file becomes a folder or the
/// reverse; the default, nothing.
#[derive(Clone, Debug, Default)]
pub(super) struct Reshape {
    /// The folder above the target where its staged or original name is kept (none: beside
    /// it, as usual).
    pub home: Option<PathBuf>,
    /// For a creation under a file the commit deletes: the folders it makes as it is put in
    /// place, outermost first.
    pub created: Vec<PathBuf>,
    /// For the last deletion under a folder a creation replaces: the folders it removes,
    /// outermost first (removed innermost first), with their permission bits.
    pub removed: Vec<PathBuf>,
    pub removed_modes: Vec<u32>,
    /// A creation where a folder stands that the commit's deletions empty and remove.
    pub replaces_folder: bool,
}

impl Reshape {
    /// Where a name patchdeck gives beside `rel` is kept for this write.
    pub fn place(&self, beside: PathBuf) -> PathBuf {
        match (&self.home, beside.file_name()) {
            (Some(home), Some(name)) => home.join(name),
            _ => beside,
        }
    }
}

/// The folder that holds `rel` ("" for the root).
fn parent(rel: &Path) -> PathBuf {
    rel.parent().unwrap_or(Path::new("")).to_path_buf()
}

/// The folders above `rel`, innermost first, the root left out.
fn folders_above(rel: &Path) -> Vec<&Path> {
    rel.ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .collect()
}

/// The writes in the order the commit puts them in place, with what each needs: the
/// deletions that clear the way for a file becoming a folder or the reverse come first, the
/// rest keep their order. A commit with none of these gets its writes as they came, and
/// nothing is looked at on disk unless a creation's path holds files the commit deletes.
pub(super) fn order<'p>(
    root: &Root,
    writes: Vec<&'p FileWrite>,
) -> io::Result<(Vec<&'p FileWrite>, Vec<Reshape>)> {
    let mut deleted: HashMap<&Path, usize> = HashMap::new();
    let mut under: HashMap<&Path, Vec<usize>> = HashMap::new();
    for (j, w) in writes.iter().enumerate() {
        if w.kind == WriteKind::Delete {
            deleted.insert(w.rel.as_path(), j);
            for folder in folders_above(&w.rel) {
                under.entry(folder).or_default().push(j);
            }
        }
    }
    let mut shapes = vec![Reshape::default(); writes.len()];
    let mut first = vec![false; writes.len()];
    let mut made = BTreeSet::new();
    for (i, w) in writes.iter().enumerate() {
        if w.kind != WriteKind::Create {
            continue;
        }
        // A file becoming a folder: the outermost deleted file above the new one.
        let folders = folders_above(&w.rel);
        if let Some(k) = folders.iter().rposition(|f| deleted.contains_key(f)) {
            first[deleted[folders[k]]] = true;
            shapes[i].home = Some(parent(folders[k]));
            shapes[i].created = folders[..=k]
                .iter()
                .rev()
                .filter(|d| made.insert(d.to_path_buf()))
                .map(|d| d.to_path_buf())
                .collect();
        }
        // A folder becoming a file: every deletion under it.
        if let Some(inside) = under.get(w.rel.as_path()) {
            if matches!(root.stat(&w.rel)?, Some(st) if st.kind == Kind::Dir) {
                let dirs = folders_in(root, &w.rel)?;
                for &j in inside {
                    first[j] = true;
                    shapes[j].home = Some(parent(&w.rel));
                }
                let last = *inside.iter().max().expect("one at least");
                shapes[last].removed_modes = dirs
                    .iter()
                    .map(|d| Ok(root.dir(d)?.stat_self()?.stamp.mode & 0o7777))
                    .collect::<io::Result<_>>()?;
                shapes[last].removed = dirs;
                shapes[i].replaces_folder = true;
            }
        }
    }
    if !first.contains(&true) {
        return Ok((writes, shapes));
    }
    let order: Vec<usize> = (0..writes.len())
        .filter(|&i| first[i])
        .chain((0..writes.len()).filter(|&i| !first[i]))
        .collect();
    Ok((
        order.iter().map(|&i| writes[i]).collect(),
        order.iter().map(|&i| shapes[i].clone()).collect(),
    ))
}

/// The folder `rel` and every folder in it, each before those it holds. An empty folder in it
/// is an error: no deletion of the commit empties it, so it is not the commit's to remove (a
/// folder someone made inside one a commit made, undone).
fn folders_in(root: &Root, rel: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found = vec![rel.to_path_buf()];
    let mut next = 0;
    while next < found.len() {
        let dir = root.dir(&found[next])?;
        let names = dir.list()?;
        if names.is_empty() {
            return Err(io::Error::other(format!(
                "{} is an empty folder that no deletion of this commit empties; the file {} cannot take the folder's place while it stands: remove it, or keep the folder",
                found[next].display(),
                rel.display()
            )));
        }
        for name in names {
            if matches!(dir.stat(&name)?, Some(st) if st.kind == Kind::Dir) {
                found.push(found[next].join(name));
            }
        }
        next += 1;
    }
    Ok(found)
}

/// What [`roll_back`] did with an entry's file, for the recovery to say.
#[derive(Debug, Default)]
pub(super) struct RolledBack {
    /// The original put back.
    pub restored: bool,
    /// The file the commit created removed.
    pub removed: bool,
    /// Another program's file found there, left as it is.
    pub left_alone: bool,
    /// What is kept at the original's name, beside another program's file.
    pub kept: Option<PathBuf>,
}

/// Puts one entry [`Entry::is_across`] back as it was before the commit, wherever the commit
/// had got to with it (the entries after it already rolled back): a creation's file removed
/// when it is the commit's, its staged file removed, the folders it made removed when empty;
/// a deletion's folders made again, then its original moved back from the folder above,
/// found by its hash. Idempotent, as [`super::settle::rollback_entry`] is.
pub(super) fn roll_back(root: &Root, entry: &Entry, hashing: Hashing) -> io::Result<RolledBack> {
    let mut done = RolledBack::default();
    let is = |found: &Option<Identity>, hash: &Option<String>| {
        found.as_ref().is_some_and(|found| found.is(hash, None))
    };
    match entry.kind {
        EntryKind::Create => {
            match root.parent_of(&entry.path) {
                Ok((dir, name)) => {
                    let current = identity_in(&dir, name, hashing)?;
                    if is(&current, &entry.post_hash) {
                        dir.remove_file(name)?;
                        done.removed = true;
                    } else if current.is_some() {
                        done.left_alone = true;
                    }
                    dir.sync()?;
                }
                // Its folder not made yet, or the file it replaces still there, or another
                // program's file or link where its folder was: the file is not there to remove.
                Err(e) if in_the_way(&e) => {}
                Err(e) => return Err(e),
            }
            if let Some(staged) = &entry.staged {
                let (dir, name) = root.parent_of(staged)?;
                dir.remove_file_if_exists(name)?;
                dir.sync()?;
            }
            for made in entry.created_dirs.iter().rev() {
                // Never made (nor the folder above it), or not empty (another program's
                // file: it stays).
                if let Ok((parent, name)) = root.parent_of(made) {
                    if parent.remove_dir(name).is_ok() {
                        parent.sync()?;
                    }
                }
            }
            Ok(done)
        }
        EntryKind::Delete => {
            // Another program's file (or link) where a folder of the original was: the original
            // cannot go back, and stays, named, in the folder above, as that program's file
            // stays where it is.
            let left_aside = |mut done: RolledBack| -> io::Result<RolledBack> {
                let backup = entry.backup.as_deref().unwrap_or(Path::new(""));
                let (aside, aside_name) = root.parent_of(backup)?;
                if !is(&identity_in(&aside, aside_name, hashing)?, &entry.pre_hash) {
                    return Err(io::Error::other(format!(
                        "{} cannot go back (another program's file stands where its folder was), and its original is no longer kept ({})",
                        entry.path.display(),
                        backup.display()
                    )));
                }
                done.left_alone = true;
                done.kept = Some(backup.to_path_buf());
                Ok(done)
            };
            for (n, removed) in entry.removed_dirs.iter().enumerate() {
                let (parent, name) = match root.parent_of(removed) {
                    Ok(found) => found,
                    Err(e) if in_the_way(&e) => return left_aside(done),
                    Err(e) => return Err(e),
                };
                match parent.stat(name)? {
                    Some(st) if st.kind == Kind::Dir => {}
                    None => {
                        // Made private first, then given the permissions it had.
                        parent.mkdir_mode(name, 0o700)?;
                        if let Some(&mode) = entry.removed_dir_modes.get(n) {
                            parent.subdir(name)?.set_mode(mode)?;
                        }
                        parent.sync()?;
                    }
                    Some(_) => return left_aside(done),
                }
            }
            let (dir, name) = match root.parent_of(&entry.path) {
                Ok(found) => found,
                Err(e) if in_the_way(&e) => return left_aside(done),
                Err(e) => return Err(e),
            };
            let backup = entry
                .backup
                .as_deref()
                .ok_or_else(|| io::Error::other("the journal names no original"))?;
            let (aside, aside_name) = root.parent_of(backup)?;
            let current = identity_in(&dir, name, hashing)?;
            let kept = identity_in(&aside, aside_name, hashing)?;
            if is(&current, &entry.pre_hash) {
                // Untouched, or already put back; a copy left aside goes.
                if is(&kept, &entry.pre_hash) {
                    aside.remove_file(aside_name)?;
                }
            } else if dir.stat(name)?.is_none() {
                if !is(&kept, &entry.pre_hash) {
                    return Err(io::Error::other(format!(
                        "{} was deleted and its original is no longer kept ({})",
                        entry.path.display(),
                        backup.display()
                    )));
                }
                match aside.rename_new(aside_name, &dir, name)? {
                    true => {}
                    false => aside.rename(aside_name, &dir, name)?,
                }
                done.restored = true;
            } else {
                done.left_alone = true;
                if aside.stat(aside_name)?.is_some() {
                    done.kept = Some(backup.to_path_buf());
                }
            }
            dir.sync()?;
            aside.sync()?;
            Ok(done)
        }
        // Only creations and deletions are ever kept away from their target.
        EntryKind::Modify | EntryKind::Unchanged => Err(io::Error::other(format!(
            "{}: a modification kept away from its file",
            entry.path.display()
        ))),
    }
}

/// Whether an error reaching a path says that its folder is not there as a folder: missing, a
/// file, or a link (never followed; `fs` says both as `NotADirectory`).
fn in_the_way(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
        || e.raw_os_error() == Some(libc::ELOOP)
}
