//! Rewriting a file's line ranges while keeping every other byte: the new content of a file
//! from its lines and the splices a plan chose.
//!
//! Lines outside the splices are taken as the bytes they are; only the lines a splice writes,
//! and the line that ends the file, are given their endings here (the rules are on [`splice`]).
//! A plan keeps what a splice makes as a [`Content`]: runs of the file's own bytes, shared, and
//! the bytes the splices write.

use crate::content::{self, Content};
use crate::lines::{Eol, Lines, BOM};
use crate::model::LineRange;
use crate::text_lines::TextLines;
use std::sync::Arc;

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
    spliced(&Lines::split(original), splices, default_eol).into_vec()
}

/// [`splice_with_eol`] of lines already indexed (a file read from the workspace), as a
/// [`Content`] sharing `base`, the bytes `lines` indexes: what is copied is only the lines the
/// splices write and the endings they change.
pub fn splice_content(
    base: &Arc<Vec<u8>>,
    lines: &Lines<'_>,
    splices: &[Splice<'_>],
    default_eol: Eol,
) -> Content {
    spliced(lines, splices, default_eol).finish(base)
}

/// The splices applied, as runs of `lines`' bytes and the bytes written between them. Lines
/// outside the splices, and the lines a splice keeps as they were (its unchanged context),
/// are runs of the original.
fn spliced<'a>(
    lines: &Lines<'a>,
    splices: &[Splice<'a>],
    default_eol: Eol,
) -> content::Builder<'a> {
    let has_ending = lines.len() > 1 || (lines.len() == 1 && !lines.missing_final_newline());
    let eol = if has_ending {
        lines.dominant_eol()
    } else {
        default_eol
    };
    let mut out = Spliced {
        bytes: content::Builder::new(lines.bytes()),
        eol,
        last: None,
    };
    if lines.has_bom() {
        out.bytes.push(&lines.bytes()[..BOM.len()]);
    }
    let keep_final_newline = !lines.missing_final_newline();
    let mut forced_final_newline = None;
    let mut next = 0; // zero-based index of the next original line to copy
    for splice in splices {
        // Checked in release builds too: an overlap would write lines twice, not fail (the plan
        // refuses overlapping changes before this).
        assert!(
            splice.range.index() >= next && splice.range.end() - 1 <= lines.len(),
            "splices must be sorted, apart and inside the file"
        );
        out.copy(lines, next, splice.range.index());
        let (at, count) = (splice.range.index(), splice.range.count);
        let old = |k: usize| lines.get(at + k);
        let new = splice.new_lines;
        let prefix = (0..count.min(new.len()))
            .take_while(|&k| old(k).text == new[k].as_bytes())
            .count();
        let room = count.min(new.len()) - prefix;
        let suffix = (1..=room)
            .take_while(|&k| old(count - k).text == new[new.len() - k].as_bytes())
            .count();
        let given = splice.new_eols.filter(|e| e.len() == new.len());
        for (k, line) in new.iter().enumerate() {
            // A line the splice keeps (the same text) is taken from the file, not copied, when
            // it ends as it did there too: its text and ending are then one run of the file's
            // bytes. (One that changes its ending, as a diff that turns CRLF into LF does for
            // every line, is copied: two runs a line would cost more than the copy.)
            let same = if k < prefix {
                Some(old(k))
            } else if k >= new.len() - suffix {
                Some(old(count - (new.len() - k)))
            } else {
                None
            };
            let kept = match (given, same) {
                (Some(eols), _) => Some(eols[k]).filter(|e| *e != Eol::None),
                (None, Some(same)) => Some(same.eol),
                (None, None) => None,
            };
            let ending = kept.unwrap_or(out.eol);
            let text = match same {
                Some(same) if same.eol == ending => same.text,
                _ => line.as_bytes(),
            };
            out.line(text, kept);
        }
        next = at + count;
        if next == lines.len() {
            // A splice that reaches the end decides how the file ends: as it says, else as
            // the original did (a removed last line without a newline takes the newline of
            // the line now last with it).
            forced_final_newline = splice
                .final_newline
                .or((!keep_final_newline).then_some(false));
        }
    }
    out.copy(lines, next, lines.len());
    out.finish(forced_final_newline, keep_final_newline)
}

/// The new content as it is written: every line but the last is final; the last waits, since
/// how it ends depends on what follows it.
struct Spliced<'a> {
    bytes: content::Builder<'a>,
    /// The file's ending, for lines written without their own.
    eol: Eol,
    /// The last line so far, and its own ending (`None`: the file's).
    last: Option<(&'a [u8], Option<Eol>)>,
}

impl<'a> Spliced<'a> {
    /// Ends the last line so far: another line follows it, so it ends with its own ending or,
    /// having none (`None`, or the original's last line without a newline), the file's.
    fn settle(&mut self) {
        if let Some((text, own)) = self.last.take() {
            self.bytes.push(text);
            let ending = match own {
                None | Some(Eol::None) => self.eol,
                Some(own) => own,
            };
            self.bytes.push(ending.as_bytes());
        }
    }

    fn line(&mut self, text: &'a [u8], own: Option<Eol>) {
        self.settle();
        self.last = Some((text, own));
    }

    /// The original's lines at zero-based `from..to`, as their bytes; only the last of them
    /// can end without a newline, and it waits as the last line.
    fn copy(&mut self, lines: &Lines<'a>, from: usize, to: usize) {
        if from < to {
            self.settle();
            self.bytes.push(lines.bytes_between(from, to - 1));
            let last = lines.get(to - 1);
            self.last = Some((last.text, Some(last.eol)));
        }
    }

    /// Ends the content: the last line ends as a splice that reached the end said, else with
    /// its own ending; a new last line in a file that did not end with a newline gets none.
    fn finish(
        mut self,
        forced_final_newline: Option<bool>,
        keep_final_newline: bool,
    ) -> content::Builder<'a> {
        if let Some((text, own)) = self.last.take() {
            self.bytes.push(text);
            let ending = match (forced_final_newline, own) {
                (Some(false), _) => Eol::None,
                (Some(true), Some(Eol::None)) => self.eol,
                (None, None) if !keep_final_newline => Eol::None,
                (_, None) => self.eol,
                (_, Some(own)) => own,
            };
            self.bytes.push(ending.as_bytes());
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Line;

    fn s(lines: &[&str]) -> TextLines {
        lines.iter().copied().collect()
    }

    /// The lines of `bytes` (their cutting is tested against a plain split in `lines`).
    fn reference_lines(bytes: &[u8]) -> (bool, Vec<Line<'_>>) {
        let lines = Lines::split(bytes);
        (lines.has_bom(), lines.iter().collect())
    }

    /// The splice as it was written line by line before runs were copied as bytes: the
    /// reference [`splice_with_eol`] and [`splice_content`] must agree with.
    fn reference_splice(original: &[u8], splices: &[Splice<'_>], default_eol: Eol) -> Vec<u8> {
        let (bom, lines) = reference_lines(original);
        let eol = if lines.iter().any(|l| l.eol != Eol::None) {
            let crlf = lines.iter().filter(|l| l.eol == Eol::CrLf).count();
            let lf = lines.iter().filter(|l| l.eol == Eol::Lf).count();
            if crlf > lf {
                Eol::CrLf
            } else {
                Eol::Lf
            }
        } else {
            default_eol
        };
        let keep_final_newline = lines.last().is_none_or(|l| l.eol != Eol::None);
        let mut forced_final_newline = None;
        let mut out: Vec<(&[u8], Option<Eol>)> = Vec::new();
        let mut next = 0;
        for splice in splices {
            out.extend(
                lines[next..splice.range.index()]
                    .iter()
                    .map(|l| (l.text, Some(l.eol))),
            );
            let old = &lines[splice.range.index()..splice.range.index() + splice.range.count];
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
                forced_final_newline = splice
                    .final_newline
                    .or((!keep_final_newline).then_some(false));
            }
        }
        out.extend(lines[next..].iter().map(|l| (l.text, Some(l.eol))));
        let mut bytes = Vec::new();
        if bom {
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

    /// Thousands of random files (LF, CRLF, mixed, with and without a final newline or a byte
    /// order mark) and random sorted splices: copying runs of lines as bytes writes exactly
    /// what writing them line by line did, and so does a content sharing the file's bytes.
    #[test]
    fn splicing_by_runs_writes_what_splicing_line_by_line_did() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |n: usize| -> usize {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let words = ["a", "b", "", "x y", "a\r"];
        for case in 0..4_000 {
            let mut original = Vec::new();
            if next(5) == 0 {
                original.extend_from_slice(BOM);
            }
            let count = next(7);
            for i in 0..count {
                original.extend_from_slice(words[next(words.len())].as_bytes());
                let last = i + 1 == count;
                match next(if last { 3 } else { 2 }) {
                    0 => original.extend_from_slice(b"\n"),
                    1 => original.extend_from_slice(b"\r\n"),
                    _ => {}
                }
            }
            // An empty last word without an ending makes no line.
            let count = reference_lines(&original).1.len();
            let news: Vec<TextLines> = (0..3)
                .map(|_| (0..next(3)).map(|_| words[next(words.len())]).collect())
                .collect();
            let eols: Vec<Vec<Eol>> = news
                .iter()
                .map(|n| {
                    (0..n.len())
                        .map(|_| [Eol::Lf, Eol::CrLf, Eol::None][next(3)])
                        .collect()
                })
                .collect();
            let mut splices = Vec::new();
            let mut at = 0;
            for k in 0..next(4) {
                let start = at + next(count + 1 - at);
                let len = next(count + 1 - start);
                if start > count || k >= news.len() {
                    break;
                }
                let mut splice = Splice::new(
                    LineRange {
                        start: start + 1,
                        count: len,
                    },
                    &news[k],
                );
                splice.final_newline = [None, Some(true), Some(false)][next(3)];
                if next(3) == 0 {
                    splice.new_eols = Some(&eols[k]);
                }
                splices.push(splice);
                at = start + len;
                if len == 0 {
                    // Two insertions at one place would overlap; the next starts after it.
                    at += 1;
                    if at > count {
                        break;
                    }
                }
            }
            let default_eol = [Eol::Lf, Eol::CrLf][next(2)];
            let expected = reference_splice(&original, &splices, default_eol);
            assert_eq!(
                splice_with_eol(&original, &splices, default_eol),
                expected,
                "case {case}: {original:?} with {splices:?}"
            );
            // The same bytes as a content sharing the original, hashed and written whole.
            let base = Arc::new(original.clone());
            let content = splice_content(&base, &Lines::split(&base), &splices, default_eol);
            assert_eq!(content, expected, "case {case}: as a content");
            assert_eq!(content.sha256(), crate::sha256::sha256_hex(&expected));
            let mut written = Vec::new();
            content.write_to(&mut written).unwrap();
            assert_eq!(written, expected, "case {case}: written");
        }
    }

    /// A splice that keeps every line's text but changes its ending (a diff that turns CRLF
    /// into LF) copies the lines rather than cut the file into two runs a line.
    #[test]
    fn a_content_that_changes_every_ending_is_one_run_not_two_a_line() {
        let original: Vec<u8> = (0..1_000)
            .flat_map(|i| format!("line {i}\r\n").into_bytes())
            .collect();
        let texts: TextLines = (0..1_000).map(|i| format!("line {i}")).collect();
        let lf = vec![Eol::Lf; 1_000];
        let mut whole = Splice::new(LineRange::inclusive(1, 1_000), &texts);
        whole.new_eols = Some(&lf);
        let base = Arc::new(original);
        let content = splice_content(&base, &Lines::split(&base), &[whole], Eol::Lf);
        let expected: Vec<u8> = (0..1_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        assert_eq!(content, expected);
        assert_eq!(content.pieces().count(), 1);
        // Kept lines that end as they did are runs of the file: here one run and the new line.
        let one = s(&["line 0", "NEW", "line 1"]);
        let around = Splice::new(LineRange::inclusive(1, 2), &one);
        let content = splice_content(&base, &Lines::split(&base), &[around], Eol::Lf);
        assert_eq!(&content.bytes()[..26], b"line 0\r\nNEW\r\nline 1\r\nline ");
        assert_eq!(content.pieces().count(), 3);
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
}
