//! The line diff every part of patchdeck shares: similar's Myers diff of two slices of lines,
//! with positions it can trust (see [`diff_ops`]). The diffs it writes (`diff_writer`), the
//! whole-file changes formats build and the matcher's word of what differs all ask it.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// similar's Myers diff of two line slices, with every op's positions recomputed from the ops
/// before it. similar 2.7 can report a deletion at the wrong position in the new side (a
/// `Delete { new_index: 1 }` before an `Equal { new_index: 0 }`), which made hunk headers that
/// `git apply` refuses; the op kinds and lengths are right, so the positions are rebuilt.
pub fn diff_ops<T: std::hash::Hash + Eq + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let (mut o, mut n) = (0, 0);
    capture_diff_slices(Algorithm::Myers, old, new)
        .into_iter()
        .map(|op| {
            let fixed = match op {
                DiffOp::Equal { len, .. } => DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                },
                DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                    old_index: o,
                    old_len,
                    new_index: n,
                },
                DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                    old_index: o,
                    new_index: n,
                    new_len,
                },
                DiffOp::Replace {
                    old_len, new_len, ..
                } => DiffOp::Replace {
                    old_index: o,
                    old_len,
                    new_index: n,
                    new_len,
                },
            };
            o += fixed.old_range().len();
            n += fixed.new_range().len();
            fixed
        })
        .collect()
}
