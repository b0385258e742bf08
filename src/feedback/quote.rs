//! Quoting a file for the feedback, bounded: the lines a change expected, and the file as it
//! is now around a range, each excerpt numbered from its first line with the lines it is about
//! marked, a few lines of context either side, and at most [`MAX_QUOTED_LINES`] lines.

use crate::lines::Lines;
use crate::model::LineRange;
use serde::Serialize;

/// Lines of the file quoted before and after the lines a quote is about.
pub const CONTEXT: usize = 2;
/// The most lines one quote holds (expected lines, or an excerpt of the file); the rest are
/// counted.
pub const MAX_QUOTED_LINES: usize = 12;
/// The most places where a change's expected lines stand that are quoted; the rest are
/// counted.
pub const MAX_PLACES: usize = 3;

/// Lines quoted as they are, with how many more there were.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    pub lines: Vec<String>,
    pub more_lines: usize,
}

/// Consecutive lines of a file as it is now: `lines[0]` is line `startLine`. The lines the
/// excerpt is about are `markedStart..=markedEnd` (for an insertion point, `markedEnd` is the
/// line it goes after and `markedStart` one more, as a change's range says it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Excerpt {
    pub start_line: usize,
    pub lines: Vec<String>,
    /// Lines after the last quoted that the excerpt would have held.
    pub more_lines: usize,
    pub marked_start: usize,
    pub marked_end: usize,
}

impl Quote {
    /// `lines`, at most [`MAX_QUOTED_LINES`] of them.
    pub(super) fn of(lines: &crate::text_lines::TextLines) -> Quote {
        Quote {
            lines: lines
                .iter()
                .take(MAX_QUOTED_LINES)
                .map(str::to_owned)
                .collect(),
            more_lines: lines.len().saturating_sub(MAX_QUOTED_LINES),
        }
    }
}

/// The file around a change's range; for a range past the end, the file's last lines.
pub(super) fn around(lines: &Lines<'_>, range: LineRange) -> Excerpt {
    if range.start > lines.len() + 1 || (range.count > 0 && range.last() > lines.len()) {
        let count = (2 * CONTEXT + 1).min(lines.len());
        let tail = LineRange {
            start: lines.len() + 1 - count,
            count,
        };
        let mut quoted = quote(lines, tail.start, tail.end() - 1);
        quoted.marked_start = range.start;
        quoted.marked_end = range.end() - 1;
        return quoted;
    }
    excerpt(lines, range)
}

/// The lines of `range` with [`CONTEXT`] lines either side, bounded, `range` marked.
pub(super) fn excerpt(lines: &Lines<'_>, range: LineRange) -> Excerpt {
    let first = range.start.saturating_sub(CONTEXT).max(1);
    let last = (range.end() - 1 + CONTEXT).min(lines.len());
    let mut quoted = quote(lines, first, last);
    quoted.marked_start = range.start;
    quoted.marked_end = range.end() - 1;
    quoted
}

/// Lines `first..=last` of the file (1-based), at most [`MAX_QUOTED_LINES`] of them.
fn quote(lines: &Lines<'_>, first: usize, last: usize) -> Excerpt {
    let wanted = (last + 1).saturating_sub(first);
    let from = first.saturating_sub(1).min(lines.len());
    let quoted: Vec<String> = lines
        .between(from, lines.len())
        .take(wanted.min(MAX_QUOTED_LINES))
        .map(|l| l.text_str().into_owned())
        .collect();
    Excerpt {
        start_line: first,
        more_lines: wanted - quoted.len(),
        lines: quoted,
        marked_start: first,
        marked_end: last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(n: usize) -> Vec<u8> {
        (1..=n)
            .map(|i| format!("line {i}\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn an_excerpt_quotes_context_around_its_range_and_marks_it() {
        let bytes = file(20);
        let lines = Lines::split(&bytes);
        let quoted = excerpt(&lines, LineRange::inclusive(5, 6));
        assert_eq!(quoted.start_line, 3);
        assert_eq!(
            quoted.lines,
            ["line 3", "line 4", "line 5", "line 6", "line 7", "line 8"]
        );
        assert_eq!((quoted.marked_start, quoted.marked_end), (5, 6));
        assert_eq!(quoted.more_lines, 0);
    }

    #[test]
    fn an_excerpt_stops_at_the_edges_of_the_file_and_at_its_bound() {
        let bytes = file(40);
        let lines = Lines::split(&bytes);
        let top = excerpt(&lines, LineRange::after(0));
        assert_eq!(top.start_line, 1);
        assert_eq!(top.lines, ["line 1", "line 2"]);
        assert_eq!((top.marked_start, top.marked_end), (1, 0));
        let long = excerpt(&lines, LineRange::inclusive(10, 30));
        assert_eq!(long.lines.len(), MAX_QUOTED_LINES);
        assert_eq!(long.more_lines, 25 - MAX_QUOTED_LINES);
        let end = excerpt(&lines, LineRange::inclusive(40, 40));
        assert_eq!(end.lines, ["line 38", "line 39", "line 40"]);
    }

    #[test]
    fn a_range_past_the_end_quotes_the_last_lines() {
        let bytes = file(4);
        let lines = Lines::split(&bytes);
        let quoted = around(&lines, LineRange::inclusive(9, 10));
        assert_eq!(quoted.start_line, 1);
        assert_eq!(quoted.lines.len(), 4);
        assert_eq!((quoted.marked_start, quoted.marked_end), (9, 10));
    }
}
