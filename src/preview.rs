//! Previews of changes for a person to read: pure data that the reviewer UI draws.
//!
//! [`change_rows`] turns one change into diff rows with context taken from the file on disk,
//! old and new line numbers, and the changed words of each changed line marked (similar's inline
//! diff). [`FileLayout`] lays out a whole file with all its changes in place without copying the
//! file: unchanged stretches are produced row by row on demand, so a 100,000-line file costs
//! only what is on screen. [`char_spans`] marks the differing characters of an expected line and
//! the line actually found, for showing a conflict. Nothing here draws or knows a terminal.

use crate::lines::LineIndex;
use crate::model::LineRange;
use crate::verify::FileCheck;
use similar::{ChangeTag, TextDiff};
use std::ops::Range;

/// Context lines shown around a change.
pub const CONTEXT: usize = 3;

/// Hunks larger than this (old plus new lines) are shown without word emphasis, which would
/// cost more than it helps.
const EMPHASIS_LIMIT: usize = 2_000;

/// What a diff row shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A line of the file that stays.
    Context,
    /// A line the change removes.
    Removed,
    /// A line the change writes.
    Added,
}

/// One row of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub kind: RowKind,
    /// Line number in the file on disk.
    pub old: Option<usize>,
    /// Line number in the file as written.
    pub new: Option<usize>,
    pub text: String,
    /// Byte ranges of `text` that differ from the paired line (changed words).
    pub emphasis: Vec<Range<usize>>,
    /// Index (in its file patch) of the change this row belongs to, for changed rows.
    pub change: Option<usize>,
}

impl Row {
    fn context(index: &LineIndex, bytes: &[u8], old: usize, new: usize) -> Row {
        Row {
            kind: RowKind::Context,
            old: Some(old),
            new: Some(new),
            text: index.line(bytes, old).to_owned(),
            emphasis: Vec::new(),
            change: None,
        }
    }
}

/// The rows of one change applied at `range` (its own range, or where it was moved to), with
/// `context` lines of the file on each side. `new_lines` are what will be written (the change's
/// own lines or an edit). A range that runs past the end of the file removes what is there.
pub fn change_rows(
    bytes: &[u8],
    index: &LineIndex,
    range: LineRange,
    new_lines: &[String],
    context: usize,
) -> Vec<Row> {
    change_rows_over(bytes, index, range, None, new_lines, context)
}

/// [`change_rows`], showing `old_lines` as the lines removed when given (see
/// [`Placed::old_lines`]) instead of the file's own at `range`.
pub fn change_rows_over(
    bytes: &[u8],
    index: &LineIndex,
    range: LineRange,
    old_lines: Option<&[String]>,
    new_lines: &[String],
    context: usize,
) -> Vec<Row> {
    let n = index.len();
    let start = range.start.clamp(1, n + 1);
    let end = range.end().clamp(start, n + 1);
    let first = start.saturating_sub(context).max(1);
    let last = (end + context).min(n + 1); // exclusive
    let mut rows = Vec::with_capacity(last - first + new_lines.len());
    rows.extend((first..start).map(|l| Row::context(index, bytes, l, l)));
    let removed: Vec<&str> = match old_lines {
        Some(lines) => lines.iter().map(String::as_str).collect(),
        None => (start..end).map(|l| index.line(bytes, l)).collect(),
    };
    rows.extend(hunk_rows(&removed, new_lines, start, start, None));
    let shift = new_lines.len() as i64 - (end - start) as i64;
    rows.extend((end..last).map(|l| Row::context(index, bytes, l, (l as i64 + shift) as usize)));
    rows
}

/// The rows of replacing `old` (starting at old line `old_start`) with `new` (starting at new
/// line `new_start`): unchanged lines as context, changed lines with their words marked.
pub fn hunk_rows(
    old: &[&str],
    new: &[String],
    old_start: usize,
    new_start: usize,
    change: Option<usize>,
) -> Vec<Row> {
    let mut rows = Vec::with_capacity(old.len() + new.len());
    if old.len() + new.len() > EMPHASIS_LIMIT {
        rows.extend(old.iter().enumerate().map(|(i, text)| Row {
            kind: RowKind::Removed,
            old: Some(old_start + i),
            new: None,
            text: (*text).to_owned(),
            emphasis: Vec::new(),
            change,
        }));
        rows.extend(new.iter().enumerate().map(|(i, text)| Row {
            kind: RowKind::Added,
            old: None,
            new: Some(new_start + i),
            text: text.clone(),
            emphasis: Vec::new(),
            change,
        }));
        return rows;
    }
    let old_text: String = old.iter().map(|l| format!("{l}\n")).collect();
    let new_text: String = new.iter().map(|l| format!("{l}\n")).collect();
    let diff = TextDiff::from_lines(&old_text, &new_text);
    for op in diff.ops() {
        for inline in diff.iter_inline_changes(op) {
            let mut text = String::new();
            let mut emphasis = Vec::new();
            for (emphasized, value) in inline.iter_strings_lossy() {
                let value = value.strip_suffix('\n').unwrap_or(&value);
                if emphasized && !value.is_empty() {
                    emphasis.push(text.len()..text.len() + value.len());
                }
                text.push_str(value);
            }
            // A line that shares little with the line it replaces is not worth marking word by
            // word: the marks would be noise.
            if !similar_enough(&text, &emphasis) {
                emphasis.clear();
            }
            let old_no = inline.old_index().map(|i| old_start + i);
            let new_no = inline.new_index().map(|i| new_start + i);
            let kind = match inline.tag() {
                ChangeTag::Equal => RowKind::Context,
                ChangeTag::Delete => RowKind::Removed,
                ChangeTag::Insert => RowKind::Added,
            };
            rows.push(Row {
                kind,
                old: old_no,
                new: new_no,
                text,
                emphasis,
                change,
            });
        }
    }
    rows
}

/// Whether a changed line keeps enough of the line it pairs with for its changed words to be
/// worth marking: at least a fifth of its visible characters unchanged. Lines that share
/// less are shown as removed and added whole, as delta shows lines too far apart to pair.
fn similar_enough(text: &str, emphasis: &[Range<usize>]) -> bool {
    let (mut kept, mut visible) = (0usize, 0usize);
    for (at, c) in text.char_indices() {
        if c.is_whitespace() {
            continue;
        }
        visible += 1;
        if !emphasis.iter().any(|r| r.contains(&at)) {
            kept += 1;
        }
    }
    visible > 0 && kept * 5 >= visible
}

/// One change placed in a whole-file layout.
#[derive(Clone, Debug)]
pub struct Placed {
    /// Index of the change in its file patch.
    pub change: usize,
    /// Where it applies in the file on disk.
    pub range: LineRange,
    pub new_lines: Vec<String>,
    /// The lines shown as removed, when not the file's own at `range`: a change that stands
    /// on disk already is read base to work tree, so its removed lines are the base's.
    pub old_lines: Option<Vec<String>>,
}

#[derive(Clone, Debug)]
enum Segment {
    /// Old lines `first..first + count`, numbered `new_first..` in the new file.
    Unchanged {
        first: usize,
        count: usize,
        new_first: usize,
    },
    Changed {
        change: usize,
        rows: Vec<Row>,
    },
}

impl Segment {
    fn len(&self) -> usize {
        match self {
            Segment::Unchanged { count, .. } => *count,
            Segment::Changed { rows, .. } => rows.len(),
        }
    }
}

/// A whole file with its changes in place, addressed by row without materialising the file.
#[derive(Clone, Debug)]
pub struct FileLayout {
    segments: Vec<Segment>,
    /// First row of each segment.
    offsets: Vec<usize>,
    rows: usize,
}

impl FileLayout {
    /// Lays out `placed` (sorted by position; a change overlapping an earlier one is left out)
    /// over a file of `index.len()` lines.
    pub fn new(bytes: &[u8], index: &LineIndex, placed: &[Placed]) -> FileLayout {
        let n = index.len();
        let mut segments = Vec::with_capacity(placed.len() * 2 + 1);
        let mut next = 1; // next old line to show
        let mut shift: i64 = 0;
        for p in placed {
            let start = p.range.start.clamp(1, n + 1);
            let end = p.range.end().clamp(start, n + 1);
            if start < next {
                continue;
            }
            if start > next {
                segments.push(Segment::Unchanged {
                    first: next,
                    count: start - next,
                    new_first: (next as i64 + shift) as usize,
                });
            }
            let old: Vec<&str> = match &p.old_lines {
                Some(lines) => lines.iter().map(String::as_str).collect(),
                None => (start..end).map(|l| index.line(bytes, l)).collect(),
            };
            let new_start = (start as i64 + shift) as usize;
            let rows = hunk_rows(&old, &p.new_lines, start, new_start, Some(p.change));
            segments.push(Segment::Changed {
                change: p.change,
                rows,
            });
            shift += p.new_lines.len() as i64 - (end - start) as i64;
            next = end;
        }
        if next <= n {
            segments.push(Segment::Unchanged {
                first: next,
                count: n + 1 - next,
                new_first: (next as i64 + shift) as usize,
            });
        }
        let mut offsets = Vec::with_capacity(segments.len());
        let mut rows = 0;
        for segment in &segments {
            offsets.push(rows);
            rows += segment.len();
        }
        FileLayout {
            segments,
            offsets,
            rows,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Row `i` (0-based), in O(log segments).
    pub fn row(&self, bytes: &[u8], index: &LineIndex, i: usize) -> Option<Row> {
        if i >= self.rows {
            return None;
        }
        let s = self.offsets.partition_point(|&o| o <= i) - 1;
        let within = i - self.offsets[s];
        Some(match &self.segments[s] {
            Segment::Unchanged {
                first, new_first, ..
            } => Row::context(index, bytes, first + within, new_first + within),
            Segment::Changed { rows, .. } => rows[within].clone(),
        })
    }

    /// The first row of change `change`, when it is laid out.
    pub fn change_row(&self, change: usize) -> Option<usize> {
        self.segments
            .iter()
            .zip(&self.offsets)
            .find(|(s, _)| matches!(s, Segment::Changed { change: c, .. } if *c == change))
            .map(|(_, &offset)| offset)
    }
}

/// Byte ranges where `expected` and `actual` differ, in each (character diff). The characters
/// the two share at their start and end are left out; what lies between is diffed character
/// by character when it is at most 2,000 bytes (`EMPHASIS_LIMIT`), else marked whole (a
/// minified line of a megabyte would make the diff quadratic), which never marks less than
/// differs.
pub fn char_spans(expected: &str, actual: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let head: usize = expected
        .chars()
        .zip(actual.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let (left_rest, right_rest) = (&expected[head..], &actual[head..]);
    let tail: usize = left_rest
        .chars()
        .rev()
        .zip(right_rest.chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let left_middle = &left_rest[..left_rest.len() - tail];
    let right_middle = &right_rest[..right_rest.len() - tail];
    let (mut left, mut right) = (Vec::new(), Vec::new());
    if left_middle.len() + right_middle.len() > EMPHASIS_LIMIT {
        push_span(&mut left, head..head + left_middle.len());
        push_span(&mut right, head..head + right_middle.len());
        left.retain(|span| !span.is_empty());
        right.retain(|span| !span.is_empty());
        return (left, right);
    }
    let diff = TextDiff::from_chars(left_middle, right_middle);
    let (mut at_left, mut at_right) = (head, head);
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => {
                at_left += len;
                at_right += len;
            }
            ChangeTag::Delete => {
                push_span(&mut left, at_left..at_left + len);
                at_left += len;
            }
            ChangeTag::Insert => {
                push_span(&mut right, at_right..at_right + len);
                at_right += len;
            }
        }
    }
    (left, right)
}

fn push_span(spans: &mut Vec<Range<usize>>, span: Range<usize>) {
    match spans.last_mut() {
        Some(last) if last.end == span.start => last.end = span.end,
        _ => spans.push(span),
    }
}

/// Why a checked file looks generated, the one answer the report gives too: verify's
/// `autogenerated` note and the files pane's mark both come from
/// [`crate::generated::why_generated`] on the file's path and first bytes, so they cannot
/// disagree. `None` for a file that looks hand-written (or whose path did not resolve).
pub fn generated_marker(check: &FileCheck) -> Option<String> {
    let rel = check.resolved.as_ref()?.rel();
    let head = check.snapshot.as_ref().map_or(&[][..], |s| &s.bytes()[..]);
    crate::generated::why_generated(&rel.to_string_lossy(), head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn line_index_strips_endings_and_counts_a_last_line_without_newline() {
        let bytes = b"a\r\nb\nc";
        let index = LineIndex::of(bytes);
        assert_eq!(index.len(), 3);
        assert_eq!(
            (1..=3).map(|n| index.line(bytes, n)).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert_eq!(LineIndex::of(b"x\n").len(), 1);
        assert!(LineIndex::of(b"").is_empty());
        // A byte order mark is the file's, not line 1's: it is neither shown nor compared.
        let bom = b"\xEF\xBB\xBFfn main() {}\n\xFF\n";
        let index = LineIndex::of(bom);
        assert_eq!(index.line(bom, 1), "fn main() {}");
        assert_eq!(index.line(bom, 2), "\u{fffd} (not UTF-8)");
    }

    #[test]
    fn lines_that_share_almost_nothing_are_not_marked_word_by_word() {
        let bytes = b"    return self.items[name]\n";
        let index = LineIndex::of(bytes);
        let rows = change_rows(
            bytes,
            &index,
            LineRange::inclusive(1, 1),
            &s(&["        raise ValueError(\"item name must not be empty\")"]),
            1,
        );
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter().all(|r| r.emphasis.is_empty()),
            "{:?}",
            rows.iter().map(|r| &r.emphasis).collect::<Vec<_>>()
        );
    }

    #[test]
    fn change_rows_number_context_and_mark_changed_words() {
        let bytes = b"one\ntwo\nvalue = int(text)\nfour\nfive\n";
        let index = LineIndex::of(bytes);
        let rows = change_rows(
            bytes,
            &index,
            LineRange::inclusive(3, 3),
            &s(&["value = int(text.strip())", "extra"]),
            1,
        );
        let kinds: Vec<_> = rows.iter().map(|r| (r.kind, r.old, r.new)).collect();
        assert_eq!(
            kinds,
            vec![
                (RowKind::Context, Some(2), Some(2)),
                (RowKind::Removed, Some(3), None),
                (RowKind::Added, None, Some(3)),
                (RowKind::Added, None, Some(4)),
                (RowKind::Context, Some(4), Some(5)),
            ]
        );
        assert_eq!(rows[1].text, "value = int(text)");
        let marked: Vec<&str> = rows[2]
            .emphasis
            .iter()
            .map(|r| &rows[2].text[r.clone()])
            .collect();
        assert_eq!(
            marked,
            ["int(text.strip())"],
            "only the changed word is marked"
        );
    }

    #[test]
    fn layout_addresses_every_row_of_the_file_with_changes_in_place() {
        let bytes = b"a\nb\nc\nd\n";
        let index = LineIndex::of(bytes);
        let placed = [Placed {
            change: 0,
            range: LineRange::inclusive(2, 2),
            new_lines: s(&["B1", "B2"]),
            old_lines: None,
        }];
        let layout = FileLayout::new(bytes, &index, &placed);
        assert_eq!(layout.len(), 6);
        let texts: Vec<_> = (0..6)
            .map(|i| layout.row(bytes, &index, i).unwrap().text)
            .collect();
        assert_eq!(texts, ["a", "b", "B1", "B2", "c", "d"]);
        assert_eq!(layout.row(bytes, &index, 5).unwrap().new, Some(5));
        assert_eq!(layout.change_row(0), Some(1));
        assert!(layout.row(bytes, &index, 6).is_none());
    }

    #[test]
    fn char_spans_of_long_lines_mark_the_middle_whole() {
        let long = "x".repeat(5_000);
        let (left, right) = char_spans(&format!("é{long}a{long}"), &format!("é{long}b{long}"));
        let one = |span: Range<usize>| vec![span];
        assert_eq!((left, right), (one(5_002..5_003), one(5_002..5_003)));
        let (left, right) = char_spans(&format!("a{long}"), &format!("b{long}c{long}"));
        assert_eq!(left, vec![0..1]);
        assert_eq!(right, vec![0..5_002]);
    }

    #[test]
    fn char_spans_mark_only_what_differs() {
        let (left, right) = char_spans("value = 1", "value = 12");
        assert!(left.is_empty());
        assert_eq!(right, vec![9..10]);
    }
}
