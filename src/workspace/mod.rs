//! The workspace on disk: resolving a `docPath` to a file under the root, and reading files.
//!
//! Resolution follows AGN-007: a `docPath` is an opaque, lowercase key relative to the root.
//! The exact relative path wins; otherwise the one file whose path matches case-insensitively;
//! two such files is an error, never a guess. Nothing here follows a symbolic link: a path that
//! is absolute, climbs with `..`, or passes through a link is refused. Reads take a
//! [`Snapshot`] (bytes, hashes, line index, size, mtime, mode) that the commit checks the file
//! against before writing.

mod files;
mod named;
pub mod read_ahead;
mod resolve;

pub use read_ahead::{Read, ReadAhead};

use crate::fs::path::{PathProblem, RepoPath, STATE_DIR};
use crate::fs::{read_beneath, snapshot_at, Dir, Root, Snapshot};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A workspace root, with a cache of folder listings for case-insensitive lookups, of the
/// folders on the way to files, of where each docPath led and of the files read, so that a file is resolved, read and hashed once
/// however many steps look at it (until [`Workspace::forget_reads`]).
pub struct Workspace {
    root: PathBuf,
    /// The root held open: every folder and file under it is reached from here.
    beneath: Root,
    listings: RefCell<HashMap<PathBuf, Vec<OsString>>>,
    /// Folders opened on the way to docPaths: the files of one folder share them, so each is
    /// walked to once (up to a bound, see `resolve`).
    folders: RefCell<HashMap<PathBuf, Arc<Dir>>>,
    reads: RefCell<HashMap<RepoPath, Snapshot>>,
    resolved: RefCell<HashMap<String, Result<Resolved, PathProblem>>>,
    /// Set by [`Workspace::release_files`]: files are let go once checked.
    release: Cell<Option<Release>>,
}

/// How a workspace that lets files go once they are checked treats them (`check`, and
/// `apply`, whose commit reads each file again): see [`Workspace::release_files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// Hash each file with SHA-256 before its bytes go (for the JSON report's
    /// `actualSha256`).
    pub sha256: bool,
    /// Keep what a commit needs to read each target again and make its new content from it:
    /// each target's [`crate::checksum::Checksum`], and, whole, the files creations copy (`copy_from`, rare).
    pub commit: bool,
}

/// Where a docPath leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// An existing regular file at this path relative to the root.
    File { rel: RepoPath, by_case: bool },
    /// No file: this is where it would be created (existing folders matched case-insensitively).
    Missing { rel: RepoPath },
}

impl Resolved {
    pub fn rel(&self) -> &RepoPath {
        match self {
            Resolved::File { rel, .. } | Resolved::Missing { rel } => rel,
        }
    }
}

impl Workspace {
    /// Opens a workspace at `root`, which must be an existing folder.
    pub fn open(root: &Path) -> io::Result<Workspace> {
        let root = fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"));
        }
        Ok(Workspace {
            beneath: Root::open(&root)?,
            root,
            listings: RefCell::new(HashMap::new()),
            folders: RefCell::default(),
            reads: RefCell::new(HashMap::new()),
            resolved: RefCell::new(HashMap::new()),
            release: Cell::new(None),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The root held open, for reads and writes beneath it.
    pub fn beneath(&self) -> &Root {
        &self.beneath
    }

    /// The absolute path of a root-relative path.
    pub fn abs(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    /// Where patchdeck keeps its state for this workspace.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    /// Keeps no file read from now on, for `check` and `apply`: a file's bytes are held only
    /// until its check is done. A diff's plainly modified files are read by the threads that place them
    /// and again as each is checked, so such a batch is checked in the memory of its own text
    /// and the files in flight, not of every file it names (on the 2,000-file bench, less
    /// than half the peak). Files a format reads as it loads (a TUL-002 batch's, read ahead
    /// for their hashes; those the formats that find text search) are held from the load
    /// until each is checked.
    ///
    /// [`Workspace::prefetch`] then does nothing, and a diff's files are not read ahead: the
    /// threads that place its hunks read them, and let them go. Verification takes each file
    /// read already from the workspace, reads the others itself, and releases each
    /// [`Snapshot`] once its file is checked. A file read by placing and again by verifying
    /// is judged as verifying found it: the verdict is on the file as it was last read, as
    /// it is when nothing is released. A plan of what such a workspace verified is made
    /// without contents; a commit of it reads each file again and makes each content then
    /// (with [`Release::commit`], which keeps what that needs).
    pub fn release_files(&self, release: Release) {
        self.release.set(Some(release));
    }

    /// How files are released, when they are (see [`Workspace::release_files`]).
    pub fn releases(&self) -> Option<Release> {
        self.release.get()
    }

    /// Reads a regular file without following a link at its last component. A file is read
    /// once: later calls get the same snapshot until [`Workspace::forget_reads`] (or until
    /// verification [takes it](Workspace::read_to_check), in a workspace that releases files).
    pub fn read(&self, rel: &RepoPath) -> io::Result<Snapshot> {
        if let Some(snapshot) = self.reads.borrow().get(rel) {
            return Ok(snapshot.clone());
        }
        let snapshot = self.read_afresh(rel)?;
        self.reads
            .borrow_mut()
            .insert(rel.clone(), snapshot.clone());
        Ok(snapshot)
    }

    /// Reads the regular file at `rel` from its folder, reached as resolving reaches it.
    fn read_afresh(&self, rel: &RepoPath) -> io::Result<Snapshot> {
        let name = rel
            .file_name()
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        match self.folder(rel.parent().unwrap_or(Path::new(""))) {
            Ok(Some(dir)) => snapshot_at(&dir, name),
            Ok(None) => Err(io::Error::from_raw_os_error(libc::ENOENT)),
            Err(problem) => Err(io::Error::other(problem.message)),
        }
    }

    /// Reads the files at these docPaths ahead of time, on every core: reading and hashing is
    /// most of what verifying a large batch costs, and each file is independent. Paths that do
    /// not resolve to a file, or fail to read, are left for [`Workspace::read`] to report.
    pub fn prefetch<'p>(&self, doc_paths: impl IntoIterator<Item = &'p str>) {
        if self.releases().is_some() {
            return;
        }
        let rels: Vec<RepoPath> = doc_paths
            .into_iter()
            .filter_map(|doc_path| match self.resolve(doc_path) {
                Ok(Resolved::File { rel, .. }) => Some(rel),
                _ => None,
            })
            .filter(|rel| !self.reads.borrow().contains_key(rel))
            .collect();
        let root = &self.beneath;
        let read = crate::parallel::map(&rels, |rel| read_beneath(root, rel).ok().flatten());
        let read = rels
            .into_iter()
            .zip(read)
            .filter_map(|(rel, s)| Some((rel, s?)));
        self.reads.borrow_mut().extend(read);
    }

    /// Runs `parse` with a [`ReadAhead`] that reads (and, with `hash`, hashes) on the other
    /// cores, and on this one once `parse` is done, each file `parse` asks for, and keeps what it read as this workspace's reads: a
    /// batch's files are read while the batch is still being parsed (see [`read_ahead`]).
    /// A file read already keeps its first snapshot. The walk that read a file resolved its
    /// docPath too (exactly as written, to a regular file, through real folders): that is
    /// kept as its resolution, unless it was resolved already.
    pub fn read_ahead_with<T>(&self, hash: bool, parse: impl FnOnce(&ReadAhead) -> T) -> T {
        let ahead = ReadAhead::start(&self.root, hash);
        let parsed = parse(&ahead);
        let mut reads = self.reads.borrow_mut();
        let mut resolved = self.resolved.borrow_mut();
        for read in ahead.finish() {
            resolved.entry(read.doc_path).or_insert_with(|| {
                Ok(Resolved::File {
                    rel: read.rel.clone(),
                    by_case: false,
                })
            });
            reads.entry(read.rel).or_insert(read.snapshot);
        }
        parsed
    }

    /// The snapshot of a file read already (ahead of time, say), handed over: the workspace
    /// keeps it no longer.
    fn take_read(&self, rel: &Path) -> Option<Snapshot> {
        self.reads.borrow_mut().remove(rel)
    }

    /// Whether the file at `rel` was read and is kept.
    pub fn has_read(&self, rel: &Path) -> bool {
        self.reads.borrow().contains_key(rel)
    }

    /// A file for verification to check: [`Workspace::read`], or, in a workspace that
    /// releases files, one read already handed over or else read afresh, and not kept.
    pub fn read_to_check(&self, rel: &RepoPath) -> io::Result<Snapshot> {
        match self.releases() {
            Some(_) => match self.take_read(rel) {
                Some(snapshot) => Ok(snapshot),
                None => self.read_afresh(rel),
            },
            None => self.read(rel),
        }
    }

    /// Closes the folders resolving and reading keep open (the next walk opens them again).
    pub fn close_folders(&self) {
        self.folders.borrow_mut().clear();
    }

    /// Forgets every file and folder read so far, so the next look sees the disk as it is now.
    pub fn forget_reads(&self) {
        self.reads.borrow_mut().clear();
        self.listings.borrow_mut().clear();
        self.folders.borrow_mut().clear();
        self.resolved.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_that_releases_files_hands_each_over_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), b"first\n").unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let (rel, _) = RepoPath::parse("f").unwrap();
        let rel = &rel;
        workspace.read(rel).unwrap();
        fs::write(dir.path().join("f"), b"second\n").unwrap();
        // Keeping files: every step sees the first read.
        assert_eq!(
            workspace.read_to_check(rel).unwrap().bytes().as_slice(),
            b"first\n"
        );
        assert!(workspace.has_read(rel));
        workspace.release_files(Release {
            sha256: false,
            commit: false,
        });
        // Releasing them: the read kept is handed over once, then the disk is read again.
        assert_eq!(
            workspace.read_to_check(rel).unwrap().bytes().as_slice(),
            b"first\n"
        );
        assert!(!workspace.has_read(rel));
        assert_eq!(
            workspace.read_to_check(rel).unwrap().bytes().as_slice(),
            b"second\n"
        );
        assert!(!workspace.has_read(rel), "a file read to check is not kept");
    }
}
