//! What `apply --stage` did to git's index, kept so that `undo` can put the index back.
//!
//! Before staging, the index entry of every path (mode and object, or none) is read with
//! `git ls-files --stage`; after staging, again. `undo` restores the earlier entry of each path
//! whose entry is still the one patchdeck staged (`git update-index --index-info`), and names
//! every other path with why it was left: the person's later `git add` or `git rm --cached` is
//! never overwritten. Paths are relative to the workspace root here, and to the repository's
//! top level only when talking to git.

use super::{git, work_tree_prefix};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// One index entry: its mode (`100644`) and object ID.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub mode: String,
    pub object: String,
}

/// What one path's index entry was before `apply --stage` and what the staging made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Change {
    pub path: PathBuf,
    pub before: Option<Entry>,
    pub after: Option<Entry>,
    /// The path was in a merge conflict before (entries at stages 1 to 3): there is no one
    /// entry to restore.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unmerged: bool,
    /// The path was added with `git add -N` before: its entry reads as an empty file, which
    /// restoring would stage for real.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub intent_to_add: bool,
}

/// What is kept with a commit after `apply --stage`: the commit `HEAD` named then (undo
/// leaves the index alone if it moved) and each path's index change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Note {
    pub head: Option<String>,
    pub changes: Vec<Change>,
}

/// What git's index holds for paths, keyed by path relative to the root.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    entries: BTreeMap<PathBuf, Entry>,
    unmerged: Vec<PathBuf>,
    intent_to_add: Vec<PathBuf>,
    head: Option<String>,
}

/// Reads the index entries of `paths` (relative to `root`, which is `prefix` below the
/// repository's top level); `None` when git cannot.
pub fn snapshot(root: &Path, prefix: &str, paths: &[PathBuf]) -> Option<Snapshot> {
    let output = git(root)
        .args(["ls-files", "--stage", "-z", "--full-name", "--"])
        .args(paths)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let mut snapshot = Snapshot::default();
    for record in output.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // `MODE SP OBJECT SP STAGE TAB PATH`
        let text = String::from_utf8_lossy(record);
        let (meta, full) = text.split_once('\t')?;
        let mut fields = meta.split(' ');
        let (mode, object, stage) = (fields.next()?, fields.next()?, fields.next()?);
        let Some(rel) = full.strip_prefix(prefix) else {
            continue;
        };
        let rel = PathBuf::from(rel);
        if stage != "0" {
            snapshot.unmerged.push(rel);
            continue;
        }
        let entry = Entry {
            mode: mode.to_owned(),
            object: object.to_owned(),
        };
        snapshot.entries.insert(rel, entry);
    }
    // `git add -N` entries are told apart only by the status: not staged, added in the tree.
    let status = git(root)
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=no",
            "--",
        ])
        .args(paths)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    for (x, y, full) in super::porcelain_records(&status.stdout) {
        if (x, y) == (b' ', b'A') {
            if let Some(rel) = full.strip_prefix(prefix) {
                snapshot.intent_to_add.push(PathBuf::from(rel));
            }
        }
    }
    snapshot.head = git(root)
        .args(["rev-parse", "-q", "--verify", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    Some(snapshot)
}

/// What staging did, path by path, from the snapshots before and after it: every path whose
/// entry changed, whether git's status calls it staged or not.
pub fn note(before: &Snapshot, after: &Snapshot, paths: &[PathBuf]) -> Note {
    let changes = paths
        .iter()
        .map(|path| Change {
            path: path.clone(),
            before: before.entries.get(path).cloned(),
            after: after.entries.get(path).cloned(),
            unmerged: before.unmerged.contains(path),
            intent_to_add: before.intent_to_add.contains(path),
        })
        .filter(|c| c.unmerged || c.before != c.after)
        .collect();
    Note {
        head: after.head.clone(),
        changes,
    }
}

/// What `undo` did to the index.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restored {
    /// Paths whose index entry is back to what it was before `apply --stage`.
    pub restored: Vec<PathBuf>,
    /// Paths left as they are, each with why.
    pub left: Vec<super::NotStaged>,
    /// What git said when it failed, if it did.
    pub error: Option<String>,
}

/// Puts back the index entries `note` records, for each path whose entry is still the one
/// staging left; the others are named in [`Restored::left`]. Nothing is restored when `HEAD`
/// moved since (a commit of the staged files would be reverted in the index).
pub fn restore(root: &Path, note: &Note) -> Restored {
    let changes = &note.changes;
    let mut restored = Restored::default();
    let leave = |restored: &mut Restored, path: &Path, reason: &str| {
        restored.left.push(super::NotStaged {
            path: path.to_path_buf(),
            reason: reason.to_owned(),
        });
    };
    let paths: Vec<PathBuf> = changes.iter().map(|c| c.path.clone()).collect();
    let prefix = work_tree_prefix(root);
    let now = prefix.as_deref().and_then(|p| snapshot(root, p, &paths));
    let (Some(prefix), Some(now)) = (prefix, now) else {
        for change in changes {
            leave(
                &mut restored,
                &change.path,
                "git cannot read the index here",
            );
        }
        return restored;
    };
    if now.head != note.head {
        for change in changes {
            leave(
                &mut restored,
                &change.path,
                "HEAD moved since apply --stage (a commit was made): the index is left as it is",
            );
        }
        return restored;
    }
    let mut info = Vec::new();
    let mut pending = Vec::new();
    for change in changes {
        if change.intent_to_add {
            leave(
                &mut restored,
                &change.path,
                "it was added with git add -N before apply --stage; its index entry stays as it is (git restore --staged, then git add -N, puts it back)",
            );
        } else if change.unmerged {
            leave(
                &mut restored,
                &change.path,
                "it was in a merge conflict before apply --stage; resolve it with git",
            );
        } else if now.unmerged.contains(&change.path)
            || now.entries.get(&change.path) != change.after.as_ref()
        {
            leave(
                &mut restored,
                &change.path,
                "its index entry changed since apply --stage",
            );
        } else {
            let full = format!("{prefix}{}", change.path.display());
            let line = match &change.before {
                Some(entry) => format!("{} {}\t{full}\0", entry.mode, entry.object),
                // Mode 0 removes the entry; the object ID's length says SHA-1 or SHA-256.
                None => {
                    let width = change.after.as_ref().map_or(40, |e| e.object.len());
                    format!("0 {}\t{full}\0", "0".repeat(width))
                }
            };
            info.extend_from_slice(line.as_bytes());
            pending.push(change.path.clone());
        }
    }
    if pending.is_empty() {
        return restored;
    }
    match update_index(root, &info) {
        Ok(()) => restored.restored = pending,
        Err(error) => {
            for path in &pending {
                leave(&mut restored, path, "git update-index failed");
            }
            restored.error = Some(error);
        }
    }
    restored
}

fn update_index(root: &Path, info: &[u8]) -> Result<(), String> {
    let mut child = git(root)
        .args(["update-index", "-z", "--index-info"])
        // Writing the index is not optional: this command must take its lock.
        .env_remove("GIT_OPTIONAL_LOCKS")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let written = child
        .stdin
        .take()
        .expect("piped")
        .write_all(info)
        .map_err(|e| format!("cannot write to git update-index: {e}"));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("git update-index: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git update-index --index-info failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    written
}
