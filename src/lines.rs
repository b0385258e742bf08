//! A file's bytes seen as lines, and the rewriting of line ranges that keeps every other byte.
//!
//! A line ends at `\n`; a `\r` just before it belongs to the line ending, not the text, so a
//! batch written with LF lines verifies against a CRLF file. Lines written into a file take the
//! file's own line ending, and whether the file ends with a newline is preserved. A UTF-8 byte
//! order mark belongs to the file, not to its first line: it is not compared and it is kept.
//! This module owns that byte-level contract; it knows nothing of batches beyond a range and
//! new lines.

use crate::model::LineRange;
use crate::text_lines::TextLines;
use std::borrow::Cow;

/// A line ending as it appears in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// A file's content split into lines, borrowing the bytes.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    lines: Vec<Line<'a>>,
    bom: bool,
}

impl<'a> Lines<'a> {
    pub fn split(bytes: &'a [u8]) -> Lines<'a> {
        let mut lines = Vec::with_capacity(bytes.len() / 32 + 1);
        let bom = bytes.starts_with(BOM);
        let mut rest = if bom { &bytes[BOM.len()..] } else { bytes };
        while !rest.is_empty() {
            match memchr_newline(rest) {
                Some(at) => {
                    let (text, eol) = if at > 0 && rest[at - 1] == b'\r' {
                        (&rest[..at - 1], Eol::CrLf)
                    } else {
                        (&rest[..at], Eol::Lf)
                    };
                    lines.push(Line { text, eol });
                    rest = &rest[at + 1..];
                }
                None => {
                    lines.push(Line {
                        text: rest,
                        eol: Eol::None,
                    });
                    rest = &[];
                }
            }
        }
        Lines { lines, bom }
    }

    /// Whether the file starts with a UTF-8 byte order mark (not part of line 1's text).
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn all(&self) -> &[Line<'a>] {
        &self.lines
    }

    /// The lines of a range that lies inside the file.
    pub fn range(&self, range: LineRange) -> &[Line<'a>] {
        &self.lines[range.index()..range.index() + range.count]
    }

    /// Whether the last line lacks a newline.
    pub fn missing_final_newline(&self) -> bool {
        matches!(self.lines.last(), Some(line) if line.eol == Eol::None)
    }

    /// The ending new lines are written with: CRLF when most lines end so, else LF.
    pub fn dominant_eol(&self) -> Eol {
        let crlf = self.lines.iter().filter(|l| l.eol == Eol::CrLf).count();
        let lf = self.lines.iter().filter(|l| l.eol == Eol::Lf).count();
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
            && range.end() - 1 <= self.lines.len()
            && range.count == expected.len()
            && self
                .range(range)
                .iter()
                .zip(expected)
                .all(|(line, want)| line.text == want.as_bytes())
    }

    /// Every 1-based line where `expected` occurs as a run of whole lines.
    pub fn find_all(&self, expected: &TextLines) -> Vec<usize> {
        if expected.is_empty() || expected.len() > self.lines.len() {
            return Vec::new();
        }
        (0..=self.lines.len() - expected.len())
            .filter(|&i| {
                self.lines[i].text == expected[0].as_bytes()
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

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// One edit to apply: the range of current lines it replaces and the lines to put there.
#[derive(Clone, Copy, Debug)]
pub struct Splice<'c> {
    pub range: LineRange,
    pub new_lines: &'c TextLines,
    /// When the splice reaches the end of the file: whether the file then ends with a newline
    /// (`None` keeps the original's choice).
    pub final_newline: Option<bool>,
    /// The ending of each new line, when it is given (`Eol::None` there means "the file's").
    pub new_eols: Option<&'c [Eol]>,
}

impl<'c> Splice<'c> {
    pub fn new(range: LineRange, new_lines: &'c TextLines) -> Splice<'c> {
        Splice {
            range,
            new_lines,
            final_newline: None,
            new_eols: None,
        }
    }
}

/// Rewrites `original` with `splices` (sorted by position, not overlapping, inside the file).
///
/// Lines outside the splices keep their bytes and endings, with one exception each way at the
/// end of a file without a final newline: its last line gains the file's ending when new lines
/// follow it, and when a splice removes it, the line then last loses its ending. New lines take
/// the file's dominant ending, except that the new lines a splice shares with the lines it
/// replaces at its start and end (unchanged context) keep their own endings. So whatever line
/// ends the file after a splice that reaches the end, it ends with a newline as the splice says
/// (`final_newline`, which a unified diff's hunk sets), else exactly when the original did (an
/// empty original counts as ending with one).
pub fn splice(original: &[u8], splices: &[Splice<'_>]) -> Vec<u8> {
    splice_with_eol(original, splices, Eol::Lf)
}

/// [`splice`], with the ending new lines take when the original has no line ending at all.
pub fn splice_with_eol(original: &[u8], splices: &[Splice<'_>], default_eol: Eol) -> Vec<u8> {
    let lines = Lines::split(original);
    let eol = if lines.all().iter().any(|l| l.eol != Eol::None) {
        lines.dominant_eol()
    } else {
        default_eol
    };
    let keep_final_newline = !lines.missing_final_newline();
    let mut forced_final_newline = None;
    // `None` marks a line written by a splice with the file's ending.
    let mut out: Vec<(&[u8], Option<Eol>)> = Vec::with_capacity(lines.len() + 16);
    let mut next = 0; // zero-based index of the next original line to copy
    for splice in splices {
        debug_assert!(splice.range.index() >= next, "splices must be sorted");
        out.extend(
            lines.all()[next..splice.range.index()]
                .iter()
                .map(|l| (l.text, Some(l.eol))),
        );
        let old = lines.range(splice.range);
        let new = splice.new_lines;
        let prefix = old
            .iter()
            .zip(new)
            .take_while(|(o, n)| o.text == n.as_bytes())
            .count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(o, n)| o.text == n.as_bytes())
            .count();
        let given = splice.new_eols.filter(|e| e.len() == new.len());
        for (k, line) in new.iter().enumerate() {
            let kept = if let Some(eols) = given {
                Some(eols[k]).filter(|e| *e != Eol::None)
            } else if k < prefix {
                Some(old[k].eol)
            } else if k >= new.len() - suffix {
                Some(old[old.len() - (new.len() - k)].eol)
            } else {
                None
            };
            out.push((line.as_bytes(), kept));
        }
        next = splice.range.index() + splice.range.count;
        if next == lines.len() {
            // A splice that reaches the end decides how the file ends: as it says, else as
            // the original did (a removed last line without a newline takes the newline of
            // the line now last with it).
            forced_final_newline = splice
                .final_newline
                .or((!keep_final_newline).then_some(false));
        }
    }
    out.extend(lines.all()[next..].iter().map(|l| (l.text, Some(l.eol))));

    let mut bytes = Vec::with_capacity(original.len() + 64);
    if lines.has_bom() {
        bytes.extend_from_slice(BOM);
    }
    let last = out.len().saturating_sub(1);
    for (i, (text, line_eol)) in out.iter().enumerate() {
        bytes.extend_from_slice(text);
        let ending = match (i == last, *line_eol) {
            (true, _) if forced_final_newline == Some(false) => Eol::None,
            (true, Some(Eol::None)) if forced_final_newline == Some(true) => eol,
            (true, None) if forced_final_newline.is_none() && !keep_final_newline => Eol::None,
            (_, None) | (false, Some(Eol::None)) => eol,
            (_, Some(kept)) => kept,
        };
        bytes.extend_from_slice(ending.as_bytes());
    }
    bytes
}

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
        let texts: Vec<_> = lines.all().iter().map(|l| l.text).collect();
        assert_eq!(texts, vec![&b"a"[..], b"b\rc", b"d"]);
        assert_eq!(lines.all()[0].eol, Eol::CrLf);
        assert_eq!(lines.all()[2].eol, Eol::None);
        assert!(lines.missing_final_newline());
    }

    #[test]
    fn replacing_in_a_crlf_file_writes_crlf_and_keeps_other_bytes() {
        let out = splice(
            b"one\r\ntwo\r\nthree\r\n",
            &[Splice::new(LineRange::inclusive(2, 2), &s(&["TWO", "2b"]))],
        );
        assert_eq!(out, b"one\r\nTWO\r\n2b\r\nthree\r\n");
    }

    #[test]
    fn inserting_after_a_last_line_without_newline_keeps_the_file_without_one() {
        let out = splice(b"a\nb", &[Splice::new(LineRange::after(2), &s(&["c"]))]);
        assert_eq!(out, b"a\nb\nc");
    }

    #[test]
    fn deleting_the_last_line_of_a_file_without_newline_keeps_the_file_without_one() {
        // As inserting at the end does: the file's last line, now line 2, ends as the file did.
        // (`git diff` writes this as `-b -c +b`, each side marked "No newline at end of file".)
        let out = splice(
            b"a\nb\nc",
            &[Splice::new(
                LineRange::inclusive(3, 3),
                &TextLines::default(),
            )],
        );
        assert_eq!(out, b"a\nb");
        let out = splice(
            b"a\r\nb\r\nc",
            &[Splice::new(
                LineRange::inclusive(2, 3),
                &TextLines::default(),
            )],
        );
        assert_eq!(out, b"a");
        // A replacement that keeps line 2 and drops line 3 ends the same way.
        let out = splice(
            b"a\nb\nc",
            &[Splice::new(LineRange::inclusive(2, 3), &s(&["b"]))],
        );
        assert_eq!(out, b"a\nb");
    }

    #[test]
    fn a_splice_that_says_how_the_file_ends_is_obeyed() {
        // A unified diff's hunk that deletes the last line and keeps line 2's newline.
        let none = TextLines::default();
        let mut delete = Splice::new(LineRange::inclusive(3, 3), &none);
        delete.final_newline = Some(true);
        assert_eq!(splice(b"a\nb\nc", &[delete]), b"a\nb\n");
    }

    #[test]
    fn replacing_the_last_line_of_a_file_without_newline_ends_without_one() {
        let out = splice(
            b"a\nb",
            &[Splice::new(LineRange::inclusive(2, 2), &s(&["B", "C"]))],
        );
        assert_eq!(out, b"a\nB\nC");
    }

    #[test]
    fn inserting_into_an_empty_file_ends_with_a_newline() {
        let out = splice(b"", &[Splice::new(LineRange::after(0), &s(&["x", "y"]))]);
        assert_eq!(out, b"x\ny\n");
    }

    #[test]
    fn deleting_every_line_gives_an_empty_file() {
        let out = splice(
            b"a\nb\n",
            &[Splice::new(
                LineRange::inclusive(1, 2),
                &TextLines::default(),
            )],
        );
        assert_eq!(out, b"");
    }

    #[test]
    fn mixed_endings_keep_each_untouched_line_ending() {
        let out = splice(
            b"a\r\nb\nc\r\nd\r\n",
            &[Splice::new(LineRange::inclusive(2, 2), &s(&["B"]))],
        );
        assert_eq!(out, b"a\r\nB\r\nc\r\nd\r\n");
    }

    #[test]
    fn a_byte_order_mark_is_kept_and_not_part_of_line_one() {
        let original = b"\xEF\xBB\xBFfirst\nsecond\n";
        let lines = Lines::split(original);
        assert!(lines.has_bom());
        assert!(lines.matches_at(LineRange::inclusive(1, 1), &s(&["first"])));
        let out = splice(
            original,
            &[Splice::new(LineRange::inclusive(1, 1), &s(&["FIRST"]))],
        );
        assert_eq!(out, b"\xEF\xBB\xBFFIRST\nsecond\n");
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
