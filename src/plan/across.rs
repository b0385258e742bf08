//! What the plan blocks across files: two file patches that write one file, a file written
//! where another write needs a folder, and a file becoming a folder (or the reverse) without
//! the deletions that make way for it.

use super::blocker::Blocker;
use super::{Plan, WriteKind};
use crate::model::{Batch, FileAction};
use crate::problem::ProblemKind;
use crate::review::Decisions;
use crate::verify::Verification;

/// A batch that writes `x` as a file and also writes `x/y` needs `x` to be a file and a folder
/// at once: the commit could only fail halfway. Blocked here, where both are known, naming
/// both (paths compared as patchdeck identifies files: ignoring case). Unless one of the two
/// is a deletion: the file `x` deleted for a folder `x` (a file becoming a folder), or the
/// files in the folder `x` deleted for a file `x` (the reverse), which the commit writes in
/// that order.
pub(super) fn block_files_under_files(batch: &Batch, plan: &mut Plan) {
    let key = |rel: &std::path::Path| rel.to_string_lossy().to_lowercase();
    let written: std::collections::HashMap<String, (usize, &std::path::Path, WriteKind)> = plan
        .writes
        .iter()
        .map(|w| (key(&w.rel), (w.file, w.rel.as_path(), w.kind)))
        .collect();
    let mut found = Vec::new();
    for write in &plan.writes {
        for folder in write.rel.ancestors().skip(1) {
            if folder.as_os_str().is_empty() {
                break;
            }
            if let Some(&(file, as_file, kind)) = written.get(&key(folder)) {
                if kind == WriteKind::Delete || write.kind == WriteKind::Delete {
                    continue;
                }
                found.push((file, as_file.to_path_buf(), write.file, write.rel.clone()));
            }
        }
    }
    for (file, as_file, under, rel) in found {
        plan.blockers.push(Blocker::between_files(
            ProblemKind::PathConflict,
            file,
            format!(
                "path conflict: file patch {} ({}) writes {} as a file, and file patch {} ({}) writes {} inside it, as if it were a folder; accept the changes of only one",
                file + 1,
                batch.files[file].id,
                as_file.display(),
                under + 1,
                batch.files[under].id,
                rel.display()
            ),
        ));
    }
}

/// Two file patches of a batch that write the same file would overwrite each other: when the
/// selected changes of both would be written, neither is.
pub(super) fn block_files_written_twice(batch: &Batch, plan: &mut Plan) {
    let mut first_writer: std::collections::HashMap<&std::path::Path, usize> =
        std::collections::HashMap::with_capacity(plan.writes.len());
    let mut twice = Vec::new();
    for write in &plan.writes {
        match first_writer.entry(&write.rel) {
            std::collections::hash_map::Entry::Occupied(first) => {
                twice.push((*first.get(), write.file, write.rel.clone()))
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(write.file);
            }
        }
    }
    for (first, second, rel) in twice {
        plan.blockers.push(Blocker::between_files(
            ProblemKind::SameFileTwice,
            second,
            format!(
                "{}: changed by file patches {} and {} of this batch ({}, {}); accept the changes of only one",
                rel.display(),
                first + 1,
                second + 1,
                batch.files[first].id,
                batch.files[second].id
            ),
        ));
    }
}

/// A creation where a file stands that the batch deletes, or a folder whose every file it
/// deletes (see [`crate::verify::FileCheck::needs_deleted`]), is written only with those
/// deletions: when one is rejected (or not written for any other reason), the creation is
/// blocked, naming both file patches.
pub(super) fn block_reshapes_without_deletions(
    batch: &Batch,
    verification: &Verification,
    plan: &mut Plan,
) {
    let deleted: std::collections::HashSet<usize> = plan
        .writes
        .iter()
        .filter(|w| w.kind == WriteKind::Delete)
        .map(|w| w.file)
        .collect();
    let mut missing = Vec::new();
    for write in plan.writes.iter().filter(|w| w.kind == WriteKind::Create) {
        let Some(check) = verification.files.get(write.file) else {
            continue;
        };
        for &needed in check.needs_deleted.iter().filter(|n| !deleted.contains(n)) {
            missing.push((write.file, write.rel.clone(), needed));
        }
    }
    for (file, rel, needed) in missing {
        let gone = &batch.files[needed].doc_path;
        let (what, stands) = match rel.starts_with(gone) {
            true => (format!("inside {gone}"), format!("{gone} is a file")),
            false => (String::new(), format!("a folder stands that holds {gone}")),
        };
        plan.blockers.push(Blocker::between_files(
            ProblemKind::NotAFile,
            file,
            format!(
                "{}: file patch {} ({}) creates it{}{}, where {stands}; it needs file patch {} ({}), which deletes {gone}, and that deletion is not written; accept the changes of both, or of neither",
                rel.display(),
                file + 1,
                batch.files[file].id,
                if what.is_empty() { "" } else { " " },
                what,
                needed + 1,
                batch.files[needed].id,
            ),
        ));
    }
}

/// A rename is two file patches: the new file, made from the old one's content, and the old
/// file's removal (its deletion, or its replacement in a swap). Written without the new file,
/// whose changes the person rejected, the removal would keep the old content nowhere: it is
/// blocked, naming both. (Rejecting the removal alone leaves a copy, which loses nothing.)
pub(super) fn block_halves_of_renames(batch: &Batch, decisions: &Decisions, plan: &mut Plan) {
    let removing: std::collections::HashSet<usize> = plan
        .writes
        .iter()
        .filter(|w| matches!(w.kind, WriteKind::Delete | WriteKind::Modify))
        .map(|w| w.file)
        .collect();
    let mut found = Vec::new();
    for (index, file) in batch.files.iter().enumerate() {
        let Some(source) = file.copy_from.as_deref() else {
            continue;
        };
        let rejected =
            !file.changes.is_empty() && file.changes.iter().all(|c| !decisions.writes(&c.id));
        let removal = batch.files.iter().position(|other| {
            other.doc_path == source && (other.action == FileAction::Delete || other.replaces)
        });
        let Some(removal) = removal.filter(|_| rejected) else {
            continue;
        };
        if removing.contains(&removal) {
            found.push((removal, index, source.to_owned(), file.doc_path.clone()));
        }
    }
    for (removal, creation, source, target) in found {
        plan.blockers.push(Blocker::between_files(
            ProblemKind::HalfRename,
            removal,
            format!(
                "{source}: file patch {} ({}) removes it, and file patch {} ({}), which makes {target} from its content, is rejected: its content would be kept nowhere; accept both, or reject the removal too",
                removal + 1,
                batch.files[removal].id,
                creation + 1,
                batch.files[creation].id
            ),
        ));
    }
}
