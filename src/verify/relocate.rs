//! Where the changes of one file stand when their lines are not where they say: each change
//! whose expected lines do not verify is judged ([`crate::locate`]) against the changes around
//! it, both for its new lines (already applied, wherever its old ones were: after a moved or
//! partial commit) and for its expected lines (found elsewhere: `foundAt`, which `--relocate`
//! and the reviewer's `m` use, and nothing else moves). In a file that changed since the batch
//! was written, an insertion whose lines stand where the changes around it say it would is
//! applied already too.
//!
//! The changes around one count with what they did: lines after an applied change stand its
//! line delta further, so a change claimed applied must leave the change after it where that
//! one stands, and no change moves past another. A place taken in one round is known to the
//! next: the changes applied or found with lines that carry identity then bound where the
//! short ones around them can be. Two changes taken over the same lines are both doubted.

use super::{applied_note, ChangeCheck, Placed, Problem, Status};
use crate::lines::Lines;
use crate::locate::{self, near_match, Doubt, Neighbours, Sought, Verdict, Weak, Window};
use crate::model::{Change, FilePatch, LineRange, Operation};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use std::collections::HashMap;

/// Where a change stands: this many lines from its range, its expected lines there
/// (`applied: false`) or its new ones (`applied: true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placement {
    offset: i64,
    applied: bool,
}

/// What the judgement found of one change that needed it.
enum Found {
    Applied { at: usize, by_neighbours: bool },
    Expected { at: usize },
    Doubted(Vec<Doubt>),
}

impl Found {
    fn placement(&self, change: &Change) -> Option<Placement> {
        let offset = |at: usize| at as i64 - change.range.start as i64;
        match *self {
            Found::Applied { at, .. } => Some(Placement {
                offset: offset(at),
                applied: true,
            }),
            Found::Expected { at } => Some(Placement {
                offset: offset(at),
                applied: false,
            }),
            Found::Doubted(_) => None,
        }
    }
}

/// Judges every change of `file` (checked as `checks`) that needs it, in place. `stale` says
/// the file is not the batch's base as far as anyone can tell (its SHA-256 differs, or the
/// format carries none).
pub(super) fn judge_file(
    file: &FilePatch,
    lines: &Lines<'_>,
    checks: &mut [ChangeCheck],
    stale: bool,
) {
    let asked: Vec<bool> = (0..checks.len())
        .map(|i| needs_judging(file, checks, i, stale))
        .collect();
    if !asked.contains(&true) {
        return;
    }
    let judge = Judge {
        file,
        lines,
        finder: Finder::new(lines),
    };
    let mut known: Vec<Option<Placement>> = file
        .changes
        .iter()
        .zip(checks.iter())
        .map(|(change, check)| known_of(change.range, change.expected.is_some(), check))
        .collect();
    let mut found: HashMap<usize, Found> = HashMap::new();
    // Twice: what the first round takes bounds the short ones of the second. Each round looks
    // once at each change: the nearest known change after each is taken from the round's
    // start, the nearest before as the round goes.
    for _ in 0..2 {
        let next = nearest_after(&known);
        let mut last: Option<usize> = None;
        for i in 0..known.len() {
            let settled = matches!(
                found.get(&i),
                Some(Found::Applied { .. } | Found::Expected { .. })
            );
            if asked[i] && !settled {
                let outcome = judge.change(i, Around::of(file, &known, last, next[i]));
                known[i] = outcome.placement(&file.changes[i]);
                found.insert(i, outcome);
            }
            if known[i].is_some() {
                last = Some(i);
            }
        }
    }
    doubt_overlaps(file, &known, &mut found);
    for (i, outcome) in found {
        record(file, &mut checks[i], i, outcome);
    }
}

/// Whether change `i` needs the judgement: a conflict of its expected lines (not where it
/// says, or past the end), or, in a stale file, an insertion that verified (nothing checks an
/// insertion's place: its lines may stand nearby already).
fn needs_judging(file: &FilePatch, checks: &[ChangeCheck], i: usize, stale: bool) -> bool {
    let (change, check) = (&file.changes[i], &checks[i]);
    let lines_conflict = check.status == Status::Conflict
        && change.expected.is_some()
        && check.problems.iter().any(|p| {
            p.blocking
                && matches!(
                    p.kind,
                    ProblemKind::ExpectedMismatch | ProblemKind::OutOfRange
                )
        });
    let insertion = stale
        && change.operation == Operation::Insert
        && check.status == Status::Ok
        && check.placed == Placed::AsIs
        && change.expected.is_none()
        && !change.new_lines.is_empty();
    lines_conflict || insertion
}

/// What a change's own check says of where it stands.
fn known_of(range: LineRange, has_expected: bool, check: &ChangeCheck) -> Option<Placement> {
    match check.placed {
        Placed::Applied => Some(Placement {
            offset: 0,
            applied: true,
        }),
        Placed::At(at) => Some(Placement {
            offset: at as i64 - range.start as i64,
            applied: false,
        }),
        // An insertion has no lines of its own to say where it is.
        Placed::AsIs if check.status == Status::Ok && has_expected => Some(Placement {
            offset: 0,
            applied: false,
        }),
        Placed::AsIs => None,
    }
}

/// For each change, the nearest change after it whose place is known.
fn nearest_after(known: &[Option<Placement>]) -> Vec<Option<usize>> {
    let mut next = vec![None; known.len()];
    let mut seen = None;
    for i in (0..known.len()).rev() {
        next[i] = seen;
        if known[i].is_some() {
            seen = Some(i);
        }
    }
    next
}

/// How many lines a change adds (or, negative, removes).
fn delta(change: &Change) -> i64 {
    change.new_lines.len() as i64 - change.range.count as i64
}

/// The lines a change placed so stands on now: `(first, end)`, 1-based, `end` exclusive.
fn span(change: &Change, placement: Placement) -> (usize, usize) {
    let first = (change.range.start as i64 + placement.offset).max(1) as usize;
    let count = match placement.applied {
        true => change.new_lines.len(),
        false => change.range.count,
    };
    (first, first + count)
}

/// The nearest changes before and after one whose place is known.
#[derive(Clone, Copy)]
struct Around {
    /// The one before: how far off the lines after it stand, and where its lines end.
    before: Option<(i64, usize)>,
    /// The one after: how far off it stands, and where its lines start.
    after: Option<(i64, usize)>,
}

impl Around {
    fn of(
        file: &FilePatch,
        known: &[Option<Placement>],
        before: Option<usize>,
        after: Option<usize>,
    ) -> Around {
        let side = |j: Option<usize>| {
            let j = j?;
            Some((&file.changes[j], known[j]?))
        };
        Around {
            before: side(before).map(|(change, p)| {
                let shift = if p.applied { delta(change) } else { 0 };
                (p.offset + shift, span(change, p).1)
            }),
            after: side(after).map(|(change, p)| (p.offset, span(change, p).0)),
        }
    }

    /// Their offsets for a change that moved the lines after it by `own_delta` (its own delta
    /// when it is claimed applied; 0 when its expected lines are sought).
    fn neighbours(self, own_delta: i64) -> Neighbours {
        Neighbours {
            before: self.before.map(|(offset, _)| offset),
            after: self.after.map(|(offset, _)| offset - own_delta),
        }
    }

    fn window(self) -> Window {
        Window {
            first: self.before.map_or(1, |(_, end)| end),
            end: self.after.map_or(usize::MAX, |(_, first)| first),
        }
    }
}

/// The judgement of the changes of one file.
struct Judge<'f, 'l, 'a> {
    file: &'f FilePatch,
    lines: &'l Lines<'a>,
    finder: Finder<'l, 'a>,
}

impl Judge<'_, '_, '_> {
    fn change(&self, i: usize, around: Around) -> Found {
        let change = &self.file.changes[i];
        let near = change
            .expected
            .as_ref()
            .and_then(|expected| near_match(&lines_of(expected), &self.at_stated(change)));
        if let Some(found) = self.applied(change, around, near) {
            return found;
        }
        let Some(expected) = &change.expected else {
            return Found::Doubted(Vec::new());
        };
        let sought = Sought {
            stated: change.range.start,
            lines: lines_of(expected),
            places: self.finder.find(expected),
            near,
            neighbours: around.neighbours(0),
            window: around.window(),
            unique_is_enough: false,
        };
        match locate::judge(&sought) {
            Verdict::Taken { at } => Found::Expected { at },
            Verdict::Doubted(doubts) => Found::Doubted(doubts),
        }
    }

    /// Whether the change stands applied: nothing like its old lines at its place, and its
    /// new lines where the changes around it say they would be once it is (with the lines it
    /// adds or removes), between them; an insertion needs the neighbours on both sides, or one
    /// and new lines that carry identity. Without such neighbours, a replacement whose new
    /// lines carry identity stands applied at the one place between its neighbours where they
    /// are, when its old lines stand nowhere in the file. A deletion leaves nothing to find:
    /// its old lines gone from between its neighbours, which stand where they would.
    fn applied(
        &self,
        change: &Change,
        around: Around,
        near: Option<(usize, usize)>,
    ) -> Option<Found> {
        if near.is_some() {
            return None;
        }
        let start = change.range.start;
        let neighbours = around.neighbours(delta(change));
        let exact = |at: usize| neighbours.exactly(at as i64 - start as i64);
        let window = around.window();
        let found_in_window = |lines: &TextLines| -> Vec<usize> {
            self.finder
                .find(lines)
                .into_iter()
                .filter(|&at| window.holds(at, lines.len()))
                .collect()
        };
        if change.new_lines.is_empty() {
            let expected = change.expected.as_ref()?;
            let at = (start as i64 + neighbours.before.or(neighbours.after)?).max(1) as usize;
            let gone = found_in_window(expected).is_empty();
            return (gone && exact(at)).then_some(Found::Applied {
                at,
                by_neighbours: true,
            });
        }
        let places = found_in_window(&change.new_lines);
        let carries = locate::identity(&lines_of(&change.new_lines)).is_none();
        let both_sides = neighbours.before.is_some() && neighbours.after.is_some();
        let insertion = change.expected.is_none();
        if let Some(&at) = places.iter().find(|&&at| exact(at)) {
            if !insertion || both_sides || carries {
                return Some(Found::Applied {
                    at,
                    by_neighbours: true,
                });
            }
        }
        let expected_nowhere = change
            .expected
            .as_ref()
            .is_some_and(|expected| self.finder.find(expected).is_empty());
        match places.as_slice() {
            [one] if carries && expected_nowhere => Some(Found::Applied {
                at: *one,
                by_neighbours: false,
            }),
            _ => None,
        }
    }

    /// The lines at the change's stated place, as many as its expected ones (fewer at the end
    /// of the file).
    fn at_stated(&self, change: &Change) -> Vec<&str> {
        let count = change.expected.as_ref().map_or(0, TextLines::len);
        match change.range.start.checked_sub(1) {
            Some(first) if first < self.lines.len() => self
                .lines
                .between(first, (first + count).min(self.lines.len()))
                .map(|l| std::str::from_utf8(l.text).unwrap_or(""))
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn lines_of(lines: &TextLines) -> Vec<&str> {
    lines.iter().collect()
}

/// Doubts every change the judgement placed over lines another change stands on: two changes
/// cannot both be written there.
fn doubt_overlaps(
    file: &FilePatch,
    known: &[Option<Placement>],
    found: &mut HashMap<usize, Found>,
) {
    let mut spans: Vec<(LineRange, usize)> = known
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (first, end) = span(&file.changes[i], (*p)?);
            Some((
                LineRange {
                    start: first,
                    count: end - first,
                },
                i,
            ))
        })
        .collect();
    spans.sort_by_key(|(range, i)| (range.start, *i));
    let mut crossed: Vec<(usize, usize)> = Vec::new();
    let mut reach: Option<(LineRange, usize)> = None;
    for &(range, i) in &spans {
        if let Some((other, j)) = reach {
            if other.overlaps(range) {
                crossed.push((i, other.start));
                crossed.push((j, range.start));
            }
        }
        if reach.is_none_or(|(other, _)| range.end() > other.end()) {
            reach = Some((range, i));
        }
    }
    for (i, line) in crossed {
        let Some(at) = found.get(&i).and_then(|f| match f {
            Found::Applied { at, .. } | Found::Expected { at } => Some(*at),
            Found::Doubted(_) => None,
        }) else {
            continue;
        };
        let offset = at as i64 - file.changes[i].range.start as i64;
        found.insert(
            i,
            Found::Doubted(vec![Doubt {
                line: at,
                offset,
                weak: vec![Weak::Crosses { line }],
            }]),
        );
    }
}

/// Writes what the judgement found into the change's check.
fn record(file: &FilePatch, check: &mut ChangeCheck, i: usize, found: Found) {
    let change = &file.changes[i];
    match found {
        Found::Applied { at, by_neighbours } => {
            let offset = at as i64 - change.range.start as i64;
            let note = match (change.new_lines.is_empty(), offset, by_neighbours) {
                (true, _, _) => "already applied, as far as can be told: the lines it deletes stand nowhere in the file, and the changes around it stand where they would once it is; writing it changes nothing".to_owned(),
                (false, 0, _) => applied_note(change).message,
                (false, _, true) => format!(
                    "already applied: its new lines stand at line {at} ({offset:+} lines from where it says), as the changes around it do; writing it changes nothing"
                ),
                (false, _, false) => format!(
                    "already applied: its new lines stand at line {at} ({offset:+} lines from where it says), the one place they are, and its old lines nowhere; writing it changes nothing"
                ),
            };
            *check = ChangeCheck {
                status: Status::Ok,
                problems: vec![Problem::note(ProblemKind::AlreadyApplied, note)],
                placed: Placed::Applied,
            };
        }
        Found::Expected { at } => {
            if let Some(problem) = conflict_of(check) {
                let offset = at as i64 - change.range.start as i64;
                problem.found_at = Some(at);
                problem.message.push_str(&format!(
                    "; they were found at line {at} ({offset:+} line{})",
                    if offset.unsigned_abs() == 1 { "" } else { "s" }
                ));
            }
        }
        Found::Doubted(doubts) => {
            if let Some(problem) = conflict_of(check) {
                if doubts.is_empty() {
                    problem
                        .message
                        .push_str("; the expected lines occur nowhere in the file");
                } else {
                    problem.message.push_str(&locate::describe(&doubts));
                }
            }
        }
    }
}

/// The problem that says a change's expected lines are not where it says.
fn conflict_of(check: &mut ChangeCheck) -> Option<&mut Problem> {
    check.problems.iter_mut().find(|p| {
        p.blocking
            && matches!(
                p.kind,
                ProblemKind::ExpectedMismatch | ProblemKind::OutOfRange
            )
    })
}

/// Finds runs of whole lines in a file: each line's places, indexed once, and each run sought
/// from the places of its rarest line (a run that starts with `}` is not tried at every `}`).
struct Finder<'l, 'a> {
    lines: &'l Lines<'a>,
    by_text: HashMap<&'a [u8], Vec<usize>>,
}

impl<'l, 'a> Finder<'l, 'a> {
    fn new(lines: &'l Lines<'a>) -> Finder<'l, 'a> {
        let mut by_text: HashMap<&'a [u8], Vec<usize>> = HashMap::new();
        for i in 0..lines.len() {
            by_text.entry(lines.get(i).text).or_default().push(i);
        }
        Finder { lines, by_text }
    }

    /// Every 1-based line where `wanted` stands as a run of whole lines, ascending.
    fn find(&self, wanted: &TextLines) -> Vec<usize> {
        let places = |line: &str| {
            self.by_text
                .get(line.as_bytes())
                .map_or(&[][..], Vec::as_slice)
        };
        let Some((k, anchor)) = wanted
            .iter()
            .enumerate()
            .map(|(k, line)| (k, places(line)))
            .min_by_key(|(_, at)| at.len())
        else {
            return Vec::new();
        };
        anchor
            .iter()
            .filter_map(|&i| (i + 1).checked_sub(k))
            .filter(|&start| {
                start >= 1
                    && self.lines.matches_at(
                        LineRange {
                            start,
                            count: wanted.len(),
                        },
                        wanted,
                    )
            })
            .collect()
    }
}
