//! The new content of a planned write: its changes spliced, at the ranges the plan chose, into
//! the file it applies to.

use super::{FileWrite, WriteKind};
use crate::content::Content;
use crate::fs::Snapshot;
use crate::lines::{Eol, Lines};
use crate::model::{FileAction, FilePatch};
use crate::review::{Decision, Decisions};
use crate::splice::{splice_content, Splice};
use crate::verify::FileCheck;
use std::sync::Arc;

/// The new content of a planned write (empty for a deletion): its changes spliced at the
/// ranges the plan chose into `target`, the bytes of its target (the verified snapshot, or the
/// same bytes the commit has read again under its lock), or, for a creation, into nothing or
/// the file it copies. [`super::plan`] makes every content with it at once; a plan made without
/// contents has the commit make each with it as the file is staged.
pub fn content_of(
    file: &FilePatch,
    check: &FileCheck,
    decisions: &Decisions,
    write: &FileWrite,
    target: Option<&Snapshot>,
) -> Content {
    if write.kind == WriteKind::Delete {
        return Content::default();
    }
    let spliced: Vec<Splice> = write
        .changes
        .iter()
        .zip(&write.ranges)
        .map(|(&ci, &range)| {
            let change = &file.changes[ci];
            let edited = match decisions.get(&change.id) {
                Decision::Edit(lines) => Some(lines),
                _ => None,
            };
            Splice {
                range,
                new_lines: edited.unwrap_or(&change.new_lines),
                final_newline: change.eof_newline,
                // Lines the reviewer edited take the file's ending.
                new_eols: change.new_eols.as_deref().filter(|_| edited.is_none()),
            }
        })
        .collect();
    // A creation starts from nothing (or the file it copies), whatever is there.
    let base = match check.action {
        FileAction::Create => check.copied_from.as_ref(),
        _ => target,
    };
    let eol = file.new_file_eol.unwrap_or(Eol::Lf);
    match base {
        Some(base) => splice_content(base.bytes(), &base.lines(), &spliced, eol),
        None => {
            let nothing = Arc::default();
            splice_content(&nothing, &Lines::split(&nothing), &spliced, eol)
        }
    }
}
