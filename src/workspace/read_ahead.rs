//! Reading a batch's target files while the batch is still being parsed.
//!
//! Parsing a large batch is one core's work, and reading its target files (and hashing them,
//! for a batch that names their SHA-256) is independent of it: a file can be read as soon as
//! its path has been parsed. [`Workspace::read_ahead_with`] runs a parser with a [`ReadAhead`],
//! to which the parser hands each path as it meets it; threads on the other cores read those
//! files meanwhile (and the parsing thread reads what is left once it is done), and what they
//! read joins the workspace's reads, so that resolving and verifying find the files already in
//! memory.
//!
//! A reader takes from memory only what the kernel holds already
//! ([`crate::fs::platform::read_cached`]). A file that would wait on the disk (a cold cache:
//! the first check of the day on a large tree) goes to threads that wait for it, several reads
//! in flight at once, while the reader goes on: more readers instead would take the parser's
//! core when the files are in memory. The waiting threads start at the first such file. The
//! kernel also says "would wait" for some files it holds, whose pages carry its read-ahead mark
//! (50 to 235 of 2,000 in `strace` of warm runs), so they usually start; they read those files
//! from memory at once, and warm runs measured the same with them and without. On macOS, whose
//! kernel cannot tell, each reader reads its files whole, waiting on the disk if it must.
//!
//! Only a path exactly as written is read ahead, walked down from the root one folder at a
//! time without following a link (as the commit walks, [`crate::fs::beneath`]), and only
//! when it names a regular file. Anything else (a path that is not plain, a missing file, a
//! link, a special file, a name that only matches ignoring case) is left alone for
//! [`Workspace::resolve`] and [`Workspace::read`], which say why. A file read ahead is what
//! `read` would have read a moment later, with its stamp: the commit compares the bytes again
//! before it writes. A file read ahead was also resolved by that walk (every folder a real
//! folder, the name a regular file, no link), so `resolve` does not walk it a second time. The
//! walk is as fresh as the folders a reader holds open, which it opened earlier in the parse:
//! a folder swapped for a link meanwhile is not seen by `check`, only by the commit, which
//! walks every folder again before it writes and refuses then.
//!
//! [`Workspace::read_ahead_with`]: crate::workspace::Workspace::read_ahead_with
//! [`Workspace::resolve`]: crate::workspace::Workspace::resolve
//! [`Workspace::read`]: crate::workspace::Workspace::read

use crate::fs::{Folders, Kind, RepoPath, Root, Snapshot, Stat, Unread};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// How many folders a reading thread keeps open at once; past it, it starts again. With
/// [`THREADS`] threads (and the parsing thread at the end) and the files queued for the
/// waiting threads, the read-ahead holds at most about 370 descriptors however many folders
/// a batch spans, far below the usual limit of 1,024 (which `git status`, started at the same
/// time, needs some of).
const OPEN_FOLDERS: usize = 64;

/// The most reading threads: one per core but the one that parses, up to this many.
const THREADS: usize = 4;

/// Threads that wait on the disk for files not in memory yet (see [`Waiting`]): reads in
/// flight at once, which a disk serves faster than one after another. On a cold cache, 2,000
/// files took 0.35 s to check with one read at a time, 0.26 s with four, 0.24 s with eight.
const WAITING_THREADS: usize = 8;

/// Files opened and handed to the waiting threads but not yet taken. With the one file each
/// waiting thread reads and the one each reader is handing over, the bound on the descriptors
/// files waiting on the disk hold.
const WAITING_QUEUE: usize = 32;

/// Files read on other threads while a batch is parsed (and on the parsing thread once it is
/// done): the parser gives each path with [`ReadAhead::want`].
pub struct ReadAhead {
    paths: Sender<String>,
    wanted: Arc<Mutex<Receiver<String>>>,
    root: PathBuf,
    /// The threads that wait on the disk, shared by every reader.
    waiting: Arc<Waiting>,
    threads: Vec<JoinHandle<Vec<Read>>>,
}

/// A file read ahead: the docPath it was asked for by, its path under the root, and its
/// bytes as read.
pub struct Read {
    pub doc_path: String,
    pub rel: RepoPath,
    pub snapshot: Snapshot,
}

impl ReadAhead {
    /// Starts the reading threads for the workspace at `root` (one per core but the one that
    /// parses, at least one, at most `THREADS`); `hash` has them hash what they read too.
    pub fn start(root: &Path, hash: bool) -> ReadAhead {
        let (paths, wanted) = mpsc::channel::<String>();
        let wanted = Arc::new(Mutex::new(wanted));
        let waiting = Arc::new(Waiting::new(hash));
        let count = crate::parallel::cores().saturating_sub(1).clamp(1, THREADS);
        let threads = (0..count)
            .map(|_| {
                let (root, wanted, waiting) = (root.to_path_buf(), wanted.clone(), waiting.clone());
                std::thread::spawn(move || {
                    read_wanted(&root, &wanted, &waiting, Unread::read_cached)
                })
            })
            .collect();
        ReadAhead {
            paths,
            wanted,
            root: root.to_path_buf(),
            waiting,
            threads,
        }
    }

    /// Asks for the file at `doc_path` (as a batch names it) to be read.
    pub fn want(&self, doc_path: &str) {
        // The threads end only when this sender is dropped; a send fails only if they all
        // panicked, and then the file is simply read later.
        let _ = self.paths.send(doc_path.to_owned());
    }

    /// Reads, on this thread too, the files asked for that no reading thread has taken yet
    /// (the parser is done, so its core is free), waits for the threads, and returns what was
    /// read.
    pub fn finish(self) -> Vec<Read> {
        drop(self.paths);
        let mut read = read_wanted(&self.root, &self.wanted, &self.waiting, Unread::read_cached);
        // A thread that panicked read nothing usable; its files are read later, and the panic
        // has been printed.
        read.extend(
            self.threads
                .into_iter()
                .flat_map(|thread| thread.join().unwrap_or_default()),
        );
        // Every reader is done, so nothing more is handed to the waiting threads.
        read.extend(self.waiting.finish());
        read
    }
}

/// What a reader does with an opened file: its bytes if they are in memory already, else the
/// file, for a thread that may wait on the disk ([`Unread::read_cached`]).
type ReadCached = fn(Unread) -> io::Result<Result<Snapshot, Unread>>;

/// One reader: reads every path it is given until the parser is done and none is left (a
/// reading thread, or the parsing thread in [`ReadAhead::finish`]). A file whose bytes are not
/// all in memory yet goes to threads that wait on the disk for it, so that the reader goes on
/// with the next (see [`Waiting`]).
fn read_wanted(
    root: &Path,
    wanted: &Mutex<Receiver<String>>,
    waiting: &Waiting,
    read_cached: ReadCached,
) -> Vec<Read> {
    let hash = waiting.hash;
    let mut read = Vec::new();
    let Ok(root) = Root::open(root) else {
        // The workspace cannot be opened this way: everything is read later, as usual.
        while wanted.lock().is_ok_and(|w| w.recv().is_ok()) {}
        return read;
    };
    let mut folders = Folders::new(&root);
    loop {
        let next = match wanted.lock() {
            Ok(wanted) => wanted.recv(),
            Err(_) => break,
        };
        let Ok(doc_path) = next else { break };
        let Ok((rel, _)) = RepoPath::parse(&doc_path) else {
            continue;
        };
        if folders.open_count() > OPEN_FOLDERS {
            folders = Folders::new(&root);
        }
        let Ok((folder, name)) = folders.parent_of(&rel) else {
            continue;
        };
        // Looked at before it is opened: opening a FIFO or a device can itself do something
        // (release a writer waiting on the FIFO), and resolving never opens one.
        if !matches!(
            folder.stat(name),
            Ok(Some(Stat {
                kind: Kind::File,
                ..
            }))
        ) {
            continue;
        }
        let Ok(unread) = folder
            .open_file_stat(name)
            .and_then(|(file, meta)| Unread::with(file, meta))
        else {
            continue;
        };
        let (doc_path, rel, snapshot) = match read_cached(unread) {
            Ok(Ok(snapshot)) => (doc_path, rel, snapshot),
            Ok(Err(unread)) => {
                // Read here after all when no waiting thread can take it.
                let Some((doc_path, rel, unread)) = waiting.hand((doc_path, rel, unread)) else {
                    continue;
                };
                let Ok(snapshot) = unread.finish() else {
                    continue;
                };
                (doc_path, rel, snapshot)
            }
            Err(_) => continue,
        };
        read.push(Read::of(doc_path, rel, snapshot, hash));
    }
    read
}

impl Read {
    fn of(doc_path: String, rel: RepoPath, snapshot: Snapshot, hash: bool) -> Read {
        if hash {
            snapshot.sha256();
        }
        Read {
            doc_path,
            rel,
            snapshot,
        }
    }
}

/// A file to finish reading: the docPath it was asked for by, its path, the file as far as it
/// was read.
type Job = (String, RepoPath, Unread);

/// Threads that finish reading files whose bytes were not in memory, each waiting on the disk
/// for its own, shared by every reader of a [`ReadAhead`]: started at the first such file.
struct Waiting {
    hash: bool,
    pool: Mutex<Option<Pool>>,
}

struct Pool {
    files: SyncSender<Job>,
    threads: Vec<JoinHandle<Vec<Read>>>,
}

impl Waiting {
    fn new(hash: bool) -> Waiting {
        Waiting {
            hash,
            pool: Mutex::new(None),
        }
    }

    /// Hands a file to the waiting threads, starting them the first time; gives it back when
    /// none can take it (none could be started, or all stopped), to be read by the caller.
    fn hand(&self, job: Job) -> Option<Job> {
        let files = match self.pool.lock() {
            Ok(mut pool) => {
                if pool.is_none() {
                    *pool = Pool::start(self.hash);
                }
                pool.as_ref().map(|pool| pool.files.clone())
            }
            Err(_) => None,
        };
        match files {
            Some(files) => files.send(job).err().map(|e| e.0),
            None => Some(job),
        }
    }

    /// Waits for the threads to read what they were handed; call it once no reader can hand
    /// more.
    fn finish(&self) -> Vec<Read> {
        let pool = self.pool.lock().ok().and_then(|mut pool| pool.take());
        let Some(Pool { files, threads }) = pool else {
            return Vec::new();
        };
        drop(files);
        threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap_or_default())
            .collect()
    }
}

impl Pool {
    /// Starts up to [`WAITING_THREADS`] threads (as many as the system allows; `None` for none).
    fn start(hash: bool) -> Option<Pool> {
        let (files, taken) = mpsc::sync_channel(WAITING_QUEUE);
        let taken = Arc::new(Mutex::new(taken));
        let threads: Vec<JoinHandle<Vec<Read>>> = (0..WAITING_THREADS)
            .map_while(|_| {
                let taken = Arc::clone(&taken);
                std::thread::Builder::new()
                    .spawn(move || wait_for(&taken, hash))
                    .ok()
            })
            .collect();
        (!threads.is_empty()).then_some(Pool { files, threads })
    }
}

/// One waiting thread: reads the rest of each file it takes, until the readers are done.
fn wait_for(taken: &Mutex<Receiver<Job>>, hash: bool) -> Vec<Read> {
    let mut read = Vec::new();
    loop {
        let next = match taken.lock() {
            Ok(taken) => taken.recv(),
            Err(_) => break,
        };
        let Ok((doc_path, rel, unread)) = next else {
            break;
        };
        if let Ok(snapshot) = unread.finish() {
            read.push(Read::of(doc_path, rel, snapshot, hash));
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn only_plain_regular_files_reached_without_a_link_are_read_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("a")).unwrap();
        std::fs::write(root.join("a/b.txt"), b"bytes\n").unwrap();
        std::os::unix::fs::symlink("a", root.join("c")).unwrap();
        std::os::unix::fs::symlink("b.txt", root.join("a/link.txt")).unwrap();
        std::fs::write(root.join("outside.txt"), b"x").unwrap();
        let fifo = CString::new(root.join("fifo").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

        // Told of every time the FIFO is opened: looking at it must not open it (Linux's
        // inotify tells; macOS has no notice of an open).
        #[cfg(target_os = "linux")]
        // SAFETY: plain system calls on valid arguments; results are checked.
        let watch = unsafe {
            let watch = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(watch >= 0);
            assert!(libc::inotify_add_watch(watch, fifo.as_ptr(), libc::IN_OPEN) >= 0);
            watch
        };

        let ahead = ReadAhead::start(root, true);
        for doc_path in [
            "a/b.txt",
            "c/b.txt",    // through a link to a folder
            "a/link.txt", // a link itself
            "fifo",       // not a regular file (and opening it must not wait for a writer)
            "a/../outside.txt",
            "A/B.TXT", // only the resolution that ignores case finds it
            "missing/file",
            "a",
        ] {
            ahead.want(doc_path);
        }
        let read = ahead.finish();
        let names: Vec<(&str, &Path)> = read
            .iter()
            .map(|r| (r.doc_path.as_str(), r.rel.as_path()))
            .collect();
        assert_eq!(names, [("a/b.txt", Path::new("a/b.txt"))]);
        let snapshot = &read[0].snapshot;
        assert_eq!(snapshot.bytes().as_slice(), b"bytes\n");
        assert!(snapshot.is_hashed());
        #[cfg(target_os = "linux")]
        {
            let mut event = [0u8; 4096];
            // SAFETY: reads into a buffer of its own length.
            let got = unsafe { libc::read(watch, event.as_mut_ptr().cast(), event.len()) };
            let error = std::io::Error::last_os_error();
            // SAFETY: the descriptor is ours and closed once.
            unsafe { libc::close(watch) };
            assert_eq!(got, -1, "the FIFO was opened");
            assert_eq!(error.kind(), std::io::ErrorKind::WouldBlock);
        }
    }

    /// Files whose bytes are not in memory (here: every file, as a cold cache would have it)
    /// are read by the waiting threads, each whole and once, and hashed when asked; the
    /// queue that bounds their open files is far shorter than the batch.
    #[test]
    fn files_not_in_memory_are_read_by_threads_that_wait_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let count = WAITING_QUEUE * 4;
        let paths: Vec<String> = (0..count).map(|i| format!("d{}/f{i}.txt", i % 7)).collect();
        for (i, path) in paths.iter().enumerate() {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), format!("file {i}\n").repeat(i + 1)).unwrap();
        }
        let (wanted, taken) = mpsc::channel();
        for path in &paths {
            wanted.send(path.clone()).unwrap();
        }
        drop(wanted);
        let not_in_memory: ReadCached = |unread| Ok(Err(unread));
        let waiting = Waiting::new(true);
        let mut read = read_wanted(root, &Mutex::new(taken), &waiting, not_in_memory);
        assert!(read.is_empty(), "every file went to the waiting threads");
        read.extend(waiting.finish());
        read.sort_by(|a, b| a.rel.cmp(&b.rel));
        let mut want: Vec<(String, Vec<u8>)> = paths
            .iter()
            .map(|p| (p.clone(), std::fs::read(root.join(p)).unwrap()))
            .collect();
        want.sort();
        let got: Vec<(String, Vec<u8>)> = read
            .iter()
            .map(|r| (r.doc_path.clone(), r.snapshot.bytes().to_vec()))
            .collect();
        assert_eq!(got, want);
        assert!(read.iter().all(|r| r.snapshot.is_hashed()));
    }

    /// Reading what is in memory first, then the rest, gives the file's bytes whichever way
    /// the kernel answers (and a file read ahead normally is in memory: it was just written).
    #[test]
    fn a_file_read_from_memory_or_finished_later_has_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let bytes: Vec<u8> = (0..800_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let unread = Unread::of(std::fs::File::open(&path).unwrap()).unwrap();
        let snapshot = match unread.read_cached().unwrap() {
            Ok(snapshot) => snapshot,
            Err(unread) => unread.finish().unwrap(),
        };
        assert_eq!(snapshot.bytes().as_slice(), bytes.as_slice());
        let finished = Unread::of(std::fs::File::open(&path).unwrap())
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(finished.bytes().as_slice(), bytes.as_slice());
        // Handed on part way (the kernel had only the start in memory): the rest is read from
        // where the first read stopped.
        let mut unread = Unread::of(std::fs::File::open(&path).unwrap()).unwrap();
        unread.read_part(1_000).unwrap();
        assert_eq!(
            unread.finish().unwrap().bytes().as_slice(),
            bytes.as_slice()
        );
    }
}
