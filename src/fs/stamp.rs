//! What identifies a file's version cheaply: size, time, mode, device, inode, links and owner,
//! as `stat` gives them. The commit compares it, then the bytes, before it writes.

use std::fs;
use std::os::unix::fs::MetadataExt;

/// What identifies a file's version cheaply: re-checked with the hash before a commit writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_sec: i64,
    pub mtime_nsec: i64,
    pub mode: u32,
    pub dev: u64,
    pub ino: u64,
    pub nlink: u64,
    pub uid: u32,
    pub gid: u32,
}

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            size: meta.size(),
            mtime_sec: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            mode: meta.mode(),
            dev: meta.dev(),
            ino: meta.ino(),
            nlink: meta.nlink(),
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }
}
