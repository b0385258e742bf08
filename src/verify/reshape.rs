//! A file that becomes a folder, or the reverse (git's t4114), checked across the batch: a
//! creation under a file that another file patch deletes, or where a folder stands whose every
//! file other file patches delete, is no `not_a_file` problem. It is checked as the creation
//! it is once those deletions are written, and names them ([`FileCheck::needs_deleted`]): the
//! plan blocks it when they are not written with it.

use super::{new_check, open_resolved, FileCheck, Status};
use crate::fs::{Kind, RepoPath, Root};
use crate::model::{Batch, FileAction};
use crate::problem::ProblemKind;
use crate::workspace::{Resolved, Workspace};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How many files a folder that becomes a file may hold, looked at: past it, the creation
/// keeps its `not_a_file` problem.
const MOST_FILES: usize = 10_000;

/// Checks again, as creations, the file patches refused as `not_a_file` only because a file
/// or folder stands where the batch deletes it.
pub(super) fn allow(batch: &Batch, workspace: &Workspace, files: &mut [FileCheck]) {
    let deleted: HashMap<&Path, usize> = files
        .iter()
        .enumerate()
        .filter(|(_, check)| check.action == FileAction::Delete && check.status == Status::Ok)
        .filter_map(|(n, check)| match &check.resolved {
            Some(Resolved::File { rel, .. }) => Some((rel.as_path(), n)),
            _ => None,
        })
        .collect();
    if deleted.is_empty() {
        return;
    }
    let mut again = Vec::new();
    for (n, check) in files.iter().enumerate() {
        let file = &batch.files[n];
        let refused = check.resolved.is_none()
            && file.action == FileAction::Create
            && check
                .problems
                .iter()
                .filter(|p| p.blocking)
                .all(|p| p.kind == ProblemKind::NotAFile)
            && check
                .problems
                .iter()
                .any(|p| p.kind == ProblemKind::NotAFile);
        if !refused {
            continue;
        }
        let Ok((rel, _)) = RepoPath::parse(&file.doc_path) else {
            continue;
        };
        let needs = needed(workspace.beneath(), &rel, &deleted);
        if !needs.is_empty() {
            again.push((n, rel, needs));
        }
    }
    for (n, rel, needs) in again {
        let file = &batch.files[n];
        let mut check = open_resolved(new_check(file), file, Resolved::Missing { rel }, workspace)
            .check(file, workspace.beneath());
        check.needs_deleted = needs;
        files[n] = check;
    }
}

/// The deletions (file patches) that a creation at `rel` needs: the one of the file that
/// stands above it, or those of every file in the folder that stands at it; none when the
/// batch does not delete them all, or the folder holds anything but files and folders.
fn needed(root: &Root, rel: &Path, deleted: &HashMap<&Path, usize>) -> Vec<usize> {
    if let Some(file) = rel
        .ancestors()
        .skip(1)
        .find(|a| !a.as_os_str().is_empty() && deleted.contains_key(a))
    {
        return vec![deleted[file]];
    }
    match files_in(root, rel) {
        Some(files) if !files.is_empty() => files
            .iter()
            .map(|f| deleted.get(f.as_path()).copied())
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Every file in the folder `rel`, at any depth; none when it is not a folder, holds
/// anything but files and folders, holds an empty folder (which no deletion of the batch
/// empties: git refuses to remove it, and so does patchdeck), or more than [`MOST_FILES`].
fn files_in(root: &Root, rel: &Path) -> Option<Vec<PathBuf>> {
    if !matches!(root.stat(rel), Ok(Some(st)) if st.kind == Kind::Dir) {
        return None;
    }
    let (mut files, mut folders) = (Vec::new(), vec![rel.to_path_buf()]);
    while let Some(folder) = folders.pop() {
        let dir = root.dir(&folder).ok()?;
        let names = dir.list().ok()?;
        if names.is_empty() {
            return None;
        }
        for name in names {
            match dir.stat(&name).ok()?? {
                st if st.kind == Kind::Dir => folders.push(folder.join(&name)),
                st if st.kind == Kind::File => files.push(folder.join(&name)),
                _ => return None,
            }
            if files.len() > MOST_FILES {
                return None;
            }
        }
    }
    Some(files)
}
