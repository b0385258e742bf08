//! Placing the hunks of one section in a file's lines as `git apply` does (without fuzz): at
//! the line its header states, else at the one other place its lines occur. A hunk found
//! elsewhere is held to the judgement every relocation is (`crate::locate`), and hunks placed
//! over the same lines are refused. Each change holds its hunk's lines as spans of the diff.

use super::seek::Seek;
use super::{Hunk, HunkLine};
use crate::formats::build::ChangeSpec;
use crate::formats::matcher::{find_lines, Doc, TOLERANT};
use crate::lines::{Eol, Lines};
use crate::model::{LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A hunk's lines as a change holds them: spans of the diff they were read from. A line that
/// is not part of `diff` (a caller that parsed another text) is copied instead.
pub(super) fn shared(diff: &Arc<String>, lines: &[HunkLine<'_>]) -> TextLines {
    let base = diff.as_ptr() as usize;
    let span = |text: &str| {
        let start = (text.as_ptr() as usize).checked_sub(base)?;
        let end = start + text.len();
        diff.get(start..end).map(|_| start..end)
    };
    match lines
        .iter()
        .map(|l| span(l.text))
        .collect::<Option<Vec<_>>>()
    {
        Some(spans) => TextLines::of_shared(diff, spans),
        None => lines.iter().map(|l| l.text).collect(),
    }
}

/// Places every hunk of a section in the file's lines (none for a missing or unusable file),
/// giving each hunk's lines to its change, and flags hunks that overlap.
pub(super) fn place_all(
    hunks: Vec<Hunk<'_>>,
    diff: &Arc<String>,
    lines: Option<&Lines<'_>>,
) -> Vec<ChangeSpec> {
    let headers: Vec<&str> = hunks.iter().map(|h| h.header).collect();
    let seek = lines.map(Seek::new);
    let mut specs: Vec<ChangeSpec> = hunks
        .iter()
        .map(|h| place_hunk(h, diff, seek.as_ref()))
        .collect();
    if let Some(lines) = lines {
        doubt_weak_offsets(&hunks, lines, &mut specs);
    }
    flag_overlapping_hunks(&headers, &mut specs);
    specs
}

/// A hunk found only at another line than its header says is held to the judgement every
/// relocation is ([`crate::locate`]): where the hunks around it stand (with the lines the
/// applied ones added or removed), whether its own place holds its lines nearly (edited there),
/// how much its lines say, and that it stays between the hunks around it. One found far from
/// where the hunks around it are, with its place edited, is a conflict that says where it was
/// found and why that was not taken, not a change written into another function.
fn doubt_weak_offsets(hunks: &[Hunk<'_>], lines: &Lines<'_>, specs: &mut [ChangeSpec]) {
    let placed: Vec<Option<Placed>> = hunks
        .iter()
        .zip(specs.iter())
        .map(|(hunk, spec)| {
            let range = spec
                .range
                .filter(|_| !spec.problems.iter().any(|p| p.blocking))?;
            Some(Placed::of(hunk, range.start, lines))
        })
        .collect();
    let mut before: Option<Placed> = None;
    let mut after: Vec<Option<Placed>> = vec![None; placed.len()];
    for i in (0..placed.len().saturating_sub(1)).rev() {
        after[i] = placed[i + 1].or(after[i + 1]);
    }
    for i in 0..specs.len() {
        let Some(this) = placed[i] else {
            continue;
        };
        if specs[i].tier == MatchTier::Offset {
            let hunk = &hunks[i];
            let sought = this.sought(hunk, lines, before, after[i]);
            if let crate::locate::Verdict::Doubted(doubts) = crate::locate::judge(&sought) {
                doubt(hunk, this, &mut specs[i], &crate::locate::describe(&doubts));
                continue;
            }
        }
        before = Some(this);
    }
}

/// Where a placed hunk stands: its first line, how far from where its header says, whether
/// by its new side (applied already), and how many lines it adds.
#[derive(Clone, Copy)]
struct Placed {
    at: usize,
    offset: i64,
    applied: bool,
    delta: i64,
    len: usize,
}

impl Placed {
    fn of(hunk: &Hunk<'_>, at: usize, lines: &Lines<'_>) -> Placed {
        let stands = |side: &[HunkLine<'_>]| {
            at + side.len() <= lines.len() + 1
                && lines
                    .between(at - 1, at - 1 + side.len())
                    .zip(side)
                    .all(|(f, p)| f.text == p.text.as_bytes())
        };
        let applied = !stands(&hunk.old) && stands(&hunk.new);
        Placed {
            at,
            offset: at as i64 - stated_line(hunk) as i64,
            applied,
            delta: hunk.new.len() as i64 - hunk.old.len() as i64,
            len: if applied {
                hunk.new.len()
            } else {
                hunk.old.len()
            },
        }
    }

    /// What the judgement is asked of this hunk, with the placed hunks around it.
    fn sought<'h>(
        self,
        hunk: &'h Hunk<'_>,
        lines: &'h Lines<'_>,
        before: Option<Placed>,
        after: Option<Placed>,
    ) -> crate::locate::Sought<'h> {
        let from = stated_line(hunk);
        let first = from - 1;
        let old: Vec<&str> = hunk.old.iter().map(|l| l.text).collect();
        let at_stated: Vec<&str> = lines
            .between(
                first.min(lines.len()),
                (first + hunk.old.len()).min(lines.len()),
            )
            .map(|l| std::str::from_utf8(l.text).unwrap_or(""))
            .collect();
        let side = if self.applied { &hunk.new } else { &hunk.old };
        let own_delta = if self.applied { self.delta } else { 0 };
        crate::locate::Sought {
            stated: from,
            lines: side.iter().map(|l| l.text).collect(),
            places: vec![self.at],
            near: crate::locate::near_match(&old, &at_stated),
            neighbours: crate::locate::Neighbours {
                before: before.map(|b| b.offset + if b.applied { b.delta } else { 0 }),
                after: after.map(|a| a.offset - own_delta),
            },
            window: crate::locate::Window {
                first: before.map_or(1, |b| b.at + b.len),
                end: after.map_or(usize::MAX, |a| a.at),
            },
            unique_is_enough: true,
        }
    }
}

/// The first line a hunk's header says its old lines stand at (1-based).
fn stated_line(hunk: &Hunk<'_>) -> usize {
    if hunk.old_count == 0 {
        hunk.old_start + 1
    } else {
        hunk.old_start.max(1)
    }
}

/// Makes a hunk placed where the judgement doubts a conflict at the line its header says.
fn doubt(hunk: &Hunk<'_>, placed: Placed, spec: &mut ChangeSpec, why: &str) {
    let from = stated_line(hunk);
    spec.problems.retain(|p| p.kind != ProblemKind::Offset);
    spec.tier = MatchTier::Exact;
    spec.range = Some(LineRange {
        start: from,
        count: hunk.old.len(),
    });
    let message = if placed.applied {
        format!(
            "hunk {}: its context and removed lines stand nowhere in the file, and its context and added lines are not at line {from} as if it were applied{why}",
            hunk.header
        )
    } else {
        format!(
            "hunk {}: its context and removed lines are not at line {from}{why}",
            hunk.header
        )
    };
    spec.problems
        .push(LoadProblem::conflict(ProblemKind::NotFound, message));
}

/// Hunks of one section placed over the same lines (context included): patchdeck places every
/// hunk in the file as it is and refuses the later of two that overlap, where git apply, which
/// applies each hunk to the result of the ones before, may apply both.
fn flag_overlapping_hunks(headers: &[&str], specs: &mut [ChangeSpec]) {
    let placed = |s: &ChangeSpec| !s.problems.iter().any(|p| p.blocking);
    // The hunks placed so far and not refused never overlap one another, so a hunk is looked
    // up among them by where it starts: O(hunks × log hunks).
    let mut kept = Kept::default();
    for j in 0..specs.len() {
        let Some(b) = specs[j].range.filter(|_| placed(&specs[j])) else {
            continue;
        };
        let Some(i) = kept.overlapping(b) else {
            kept.insert(b, j);
            continue;
        };
        let a = specs[i].range.unwrap_or(b);
        specs[j].problems.push(LoadProblem::conflict(
            ProblemKind::Overlap,
            format!(
                "hunk {} (lines {}) overlaps hunk {} (lines {}): patchdeck places each hunk in the file as it is, so two hunks of one section may not touch the same lines (git apply, which applies each hunk to the result of the ones before, may take both); merge the two hunks into one",
                headers[j],
                b.describe(),
                headers[i],
                a.describe()
            ),
        ));
    }
}

/// Ranges that do not overlap ([`LineRange::overlaps`]), each with its hunk's index: those
/// with lines by their start (so their ends are in order too), insertions by their place.
#[derive(Default)]
struct Kept {
    lines: BTreeMap<usize, (usize, usize)>,
    insertions: BTreeMap<usize, usize>,
}

impl Kept {
    fn insert(&mut self, range: LineRange, hunk: usize) {
        if range.count == 0 {
            self.insertions.insert(range.start, hunk);
        } else {
            self.lines.insert(range.start, (range.end(), hunk));
        }
    }

    /// A kept range that `range` overlaps, by its hunk's index.
    fn overlapping(&self, range: LineRange) -> Option<usize> {
        // Of the ranges with lines that start before this one ends (an insertion: before its
        // place), the last reaches furthest.
        let reaching = self
            .lines
            .range(..range.end())
            .next_back()
            .filter(|(&start, &(end, _))| {
                range.overlaps(LineRange {
                    start,
                    count: end - start,
                })
            })
            .map(|(_, &(_, hunk))| hunk);
        let inserted = match range.count {
            0 => self.insertions.get(&range.start).copied(),
            // An insertion inside the lines, not at either end of them.
            _ => self
                .insertions
                .range(range.start + 1..range.end())
                .next()
                .map(|(_, &hunk)| hunk),
        };
        reaching.or(inserted)
    }
}

/// Places a hunk in the file's lines as `git apply` would (without fuzz); its change holds its
/// lines as spans of `diff`.
pub(super) fn place_hunk(
    hunk: &Hunk<'_>,
    diff: &Arc<String>,
    seek: Option<&Seek<'_, '_>>,
) -> ChangeSpec {
    let lines = seek.map(Seek::lines);
    if let Some(why) = &hunk.by_lines {
        return place_by_lines(hunk, why, lines);
    }
    // A byte order mark belongs to the file, not to its first line (see `lines`); git shows it
    // as part of line 1, so a hunk at the top of a file with one is read without it.
    let without_bom;
    let hunk = match lines {
        Some(lines) if lines.has_bom() && hunk.old_start <= 1 => {
            let mut h = hunk.clone();
            for side in [&mut h.old, &mut h.new] {
                if let Some(first) = side.first_mut() {
                    first.text = first.text.strip_prefix('\u{feff}').unwrap_or(first.text);
                }
            }
            without_bom = h;
            &without_bom
        }
        _ => hunk,
    };
    // Where the hunk says it applies (0-based index of its first old line).
    let stated = if hunk.old_count == 0 {
        hunk.old_start
    } else {
        hunk.old_start.saturating_sub(1)
    };
    let placed = seek.map(|seek| {
        // Not there, but applied already: its new side (context and added lines) stands where
        // its old side would. Placed there, verify finds its new lines at its range.
        locate(hunk, seek, stated).or_else(|problem| match problem.kind {
            ProblemKind::NotFound => locate_side(hunk, &hunk.new, seek, stated).ok_or(problem),
            _ => Err(problem),
        })
    });
    let old_len = hunk.old.len();
    let at_end = |at: usize| lines.is_some_and(|l| at + old_len == l.len());
    let eof_newline = match placed {
        Some(Ok(at)) if at_end(at) => hunk.new.last().map(|last| last.eol != Eol::None),
        _ => None,
    };
    let header = hunk.header;
    let description = if hunk.section.is_empty() {
        header
    } else {
        hunk.section
    };
    let old = shared(diff, &hunk.old);
    let new = shared(diff, &hunk.new);
    let new_eols = hunk.new.iter().map(|l| l.eol).collect();
    let mut spec = ChangeSpec {
        description: Some(description.to_owned()),
        key: None,
        range: Some(LineRange {
            start: stated + 1,
            count: old_len,
        }),
        expected: (!old.is_empty()).then_some(old),
        new_lines: new,
        new_eols: Some(new_eols),
        eof_newline,
        ..ChangeSpec::default()
    };
    match placed {
        // A missing or unusable file: verify reports it.
        None => {}
        Some(Err(problem)) => spec.problems.push(problem),
        Some(Ok(at)) => {
            spec.range = Some(LineRange {
                start: at + 1,
                count: old_len,
            });
            if at != stated {
                spec.tier = MatchTier::Offset;
                let offset = at as i64 - stated as i64;
                spec.problems.push(LoadProblem::note(
                    ProblemKind::Offset,
                    format!(
                        "hunk {} applies at line {} instead of line {} (offset {offset:+} line{})",
                        header,
                        at + 1,
                        stated + 1,
                        if offset.abs() == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
    spec
}

/// Places a hunk that is found by its lines (`why`: it has no numbers, or wrong counts) as
/// every find-by-text format places its text: its context and removed lines must occur once
/// in the file, exactly or through the shared matcher's tolerant tiers (which are named), and
/// a note says the hunk was found so. A hunk without such lines (only added ones) has nothing
/// to be found by.
fn place_by_lines(hunk: &Hunk<'_>, why: &str, lines: Option<&Lines<'_>>) -> ChangeSpec {
    let header = hunk.header;
    let description = Some(match hunk.section.is_empty() {
        true => header.to_owned(),
        false => hunk.section.to_owned(),
    });
    let old: Vec<String> = hunk.old.iter().map(|l| l.text.to_owned()).collect();
    let new: Vec<String> = hunk.new.iter().map(|l| l.text.to_owned()).collect();
    let Some(lines) = lines else {
        // A missing or unusable file: verify reports it.
        return ChangeSpec {
            description,
            range: Some(LineRange::after(0)),
            new_lines: new.into(),
            ..ChangeSpec::default()
        };
    };
    let what = format!("the context and removed lines of hunk {header} (which {why})");
    if old.is_empty() {
        let message = format!("hunk {header} {why} and has no context or removed lines: nothing says where its lines go; give it context lines (' ') or line numbers");
        return ChangeSpec::unplaced(
            description,
            LoadProblem::conflict(ProblemKind::NotFound, message),
        )
        .writing(new);
    }
    let doc = Doc::from_bytes(lines.bytes());
    match find_lines(&doc, &old, &new, TOLERANT, 0..doc.len(), false) {
        Ok(found) => {
            // At the end of the file, `\ No newline at end of file` on its new side says
            // whether the file ends with a line ending, as it does for a numbered hunk.
            let at_end = found.range.start - 1 + found.range.count == doc.len();
            let eof_newline = match at_end {
                true => hunk.new.last().map(|last| last.eol != Eol::None),
                false => found.eof_newline,
            };
            let mut spec = ChangeSpec {
                description,
                range: Some(found.range),
                expected: Some(found.expected),
                new_lines: found.new_lines,
                eof_newline,
                tier: found.tier,
                ..ChangeSpec::default()
            };
            spec.problems.push(LoadProblem::note(
                ProblemKind::ReadAs,
                format!(
                    "hunk {header} {why}: found by its lines, which occur once, at line{} {}",
                    if found.range.count == 1 { "" } else { "s" },
                    found.range.describe()
                ),
            ));
            spec
        }
        Err(miss) => {
            let (kind, message) = miss.describe(&what);
            ChangeSpec::near(&miss, description, LoadProblem::conflict(kind, message))
                .seeking(&miss, old)
                .writing(new)
        }
    }
}

/// Where one side of a hunk (`side`: its old lines, or its new ones) stands in the file (a
/// 0-based index), as git looks for it: at `stated`, else at the one other place it occurs.
fn locate_side(
    hunk: &Hunk<'_>,
    side: &[HunkLine<'_>],
    seek: &Seek<'_, '_>,
    stated: usize,
) -> Option<usize> {
    if side.is_empty() {
        return None;
    }
    match places_of(hunk, side, seek, stated).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The places one side of a hunk stands at (0-based): `stated` alone when it stands there,
/// else every place, with git's rules for a hunk at the top or the end of a file.
fn places_of(
    hunk: &Hunk<'_>,
    side: &[HunkLine<'_>],
    seek: &Seek<'_, '_>,
    stated: usize,
) -> Vec<usize> {
    let len = seek.lines().len();
    let match_beginning = hunk.old_start <= 1;
    let match_end = hunk.trailing_context == 0;
    let allowed = |at: usize| -> bool {
        (!match_beginning || at == 0) && (!match_end || at + side.len() == len)
    };
    if seek.matches_at(stated, side) && allowed(stated) {
        return vec![stated];
    }
    if side.is_empty() {
        // An empty side stands everywhere: only git's rules place it.
        return match (match_beginning, match_end) {
            (true, true) => (len == 0).then_some(0).into_iter().collect(),
            (true, false) => vec![0],
            (false, true) => vec![len],
            (false, false) => (0..=len).collect(),
        };
    }
    let mut places = seek.places(side);
    places.retain(|&at| allowed(at));
    places
}

/// Where a hunk's old lines stand in the file (a 0-based index): at `stated`, else at the one
/// other place they occur; else the conflict that says why not.
fn locate(hunk: &Hunk<'_>, seek: &Seek<'_, '_>, stated: usize) -> Result<usize, LoadProblem> {
    let lines = seek.lines();
    let len = lines.len();
    // Whether the old side stands anywhere, git's rules aside.
    let anywhere = || match hunk.old.is_empty() {
        true => len > 0,
        false => !seek.places(&hunk.old).is_empty(),
    };
    let match_beginning = hunk.old_start <= 1;
    let match_end = hunk.trailing_context == 0;
    let places = places_of(hunk, &hunk.old, seek, stated);
    if places == [stated] {
        return Ok(stated);
    }
    match places.as_slice() {
        [one] => Ok(*one),
        [] => {
            let why = if match_end && !hunk.old.is_empty() && anywhere() {
                "; a hunk without trailing context must match at the end of the file (as git apply requires)"
            } else if match_beginning && anywhere() {
                "; a hunk starting at line 1 must match at the top of the file (as git apply requires)"
            } else if hunk.old.iter().any(|l| l.eol == Eol::Lf)
                && lines.iter().any(|l| l.eol == Eol::CrLf)
                || hunk.old.iter().any(|l| l.eol == Eol::CrLf)
                    && lines.iter().any(|l| l.eol == Eol::Lf)
            {
                "; the line endings differ (LF against CRLF), and git apply compares them too"
            } else {
                ""
            };
            Err(LoadProblem::conflict(
                ProblemKind::NotFound,
                format!(
                    "hunk {}: its context and removed lines are not at line {} nor anywhere else in the file{why}",
                    hunk.header,
                    stated + 1
                ),
            ))
        }
        many => {
            // The first few places: a line that occurs everywhere would make each such
            // hunk's message as long as the file.
            const SHOWN: usize = 10;
            let mut list: Vec<String> = many
                .iter()
                .take(SHOWN)
                .map(|a| (a + 1).to_string())
                .collect();
            if many.len() > SHOWN {
                list.push(format!("and {} more", many.len() - SHOWN));
            }
            Err(LoadProblem::conflict(
                ProblemKind::Ambiguous,
                format!(
                    "hunk {}: not at line {}; its lines occur {} times, at lines {} (git apply would take the nearest; patchdeck does not guess)",
                    hunk.header,
                    stated + 1,
                    many.len(),
                    list.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_ranges_find_every_overlap_one_by_one_would() {
        let mut state = 11u64;
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % below) as usize
        };
        for case in 0..2000 {
            let ranges: Vec<LineRange> = (0..1 + next(12))
                .map(|_| LineRange {
                    start: 1 + next(20),
                    count: next(4),
                })
                .collect();
            let mut kept = Kept::default();
            let mut one_by_one: Vec<LineRange> = Vec::new();
            for (j, &range) in ranges.iter().enumerate() {
                let found = kept.overlapping(range);
                let expected = one_by_one.iter().any(|k| k.overlaps(range));
                assert_eq!(found.is_some(), expected, "case {case}: {ranges:?} at {j}");
                if let Some(i) = found {
                    assert!(
                        ranges[i].overlaps(range),
                        "case {case}: the witness overlaps"
                    );
                } else {
                    kept.insert(range, j);
                    one_by_one.push(range);
                }
            }
        }
    }

    #[test]
    fn hunk_lines_become_spans_of_their_diff_or_copies_of_another_text() {
        let diff = Arc::new(String::from(" a\n-b\n+c\n"));
        let line = |text| HunkLine { text, eol: Eol::Lf };
        let from_diff = [line(&diff[1..2]), line(&diff[4..5])];
        assert_eq!(shared(&diff, &from_diff), ["a", "b"]);
        let other = String::from("elsewhere");
        let not_from_diff = [line(&diff[1..2]), line(other.as_str())];
        assert_eq!(shared(&diff, &not_from_diff), ["a", "elsewhere"]);
        assert!(shared(&diff, &[]).is_empty());
    }
}
