//! Reading a file whole, as it was at one moment: its bytes, and the [`Stamp`] (size, time,
//! mode, device and inode) the commit checks it against before it writes. A [`Snapshot`]
//! holds the bytes and computes its hashes and line index once, when first asked.

use super::beneath::{Dir, Root};
use super::platform;
use super::stamp::Stamp;
use crate::checksum::Checksum;
use crate::lines::{LineIndex, Lines};
use crate::sha256::sha256_hex;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The largest file patchdeck reads for editing.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

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
/// [`crate::workspace::Workspace::release_files`]); asking one for its bytes, lines or an uncomputed hash is a
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
    /// [`crate::fs::Dir::open_file_stat`]).
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

    /// Reads what the kernel holds in memory already ([`platform::read_cached`]): the
    /// snapshot when that is the whole file, else the file as far as it got, for a thread that
    /// may wait on the disk to finish. Where the kernel cannot tell (macOS, or a file system
    /// that refuses the call), the file is read whole here.
    pub fn read_cached(mut self) -> io::Result<Result<Snapshot, Unread>> {
        let want = self.meta.len() as usize;
        while self.bytes.len() < want {
            match self.read_some(want, true) {
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

    /// One read of up to `want` bytes in all into the room kept for them, at the file's
    /// position, and from memory only when `cached_only` ([`platform::read_cached`]): how
    /// many bytes it added.
    fn read_some(&mut self, want: usize, cached_only: bool) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        let room = want
            .min(self.bytes.capacity())
            .saturating_sub(self.bytes.len());
        let spare = &mut self.bytes.spare_capacity_mut()[..room];
        let n = match cached_only {
            true => platform::read_cached(&self.file, spare)?,
            false => {
                // SAFETY: `spare` is `room` bytes of this vector's spare capacity; the kernel
                // writes at most that many, and only the count it returns is kept.
                let n =
                    unsafe { libc::read(self.file.as_raw_fd(), spare.as_mut_ptr().cast(), room) };
                usize::try_from(n).map_err(|_| io::Error::last_os_error())?
            }
        };
        // SAFETY: the kernel initialised these `n` bytes just after the length.
        unsafe { self.bytes.set_len(self.bytes.len() + n) };
        Ok(n)
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
            match self.read_some(want, false) {
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

/// Reads the regular file at `rel` without following links; `None` when nothing is there.
pub fn read_beneath(root: &Root, rel: &Path) -> io::Result<Option<Snapshot>> {
    let (dir, name) = match root.parent_of(rel) {
        Ok(found) => found,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match dir.stat(name)? {
        None => Ok(None),
        Some(_) => snapshot_at(&dir, name).map(Some),
    }
}

/// [`read_beneath`] of a file that must be there: nothing there is `ENOENT`, as opening it
/// would say.
pub fn read_file(root: &Root, rel: &Path) -> io::Result<Snapshot> {
    read_beneath(root, rel)?.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
}

/// Reads the regular file `name` of `dir` whole (its metadata asked for once).
pub fn snapshot_at(dir: &Dir, name: &OsStr) -> io::Result<Snapshot> {
    let (file, meta) = dir.open_file_stat(name)?;
    Unread::with(file, meta)?.finish()
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
}
