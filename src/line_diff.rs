//! The line diff every part of patchdeck shares, linear in the size of what it compares.
//!
//! Two whole texts are compared with imara-diff's Myers diff, which first sets aside the lines
//! found on one side only and gives up on a perfect middle snake when the search grows too
//! costly (git's and GNU diff's heuristics), so no input makes it quadratic: a 160,000-line
//! file with every other line changed diffs in milliseconds where an unbounded Myers diff took
//! 80 seconds. The diff is always correct (applying it gives the new text), only not always
//! the shortest.
//!
//! Where the caller already knows which bytes the two texts share ([`Shared`]: a new content
//! is runs of its file and the bytes its changes write), only the lines between those runs are
//! diffed ([`diff_lines`]): a diff of a million one-line insertions is a million tiny diffs, not
//! one of a million lines. The runs only guide the pairing of lines; every pair is compared
//! before it is taken as equal, so a wrong run can make a diff longer, never wrong.

use imara_diff::{Algorithm, Diff, InternedInput, TokenSource};
use similar::DiffOp;
use std::hash::Hash;

/// A run of bytes known to be the same in both texts: `len` bytes at `old` in the old text and
/// at `new` in the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shared {
    pub old: usize,
    pub new: usize,
    pub len: usize,
}

/// The ops that turn `old` into `new`: equal stretches, deletions, insertions and
/// replacements, in order, with positions in both slices.
pub fn diff_ops<T: Hash + Eq>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let mut ops = Vec::new();
    diff_into(old, new, 0, 0, &mut ops);
    ops
}

/// Each line of `bytes` with its ending (a byte order mark stays part of the first line, as
/// git sees it).
pub fn raw_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// The lines of two texts and the ops between them, diffing only the lines outside the runs
/// `shared` names (in order in both texts; a run out of order is passed over).
pub fn diff_lines<'a>(old: &'a [u8], new: &'a [u8], shared: &[Shared]) -> LineDiff<'a> {
    let old_lines = raw_lines(old);
    let new_lines = raw_lines(new);
    let stretches = equal_stretches(&old_lines, &new_lines, shared);
    let mut ops = Vec::new();
    let (mut o, mut n) = (0, 0);
    for stretch in stretches.iter().chain([&Stretch {
        old: old_lines.len(),
        new: new_lines.len(),
        len: 0,
    }]) {
        diff_into(
            &old_lines[o..stretch.old],
            &new_lines[n..stretch.new],
            o,
            n,
            &mut ops,
        );
        push(
            &mut ops,
            DiffOp::Equal {
                old_index: stretch.old,
                new_index: stretch.new,
                len: stretch.len,
            },
        );
        (o, n) = (stretch.old + stretch.len, stretch.new + stretch.len);
    }
    LineDiff {
        old: old_lines,
        new: new_lines,
        ops,
    }
}

/// Two texts' lines (with their endings) and the ops between them.
pub struct LineDiff<'a> {
    pub old: Vec<&'a [u8]>,
    pub new: Vec<&'a [u8]>,
    pub ops: Vec<DiffOp>,
}

impl LineDiff<'_> {
    /// Lines added and removed.
    pub fn counts(&self) -> (usize, usize) {
        self.ops
            .iter()
            .filter(|op| !matches!(op, DiffOp::Equal { .. }))
            .fold((0, 0), |(added, removed), op| {
                (added + op.new_range().len(), removed + op.old_range().len())
            })
    }
}

/// Lines `old..old + len` of the old text equal to `new..new + len` of the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stretch {
    old: usize,
    new: usize,
    len: usize,
}

/// The whole lines inside each shared run, where they are whole lines of both texts and equal,
/// as stretches in order in both. O(lines + runs × log lines).
fn equal_stretches(old: &[&[u8]], new: &[&[u8]], shared: &[Shared]) -> Vec<Stretch> {
    let (old_starts, new_starts) = (line_starts(old), line_starts(new));
    let mut stretches: Vec<Stretch> = Vec::new();
    let (mut old_done, mut new_done) = (0, 0);
    for run in shared {
        // The first old line that starts inside the run, and where it lies in the new text.
        let first = old_starts.partition_point(|&at| at < run.old);
        let Some(&start) = old_starts.get(first) else {
            continue;
        };
        let Some(new_at) = (start - run.old).checked_add(run.new) else {
            continue;
        };
        let other = new_starts.partition_point(|&at| at < new_at);
        if new_starts.get(other) != Some(&new_at) || first < old_done || other < new_done {
            continue;
        }
        let end = run.old + run.len;
        let mut len = 0;
        while first + len < old.len()
            && other + len < new.len()
            && old_starts[first + len + 1] <= end
            && old[first + len] == new[other + len]
        {
            len += 1;
        }
        if len > 0 {
            stretches.push(Stretch {
                old: first,
                new: other,
                len,
            });
            (old_done, new_done) = (first + len, other + len);
        }
    }
    stretches
}

/// Where each line starts, and the end of the last.
fn line_starts(lines: &[&[u8]]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    starts.push(0);
    for line in lines {
        at += line.len();
        starts.push(at);
    }
    starts
}

/// Appends the ops turning `old` into `new`, their positions shifted by `o` and `n`.
fn diff_into<T: Hash + Eq>(old: &[T], new: &[T], o: usize, n: usize, ops: &mut Vec<DiffOp>) {
    match (old.len(), new.len()) {
        (0, 0) => return,
        (0, new_len) => {
            return push(
                ops,
                DiffOp::Insert {
                    old_index: o,
                    new_index: n,
                    new_len,
                },
            )
        }
        (old_len, 0) => {
            return push(
                ops,
                DiffOp::Delete {
                    old_index: o,
                    old_len,
                    new_index: n,
                },
            )
        }
        _ => {}
    }
    let input = InternedInput::new(Items(old), Items(new));
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_no_heuristic(&input);
    let (mut old_at, mut new_at) = (0, 0);
    for hunk in diff.hunks() {
        let (before, after) = (hunk.before, hunk.after);
        let (start, new_start) = (before.start as usize, after.start as usize);
        push(
            ops,
            DiffOp::Equal {
                old_index: o + old_at,
                new_index: n + new_at,
                len: start - old_at,
            },
        );
        push(
            ops,
            changed(o + start, before.len(), n + new_start, after.len()),
        );
        (old_at, new_at) = (before.end as usize, after.end as usize);
    }
    push(
        ops,
        DiffOp::Equal {
            old_index: o + old_at,
            new_index: n + new_at,
            len: old.len() - old_at,
        },
    );
}

/// A slice as imara-diff's tokens: each item one.
struct Items<'a, T>(&'a [T]);

impl<'a, T: Hash + Eq> TokenSource for Items<'a, T> {
    type Token = &'a T;
    type Tokenizer = std::slice::Iter<'a, T>;

    fn tokenize(&self) -> Self::Tokenizer {
        self.0.iter()
    }

    fn estimate_tokens(&self) -> u32 {
        self.0.len().try_into().unwrap_or(u32::MAX)
    }
}

/// The op for `old_len` lines at `old_index` replaced by `new_len` at `new_index`.
fn changed(old_index: usize, old_len: usize, new_index: usize, new_len: usize) -> DiffOp {
    match (old_len, new_len) {
        (0, _) => DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        },
        (_, 0) => DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        },
        _ => DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        },
    }
}

/// Appends `op` unless it is empty; an equal stretch right after another joins it.
fn push(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if op.old_range().is_empty() && op.new_range().is_empty() {
        return;
    }
    if let (Some(DiffOp::Equal { len, .. }), DiffOp::Equal { len: more, .. }) = (ops.last_mut(), op)
    {
        *len += more;
        return;
    }
    ops.push(op);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies ops to `old`, taking inserted lines from `new`, checking every position.
    fn replay<'a>(old: &[&'a [u8]], new: &[&'a [u8]], ops: &[DiffOp]) -> Vec<&'a [u8]> {
        let (mut o, mut n) = (0, 0);
        let mut out = Vec::new();
        for op in ops {
            assert_eq!(
                (op.old_range().start, op.new_range().start),
                (o, n),
                "{ops:?}"
            );
            match *op {
                DiffOp::Equal { len, .. } => {
                    assert_eq!(old[o..o + len], new[n..n + len]);
                    out.extend_from_slice(&old[o..o + len]);
                }
                _ => out.extend_from_slice(&new[op.new_range()]),
            }
            (o, n) = (op.old_range().end, op.new_range().end);
        }
        assert_eq!((o, n), (old.len(), new.len()));
        out
    }

    #[test]
    fn every_diff_turns_old_into_new_with_true_positions() {
        let texts: [&[u8]; 7] = [
            b"",
            b"a\nb\nc\n",
            b"a\nx\nc\n",
            b"b\na\n",
            b"a\nb\nc",
            b"x\na\nb\nc\ny\n",
            b"\n\n\n",
        ];
        for old in texts {
            for new in texts {
                let diff = diff_lines(old, new, &[]);
                assert_eq!(replay(&diff.old, &diff.new, &diff.ops).concat(), new);
            }
        }
    }

    #[test]
    fn shared_runs_pair_lines_and_a_wrong_run_costs_length_not_truth() {
        let old = b"one\ntwo\nthree\nfour\n";
        let new = b"zero\none\ntwo\nTHREE\nfour\n";
        let runs = [
            Shared {
                old: 0,
                new: 5,
                len: 8,
            },
            Shared {
                old: 14,
                new: 19,
                len: 5,
            },
        ];
        let diff = diff_lines(old, new, &runs);
        assert_eq!(replay(&diff.old, &diff.new, &diff.ops).concat(), new);
        assert_eq!(diff.counts(), (2, 1));
        // Runs that name bytes that differ, or out of order, or past the end.
        let wrong = [
            Shared {
                old: 0,
                new: 0,
                len: 19,
            },
            Shared {
                old: 4,
                new: 0,
                len: 100,
            },
            Shared {
                old: 1000,
                new: 0,
                len: 1,
            },
        ];
        let diff = diff_lines(old, new, &wrong);
        assert_eq!(replay(&diff.old, &diff.new, &diff.ops).concat(), new);
    }

    #[test]
    fn a_line_without_its_ending_is_not_the_line_with_it() {
        let diff = diff_lines(
            b"a\nb",
            b"a\nb\n",
            &[Shared {
                old: 0,
                new: 0,
                len: 3,
            }],
        );
        assert_eq!(diff.counts(), (1, 1));
        assert_eq!(replay(&diff.old, &diff.new, &diff.ops).concat(), b"a\nb\n");
    }
}
