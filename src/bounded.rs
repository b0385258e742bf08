//! Reading with a limit: patchdeck never holds more of a file than it will use, so a path
//! that leads to `/dev/zero` or a runaway file ends in an error naming the limit, not in
//! gigabytes of memory. Each caller says what its limit is and names the file in its error.

use std::fs::File;
use std::io::{self, ErrorKind, Read};
use std::path::Path;

/// The most a configuration or theme file may hold.
pub const SMALL_FILE: u64 = 1 << 20;

/// Reads all of `reader`, or fails once it has read one byte more than `limit`.
pub fn read_from(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "it holds more than {}, the most patchdeck reads there",
                size(limit)
            ),
        ));
    }
    Ok(bytes)
}

/// Reads the file at `path` up to `limit` bytes.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    read_from(File::open(path)?, limit)
}

/// Reads a path, or standard input when `source` is `-`: all of it when it holds at most
/// `limit` bytes, else one byte more than `limit` (so the caller can say it is too large),
/// without reading or holding more.
pub fn read_source(source: &str, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let limit = limit.saturating_add(1);
    if source == "-" {
        io::stdin().lock().take(limit).read_to_end(&mut bytes)?;
    } else {
        let file = File::open(Path::new(source))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        bytes.reserve(size.min(limit) as usize);
        file.take(limit).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// Reads the file at `path` up to `limit` bytes, as UTF-8 text.
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|e| {
        io::Error::new(
            ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (byte {} is not)",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_source_is_refused_after_one_byte_past_the_limit() {
        let zeros = io::repeat(0);
        let err = read_from(zeros, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::FileTooLarge);
        assert!(err.to_string().contains("more than 1 MiB"), "{err}");
        assert_eq!(read_from(&b"abc"[..], 3).unwrap(), b"abc");
    }
}
