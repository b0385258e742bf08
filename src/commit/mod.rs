//! The atomic commit: writing every file of a plan, or none.
//!
//! The steps: take the workspace lock; finish or roll back any earlier interrupted commit;
//! re-check that every target is still the bytes that were verified; write the journal; create
//! folders; stage each new content in a temporary file beside its target and start its
//! writeback (on several threads: the disk, not the processor, is what a commit waits on);
//! fsync every staged file; fsync folders; check that every folder is still where it was;
//! exchange every staged file with its target ([`crate::fs::platform::exchange`]: the
//! original, now at the staged name, is the backup; where the file system cannot exchange, a hard link or a copy
//! keeps it) and move deleted files aside, each checked once more; fsync folders; mark the
//! journal committed; clean up (the originals go to the undo history). Each folder is opened
//! once per commit ([`crate::fs::Folders`]). Any failure
//! before the mark rolls every file back; a crash leaves the journal for the next run
//! ([`recover`]). Every file operation goes through [`crate::fs::beneath`]: nothing here follows a
//! symbolic link, even one that appears while the commit runs.

mod exchange;
pub mod history;
pub mod identity;
pub mod journal;
mod recover;
mod reshape;
pub mod retired;
pub mod settle;
mod stage;
pub mod undo;
mod unfinished;

use crate::checksum::Checksum;
use crate::error::{Error, Result};
use crate::failpoint::{hit, Failpoint, Step};
use crate::fs::Stamp;
use crate::fs::{Folders, Kind, RepoPath, Root};
use crate::plan::{FileWrite, Plan, WriteKind};
use crate::state::lock::Lock;
use crate::state::State as StateFolder;
use crate::workspace::Workspace;
use exchange::put_all_in_place;
use journal::{original_name, staged_name, Entry, EntryKind, Journal, State};
pub use recover::{pending, recover, recover_counted};
use recover::{recover_locked, removed_lock, state_failed, Finish};
use settle::Recovery;
pub use stage::{as_changed, Changed, Make, NewContents};
use stage::{keeps_permissions, still_verified, sync_staged, OpenBudget, Outcome, Staged, Staging};
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
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
    /// This commit is an undo restoring the newest record, marked as being undone: the
    /// recovery before it must not take that mark for one an earlier undo left.
    pub undoing: bool,
    /// Compute each written file's SHA-256 ([`Written::sha256`]) for whoever shows it: what
    /// `apply` prints, the JSON report, the reviewer. Off, the commit hashes nothing with
    /// SHA-256 (its own checks use the [`Checksum`]).
    pub sha256: bool,
}

impl Default for CommitOptions {
    fn default() -> Self {
        CommitOptions {
            lock_wait: Duration::from_secs(10),
            failpoint: None,
            keep_history: true,
            label: String::new(),
            read_only: false,
            undoing: false,
            sha256: true,
        }
    }
}

/// One file the commit wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub rel: RepoPath,
    pub kind: WriteKind,
    /// SHA-256 of the new content (none for a deletion, or when [`CommitOptions::sha256`] is
    /// off).
    pub sha256: Option<String>,
}

/// What a successful commit did.
#[derive(Clone, Debug, Default)]
pub struct Committed {
    pub written: Vec<Written>,
    /// An interrupted earlier commit that was recovered first.
    pub recovered: Option<Recovery>,
    /// The ID the commit is kept under in the undo history (none when it is not kept, or
    /// nothing was written).
    pub history_id: Option<String>,
    /// Files written whose owner or group could not be kept (this process may not give a
    /// file to another user, or to a group it is not in): they now belong to the writer, as
    /// with any editor. Said, never silent.
    pub owner_not_kept: Vec<PathBuf>,
    /// What a person should hear that did not fail the commit: state patchdeck did not make
    /// and ignored, an undo record that could not be kept.
    pub warnings: Vec<String>,
}

/// Commits a plan without blockers: every write happens, or none does. Each new content is the
/// plan's own.
pub fn commit(workspace: &Workspace, plan: &Plan, options: &CommitOptions) -> Result<Committed> {
    commit_with(workspace, plan, NewContents::Planned, options)
}

/// [`commit`], taking each new content from `contents`: the plan's own, or made as each file is
/// staged from the file as the commit reads it under its lock (see [`NewContents`]).
pub fn commit_with(
    workspace: &Workspace,
    plan: &Plan,
    contents: NewContents<'_>,
    options: &CommitOptions,
) -> Result<Committed> {
    assert!(!plan.is_blocked(), "a blocked plan cannot be committed");
    assert!(
        matches!(contents, NewContents::Made(_))
            || plan.contents == crate::plan::Contents::Computed,
        "a plan made without its contents commits only with each made as its file is staged"
    );
    if options.read_only {
        return Err(Error::ReadOnly);
    }
    // The commit walks its own folders, each held open through it: the folders resolving
    // kept open are let go, so that its descriptor budget is its own.
    workspace.close_folders();
    let root = open_root(workspace)?;
    let writes = to_write(&root, plan, contents);
    if writes.is_empty() {
        // Nothing to write: the disk is not touched, not even patchdeck's own folder.
        return Ok(Committed::default());
    }
    let state = StateFolder::ensure(&root).map_err(|e| state_failed(workspace, e))?;
    let lock = Lock::acquire(state.dir(), options.lock_wait)?;
    let mut warnings: Vec<String> = lock.removed_foreign.iter().map(removed_lock).collect();
    let recovered = recover_earlier(workspace, &root, &state, options)?;
    if let Some(recovered) = &recovered {
        warnings.extend(recovered.warnings.iter().cloned());
    }
    // Every target looked at under the lock before the journal: still there (or still
    // absent), and as verified as far as its stat can tell; its bytes are checked as it is
    // staged. Each original's checksum, for the journal, is computed here, on every core.
    // A file becoming a folder, or the reverse: the deletions that clear the way go first.
    let (writes, shapes) =
        reshape::order(&root, writes).map_err(|e| failed_before(&e, "looking at the folders"))?;
    let folders = Folders::new(&root);
    let pre = crate::parallel::map(&writes.iter().zip(&shapes).collect::<Vec<_>>(), |(w, s)| {
        recheck(&folders, w, s)
    })
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    let sequence = next_sequence(workspace, &state)?;
    let mut tx = Transaction::new(workspace, &writes, &shapes, &pre, sequence, options);
    let ran = tx.run(&folders, &state, &writes, contents, options.sha256);
    let written = match ran {
        Ok((written, cleanup)) => {
            warnings.extend(cleanup);
            written
        }
        Err(failed) => return Err(roll_back(&tx.journal, &root, &state, failed)),
    };
    let kept = options.keep_history && !written.is_empty() && tx.archived;
    Ok(Committed {
        history_id: kept.then(|| tx.journal.id.clone()),
        written,
        recovered,
        owner_not_kept: tx.owner_not_kept,
        warnings,
    })
}

/// The plan's writes the commit makes: a write that changes nothing, bytes or permissions, is
/// left out. With contents made as each file is staged ([`NewContents::Made`]), one that may
/// be its file as it is is made now, on every core, to find out.
fn to_write<'p>(root: &Root, plan: &'p Plan, contents: NewContents<'_>) -> Vec<&'p FileWrite> {
    match contents {
        // A write that changes only the permissions (a mode change, or its undo) is one.
        NewContents::Planned => plan
            .writes
            .iter()
            .filter(|w| match (w.kind, &w.before) {
                (WriteKind::Modify, Some(b)) => {
                    w.after != **b.bytes() || !keeps_permissions(w, &b.stamp)
                }
                _ => true,
            })
            .collect(),
        // Each content is made as its file is staged; one that may be the file as it is is
        // made now to find out (see `FileWrite::may_be_unchanged`). Staging checks every file
        // again under the lock, whatever is found here, and leaves out one found unchanged.
        NewContents::Made(make) => {
            let left_as_is = crate::parallel::map(&plan.writes, |w| {
                w.may_be_unchanged && made_unchanged(root, w, make)
            });
            plan.writes
                .iter()
                .zip(left_as_is)
                .filter_map(|(w, as_is)| (!as_is).then_some(w))
                .collect()
        }
    }
}

/// Finishes or rolls back what an interrupted earlier commit or undo left, under the lock,
/// before this commit looks at any target. An undo's own commit finishes the live journal
/// alone: the undoing mark it finds is its own undo's (see [`CommitOptions::undoing`]).
fn recover_earlier(
    workspace: &Workspace,
    root: &Root,
    state: &StateFolder,
    options: &CommitOptions,
) -> Result<Option<Recovery>> {
    let finish = match options.undoing {
        true => Finish::Journal,
        false => Finish::Undo,
    };
    recover_locked(
        workspace,
        root,
        state,
        finish,
        &journal::Progress::default(),
    )
}

/// The error of a commit that failed before writing anything.
fn failed_before(e: &io::Error, step: &str) -> Error {
    Error::CommitFailed {
        path: String::new(),
        step: step.into(),
        cause: e.to_string(),
        rolled_back: true,
    }
}

/// The sequence number the commit's ID begins with (see [`history::next_sequence`]), read
/// under the lock; a history that cannot be read fails the commit before anything is written.
fn next_sequence(workspace: &Workspace, state: &StateFolder) -> Result<u64> {
    history::next_sequence(state).map_err(|e| Error::CommitFailed {
        path: history::history_dir(&workspace.state_dir())
            .display()
            .to_string(),
        step: "reading the undo history".into(),
        cause: e.to_string(),
        rolled_back: true,
    })
}

/// Rolls back a commit that `failed` at one of its steps, from its `journal`, and says what
/// became of it: a target found changed as it was staged, when the rollback put back every
/// file; otherwise the failure, with what the rollback did (the files another program changed
/// meanwhile, named and left as it made them) or how the rollback itself failed.
fn roll_back(journal: &Journal, root: &Root, state: &StateFolder, failed: StepError) -> Error {
    let (path, step, cause) = failed;
    let rolled_back = journal.recover(root, state);
    // Rolled back means the journal is gone and no byte of this commit remains; a file
    // another program changed meanwhile is named, and left as that program made it.
    let whole = rolled_back.is_ok();
    if let (Some(changed), Ok(r)) = (stage::as_changed(&cause), &rolled_back) {
        if r.left_alone.is_empty() {
            // A target found changed as it was staged: nothing was written to it, or to
            // any other.
            return Error::ChangedOnDisk {
                path: path.display().to_string(),
                what: changed.what.clone(),
            };
        }
    }
    let cause = match &rolled_back {
        Ok(r) if !r.left_alone.is_empty() => format!(
            "{cause}; left as another program changed them during the commit: {}{}",
            join_paths(&r.left_alone),
            match r.kept.is_empty() {
                true => String::new(),
                false => format!(
                    "; the content the commit had moved aside is kept as {}",
                    join_paths(&r.kept)
                ),
            }
        ),
        Ok(_) => cause.to_string(),
        Err(e) => format!("{cause}; then rolling back failed: {e}"),
    };
    Error::CommitFailed {
        path: path.display().to_string(),
        step: step.to_owned(),
        cause,
        rolled_back: whole,
    }
}

/// Whether `write`'s content, made from its target as it is now (still the verified bytes),
/// is that target, bytes and permissions. Any doubt (the file changed, or cannot be read)
/// answers no: the write goes on to staging, which says what is wrong.
fn made_unchanged(root: &Root, write: &FileWrite, make: &Make<'_>) -> bool {
    let Some(before) = &write.before else {
        return false;
    };
    if !before.is_released() {
        // The file as verified is still held (the reviewer's): judged against it, as a plan
        // made with its contents judges every write, whatever the disk holds now. A write
        // that is left out writes nothing over a file changed since; one that is written is
        // checked against the disk as it is staged.
        return make(write, Some(before)) == **before.bytes()
            && keeps_permissions(write, &before.stamp);
    }
    let Ok(Some(now)) = crate::fs::read_beneath(root, &write.rel) else {
        return false;
    };
    still_verified(before, &now)
        && make(write, Some(&now)) == **now.bytes()
        && keeps_permissions(write, &now.stamp)
}

/// Opens the workspace root for the commit's file operations.
pub(crate) fn open_root(workspace: &Workspace) -> Result<Root> {
    Root::open(workspace.root()).map_err(|e| Error::Root {
        root: workspace.root().to_path_buf(),
        message: e.to_string(),
    })
}

/// Checks, under the lock and before anything is written, that a target is still the file
/// that was verified as far as its `lstat` tells: a regular file reached through real
/// folders, with the size, modification time, permissions and link count that were verified
/// (or, for a file to create, still nothing). Its bytes are checked when staging reads it.
/// Returns the original's checksum, for the journal (none for a file to create). A creation
/// under a file the commit deletes is not looked at (that deletion's own check looks at the
/// file); one where a folder stands that the commit's deletions empty finds that folder.
fn recheck(
    folders: &Folders,
    write: &FileWrite,
    shape: &reshape::Reshape,
) -> Result<Option<Checksum>> {
    let root = folders.root();
    let changed = |what: String| Error::ChangedOnDisk {
        path: write.rel.display().to_string(),
        what,
    };
    // A folder on the way deleted, or replaced by a link or a file, is a change; any other
    // error (the process's limit on open files, the disk) fails the commit as I/O errors do.
    let unreachable = |e: io::Error| match first_link(root, &write.rel) {
        Some(link) => changed(format!(
            "{} became a symbolic link since the batch was verified",
            link.display()
        )),
        None if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            changed(format!("it can no longer be reached: {e}"))
        }
        None => Error::CommitFailed {
            path: write.rel.display().to_string(),
            step: "checking the file before writing anything".into(),
            cause: e.to_string(),
            rolled_back: true,
        },
    };
    if write.kind == WriteKind::Create && shape.home.is_some() {
        return Ok(None);
    }
    let Some(before) = &write.before else {
        return match folders.stat(&write.rel) {
            Ok(None) => Ok(None),
            Ok(Some(st)) if shape.replaces_folder && st.kind == Kind::Dir => Ok(None),
            Ok(Some(_)) => Err(changed(
                "it was created since the batch was verified".into(),
            )),
            Err(e) => Err(unreachable(e)),
        };
    };
    let (dir, name) = folders.parent_of(&write.rel).map_err(unreachable)?;
    let is = match dir.stat(name).map_err(unreachable)? {
        None => {
            return Err(changed(
                "it was deleted since the batch was verified".into(),
            ))
        }
        Some(st) if st.kind == Kind::Symlink => {
            return Err(changed(
                "it became a symbolic link since the batch was verified".into(),
            ))
        }
        Some(st) if st.kind != Kind::File => {
            return Err(changed("it is no longer a regular file".into()))
        }
        Some(st) => st.stamp,
    };
    let was = &before.stamp;
    if (is.size, is.mtime_sec, is.mtime_nsec) != (was.size, was.mtime_sec, was.mtime_nsec) {
        // Said with the hashes, as a person compares them: the file is read for the message.
        let now = identity::read_all(&dir, name)
            .map_err(|e| changed(format!("it can no longer be read: {e}")))?;
        return Err(changed(stage::edited(before, &now)));
    }
    if let Some(what) = stage::permissions_changed(was, &is) {
        return Err(changed(what));
    }
    Ok(Some(before.checksum()))
}

/// The first component of `rel` that is a symbolic link, if any.
fn first_link(root: &Root, rel: &Path) -> Option<PathBuf> {
    let mut at = PathBuf::new();
    for component in rel.components() {
        at.push(component);
        match root.stat(&at) {
            Ok(Some(st)) if st.kind == Kind::Symlink => return Some(at),
            Ok(Some(_)) => {}
            _ => return None,
        }
    }
    None
}

fn join_paths(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

type StepError = (PathBuf, &'static str, io::Error);

/// Threads that stage and sync files: the disk takes several requests at once, and each
/// thread mostly waits on it.
const IO_THREADS: usize = 16;

/// One commit in progress: its journal and what it has done.
struct Transaction<'a> {
    failpoint: Option<&'a Failpoint>,
    journal: Journal,
    /// Files staged without their original's owner or group (see [`Committed`]).
    owner_not_kept: Vec<PathBuf>,
    /// Whether the undo history keeps (or, after a cleanup left for the next command, will
    /// keep) the commit's originals.
    archived: bool,
}

impl<'a> Transaction<'a> {
    /// The commit's journal as it is first written: every file with its staged and original
    /// names and its original's checksum (`pre`), before anything is staged.
    fn new(
        workspace: &'a Workspace,
        writes: &[&FileWrite],
        shapes: &[reshape::Reshape],
        pre: &[Option<Checksum>],
        sequence: u64,
        options: &'a CommitOptions,
    ) -> Self {
        let pid = std::process::id();
        let nanos = crate::failpoint::now_nanos();
        // The sequence number first, zero-padded, so that IDs sort in commit order whatever
        // the clock says (the undo history relies on it); the time and pid keep them unique.
        let id = format!("{sequence:016x}{nanos:016x}-{pid}");
        let mut planned_dirs = BTreeSet::new();
        let entries: Vec<Entry> = writes
            .iter()
            .enumerate()
            .zip(pre)
            .zip(shapes)
            .map(|(((n, w), pre), shape)| Entry {
                path: w.rel.to_path_buf(),
                kind: w.kind.into(),
                staged: (w.kind != WriteKind::Delete)
                    .then(|| shape.place(staged_name(&w.rel, &id, n))),
                backup: (w.kind != WriteKind::Create)
                    .then(|| shape.place(original_name(&w.rel, &id, n))),
                pre_hash: pre.map(Checksum::hex),
                post_hash: None,
                pre_mode: None,
                post_mode: None,
                created_dirs: match w.kind {
                    WriteKind::Create if shape.home.is_some() => shape.created.clone(),
                    WriteKind::Create => missing_dirs(workspace.root(), &w.rel, &mut planned_dirs),
                    _ => Vec::new(),
                },
                removed_dirs: shape.removed.clone(),
                removed_dir_modes: shape.removed_modes.clone(),
            })
            .collect();
        // Only a commit that turns a file into a folder or the reverse writes version 4.
        let version = match entries.iter().any(Entry::is_across) {
            true => journal::VERSION_ACROSS,
            false => journal::VERSION,
        };
        Transaction {
            owner_not_kept: Vec::new(),
            archived: false,
            failpoint: options.failpoint.as_ref(),
            journal: Journal {
                version,
                id,
                pid,
                state: State::Staging,
                entries,
                label: options.label.clone(),
                keep_history: options.keep_history,
            },
        }
    }

    fn step(&self, step: Step, path: &Path, result: io::Result<()>) -> Result<(), StepError> {
        result
            .and_then(|()| hit(self.failpoint, step))
            .map_err(|e| (path.to_path_buf(), step.doing(), e))
    }

    /// Runs the commit from its first journal to its cleanup; what it wrote, and what its
    /// cleanup could not do. An error leaves the journal for [`Journal::recover`] to roll back.
    fn run(
        &mut self,
        folders: &Folders,
        state: &StateFolder,
        writes: &[&FileWrite],
        contents: NewContents<'_>,
        sha256: bool,
    ) -> Result<(Vec<Written>, Vec<String>), StepError> {
        let root = folders.root();
        let state_rel = state.dir().rel().to_path_buf();
        self.step(Step::Journal, &state_rel, self.journal.save(state))?;
        self.make_folders(root)?;
        let staged = self.stage_all(folders, writes, contents, sha256)?;
        self.sync_all_staged(folders, &staged)?;
        if staged
            .iter()
            .all(|s| matches!(s.outcome, Outcome::Unchanged))
        {
            self.withdraw(root, state, &state_rel)?;
            return Ok((Vec::new(), Vec::new()));
        }
        let (written, found) = self.record_staged(writes, staged);
        self.sync_dirs(folders, &self.touched_dirs(false))?;
        self.mark_prepared(state, &state_rel)?;
        self.exchange(folders, writes, &found, &state_rel)?;
        self.sync_dirs(folders, &self.touched_dirs(true))?;
        self.mark_committed(state, &state_rel)?;
        // Committed: from here on the new files stand.
        let warnings = self.clean_up(root, state);
        Ok((written, warnings))
    }

    /// Creates the folders the journal lists for new files, outermost first, each one step
    /// (and one hit of its failpoint). A creation where a deleted file stands makes its
    /// folders later, as it is put in place.
    fn make_folders(&self, root: &Root) -> Result<(), StepError> {
        for entry in self.journal.entries.iter().filter(|e| !e.is_across()) {
            for dir in &entry.created_dirs {
                let made = root
                    .parent_of(dir)
                    .and_then(|(parent, name)| parent.mkdir(name));
                self.step(Step::Mkdir, dir, made)?;
            }
        }
        Ok(())
    }

    /// Stages every write on several threads: each target read and checked, its new content
    /// made and written beside it, its writeback started. What staging found and did for each
    /// write, in the order of `writes`; the staging failpoint is hit once per file written.
    fn stage_all(
        &self,
        folders: &Folders,
        writes: &[&FileWrite],
        contents: NewContents<'_>,
        sha256: bool,
    ) -> Result<Vec<Staged>, StepError> {
        // Every target's folder is open already (the re-check opened them); the folders made
        // for new files open as they are staged into.
        let made: usize = self
            .journal
            .entries
            .iter()
            .map(|e| e.created_dirs.len())
            .sum();
        let staging = Staging {
            folders,
            contents,
            budget: &OpenBudget::new(folders.open_count() + made, IO_THREADS),
            sha256,
        };
        let slots: Vec<OnceLock<Staged>> = writes.iter().map(|_| OnceLock::new()).collect();
        let order: Vec<usize> = (0..writes.len()).collect();
        crate::parallel::try_each(&order, IO_THREADS, |&n| {
            let entry = &self.journal.entries[n];
            let staged = staging
                .stage(writes[n], entry.staged.as_deref())
                .map_err(|e| (entry.path.to_path_buf(), Step::Stage.doing(), e))?;
            let wrote = matches!(staged.outcome, Outcome::Written { .. });
            let _ = slots[n].set(staged);
            if wrote {
                self.step(Step::Stage, &entry.path, Ok(()))?;
            }
            Ok(())
        })?;
        Ok(slots
            .into_iter()
            .map(|slot| slot.into_inner().expect("every file staged"))
            .collect())
    }

    /// Makes every staged file durable, on several threads, through the descriptor staging
    /// kept where it could: most of them are already written out by the time their fsync
    /// comes.
    fn sync_all_staged(&self, folders: &Folders, staged: &[Staged]) -> Result<(), StepError> {
        let to_sync: Vec<(&Path, Option<&File>)> = self
            .journal
            .entries
            .iter()
            .zip(staged)
            .filter_map(|(entry, staged)| match &staged.outcome {
                Outcome::Written { file, .. } => Some((entry.staged.as_deref()?, file.as_ref())),
                _ => None,
            })
            .collect();
        crate::parallel::try_each(&to_sync, IO_THREADS, |&(path, file)| {
            sync_staged(folders, path, file).map_err(|e| (path.to_owned(), Step::Stage.doing(), e))
        })
    }

    /// Removes the journal of a commit whose every new content is its file as it is: there is
    /// nothing to write, and the journal (still staging, nothing staged) has nothing to undo.
    fn withdraw(
        &self,
        root: &Root,
        state: &StateFolder,
        state_rel: &Path,
    ) -> Result<(), StepError> {
        self.journal
            .recover(root, state)
            .map(drop)
            .map_err(|e| (state_rel.to_path_buf(), Step::Journal.doing(), e))
    }

    /// Writes what staging did into the journal (not yet saved): each new content's checksum,
    /// by which recovery tells the commit's files from another program's, the permissions of a
    /// write of them alone, and each file found unchanged left out. Notes the files whose
    /// owner could not be kept. Returns what is written, for the report, and each target as
    /// staging found it, for the exchange to find again. The staged files' descriptors close
    /// here.
    fn record_staged(
        &mut self,
        writes: &[&FileWrite],
        staged: Vec<Staged>,
    ) -> (Vec<Written>, Vec<Option<Stamp>>) {
        let mut written = Vec::new();
        let mut found = Vec::with_capacity(staged.len());
        for ((entry, write), staged) in self.journal.entries.iter_mut().zip(writes).zip(staged) {
            found.push(staged.found);
            let sha256 = match staged.outcome {
                Outcome::Written {
                    checksum,
                    sha256,
                    owner_kept,
                    mode_on_disk,
                    ..
                } => {
                    entry.post_hash = Some(checksum.hex());
                    // The permissions alone change: recovery tells the two apart by them.
                    if let (Some(post), Some(found)) = (mode_on_disk, staged.found) {
                        entry.pre_mode = Some(found.mode & 0o7777);
                        entry.post_mode = Some(post);
                    }
                    if !owner_kept {
                        self.owner_not_kept.push(entry.path.to_path_buf());
                    }
                    sha256
                }
                Outcome::Checked => None,
                Outcome::Unchanged => {
                    entry.kind = EntryKind::Unchanged;
                    entry.staged = None;
                    entry.backup = None;
                    continue;
                }
            };
            written.push(Written {
                rel: write.rel.clone(),
                kind: write.kind,
                sha256,
            });
        }
        self.owner_not_kept.sort_unstable();
        (written, found)
    }

    /// The folders that hold the commit's names, and those that hold a folder it made, each
    /// once, in order: a new file in a new folder is reachable after a power cut only once the
    /// folder's own name is durable in its parent too. Where a file becomes a folder or the
    /// reverse, the folders that hold a name kept away from its target too, less those that
    /// do not exist at that moment: before the exchange (`exchanged` false) the folders it
    /// makes then, after it those it removed.
    fn touched_dirs(&self, exchanged: bool) -> Vec<PathBuf> {
        let parent = |path: &Path| path.parent().unwrap_or(Path::new("")).to_path_buf();
        let away: Vec<&PathBuf> = self
            .journal
            .entries
            .iter()
            .filter(|e| e.is_across())
            .flat_map(|e| match exchanged {
                false => e.created_dirs.iter(),
                true => e.removed_dirs.iter(),
            })
            .collect();
        self.journal
            .entries
            .iter()
            .flat_map(|e| {
                let across = e.is_across().then_some([&e.staged, &e.backup]);
                std::iter::once(e.path.as_path())
                    .chain(e.created_dirs.iter().map(PathBuf::as_path))
                    .chain(across.into_iter().flatten().flatten().map(PathBuf::as_path))
            })
            .map(parent)
            .filter(|dir| !away.iter().any(|gone| dir.starts_with(gone)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// Marks the journal prepared and saves it: every new content is staged, durable and named
    /// in it, so the exchange may begin, and a rollback from here puts every original back.
    fn mark_prepared(&mut self, state: &StateFolder, state_rel: &Path) -> Result<(), StepError> {
        self.journal.state = State::Prepared;
        self.step(Step::Prepare, state_rel, self.journal.save(state))
    }

    /// Exchanges every staged file with its target and moves each deleted file aside (see
    /// [`put_all_in_place`]), each target checked once more against `found`, as staging found
    /// it. The folders were opened once, at staging: each must still be where it was first.
    fn exchange(
        &self,
        folders: &Folders,
        writes: &[&FileWrite],
        found: &[Option<Stamp>],
        state_rel: &Path,
    ) -> Result<(), StepError> {
        folders
            .still_in_place()
            .map_err(|e| (state_rel.to_path_buf(), Step::Rename.doing(), e))?;
        let entries: Vec<(&Entry, &FileWrite, Option<&Stamp>)> = self
            .journal
            .entries
            .iter()
            .zip(writes.iter().copied())
            .zip(found)
            .filter(|((entry, _), _)| entry.kind != EntryKind::Unchanged)
            .map(|((entry, write), found)| (entry, write, found.as_ref()))
            .collect();
        put_all_in_place(folders, &entries, self.failpoint)
            .map_err(|(path, e)| (path, Step::Rename.doing(), e))
    }

    /// Marks the journal committed and saves it: the moment the commit is decided. The
    /// failpoint comes first, "mark" being the last moment before it; a failure leaves the
    /// journal prepared, for the rollback.
    fn mark_committed(&mut self, state: &StateFolder, state_rel: &Path) -> Result<(), StepError> {
        self.journal.state = State::Committed;
        let marked = hit(self.failpoint, Step::Mark).and_then(|()| self.journal.save(state));
        if let Err(e) = marked {
            self.journal.state = State::Prepared;
            return Err((state_rel.to_path_buf(), Step::Mark.doing(), e));
        }
        Ok(())
    }

    /// Cleans up after the mark: the originals go to the undo history and the journal goes.
    /// Returns what a person should hear: what cleanup could not do, or, when it failed itself
    /// (the state folder gone, say), that the committed journal stays and the next command
    /// that writes finishes it. The commit stands either way.
    fn clean_up(&mut self, root: &Root, state: &StateFolder) -> Vec<String> {
        let cleaned =
            hit(self.failpoint, Step::Cleanup).and_then(|()| self.journal.recover(root, state));
        match cleaned {
            Ok(recovery) => {
                self.archived = recovery.archived;
                recovery.warnings
            }
            // The committed journal stays, and the next command finishes it.
            Err(e) => vec![format!(
                "the commit is done, but its cleanup stopped ({e}): the next patchdeck command that writes finishes it (`patchdeck recover` does), and `patchdeck undo` can take it back after that"
            )],
        }
    }

    /// Makes the entries of every folder the commit touches durable, on several threads.
    fn sync_dirs(&self, folders: &Folders, dirs: &[PathBuf]) -> Result<(), StepError> {
        let dirs: Vec<&PathBuf> = dirs.iter().collect();
        crate::parallel::try_each(&dirs, IO_THREADS, |dir| {
            self.step(Step::Sync, dir, folders.dir(dir).and_then(|d| d.sync()))
        })
    }
}

/// The folders above `rel` that do not exist yet, outermost first, each listed once per commit.
fn missing_dirs(root: &Path, rel: &Path, planned: &mut BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut dir = rel.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if fs::symlink_metadata(root.join(d)).is_ok() || !planned.insert(d.to_path_buf()) {
            break;
        }
        missing.push(d.to_path_buf());
        dir = d.parent();
    }
    missing.reverse();
    missing
}
