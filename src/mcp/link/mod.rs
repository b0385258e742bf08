//! The link between `patchdeck mcp` (an agent's server) and `patchdeck gate` (the person's
//! reviewer): one Unix socket per workspace, in a folder only this user can open, and a
//! conversation of one JSON object a line over it.
//!
//! Nothing on the other end is trusted for being there. The folder is made private (mode
//! 0700) and is refused when it is a link, another user's, or open to others; each end asks
//! the kernel who the other is (`SO_PEERCRED` on Linux, `getpeereid` on macOS) and hangs up
//! on another user; a request names the workspace it is for, and a gate answers only its own.
//! Every message is read with a bound. The gate holds a lock beside its socket while it runs,
//! so a second gate for the workspace is refused and a socket left by one that died is
//! replaced, never one that answers.

mod client;
mod listen;
mod place;

pub use client::{connect, Found, Link};
pub use listen::{Arrival, Listening};
pub use place::{place, Place};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Instant;

/// The version of the conversation; a gate refuses a request of another.
pub const VERSION: u32 = 1;

/// The most bytes one message may hold: a batch as large as patchdeck reads, twice over (JSON
/// escapes a quote or a backslash in two bytes), and room for the rest. A batch whose escapes
/// take more is refused as too large.
pub const MOST_BYTES: u64 = (crate::formats::MAX_INPUT_BYTES as u64) * 2 + (1 << 20);

/// A write call, as the agent's server hands it to the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub version: u32,
    /// The workspace's root, as the server resolved it (absolute, no links).
    pub root: String,
    /// The agent, as its MCP client names itself (`claude-code`, `codex-mcp-client`...).
    pub agent: String,
    /// The tool it called (`workspace_write_patch`, `apply_patch`, `submit_patch`).
    pub tool: String,
    /// The format to read `text` as; detected when none.
    pub format: Option<String>,
    pub text: String,
}

/// What the gate says back, as often as it has something to say; the last is a `Result` or a
/// `Refused`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Reply {
    /// Waiting behind `ahead` other batches.
    Queued { ahead: usize },
    /// In front of the person now.
    Reviewing,
    /// Decided: the tool result, as text and as the structured `WriteResult`.
    Result {
        text: String,
        result: serde_json::Value,
    },
    /// Not reviewed at all (a request for another workspace, a batch that no longer loads,
    /// the gate closing): why.
    Refused { message: String },
}

/// Writes one message, a line of JSON.
pub fn send<T: Serialize>(stream: &mut UnixStream, message: &T) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    stream.flush()
}

/// Reads a stream a line at a time, each line by a deadline: however the bytes trickle in,
/// a wait never outlasts the deadline it was given, and a line never outgrows its bound.
pub struct LineReader {
    stream: UnixStream,
    buffer: Vec<u8>,
    /// How far `buffer` is known to hold no newline.
    searched: usize,
    limit: u64,
}

impl LineReader {
    /// Reads `stream`, lines of at most `limit` bytes.
    pub fn new(stream: UnixStream, limit: u64) -> LineReader {
        LineReader {
            stream,
            buffer: Vec::new(),
            searched: 0,
            limit,
        }
    }

    /// The next line (without its newline), once it has come whole by `deadline`: `None`
    /// when the deadline came first (what came of the line is kept for the next call). An
    /// error is the other end hanging up first, or a line over the bound.
    pub fn line_by(&mut self, deadline: Instant) -> io::Result<Option<Vec<u8>>> {
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buffer[self.searched..]) {
                let end = self.searched + at;
                let line = self.buffer[..end].to_vec();
                self.buffer.drain(..=end);
                self.searched = 0;
                return Ok(Some(line));
            }
            self.searched = self.buffer.len();
            if self.buffer.len() as u64 > self.limit {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a message of more than {} bytes", self.limit),
                ));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.stream.set_read_timeout(Some(left))?;
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the other end hung up",
                    ))
                }
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// [`LineReader::line_by`], read as a message of JSON.
    pub fn message_by<T: DeserializeOwned>(&mut self, deadline: Instant) -> io::Result<Option<T>> {
        match self.line_by(deadline)? {
            Some(line) => serde_json::from_slice(&line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            None => Ok(None),
        }
    }

    /// The stream, for what is left to do with it.
    pub fn into_inner(self) -> UnixStream {
        self.stream
    }
}

/// Refuses the other end of `stream` unless it runs as this user.
pub fn same_user(stream: &UnixStream) -> io::Result<()> {
    let theirs = peer_uid(stream)?;
    let ours = crate::state::euid();
    match theirs == ours {
        true => Ok(()),
        false => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the other end of the socket runs as user {theirs}, not {ours}"),
        )),
    }
}

/// The user the other end of a Unix socket runs as, as the kernel says.
#[cfg(target_os = "linux")]
fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the sizes given.
    let done = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    match done {
        0 => Ok(cred.uid),
        _ => Err(io::Error::last_os_error()),
    }
}

/// The user the other end of a Unix socket runs as, as the kernel says.
#[cfg(target_os = "macos")]
fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let (mut uid, mut gid) = (0, 0);
    // SAFETY: `uid` and `gid` are valid for writes.
    match unsafe { libc::getpeereid(stream.as_raw_fd(), &mut uid, &mut gid) } {
        0 => Ok(uid),
        _ => Err(io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_goes_over_as_one_line_and_a_cut_one_waits_for_its_end() {
        let (mut a, b) = UnixStream::pair().unwrap();
        same_user(&a).unwrap();
        send(&mut a, &Reply::Queued { ahead: 2 }).unwrap();
        a.write_all(b"{\"kind\":\"rev").unwrap();
        let mut reader = LineReader::new(b, 1 << 10);
        let soon = || Instant::now() + std::time::Duration::from_millis(50);
        match reader.message_by::<Reply>(soon()).unwrap() {
            Some(Reply::Queued { ahead: 2 }) => {}
            other => panic!("{other:?}"),
        }
        // Half a message by the deadline: none yet, and the half is kept.
        assert!(reader.message_by::<Reply>(soon()).unwrap().is_none());
        a.write_all(b"iewing\"}\n").unwrap();
        assert!(matches!(
            reader.message_by::<Reply>(soon()).unwrap(),
            Some(Reply::Reviewing)
        ));
        drop(a);
        let gone = reader.message_by::<Reply>(soon()).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_line_over_the_bound_is_refused() {
        let (mut a, b) = UnixStream::pair().unwrap();
        a.write_all(&[b'x'; 300]).unwrap();
        let mut reader = LineReader::new(b, 100);
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let refused = reader.line_by(deadline).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidData);
    }
}
