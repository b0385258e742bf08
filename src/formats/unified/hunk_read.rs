//! Reading one hunk of a diff: the lines its header counts, as git reads them, or, for a
//! header without numbers (`@@ ... @@`) or counts that are not its lines (they run past the
//! next header, or more changed lines follow them), the lines it has, which `place` then finds
//! by their text.

use super::{Hunk, HunkLine};
use crate::lines::Eol;

/// Parses `@@ -a,b +c,d @@ section` and reads exactly the lines it announces; a hunk without
/// numbers, or whose counts run past the next header, is read by its lines instead (see
/// [`read_by_lines`]).
pub(super) fn read_hunk<'a>(
    raw: &[&'a str],
    at: usize,
    first_line: usize,
) -> Result<(Hunk<'a>, usize), String> {
    let header = trim_eol(raw[at]);
    let Some((old_start, old_count, new_start, new_count, section)) = hunk_numbers(header) else {
        if let Some(section) = numberless(header) {
            return read_by_lines(raw, at, first_line, section, "has no line numbers".into());
        }
        return Err(format!(
            "malformed hunk header \"{header}\": expected \"@@ -LINE,COUNT +LINE,COUNT @@\", or \"@@ ... @@\" for a hunk found by its lines"
        ));
    };
    match read_counted(
        raw,
        at,
        first_line,
        (old_start, old_count, new_start, new_count),
        section,
    ) {
        Err(Short::AtHeader(message)) => {
            let why = format!("counts more lines than it has before the next header ({message})");
            read_by_lines(raw, at, first_line, section, why)
        }
        Err(Short::Other(message)) => Err(message),
        Ok((_, next)) if more_lines_follow(raw, next) => {
            let why = "counts fewer lines than it has: more '-' and '+' lines follow it before the next header".to_owned();
            read_by_lines(raw, at, first_line, section, why)
        }
        Ok(read) => Ok(read),
    }
}

/// Whether the lines from `next` on, up to the next header or the end of the input, are all
/// lines of a hunk (' ', '-', '+', blank) and some of them change something: a hunk whose
/// counts are short of its lines, which git would drop as junk after it. A mail's `-- `
/// signature, followed by the version line, is no such run.
fn more_lines_follow(raw: &[&str], next: usize) -> bool {
    let mut changes = false;
    let mut i = next;
    while i < raw.len() && !at_boundary(raw, i) {
        let line = trim_eol(raw[i]);
        match line.as_bytes().first() {
            None | Some(b' ') => {}
            Some(b'-' | b'+') => changes |= line != "-- ",
            _ => return false,
        }
        i += 1;
    }
    changes
}

/// Whether a hunk header has line numbers.
pub(super) fn numbered(header: &str) -> bool {
    hunk_numbers(header).is_some()
}

/// A header's numbers and its section text, when it has them.
fn hunk_numbers(header: &str) -> Option<(usize, usize, usize, usize, &str)> {
    let inner = header.strip_prefix("@@ -")?;
    let (ranges, section) = inner.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((s, c)) => Some((s.parse().ok()?, c.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    Some((old_start, old_count, new_start, new_count, section))
}

/// The section text of a hunk header without numbers: `@@`, `@@ @@`, `@@ ... @@ text`, or
/// `@@ -?,? +?,? @@`, as model tools write them.
fn numberless(header: &str) -> Option<&str> {
    if header == "@@" {
        return Some("");
    }
    let inner = header.strip_prefix("@@ ")?;
    let (ranges, section) = inner.split_once("@@").unwrap_or((inner, ""));
    let numbers = ranges.chars().any(|c| c.is_ascii_digit());
    (!numbers).then_some(section)
}

/// Why a counted hunk could not be read: its counts run to the next header (the counts are
/// wrong, the lines may be right), or anything else.
enum Short {
    AtHeader(String),
    Other(String),
}

/// Whether the line at `i` starts what follows a hunk: another hunk, another file's section.
fn at_boundary(raw: &[&str], i: usize) -> bool {
    let Some(line) = raw.get(i).map(|l| trim_eol(l)) else {
        return false;
    };
    super::is_hunk_header(line)
        || line.starts_with("diff --git ")
        || line.starts_with("--- ") && raw.get(i + 1).is_some_and(|n| n.starts_with("+++ "))
}

/// A hunk read by its lines: every line after the header that starts with ' ', '-', '+' or
/// '\\' (or is empty: a blank context line), up to the next header or the first other line;
/// blank lines at its end are left out. It must change something.
fn read_by_lines<'a>(
    raw: &[&'a str],
    at: usize,
    first_line: usize,
    section: &'a str,
    why: String,
) -> Result<(Hunk<'a>, usize), String> {
    let header = trim_eol(raw[at]);
    let mut end = at + 1;
    while end < raw.len() && !at_boundary(raw, end) && !signature(raw, end) {
        match raw[end].as_bytes().first() {
            Some(b' ' | b'-' | b'+' | b'\\' | b'\n' | b'\r') => end += 1,
            _ => break,
        }
    }
    let mut last = end;
    while last > at + 1 && trim_eol(raw[last - 1]).is_empty() {
        last -= 1;
    }
    let count = |tag: u8| {
        raw[at + 1..last]
            .iter()
            .filter(|l| {
                let first = l.as_bytes().first().copied().unwrap_or(b' ');
                first == tag || tag == b' ' && matches!(first, b'\n' | b'\r')
            })
            .count()
    };
    let (context, removed, added) = (count(b' '), count(b'-'), count(b'+'));
    let numbers = (1, context + removed, 1, context + added);
    let lines = &raw[..last];
    let (mut hunk, _) = read_counted(lines, at, first_line, numbers, section.trim()).map_err(
        |short| match short {
            Short::AtHeader(m) | Short::Other(m) => m,
        },
    )?;
    hunk.header = header;
    hunk.by_lines = Some(why);
    Ok((hunk, end))
}

/// Whether the line at `i` is a mail's `-- ` signature line: followed by a line that is no
/// line of a hunk (the version), or by nothing.
fn signature(raw: &[&str], i: usize) -> bool {
    trim_eol(raw[i]) == "-- "
        && raw
            .get(i + 1)
            .is_none_or(|next| !matches!(next.as_bytes().first(), Some(b' ' | b'-' | b'+')))
}

/// Reads exactly the lines `numbers` (old start and count, new start and count) announce.
fn read_counted<'a>(
    raw: &[&'a str],
    at: usize,
    first_line: usize,
    numbers: (usize, usize, usize, usize),
    section: &'a str,
) -> Result<(Hunk<'a>, usize), Short> {
    let header = trim_eol(raw[at]);
    let (old_start, old_count, new_start, new_count) = numbers;
    if old_count == 0 && new_count == 0 {
        return Err(Short::Other(format!(
            "empty hunk \"{header}\": it removes and adds no line; git apply refuses it as corrupt (a new empty file is a `diff --git` section with `new file mode` and no hunk)"
        )));
    }
    let mut hunk = Hunk {
        at_line: at + first_line,
        header,
        section: section.trim(),
        old_start,
        old_count,
        new_start,
        new_count,
        // Sized as the header counts, up to the lines the input has left.
        old: Vec::with_capacity(old_count.min(raw.len() - at)),
        new: Vec::with_capacity(new_count.min(raw.len() - at)),
        leading_context: 0,
        trailing_context: 0,
        by_lines: None,
    };
    let mut i = at + 1;
    let mut seen_change = false;
    let mut last_tag = b' ';
    while hunk.old.len() < old_count
        || hunk.new.len() < new_count
        || i < raw.len() && raw[i].starts_with('\\')
    {
        let Some(line) = raw.get(i) else {
            return Err(Short::Other(format!(
                "hunk {header} ends early: expected {old_count} old and {new_count} new lines, found {} and {} before the end of the input",
                hunk.old.len(),
                hunk.new.len()
            )));
        };
        let (tag, body) = match line.as_bytes().first() {
            Some(b'\n') | Some(b'\r') => (b' ', *line),
            // A line that starts with a character of several bytes has no tag; it is refused
            // below, and its text is never cut inside the character.
            Some(&t) => (t, line.get(1..).unwrap_or("")),
            None => (b' ', ""),
        };
        let eol = if body.ends_with("\r\n") {
            Eol::CrLf
        } else if body.ends_with('\n') {
            Eol::Lf
        } else {
            Eol::None
        };
        let text = body
            .strip_suffix('\n')
            .map(|b| b.strip_suffix('\r').unwrap_or(b))
            .unwrap_or(body);
        let entry = HunkLine { text, eol };
        let full = |side: &Vec<HunkLine>, count: usize| side.len() >= count;
        match tag {
            b' ' if !full(&hunk.old, old_count) && !full(&hunk.new, new_count) => {
                hunk.old.push(entry);
                hunk.new.push(entry);
                if seen_change {
                    hunk.trailing_context += 1;
                } else {
                    hunk.leading_context += 1;
                }
            }
            b'-' if !full(&hunk.old, old_count) => {
                hunk.old.push(entry);
                seen_change = true;
                hunk.trailing_context = 0;
            }
            b'+' if !full(&hunk.new, new_count) => {
                hunk.new.push(entry);
                seen_change = true;
                hunk.trailing_context = 0;
            }
            b'\\' => {
                // "\ No newline at end of file": the previous line has no ending.
                if last_tag != b'+' {
                    if let Some(l) = hunk.old.last_mut() {
                        l.eol = Eol::None;
                    }
                }
                if last_tag != b'-' {
                    if let Some(l) = hunk.new.last_mut() {
                        l.eol = Eol::None;
                    }
                }
            }
            _ => {
                let message = format!(
                    "hunk {header} ends early at line {}: expected {old_count} old and {new_count} new lines, found {} and {} (a line must start with ' ', '-' or '+')",
                    i + first_line,
                    hunk.old.len(),
                    hunk.new.len()
                );
                return Err(match at_boundary(raw, i) && seen_change {
                    true => Short::AtHeader(message),
                    false => Short::Other(message),
                });
            }
        }
        if tag != b'\\' {
            last_tag = tag;
        }
        i += 1;
    }
    if !seen_change {
        return Err(Short::Other(format!(
            "hunk {header} has context lines only: it removes and adds nothing, and git apply refuses it as corrupt; remove it, or give the lines it changes ('-' and '+')"
        )));
    }
    Ok((hunk, i))
}

/// A line without its ending.
pub(super) fn trim_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}
