//! What the plan blocks across files: two file patches that write one file, and a file written
//! where another write needs a folder.

use super::blocker::Blocker;
use super::Plan;
use crate::model::Batch;
use crate::problem::ProblemKind;

/// A batch that writes `x` as a file and also writes `x/y` needs `x` to be a file and a folder
/// at once: the commit could only fail halfway. Blocked here, where both are known, naming
/// both (paths compared as patchdeck identifies files: ignoring case).
pub(super) fn block_files_under_files(batch: &Batch, plan: &mut Plan) {
    let key = |rel: &std::path::Path| rel.to_string_lossy().to_lowercase();
    let written: std::collections::HashMap<String, (usize, &std::path::Path)> = plan
        .writes
        .iter()
        .map(|w| (key(&w.rel), (w.file, w.rel.as_path())))
        .collect();
    let mut found = Vec::new();
    for write in &plan.writes {
        for folder in write.rel.ancestors().skip(1) {
            if folder.as_os_str().is_empty() {
                break;
            }
            if let Some(&(file, as_file)) = written.get(&key(folder)) {
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
