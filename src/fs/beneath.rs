//! Folders beneath the workspace root, reached without following a link, and the file
//! operations the commit, recovery and undo make through them.
//!
//! A path is never handed to the kernel whole. The root is opened once; every operation walks
//! from it one component at a time with `openat(O_NOFOLLOW | O_DIRECTORY)` and then acts on
//! the last name relative to that folder (`renameat`, `unlinkat`, `linkat`, `mkdirat`, an
//! `openat` that refuses a link, and [`super::platform`]'s exchange and rename that never
//! replaces). A folder swapped for a symbolic link at any moment, even between two steps of
//! one commit, makes the walk fail instead of leading the write out of the root. Paths given
//! here are root-relative and made of plain names only; anything else (`..`, an absolute
//! path, `.`) is refused before a system call is made.

use super::path::plain_names;
use super::platform;
use super::stamp::Stamp;
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The workspace root, held open.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    path: PathBuf,
}

/// A folder beneath the root, held open; `rel` is where it was when it was opened.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    rel: PathBuf,
}

/// What `lstat` says of a name, without following it: its kind, and the stamp a snapshot of
/// it would carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub kind: Kind,
    pub stamp: Stamp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl Root {
    pub fn open(path: &Path) -> io::Result<Root> {
        let c = cstring(path.as_os_str())?;
        // SAFETY: `c` is a valid NUL-terminated string; the result is checked.
        let fd = unsafe { libc::open(c.as_ptr(), dir_flags()) };
        Ok(Root {
            fd: owned(fd)?,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root itself as a [`Dir`].
    pub fn top(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            rel: PathBuf::new(),
        })
    }

    /// Opens the folder `rel` beneath the root, refusing a link at every step.
    pub fn dir(&self, rel: &Path) -> io::Result<Dir> {
        let mut dir = self.top()?;
        for name in plain_names(rel)? {
            dir = dir.subdir(name)?;
        }
        Ok(dir)
    }

    /// The folder that holds `rel`, opened, and `rel`'s last name.
    pub fn parent_of<'p>(&self, rel: &'p Path) -> io::Result<(Dir, &'p OsStr)> {
        let names = plain_names(rel)?;
        let (last, parents) = names.split_last().ok_or_else(|| invalid(rel, "is empty"))?;
        let mut dir = self.top()?;
        for name in parents {
            dir = dir.subdir(name)?;
        }
        Ok((dir, last))
    }

    /// `lstat` of `rel`; `None` when it (or a folder above it) does not exist.
    pub fn stat(&self, rel: &Path) -> io::Result<Option<Stat>> {
        match self.parent_of(rel) {
            Ok((dir, name)) => dir.stat(name),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The folders one commit writes in, each opened once (walked from the root as [`Root::dir`]
/// walks) and then shared by every thread: a commit of 2,000 files in 40 folders opens 40
/// folders, not 2,000 walks of them. A folder opened here stays the folder it was even if it
/// is moved meanwhile, so [`Folders::still_in_place`] walks each one again from the root
/// before anything is renamed into it: a folder moved or swapped for a link since cannot take
/// the commit's files out of the root.
#[derive(Debug)]
pub struct Folders<'r> {
    root: &'r Root,
    open: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<Dir>>>,
}

impl<'r> Folders<'r> {
    pub fn new(root: &'r Root) -> Folders<'r> {
        Folders {
            root,
            open: Default::default(),
        }
    }

    pub fn root(&self) -> &'r Root {
        self.root
    }

    /// How many folders are held open.
    pub fn open_count(&self) -> usize {
        self.open.lock().expect("not poisoned").len()
    }

    /// The folder `rel`, opened on first use from its own parent (itself opened once).
    pub fn dir(&self, rel: &Path) -> io::Result<std::sync::Arc<Dir>> {
        if let Some(dir) = self.open.lock().expect("not poisoned").get(rel) {
            return Ok(dir.clone());
        }
        let dir = match rel.parent() {
            None => self.root.top()?,
            Some(parent) => {
                let name = rel
                    .file_name()
                    .ok_or_else(|| invalid(rel, "is not a plain path beneath the root"))?;
                plain_names(rel)?;
                self.dir(parent)?.subdir(name)?
            }
        };
        let dir = std::sync::Arc::new(dir);
        let mut open = self.open.lock().expect("not poisoned");
        Ok(open.entry(rel.to_path_buf()).or_insert(dir).clone())
    }

    /// The folder that holds `rel`, and `rel`'s last name.
    pub fn parent_of<'p>(&self, rel: &'p Path) -> io::Result<(std::sync::Arc<Dir>, &'p OsStr)> {
        let names = plain_names(rel)?;
        let last = names.last().ok_or_else(|| invalid(rel, "is empty"))?;
        Ok((self.dir(rel.parent().unwrap_or(Path::new("")))?, last))
    }

    /// `lstat` of `rel`; `None` when it (or a folder above it) does not exist.
    pub fn stat(&self, rel: &Path) -> io::Result<Option<Stat>> {
        match self.parent_of(rel) {
            Ok((dir, name)) => dir.stat(name),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Checks that every folder opened here is still the folder at its path beneath the root
    /// (the same device and inode, reached without a link).
    pub fn still_in_place(&self) -> io::Result<()> {
        let open: Vec<(PathBuf, std::sync::Arc<Dir>)> = self
            .open
            .lock()
            .expect("not poisoned")
            .iter()
            .map(|(rel, dir)| (rel.clone(), dir.clone()))
            .collect();
        for (rel, dir) in open {
            let now = self.root.dir(&rel)?;
            if identity(&now)? != identity(&dir)? {
                return Err(io::Error::other(format!(
                    "{} was moved or replaced while the commit was running",
                    rel.display()
                )));
            }
        }
        Ok(())
    }
}

/// A folder's device and inode.
fn identity(dir: &Dir) -> io::Result<(u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is written by fstat when it returns 0, and only read then.
    check(unsafe { libc::fstat(dir.fd.as_raw_fd(), st.as_mut_ptr()) })?;
    // SAFETY: fstat succeeded.
    let st = unsafe { st.assume_init() };
    // `dev_t` is a 32-bit signed number on macOS.
    #[allow(clippy::unnecessary_cast)]
    Ok((st.st_dev as u64, st.st_ino as u64))
}

impl Dir {
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// This folder opened anew: the same folder, through an open file of its own (which a
    /// `flock` is held by), where [`Dir::try_clone`] shares this one's.
    pub fn reopen(&self) -> io::Result<Dir> {
        let fd = unsafe {
            // SAFETY: a valid folder descriptor and a NUL-terminated name; checked below.
            libc::openat(self.fd.as_raw_fd(), c".".as_ptr(), dir_flags())
        };
        Ok(Dir {
            fd: owned(fd).map_err(|e| self.context(OsStr::new("."), e))?,
            rel: self.rel.clone(),
        })
    }

    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            rel: self.rel.clone(),
        })
    }

    fn at(&self, name: &OsStr) -> io::Result<CString> {
        if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
            return Err(invalid(Path::new(name), "is not a plain file name"));
        }
        cstring(name)
    }

    fn context(&self, name: &OsStr, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.rel.join(name).display()))
    }

    /// Opens the folder `name` in this one; a link there is refused with a clear error.
    pub fn subdir(&self, name: &OsStr) -> io::Result<Dir> {
        let c = self.at(name)?;
        // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
        let fd = unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), dir_flags()) };
        match owned(fd) {
            Ok(fd) => Ok(Dir {
                fd,
                rel: self.rel.join(name),
            }),
            Err(e) => Err(match self.stat(name) {
                // A link is no folder to enter: never followed, it is in the way as a file is.
                Ok(Some(stat)) if stat.kind == Kind::Symlink => io::Error::new(
                    ErrorKind::NotADirectory,
                    format!(
                        "{} is a symbolic link; patchdeck does not write through links",
                        self.rel.join(name).display()
                    ),
                ),
                Ok(Some(stat)) if stat.kind != Kind::Dir => io::Error::new(
                    ErrorKind::NotADirectory,
                    format!("{} is not a folder", self.rel.join(name).display()),
                ),
                _ => self.context(name, e),
            }),
        }
    }

    /// `lstat` of a name in this folder; `None` when there is no such name.
    pub fn stat(&self, name: &OsStr) -> io::Result<Option<Stat>> {
        let c = self.at(name)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `st` is written by fstatat when it returns 0, and only read then.
        let rc = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                ErrorKind::NotFound => Ok(None),
                _ => Err(self.context(name, e)),
            };
        }
        // SAFETY: fstatat succeeded, so `st` is initialised.
        Ok(Some(Stat::of(unsafe { &st.assume_init() })))
    }

    /// Opens a regular file for reading; a link or a special file is refused.
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        self.open_file_stat(name).map(|(file, _)| file)
    }

    /// [`Dir::open_file`], with the file's metadata as it was checked (so that a reader does
    /// not ask for it again).
    pub fn open_file_stat(&self, name: &OsStr) -> io::Result<(File, std::fs::Metadata)> {
        let c = self.at(name)?;
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
        let fd = unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags) };
        let file = File::from(owned(fd).map_err(|e| self.context(name, e))?);
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                self.rel.join(name).display()
            )));
        }
        Ok((file, meta))
    }

    /// Creates a new file (never an existing name, never through a link) with `mode`.
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        let c = self.at(name)?;
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
        let fd =
            unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags, mode as libc::c_uint) };
        Ok(File::from(owned(fd).map_err(|e| self.context(name, e))?))
    }

    /// Renames `from` in this folder to `to` in `dest`, replacing `to` if it exists.
    pub fn rename(&self, from: &OsStr, dest: &Dir, to: &OsStr) -> io::Result<()> {
        let (f, t) = (self.at(from)?, dest.at(to)?);
        // SAFETY: valid descriptors and NUL-terminated names; the result is checked.
        let rc = unsafe {
            libc::renameat(
                self.fd.as_raw_fd(),
                f.as_ptr(),
                dest.fd.as_raw_fd(),
                t.as_ptr(),
            )
        };
        check(rc).map_err(|e| self.context(from, e))
    }

    /// Swaps `a` and `b` in this folder atomically ([`platform::exchange`]): each name then
    /// holds what the other held, and no moment sees either missing. `Ok(false)` when the file
    /// system cannot exchange (then nothing happened).
    pub fn exchange(&self, a: &OsStr, b: &OsStr) -> io::Result<bool> {
        if crate::failpoint::without_rename2() {
            return Ok(false);
        }
        let (ca, cb) = (self.at(a)?, self.at(b)?);
        platform::exchange(self.fd.as_fd(), &ca, self.fd.as_fd(), &cb)
            .map_err(|e| self.context(a, e))
    }

    /// Renames `from` here to `to` in `dest` only if `to` does not exist
    /// ([`platform::rename_no_replace`]): `AlreadyExists` when it does. `Ok(false)` when the
    /// file system cannot promise that (then nothing happened).
    pub fn rename_new(&self, from: &OsStr, dest: &Dir, to: &OsStr) -> io::Result<bool> {
        if crate::failpoint::without_rename2() {
            return Ok(false);
        }
        let (f, t) = (self.at(from)?, dest.at(to)?);
        platform::rename_no_replace(self.fd.as_fd(), &f, dest.fd.as_fd(), &t)
            .map_err(|e| self.context(from, e))
    }

    /// Makes `to` in `dest` a second name of `from` here (a link itself is linked, not followed).
    pub fn hard_link(&self, from: &OsStr, dest: &Dir, to: &OsStr) -> io::Result<()> {
        let (f, t) = (self.at(from)?, dest.at(to)?);
        // SAFETY: valid descriptors and NUL-terminated names; the result is checked.
        let rc = unsafe {
            libc::linkat(
                self.fd.as_raw_fd(),
                f.as_ptr(),
                dest.fd.as_raw_fd(),
                t.as_ptr(),
                0,
            )
        };
        check(rc).map_err(|e| self.context(from, e))
    }

    /// Removes a file (or a link, never what it points to).
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        self.unlink(name, 0)
    }

    /// Removes a file if it is there. A name that is not there is no error, even where the
    /// kernel refuses before it looks (a read-only file system answers `EROFS` for a name it
    /// does not hold): what was never made needs no removing.
    pub fn remove_file_if_exists(&self, name: &OsStr) -> io::Result<()> {
        match self.remove_file(name) {
            Err(e) if e.kind() != ErrorKind::NotFound && !matches!(self.stat(name), Ok(None)) => {
                Err(e)
            }
            _ => Ok(()),
        }
    }

    /// Removes an empty folder.
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        self.unlink(name, libc::AT_REMOVEDIR)
    }

    fn unlink(&self, name: &OsStr, flags: libc::c_int) -> io::Result<()> {
        let c = self.at(name)?;
        // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
        let rc = unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), flags) };
        check(rc).map_err(|e| self.context(name, e))
    }

    /// Creates a folder.
    pub fn mkdir(&self, name: &OsStr) -> io::Result<()> {
        self.mkdir_mode(name, 0o777)
    }

    /// Creates a folder with `mode` (less what the umask takes away).
    pub fn mkdir_mode(&self, name: &OsStr, mode: u32) -> io::Result<()> {
        let c = self.at(name)?;
        // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
        let rc = unsafe { libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), mode as libc::mode_t) };
        check(rc).map_err(|e| self.context(name, e))
    }

    /// Sets this folder's own permission bits (`fchmod` of its descriptor: no name, so no
    /// link, is followed).
    pub fn set_mode(&self, mode: u32) -> io::Result<()> {
        // SAFETY: a valid folder descriptor; the result is checked.
        check(unsafe { libc::fchmod(self.fd.as_raw_fd(), mode as libc::mode_t) })
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.rel.display())))
    }

    /// `fstat` of this folder itself: its owner, permissions and identity.
    pub fn stat_self(&self) -> io::Result<Stat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `st` is written by fstat when it returns 0, and only read then.
        check(unsafe { libc::fstat(self.fd.as_raw_fd(), st.as_mut_ptr()) })
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.rel.display())))?;
        // SAFETY: fstat succeeded.
        Ok(Stat::of(unsafe { &st.assume_init() }))
    }

    /// Removes a folder and everything in it, without following links.
    pub fn remove_tree(&self, name: &OsStr) -> io::Result<()> {
        let sub = match self.subdir(name) {
            Ok(sub) => sub,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        for entry in sub.list()? {
            match sub.stat(&entry)? {
                Some(stat) if stat.kind == Kind::Dir => sub.remove_tree(&entry)?,
                Some(_) => sub.remove_file(&entry)?,
                None => {}
            }
        }
        self.remove_dir(name)
    }

    /// The names in this folder, sorted.
    pub fn list(&self) -> io::Result<Vec<std::ffi::OsString>> {
        // Read through /proc-free means: a duplicate descriptor turned into a directory stream.
        let dup = self.fd.try_clone()?;
        // SAFETY: fdopendir takes ownership of a valid descriptor; the stream is closed below.
        let stream = unsafe { libc::fdopendir(std::os::fd::IntoRawFd::into_raw_fd(dup)) };
        if stream.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `stream` is a valid open directory stream until closedir.
        unsafe { libc::rewinddir(stream) };
        let mut names = Vec::new();
        loop {
            // SAFETY: as above; readdir returns null at the end (errno untouched) or on error.
            let entry = unsafe { libc::readdir(stream) };
            if entry.is_null() {
                break;
            }
            // SAFETY: `d_name` is a NUL-terminated name inside a valid entry.
            let name = unsafe { std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()) };
            let bytes = name.to_bytes();
            if bytes != b"." && bytes != b".." {
                names.push(OsStr::from_bytes(bytes).to_owned());
            }
        }
        // SAFETY: closing the stream we opened.
        unsafe { libc::closedir(stream) };
        names.sort();
        Ok(names)
    }

    /// Makes this folder's entries durable ([`platform::sync`]).
    pub fn sync(&self) -> io::Result<()> {
        platform::sync(&self.fd)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.rel.display())))
    }
}

impl AsRawFd for Dir {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.fd.as_raw_fd()
    }
}

impl Stat {
    /// The same values [`Stamp::of`] gives for the same file, which the commit compares with
    /// these: the widths of `stat`'s fields differ by platform (macOS: a 16-bit mode and link
    /// count, a 32-bit signed device; Linux: `nlink_t` is 64 bits on x86_64 and 32 on other
    /// targets), and each is widened as the standard library widens it.
    #[allow(clippy::unnecessary_cast)]
    fn of(st: &libc::stat) -> Stat {
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFDIR => Kind::Dir,
            libc::S_IFLNK => Kind::Symlink,
            _ => Kind::Other,
        };
        Stat {
            kind,
            stamp: Stamp {
                size: st.st_size as u64,
                mtime_sec: st.st_mtime as i64,
                mtime_nsec: st.st_mtime_nsec as i64,
                mode: st.st_mode as u32,
                dev: st.st_dev as u64,
                ino: st.st_ino as u64,
                nlink: st.st_nlink as u64,
                uid: st.st_uid,
                gid: st.st_gid,
            },
        }
    }
}

fn invalid(path: &Path, why: &str) -> io::Error {
    io::Error::new(ErrorKind::InvalidInput, format!("{} {why}", path.display()))
}

fn dir_flags() -> libc::c_int {
    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC
}

fn cstring(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| invalid(Path::new(s), "contains a NUL byte"))
}

fn owned(fd: libc::c_int) -> io::Result<OwnedFd> {
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;

    #[test]
    fn a_folder_swapped_for_a_link_is_refused_at_the_next_step() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir(ws.path().join("d")).unwrap();
        let root = Root::open(ws.path()).unwrap();
        assert!(root.dir(Path::new("d")).is_ok());
        fs::remove_dir(ws.path().join("d")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("d")).unwrap();
        let err = root.parent_of(Path::new("d/f.txt")).unwrap_err();
        assert!(err.to_string().contains("d is a symbolic link"), "{err}");
    }

    #[test]
    fn folders_are_opened_once_and_a_folder_moved_since_is_caught() {
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join("d/e")).unwrap();
        let root = Root::open(ws.path()).unwrap();
        let folders = Folders::new(&root);
        let (dir, name) = folders.parent_of(Path::new("d/e/f.txt")).unwrap();
        assert_eq!((dir.rel(), name), (Path::new("d/e"), OsStr::new("f.txt")));
        let again = folders.dir(Path::new("d/e")).unwrap();
        assert!(std::sync::Arc::ptr_eq(&dir, &again), "opened twice");
        folders.still_in_place().unwrap();
        // Moved away and replaced by another folder of the same name: the one held open is
        // no longer the folder at d/e.
        fs::rename(ws.path().join("d"), ws.path().join("moved")).unwrap();
        fs::create_dir_all(ws.path().join("d/e")).unwrap();
        let err = folders.still_in_place().unwrap_err();
        assert!(err.to_string().contains("was moved or replaced"), "{err}");
        // Swapped for a link: refused as the walk refuses it.
        fs::remove_dir_all(ws.path().join("d")).unwrap();
        std::os::unix::fs::symlink(ws.path().join("moved"), ws.path().join("d")).unwrap();
        let err = folders.still_in_place().unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn names_must_be_plain() {
        for bad in ["../x", "/etc/passwd", "a/../b"] {
            assert!(plain_names(Path::new(bad)).is_err(), "{bad}");
        }
        let root = Root::open(tempfile::tempdir().unwrap().path()).unwrap();
        assert!(root.top().unwrap().stat(OsStr::new("..")).is_err());
    }

    #[test]
    fn files_are_created_renamed_linked_and_removed_through_the_folder() {
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join("a/b")).unwrap();
        let root = Root::open(ws.path()).unwrap();
        let (dir, name) = root.parent_of(Path::new("a/b/new.txt")).unwrap();
        dir.create_new(OsStr::new(".tmp"), 0o640)
            .unwrap()
            .write_all(b"hi\n")
            .unwrap();
        dir.rename(OsStr::new(".tmp"), &dir, name).unwrap();
        let top = root.top().unwrap();
        dir.hard_link(name, &top, OsStr::new("copy")).unwrap();
        assert_eq!(fs::read(ws.path().join("copy")).unwrap(), b"hi\n");
        assert_eq!(dir.stat(name).unwrap().unwrap().stamp.nlink, 2);
        top.remove_tree(OsStr::new("a")).unwrap();
        assert!(!ws.path().join("a").exists());
        assert_eq!(top.list().unwrap(), vec![std::ffi::OsString::from("copy")]);
    }
}
