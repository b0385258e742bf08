//! What recovery knows a file by: the hash of its bytes (of the kind its journal's version
//! says) and its permission bits, read beneath the root without following a link.

use super::journal::Hashing;
use crate::fs::{Dir, Kind, Root};
use std::ffi::OsStr;
use std::io::{self, ErrorKind};
use std::path::Path;

/// What recovery knows a regular file by: the hash of its bytes (of the kind its journal's
/// version says) and its permission bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub hash: String,
    pub mode: u32,
}

impl Identity {
    /// Whether this is the content a journal names by `hash`, and by `mode` when it names one.
    pub fn is(&self, hash: &Option<String>, mode: Option<u32>) -> bool {
        hash.as_deref() == Some(self.hash.as_str()) && mode.is_none_or(|mode| mode == self.mode)
    }
}

/// The [`Identity`] of the regular file `name` in `dir`; `None` when there is none.
pub(super) fn identity_in(
    dir: &Dir,
    name: &OsStr,
    hashing: Hashing,
) -> io::Result<Option<Identity>> {
    use std::os::unix::fs::MetadataExt;
    let (file, meta) = match dir.stat(name)? {
        Some(stat) if stat.kind == Kind::File => dir.open_file_stat(name)?,
        _ => return Ok(None),
    };
    let mode = meta.mode() & 0o7777;
    let bytes = crate::fs::Unread::with(file, meta)?.finish_bytes()?;
    Ok(Some(Identity {
        hash: hashing.hash(&bytes),
        mode,
    }))
}

/// The [`Identity`] of the regular file at `rel`, reached without following links; `None`
/// when there is no regular file there (nor a folder above it: a file stands in its way).
pub fn identity_beneath(root: &Root, rel: &Path, hashing: Hashing) -> io::Result<Option<Identity>> {
    match root.parent_of(rel) {
        Ok((dir, name)) => identity_in(&dir, name, hashing),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a whole regular file in `dir` (its size asked once, so that it is read in as few
/// calls as it can be).
pub fn read_all(dir: &Dir, name: &OsStr) -> io::Result<Vec<u8>> {
    let (file, meta) = dir.open_file_stat(name)?;
    crate::fs::Unread::with(file, meta)?.finish_bytes()
}
