//! Recognising a batch that was applied before, in full or in part: a batch applied twice, or
//! reopened after part of it was committed, is not a wall of conflicts.
//!
//! A file whose SHA-256 differs from the batch's is explained when its changes, walked in
//! order, each find either their new lines (already applied) or their expected lines (not yet)
//! where they belong, shifted by the changes before them, and taking the applied ones back out
//! gives bytes with exactly the batch's SHA-256: the file is the one the batch was written
//! against, with those changes in it. Nothing else counts as proof: without the hash, only a
//! change whose new lines stand at its own range is taken as applied.

use crate::lines::Lines;
use crate::model::{sha256_hex, FilePatch, LineRange, Operation};
use crate::splice::{splice, Splice};
use crate::text_lines::TextLines;

/// Where a change stands in the file as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placed {
    /// At its own range.
    #[default]
    AsIs,
    /// At this line: the changes before it were applied already, which moved it.
    At(usize),
    /// Already applied: its new lines stand where it would put them; writing it changes
    /// nothing.
    Applied,
}

/// How each change of `file` stands in `bytes` (split as `lines`), when that explains why the
/// file's SHA-256 is not `expected_sha256`: some changes already applied, and without them the
/// file is exactly the batch's base. `None` when it does not.
pub fn explain(
    file: &FilePatch,
    lines: &Lines<'_>,
    bytes: &[u8],
    expected_sha256: &str,
) -> Option<Vec<Placed>> {
    let mut delta: isize = 0;
    let mut placed = Vec::with_capacity(file.changes.len());
    // What a change that says nothing of the lines it replaces backs out.
    let none = TextLines::default();
    let mut back_out: Vec<(LineRange, &TextLines)> = Vec::new();
    for change in &file.changes {
        let at = usize::try_from(change.range.start as isize + delta).ok()?;
        let new_range = LineRange {
            start: at,
            count: change.new_lines.len(),
        };
        let old_range = LineRange {
            start: at,
            count: change.range.count,
        };
        let fits = |range: LineRange| at >= 1 && range.end() <= lines.len() + 1;
        let new_there = fits(new_range) && lines.matches_at(new_range, &change.new_lines);
        let old_there = match (&change.expected, change.operation) {
            (Some(expected), _) => fits(old_range) && lines.matches_at(old_range, expected),
            (None, Operation::Insert) => true,
            // A change that says nothing of the lines it replaces cannot be taken back out.
            (None, _) => return None,
        };
        let applied = match change.operation {
            // Both hold for an insertion whose lines are there: they are its own.
            Operation::Insert => new_there,
            // Both hold for a deletion whose lines are still there: it is not applied.
            _ => new_there && !old_there,
        };
        if applied {
            back_out.push((new_range, change.expected.as_ref().unwrap_or(&none)));
            placed.push(Placed::Applied);
            delta += change.new_lines.len() as isize - change.range.count as isize;
        } else if old_there {
            placed.push(if delta == 0 {
                Placed::AsIs
            } else {
                Placed::At(at)
            });
        } else {
            return None;
        }
    }
    if back_out.is_empty() {
        return None;
    }
    let splices: Vec<Splice> = back_out
        .iter()
        .map(|(range, lines)| Splice::new(*range, lines))
        .collect();
    (sha256_hex(&splice(bytes, &splices)) == expected_sha256).then_some(placed)
}

/// Whether a change whose expected lines are not at its range already stands applied there:
/// its new lines are at its range (and are not its expected lines).
pub fn applied_at_own_range(lines: &Lines<'_>, range: LineRange, new_lines: &TextLines) -> bool {
    let new_range = LineRange {
        start: range.start,
        count: new_lines.len(),
    };
    !new_lines.is_empty()
        && new_range.end() <= lines.len() + 1
        && lines.matches_at(new_range, new_lines)
}

/// Whether a file the batch creates exists already with exactly the lines the batch gives it
/// (line endings aside).
pub fn created_already(file: &FilePatch, bytes: &[u8]) -> bool {
    let lines = Lines::split(bytes);
    let mut new_lines = file.changes.iter().flat_map(|c| &c.new_lines);
    !file.changes.is_empty()
        && lines
            .iter()
            .all(|line| new_lines.next().is_some_and(|n| n.as_bytes() == line.text))
        && new_lines.next().is_none()
}
