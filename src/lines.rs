//! A file's bytes seen as lines.
//!
//! A line ends at `\n`; a `\r` just before it belongs to the line ending, not the text, so a
//! batch written with LF lines verifies against a CRLF file. A UTF-8 byte order mark belongs to
//! the file, not to its first line: it is not compared and it is kept. A file is indexed once
//! ([`LineIndex`]) and its lines cut from the bytes when asked for. Rewriting line ranges is
//! [`crate::splice`]'s; this module knows nothing of batches beyond a range and lines.

use crate::text_lines::TextLines;
use std::borrow::Cow;

/// A run of whole lines in the current file: `count` lines starting at 1-based line `start`.
/// An insertion is an empty range whose `start` is the line it goes before (so inserting after
/// line 5 is `start: 6, count: 0`, and at the top of the file `start: 1, count: 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineRange {
    pub start: usize,
    pub count: usize,
}

impl LineRange {
    /// The range of lines `first..=last` (1-based, inclusive).
    pub fn inclusive(first: usize, last: usize) -> LineRange {
        LineRange {
            start: first,
            count: last + 1 - first,
        }
    }

    /// The empty range just after line `after` (0 = before the first line).
    pub fn after(after: usize) -> LineRange {
        LineRange {
            start: after + 1,
            count: 0,
        }
    }

    /// One past the last line of the range.
    pub fn end(self) -> usize {
        self.start + self.count
    }

    /// The last line of a non-empty range.
    pub fn last(self) -> usize {
        self.end() - 1
    }

    /// Zero-based index of the first line, for slicing a line vector.
    pub fn index(self) -> usize {
        self.start - 1
    }

    /// Whether two ranges touch the same lines, or are two insertions at the same place (whose
    /// order would then be ambiguous).
    pub fn overlaps(self, other: LineRange) -> bool {
        if self.count == 0 && other.count == 0 {
            return self.start == other.start;
        }
        self.start < other.end() && other.start < self.end()
    }

    /// How the range reads in a sentence: `line 12`, `lines 12-14`, or `after line 11` for an
    /// insertion.
    pub fn describe_lines(self) -> String {
        match self.count {
            0 => format!("after line {}", self.start - 1),
            1 => format!("line {}", self.start),
            _ => format!("lines {}-{}", self.start, self.last()),
        }
    }

    /// How the range reads to a person: `12`, `12-14`, or `after 11` for an insertion.
    pub fn describe(self) -> String {
        match self.count {
            0 => format!("after {}", self.start - 1),
            1 => format!("{}", self.start),
            _ => format!("{}-{}", self.start, self.last()),
        }
    }
}

/// A line ending as it appears in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eol {
    Lf,
    CrLf,
    /// The last line of a file that does not end with a newline.
    None,
}

impl Eol {
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            Eol::Lf => b"\n",
            Eol::CrLf => b"\r\n",
            Eol::None => b"",
        }
    }
}

/// One line of a file: its text (without the ending) and its ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub text: &'a [u8],
    pub eol: Eol,
}

impl<'a> Line<'a> {
    /// The text as UTF-8 (lossy only for files already refused as non-UTF-8 by the caller).
    pub fn text_str(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.text)
    }
}

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where each line of a file ends, found once per file and shared by everything that reads the
/// file by lines (see [`crate::fs::Snapshot::lines`]): placing a diff's hunks, verifying
/// changes, computing the new content and the reviewer's frames. Four bytes a line (eight past 4 GiB), against the
/// 24 of a [`Line`]: the lines themselves are cut from the bytes when asked for.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    bom: bool,
    ends: Ends,
}

/// The offset of each line's end: its `\n`, or the end of the bytes for a last line without
/// one.
#[derive(Clone, Debug)]
enum Ends {
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl Default for Ends {
    fn default() -> Ends {
        Ends::Narrow(Vec::new())
    }
}

impl LineIndex {
    pub fn of(bytes: &[u8]) -> LineIndex {
        let bom = bytes.starts_with(BOM);
        let start = if bom { BOM.len() } else { 0 };
        let body = &bytes[start..];
        let unterminated = !body.is_empty() && !body.ends_with(b"\n");
        let last = unterminated.then_some(bytes.len());
        let ends = match u32::try_from(bytes.len()) {
            Ok(_) => {
                let mut ends = Vec::with_capacity(body.len() / 32 + 1);
                crate::newlines::each(body, |at| ends.push((start + at) as u32));
                ends.extend(last.map(|end| end as u32));
                ends.shrink_to_fit();
                Ends::Narrow(ends)
            }
            Err(_) => {
                let mut ends = Vec::new();
                crate::newlines::each(body, |at| ends.push(start + at));
                ends.extend(last);
                Ends::Wide(ends)
            }
        };
        LineIndex { bom, ends }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        match &self.ends {
            Ends::Narrow(ends) => ends.len(),
            Ends::Wide(ends) => ends.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of 1-based line `n` of `bytes` (the bytes this indexes), without its ending,
    /// for showing: a line that is not UTF-8 reads as a marker saying so.
    pub fn line<'a>(&self, bytes: &'a [u8], n: usize) -> &'a str {
        std::str::from_utf8(self.cut(bytes, n - 1).text).unwrap_or("\u{fffd} (not UTF-8)")
    }

    /// Zero-based line `i` of `bytes`, which must be inside it.
    fn cut<'a>(&self, bytes: &'a [u8], i: usize) -> Line<'a> {
        let (start, end) = (self.start(i), self.end(i));
        if end == bytes.len() {
            Line {
                text: &bytes[start..end],
                eol: Eol::None,
            }
        } else if end > start && bytes[end - 1] == b'\r' {
            Line {
                text: &bytes[start..end - 1],
                eol: Eol::CrLf,
            }
        } else {
            Line {
                text: &bytes[start..end],
                eol: Eol::Lf,
            }
        }
    }

    fn end(&self, i: usize) -> usize {
        match &self.ends {
            Ends::Narrow(ends) => ends[i] as usize,
            Ends::Wide(ends) => ends[i],
        }
    }

    fn start(&self, i: usize) -> usize {
        match i {
            0 if self.bom => BOM.len(),
            0 => 0,
            _ => self.end(i - 1) + 1,
        }
    }
}

/// A file's content seen as lines, borrowing the bytes and cutting each line from them when
/// it is asked for.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    bytes: &'a [u8],
    index: Cow<'a, LineIndex>,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes`, indexed now. A file read from the workspace is indexed once, by
    /// [`crate::fs::Snapshot::lines`].
    pub fn split(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            bytes,
            index: Cow::Owned(LineIndex::of(bytes)),
        }
    }

    /// The lines of `bytes`, by an index made of them ([`LineIndex::of`]).
    pub fn indexed(bytes: &'a [u8], index: &'a LineIndex) -> Lines<'a> {
        debug_assert!(index.is_empty() || index.end(index.len() - 1) <= bytes.len());
        Lines {
            bytes,
            index: Cow::Borrowed(index),
        }
    }

    /// The bytes the lines are cut from.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the file starts with a UTF-8 byte order mark (not part of line 1's text).
    pub fn has_bom(&self) -> bool {
        self.index.bom
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The line at zero-based `i`, which must be inside the file.
    pub fn get(&self, i: usize) -> Line<'a> {
        self.index.cut(self.bytes, i)
    }

    /// Every line, first to last.
    pub fn iter(&self) -> Iter<'_, 'a> {
        self.between(0, self.len())
    }

    /// The lines at zero-based `from..to`, which must lie inside the file.
    pub fn between(&self, from: usize, to: usize) -> Iter<'_, 'a> {
        assert!(
            from <= to && to <= self.len(),
            "lines {from}..{to} of {}",
            self.len()
        );
        Iter {
            lines: self,
            front: from,
            back: to,
        }
    }

    /// The lines of a range that lies inside the file.
    pub fn range(&self, range: LineRange) -> Iter<'_, 'a> {
        self.between(range.index(), range.index() + range.count)
    }

    /// The bytes from the start of line `from` (zero-based) to the start of line `to`, endings
    /// included: lines copied as they are.
    pub fn bytes_between(&self, from: usize, to: usize) -> &'a [u8] {
        let at = |i: usize| match i {
            _ if i == self.len() => self.bytes.len(),
            _ => self.index.start(i),
        };
        &self.bytes[at(from)..at(to)]
    }

    /// Whether the last line lacks a newline.
    pub fn missing_final_newline(&self) -> bool {
        !self.is_empty() && self.index.end(self.len() - 1) == self.bytes.len()
    }

    /// The ending new lines are written with: CRLF when most lines end so, else LF.
    pub fn dominant_eol(&self) -> Eol {
        let (mut crlf, mut lf) = (0, 0);
        for line in self.iter() {
            match line.eol {
                Eol::CrLf => crlf += 1,
                Eol::Lf => lf += 1,
                Eol::None => {}
            }
        }
        if crlf > lf {
            Eol::CrLf
        } else {
            Eol::Lf
        }
    }

    /// Whether the lines at `range` are exactly `expected` (texts compared byte for byte,
    /// endings ignored). A range that leaves the file never matches.
    pub fn matches_at(&self, range: LineRange, expected: &TextLines) -> bool {
        range.start >= 1
            && range.end() - 1 <= self.len()
            && range.count == expected.len()
            && self
                .range(range)
                .zip(expected)
                .all(|(line, want)| line.text == want.as_bytes())
    }

    /// Every 1-based line where `expected` occurs as a run of whole lines.
    pub fn find_all(&self, expected: &TextLines) -> Vec<usize> {
        if expected.is_empty() || expected.len() > self.len() {
            return Vec::new();
        }
        let first = expected[0].as_bytes();
        (0..=self.len() - expected.len())
            .filter(|&i| {
                self.get(i).text == first
                    && self.matches_at(
                        LineRange {
                            start: i + 1,
                            count: expected.len(),
                        },
                        expected,
                    )
            })
            .map(|i| i + 1)
            .collect()
    }
}

/// Lines of a [`Lines`], in order (see [`Lines::between`]).
#[derive(Clone, Debug)]
pub struct Iter<'l, 'a> {
    lines: &'l Lines<'a>,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'_, 'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.lines.get(self.front - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<Line<'a>> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl<'a> DoubleEndedIterator for Iter<'_, 'a> {
    fn next_back(&mut self) -> Option<Line<'a>> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.lines.get(self.back)
        })
    }
}

impl ExactSizeIterator for Iter<'_, '_> {}

/// Whether `text` is one line without its ending: no `\n` inside, no `\r` at the end (that
/// would be written as part of a CRLF ending, or change the file's ending).
pub fn is_one_line(text: &str) -> bool {
    !text.contains('\n') && !text.ends_with('\r')
}

/// A line as it is shown to a person: control characters, which a terminal would act on or
/// hide (`b\r` shows as `b`), become visible: C0 controls and DEL as their Unicode control
/// pictures (`\r` as `␍`, ESC as `␛`), other controls as `\u{85}`. A tab stays a tab.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push(c),
            '\u{0}'..='\u{1f}' => {
                out.push(char::from_u32(0x2400 + c as u32).expect("control pictures exist"))
            }
            '\u{7f}' => out.push('\u{2421}'),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The first byte offset at which `bytes` is not valid UTF-8, if any.
pub fn invalid_utf8_offset(bytes: &[u8]) -> Option<usize> {
    std::str::from_utf8(bytes).err().map(|e| e.valid_up_to())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(lines: &[&str]) -> TextLines {
        lines.iter().copied().collect()
    }

    #[test]
    fn crlf_belongs_to_the_ending_and_a_lone_cr_to_the_text() {
        let lines = Lines::split(b"a\r\nb\rc\nd");
        let texts: Vec<_> = lines.iter().map(|l| l.text).collect();
        assert_eq!(texts, vec![&b"a"[..], b"b\rc", b"d"]);
        assert_eq!(lines.get(0).eol, Eol::CrLf);
        assert_eq!(lines.get(2).eol, Eol::None);
        assert!(lines.missing_final_newline());
    }

    /// The lines of `bytes` as the index-free split always cut them: the reference the index
    /// must agree with.
    fn reference_lines(bytes: &[u8]) -> (bool, Vec<Line<'_>>) {
        let bom = bytes.starts_with(BOM);
        let mut rest = if bom { &bytes[BOM.len()..] } else { bytes };
        let mut lines = Vec::new();
        while !rest.is_empty() {
            let (line, next) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) if at > 0 && rest[at - 1] == b'\r' => {
                    ((&rest[..at - 1], Eol::CrLf), &rest[at + 1..])
                }
                Some(at) => ((&rest[..at], Eol::Lf), &rest[at + 1..]),
                None => ((rest, Eol::None), &[][..]),
            };
            lines.push(Line {
                text: line.0,
                eol: line.1,
            });
            rest = next;
        }
        (bom, lines)
    }

    #[test]
    fn the_index_cuts_every_line_as_a_split_does() {
        let cases: [&[u8]; 14] = [
            b"",
            b"\n",
            b"\r\n",
            b"\r",
            b"a",
            b"a\r",
            b"\n\n\r\n",
            b"a\nb",
            b"a\r\nb\r\n",
            b"\xEF\xBB\xBF",
            b"\xEF\xBB\xBF\n",
            b"\xEF\xBB\xBFx\r\ny",
            b"\xEF\xBBx\n",
            b"one\r\r\ntwo\n\rthree",
        ];
        for bytes in cases {
            let (bom, want) = reference_lines(bytes);
            let index = LineIndex::of(bytes);
            let lines = Lines::indexed(bytes, &index);
            let got: Vec<Line> = lines.iter().collect();
            assert_eq!((lines.has_bom(), &got), (bom, &want), "{bytes:?}");
            let backwards: Vec<Line> = lines.iter().rev().collect();
            assert!(backwards.iter().rev().eq(&want), "{bytes:?} backwards");
            assert_eq!(
                lines.missing_final_newline(),
                want.last().is_some_and(|l| l.eol == Eol::None)
            );
            let whole = lines.bytes_between(0, lines.len());
            assert_eq!(
                whole,
                &bytes[if bom { 3 } else { 0 }..],
                "{bytes:?} as bytes"
            );
        }
    }

    #[test]
    fn find_all_reports_every_occurrence() {
        let lines = Lines::split(b"x\ny\nx\ny\nz\n");
        assert_eq!(lines.find_all(&s(&["x", "y"])), vec![1, 3]);
        assert_eq!(lines.find_all(&s(&["y", "z"])), vec![4]);
        assert!(lines.find_all(&s(&["q"])).is_empty());
    }

    #[test]
    fn control_characters_are_shown_visibly() {
        assert_eq!(visible("b\r"), "b\u{240d}");
        assert_eq!(
            visible("\x1b[31mred\tx\u{7f}\u{85}"),
            "\u{241b}[31mred\tx\u{2421}\\u{85}"
        );
        assert!(matches!(visible("plain\ttext"), Cow::Borrowed(_)));
    }

    #[test]
    fn invalid_utf8_is_located() {
        assert_eq!(invalid_utf8_offset(b"ok\n\xffno"), Some(3));
        assert_eq!(invalid_utf8_offset("é\n".as_bytes()), None);
    }
}
