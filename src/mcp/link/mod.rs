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
mod place;

pub use client::{connect, Link};
pub use place::{place, Place};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Write};
use std::os::unix::net::UnixStream;

/// The version of the conversation; a gate refuses a request of another.
pub const VERSION: u32 = 1;

/// The most bytes one message may hold: a batch as large as patchdeck reads, with every byte
/// escaped in JSON, and room for the rest.
pub const MOST_BYTES: u64 = (crate::formats::MAX_INPUT_BYTES as u64) * 6 + (1 << 20);

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

/// Reads one message (`None` when the other end hung up before a whole one), at most
/// [`MOST_BYTES`] of it.
pub fn receive<T: DeserializeOwned, R: BufRead>(reader: &mut R) -> io::Result<Option<T>> {
    let mut line = Vec::new();
    std::io::Read::take(reader, MOST_BYTES + 1).read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return match line.len() as u64 > MOST_BYTES {
            true => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a message of more than {MOST_BYTES} bytes"),
            )),
            false => Ok(None),
        };
    }
    serde_json::from_slice(&line)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
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
    use std::io::BufReader;

    #[test]
    fn a_message_goes_over_as_one_line_and_a_cut_one_is_none() {
        let (mut a, b) = UnixStream::pair().unwrap();
        same_user(&a).unwrap();
        send(&mut a, &Reply::Queued { ahead: 2 }).unwrap();
        a.write_all(b"{\"kind\":\"reviewing\"").unwrap();
        drop(a);
        let mut reader = BufReader::new(b);
        match receive::<Reply, _>(&mut reader).unwrap() {
            Some(Reply::Queued { ahead: 2 }) => {}
            other => panic!("{other:?}"),
        }
        assert!(receive::<Reply, _>(&mut reader).unwrap().is_none());
    }
}
