//! The atomic commit: writing every file of a plan, or none.
//!
//! The steps: take the workspace lock; finish or roll back any earlier interrupted commit;
//! re-check that every target is still the bytes that were verified; write the journal; create
//! folders; stage each new content in a temporary file beside its target and fsync it; keep a
//! backup of each original (a hard link, or a copy); fsync folders; rename every staged file
//! over its target and remove deleted files; fsync folders; mark the journal committed; clean
//! up. Any failure before the mark rolls every file back; a crash leaves the journal for the
//! next run ([`recover`]). Nothing here follows a symbolic link.

pub mod failpoint;
pub mod history;
pub mod journal;
pub mod lock;
pub mod undo;

use crate::error::{Error, Result};
use crate::model::sha256_hex;
use crate::plan::{FileWrite, Plan, WriteKind};
use crate::workspace::{read_snapshot, Workspace};
use failpoint::{hit, Failpoint};
use journal::{remove_if_exists, sync_dir, Entry, Journal, Recovery, State};
use lock::Lock;
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, ErrorKind, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How a commit behaves; the CLI fills this from flags and the environment once.
#[derive(Debug)]
pub struct CommitOptions {
    /// How long to wait for another commit's lock.
    pub lock_wait: Duration,
    /// An armed failpoint, for fault-injection tests.
    pub failpoint: Option<Failpoint>,
    /// Keep the originals in the undo history (`patchdeck undo`) once committed.
    pub keep_history: bool,
    /// What is committed, as `undo` will name it (the batch's label or key).
    pub label: String,
    /// Refuse to write anything (`--read-only`): review works, every commit is refused.
    pub read_only: bool,
}

impl Default for CommitOptions {
    fn default() -> Self {
        CommitOptions {
            lock_wait: Duration::from_secs(10),
            failpoint: None,
            keep_history: true,
            label: String::new(),
            read_only: false,
        }
    }
}

/// One file the commit wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub rel: PathBuf,
    pub kind: WriteKind,
    /// SHA-256 of the new content (none for a deletion).
    pub sha256: Option<String>,
}

/// What a successful commit did.
#[derive(Clone, Debug, Default)]
pub struct Committed {
    pub written: Vec<Written>,
    /// An interrupted earlier commit that was recovered first.
    pub recovered: Option<Recovery>,
}

/// Commits a plan without blockers: every write happens, or none does.
pub fn commit(workspace: &Workspace, plan: &Plan, options: &CommitOptions) -> Result<Committed> {
    assert!(!plan.is_blocked(), "a blocked plan cannot be committed");
    if options.read_only {
        return Err(Error::ReadOnly);
    }
    let state_dir = workspace.state_dir();
    ensure_state_dir(&state_dir)?;
    let _lock = Lock::acquire(&state_dir, options.lock_wait)?;
    let recovered = recover_locked(workspace)?;
    let writes: Vec<&FileWrite> = plan
        .writes
        .iter()
        .filter(|w| {
            w.kind != WriteKind::Modify || w.before.as_ref().is_none_or(|b| *b.bytes != w.after)
        })
        .collect();
    for write in &writes {
        recheck(workspace, write)?;
    }
    let written = writes
        .iter()
        .map(|w| Written {
            rel: w.rel.clone(),
            kind: w.kind,
            sha256: (w.kind != WriteKind::Delete).then(|| sha256_hex(&w.after)),
        })
        .collect();
    if !writes.is_empty() {
        let mut tx = Transaction::new(workspace, &writes, options);
        if let Err((path, step, cause)) = tx.run(&writes) {
            let rolled_back = tx.journal.recover(workspace.root(), &state_dir);
            return Err(Error::CommitFailed {
                path: path.display().to_string(),
                step: step.to_owned(),
                cause: cause.to_string(),
                rolled_back: rolled_back.is_ok(),
            });
        }
    }
    Ok(Committed { written, recovered })
}

/// Rolls back or finishes an interrupted commit, if a journal says there was one.
pub fn recover(workspace: &Workspace, lock_wait: Duration) -> Result<Option<Recovery>> {
    let state_dir = workspace.state_dir();
    if !journal::journal_path(&state_dir).exists() {
        // No interrupted commit; a lock whose owner died is all that can be left.
        return Ok(lock::clear_stale(&state_dir).map(|pid| Recovery {
            stale_lock: Some(pid),
            ..Recovery::default()
        }));
    }
    let lock = Lock::acquire(&state_dir, lock_wait)?;
    let recovered = recover_locked(workspace)?;
    Ok(recovered.map(|r| Recovery {
        stale_lock: lock.took_over_from,
        ..r
    }))
}

fn recover_locked(workspace: &Workspace) -> Result<Option<Recovery>> {
    let state_dir = workspace.state_dir();
    let failed = |cause: io::Error| Error::RecoveryFailed {
        journal: journal::journal_path(&state_dir),
        cause: cause.to_string(),
    };
    let Some(journal) = Journal::load(&state_dir).map_err(failed)? else {
        return Ok(None);
    };
    journal
        .recover(workspace.root(), &state_dir)
        .map(Some)
        .map_err(failed)
}

fn ensure_state_dir(state_dir: &Path) -> Result<()> {
    if let Ok(meta) = fs::symlink_metadata(state_dir) {
        if !meta.is_dir() {
            return Err(Error::CommitFailed {
                path: state_dir.display().to_string(),
                step: "preparing patchdeck's state folder".into(),
                cause: "it exists and is not a folder".into(),
                rolled_back: true,
            });
        }
        return Ok(());
    }
    // The folder ignores itself, so patchdeck's state never shows in `git status`.
    fs::create_dir(state_dir)
        .and_then(|()| fs::write(state_dir.join(".gitignore"), "# patchdeck's own state\n*\n"))
        .map_err(|e| Error::CommitFailed {
            path: state_dir.display().to_string(),
            step: "creating patchdeck's state folder".into(),
            cause: e.to_string(),
            rolled_back: true,
        })
}

/// Checks, under the lock, that a target is still what was verified.
fn recheck(workspace: &Workspace, write: &FileWrite) -> Result<()> {
    let changed = |what: String| Error::ChangedOnDisk {
        path: write.rel.display().to_string(),
        what,
    };
    check_no_links(workspace.root(), &write.rel).map_err(changed)?;
    let abs = workspace.abs(&write.rel);
    match &write.before {
        None => match fs::symlink_metadata(&abs) {
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            _ => Err(changed(
                "it was created since the batch was verified".into(),
            )),
        },
        Some(before) => {
            let now = read_snapshot(&abs)
                .map_err(|e| changed(format!("it can no longer be read: {e}")))?;
            if now.stamp.size != before.stamp.size
                || (now.stamp.mtime_sec, now.stamp.mtime_nsec)
                    != (before.stamp.mtime_sec, before.stamp.mtime_nsec)
                || now.sha256 != before.sha256
            {
                return Err(changed(format!(
                    "it was edited since the batch was verified (SHA-256 {} then, {} now)",
                    short(&before.sha256),
                    short(&now.sha256)
                )));
            }
            Ok(())
        }
    }
}

fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}

/// Refuses a path any of whose existing components is a symbolic link.
fn check_no_links(root: &Path, rel: &Path) -> Result<(), String> {
    let mut at = root.to_path_buf();
    for component in rel.components() {
        at.push(component);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} became a symbolic link since the batch was verified",
                    at.strip_prefix(root).unwrap_or(&at).display()
                ))
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

type StepError = (PathBuf, &'static str, io::Error);

/// One commit in progress: its journal and what it has done.
struct Transaction<'a> {
    root: &'a Path,
    state_dir: PathBuf,
    failpoint: Option<&'a Failpoint>,
    journal: Journal,
}

impl<'a> Transaction<'a> {
    fn new(workspace: &'a Workspace, writes: &[&FileWrite], options: &'a CommitOptions) -> Self {
        let pid = std::process::id();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        // Zero-padded so that IDs sort in commit order (the undo history relies on it).
        let id = format!("{nanos:032x}-{pid}");
        let backup_dir = PathBuf::from(crate::workspace::STATE_DIR).join(format!("tx-{id}"));
        let mut planned_dirs = BTreeSet::new();
        let entries = writes
            .iter()
            .enumerate()
            .map(|(n, w)| {
                let staged = (w.kind != WriteKind::Delete).then(|| staged_name(&w.rel, &id, n));
                let backup = (w.kind != WriteKind::Create).then(|| backup_dir.join(n.to_string()));
                let created_dirs = if w.kind == WriteKind::Create {
                    missing_dirs(workspace.root(), &w.rel, &mut planned_dirs)
                } else {
                    Vec::new()
                };
                Entry {
                    path: w.rel.clone(),
                    kind: w.kind.into(),
                    staged,
                    backup,
                    pre_sha256: w.before.as_ref().map(|b| b.sha256.clone()),
                    post_sha256: (w.kind != WriteKind::Delete).then(|| sha256_hex(&w.after)),
                    created_dirs,
                }
            })
            .collect();
        Transaction {
            root: workspace.root(),
            state_dir: workspace.state_dir(),
            failpoint: options.failpoint.as_ref(),
            journal: Journal {
                version: 1,
                id,
                pid,
                state: State::Prepared,
                backup_dir,
                entries,
                label: options.label.clone(),
                keep_history: options.keep_history,
            },
        }
    }

    fn step(
        &self,
        step: &'static str,
        path: &Path,
        result: io::Result<()>,
    ) -> Result<(), StepError> {
        result
            .and_then(|()| hit(self.failpoint, step))
            .map_err(|e| (path.to_path_buf(), step_name(step), e))
    }

    fn run(&mut self, writes: &[&FileWrite]) -> Result<(), StepError> {
        let root = self.root;
        self.step(
            "journal",
            &self.state_dir,
            self.journal.save(&self.state_dir),
        )?;
        let backup_dir = root.join(&self.journal.backup_dir);
        self.step("mkdir", &backup_dir, fs::create_dir(&backup_dir))?;
        for entry in &self.journal.entries {
            for dir in &entry.created_dirs {
                self.step("mkdir", dir, fs::create_dir(root.join(dir)))?;
            }
        }
        let mut dirs = BTreeSet::new();
        for (entry, write) in self.journal.entries.iter().zip(writes) {
            let target = root.join(&entry.path);
            dirs.insert(target.parent().unwrap_or(root).to_path_buf());
            if let Some(staged) = &entry.staged {
                let mode = write
                    .mode
                    .or(write.before.as_ref().map(|b| b.stamp.mode))
                    .map(|m| m & 0o7777);
                self.step(
                    "stage",
                    &entry.path,
                    stage(&root.join(staged), &write.after, mode),
                )?;
            }
        }
        for entry in &self.journal.entries {
            if let Some(backup) = &entry.backup {
                let result = keep_backup(&root.join(&entry.path), &root.join(backup));
                self.step("backup", &entry.path, result)?;
            }
        }
        self.step("sync", &backup_dir, sync_dir(&backup_dir))?;
        for dir in &dirs {
            self.step("sync", dir, sync_dir(dir))?;
        }
        for entry in &self.journal.entries {
            let target = root.join(&entry.path);
            let result = match &entry.staged {
                Some(staged) => fs::rename(root.join(staged), &target),
                None => fs::remove_file(&target),
            };
            self.step("rename", &entry.path, result)?;
        }
        for dir in &dirs {
            self.step("sync", dir, sync_dir(dir))?;
        }
        // The failpoint comes first: "mark" is the last moment before the commit is decided.
        self.journal.state = State::Committed;
        let marked = hit(self.failpoint, "mark").and_then(|()| self.journal.save(&self.state_dir));
        if let Err(e) = marked {
            self.journal.state = State::Prepared;
            return Err((self.state_dir.clone(), step_name("mark"), e));
        }
        // Committed: from here on the new files stand; cleanup failures leave a committed
        // journal that the next run finishes.
        let _ = hit(self.failpoint, "cleanup")
            .and_then(|()| self.journal.recover(root, &self.state_dir).map(|_| ()));
        // As git does, a folder a deletion left empty goes too (best effort: the commit stands).
        for entry in &self.journal.entries {
            if entry.staged.is_none() {
                remove_empty_parents(root, &entry.path);
            }
        }
        Ok(())
    }
}

/// Removes the folders above `rel` that are now empty, innermost first, up to the root.
fn remove_empty_parents(root: &Path, rel: &Path) {
    let mut dir = rel.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if fs::remove_dir(root.join(d)).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn step_name(step: &str) -> &'static str {
    match step {
        "journal" => "writing the journal",
        "mkdir" => "creating a folder",
        "stage" => "staging the new content",
        "backup" => "keeping a backup of the original",
        "sync" => "syncing a folder to disk",
        "rename" => "moving the new content into place",
        "mark" => "marking the journal committed",
        _ => "cleaning up",
    }
}

/// `dir/.name.pd-ID-N.tmp`: beside its target, so the rename stays on one file system.
fn staged_name(rel: &Path, id: &str, n: usize) -> PathBuf {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    rel.with_file_name(format!(".{name}.pd-{id}-{n}.tmp"))
}

/// The folders above `rel` that do not exist yet, outermost first, each listed once per commit.
fn missing_dirs(root: &Path, rel: &Path, planned: &mut BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut dir = rel.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if root.join(d).exists() || !planned.insert(d.to_path_buf()) {
            break;
        }
        missing.push(d.to_path_buf());
        dir = d.parent();
    }
    missing.reverse();
    missing
}

/// Writes the new content to a fresh temporary file with the original's permissions, durably.
fn stage(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut file = File::options()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
    }
    file.sync_all()
}

/// Keeps the original's bytes at `backup`: a hard link when possible, else a durable copy.
fn keep_backup(target: &Path, backup: &Path) -> io::Result<()> {
    if fs::hard_link(target, backup).is_ok() {
        return Ok(());
    }
    remove_if_exists(backup)?;
    fs::copy(target, backup)?;
    File::open(backup)?.sync_all()
}
