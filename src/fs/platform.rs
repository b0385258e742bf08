//! What the commit needs of the operating system beyond POSIX, one function per primitive, each
//! written once per platform: the one place in the core that names a call of one platform's own.
//!
//! | primitive | Linux | macOS |
//! |---|---|---|
//! | [`exchange`] | `renameat2(RENAME_EXCHANGE)` | `renameatx_np(RENAME_SWAP)` |
//! | [`rename_no_replace`] | `renameat2(RENAME_NOREPLACE)` | `renameatx_np(RENAME_EXCL)` |
//! | [`sync`] (files and folders) | `fsync` | `fcntl(F_FULLFSYNC)`, else `fsync` (see [`sync`]) |
//! | [`start_writeback`] | `sync_file_range(SYNC_FILE_RANGE_WRITE)` | nothing (advice only) |
//! | [`read_cached`] | `preadv2(RWF_NOWAIT)` | `Unsupported`: the caller reads as usual |
//! | [`random`] | `getrandom` | `getentropy` |
//!
//! Callers see the same meaning everywhere. Where a file system cannot give a primitive, the
//! answer says so (`Ok(false)`, `Unsupported`) and the caller takes the fallback that
//! `docs/guarantees.md` describes; nothing here decides a fallback of its own except [`sync`]'s,
//! which is documented there too. The platforms are those `cfg(target_os)` names below: another
//! one does not build, rather than build without a guarantee.
//!
//! This module knows descriptors and names, never a path: walking to a folder without
//! following a link is [`super::beneath`]'s.

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
compile_error!(
    "patchdeck's commit needs an atomic exchange, a rename that never replaces and durable \
     writes, which src/fs/platform.rs knows on Linux and macOS only (see docs/guarantees.md)"
);

use std::ffi::CStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

/// Swaps `a` in `dir_a` and `b` in `dir_b` atomically: each name then holds what the other
/// held, and no moment sees either missing. `Ok(false)` when the file system cannot exchange
/// (then nothing happened).
pub fn exchange(dir_a: BorrowedFd, a: &CStr, dir_b: BorrowedFd, b: &CStr) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    let flag = libc::RENAME_EXCHANGE;
    #[cfg(target_os = "macos")]
    let flag = libc::RENAME_SWAP;
    rename_with(dir_a, a, dir_b, b, flag)
}

/// Renames `from` in `from_dir` to `to` in `to_dir` only if `to` does not exist, as one step:
/// `AlreadyExists` when it does, and both names are left as they were. `Ok(false)` when the
/// file system cannot promise that (then nothing happened).
pub fn rename_no_replace(
    from_dir: BorrowedFd,
    from: &CStr,
    to_dir: BorrowedFd,
    to: &CStr,
) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    let flag = libc::RENAME_NOREPLACE;
    #[cfg(target_os = "macos")]
    let flag = libc::RENAME_EXCL;
    rename_with(from_dir, from, to_dir, to, flag)
}

/// A rename with a flag of the platform's own rename call: `Ok(false)` for the answers a file
/// system gives when it does not support the flag.
fn rename_with(
    from_dir: BorrowedFd,
    from: &CStr,
    to_dir: BorrowedFd,
    to: &CStr,
    flag: libc::c_uint,
) -> io::Result<bool> {
    let (from_dir, to_dir) = (from_dir.as_raw_fd(), to_dir.as_raw_fd());
    // SAFETY: valid descriptors and NUL-terminated names; the result is checked.
    #[cfg(target_os = "linux")]
    let rc = unsafe { libc::renameat2(from_dir, from.as_ptr(), to_dir, to.as_ptr(), flag) };
    // SAFETY: as above.
    #[cfg(target_os = "macos")]
    let rc = unsafe { libc::renameatx_np(from_dir, from.as_ptr(), to_dir, to.as_ptr(), flag) };
    match rc {
        0 => Ok(true),
        _ => {
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                Some(code) if not_supported(code) => Ok(false),
                _ => Err(error),
            }
        }
    }
}

/// The answers by which a file system says it does not do what was asked (as opposed to
/// failing at it).
fn not_supported(code: libc::c_int) -> bool {
    #[cfg(target_os = "linux")]
    let codes = [libc::EINVAL, libc::ENOSYS, libc::EOPNOTSUPP];
    // ENOTSUP and EOPNOTSUPP are two numbers on macOS; ENOTTY is a file system's answer to an
    // `fcntl` it has no handler for.
    #[cfg(target_os = "macos")]
    let codes = [libc::EINVAL, libc::ENOTSUP, libc::EOPNOTSUPP, libc::ENOTTY];
    codes.contains(&code)
}

/// Makes a file's or a folder's data and metadata durable: written to the disk's own storage,
/// not only handed to it. On Linux `fsync` does that. On macOS `fsync` only hands the data to
/// the drive, which may keep it in its cache across a power cut; `fcntl(F_FULLFSYNC)` has the
/// drive write it, and is what this uses, for folders as for files. A file system that does not
/// support `F_FULLFSYNC` (some network and FUSE file systems say so) gets `fsync`, the most it
/// offers: what `fsync` promises there, it promises here.
pub fn sync(fd: impl AsFd) -> io::Result<()> {
    let fd = fd.as_fd().as_raw_fd();
    #[cfg(target_os = "macos")]
    {
        // SAFETY: F_FULLFSYNC takes no argument; the result is checked.
        match unsafe { libc::fcntl(fd, libc::F_FULLFSYNC) } {
            0 => return Ok(()),
            _ => {
                let error = io::Error::last_os_error();
                if !error.raw_os_error().is_some_and(not_supported) {
                    return Err(error);
                }
            }
        }
    }
    // SAFETY: fsync on a valid descriptor; the result is checked.
    match unsafe { libc::fsync(fd) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Asks the kernel to start writing a file's data out now, without waiting, so that by the
/// time [`sync`] is called the disk has mostly done the work. Advice only: where it is not
/// supported (macOS has no such call), `sync` does it all.
pub fn start_writeback(file: impl AsFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: a valid descriptor; the call only schedules writeback of its pages.
    unsafe {
        libc::sync_file_range(file.as_fd().as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
    #[cfg(target_os = "macos")]
    let _ = file;
}

/// One read at the file's position into `into`, taking only what the kernel holds in memory
/// already: how many bytes were read (moving the position as `read` does), `WouldBlock` when
/// the next byte would wait on the disk. `Unsupported` where the kernel cannot tell (macOS):
/// the caller then reads as it would have without asking.
pub fn read_cached(file: impl AsFd, into: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    #[cfg(target_os = "linux")]
    {
        let iov = libc::iovec {
            iov_base: into.as_mut_ptr().cast(),
            iov_len: into.len(),
        };
        // SAFETY: `iov` describes `into`; the kernel writes at most its length, and the caller
        // keeps only the count returned. An offset of -1 reads at the file's position.
        let n = unsafe { libc::preadv2(file.as_fd().as_raw_fd(), &iov, 1, -1, libc::RWF_NOWAIT) };
        match n {
            n if n >= 0 => Ok(n as usize),
            _ => Err(io::Error::last_os_error()),
        }
    }
    #[cfg(target_os = "macos")]
    {
        let _ = (file, into);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Fills `out` from the kernel's random source.
pub fn random(out: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < out.len() {
        let rest = &mut out[filled..];
        // SAFETY: the pointer and length describe the unfilled part of `out`.
        #[cfg(target_os = "linux")]
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        // getentropy fills at most 256 bytes a call, all of them or none.
        #[cfg(target_os = "macos")]
        let n = {
            let len = rest.len().min(256);
            // SAFETY: as above, `len` bytes of them.
            match unsafe { libc::getentropy(rest.as_mut_ptr().cast(), len) } {
                0 => len as isize,
                _ => -1,
            }
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Each primitive as the commit uses it, on the platform at hand: these run wherever the
    //! crate builds, against the file system the temporary folder is on.

    use super::*;
    use std::fs::{self, File};
    use std::path::Path;

    /// The folder `path`, open, as the commit holds its folders.
    fn folder(path: &Path) -> File {
        File::open(path).unwrap()
    }

    /// What is at `name` in `dir`: a file's bytes, or the names in a folder.
    fn what_is_at(dir: &Path, name: &str) -> String {
        let path = dir.join(name);
        match fs::symlink_metadata(&path).unwrap().is_dir() {
            true => {
                let mut names: Vec<String> = fs::read_dir(&path)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect();
                names.sort();
                format!("folder {names:?}")
            }
            false => format!(
                "file {}",
                String::from_utf8(fs::read(path).unwrap()).unwrap()
            ),
        }
    }

    #[test]
    fn exchange_swaps_two_files_and_a_file_with_a_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("staged"), "new").unwrap();
        fs::write(dir.join("target"), "old").unwrap();
        let top = folder(dir);
        let swapped = exchange(top.as_fd(), c"staged", top.as_fd(), c"target").unwrap();
        assert!(
            swapped,
            "the file system under {} cannot exchange",
            dir.display()
        );
        assert_eq!(what_is_at(dir, "target"), "file new");
        assert_eq!(what_is_at(dir, "staged"), "file old");

        // Another program's folder at the target is exchanged like a file (and recovery
        // exchanges it back), across two folders too.
        fs::create_dir_all(dir.join("sub/theirs")).unwrap();
        fs::write(dir.join("sub/theirs/inside"), "").unwrap();
        let sub = folder(&dir.join("sub"));
        assert!(exchange(top.as_fd(), c"staged", sub.as_fd(), c"theirs").unwrap());
        assert_eq!(what_is_at(dir, "staged"), "folder [\"inside\"]");
        assert_eq!(what_is_at(&dir.join("sub"), "theirs"), "file old");
    }

    #[test]
    fn an_exchange_with_a_name_missing_fails_and_moves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("staged"), "new").unwrap();
        let top = folder(tmp.path());
        let error = exchange(top.as_fd(), c"staged", top.as_fd(), c"gone").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
        assert_eq!(what_is_at(tmp.path(), "staged"), "file new");
        assert!(!tmp.path().join("gone").exists());
    }

    #[test]
    fn rename_no_replace_refuses_an_existing_name_and_leaves_both() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("staged"), "new").unwrap();
        fs::write(dir.join("theirs"), "created meanwhile").unwrap();
        fs::create_dir(dir.join("their-folder")).unwrap();
        let top = folder(dir);
        for taken in [c"theirs", c"their-folder"] {
            let error = rename_no_replace(top.as_fd(), c"staged", top.as_fd(), taken).unwrap_err();
            assert_eq!(
                error.kind(),
                io::ErrorKind::AlreadyExists,
                "{taken:?}: {error}"
            );
        }
        assert_eq!(what_is_at(dir, "staged"), "file new");
        assert_eq!(what_is_at(dir, "theirs"), "file created meanwhile");
        assert_eq!(what_is_at(dir, "their-folder"), "folder []");

        // A free name takes the file, from one folder into another as the commit's reshaping
        // moves it.
        let sub = folder(&dir.join("their-folder"));
        let moved = rename_no_replace(top.as_fd(), c"staged", sub.as_fd(), c"new").unwrap();
        assert!(
            moved,
            "the file system under {} cannot refuse to replace",
            dir.display()
        );
        assert!(!dir.join("staged").exists());
        assert_eq!(what_is_at(&dir.join("their-folder"), "new"), "file new");
    }

    /// What can be checked of durability without cutting the power: a sync of a file and of
    /// the folder holding it succeeds, and leaves the bytes and the name as written.
    #[test]
    fn a_sync_of_a_file_and_of_its_folder_leaves_what_was_written() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join("made")).unwrap();
        let path = tmp.path().join("made/staged");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut file = File::create_new(&path).unwrap();
        io::Write::write_all(&mut file, &bytes).unwrap();
        start_writeback(&file);
        sync(&file).unwrap();
        sync(folder(&tmp.path().join("made"))).unwrap();
        sync(folder(tmp.path())).unwrap();
        assert_eq!(fs::read(&path).unwrap(), bytes);
        assert_eq!(what_is_at(tmp.path(), "made"), "folder [\"staged\"]");
    }

    /// A file just written is in memory: where the kernel can tell, the read takes it from
    /// there, from the file's position (never "would wait"); where it cannot, it says so.
    #[test]
    fn a_read_from_memory_gives_the_bytes_at_the_position_or_says_it_cannot() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        fs::write(&path, b"head:the rest").unwrap();
        let mut file = File::open(&path).unwrap();
        io::Read::read_exact(&mut file, &mut [0; 5]).unwrap();
        let mut into = [MaybeUninit::new(0u8); 64];
        match read_cached(&file, &mut into) {
            Ok(n) => {
                // SAFETY: the kernel wrote these `n` bytes.
                let read: Vec<u8> = into[..n]
                    .iter()
                    .map(|b| unsafe { b.assume_init() })
                    .collect();
                assert_eq!(read, b"the rest");
            }
            // macOS cannot tell; nor can a Linux file system without non-blocking reads.
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{e}"),
        }
    }

    #[test]
    fn random_fills_more_than_one_call_gives() {
        let (mut a, mut b) = ([0u8; 1000], [0u8; 1000]);
        random(&mut a).unwrap();
        random(&mut b).unwrap();
        assert_ne!(a, b);
        // getentropy gives 256 bytes a call: the end is filled too.
        assert!(a[900..].iter().any(|&x| x != 0), "{:?}", &a[900..]);
    }
}
