//! Locating text in a file, for the formats that name text instead of line numbers.
//!
//! One matcher for all of them, so that they behave alike: the exact text first; when a find
//! that must be unique occurs several times, the answer is [`Miss::Ambiguous`] with the line of
//! every occurrence (never the first one silently). Formats whose spec asks for tolerance pass
//! the tolerant tiers to try, in order: line endings, trailing whitespace, one uniform shift of
//! leading whitespace (the new text is re-indented by the same shift), blank first/last lines,
//! and Unicode punctuation. A tolerant match must be unique too, and records its tier. The
//! result is a line range of the file with the file's own lines as expected lines, and new lines
//! that keep the file's own text wherever the find and its replacement agree.

use crate::lines::{Eol, Lines};
use crate::model::{LineRange, MatchTier};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;

/// The tolerant tiers of REQ-PATCH-005 (and Aider), in the order they are tried.
pub const TOLERANT: &[MatchTier] = &[
    MatchTier::Eol,
    MatchTier::TrailingWs,
    MatchTier::Indent,
    MatchTier::BlankEdges,
];

/// Codex's tiers: the tolerant ones, then Unicode punctuation normalisation.
pub const CODEX: &[MatchTier] = &[
    MatchTier::Eol,
    MatchTier::TrailingWs,
    MatchTier::Indent,
    MatchTier::BlankEdges,
    MatchTier::Unicode,
];

/// A file's lines, owned, with their endings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub lines: Vec<(String, Eol)>,
    /// The text a find searches, built once per version of the document (a file with many
    /// finds, as patch-tool calls have, would otherwise be rebuilt for each).
    hays: Hays,
}

type Hay = (String, Vec<usize>);

/// The document's text with its own endings and with LF endings, built when first needed.
#[derive(Clone, Debug, Default)]
struct Hays {
    raw: std::cell::OnceCell<Hay>,
    lf: std::cell::OnceCell<Hay>,
}

/// A cache says nothing of the document: two documents with the same lines are equal.
impl PartialEq for Hays {
    fn eq(&self, _: &Hays) -> bool {
        true
    }
}

impl Eq for Hays {}

impl Doc {
    pub fn from_bytes(bytes: &[u8]) -> Doc {
        Doc {
            lines: Lines::split(bytes)
                .iter()
                .map(|l| (l.text_str().into_owned(), l.eol))
                .collect(),
            hays: Hays::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_none_or(|(_, eol)| *eol != Eol::None)
    }

    pub fn texts(&self, range: LineRange) -> Vec<String> {
        self.lines[range.index()..range.end() - 1]
            .iter()
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// The text with its own endings (`raw`) or with every ending as `\n`, and where each line
    /// starts in it (one more entry: the end).
    fn hay(&self, raw: bool) -> &Hay {
        let cell = if raw { &self.hays.raw } else { &self.hays.lf };
        cell.get_or_init(|| self.build_hay(raw))
    }

    fn build_hay(&self, raw: bool) -> Hay {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(self.lines.len() + 1);
        for (line, eol) in &self.lines {
            starts.push(text.len());
            text.push_str(line);
            text.push_str(match (raw, eol) {
                (_, Eol::None) => "",
                (true, Eol::CrLf) => "\r\n",
                _ => "\n",
            });
        }
        starts.push(text.len());
        (text, starts)
    }

    /// Applies a located edit, for formats that apply their edits one after the other.
    pub fn apply(&mut self, located: &Located) {
        let crlf = self.lines.iter().filter(|(_, e)| *e == Eol::CrLf).count();
        let lf = self.lines.iter().filter(|(_, e)| *e == Eol::Lf).count();
        let eol = if crlf > lf { Eol::CrLf } else { Eol::Lf };
        let at = located.range.index();
        let reaches_end = located.range.end() - 1 == self.lines.len();
        let had_final_newline = self.ends_with_newline();
        let new = located.new_lines.iter().map(|l| (l.to_owned(), eol));
        self.hays = Hays::default();
        self.lines.splice(at..at + located.range.count, new);
        if !reaches_end {
            return;
        }
        let final_newline = match located.eof_newline {
            Some(wanted) => wanted,
            None if located.new_lines.is_empty() => return,
            None => had_final_newline,
        };
        if let Some(last) = self.lines.last_mut() {
            last.1 = if final_newline { eol } else { Eol::None };
        }
    }

    /// The bytes of the document.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (text, eol) in &self.lines {
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(eol.as_bytes());
        }
        out
    }
}

/// Where a find was found, as a change of whole lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub range: LineRange,
    /// The file's own lines at `range`.
    pub expected: TextLines,
    pub new_lines: TextLines,
    /// Set when the edit gains or loses the file's final newline.
    pub eof_newline: Option<bool>,
    pub tier: MatchTier,
}

/// Why a find was not placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// Found more than once (in the same tier): the 1-based first line of every occurrence.
    Ambiguous(Vec<usize>, MatchTier),
}

impl Miss {
    /// The report's problem kind and a message naming what was looked for.
    pub fn describe(&self, what: &str) -> (ProblemKind, String) {
        match self {
            Miss::NotFound => (
                ProblemKind::NotFound,
                format!("{what} not found in the file"),
            ),
            Miss::Ambiguous(lines, tier) => {
                let list: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                let how = if *tier == MatchTier::Exact {
                    String::new()
                } else {
                    format!(" (matching with tolerance \"{}\")", tier_name(*tier))
                };
                (
                    ProblemKind::Ambiguous,
                    format!(
                        "{what}: found {} times{how}, at lines {}; it must occur once",
                        lines.len(),
                        list.join(", ")
                    ),
                )
            }
        }
    }
}

pub fn tier_name(tier: MatchTier) -> &'static str {
    match tier {
        MatchTier::Exact => "exact",
        MatchTier::Eol => "eol",
        MatchTier::TrailingWs => "trailing-ws",
        MatchTier::Indent => "indent",
        MatchTier::BlankEdges => "blank-edges",
        MatchTier::Unicode => "unicode",
        MatchTier::Offset => "offset",
    }
}

/// Finds `find` (any text, possibly part of a line) once in `doc` and replaces it with
/// `replace`. Exact text first; then the `tiers` allowed.
pub fn find_text(
    doc: &Doc,
    find: &str,
    replace: &str,
    tiers: &[MatchTier],
) -> Result<Located, Miss> {
    let (raw, starts) = doc.hay(true);
    match occurrences(raw, find).as_slice() {
        [] => {}
        [one] => {
            return Ok(substring_edit(
                doc,
                raw,
                starts,
                *one,
                find.len(),
                replace,
                MatchTier::Exact,
            ))
        }
        many => return Err(ambiguous(starts, many, MatchTier::Exact)),
    }
    for &tier in tiers {
        let found = match tier {
            MatchTier::Eol => {
                let (lf, lf_starts) = doc.hay(false);
                let find_lf = find.replace("\r\n", "\n");
                if lf == raw && find_lf == find {
                    continue;
                }
                let replace_lf = replace.replace("\r\n", "\n");
                match occurrences(lf, &find_lf).as_slice() {
                    [] => None,
                    [one] => Some(Ok(substring_edit(
                        doc,
                        lf,
                        lf_starts,
                        *one,
                        find_lf.len(),
                        &replace_lf,
                        MatchTier::Eol,
                    ))),
                    many => Some(Err(ambiguous(lf_starts, many, MatchTier::Eol))),
                }
            }
            tier => {
                let needle = split_text(find);
                let new = split_text(replace);
                line_tier(doc, &needle, &new, tier, 0..doc.len())
            }
        };
        if let Some(result) = found {
            return result;
        }
    }
    Err(Miss::NotFound)
}

/// Every place `find` occurs, for a replace-all: its exact text, else (when it occurs nowhere
/// as written) its text with every line ending as `\n` against the file's read the same way
/// (tier `Eol`), so that line endings never decide whether a model's text is found. The
/// occurrences do not overlap and are in file order. Each is its own edit; edits that share a
/// line are merged.
pub fn find_all_text(doc: &Doc, find: &str, replace: &str) -> Vec<Located> {
    let exact = all_in_hay(doc, true, find, replace, MatchTier::Exact);
    if !exact.is_empty() {
        return exact;
    }
    let (find_lf, replace_lf) = (find.replace("\r\n", "\n"), replace.replace("\r\n", "\n"));
    if doc.hay(false).0 == doc.hay(true).0 && find_lf == find {
        return exact;
    }
    all_in_hay(doc, false, &find_lf, &replace_lf, MatchTier::Eol)
}

/// [`find_all_text`] in one of the document's texts: its own (`raw`) or with LF endings.
fn all_in_hay(doc: &Doc, raw: bool, find: &str, replace: &str, tier: MatchTier) -> Vec<Located> {
    let (hay, starts) = doc.hay(raw);
    let mut out: Vec<Located> = Vec::new();
    let mut from = 0;
    let mut spans: Vec<(usize, usize)> = Vec::new();
    while let Some(at) = hay[from..].find(find) {
        let start = from + at;
        spans.push((start, start + find.len()));
        from = start + find.len().max(1);
        if from > hay.len() {
            break;
        }
    }
    // Group occurrences whose covering lines touch into one edit over the joined text.
    let mut i = 0;
    while i < spans.len() {
        let first_line = line_of(starts, spans[i].0);
        let mut j = i;
        let mut last_line = last_line_of(starts, spans[j].0, spans[j].1);
        while j + 1 < spans.len() && line_of(starts, spans[j + 1].0) <= last_line {
            j += 1;
            last_line = last_line_of(starts, spans[j].0, spans[j].1);
        }
        let mut content = String::new();
        let mut pos = starts[first_line];
        for span in &spans[i..=j] {
            content.push_str(&hay[pos..span.0]);
            content.push_str(replace);
            pos = span.1;
        }
        let edit = build_edit(doc, hay, starts, first_line, last_line, content, pos, tier);
        out.push(edit);
        i = j + 1;
    }
    out
}

/// Finds whole lines `old` in `doc` (within the lines `window`, 0-based) and replaces them with
/// `new`. `at_end` requires the match to end the file.
pub fn find_lines(
    doc: &Doc,
    old: &[String],
    new: &[String],
    tiers: &[MatchTier],
    window: std::ops::Range<usize>,
    at_end: bool,
) -> Result<Located, Miss> {
    let window = if at_end && old.len() <= doc.len() {
        (doc.len() - old.len()).max(window.start)..doc.len()
    } else {
        window
    };
    let mut all = vec![MatchTier::Exact];
    all.extend_from_slice(tiers);
    for tier in all {
        if tier == MatchTier::Eol {
            // Lines are compared without their endings: an exact line match already matched
            // CRLF lines; it was recorded as such.
            continue;
        }
        if let Some(result) = line_tier(doc, old, new, tier, window.clone()) {
            return result.map(|mut located| {
                let crlf = doc.lines[located.range.index()..located.range.end() - 1]
                    .iter()
                    .any(|(_, e)| *e == Eol::CrLf);
                if located.tier == MatchTier::Exact && crlf && tiers.contains(&MatchTier::Eol) {
                    located.tier = MatchTier::Eol;
                }
                located
            });
        }
    }
    Err(Miss::NotFound)
}

/// Splits text into lines without endings; a final newline does not start another line.
pub fn split_text(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    // memchr's SIMD substring search: a file with many finds is searched once per find.
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = finder.find(&hay.as_bytes()[from..]) {
        out.push(from + at);
        from += at + hay[from + at..].chars().next().map_or(1, char::len_utf8);
        if from >= hay.len() {
            break;
        }
    }
    out
}

fn line_of(starts: &[usize], offset: usize) -> usize {
    match starts.binary_search(&offset) {
        Ok(i) => i.min(starts.len().saturating_sub(2)),
        Err(i) => i - 1,
    }
}

fn last_line_of(starts: &[usize], start: usize, end: usize) -> usize {
    if end > start {
        line_of(starts, end - 1)
    } else {
        line_of(starts, start)
    }
}

fn ambiguous(starts: &[usize], offsets: &[usize], tier: MatchTier) -> Miss {
    Miss::Ambiguous(
        offsets.iter().map(|&o| line_of(starts, o) + 1).collect(),
        tier,
    )
}

fn substring_edit(
    doc: &Doc,
    hay: &str,
    starts: &[usize],
    start: usize,
    len: usize,
    replace: &str,
    tier: MatchTier,
) -> Located {
    let end = start + len;
    let first = line_of(starts, start);
    let last = last_line_of(starts, start, end);
    let mut content = hay[starts[first]..start].to_owned();
    content.push_str(replace);
    build_edit(doc, hay, starts, first, last, content, end, tier)
}

/// Turns "the text of lines `first..=last` up to `tail_from`, rewritten as `content`" into a
/// whole-line edit: the rest of the last line follows, and a replacement that no longer ends
/// with a newline joins the next line.
#[allow(clippy::too_many_arguments)]
fn build_edit(
    doc: &Doc,
    hay: &str,
    starts: &[usize],
    first: usize,
    mut last: usize,
    mut content: String,
    tail_from: usize,
    tier: MatchTier,
) -> Located {
    let n = doc.len();
    content.push_str(&hay[tail_from.min(starts[last + 1])..starts[last + 1]]);
    if !content.is_empty() && !content.ends_with('\n') && last + 1 < n {
        last += 1;
        content.push_str(&hay[starts[last]..starts[last + 1]]);
    }
    let range = LineRange {
        start: first + 1,
        count: last + 1 - first,
    };
    let eof_newline = if last + 1 == n && !content.is_empty() {
        let now = content.ends_with('\n');
        (now != doc.ends_with_newline()).then_some(now)
    } else {
        None
    };
    Located {
        range,
        expected: doc.texts(range).into(),
        new_lines: split_text(&content).into(),
        eof_newline,
        tier,
    }
}

/// How one line's leading whitespace differs between the find and the file.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shift {
    Add(String),
    Strip(String),
}

impl Shift {
    fn apply(&self, line: &str) -> String {
        if line.trim().is_empty() {
            return line.to_owned();
        }
        match self {
            Shift::Add(prefix) => format!("{prefix}{line}"),
            Shift::Strip(prefix) => line
                .strip_prefix(prefix.as_str())
                .unwrap_or(line)
                .to_owned(),
        }
    }
}

fn leading_ws(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Normalises the Unicode punctuation models write for ASCII (Codex's last tier).
pub fn normalise_unicode(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2009}' | '\u{202F}' => ' ',
            other => other,
        })
        .collect::<String>()
        .replace('\u{2026}', "...")
}

/// One line-based tier: `None` when nothing matched, else the unique match or the ambiguity.
fn line_tier(
    doc: &Doc,
    needle: &[String],
    new: &[String],
    tier: MatchTier,
    window: std::ops::Range<usize>,
) -> Option<Result<Located, Miss>> {
    let (needle, new): (Vec<String>, Vec<String>) = if tier == MatchTier::BlankEdges {
        let lead = needle.iter().take_while(|l| l.trim().is_empty()).count();
        if lead == needle.len() {
            return None;
        }
        let trail = needle
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty())
            .count();
        if lead + trail == 0 {
            return None;
        }
        let new_lead = new
            .iter()
            .take_while(|l| l.trim().is_empty())
            .count()
            .min(lead);
        let new_trail = new
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty())
            .count()
            .min(trail)
            .min(new.len() - new_lead);
        (
            needle[lead..needle.len() - trail].to_vec(),
            new[new_lead..new.len() - new_trail].to_vec(),
        )
    } else {
        (needle.to_vec(), new.to_vec())
    };
    if needle.is_empty() || needle.len() > window.len() {
        return None;
    }
    let mut hits: Vec<(usize, Option<Shift>, MatchTier)> = Vec::new();
    for at in window.start..=window.end - needle.len() {
        let file = &doc.lines[at..at + needle.len()];
        let matched = match tier {
            MatchTier::Exact => lines_equal(file, &needle, |a, b| a == b).then_some((None, tier)),
            MatchTier::TrailingWs => {
                lines_equal(file, &needle, |a, b| a.trim_end() == b.trim_end())
                    .then_some((None, tier))
            }
            MatchTier::Indent => indent_shift(file, &needle).map(|s| (Some(s), tier)),
            MatchTier::Unicode => lines_equal(file, &needle, |a, b| {
                normalise_unicode(a).trim_end() == normalise_unicode(b).trim_end()
            })
            .then_some((None, tier)),
            MatchTier::BlankEdges => {
                if lines_equal(file, &needle, |a, b| a.trim_end() == b.trim_end()) {
                    Some((None, tier))
                } else {
                    indent_shift(file, &needle).map(|s| (Some(s), tier))
                }
            }
            MatchTier::Eol | MatchTier::Offset => None,
        };
        if let Some((shift, tier)) = matched {
            hits.push((at, shift, tier));
        }
    }
    match hits.as_slice() {
        [] => None,
        [(at, shift, tier)] => {
            let range = LineRange {
                start: at + 1,
                count: needle.len(),
            };
            let file_lines = doc.texts(range);
            let new_lines = keep_file_text(&needle, &new, &file_lines, shift.as_ref());
            Some(Ok(Located {
                range,
                expected: file_lines.into(),
                new_lines: new_lines.into(),
                eof_newline: None,
                tier: *tier,
            }))
        }
        many => Some(Err(Miss::Ambiguous(
            many.iter().map(|(at, _, _)| at + 1).collect(),
            tier,
        ))),
    }
}

/// The new lines of a tolerant match: the replacement (re-indented by `shift`), except that every
/// replacement line the alignment of find and replacement pairs with an equal find line is the
/// file's own text for that line, wherever it sits (a context line between two changes keeps
/// its trailing spaces, its curly quotes, its indentation).
fn keep_file_text(
    needle: &[String],
    new: &[String],
    file_lines: &[String],
    shift: Option<&Shift>,
) -> Vec<String> {
    let mut out: Vec<String> = match shift {
        Some(shift) => new.iter().map(|l| shift.apply(l)).collect(),
        None => new.to_vec(),
    };
    for op in crate::line_diff::diff_ops(needle, new) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            out[new_index..new_index + len]
                .clone_from_slice(&file_lines[old_index..old_index + len]);
        }
    }
    out
}

fn lines_equal(file: &[(String, Eol)], needle: &[String], eq: impl Fn(&str, &str) -> bool) -> bool {
    file.iter().zip(needle).all(|((f, _), n)| eq(f, n))
}

/// The one leading-whitespace shift that turns every non-blank needle line into its file line
/// (trailing whitespace ignored), when there is one and it is not empty.
fn indent_shift(file: &[(String, Eol)], needle: &[String]) -> Option<Shift> {
    let (k, first) = needle
        .iter()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())?;
    let (file_ws, needle_ws) = (leading_ws(&file[k].0), leading_ws(first));
    let shift = if let Some(extra) = file_ws.strip_suffix(needle_ws) {
        Shift::Add(extra.to_owned())
    } else if let Some(extra) = needle_ws.strip_suffix(file_ws) {
        Shift::Strip(extra.to_owned())
    } else {
        return None;
    };
    if matches!(&shift, Shift::Add(p) | Shift::Strip(p) if p.is_empty()) {
        return None;
    }
    let fits = file.iter().zip(needle).all(|((f, _), n)| {
        if n.trim().is_empty() {
            return f.trim().is_empty();
        }
        if let Shift::Strip(p) = &shift {
            if !n.starts_with(p.as_str()) {
                return false;
            }
        }
        shift.apply(n).trim_end() == f.trim_end()
    });
    fits.then_some(shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Doc {
        Doc::from_bytes(text.as_bytes())
    }

    #[test]
    fn an_exact_find_inside_a_line_becomes_a_whole_line_edit() {
        let d = doc("fn a() {\n    old_call(1);\n}\n");
        let found = find_text(&d, "old_call", "new_call", &[]).unwrap();
        assert_eq!(found.range, LineRange::inclusive(2, 2));
        assert_eq!(found.expected, vec!["    old_call(1);"]);
        assert_eq!(found.new_lines, vec!["    new_call(1);"]);
        assert_eq!(found.tier, MatchTier::Exact);
    }

    #[test]
    fn a_find_that_occurs_twice_is_ambiguous_with_both_lines() {
        let d = doc("x = 1\ny = 2\nx = 1\n");
        assert_eq!(
            find_text(&d, "x = 1", "x = 3", TOLERANT),
            Err(Miss::Ambiguous(vec![1, 3], MatchTier::Exact))
        );
    }

    #[test]
    fn removing_a_line_ending_joins_the_next_line() {
        let d = doc("a\nb\nc\n");
        let found = find_text(&d, "a\n", "a ", &[]).unwrap();
        assert_eq!(found.range, LineRange::inclusive(1, 2));
        assert_eq!(found.new_lines, vec!["a b"]);
    }

    #[test]
    fn crlf_file_matches_lf_find_in_the_eol_tier() {
        let d = doc("one\r\ntwo\r\nthree\r\n");
        let found = find_text(&d, "one\ntwo\n", "ONE\ntwo\n", TOLERANT).unwrap();
        assert_eq!(found.tier, MatchTier::Eol);
        assert_eq!(found.range, LineRange::inclusive(1, 2));
        assert_eq!(found.new_lines, vec!["ONE", "two"]);
        assert!(find_text(&d, "one\ntwo\n", "x", &[]).is_err());
    }

    #[test]
    fn indent_shift_reindents_the_replacement_and_keeps_file_context() {
        let d = doc("class A:\n    def f(self):  \n        return 1\n");
        let found = find_text(
            &d,
            "def f(self):\n    return 1\n",
            "def f(self):\n    return 2\n",
            TOLERANT,
        )
        .unwrap();
        assert_eq!(found.tier, MatchTier::Indent);
        // The unchanged first line keeps its trailing spaces from the file.
        assert_eq!(
            found.new_lines,
            vec!["    def f(self):  ", "        return 2"]
        );
    }

    #[test]
    fn trailing_whitespace_and_blank_edges_are_later_tiers() {
        let d = doc("a  \nb\nc\n");
        let found = find_text(&d, "a\nb\n", "A\nb\n", TOLERANT).unwrap();
        assert_eq!(found.tier, MatchTier::TrailingWs);
        let found = find_text(&d, "\nb\nc\n\n", "\nB\nc\n\n", TOLERANT).unwrap();
        assert_eq!(found.tier, MatchTier::BlankEdges);
        assert_eq!(found.range, LineRange::inclusive(2, 3));
        assert_eq!(found.new_lines, vec!["B", "c"]);
    }

    #[test]
    fn unicode_punctuation_matches_only_in_its_tier() {
        let d = doc("say(\"it's\") - ok\n");
        let find = "say(\u{201C}it\u{2019}s\u{201D}) \u{2013} ok";
        assert_eq!(find_text(&d, find, "x", TOLERANT), Err(Miss::NotFound));
        let found = find_lines(&d, &[find.into()], &["x".into()], CODEX, 0..1, false).unwrap();
        assert_eq!(found.tier, MatchTier::Unicode);
    }

    #[test]
    fn an_unchanged_line_between_two_changes_keeps_the_files_text() {
        let d = doc("a  \nb  \nc  \n");
        let found = find_text(&d, "a\nb\nc\n", "A\nb\nC\n", TOLERANT).unwrap();
        assert_eq!(found.tier, MatchTier::TrailingWs);
        assert_eq!(found.new_lines, vec!["A", "b  ", "C"]);

        let d = doc("x = 1\ns = \"it's - ok\"\ny = 2\n");
        let context = "s = \u{201C}it\u{2019}s \u{2013} ok\u{201D}".to_owned();
        let old = vec!["x = 1".to_owned(), context.clone(), "y = 2".to_owned()];
        let new = vec!["x = 10".to_owned(), context, "y = 20".to_owned()];
        let found = find_lines(&d, &old, &new, CODEX, 0..3, false).unwrap();
        assert_eq!(found.tier, MatchTier::Unicode);
        assert_eq!(
            found.new_lines,
            vec!["x = 10", "s = \"it's - ok\"", "y = 20"]
        );
    }

    #[test]
    fn replace_all_merges_occurrences_on_one_line() {
        let d = doc("a a\nb\na\n");
        let found = find_all_text(&d, "a", "z");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].new_lines, vec!["z z"]);
        assert_eq!(found[1].range, LineRange::inclusive(3, 3));
    }

    #[test]
    fn a_lost_final_newline_is_recorded() {
        let d = doc("a\nb\n");
        let found = find_text(&d, "b\n", "b", &[]).unwrap();
        assert_eq!(found.eof_newline, Some(false));
    }
}
