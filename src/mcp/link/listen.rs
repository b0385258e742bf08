//! The gate's end: its socket held exclusively for its workspace, each caller checked, each
//! request read whole by a deadline and within a bound, and a thread a caller to answer it,
//! so that an agent that stops reading never stalls the person's screen.

use super::{same_user, send, LineReader, Place, Reply, Request, MOST_BYTES, VERSION};
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a caller has to send its whole request once connected.
const REQUEST_TIME: Duration = Duration::from_secs(30);

/// How many callers may be sending their requests at once; others are turned away.
const READING_AT_ONCE: usize = 4;

/// A batch an agent sent, waiting for the person.
pub struct Arrival {
    pub request: Request,
    /// To the thread that answers the caller.
    replies: Sender<Reply>,
    /// Set when the agent stops waiting (hangs up, or stops reading).
    pub gone: Arc<AtomicBool>,
}

impl Arrival {
    /// Says `reply` to the caller, on the thread that answers it: never waits. After a
    /// result or a refusal, the caller is hung up on.
    pub fn reply(&self, reply: Reply) {
        let _ = self.replies.send(reply);
    }

    pub fn gone(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }
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
    /// each request for it goes to `arrivals`, counted in `waiting`.
    pub fn serve(
        &self,
        root: String,
        arrivals: Sender<Arrival>,
        waiting: Arc<AtomicUsize>,
    ) -> io::Result<()> {
        let listener = self.listener.try_clone()?;
        let reading = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || loop {
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                // Out of descriptors, say: a moment for some to close.
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            if reading.fetch_add(1, Ordering::SeqCst) >= READING_AT_ONCE {
                reading.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            let (root, arrivals) = (root.clone(), arrivals.clone());
            let (waiting, reading) = (Arc::clone(&waiting), Arc::clone(&reading));
            std::thread::spawn(move || {
                let arrival = welcome(stream, &root, &waiting);
                reading.fetch_sub(1, Ordering::SeqCst);
                if let Some(arrival) = arrival {
                    if arrivals.send(arrival).is_err() {
                        waiting.fetch_sub(1, Ordering::SeqCst);
                    }
                }
            });
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
/// this user, does not send a whole request in time, or sends one not for this workspace.
fn welcome(stream: UnixStream, root: &str, waiting: &AtomicUsize) -> Option<Arrival> {
    same_user(&stream).ok()?;
    let mut reader = LineReader::new(stream.try_clone().ok()?, MOST_BYTES);
    let line = reader.line_by(Instant::now() + REQUEST_TIME).ok()??;
    let gone = Arc::new(AtomicBool::new(false));
    let replies = answer_on_thread(stream, Arc::clone(&gone));
    let request = match read_request(&line, root) {
        Ok(request) => request,
        Err(message) => {
            let _ = replies.send(Reply::Refused { message });
            return None;
        }
    };
    let ahead = waiting.fetch_add(1, Ordering::SeqCst);
    let _ = replies.send(Reply::Queued { ahead });
    watch(reader.into_inner(), Arc::clone(&gone));
    Some(Arrival {
        request,
        replies,
        gone,
    })
}

/// The request on `line`, when it is one, of this link's version, for the workspace at
/// `root`; else what to tell the caller.
fn read_request(line: &[u8], root: &str) -> Result<Request, String> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not a request: {e}"))?;
    let version = value.get("version").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(VERSION)) {
        return Err(format!(
            "this patchdeck gate speaks version {VERSION} of the link, the server {}: run the same patchdeck for both",
            version.map_or("none".to_owned(), |v| v.to_string())
        ));
    }
    let request: Request =
        serde_json::from_value(value).map_err(|e| format!("not a request: {e}"))?;
    if request.root != root {
        return Err(format!(
            "this patchdeck gate reviews {root}, not {}",
            request.root
        ));
    }
    Ok(request)
}

/// A thread that writes each reply to the caller, and hangs up after the last; a caller
/// that cannot be written to is `gone`.
fn answer_on_thread(mut stream: UnixStream, gone: Arc<AtomicBool>) -> Sender<Reply> {
    let (replies, to_send) = mpsc::channel::<Reply>();
    std::thread::spawn(move || {
        for reply in to_send {
            let last = matches!(reply, Reply::Result { .. } | Reply::Refused { .. });
            if send(&mut stream, &reply).is_err() {
                gone.store(true, Ordering::SeqCst);
                break;
            }
            if last {
                break;
            }
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
    });
    replies
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
