//! The commit summary as lines of text: every write with its counts, every file that has
//! accepted changes but will not be written, then overrides, warnings and blockers with the
//! keys that lift them. Made from the core's plan alone, so it says exactly what the commit
//! will do; laying it out and drawing it are `layout`'s and `draw`'s.

use super::keys::Action;
use super::words::{change_name, Words};
use crate::content::Content;
use crate::failpoint::Failpoint;
use crate::line_diff::{diff_lines, Shared};
use crate::model::{Batch, Stance};
use crate::plan::{Blocker, FileWrite, Override, Plan, Remedy, WriteKind};
use crate::review::{At, Decision, Review};
use std::time::{Duration, Instant};

/// One line of the commit summary, with whether it warns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryLine {
    pub warn: bool,
    pub text: String,
}

/// The commit summary being shown: the plan it summarises, its lines, and how far the lines
/// each write adds and removes have been counted.
///
/// The counts take a line diff of every file written, its new content made first: on 2,000
/// files, longer than a key may take. So the summary opens with what the plan says and the
/// counts of its first writes, and counts the rest in steps ([`Summary::count_more`])
/// between keys, filling in each write's line as its counts arrive and the totals when the
/// last does. The new contents are not kept: the commit makes each again as it stages its
/// file, as `patchdeck apply` does.
#[derive(Debug)]
pub struct Summary {
    pub plan: Plan,
    pub lines: Vec<SummaryLine>,
    pub scroll: usize,
    /// Lines added and removed by each of the plan's first writes, in its order.
    counts: Vec<(usize, usize)>,
    /// The `count` failpoint, for a test of the real binary: after each group of
    /// [`AT_ONCE`] writes counted (the first as the summary opens).
    failpoint: Option<Failpoint>,
}

/// How long one step of counting between keys may take: with its frame, a key pressed
/// during it waited at most 10.5 ms on 2,000 files of the bench. The clock is read between
/// groups of [`AT_ONCE`] writes, so a group of very large files makes a longer step.
pub const STEP: Duration = Duration::from_millis(5);

/// Writes counted at once, on every core, between two looks at the clock, and as the summary
/// opens: a summary of this many writes or fewer is whole as it opens.
pub const AT_ONCE: usize = 64;

impl Summary {
    /// The summary of what the decisions of `review` would write, with the keys of `words`,
    /// and the counts of its first [`AT_ONCE`] writes.
    pub fn open(review: &Review, words: &Words) -> Summary {
        let plan = review.plan_without_contents();
        let lines = summary_lines(review, &plan, words);
        let mut summary = Summary {
            plan,
            lines,
            scroll: 0,
            counts: Vec::new(),
            failpoint: crate::failpoint::from_env(),
        };
        summary.count_more(review, Duration::ZERO);
        summary
    }

    /// Whether some writes are still to be counted.
    pub fn counting(&self) -> bool {
        self.counts.len() < self.plan.writes.len()
    }

    /// Counts the lines of more writes, [`AT_ONCE`] at a time, until `budget` is spent or
    /// every write is counted; fills in their lines, and the totals.
    pub fn count_more(&mut self, review: &Review, budget: Duration) {
        let start = Instant::now();
        let checked = review.checked();
        let decisions = review.decisions();
        while self.counting() {
            let from = self.counts.len();
            let step = &self.plan.writes[from..(from + AT_ONCE).min(self.plan.writes.len())];
            let counts = crate::parallel::map(step, |write| {
                let after = checked.content_of(decisions, write, write.before.as_ref());
                write_counts(write.before.as_ref().map_or(&[][..], |b| b.bytes()), &after)
            });
            for (i, (added, removed)) in counts.iter().enumerate() {
                let text = &mut self.lines[1 + from + i].text;
                text.push_str(&format!("  +{added} -{removed}"));
            }
            self.counts.extend(counts);
            if let Some(failpoint) = &self.failpoint {
                // A group that takes long (`sleep`), or stops the process (`stop`) or ends it
                // (`kill`), for a test; an injected error means nothing here.
                let _ = failpoint.hit(crate::failpoint::Step::Count);
            }
            if start.elapsed() >= budget {
                break;
            }
        }
        if let Some(totals) = self
            .lines
            .first_mut()
            .filter(|_| !self.plan.writes.is_empty())
        {
            totals.text = totals_line(&self.plan, &self.counts);
        }
    }
}

/// The lines of the summary of `plan` for `review`, with the keys of `words`. The totals come
/// first and each write after them (at `1 +` its index in the plan), none counted yet.
fn summary_lines(review: &Review, plan: &Plan, words: &Words) -> Vec<SummaryLine> {
    let line = |warn, text: String| SummaryLine { warn, text };
    let batch = review.batch();
    // Each change's decision looked up once (on 2,000 files, a lookup per change is a
    // millisecond).
    let decided: Vec<Vec<&Decision>> = batch
        .files
        .iter()
        .map(|file| {
            let decisions = review.decisions();
            file.changes.iter().map(|c| decisions.get(&c.id)).collect()
        })
        .collect();
    let stance = batch.stance;
    let accepted: Vec<usize> = decided
        .iter()
        .map(|file| file.iter().filter(|d| d.writes(stance)).count())
        .collect();
    let mut out = Vec::new();
    if !plan.writes.is_empty() {
        out.push(line(false, totals_line(plan, &[])));
    }
    let mut written = vec![false; batch.files.len()];
    for write in &plan.writes {
        written[write.file] = true;
        let edited = write
            .changes
            .iter()
            .filter(|&&c| matches!(decided[write.file][c], Decision::Edit(_)))
            .count();
        out.push(line(
            false,
            match stance {
                Stance::Standing => {
                    crate::report::say::describe_standing_write(write, batch, review.decisions())
                }
                Stance::Proposed => write_line(batch, write, edited),
            },
        ));
    }
    for (index, file) in batch.files.iter().enumerate() {
        if accepted[index] > 0 && !written[index] {
            out.push(line(
                true,
                format!(
                    "blocked {}  {} of {} change(s) {}, not written (see below)",
                    file_path(review, index),
                    accepted[index],
                    file.changes.len(),
                    match stance {
                        Stance::Standing => "to undo or edit",
                        Stance::Proposed => "accepted",
                    }
                ),
            ));
        }
    }
    if plan.writes.is_empty() {
        out.push(if accepted.iter().any(|&n| n > 0) {
            line(
                true,
                "nothing can be written until every blocker below is lifted".into(),
            )
        } else if stance == Stance::Standing {
            line(
                false,
                "nothing to undo: every change stays as the agent wrote it".into(),
            )
        } else {
            line(false, "nothing to write: no change is accepted".into())
        });
    }
    for o in &plan.overrides {
        out.push(line(
            true,
            format!("override: {}", describe_override(review, words, o)),
        ));
    }
    let undecided = decided
        .iter()
        .flatten()
        .filter(|&&d| *d == Decision::Undecided)
        .count();
    if undecided > 0 {
        out.push(line(
            true,
            match stance {
                Stance::Standing => format!(
                    "{undecided} change(s) are undecided: they stay as the agent wrote them"
                ),
                Stance::Proposed => {
                    format!("{undecided} change(s) are undecided and will not be applied")
                }
            },
        ));
    }
    for blocker in &plan.blockers {
        out.push(line(
            true,
            format!(
                "blocked: {}{}",
                blocker.message,
                remedy_hint(review, words, blocker)
            ),
        ));
    }
    out
}

/// A file's path under the root (its docPath when it could not be resolved).
fn file_path(review: &Review, file: usize) -> String {
    review.change(At { file, change: 0 }).path()
}

/// The name a person knows a change by, found by its ID.
fn named(review: &Review, file: usize, id: &crate::model::ChangeId) -> String {
    let change = review.batch().files[file]
        .changes
        .iter()
        .position(|c| &c.id == id)
        .unwrap_or(0);
    change_name(review, At { file, change })
}

/// An override of the plan, in the reviewer's words: changes by their names, and the key
/// that takes it back.
fn describe_override(review: &Review, words: &Words, o: &Override) -> String {
    let said = crate::report::say::describe_override(
        o,
        crate::report::say::Told::Reviewer,
        |file| file_path(review, file),
        |file, id| named(review, file, id),
    );
    let key = match o {
        Override::File { .. } => Some(Action::OverrideSha),
        Override::EditedOver { .. } => None,
        Override::Placed { .. } => Some(Action::Place),
        Override::Relocated { .. } => Some(Action::Relocate),
    };
    match key {
        Some(action) => format!("{said} ({} takes it back)", words.key(action)),
        None => said,
    }
}

/// What lifts a blocker, in the reviewer's keys.
fn remedy_hint(review: &Review, words: &Words, blocker: &Blocker) -> String {
    match blocker.remedy {
        Some(Remedy::File(crate::review::FileOverride::Sha)) => {
            match review.override_refusal(blocker.file) {
                None => format!(
                    " ({} on a change of this file overrides it)",
                    words.key(Action::OverrideSha)
                ),
                Some(_) => format!(
                    " (resolve its conflicting changes, then {} overrides it)",
                    words.key(Action::OverrideSha)
                ),
            }
        }
        Some(Remedy::File(crate::review::FileOverride::Overwrite)) => format!(
            " ({} on a change of this file writes it over the file that is there)",
            words.key(Action::OverrideSha)
        ),
        Some(Remedy::Relocate) => format!(
            " ({} on the change moves it there)",
            words.key(Action::Relocate)
        ),
        Some(Remedy::File(crate::review::FileOverride::HardLink)) => format!(
            " ({} on a change of this file writes it anyway; its other names keep the old content)",
            words.key(Action::OverrideSha)
        ),
        None => String::new(),
    }
}

/// Lines added and removed by a write, as the diff `patchdeck diff` writes of it counts them
/// ([`crate::line_diff::diff_lines`], guided by the runs of the original the new content
/// copies). The whole lines of the runs that begin and end the new content are left out: the
/// diff pairs them whatever lies between, so only the lines between are made whole and
/// compared (on 2,000 files, a few hundred kilobytes instead of every byte of every file twice).
fn write_counts(before: &[u8], after: &Content) -> (usize, usize) {
    let (head, tail) = after.shared_ends(before);
    let start = before[..head]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    // The shared end from the first line that starts inside it, in both files.
    let shared = &before[before.len() - tail..];
    let tail = memchr::memchr(b'\n', shared).map_or(0, |at| tail - at - 1);
    let (before_end, after_end) = (before.len() - tail, after.len() - tail);
    let runs = clipped(&after.shared_with(before), start, before_end, after_end);
    let middle = after.slice(start, after_end);
    diff_lines(&before[start..before_end], &middle, &runs).counts()
}

/// The parts of `runs` inside both windows (`start..old_end` of the old text, `start..new_end`
/// of the new), counted from `start`.
fn clipped(runs: &[Shared], start: usize, old_end: usize, new_end: usize) -> Vec<Shared> {
    runs.iter()
        .filter_map(|run| {
            // Old offsets the run covers inside both windows (new = old - run.old + run.new).
            let from = run
                .old
                .max(start)
                .max((start + run.old).saturating_sub(run.new));
            let to = (run.old + run.len)
                .min(old_end)
                .min((new_end + run.old).saturating_sub(run.new));
            (from < to).then(|| Shared {
                old: from - start,
                new: from - run.old + run.new - start,
                len: to - from,
            })
        })
        .collect()
}

/// The summary's first line: the files the plan writes, counted, with their changes and, once
/// every write is counted, the lines they add and remove:
/// `3 file(s) to write: 2 modified, 1 created  5 change(s)  +12 -4`.
fn totals_line(plan: &Plan, counts: &[(usize, usize)]) -> String {
    let changes: usize = plan.writes.iter().map(|w| w.changes.len()).sum();
    let lines = if counts.len() == plan.writes.len() {
        let (added, removed) = counts
            .iter()
            .fold((0, 0), |(a, r), &(added, removed)| (a + added, r + removed));
        format!("+{added} -{removed}")
    } else {
        format!(
            "counting lines: {} of {} file(s)",
            counts.len(),
            plan.writes.len()
        )
    };
    format!(
        "{} file(s) to write: {}  {changes} change(s)  {lines}",
        plan.writes.len(),
        crate::plan::describe_kinds(plan.writes.iter().map(|w| w.kind))
    )
}

/// A write's line, before its lines are counted: what it does to which file, with how many
/// of the file's changes (`edited` of them edited).
fn write_line(batch: &Batch, write: &FileWrite, edited: usize) -> String {
    let verb = match write.kind {
        WriteKind::Modify => "write ",
        WriteKind::Create => "create",
        WriteKind::Delete => "delete",
    };
    let edited = match edited {
        0 => String::new(),
        n => format!(" ({n} edited)"),
    };
    format!(
        "{verb} {}  {} of {} change(s){edited}",
        write.rel.display(),
        write.changes.len(),
        batch.files[write.file].changes.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_those_of_the_diff_of_the_whole_files() {
        let mut state = 7u64;
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % below
        };
        // Few distinct pieces, so that files share lines and partial lines everywhere; the
        // chunks are longer than 64 bytes now and then.
        let pieces: [&[u8]; 7] = [b"a", b"b\n", b"\n", b"ab", b"\r\n", b"x\ny\n", &[b'z'; 70]];
        let mut file = |len: u64| -> Vec<u8> {
            (0..len)
                .flat_map(|_| pieces[next(7) as usize].iter().copied())
                .collect()
        };
        for case in 0..3000 {
            let (head, middle, other, end) = (file(6), file(3), file(3), file(6));
            let before = [&head[..], &middle, &end].concat();
            let after = [&head[..], &other, &end].concat();
            // The same write as a plan holds it: runs of the original around the new lines.
            let original = std::sync::Arc::new(before.clone());
            let mut built = crate::content::Builder::new(&original);
            built.push(&original[..head.len()]);
            built.push(&other);
            built.push(&original[original.len() - end.len()..]);
            let content = built.finish(&original);
            assert_eq!(content, after, "case {case}");
            let whole = diff_lines(&before, &after, &content.shared_with(&original));
            assert_eq!(
                write_counts(&original, &content),
                whole.counts(),
                "case {case}: {:?} -> {:?}",
                String::from_utf8_lossy(&before),
                String::from_utf8_lossy(&after)
            );
        }
    }
}
