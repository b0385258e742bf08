//! git awareness: which target files carry uncommitted local changes, and staging what an apply
//! wrote.
//!
//! Everything here asks git itself (`git status --porcelain=v1 -z`, `git add`), so patchdeck
//! never reads git's object store. When git is missing or the root is not inside a work tree,
//! [`status`] answers `None` and nothing is marked: git awareness is a courtesy, never a
//! requirement. What this module does not own: deciding whether a write may happen (a dirty file
//! is a note, not a conflict) and showing the note (the report and the reviewer do that).

pub mod index;
pub mod sealed;
pub mod worktree;

use crate::problem::ProblemKind;
use crate::verify::{Problem, Verification};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What git says about the files under a workspace root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitStatus {
    /// Paths relative to the workspace root, with how they differ from `HEAD`.
    pub dirty: BTreeMap<PathBuf, &'static str>,
}

pub(crate) fn git(root: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(root)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        // A user's pager or colour settings must not leak into porcelain output.
        .env("GIT_PAGER", "cat")
        // Reading the status must never take index.lock (git refreshes the index otherwise),
        // which would make a concurrent `git commit` in the same repository fail.
        .env("GIT_OPTIONAL_LOCKS", "0")
        // Paths are names, never patterns: a file named `*.txt` must not stage every text file.
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    command
}

/// The uncommitted changes under `root`, or `None` when git is missing or `root` is not inside
/// a git work tree.
///
/// git is not let refresh its index here (`GIT_OPTIONAL_LOCKS=0`, as for every git command
/// patchdeck runs): a stale index (a copied or touched tree) makes git read the files it
/// cannot trust by their stat data, on every run, until the person's own `git status`
/// refreshes it. Taking the index's lock to refresh it would make a `git commit` the person or
/// their agent runs meanwhile fail.
pub fn status(root: &Path) -> Option<GitStatus> {
    let prefix = work_tree_prefix(root)?;
    let output = git(root)
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(parse_porcelain(&output.stdout, &prefix))
}

/// Where `root` sits in its git work tree (`sub/`, or empty at the top), or `None` when git is
/// missing or `root` is not inside a work tree.
pub(crate) fn work_tree_prefix(root: &Path) -> Option<String> {
    // git finds its work tree by looking for `.git` in the root and every folder above (the
    // environment that could point elsewhere is removed, see [`git`]): with none, the answer
    // is known without starting git, which costs a few milliseconds.
    if root
        .ancestors()
        .all(|folder| std::fs::symlink_metadata(folder.join(".git")).is_err())
    {
        return None;
    }
    let output = git(root)
        .args(["rev-parse", "--is-inside-work-tree", "--show-prefix"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some("true") {
        return None;
    }
    Some(lines.next().unwrap_or("").to_owned())
}

/// The records of `git status --porcelain=v1 -z`: both status letters and the path, relative
/// to the repository's top level (a rename's source path is skipped).
pub(crate) fn porcelain_records(bytes: &[u8]) -> Vec<(u8, u8, String)> {
    let mut out = Vec::new();
    let mut records = bytes.split(|&b| b == 0).filter(|r| !r.is_empty());
    while let Some(record) = records.next() {
        if record.len() < 4 {
            continue;
        }
        let (x, y) = (record[0], record[1]);
        if x == b'R' || x == b'C' {
            records.next();
        }
        out.push((x, y, String::from_utf8_lossy(&record[3..]).into_owned()));
    }
    out
}

/// Reads `git status --porcelain=v1 -z` output. Its paths are relative to the repository's top
/// level; `prefix` (from `git rev-parse --show-prefix`) is where the workspace root sits in it.
pub fn parse_porcelain(bytes: &[u8], prefix: &str) -> GitStatus {
    let mut dirty = BTreeMap::new();
    for (x, y, path) in porcelain_records(bytes) {
        let how = match (x, y) {
            (b'?', b'?') => "untracked",
            (b'!', b'!') => continue,
            (_, b'D') | (b'D', _) => "deleted",
            (b' ', _) => "modified",
            (_, b' ') => "staged",
            _ => "modified",
        };
        if let Some(rel) = path.strip_prefix(prefix) {
            dirty.insert(PathBuf::from(rel), how);
        }
    }
    GitStatus { dirty }
}

/// Adds an `uncommitted_changes` note to every target file that git reports as changed, so the report
/// and the reviewer show it. The note does not block: the batch was verified against the file
/// as it is now, but writing it mixes the batch's changes with work git has not recorded.
pub fn mark_uncommitted(verification: &mut Verification, status: &GitStatus) {
    for file in &mut verification.files {
        let Some(rel) = file.resolved.as_ref().map(|r| r.rel().to_path_buf()) else {
            continue;
        };
        let Some(how) = status.dirty.get(&rel) else {
            continue;
        };
        if file
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::UncommittedChanges)
        {
            continue;
        }
        let message = match *how {
            "untracked" => "this file is not tracked by git: writing it leaves no copy in git to go back to".to_owned(),
            how => format!(
                "this file has uncommitted changes in git ({how}); they stay, and the batch's changes are written among them (a whole-file replacement replaces them), so git will show the two together: commit or stash them first to keep them apart"
            ),
        };
        file.problems
            .push(Problem::note(ProblemKind::UncommittedChanges, message));
    }
}

/// What `apply --stage` did with the files it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Staging {
    /// Paths (relative to the workspace root) whose written content is in git's index.
    pub staged: Vec<PathBuf>,
    /// Paths written but not staged, each with why.
    pub not_staged: Vec<NotStaged>,
    /// What git said when a command failed, if one did.
    pub error: Option<String>,
    /// How the index entries of the written paths changed, for `undo` to put back; `None`
    /// when git could not say (then `undo` cannot restore the index).
    #[serde(skip)]
    pub index: Option<index::Note>,
}

/// A written file that is not staged, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotStaged {
    pub path: PathBuf,
    pub reason: String,
}

/// Stages `paths` (relative to `root`): `git add` for files that exist, `git rm --cached` for
/// ones that were deleted. Then asks git which of them are staged, since `git add` stages what
/// it can and fails for the rest (a path a `.gitignore` matches): each path not staged is
/// named with the reason git's status gives.
pub fn stage(root: &Path, paths: &[PathBuf]) -> Staging {
    let (present, gone): (Vec<&PathBuf>, Vec<&PathBuf>) =
        paths.iter().partition(|p| root.join(p).exists());
    let prefix = work_tree_prefix(root);
    let index_before = prefix
        .as_deref()
        .and_then(|p| index::snapshot(root, p, paths));
    let run = |args: &[&str], list: &[&PathBuf]| -> Result<(), String> {
        if list.is_empty() {
            return Ok(());
        }
        let output = git(root)
            .args(args)
            .arg("--")
            .args(list)
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    };
    let errors: Vec<String> = [
        run(&["add"], &present),
        run(&["rm", "--cached", "--quiet", "--ignore-unmatch"], &gone),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    let error = (!errors.is_empty()).then(|| errors.join("; "));
    let records = prefix.as_deref().and_then(|prefix| {
        let output = git(root)
            .args([
                "status",
                "--porcelain=v1",
                "-z",
                "--ignored=traditional",
                "--untracked-files=all",
                "--",
            ])
            .args(paths)
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(
            porcelain_records(&output.stdout)
                .into_iter()
                .filter_map(|(x, y, path)| {
                    path.strip_prefix(prefix).map(|rel| (x, y, rel.to_owned()))
                })
                .collect::<Vec<_>>(),
        )
    });
    let Some(records) = records else {
        // No status to go by: git is missing, or the root is not in a work tree.
        let reason = error
            .clone()
            .unwrap_or_else(|| "not inside a git work tree".to_owned());
        return Staging {
            staged: Vec::new(),
            not_staged: paths
                .iter()
                .map(|p| NotStaged {
                    path: p.clone(),
                    reason: reason.clone(),
                })
                .collect(),
            error,
            index: None,
        };
    };
    let mut staging = Staging {
        error,
        ..Staging::default()
    };
    for path in paths {
        let rel = path.to_string_lossy();
        let record = records
            .iter()
            .find(|(_, _, p)| *p == rel || (p.ends_with('/') && rel.starts_with(p.as_str())));
        let reason = match record {
            // Not listed: the index holds what was written (or it equals HEAD).
            None => None,
            Some((b'!', b'!', _)) => Some("ignored: a .gitignore rule matches it"),
            Some((b'?', b'?', _)) => Some("untracked: git add did not take it"),
            Some((_, b' ', _)) => None,
            Some(_) => Some("changes in the work tree are not in the index"),
        };
        match reason {
            None => staging.staged.push(path.clone()),
            Some(reason) => staging.not_staged.push(NotStaged {
                path: path.clone(),
                reason: reason.to_owned(),
            }),
        }
    }
    let index_after = prefix
        .as_deref()
        .and_then(|p| index::snapshot(root, p, paths));
    if let (Some(before), Some(after)) = (index_before, index_after) {
        staging.index = Some(index::note(&before, &after, paths));
    }
    staging
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_paths_are_taken_relative_to_the_workspace_root() {
        let out = b" M sub/a.txt\0M  sub/b.txt\0?? sub/new.txt\0R  sub/c.txt\0sub/old.txt\0 M other.txt\0 D sub/gone.txt\0";
        let status = parse_porcelain(out, "sub/");
        let got: Vec<(String, &str)> = status
            .dirty
            .iter()
            .map(|(p, h)| (p.display().to_string(), *h))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a.txt".to_owned(), "modified"),
                ("b.txt".to_owned(), "staged"),
                ("c.txt".to_owned(), "staged"),
                ("gone.txt".to_owned(), "deleted"),
                ("new.txt".to_owned(), "untracked"),
            ]
        );
    }
}
