//! A new content as a plan holds it: runs of the bytes of the file it is made from, and the
//! bytes written between them, rather than a copy of the whole.
//!
//! A planned write of a 2,000-file batch used to be a fresh buffer per file holding every
//! byte of its new content: 84 MB beside the 84 MB of originals they were copied from, all
//! held until the commit staged them. A [`Content`] shares its file's bytes (the same
//! `Arc` the verified snapshot holds) and keeps only the bytes a change writes. It is hashed,
//! compared and written piece by piece (gathered writes, `writev`, of up to 1,024 runs each),
//! and made whole only for those that need it whole (a diff of it, its lines shown). A content
//! that is not made from a file (an original `undo` puts back) is simply its bytes, whole.

use crate::checksum::Checksum;
use crate::line_diff::Shared;
use crate::sha256::Sha256;
use std::borrow::Cow;
use std::fmt;
use std::io::{self, IoSlice, Write};
use std::sync::Arc;

/// The bytes of a new content, in order: runs of a base (the file it is made from) and of
/// its own written bytes.
#[derive(Clone, Default)]
pub struct Content {
    base: Arc<Vec<u8>>,
    written: Vec<u8>,
    pieces: Vec<Piece>,
    len: usize,
}

/// Where one run of a content's bytes is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    Base { start: usize, end: usize },
    Written { start: usize, end: usize },
}

impl Content {
    /// A content that is these bytes, whole.
    pub fn owned(bytes: Vec<u8>) -> Content {
        let len = bytes.len();
        Content {
            base: Arc::new(bytes),
            written: Vec::new(),
            pieces: (len > 0)
                .then_some(Piece::Base { start: 0, end: len })
                .into_iter()
                .collect(),
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The runs of bytes, in order; none is empty.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.pieces.iter().map(|piece| match *piece {
            Piece::Base { start, end } => &self.base[start..end],
            Piece::Written { start, end } => &self.written[start..end],
        })
    }

    /// The bytes, whole: borrowed when they are one run already.
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        let mut pieces = self.pieces();
        match (pieces.next(), pieces.next()) {
            (None, _) => Cow::Borrowed(&[]),
            (Some(only), None) => Cow::Borrowed(only),
            _ => Cow::Owned(self.to_vec()),
        }
    }

    /// How many bytes at the start and at the end of this content are runs of `base` at the
    /// same place (counted from the start of both, and from the end of both), so equal to
    /// `base`'s there without comparing a byte; they never overlap. None when `base` is not the
    /// very bytes this content is made from.
    pub fn shared_ends(&self, base: &[u8]) -> (usize, usize) {
        if !std::ptr::eq(self.base.as_slice(), base) {
            return (0, 0);
        }
        let head = match self.pieces.first() {
            Some(&Piece::Base { start: 0, end }) => end,
            _ => 0,
        };
        let tail = match self.pieces.last() {
            Some(&Piece::Base { start, end }) if end == base.len() => end - start,
            _ => 0,
        };
        let most = self.len.min(base.len());
        let head = head.min(most);
        (head, tail.min(most - head))
    }

    /// The runs of `base` this content copies, each with where it lies in this content: what
    /// a line diff of the two need not compare ([`crate::line_diff::diff_lines`]). None when
    /// `base` is not the very bytes this content is made from.
    pub fn shared_with(&self, base: &[u8]) -> Vec<Shared> {
        if !std::ptr::eq(self.base.as_slice(), base) {
            return Vec::new();
        }
        let mut at = 0;
        let mut runs = Vec::new();
        for piece in &self.pieces {
            match *piece {
                Piece::Base { start, end } => {
                    runs.push(Shared {
                        old: start,
                        new: at,
                        len: end - start,
                    });
                    at += end - start;
                }
                Piece::Written { start, end } => at += end - start,
            }
        }
        runs
    }

    /// The bytes from `start` to `end`, whole: borrowed when they lie in one run.
    pub fn slice(&self, start: usize, end: usize) -> Cow<'_, [u8]> {
        assert!(start <= end && end <= self.len, "a range of the content");
        let mut parts = Vec::new();
        let mut at = 0;
        for piece in self.pieces() {
            let (from, to) = (start.max(at), end.min(at + piece.len()));
            if from < to {
                parts.push(&piece[from - at..to - at]);
            }
            at += piece.len();
            if at >= end {
                break;
            }
        }
        match parts.as_slice() {
            [] => Cow::Borrowed(&[]),
            [only] => Cow::Borrowed(only),
            _ => Cow::Owned(parts.concat()),
        }
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.len);
        for piece in self.pieces() {
            bytes.extend_from_slice(piece);
        }
        bytes
    }

    /// The SHA-256 of the bytes, in lowercase hex.
    pub fn sha256(&self) -> String {
        let mut hasher = Sha256::new();
        for piece in self.pieces() {
            hasher.update(piece);
        }
        crate::sha256::hex(&hasher.finalize())
    }

    /// The [`Checksum`] of the bytes, piece by piece.
    pub fn checksum(&self) -> Checksum {
        Checksum::of_pieces(self.pieces())
    }

    /// Writes every byte to `out`, the runs gathered into as few calls as the system allows.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut slices: Vec<IoSlice<'_>> = self.pieces().map(IoSlice::new).collect();
        let mut left = &mut slices[..];
        while !left.is_empty() {
            match out.write_vectored(left) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => IoSlice::advance_slices(&mut left, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl PartialEq<[u8]> for Content {
    fn eq(&self, other: &[u8]) -> bool {
        if self.len != other.len() {
            return false;
        }
        let mut rest = other;
        self.pieces().all(|piece| {
            let (head, tail) = rest.split_at(piece.len());
            rest = tail;
            head == piece
        })
    }
}

impl PartialEq<Vec<u8>> for Content {
    fn eq(&self, other: &Vec<u8>) -> bool {
        *self == other[..]
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Content {
    fn eq(&self, other: &&[u8; N]) -> bool {
        *self == other[..]
    }
}

impl PartialEq for Content {
    fn eq(&self, other: &Content) -> bool {
        self.len == other.len && *self == other.bytes()[..]
    }
}

impl Eq for Content {}

impl fmt::Debug for Content {
    /// The text (invalid UTF-8 shown as U+FFFD), as a test's failure wants to read it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Content({:?})", String::from_utf8_lossy(&self.bytes()))
    }
}

/// A [`Content`] being put together from a base's bytes and others.
pub struct Builder<'a> {
    base: &'a [u8],
    written: Vec<u8>,
    pieces: Vec<Piece>,
    len: usize,
}

impl<'a> Builder<'a> {
    /// Starts a content made from `base` (bytes pushed from inside it are not copied).
    pub fn new(base: &'a [u8]) -> Builder<'a> {
        Builder {
            base,
            written: Vec::new(),
            pieces: Vec::new(),
            len: 0,
        }
    }

    /// Appends `bytes`: a run of the base when they lie inside it (they are the base's bytes
    /// there), else a copy; each joins the run before it when it follows on.
    pub fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.len += bytes.len();
        let (outer, inner) = (self.base.as_ptr_range(), bytes.as_ptr_range());
        if outer.start <= inner.start && inner.end <= outer.end {
            let start = inner.start as usize - outer.start as usize;
            let end = start + bytes.len();
            match self.pieces.last_mut() {
                Some(Piece::Base { end: last, .. }) if *last == start => *last = end,
                _ => self.pieces.push(Piece::Base { start, end }),
            }
            return;
        }
        // Bytes equal to the base's just after its last run (a line's ending as the file has
        // it) extend that run instead of being copied.
        if let Some(Piece::Base { end, .. }) = self.pieces.last_mut() {
            if self.base[*end..].starts_with(bytes) {
                *end += bytes.len();
                return;
            }
        }
        let start = self.written.len();
        self.written.extend_from_slice(bytes);
        let end = self.written.len();
        match self.pieces.last_mut() {
            Some(Piece::Written { end: last, .. }) if *last == start => *last = end,
            _ => self.pieces.push(Piece::Written { start, end }),
        }
    }

    /// The content, sharing `base`, which must hold the bytes this builder was started from.
    /// Its lists are trimmed to their length: a plan holds thousands of contents at once.
    pub fn finish(mut self, base: &Arc<Vec<u8>>) -> Content {
        assert!(
            std::ptr::eq(base.as_slice(), self.base),
            "a content shares the very bytes it was built from"
        );
        self.written.shrink_to_fit();
        self.pieces.shrink_to_fit();
        Content {
            base: Arc::clone(base),
            written: self.written,
            pieces: self.pieces,
            len: self.len,
        }
    }

    /// The bytes, whole, in a buffer of their own.
    pub fn into_vec(self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.len);
        for piece in &self.pieces {
            bytes.extend_from_slice(match *piece {
                Piece::Base { start, end } => &self.base[start..end],
                Piece::Written { start, end } => &self.written[start..end],
            });
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_the_base_are_shared_and_the_rest_copied() {
        let base = Arc::new(b"one\ntwo\nthree\n".to_vec());
        let mut builder = Builder::new(&base);
        builder.push(&base[0..4]);
        builder.push(b"TWO");
        // The base's own ending after a copied line is still copied: no run precedes it.
        builder.push(b"\n");
        builder.push(&base[8..11]);
        // Equal to the base's bytes just after the run: the run grows.
        builder.push(b"ee\n");
        builder.push(b"");
        let content = builder.finish(&base);
        assert_eq!(content, b"one\nTWO\nthree\n");
        assert_eq!(content.len(), 14);
        assert_eq!(
            content.pieces().collect::<Vec<_>>(),
            [&b"one\n"[..], b"TWO\n", b"three\n"]
        );
        assert_eq!(content.written, b"TWO\n");
        assert_eq!(
            content.sha256(),
            crate::sha256::sha256_hex(b"one\nTWO\nthree\n")
        );
        let mut out = Vec::new();
        content.write_to(&mut out).unwrap();
        assert_eq!(out, b"one\nTWO\nthree\n");
        assert_ne!(content, b"one\nTWO\nthree");
        assert_ne!(content, b"one\nTWO\nthreE\n");
    }

    #[test]
    fn shared_ends_are_the_base_runs_at_both_ends_and_a_slice_any_range() {
        let base = Arc::new(b"one\ntwo\nthree\nfour\n".to_vec());
        let made = |runs: &[&[u8]]| {
            let mut builder = Builder::new(&base);
            for run in runs {
                builder.push(run);
            }
            builder.finish(&base)
        };
        let middle = made(&[&base[..4], b"TWO\n", &base[8..]]);
        assert_eq!(middle.shared_ends(&base), (4, 11));
        let other = base.to_vec();
        assert_eq!(middle.shared_ends(&other), (0, 0), "only the very bytes");
        // A copy at either end shares nothing there.
        assert_eq!(made(&[b"ONE\n", &base[4..]]).shared_ends(&base), (0, 15));
        assert_eq!(made(&[&base[..8], b"end"]).shared_ends(&base), (8, 0));
        // The same bytes whole: all of it at the start, nothing left for the end.
        assert_eq!(made(&[&base[..]]).shared_ends(&base), (19, 0));
        // Runs of the base elsewhere than at its own start or end share nothing there.
        assert_eq!(made(&[&base[4..8]]).shared_ends(&base), (0, 0));
        assert_eq!(made(&[b"X\n", &base[..8]]).shared_ends(&base), (0, 0));
        assert_eq!(made(&[&base[8..], b"Y"]).shared_ends(&base), (0, 0));
        // A line removed: both runs, all of the content.
        assert_eq!(made(&[&base[..8], &base[14..]]).shared_ends(&base), (8, 5));
        // Runs that would overlap (lines repeated): the end gets what the start leaves.
        assert_eq!(made(&[&base[..10], &base[5..]]).shared_ends(&base), (10, 9));
        let whole = middle.to_vec();
        for start in 0..=whole.len() {
            for end in start..=whole.len() {
                assert_eq!(
                    middle.slice(start, end)[..],
                    whole[start..end],
                    "{start}..{end}"
                );
            }
        }
        assert!(matches!(middle.slice(0, 4), Cow::Borrowed(_)));
        assert!(matches!(middle.slice(3, 6), Cow::Owned(_)));
    }

    #[test]
    fn a_content_owned_whole_is_one_run_or_none() {
        let whole = Content::owned(b"abc".to_vec());
        assert!(matches!(whole.bytes(), Cow::Borrowed(b"abc")));
        let empty = Content::owned(Vec::new());
        assert!(empty.is_empty());
        assert_eq!(empty.pieces().count(), 0);
        assert_eq!(empty, Content::default());
        assert_eq!(empty.sha256(), crate::sha256::sha256_hex(b""));
    }

    /// A writer that takes at most `most` bytes a call, as a pipe or a full disk may.
    struct Trickle {
        out: Vec<u8>,
        most: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.most);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writing_finishes_whatever_each_call_takes() {
        let base = Arc::new((0..=255u8).cycle().take(5000).collect::<Vec<u8>>());
        let mut builder = Builder::new(&base);
        for k in 0..50 {
            builder.push(&base[k * 100..k * 100 + 60]);
            builder.push(format!("<{k}>").as_bytes());
        }
        let content = builder.finish(&base);
        let mut trickle = Trickle {
            out: Vec::new(),
            most: 7,
        };
        content.write_to(&mut trickle).unwrap();
        assert_eq!(trickle.out, content.to_vec());
        assert_eq!(content.to_vec().len(), content.len());
    }

    /// A diff guided by a content's runs of its file turns the file into the content, with
    /// positions that hold, whatever the edits (lines with and without endings, CRLF, repeated
    /// lines, edits that split or join lines).
    #[test]
    fn a_diff_guided_by_the_shared_runs_turns_the_file_into_the_content() {
        use crate::line_diff::diff_lines;
        use similar::DiffOp;
        let mut state = 3u64;
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % below) as usize
        };
        let pieces: [&[u8]; 6] = [b"a\n", b"b\n", b"\r\n", b"x", b"a", b"\n"];
        for case in 0..3000 {
            let base: Vec<u8> = (0..next(12))
                .flat_map(|_| pieces[next(6)].iter().copied())
                .collect();
            let base = Arc::new(base);
            // Runs of the base, in order, with written bytes between some of them.
            let mut builder = Builder::new(&base);
            let mut at = 0;
            while at < base.len() {
                let end = (at + 1 + next(6)).min(base.len());
                if next(3) > 0 {
                    builder.push(&base[at..end]);
                }
                if next(3) == 0 {
                    builder.push(pieces[next(6)]);
                }
                at = end;
            }
            let content = builder.finish(&base);
            let new = content.to_vec();
            let diff = diff_lines(&base, &new, &content.shared_with(&base));
            let (mut o, mut n) = (0, 0);
            let mut made: Vec<u8> = Vec::new();
            for op in &diff.ops {
                assert_eq!(
                    (op.old_range().start, op.new_range().start),
                    (o, n),
                    "case {case}"
                );
                match *op {
                    DiffOp::Equal { len, .. } => {
                        assert_eq!(diff.old[o..o + len], diff.new[n..n + len], "case {case}");
                        made.extend(diff.old[o..o + len].concat());
                    }
                    _ => made.extend(diff.new[op.new_range()].concat()),
                }
                (o, n) = (op.old_range().end, op.new_range().end);
            }
            assert_eq!((o, n), (diff.old.len(), diff.new.len()), "case {case}");
            assert_eq!(made, new, "case {case}");
        }
    }
}
