//! The path-safe file system, at the bottom of the core: every file patchdeck reads or writes
//! under the workspace root is reached here, one folder at a time from the root, without
//! following a link.
//!
//! - [`path`]: the one lexical check of a workspace-relative path, and [`RepoPath`], a path
//!   that passed it.
//! - [`beneath`]: the root held open, the folders under it reached by `openat`, and the file
//!   operations the commit, recovery, undo and the state folder make through them.
//! - [`platform`]: what the commit needs of the operating system beyond POSIX (an atomic
//!   exchange, a rename that never replaces, durable writes, a read from memory only), one
//!   function per primitive, written once for Linux and once for macOS.
//! - [`read`]: a file read whole, as a [`Snapshot`] with the [`Stamp`] the commit checks it
//!   against ([`stamp`]).

pub mod beneath;
pub mod path;
pub mod platform;
pub mod read;
pub mod stamp;

pub use beneath::{Dir, Folders, Kind, Root, Stat};
pub use path::RepoPath;
pub use read::{
    read_beneath, read_file, read_snapshot, snapshot_at, snapshot_of, Snapshot, Unread,
    MAX_FILE_BYTES,
};
pub use stamp::Stamp;
