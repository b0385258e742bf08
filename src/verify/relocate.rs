//! Where the changes of one file stand when their lines are not where they say: each change
//! whose expected lines do not verify is judged ([`crate::locate`]) against the changes around
//! it, both for its new lines (already applied, wherever its old ones were: after a moved or
//! partial commit) and for its expected lines (found elsewhere: `foundAt`, which `--relocate`
//! and the reviewer's `m` use, and nothing else moves). In a file that changed since the batch
//! was written, an insertion whose lines stand where the changes around it say it would is
//! applied already too.
//!
//! A place taken in one round is known to the next: the changes applied or found with lines
//! that carry identity then bound where the short ones around them can be.

use super::{applied_note, ChangeCheck, Placed, Problem, Status};
use crate::lines::Lines;
use crate::locate::{self, Neighbours, Sought, Verdict};
use crate::model::{FilePatch, LineRange, Operation};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use std::collections::HashMap;

/// What is known of where a change stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// Not known: its lines stand nowhere it could be placed.
    Unknown,
    /// At this many lines from its range, its expected lines there (`applied: false`) or its
    /// new ones (`applied: true`).
    Off { offset: i64, applied: bool },
}

/// What the judgement found of one change that needed it.
enum Found {
    Applied { at: usize, by_neighbours: bool },
    Expected { at: usize },
    Doubted(Vec<locate::Doubt>),
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
    let asked: Vec<usize> = (0..checks.len())
        .filter(|&i| needs_judging(file, checks, i, stale))
        .collect();
    if asked.is_empty() {
        return;
    }
    let finder = Finder::new(lines);
    let mut known: Vec<Known> = file
        .changes
        .iter()
        .zip(checks.iter())
        .map(|(change, check)| known_of(change.range, change.expected.is_some(), check))
        .collect();
    let mut found: HashMap<usize, Found> = HashMap::new();
    // Twice: what the first round takes bounds the short ones of the second.
    for _ in 0..2 {
        for &i in &asked {
            if matches!(
                found.get(&i),
                Some(Found::Applied { .. } | Found::Expected { .. })
            ) {
                continue;
            }
            let neighbours = neighbours(&known, i);
            let outcome = judge_change(file, &finder, lines, &known, i, neighbours);
            known[i] = match outcome {
                Found::Applied { at, .. } => Known::Off {
                    offset: at as i64 - file.changes[i].range.start as i64,
                    applied: true,
                },
                Found::Expected { at } => Known::Off {
                    offset: at as i64 - file.changes[i].range.start as i64,
                    applied: false,
                },
                Found::Doubted(_) => Known::Unknown,
            };
            found.insert(i, outcome);
        }
    }
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
fn known_of(range: LineRange, has_expected: bool, check: &ChangeCheck) -> Known {
    match check.placed {
        Placed::Applied => Known::Off {
            offset: 0,
            applied: true,
        },
        Placed::At(at) => Known::Off {
            offset: at as i64 - range.start as i64,
            applied: false,
        },
        // An insertion has no lines of its own to say where it is.
        Placed::AsIs if check.status == Status::Ok && has_expected => Known::Off {
            offset: 0,
            applied: false,
        },
        Placed::AsIs => Known::Unknown,
    }
}

/// The offsets of the nearest changes before and after change `i` whose place is known.
fn neighbours(known: &[Known], i: usize) -> Neighbours {
    let offset = |k: &Known| match k {
        Known::Off { offset, .. } => Some(*offset),
        Known::Unknown => None,
    };
    Neighbours {
        before: known[..i].iter().rev().find_map(offset),
        after: known[i + 1..].iter().find_map(offset),
    }
}

/// Whether the nearest known changes on both sides of `i` (or the one there is) are applied.
fn applied_around(known: &[Known], i: usize) -> bool {
    let is_applied = |k: &Known| match k {
        Known::Off { applied, .. } => Some(*applied),
        Known::Unknown => None,
    };
    let before = known[..i].iter().rev().find_map(is_applied);
    let after = known[i + 1..].iter().find_map(is_applied);
    match (before, after) {
        (None, None) => false,
        (b, a) => b.unwrap_or(true) && a.unwrap_or(true),
    }
}

fn judge_change(
    file: &FilePatch,
    finder: &Finder<'_, '_>,
    lines: &Lines<'_>,
    known: &[Known],
    i: usize,
    neighbours: Neighbours,
) -> Found {
    let change = &file.changes[i];
    let start = change.range.start;
    // Its new lines, where its old ones were expected: applied already. An insertion's new
    // lines count only where the changes around it say (its lines may well stand elsewhere
    // in the file on their own right); a replacement's where its lines carry identity too.
    let insertion = change.expected.is_none();
    if !change.new_lines.is_empty() {
        let places: Vec<usize> = finder
            .find(&change.new_lines)
            .into_iter()
            .filter(|&at| {
                change.expected.as_ref().is_none_or(|old| {
                    !lines.matches_at(
                        LineRange {
                            start: at,
                            count: old.len(),
                        },
                        old,
                    )
                })
            })
            .collect();
        let sought = Sought {
            stated: start,
            lines: change.new_lines.iter().collect(),
            places,
            at_stated: Vec::new(),
            neighbours,
        };
        if let Verdict::Taken { at } = locate::judge(&sought) {
            let by_neighbours = neighbours.support(at as i64 - start as i64);
            if by_neighbours || !insertion {
                return Found::Applied { at, by_neighbours };
            }
        }
    }
    let Some(expected) = &change.expected else {
        return Found::Doubted(Vec::new());
    };
    let places = finder.find(expected);
    // A deletion leaves nothing to find: its lines gone from the whole file while the changes
    // around it are applied is as near to proof as there is.
    if change.new_lines.is_empty() && places.is_empty() && applied_around(known, i) {
        return Found::Applied {
            at: start,
            by_neighbours: true,
        };
    }
    let at_stated: Vec<&str> = match start.checked_sub(1) {
        Some(first) if first < lines.len() => lines
            .between(first, (first + expected.len()).min(lines.len()))
            .map(|l| std::str::from_utf8(l.text).unwrap_or(""))
            .collect(),
        _ => Vec::new(),
    };
    let sought = Sought {
        stated: start,
        lines: expected.iter().collect(),
        places,
        at_stated,
        neighbours,
    };
    match locate::judge(&sought) {
        Verdict::Taken { at } => Found::Expected { at },
        Verdict::Doubted(doubts) => Found::Doubted(doubts),
    }
}

/// Writes what the judgement found into the change's check.
fn record(file: &FilePatch, check: &mut ChangeCheck, i: usize, found: Found) {
    let change = &file.changes[i];
    match found {
        Found::Applied { at, by_neighbours } => {
            let offset = at as i64 - change.range.start as i64;
            let note = match (change.new_lines.is_empty(), offset, by_neighbours) {
                (true, _, _) => "already applied, as far as can be told: the lines it deletes stand nowhere in the file, and the changes around it are applied; writing it changes nothing".to_owned(),
                (false, 0, _) => applied_note(change).message,
                (false, _, true) => format!(
                    "already applied: its new lines stand at line {at} ({offset:+} lines from where it says), as the changes around it do; writing it changes nothing"
                ),
                (false, _, false) => format!(
                    "already applied: its new lines stand at line {at} ({offset:+} lines from where it says), the one place they are; writing it changes nothing"
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

/// Finds runs of whole lines in a file: each line's first places, indexed once, so that
/// finding the lines of every change costs the file once, not once per change.
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

    /// Every 1-based line where `wanted` stands as a run of whole lines.
    fn find(&self, wanted: &TextLines) -> Vec<usize> {
        let Some(first) = wanted.get(0) else {
            return Vec::new();
        };
        self.by_text
            .get(first.as_bytes())
            .into_iter()
            .flatten()
            .map(|&i| i + 1)
            .filter(|&start| {
                self.lines.matches_at(
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
