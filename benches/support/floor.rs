//! The floor of an atomic, durable apply: a program that does only what patchdeck's commit
//! protocol must do to the disk, and nothing to find out what to write (it is handed every new
//! content, read before its clock starts). `cargo bench --bench peers` runs it beside
//! `patchdeck apply` on fresh copies of the same workspace, so their ratio says how much of an
//! apply is the protocol and how much is patchdeck's own work.
//!
//! The protocol, as the commit does it (see `src/commit/mod.rs`): read every target (patchdeck
//! re-checks each under its lock); write and sync a journal; stage every new content in a new
//! file beside its target and sync it (on 16 threads); sync the folders; exchange each staged
//! file with its target (the original, now at the staged name, is the backup); sync the
//! folders; mark the journal; move every original into a history folder (what `undo` needs) and
//! sync it; remove the journal. Every path is opened relative to its folder, each folder once.
//! The exchange and every sync are patchdeck's own primitives (`patchdeck::fs::platform`), so
//! the floor is the same protocol on each platform.

use patchdeck::fs::platform::{exchange, sync};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const IO_THREADS: usize = 16;

/// Runs the protocol on `ws`, writing for each `(relative path, new content)`; returns the
/// nanoseconds it took.
pub fn run(ws: &Path, writes: &[(PathBuf, Vec<u8>)]) -> u128 {
    let start = Instant::now();
    let folders: BTreeMap<PathBuf, File> = writes
        .iter()
        .map(|(rel, _)| rel.parent().unwrap_or(Path::new("")).to_path_buf())
        .map(|d| {
            let dir = File::open(ws.join(&d)).unwrap();
            (d, dir)
        })
        .collect();
    let folder = |rel: &Path| &folders[rel.parent().unwrap_or(Path::new(""))];
    let name = |rel: &Path| CString::new(rel.file_name().unwrap().as_bytes()).unwrap();
    let staged = |rel: &Path| {
        let mut n = b".floor-staged-".to_vec();
        n.extend_from_slice(rel.file_name().unwrap().as_bytes());
        CString::new(n).unwrap()
    };
    // Read every target, as the commit's re-check does.
    each(
        writes,
        std::thread::available_parallelism().unwrap().get(),
        |(rel, _)| {
            let mut bytes = Vec::new();
            open_at(folder(rel), &name(rel), libc::O_RDONLY, 0)
                .read_to_end(&mut bytes)
                .unwrap();
        },
    );
    let state = ws.join(".floor");
    fs::create_dir_all(state.join("history")).unwrap();
    let state_dir = File::open(&state).unwrap();
    write_synced(&state.join("journal"), &vec![b'j'; 64 * writes.len()]);
    sync(&state_dir).unwrap();
    each(writes, IO_THREADS, |(rel, new)| {
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        let mut file = open_at(folder(rel), &staged(rel), flags, 0o644);
        file.write_all(new).unwrap();
        sync(&file).unwrap();
    });
    folders.values().for_each(|d| sync(d).unwrap());
    for (rel, _) in writes {
        let dir = folder(rel).as_fd();
        assert!(exchange(dir, &staged(rel), dir, &name(rel)).unwrap());
    }
    folders.values().for_each(|d| sync(d).unwrap());
    write_synced(&state.join("journal"), &vec![b'c'; 64 * writes.len()]);
    let history = File::open(state.join("history")).unwrap();
    for (n, (rel, _)) in writes.iter().enumerate() {
        let to = CString::new(n.to_string()).unwrap();
        // SAFETY: as above.
        let rc = unsafe {
            libc::renameat(
                folder(rel).as_raw_fd(),
                staged(rel).as_ptr(),
                history.as_raw_fd(),
                to.as_ptr(),
            )
        };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    }
    sync(&history).unwrap();
    fs::remove_file(state.join("journal")).unwrap();
    sync(&state_dir).unwrap();
    start.elapsed().as_nanos()
}

/// Runs `work` on every item on `threads` threads, each taking the next item when done.
fn each<T: Sync>(items: &[T], threads: usize, work: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            scope.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    work(item);
                }
            });
        }
    });
}

fn open_at(dir: &File, name: &CString, flags: libc::c_int, mode: libc::c_uint) -> File {
    use std::os::fd::FromRawFd;
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a valid folder descriptor and NUL-terminated name; the result is checked.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode) };
    assert!(fd >= 0, "{:?}: {}", name, std::io::Error::last_os_error());
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    unsafe { File::from_raw_fd(fd) }
}

fn write_synced(path: &Path, bytes: &[u8]) {
    let mut file = File::create(path).unwrap();
    file.write_all(bytes).unwrap();
    sync(&file).unwrap();
}
