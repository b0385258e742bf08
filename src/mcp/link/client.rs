//! The agent's end: finding the gate of a workspace, handing it a batch, and hearing back.

use super::{place, same_user, send, Reply, Request, MOST_BYTES};
use std::io::{self, BufRead, BufReader};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// A connection to the workspace's gate.
pub struct Link {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    /// A reply read in part when a wait ended.
    partial: Vec<u8>,
}

/// The gate waiting for the workspace at `root`, when one is: `None` when no gate listens
/// (no socket, or one left by a gate that is gone). An error is a gate that may not be
/// trusted (another user's) or a folder that is not private.
pub fn connect(root: &Path) -> io::Result<Option<Link>> {
    let place = place(root)?;
    let stream = match UnixStream::connect(&place.socket) {
        Ok(stream) => stream,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Ok(None)
        }
        Err(e) => return Err(e),
    };
    same_user(&stream)?;
    Ok(Some(Link {
        reader: BufReader::new(stream.try_clone()?),
        stream,
        partial: Vec::new(),
    }))
}

impl Link {
    pub fn submit(&mut self, request: &Request) -> io::Result<()> {
        send(&mut self.stream, request)
    }

    /// The gate's next reply, waiting at most `wait` (`None` when none came by then). An
    /// error is a gate that hung up or said something that is not a reply.
    pub fn next(&mut self, wait: Duration) -> io::Result<Option<Reply>> {
        self.stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        self.reader
            .get_ref()
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        let room = (MOST_BYTES + 1).saturating_sub(self.partial.len() as u64);
        match std::io::Read::take(&mut self.reader, room).read_until(b'\n', &mut self.partial) {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        if self.partial.last() != Some(&b'\n') {
            return Err(match self.partial.len() as u64 > MOST_BYTES {
                true => io::Error::new(io::ErrorKind::InvalidData, "a reply too long"),
                false => io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the gate hung up before it answered",
                ),
            });
        }
        let line = std::mem::take(&mut self.partial);
        serde_json::from_slice(&line)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}
