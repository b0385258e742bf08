//! The gate's socket: held exclusively for its workspace, each caller checked, each request
//! read with a bound and a time limit, and handed to the reviewer's loop with what it needs to
//! answer.

use super::{Place, Reply, Request};
use crate::mcp::link;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

/// How long a caller has to send its request once connected.
const REQUEST_TIME: Duration = Duration::from_secs(30);

/// A batch an agent sent, waiting for the person.
pub struct Arrival {
    pub request: Request,
    /// Where the answer goes.
    pub stream: UnixStream,
    /// Set when the agent stops waiting (hangs up).
    pub gone: Arc<AtomicBool>,
}

/// The gate's socket, listening; its file is removed and its lock let go when dropped.
pub struct Listening {
    socket: PathBuf,
    listener: UnixListener,
    /// Held (locked) while the gate listens.
    _lock: File,
}

impl Listening {
    /// Takes the workspace's place: its lock first (a gate already there is refused), then
    /// its socket (one a gate that is gone left behind is replaced).
    pub fn bind(place: &Place) -> io::Result<Listening> {
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&place.lock)?;
        // SAFETY: the descriptor is open for the call.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                "another patchdeck gate waits for this workspace already",
            ));
        }
        remove_stale(&place.socket)?;
        let listener = UnixListener::bind(&place.socket)?;
        std::fs::set_permissions(&place.socket, std::fs::Permissions::from_mode(0o600))?;
        Ok(Listening {
            socket: place.socket.clone(),
            listener,
            _lock: lock,
        })
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Accepts callers on a thread of its own, for the gate of the workspace at `root`:
    /// each request that is for it goes to `arrivals`, counted in `waiting`.
    pub fn serve(
        &self,
        root: String,
        arrivals: Sender<Arrival>,
        waiting: Arc<AtomicUsize>,
    ) -> io::Result<()> {
        let listener = self.listener.try_clone()?;
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, arrivals, waiting) =
                    (root.clone(), arrivals.clone(), Arc::clone(&waiting));
                std::thread::spawn(move || {
                    if let Some(arrival) = welcome(stream, &root, &waiting) {
                        if arrivals.send(arrival).is_err() {
                            waiting.fetch_sub(1, Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        Ok(())
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Removes what is at `socket` when it is a socket of this user's that no one answers on (a
/// gate that died left it); anything else there is an error.
fn remove_stale(socket: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(socket) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    if !meta.file_type().is_socket() || meta.uid() != crate::state::euid() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is there and is not a socket this gate left",
                socket.display()
            ),
        ));
    }
    std::fs::remove_file(socket)
}

/// Reads a caller's request: `None` (the caller told why, when it can hear) when it is not
/// this user, not for this workspace, or not a request.
fn welcome(mut stream: UnixStream, root: &str, waiting: &AtomicUsize) -> Option<Arrival> {
    link::same_user(&stream).ok()?;
    stream.set_read_timeout(Some(REQUEST_TIME)).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let request: Request = match link::receive(&mut reader) {
        Ok(Some(request)) => request,
        _ => return None,
    };
    let refused = if request.version != link::VERSION {
        Some(format!(
            "this patchdeck gate speaks version {} of the link, the server {}: run the same patchdeck for both",
            link::VERSION,
            request.version
        ))
    } else if request.root != root {
        Some(format!(
            "this patchdeck gate reviews {root}, not {}",
            request.root
        ))
    } else {
        None
    };
    if let Some(message) = refused {
        let _ = link::send(&mut stream, &Reply::Refused { message });
        return None;
    }
    let ahead = waiting.fetch_add(1, Ordering::SeqCst);
    let _ = link::send(&mut stream, &Reply::Queued { ahead });
    let gone = Arc::new(AtomicBool::new(false));
    watch(reader.into_inner(), Arc::clone(&gone));
    Some(Arrival {
        request,
        stream,
        gone,
    })
}

/// Sets `gone` once the caller hangs up (it sends nothing after its request).
fn watch(mut stream: UnixStream, gone: Arc<AtomicBool>) {
    let _ = stream.set_read_timeout(None);
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        while let Ok(1) = stream.read(&mut byte) {}
        gone.store(true, Ordering::SeqCst);
    });
}
