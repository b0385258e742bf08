//! Where a change belongs when its lines do not stand where it says: the one judgement that
//! relocation (`--relocate`, the reviewer's `m`), the "found at" hint, the place picker's order
//! and "already applied" all ask, so that none of them says a change belongs somewhere the
//! others would not write it.
//!
//! A change's lines found at one other place are not proof that it belongs there: two short,
//! common lines stand in many structs. The judgement weighs the evidence:
//! - **the place it states.** The same lines there with some edited (a comment appended, a
//!   name changed) say it still belongs there: it is never moved away from them;
//! - **its neighbours.** The changes around it in the file whose place is known (at their own
//!   lines, shifted, applied) bound where it can be: the lines between two places move
//!   together, so a change between two others is off by between their offsets;
//! - **its own lines.** A long line, or many characters, carry identity of their own.
//!
//! A place is taken only when it is the one place (in the file, or of those its neighbours
//! agree with), it does not cross the changes around it, nothing at the stated place nearly
//! matches, and its neighbours speak for it or its lines carry identity. Otherwise each place
//! is a [`Doubt`], with every reason it was not taken.
//! Nothing here reads a file: the caller finds the places and says what it knows.

use std::fmt::Write as _;

/// What the judgement is asked about one change.
#[derive(Clone, Debug)]
pub struct Sought<'a> {
    /// The first line it says it stands at (1-based).
    pub stated: usize,
    /// The lines sought, to weigh the identity they carry.
    pub lines: Vec<&'a str>,
    /// Every place they stand at (1-based first lines), ascending.
    pub places: Vec<usize>,
    /// At the stated place the change's expected lines nearly stand, `(edited, of)` (see
    /// [`near_match`]): evidence that it still belongs there.
    pub near: Option<(usize, usize)>,
    pub neighbours: Neighbours,
    /// Where it can be without crossing the changes around it.
    pub window: Window,
    /// Whether the one place in the file is enough when nothing around it is known and its
    /// lines are short: so for a diff's hunk, whose context is part of its lines, as `git
    /// apply` applies a hunk at the one place it stands; not for a change that names its line.
    pub unique_is_enough: bool,
}

/// The lines a change can stand in without crossing the changes around it whose place is
/// known: from `first` (1-based) to before `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub first: usize,
    pub end: usize,
}

impl Default for Window {
    fn default() -> Window {
        Window {
            first: 1,
            end: usize::MAX,
        }
    }
}

impl Window {
    /// Whether `count` lines from line `at` stand inside it.
    pub fn holds(self, at: usize, count: usize) -> bool {
        at >= self.first && at.saturating_add(count) <= self.end
    }
}

/// How far off the nearest changes before and after it in the file stand, when their place is
/// known (lines after the stated place: positive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Neighbours {
    pub before: Option<i64>,
    pub after: Option<i64>,
}

impl Neighbours {
    /// Whether they speak for a place `offset` lines off: one side at least is known, and the
    /// place is between the two offsets, or at the one offset there is.
    pub fn support(self, offset: i64) -> bool {
        match (self.before, self.after) {
            (Some(a), Some(b)) => (a.min(b)..=a.max(b)).contains(&offset),
            (Some(one), None) | (None, Some(one)) => offset == one,
            (None, None) => false,
        }
    }

    /// Whether they speak for exactly `offset`: every side known says it.
    pub fn exactly(self, offset: i64) -> bool {
        (self.before.is_some() || self.after.is_some())
            && self.before.is_none_or(|b| b == offset)
            && self.after.is_none_or(|a| a == offset)
    }

    /// The range of offsets they allow, for a reason to say.
    fn bounds(self) -> Option<(i64, i64)> {
        match (self.before, self.after) {
            (Some(a), Some(b)) => Some((a.min(b), a.max(b))),
            (Some(one), None) | (None, Some(one)) => Some((one, one)),
            (None, None) => None,
        }
    }
}

/// The judgement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It belongs at this line.
    Taken { at: usize },
    /// No place was taken: every place it was found at, with why not (none when it stands
    /// nowhere).
    Doubted(Vec<Doubt>),
}

/// A place not taken, and every reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doubt {
    pub line: usize,
    pub offset: i64,
    pub weak: Vec<Weak>,
}

/// A reason a place was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weak {
    /// At the stated place its lines nearly stand: `edited` of `of` differ.
    NearAtStated {
        line: usize,
        edited: usize,
        of: usize,
    },
    /// The changes around it are off by another amount (`low` to `high` lines).
    Neighbours { low: i64, high: i64 },
    /// Its lines carry little identity: `chars` characters, none of them in a long line.
    Plain { chars: usize },
    /// It is one of `places` places, and its neighbours do not single it out.
    OneOf { places: usize },
    /// No change around it has a known place to say where it can be.
    Alone,
    /// It would cross a change around it, whose lines start or end at `line`.
    Crosses { line: usize },
}

/// How many characters (beside leading and trailing blanks) one line needs to carry identity
/// of its own; or all of a change's lines together.
const LONG_LINE: usize = 30;
const MANY_CHARS: usize = 60;
/// How many lines that are not blank carry identity together, with a long line's characters.
const SEVERAL: usize = 3;

/// Judges where a change belongs among the places its lines were found: a place is taken when
/// nothing at the stated place nearly holds its lines, it does not cross the changes around
/// it, it is the one place (in the file, or of those the neighbours agree with), and the
/// neighbours speak for it or the lines carry identity of their own.
pub fn judge(sought: &Sought<'_>) -> Verdict {
    let offset = |line: usize| line as i64 - sought.stated as i64;
    let count = sought.lines.len();
    let fits = |line: usize| sought.window.holds(line, count);
    let supported = |line: usize| sought.neighbours.support(offset(line));
    let within: Vec<usize> = sought.places.iter().copied().filter(|&l| fits(l)).collect();
    let agreeing: Vec<usize> = within.iter().copied().filter(|&l| supported(l)).collect();
    let chosen = match (within.as_slice(), agreeing.as_slice()) {
        ([one], _) | (_, [one]) => Some(*one),
        _ => None,
    };
    let chars = identity(&sought.lines);
    let alone = sought.neighbours.before.is_none() && sought.neighbours.after.is_none();
    let unique = sought.unique_is_enough && alone && sought.places.len() == 1;
    let taken =
        chosen.filter(|&at| sought.near.is_none() && (supported(at) || chars.is_none() || unique));
    if let Some(at) = taken {
        return Verdict::Taken { at };
    }
    let doubts = sought
        .places
        .iter()
        .map(|&line| Doubt {
            line,
            offset: offset(line),
            weak: weaknesses(sought, line, chars, chosen),
        })
        .collect();
    Verdict::Doubted(doubts)
}

/// Every reason the place at `line` was not taken.
fn weaknesses(
    sought: &Sought<'_>,
    line: usize,
    chars: Option<usize>,
    chosen: Option<usize>,
) -> Vec<Weak> {
    let offset = line as i64 - sought.stated as i64;
    let mut weak = Vec::new();
    if let Some((edited, of)) = sought.near {
        weak.push(Weak::NearAtStated {
            line: sought.stated,
            edited,
            of,
        });
    }
    if !sought.window.holds(line, sought.lines.len()) {
        let crossed = if line < sought.window.first {
            sought.window.first.saturating_sub(1)
        } else {
            sought.window.end
        };
        weak.push(Weak::Crosses { line: crossed });
    }
    match sought.neighbours.bounds() {
        Some((low, high)) if !sought.neighbours.support(offset) => {
            weak.push(Weak::Neighbours { low, high })
        }
        Some(_) => {}
        None if chars.is_some() => weak.push(Weak::Alone),
        None => {}
    }
    if let Some(chars) = chars {
        weak.push(Weak::Plain { chars });
    }
    if chosen != Some(line) && sought.places.len() > 1 {
        weak.push(Weak::OneOf {
            places: sought.places.len(),
        });
    }
    weak
}

/// `None` when `lines` carry identity of their own (a long line, many characters, or several
/// lines that together say something); else how many characters they hold.
pub fn identity(lines: &[&str]) -> Option<usize> {
    let (mut total, mut longest, mut said) = (0, 0, 0);
    for line in lines {
        let length = line.trim().chars().count();
        total += length;
        longest = longest.max(length);
        said += usize::from(length > 0);
    }
    let carries =
        longest >= LONG_LINE || total >= MANY_CHARS || (said >= SEVERAL && total >= LONG_LINE);
    (!carries).then_some(total)
}

/// Whether `at` nearly holds `lines`: as many lines, each the same or similar (one edited),
/// not all the same, and at most half of them edited (or the one line there is): eleven lines
/// that each differ a little are other lines. `(edited, of)` when it does.
pub fn near_match(lines: &[&str], at: &[&str]) -> Option<(usize, usize)> {
    if lines.is_empty() || lines.len() != at.len() {
        return None;
    }
    let mut edited = 0;
    for (want, found) in lines.iter().zip(at) {
        if want == found {
            continue;
        }
        if !similar_lines(want, found) {
            return None;
        }
        edited += 1;
    }
    (edited > 0 && edited <= (lines.len() / 2).max(1)).then_some((edited, lines.len()))
}

/// Whether two different lines are one edited: the same once trimmed, one the other with
/// something added at an end (a comment appended), or one edit in the middle (a name changed:
/// what they share at the start and at the end is most of the longer).
fn similar_lines(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    // One the other with something added at an end, when the shorter says something of its
    // own ("pat: Glob," does; "///" or "}" stand at the start of many lines).
    let shorter = if a.len() < b.len() { a } else { b };
    let says = shorter.chars().filter(|c| c.is_alphanumeric()).count() >= 6;
    if says && (a.starts_with(b) || b.starts_with(a) || a.ends_with(b) || b.ends_with(a)) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let rest = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(rest)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix + suffix) * 5 >= a.len().max(b.len()) * 3
}

/// The judgement said in words, for a change whose lines do not stand where it says: where
/// they were found and why no place was taken (empty when they stand nowhere).
pub fn describe(doubts: &[Doubt]) -> String {
    const LISTED: usize = 5;
    let mut text = String::new();
    let all = || doubts.iter().flat_map(|d| &d.weak);
    let near = all().find_map(|w| match *w {
        Weak::NearAtStated { line, edited, of } => Some((line, edited, of)),
        _ => None,
    });
    let mut reasons = Vec::new();
    if let Some((line, edited, of)) = near {
        reasons.push(format!(
            "at line {line} they nearly stand ({edited} of {of} line{} edited there), so that is where it belongs",
            plural(of)
        ));
    }
    let bounds = all().find_map(|w| match *w {
        Weak::Neighbours { low, high } => Some((low, high)),
        _ => None,
    });
    match bounds {
        Some((low, high)) if low == high => {
            reasons.push(format!("the changes around it stand {}", offset_words(low)))
        }
        Some((low, high)) => reasons.push(format!(
            "the changes around it stand {} to {}",
            offset_words(low),
            offset_words(high)
        )),
        None => {}
    }
    if let Some(chars) = all().find_map(|w| match *w {
        Weak::Plain { chars } => Some(chars),
        _ => None,
    }) {
        reasons.push(format!(
            "its lines are short and common ({chars} characters)"
        ));
    }
    if let Some(line) = all().find_map(|w| match *w {
        Weak::Crosses { line } => Some(line),
        _ => None,
    }) {
        reasons.push(format!(
            "a change around it stands at line {line}, and a change does not move past another"
        ));
    }
    if all().any(|w| matches!(w, Weak::Alone)) {
        reasons.push("no change around it stands where it can be told".to_owned());
    }
    if doubts.len() > 1 && all().any(|w| matches!(w, Weak::OneOf { .. })) {
        reasons.push("the changes around it single out none of the places".to_owned());
    }
    let why = reasons.join("; ");
    match doubts {
        [] => {}
        [one] => {
            let _ = write!(
                text,
                "; they were found at line {} ({:+} line{}), not taken as where it belongs: {why}",
                one.line,
                one.offset,
                plural(one.offset.unsigned_abs() as usize)
            );
        }
        many => {
            let mut lines: Vec<String> = many
                .iter()
                .take(LISTED)
                .map(|d| d.line.to_string())
                .collect();
            if many.len() > LISTED {
                lines.push("…".to_owned());
            }
            let _ = write!(
                text,
                "; they occur {} times, at lines {}, and none is taken as where it belongs: {why}",
                many.len(),
                lines.join(", ")
            );
        }
    }
    text
}

/// `k lines off` in words: `where they say`, `3 lines lower`, `1 line higher`.
fn offset_words(offset: i64) -> String {
    match offset {
        0 => "where they say".to_owned(),
        n if n > 0 => format!("{n} line{} lower", plural(n as usize)),
        n => format!("{} line{} higher", -n, plural(n.unsigned_abs() as usize)),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sought<'a>(
        stated: usize,
        lines: &[&'a str],
        places: &[usize],
        at: &[&'a str],
    ) -> Sought<'a> {
        Sought {
            stated,
            lines: lines.to_vec(),
            places: places.to_vec(),
            near: near_match(lines, at),
            neighbours: Neighbours::default(),
            window: Window::default(),
            unique_is_enough: false,
        }
    }

    /// The case of a real commit of ripgrep: two short lines deleted from one struct stand,
    /// unedited, in another 29 lines up, while the change's own place holds them with the
    /// first edited, and the changes around it stand where they say.
    #[test]
    fn short_lines_found_elsewhere_are_not_taken_against_an_edit_at_the_stated_place() {
        let lines = ["    /// The underlying pattern.", "    pat: Glob,"];
        let at = ["    /// The underlying pattern. (kept)", "    pat: Glob,"];
        let mut asked = sought(146, &lines, &[117], &at);
        asked.neighbours = Neighbours {
            before: Some(0),
            after: Some(0),
        };
        let Verdict::Doubted(doubts) = judge(&asked) else {
            panic!("taken");
        };
        assert_eq!(doubts.len(), 1);
        assert_eq!(
            doubts[0].weak,
            [
                Weak::NearAtStated {
                    line: 146,
                    edited: 1,
                    of: 2
                },
                Weak::Neighbours { low: 0, high: 0 },
                Weak::Plain { chars: 37 },
            ]
        );
        let said = describe(&doubts);
        assert_eq!(
            said,
            "; they were found at line 117 (-29 lines), not taken as where it belongs: at line 146 they nearly stand (1 of 2 lines edited there), so that is where it belongs; the changes around it stand where they say; its lines are short and common (37 characters)"
        );
        // Without the edit, the short lines still do not outweigh the neighbours.
        asked.near = near_match(&lines, &["    }", ""]);
        assert!(matches!(judge(&asked), Verdict::Doubted(_)));
    }

    /// A model's line number off by two, the file otherwise as the batch says: a line that
    /// carries identity, at one place, nothing like it where the change says.
    #[test]
    fn a_line_with_identity_at_one_place_is_taken_though_its_neighbours_stand_still() {
        let lines = ["            raise ValueError(\"not enough \" + name)"];
        let mut asked = sought(32, &lines, &[30], &["        return self.items[name]"]);
        asked.neighbours = Neighbours {
            before: Some(0),
            after: Some(0),
        };
        assert_eq!(judge(&asked), Verdict::Taken { at: 30 });
    }

    /// Short lines at one place that agrees with the changes around it (the block moved with
    /// them) are taken; among several places, the one between the neighbours is.
    #[test]
    fn neighbours_single_out_a_place_for_short_lines() {
        let mut asked = sought(40, &["}"], &[12, 45, 90], &["fn x() {"]);
        asked.neighbours = Neighbours {
            before: Some(5),
            after: Some(5),
        };
        assert_eq!(judge(&asked), Verdict::Taken { at: 45 });
        asked.neighbours.after = None;
        assert_eq!(judge(&asked), Verdict::Taken { at: 45 }, "one side agrees");
        asked.neighbours.before = Some(3);
        let Verdict::Doubted(doubts) = judge(&asked) else {
            panic!("taken where no neighbour agrees");
        };
        assert!(doubts
            .iter()
            .all(|d| d.weak.contains(&Weak::OneOf { places: 3 })));
        assert!(describe(&doubts)
            .contains("they occur 3 times, at lines 12, 45, 90, and none is taken"));
        assert!(matches!(
            judge(&sought(40, &["}"], &[], &["x"])),
            Verdict::Doubted(d) if d.is_empty()
        ));
    }

    #[test]
    fn near_matches_are_edits_not_other_lines() {
        assert_eq!(
            near_match(&["a = 1", "b = 2"], &["a = 1", "b = 3"]),
            Some((1, 2))
        );
        assert_eq!(
            near_match(&["x"], &["x"]),
            None,
            "the same is no near match"
        );
        assert_eq!(
            near_match(&["pat: Glob,"], &["pat: Glob, // why"]),
            Some((1, 1))
        );
        assert_eq!(
            near_match(
                &["return self.items[name]"],
                &["raise ValueError(\"not enough\")"]
            ),
            None
        );
        assert_eq!(near_match(&["a", "b"], &["a"]), None, "another count");
        assert_eq!(
            near_match(
                &["/// [`super::parts`]); the sections are those of one pass."],
                &["///"]
            ),
            None,
            "a bare comment marker is no edit of a comment"
        );
        assert_eq!(
            near_match(&["let total = count(a, b);"], &["let total = sum(a, b);"]),
            Some((1, 1)),
            "a name changed"
        );
        assert_eq!(
            near_match(
                &["`ring`, 0.51 and 0.58 × (0.83 and 0.92 ×). This run, on a machine with SHA"],
                &["git's; one run, on a slow disk). Last run, on the machine without SHA and"]
            ),
            None,
            "prose with words in common is another line"
        );
    }
}
