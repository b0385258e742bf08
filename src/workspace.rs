//! The workspace on disk: resolving a `docPath` to a file under the root, and reading files.
//!
//! Resolution follows AGN-007: a `docPath` is an opaque, lowercase key relative to the root.
//! The exact relative path wins; otherwise the one file whose path matches case-insensitively;
//! two such files is an error, never a guess. Nothing here follows a symbolic link: a path that
//! is absolute, climbs with `..`, or passes through a link is refused. Reads take a
//! [`Snapshot`] (bytes, hashes, line index, size, mtime, mode) that the commit checks the file
//! against before writing.

use crate::checksum::Checksum;
use crate::lines::{LineIndex, Lines};
use crate::model::sha256_hex;
use crate::problem::ProblemKind;
use crate::read_ahead::ReadAhead;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The largest file patchdeck reads for editing.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Name of the folder under the root where patchdeck keeps its lock, journal and sessions.
pub const STATE_DIR: &str = ".patchdeck";

/// A workspace root, with a cache of folder listings for case-insensitive lookups, of the
/// folders on the way to files, of where each docPath led and of the files read, so that a file is resolved, read and hashed once
/// however many steps look at it (until [`Workspace::forget_reads`]).
pub struct Workspace {
    root: PathBuf,
    listings: RefCell<HashMap<PathBuf, Vec<OsString>>>,
    /// Folders found to be folders (not links) on the way to a docPath: the files of one
    /// folder share them, so each is looked at once.
    folders: RefCell<HashSet<PathBuf>>,
    reads: RefCell<HashMap<PathBuf, Snapshot>>,
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
    /// each target's [`Checksum`], and, whole, the files creations copy (`copy_from`, rare).
    pub commit: bool,
}

/// Where a docPath leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// An existing regular file at this path relative to the root.
    File { rel: PathBuf, by_case: bool },
    /// No file: this is where it would be created (existing folders matched case-insensitively).
    Missing { rel: PathBuf },
}

impl Resolved {
    pub fn rel(&self) -> &Path {
        match self {
            Resolved::File { rel, .. } | Resolved::Missing { rel } => rel,
        }
    }
}

/// Why a docPath cannot be used. `kind` is the report's problem kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathProblem {
    pub kind: ProblemKind,
    pub message: String,
}

impl PathProblem {
    fn new(kind: ProblemKind, message: impl Into<String>) -> PathProblem {
        PathProblem {
            kind,
            message: message.into(),
        }
    }
}

/// A file's content and identity at the moment it was read. Cloning it shares the bytes, and
/// the SHA-256 once some clone has computed it.
///
/// The SHA-256 is computed only when asked for ([`Snapshot::sha256`]): where it is the
/// contract (a batch that names the hash it was written against, the JSON report's
/// `actualSha256`). Checking a unified diff needs none, and hashing every target was a fifth
/// of what `check` spent; the commit and its journal use the [`Checksum`] instead.
///
/// A snapshot [released](Snapshot::release) after its file was verified keeps only its
/// identity: its stamp, its [`Checksum`] and its SHA-256 when those were computed first.
/// Only a workspace told to let files go releases snapshots (see
/// [`Workspace::release_files`]); asking one for its bytes, lines or an uncomputed hash is a
/// bug in patchdeck, and panics rather than reading as empty content.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The bytes as read. Never replaced, only released: the hashes and the line index cached
    /// below (shared by every clone) are of these bytes.
    bytes: Option<Arc<Vec<u8>>>,
    sha256: Arc<OnceLock<String>>,
    checksum: Arc<OnceLock<Checksum>>,
    lines: Arc<OnceLock<Arc<LineIndex>>>,
    pub stamp: Stamp,
}

impl Snapshot {
    /// The snapshot of `bytes` read with `stamp`.
    pub fn new(bytes: Vec<u8>, stamp: Stamp) -> Snapshot {
        Snapshot {
            bytes: Some(Arc::new(bytes)),
            sha256: Arc::default(),
            checksum: Arc::default(),
            lines: Arc::default(),
            stamp,
        }
    }

    /// The bytes as read, shared by every clone.
    pub fn bytes(&self) -> &Arc<Vec<u8>> {
        self.bytes.as_ref().expect(
            "a released file's bytes are never read: the commit reads the file again instead",
        )
    }

    /// Lets the bytes and the line index go (in this snapshot; a clone that still holds them
    /// keeps them), keeping the stamp and the hashes that were computed.
    pub fn release(&mut self) {
        self.bytes = None;
        self.lines = Arc::default();
    }

    /// The SHA-256 when it can be had: computed already, or computed now from the bytes
    /// still held (none for a released snapshot that was not hashed first).
    pub fn known_sha256(&self) -> Option<String> {
        match (&self.bytes, self.sha256.get()) {
            (_, Some(sha)) => Some(sha.clone()),
            (Some(_), None) => Some(self.sha256().to_owned()),
            (None, None) => None,
        }
    }

    /// The [`Checksum`] of the bytes, computed on the first call: what the commit checks the
    /// file against when it reads it again.
    pub fn checksum(&self) -> Checksum {
        *self.checksum.get_or_init(|| Checksum::of(self.bytes()))
    }

    /// Whether [`Snapshot::release`] let the bytes go.
    pub fn is_released(&self) -> bool {
        self.bytes.is_none()
    }

    /// Lowercase hex SHA-256 of the bytes, computed on the first call.
    pub fn sha256(&self) -> &str {
        self.sha256.get_or_init(|| sha256_hex(self.bytes()))
    }

    /// The bytes as lines, indexed on the first call and shared by every later one (and every
    /// clone): placing a diff's hunks, verifying, planning and the reviewer read one index of
    /// the file.
    pub fn lines(&self) -> Lines<'_> {
        Lines::indexed(self.bytes(), self.line_index())
    }

    /// The index [`Snapshot::lines`] reads by, shared (the reviewer's background parser holds
    /// it).
    pub fn line_index(&self) -> &Arc<LineIndex> {
        self.lines
            .get_or_init(|| Arc::new(LineIndex::of(self.bytes())))
    }

    /// Whether the SHA-256 has been computed already (for tests of what is hashed).
    pub fn is_hashed(&self) -> bool {
        self.sha256.get().is_some()
    }
}

/// What identifies a file's version cheaply: re-checked with the hash before a commit writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_sec: i64,
    pub mtime_nsec: i64,
    pub mode: u32,
    pub dev: u64,
    pub ino: u64,
    pub nlink: u64,
    pub uid: u32,
    pub gid: u32,
}

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            size: meta.size(),
            mtime_sec: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            mode: meta.mode(),
            dev: meta.dev(),
            ino: meta.ino(),
            nlink: meta.nlink(),
            uid: meta.uid(),
            gid: meta.gid(),
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

    /// The absolute path of a root-relative path.
    pub fn abs(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    /// Where patchdeck keeps its state for this workspace.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    /// Resolves a docPath to a file, or to where it would be created.
    pub fn resolve(&self, doc_path: &str) -> Result<Resolved, PathProblem> {
        if let Some(known) = self.resolved.borrow().get(doc_path) {
            return known.clone();
        }
        let resolved = self.resolve_afresh(doc_path);
        self.resolved
            .borrow_mut()
            .insert(doc_path.to_owned(), resolved.clone());
        resolved
    }

    fn resolve_afresh(&self, doc_path: &str) -> Result<Resolved, PathProblem> {
        let components = check_lexically(doc_path)?;
        // The exact path first.
        match self.walk_exact(&components)? {
            Exact::File(rel) => {
                return Ok(Resolved::File {
                    rel,
                    by_case: false,
                })
            }
            Exact::NotFile(rel, what) => {
                return Err(PathProblem::new(
                    ProblemKind::NotAFile,
                    format!("{} is {what}, not a regular file", rel.display()),
                ))
            }
            Exact::Missing => {}
        }
        // Then every spelling that matches ignoring case and Unicode normalisation.
        let mut found = Vec::new();
        self.search_case_insensitive(PathBuf::new(), &components, &mut found)?;
        match found.len() {
            0 => Ok(Resolved::Missing {
                rel: self.creation_path(&components)?,
            }),
            1 => Ok(Resolved::File {
                rel: found.pop().expect("one match"),
                by_case: true,
            }),
            _ => {
                found.sort();
                let names: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
                Err(PathProblem::new(
                    ProblemKind::AmbiguousPath,
                    format!(
                        "docPath \"{doc_path}\" matches {} files that differ only in case or Unicode normalisation: {}",
                        names.len(),
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    /// Walks the exact components without following links.
    fn walk_exact(&self, components: &[&str]) -> Result<Exact, PathProblem> {
        let mut rel = PathBuf::new();
        for (i, component) in components.iter().enumerate() {
            rel.push(component);
            let last = i + 1 == components.len();
            if !last && self.folders.borrow().contains(&rel) {
                continue;
            }
            let meta = match fs::symlink_metadata(self.abs(&rel)) {
                Ok(meta) => meta,
                Err(_) => return Ok(Exact::Missing),
            };
            let kind = meta.file_type();
            if kind.is_symlink() {
                return Err(self.symlink_problem(&rel));
            }
            if !last && !kind.is_dir() {
                return Err(PathProblem::new(
                    ProblemKind::NotAFile,
                    format!("{} is a file where a folder is expected", rel.display()),
                ));
            }
            if last {
                return Ok(if kind.is_file() {
                    Exact::File(rel)
                } else {
                    Exact::NotFile(rel, describe_kind(&kind))
                });
            }
            self.folders.borrow_mut().insert(rel.clone());
        }
        Ok(Exact::Missing)
    }

    fn symlink_problem(&self, rel: &Path) -> PathProblem {
        let leads_out = fs::canonicalize(self.abs(rel))
            .map(|target| !target.starts_with(&self.root))
            .unwrap_or(true);
        if leads_out {
            PathProblem::new(
                ProblemKind::PathOutsideRoot,
                format!(
                    "{} is a symbolic link that leads outside the workspace root",
                    rel.display()
                ),
            )
        } else {
            PathProblem::new(
                ProblemKind::Symlink,
                format!(
                    "{} is a symbolic link; patchdeck does not read or write through links",
                    rel.display()
                ),
            )
        }
    }

    fn search_case_insensitive(
        &self,
        rel: PathBuf,
        components: &[&str],
        found: &mut Vec<PathBuf>,
    ) -> Result<(), PathProblem> {
        let Some((first, rest)) = components.split_first() else {
            return Ok(());
        };
        let wanted = fold(first);
        for name in self.listing(&rel) {
            if !same_name(&name, &wanted, &rel)? {
                continue;
            }
            let child = rel.join(&name);
            let Ok(meta) = fs::symlink_metadata(self.abs(&child)) else {
                continue;
            };
            let kind = meta.file_type();
            if kind.is_symlink() {
                return Err(self.symlink_problem(&child));
            }
            if rest.is_empty() {
                if kind.is_file() {
                    found.push(child);
                }
            } else if kind.is_dir() {
                self.search_case_insensitive(child, rest, found)?;
            }
        }
        Ok(())
    }

    /// Where a missing file would go: existing parent folders keep their on-disk spelling when
    /// exactly one matches; the rest of the path is used as written.
    fn creation_path(&self, components: &[&str]) -> Result<PathBuf, PathProblem> {
        let mut rel = PathBuf::new();
        for (i, component) in components.iter().enumerate() {
            if i + 1 == components.len() {
                rel.push(component);
                break;
            }
            let exact = rel.join(component);
            if fs::symlink_metadata(self.abs(&exact)).is_ok_and(|m| m.is_dir()) {
                rel = exact;
                continue;
            }
            let wanted = fold(component);
            let mut matches: Vec<OsString> = Vec::new();
            for name in self.listing(&rel) {
                if same_name(&name, &wanted, &rel)?
                    && fs::symlink_metadata(self.abs(&rel.join(&name))).is_ok_and(|m| m.is_dir())
                {
                    matches.push(name);
                }
            }
            match matches.len() {
                0 => {
                    rel.extend(&components[i..]);
                    return Ok(rel);
                }
                1 => rel.push(&matches[0]),
                _ => {
                    return Err(PathProblem::new(
                        ProblemKind::AmbiguousPath,
                        format!(
                        "folder \"{}\" matches several folders that differ only in case or Unicode normalisation under {}",
                        component,
                        if rel.as_os_str().is_empty() {
                            Path::new(".")
                        } else {
                            &rel
                        }
                        .display()
                    ),
                    ))
                }
            }
        }
        Ok(rel)
    }

    fn listing(&self, rel: &Path) -> Vec<OsString> {
        if let Some(names) = self.listings.borrow().get(rel) {
            return names.clone();
        }
        let mut names: Vec<OsString> = fs::read_dir(self.abs(rel))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.file_name()))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        self.listings
            .borrow_mut()
            .insert(rel.to_path_buf(), names.clone());
        names
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
    pub fn read(&self, rel: &Path) -> io::Result<Snapshot> {
        if let Some(snapshot) = self.reads.borrow().get(rel) {
            return Ok(snapshot.clone());
        }
        let snapshot = read_snapshot(&self.abs(rel))?;
        self.reads
            .borrow_mut()
            .insert(rel.to_path_buf(), snapshot.clone());
        Ok(snapshot)
    }

    /// Reads the files at these docPaths ahead of time, on every core: reading and hashing is
    /// most of what verifying a large batch costs, and each file is independent. Paths that do
    /// not resolve to a file, or fail to read, are left for [`Workspace::read`] to report.
    pub fn prefetch<'p>(&self, doc_paths: impl IntoIterator<Item = &'p str>) {
        if self.releases().is_some() {
            return;
        }
        let rels: Vec<PathBuf> = doc_paths
            .into_iter()
            .filter_map(|doc_path| match self.resolve(doc_path) {
                Ok(Resolved::File { rel, .. }) => Some(rel),
                _ => None,
            })
            .filter(|rel| !self.reads.borrow().contains_key(rel))
            .collect();
        let root = self.root.as_path();
        let read = crate::parallel::map(&rels, |rel| read_snapshot(&root.join(rel)).ok());
        let read = rels
            .into_iter()
            .zip(read)
            .filter_map(|(rel, s)| Some((rel, s?)));
        self.reads.borrow_mut().extend(read);
    }

    /// Runs `parse` with a [`ReadAhead`] that reads (and, with `hash`, hashes) on the other
    /// cores, and on this one once `parse` is done, each file `parse` asks for, and keeps what it read as this workspace's reads: a
    /// batch's files are read while the batch is still being parsed (see [`crate::read_ahead`]).
    /// A file read already keeps its first snapshot. The walk that read a file resolved its
    /// docPath too (exactly as written, to a regular file, through real folders): that is
    /// kept as its resolution, unless it was resolved already.
    pub fn reading_ahead<T>(&self, hash: bool, parse: impl FnOnce(&ReadAhead) -> T) -> T {
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
    pub fn read_to_check(&self, rel: &Path) -> io::Result<Snapshot> {
        match self.releases() {
            Some(_) => match self.take_read(rel) {
                Some(snapshot) => Ok(snapshot),
                None => read_snapshot(&self.abs(rel)),
            },
            None => self.read(rel),
        }
    }

    /// Forgets every file and folder read so far, so the next look sees the disk as it is now.
    pub fn forget_reads(&self) {
        self.reads.borrow_mut().clear();
        self.listings.borrow_mut().clear();
        self.folders.borrow_mut().clear();
        self.resolved.borrow_mut().clear();
    }
}

/// A name as patchdeck identifies files: Unicode NFC, then lowercase, so that `café` typed
/// precomposed and `café` typed with a combining accent (as macOS writes names) are one name.
/// An ASCII name (nearly every one) is its own NFC form, and lowercases byte by byte.
pub fn fold(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect::<String>().to_lowercase()
}

/// Whether a name on disk matches `wanted` (folded by [`fold`]) ignoring case and Unicode
/// normalisation. A name that is not UTF-8 is never matched: when it would read as `wanted` with its bad bytes replaced by
/// U+FFFD, that is an error naming its bytes, not a guess (and not a file `apply` could journal).
fn same_name(name: &OsString, wanted: &str, folder: &Path) -> Result<bool, PathProblem> {
    if let Some(name) = name.to_str() {
        return Ok(fold(name) == wanted);
    }
    if fold(&name.to_string_lossy()) == wanted {
        let bytes = name.as_encoded_bytes().escape_ascii().to_string();
        return Err(PathProblem::new(
            ProblemKind::NotUtf8Name,
            format!(
                "{} holds \"{bytes}\", whose name is not UTF-8; a docPath cannot name it exactly, and patchdeck does not guess",
                if folder.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    folder
                }
                .display()
            ),
        ));
    }
    Ok(false)
}

enum Exact {
    File(PathBuf),
    NotFile(PathBuf, &'static str),
    Missing,
}

fn describe_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Reads a regular file at an absolute path, refusing links and special files.
pub fn read_snapshot(path: &Path) -> io::Result<Snapshot> {
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    snapshot_of(file)
}

/// Reads an open file whole, refusing special files and files over [`MAX_FILE_BYTES`].
pub fn snapshot_of(file: File) -> io::Result<Snapshot> {
    Unread::of(file)?.finish()
}

/// A regular file being read whole: opened and checked, its bytes read so far.
pub struct Unread {
    file: File,
    meta: fs::Metadata,
    bytes: Vec<u8>,
}

impl Unread {
    /// Checks an open file before it is read: a regular file of at most [`MAX_FILE_BYTES`].
    pub fn of(file: File) -> io::Result<Unread> {
        let meta = file.metadata()?;
        Unread::with(file, meta)
    }

    /// [`Unread::of`] a file whose metadata was just taken from it (by
    /// [`crate::commit::beneath::Dir::open_file_stat`]).
    pub fn with(file: File, meta: fs::Metadata) -> io::Result<Unread> {
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "it is {} MiB, more than the {} MiB patchdeck edits",
                    meta.len() >> 20,
                    MAX_FILE_BYTES >> 20
                ),
            ));
        }
        let bytes = Vec::with_capacity(meta.len() as usize);
        Ok(Unread { file, meta, bytes })
    }

    /// Reads what the kernel holds in memory already (`RWF_NOWAIT`): the snapshot when that is
    /// the whole file, else the file as far as it got, for a thread that may wait on the disk
    /// to finish. Where the kernel cannot tell (or refuses the call), the file is read whole
    /// here.
    pub fn read_cached(mut self) -> io::Result<Result<Snapshot, Unread>> {
        let want = self.meta.len() as usize;
        while self.bytes.len() < want {
            match self.read_some(want, libc::RWF_NOWAIT) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Err(self)),
                // Anything else (not supported by this kernel or file system, refused by
                // a sandbox): read it as usual, which says what is wrong if anything is.
                Err(_) => return self.finish().map(Ok),
            }
        }
        self.finish().map(Ok)
    }

    /// One read of up to `want` bytes in all into the room kept for them (`preadv2` at the
    /// file's position, with `flags`): how many bytes it added.
    fn read_some(&mut self, want: usize, flags: libc::c_int) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        let room = want
            .min(self.bytes.capacity())
            .saturating_sub(self.bytes.len());
        let spare = self.bytes.spare_capacity_mut();
        let iov = libc::iovec {
            iov_base: spare.as_mut_ptr().cast(),
            iov_len: room,
        };
        // SAFETY: `iov` points into this vector's spare capacity, `room` bytes of it at most;
        // the kernel writes at most that many, and only the count it returns is kept. An
        // offset of -1 reads at the file's position and moves it, as `read` does.
        let n = unsafe { libc::preadv2(self.file.as_raw_fd(), &iov, 1, -1, flags) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel initialised these `n` bytes just after the length.
        unsafe { self.bytes.set_len(self.bytes.len() + n as usize) };
        Ok(n as usize)
    }

    /// Reads up to `n` more bytes, as a read from memory that stopped part way would have.
    #[cfg(test)]
    pub(crate) fn read_part(&mut self, n: u64) -> io::Result<()> {
        (&mut self.file)
            .take(n)
            .read_to_end(&mut self.bytes)
            .map(|_| ())
    }

    /// Reads the rest, waiting on the disk if it must. Bounded again: a file that grows while
    /// it is read stops at the limit too.
    pub fn finish(self) -> io::Result<Snapshot> {
        let stamp = Stamp::of(&self.meta);
        Ok(Snapshot::new(self.finish_bytes()?, stamp))
    }

    /// [`Unread::finish`], the bytes alone.
    ///
    /// The size the file had when it was opened is read straight into the room kept for it,
    /// one call for a file the kernel holds in memory; then one more call finds the end (or
    /// what the file grew by since). `read_to_end` through a `Take` would not know the size,
    /// and reads 8 KiB, then 16, and so on: four calls for a 42 KB file, read up to four
    /// times per `apply`.
    pub fn finish_bytes(mut self) -> io::Result<Vec<u8>> {
        let want = self.meta.len() as usize;
        while self.bytes.len() < want {
            match self.read_some(want, 0) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let have = self.bytes.len() as u64;
        (&mut self.file)
            .take(MAX_FILE_BYTES.saturating_sub(have))
            .read_to_end(&mut self.bytes)?;
        Ok(self.bytes)
    }
}

/// Code points HFS+ ignores in names, so that `.g\u{200c}it` is `.git` there (git's
/// `next_hfs_char`).
const HFS_IGNORED: &[char] = &[
    '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
    '\u{202e}', '\u{206a}', '\u{206b}', '\u{206c}', '\u{206d}', '\u{206e}', '\u{206f}', '\u{feff}',
];

/// Whether a path component is `name` to some file system a workspace may be checked out on,
/// after git's `is_ntfs_dotgit` and `is_hfs_dotgit`: in any case; on NTFS, with trailing
/// spaces and dots dropped, before an alternate data stream (`:stream`), and with `\\` as a
/// separator; on HFS+, with the code points it ignores removed.
fn names_like(component: &str, name: &str) -> bool {
    let ntfs_name = |part: &str| {
        let part = part.split(':').next().unwrap_or_default();
        part.trim_end_matches([' ', '.']).eq_ignore_ascii_case(name)
    };
    component.split('\\').any(|part| {
        // Every code point HFS+ ignores is outside ASCII: an ASCII part (nearly every one)
        // is compared as it is, without a copy.
        if part.is_ascii() {
            return ntfs_name(part);
        }
        let part: String = part.chars().filter(|c| !HFS_IGNORED.contains(c)).collect();
        ntfs_name(&part)
    })
}

/// Whether a path component is `.git` to git on some file system: [`names_like`], or its
/// NTFS short name `git~1`.
fn is_dotgit(component: &str) -> bool {
    names_like(component, ".git") || names_like(component, "git~1")
}

/// Checks a docPath without touching the disk and splits it into components.
pub fn check_lexically(doc_path: &str) -> Result<Vec<&str>, PathProblem> {
    let outside = |why: &str| {
        PathProblem::new(
            ProblemKind::PathOutsideRoot,
            format!("docPath \"{doc_path}\" {why}; paths must stay under the workspace root"),
        )
    };
    let invalid = |why: &str| {
        PathProblem::new(
            ProblemKind::InvalidPath,
            format!("docPath \"{}\" {why}", doc_path.escape_debug()),
        )
    };
    if doc_path.is_empty() {
        return Err(invalid("is empty"));
    }
    if doc_path.chars().any(|c| c.is_control()) {
        return Err(invalid("contains a control character"));
    }
    let bytes = doc_path.as_bytes();
    if doc_path.starts_with('/') || doc_path.starts_with('\\') {
        return Err(outside("is absolute"));
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(outside("starts with a drive letter"));
    }
    // Linux's limits (PATH_MAX, NAME_MAX): a longer path cannot be opened at all, and would
    // otherwise read as a missing file.
    if bytes.len() >= 4096 {
        return Err(PathProblem::new(
            ProblemKind::PathTooLong,
            format!(
                "docPath of {} bytes is longer than a path may be (4,095 bytes): \"{}…\"",
                bytes.len(),
                doc_path.chars().take(60).collect::<String>().escape_debug()
            ),
        ));
    }
    let components: Vec<&str> = doc_path.split('/').collect();
    if let Some(long) = components.iter().find(|c| c.len() > 255) {
        return Err(PathProblem::new(
            ProblemKind::PathTooLong,
            format!(
                "docPath \"{}…\" has a name of {} bytes, longer than a file name may be (255 bytes)",
                doc_path.chars().take(60).collect::<String>().escape_debug(),
                long.len()
            ),
        ));
    }
    for (i, component) in components.iter().enumerate() {
        match *component {
            ".." => return Err(outside("climbs out with \"..\"")),
            "" if i + 1 == components.len() => {
                return Err(invalid("ends with \"/\"; it must name a file"))
            }
            "" => return Err(invalid("has an empty component (\"//\")")),
            "." => return Err(invalid("has a \".\" component")),
            c if is_dotgit(c) => {
                return Err(PathProblem::new(
                    ProblemKind::ProtectedPath,
                    format!(
                        "docPath \"{}\" is inside .git (\"{}\" is .git to git, or on Windows or macOS); patchdeck never writes there",
                        doc_path.escape_debug(),
                        c.escape_debug()
                    ),
                ))
            }
            // At any depth: a batch could plant sub/.patchdeck/journal for a later --root sub.
            c if names_like(c, STATE_DIR) => {
                return Err(PathProblem::new(
                    ProblemKind::ProtectedPath,
                    format!(
                        "docPath \"{}\" is inside {STATE_DIR} (\"{}\"), patchdeck's own state",
                        doc_path.escape_debug(),
                        c.escape_debug()
                    ),
                ))
            }
            _ => {}
        }
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(bytes: &[u8]) -> Snapshot {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, bytes).unwrap();
        read_snapshot(&path).unwrap()
    }

    /// A file is read whole at every size, and as it is when read: what it grew by after it
    /// was opened is read too, and a file cut short after it was opened is read to its end.
    #[test]
    fn a_file_is_read_whole_whatever_its_size_and_whatever_it_did_after_opening() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        for size in [0, 1, 31, 32, 8191, 8192, 8193, 42_000, 300_001] {
            let bytes: Vec<u8> = (0..size as u32).map(|i| (i % 251) as u8).collect();
            fs::write(&path, &bytes).unwrap();
            assert_eq!(
                read_snapshot(&path).unwrap().bytes().as_slice(),
                bytes,
                "{size}"
            );
        }
        fs::write(&path, b"first\n").unwrap();
        let unread = Unread::of(File::open(&path).unwrap()).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"grown\n")
            .unwrap();
        assert_eq!(unread.finish_bytes().unwrap(), b"first\ngrown\n");
        let unread = Unread::of(File::open(&path).unwrap()).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(3)
            .unwrap();
        assert_eq!(unread.finish_bytes().unwrap(), b"fir");
    }

    #[test]
    fn a_released_snapshot_keeps_its_identity_and_a_clone_its_bytes() {
        let mut released = snapshot(b"one\ntwo\n");
        let stamp = released.stamp;
        let sha = released.sha256().to_owned();
        released.lines();
        let kept = released.clone();
        released.release();
        assert!(released.is_released() && !kept.is_released());
        assert_eq!(released.stamp, stamp);
        assert_eq!(released.sha256(), sha, "a hash computed before is kept");
        assert_eq!(kept.bytes().as_slice(), b"one\ntwo\n");
        assert_eq!(kept.lines().len(), 2);
    }

    #[test]
    fn a_released_snapshot_keeps_the_checksum_and_says_which_hashes_it_knows() {
        let mut released = snapshot(b"one\ntwo\n");
        let checksum = released.checksum();
        assert_eq!(checksum, Checksum::of(b"one\ntwo\n"));
        assert!(
            released.known_sha256().is_some(),
            "computed from the bytes held"
        );
        let mut unhashed = snapshot(b"three\n");
        unhashed.checksum();
        released.release();
        unhashed.release();
        assert_eq!(
            released.checksum(),
            checksum,
            "the checksum outlives the bytes"
        );
        assert_eq!(
            released.known_sha256().as_deref(),
            Some(sha256_hex(b"one\ntwo\n").as_str())
        );
        assert_eq!(
            unhashed.known_sha256(),
            None,
            "never computed, and the bytes are gone"
        );
        assert_eq!(unhashed.checksum(), Checksum::of(b"three\n"));
    }

    #[test]
    #[should_panic(expected = "a released file's bytes are never read")]
    fn a_released_snapshot_never_reads_as_empty_content() {
        let mut released = snapshot(b"content\n");
        released.release();
        released.bytes();
    }

    #[test]
    #[should_panic(expected = "a released file's bytes are never read")]
    fn a_released_snapshot_is_not_hashed_afterwards() {
        let mut released = snapshot(b"content\n");
        released.release();
        released.sha256();
    }

    #[test]
    fn a_workspace_that_releases_files_hands_each_over_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), b"first\n").unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let rel = Path::new("f");
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

    /// The general fold: NFC, then Unicode lowercase.
    fn fold_by_unicode(name: &str) -> String {
        use unicode_normalization::UnicodeNormalization;
        name.nfc().collect::<String>().to_lowercase()
    }

    /// Every one- and two-character ASCII name, and some longer ones.
    fn ascii_names() -> Vec<String> {
        let chars: Vec<char> = (0u8..128).map(char::from).collect();
        let mut names: Vec<String> = chars.iter().map(|c| c.to_string()).collect();
        for a in &chars {
            for b in &chars {
                names.push(format!("{a}{b}"));
            }
        }
        names.extend(
            [
                ".GIT",
                "Git~1",
                ".git. . ",
                ".git:stream",
                "a\\.Git",
                ".PatchDeck.",
                "Src/Main.RS",
            ]
            .map(str::to_owned),
        );
        names
    }

    #[test]
    fn an_ascii_name_folds_as_unicode_would_fold_it() {
        for name in ascii_names() {
            assert_eq!(fold(&name), fold_by_unicode(&name), "{name:?}");
        }
        // Outside ASCII, the general fold: composed, then lowercased.
        assert_eq!(fold("Cafe\u{301}.TXT"), "caf\u{e9}.txt");
        assert_eq!(fold("\u{c9}T\u{c9}"), "\u{e9}t\u{e9}");
    }

    #[test]
    fn an_ascii_component_names_git_exactly_when_its_filtered_copy_does() {
        let by_copy = |component: &str, name: &str| {
            component.split('\\').any(|part| {
                let part: String = part.chars().filter(|c| !HFS_IGNORED.contains(c)).collect();
                let part = part.split(':').next().unwrap_or_default();
                part.trim_end_matches([' ', '.']).eq_ignore_ascii_case(name)
            })
        };
        let mut matched = 0;
        for component in ascii_names() {
            for name in [".git", "git~1", STATE_DIR] {
                let like = names_like(&component, name);
                assert_eq!(like, by_copy(&component, name), "{component:?} as {name:?}");
                matched += usize::from(like);
            }
        }
        assert!(matched >= 5, "the names cover matches too, found {matched}");
        // Outside ASCII, the code points HFS+ ignores are still dropped.
        assert!(is_dotgit(".g\u{200c}IT"));
        assert!(!is_dotgit(".g\u{e9}it"));
    }
}
