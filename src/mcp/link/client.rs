//! The agent's end: finding the gate of a workspace, handing it a batch, and hearing back.
//! It only looks: it makes no folder and trusts none that is not private to this user (no
//! gate of this user's could listen in one).

use super::place::{locate, private};
use super::{same_user, send, LineReader, Reply, Request, MOST_BYTES};
use std::io;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long handing a batch to the gate may take: a gate reads a request as it comes, so one
/// that takes none for this long is not listening.
const SUBMIT_TIME: Duration = Duration::from_secs(10);

/// A connection to the workspace's gate.
pub struct Link {
    stream: UnixStream,
    reader: LineReader,
}

/// What looking for the workspace's gate found.
pub enum Found {
    Gate(Link),
    /// No gate listens at `socket` (`why`, when its folder cannot be one of this user's).
    None {
        socket: PathBuf,
        why: Option<String>,
    },
}

/// Looks for the gate waiting for the workspace at `root` (absolute, without links). An
/// error is a gate that may not be trusted (another user's) or a socket that fails otherwise.
pub fn connect(root: &Path) -> io::Result<Found> {
    let place = locate(root);
    let folder = place.socket.parent().expect("a socket is in a folder");
    if let Err(why) = private(folder, crate::state::euid()) {
        let why = match std::fs::symlink_metadata(folder) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            _ => Some(format!("{}: {why}", folder.display())),
        };
        return Ok(Found::None {
            socket: place.socket,
            why,
        });
    }
    let stream = match UnixStream::connect(&place.socket) {
        Ok(stream) => stream,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Ok(Found::None {
                socket: place.socket,
                why: None,
            })
        }
        Err(e) => return Err(e),
    };
    same_user(&stream)?;
    Ok(Found::Gate(Link {
        reader: LineReader::new(stream.try_clone()?, MOST_BYTES),
        stream,
    }))
}

impl Link {
    /// Hands the gate `request`; an error when it does not take it within ten seconds.
    pub fn submit(&mut self, request: &Request) -> io::Result<()> {
        self.stream.set_write_timeout(Some(SUBMIT_TIME))?;
        send(&mut self.stream, request).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the gate took none of the batch for {} s: it is not listening",
                    SUBMIT_TIME.as_secs()
                ),
            ),
            _ => e,
        })
    }

    /// The gate's next reply, if one comes by `deadline`. An error is a gate that hung up
    /// (`UnexpectedEof`) or said something that is not a reply (`InvalidData`).
    pub fn next(&mut self, deadline: Instant) -> io::Result<Option<Reply>> {
        self.reader.message_by(deadline)
    }
}
