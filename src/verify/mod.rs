//! Verification: checking every file patch and change of a batch against the workspace.
//!
//! For each file: resolve its docPath, read its bytes, compare their SHA-256 with the expected
//! one, and check each change's line range against the file's length and its expected lines
//! against the lines there. Where expected lines are not where a change says, the file is
//! searched for them and every place they occur is reported (`foundAt` when there is exactly
//! one). A mismatch is a conflict recorded as data; nothing here fails on a conflict, and
//! nothing here writes.

mod applied;
mod relocate;
mod reshape;

pub use applied::Placed;

use crate::fs::{read_file, RepoPath, Root, Snapshot};
use crate::generated::why_generated;
use crate::lines::{invalid_utf8_offset, Lines};
use crate::model::{Batch, Change, FileAction, FilePatch, LineRange, Operation, EMPTY_SHA256};
use crate::problem::ProblemKind;
use crate::workspace::{Release, Resolved, Workspace};
use serde::Serialize;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// The verdict on a file or a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Conflict,
    Invalid,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Conflict => "conflict",
            Status::Invalid => "invalid",
        }
    }
}

/// Expected lines next to the lines actually found, for showing a conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMismatch {
    /// First line of the range compared (1-based).
    pub at: usize,
    pub expected: Vec<String>,
    /// The lines found at the same place (fewer when the file ends first).
    pub actual: Vec<String>,
}

/// Something found while verifying. Problems with `blocking: false` are notes: they are
/// reported and shown, but do not stop a commit on their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
    /// Where the expected lines were found instead, when they occur exactly once.
    pub found_at: Option<usize>,
    pub mismatch: Option<LineMismatch>,
    pub blocking: bool,
}

impl Problem {
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem {
            kind,
            message: message.into(),
            found_at: None,
            mismatch: None,
            blocking: true,
        }
    }

    pub fn note(kind: ProblemKind, message: impl Into<String>) -> Problem {
        Problem {
            blocking: false,
            ..Problem::new(kind, message)
        }
    }
}

/// The verdict on one change.
#[derive(Clone, Debug)]
pub struct ChangeCheck {
    pub status: Status,
    pub problems: Vec<Problem>,
    /// Where it stands: at its range, moved by changes before it that were applied already,
    /// or applied already itself.
    pub placed: Placed,
}

impl ChangeCheck {
    /// Where the change's expected lines were found instead, when that is unique.
    pub fn found_at(&self) -> Option<usize> {
        self.problems.iter().find_map(|p| p.found_at)
    }
}

/// The verdict on one file patch, with what was read from disk.
#[derive(Clone, Debug)]
pub struct FileCheck {
    pub status: Status,
    /// Where the docPath led, when it could be resolved.
    pub resolved: Option<Resolved>,
    /// The action after resolution: a missing file with the empty hash is a creation.
    pub action: FileAction,
    /// The file as read, when it exists.
    pub snapshot: Option<Snapshot>,
    /// For a file created as a copy of another (`FilePatch::copy_from`): the source as read.
    pub copied_from: Option<Snapshot>,
    pub problems: Vec<Problem>,
    /// One per change of the file patch, in the same order.
    pub changes: Vec<ChangeCheck>,
    /// For a creation where a file stands that the batch deletes (a file becoming a folder)
    /// or a folder whose every file the batch deletes (the reverse): the file patches of
    /// those deletions (0-based), which must be written with it.
    pub needs_deleted: Vec<usize>,
}

impl FileCheck {
    pub fn actual_sha256(&self) -> Option<&str> {
        self.snapshot.as_ref().map(Snapshot::sha256)
    }

    /// Whether the file's bytes differ from the ones the batch was written against.
    pub fn sha_mismatch(&self) -> bool {
        self.problems
            .iter()
            .any(|p| p.kind == ProblemKind::ShaMismatch)
    }

    /// The file as read, else the file it copies (none for a creation from nothing): what the
    /// reviewer shows as the file. A creation that copies or moves onto a file that exists
    /// applies its changes to the copied file instead; verify and plan choose that themselves.
    pub fn base(&self) -> Option<&Snapshot> {
        self.snapshot.as_ref().or(self.copied_from.as_ref())
    }

    /// The file as a person knows it: its path under the root, or its docPath when it did not
    /// resolve.
    pub fn display_path(&self, file: &FilePatch) -> String {
        self.resolved
            .as_ref()
            .map_or_else(|| file.doc_path.clone(), |r| r.rel().to_string())
    }

    /// The bytes the changes apply to: the file's, the copied file's, or nothing for a
    /// creation.
    pub fn base_bytes(&self) -> &[u8] {
        self.base().map_or(&[], |s| s.bytes())
    }

    /// Lets the bytes of the files read go, once the file is checked (see
    /// [`Workspace::release_files`]), first hashing the target as `release` asks, and keeping
    /// a copied file whole when a commit will make a content from it.
    pub fn release(&mut self, release: Release) {
        if let Some(snapshot) = &mut self.snapshot {
            if release.sha256 {
                snapshot.sha256();
            }
            if release.commit {
                snapshot.checksum();
            }
            snapshot.release();
        }
        if let Some(source) = self.copied_from.as_mut().filter(|_| !release.commit) {
            source.release();
        }
    }

    /// [`FileCheck::base_bytes`], shared rather than borrowed (for work on another thread).
    pub fn base_shared(&self) -> Arc<Vec<u8>> {
        self.base()
            .map_or_else(Default::default, |s| Arc::clone(s.bytes()))
    }
}

/// A batch with its verification against the workspace.
pub struct Checked {
    pub batch: Batch,
    pub verification: Verification,
}

/// The verdict on a whole batch: one [`FileCheck`] per file patch, in batch order.
#[derive(Clone, Debug)]
pub struct Verification {
    pub files: Vec<FileCheck>,
}

impl Verification {
    pub fn worst(&self) -> Status {
        self.files
            .iter()
            .map(|f| f.status)
            .max()
            .unwrap_or(Status::Ok)
    }
}

/// Verifies every file patch of `batch` against `workspace`.
pub fn verify(batch: &Batch, workspace: &Workspace) -> Verification {
    workspace.prefetch(
        batch.files.iter().flat_map(|file| {
            std::iter::once(file.doc_path.as_str()).chain(file.copy_from.as_deref())
        }),
    );
    // Resolving and reading go through the workspace's caches, one file after another; the
    // lines of every file are then checked on every core. A workspace that releases files
    // has its targets read on those threads too, each let go once checked.
    let release = workspace.releases();
    let opened: Vec<(&FilePatch, Opened)> = batch
        .files
        .iter()
        .map(|file| (file, open_file(file, workspace)))
        .collect();
    let root = workspace.beneath();
    let mut files = crate::parallel::map_into(opened, |(file, opened)| {
        let mut check = opened.check(file, root);
        if let Some(release) = release {
            check.release(release);
        }
        check
    });
    reshape::allow(batch, workspace, &mut files);
    Verification { files }
}

/// Verifies one file patch.
pub fn verify_file(file: &FilePatch, workspace: &Workspace) -> FileCheck {
    open_file(file, workspace).check(file, workspace.beneath())
}

/// A file patch's target, resolved and, unless the checking thread is to read it, read:
/// checked already when either failed.
enum Opened {
    Finished(FileCheck),
    Read(FileCheck),
    /// Resolved to this file (relative to the root), which the checking thread reads: a
    /// workspace that releases files holds none to hand over.
    Unread(FileCheck, RepoPath),
}

impl Opened {
    /// The whole check: the target read if it was not yet (see [`examine`]), then the lines
    /// of a read file checked (see [`check_lines`]).
    fn check(self, file: &FilePatch, root: &Root) -> FileCheck {
        match self {
            Opened::Finished(check) => check,
            Opened::Read(check) => check_lines(check, file),
            Opened::Unread(check, rel) => match read_file(root, &rel) {
                Ok(snapshot) => examine(check, file, &rel, snapshot, || None).check(file, root),
                Err(e) => unreadable(check, file, &rel, &e).check(file, root),
            },
        }
    }
}

/// Resolves a file patch's target and reads it (and the file it copies), with the problems
/// that finds; in a workspace that releases files, a target no one has read yet is left for
/// the checking thread to read ([`Opened::Unread`]).
fn open_file(file: &FilePatch, workspace: &Workspace) -> Opened {
    let mut check = new_check(file);
    let resolved = match workspace.resolve(&file.doc_path) {
        Ok(Resolved::File { rel, by_case: true }) if renamed_by_case(file, &rel, workspace) => {
            let (rel, _) = RepoPath::parse(&file.doc_path)
                .expect("a docPath that resolved passed the lexical check");
            Resolved::Missing { rel }
        }
        Ok(resolved) => resolved,
        Err(problem) => {
            check
                .problems
                .push(Problem::new(problem.kind, problem.message));
            return Opened::Finished(finish(check, file, Status::Invalid));
        }
    };
    open_resolved(check, file, resolved, workspace)
}

/// A file patch's check before anything is looked at: its load problems.
fn new_check(file: &FilePatch) -> FileCheck {
    FileCheck {
        status: Status::Ok,
        resolved: None,
        action: file.action,
        snapshot: None,
        copied_from: None,
        problems: file
            .load_problems
            .iter()
            .map(|p| Problem {
                blocking: p.blocking,
                ..Problem::new(p.kind, p.message.clone())
            })
            .collect(),
        changes: Vec::new(),
        needs_deleted: Vec::new(),
    }
}

/// [`open_file`] once the target is resolved.
fn open_resolved(
    mut check: FileCheck,
    file: &FilePatch,
    resolved: Resolved,
    workspace: &Workspace,
) -> Opened {
    check.resolved = Some(resolved.clone());
    match &resolved {
        Resolved::Missing { rel } => {
            let creates = file.action == FileAction::Create
                || file.expected_sha256.as_deref() == Some(EMPTY_SHA256);
            if creates && file.replaces {
                check.problems.push(Problem::new(
                    ProblemKind::MissingFile,
                    format!(
                        "{} does not exist; the batch replaces it with a new file (it moves or deletes the one it expects there)",
                        rel.display()
                    ),
                ));
                return Opened::Finished(finish(check, file, Status::Conflict));
            }
            // A format that said why the file is missing (a name other files bear) said it.
            let said = check
                .problems
                .iter()
                .any(|p| p.kind == ProblemKind::MissingFile);
            if !creates && said {
                return Opened::Finished(finish(check, file, Status::Conflict));
            }
            if !creates {
                check.problems.push(Problem::new(
                    ProblemKind::MissingFile,
                    format!(
                        "{} does not exist; the batch expects to {} it{}",
                        rel.display(),
                        match file.action {
                            FileAction::Delete => "delete",
                            _ => "modify",
                        },
                        match &file.expected_sha256 {
                            Some(sha) => format!(" (expected SHA-256 {sha})"),
                            None => String::new(),
                        }
                    ),
                ));
                return Opened::Finished(finish(check, file, Status::Conflict));
            }
            check.action = FileAction::Create;
            if let Some(source) = &file.copy_from {
                match read_source(workspace, source) {
                    Ok(snapshot) => check.copied_from = Some(snapshot),
                    Err(problem) => {
                        check.problems.push(problem);
                        return Opened::Finished(finish(check, file, Status::Conflict));
                    }
                }
            }
        }
        Resolved::File { rel, .. } => {
            // A workspace that releases files holds none it has not handed over: such a
            // file is read on the checking thread (unless checking it needs the workspace: a
            // creation that copies onto it).
            let unread = workspace.releases().is_some()
                && file.copy_from.is_none()
                && !workspace.has_read(rel);
            if unread {
                return Opened::Unread(check, rel.clone());
            }
            let snapshot = workspace.read_to_check(rel);
            let copied = || {
                let source = file.copy_from.as_ref()?;
                read_source(workspace, source).ok()
            };
            return match snapshot {
                Ok(snapshot) => examine(check, file, rel, snapshot, copied),
                Err(e) => unreadable(check, file, rel, &e),
            };
        }
    }
    Opened::Read(check)
}

/// The check of a target that cannot be read.
fn unreadable(mut check: FileCheck, file: &FilePatch, rel: &Path, e: &io::Error) -> Opened {
    check.problems.push(Problem::new(
        ProblemKind::Unreadable,
        format!("cannot read {}: {e}", rel.display()),
    ));
    Opened::Finished(finish(check, file, Status::Conflict))
}

/// Looks at a target as read: a file in the way of a creation (with, from `copied`, the file
/// a move or copy onto it brings), its hash against the one expected, its hard links.
fn examine(
    mut check: FileCheck,
    file: &FilePatch,
    rel: &Path,
    snapshot: Snapshot,
    copied: impl FnOnce() -> Option<Snapshot>,
) -> Opened {
    // The hash of empty content says the author saw no file (or an empty one): a
    // file with content is not a changed version of it but a file the batch would
    // create over, whatever --allow-sha-mismatch says.
    let creates_over =
        file.expected_sha256.as_deref() == Some(EMPTY_SHA256) && !snapshot.bytes().is_empty();
    let created_already = (file.action == FileAction::Create || creates_over)
        && file.copy_from.is_none()
        && applied::created_already(file, snapshot.bytes());
    if created_already {
        check.action = FileAction::Create;
        check.problems.push(Problem::note(
            ProblemKind::AlreadyApplied,
            format!(
                "{} already exists with exactly the lines the batch creates it with",
                rel.display()
            ),
        ));
    } else if file.action == FileAction::Create && file.replaces {
        // The batch moves or deletes the file that is there: the new one replaces it, and its
        // changes are checked against the file it copies (none for a creation from nothing).
        check.action = FileAction::Create;
        check.copied_from = copied();
    } else if file.action == FileAction::Create || creates_over {
        check.action = FileAction::Create;
        check.problems.push(Problem::new(
            ProblemKind::FileExists,
            format!(
                "{} already exists ({} bytes); the batch expects to create it{}",
                rel.display(),
                snapshot.bytes().len(),
                if creates_over {
                    " (its originalSha256 is the SHA-256 of empty content)"
                } else {
                    ""
                }
            ),
        ));
        // A move or copy onto it: its changes are checked against the source they were
        // written for, not against the file in the way.
        check.copied_from = copied();
    }
    if let Some(expected) = file.expected_sha256.as_ref().filter(|_| !creates_over) {
        if expected != snapshot.sha256() {
            check.problems.push(Problem::new(
                ProblemKind::ShaMismatch,
                format!(
                    "{} has changed since the batch was written: expected SHA-256 {expected}, found {}",
                    rel.display(),
                    snapshot.sha256()
                ),
            ));
        }
    }
    if snapshot.stamp.nlink > 1 {
        check.problems.push(Problem::new(
            ProblemKind::HardLink,
            format!(
                "{} has {} hard links; replacing it would leave its other names with the old content",
                rel.display(),
                snapshot.stamp.nlink
            ),
        ));
    }
    check.snapshot = Some(snapshot);
    Opened::Read(check)
}

/// Checks a read file's content and every change against its lines (no workspace needed:
/// files are checked on several threads).
fn check_lines(mut check: FileCheck, file: &FilePatch) -> FileCheck {
    let resolved = check.resolved.clone().expect("a read file is resolved");
    if let Some(snapshot) = &check.snapshot {
        if let Some(offset) = invalid_utf8_offset(snapshot.bytes()) {
            check.problems.push(Problem::new(
                ProblemKind::NotUtf8,
                format!(
                    "{} is not valid UTF-8 (first bad byte at offset {offset}); patchdeck will not edit its lines",
                    resolved.rel().display()
                ),
            ));
        }
    }
    let head = check.snapshot.as_ref().map_or(&[][..], |s| &s.bytes()[..]);
    if let Some(why) = why_generated(&resolved.rel().to_string_lossy(), head) {
        check.problems.push(Problem::note(
            ProblemKind::Autogenerated,
            format!(
                "{} looks generated ({why}); an edit may be overwritten the next time it is generated",
                resolved.rel().display()
            ),
        ));
    }
    // A move onto an existing file is checked against the file it moves (the move writes
    // its lines), not the one it would replace.
    let base = match (&check.copied_from, check.action) {
        (Some(source), FileAction::Create) => Some(source.clone()),
        _ => check.base().cloned(),
    };
    let lines = base.as_ref().map_or(Lines::split(&[]), Snapshot::lines);
    let base = base.as_ref().map_or(&[][..], |s| &s.bytes()[..]);
    let sha_mismatch = check.sha_mismatch();
    let explained = match &file.expected_sha256 {
        Some(expected) if sha_mismatch && check.action == FileAction::Modify => {
            applied::explain(file, &lines, base, expected)
        }
        _ => None,
    };
    let created_already = check.action == FileAction::Create
        && check
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::AlreadyApplied);
    match explained {
        _ if created_already => {
            check.changes = file
                .changes
                .iter()
                .map(|change| ChangeCheck {
                    status: Status::Ok,
                    problems: vec![applied_note(change)],
                    placed: Placed::Applied,
                })
                .collect();
        }
        Some(placed) => already_applied(&mut check, file, &lines, placed),
        None => {
            check.changes = file
                .changes
                .iter()
                .map(|change| {
                    verify_change(change, &lines, sha_mismatch, file.expected_sha256.is_some())
                })
                .collect();
            let stale = sha_mismatch || file.expected_sha256.is_none();
            relocate::judge_file(file, &lines, &mut check.changes, stale);
            if sha_mismatch {
                applied_in_full(&mut check, file);
            }
        }
    }
    let file_status = if check.problems.iter().any(|p| p.blocking) {
        Status::Conflict
    } else {
        Status::Ok
    };
    let worst_change = check
        .changes
        .iter()
        .map(|c| c.status)
        .max()
        .unwrap_or(Status::Ok);
    check.status = file_status.max(worst_change);
    check
}

/// A file whose SHA-256 differs because some of the batch's changes are in it already (see
/// `applied`): the mismatch is a note saying so, those changes are notes that write nothing,
/// and the others verify where the applied ones moved them.
fn already_applied(
    check: &mut FileCheck,
    file: &FilePatch,
    lines: &Lines<'_>,
    placed: Vec<Placed>,
) {
    let count = placed.iter().filter(|p| **p == Placed::Applied).count();
    let path = check.display_path(file);
    for problem in &mut check.problems {
        if problem.kind == ProblemKind::ShaMismatch {
            *problem = Problem::note(
                ProblemKind::AlreadyApplied,
                format!(
                    "{path} already holds {count} of the batch's {} change(s): without them it is exactly the file the batch was written against (SHA-256 {})",
                    file.changes.len(),
                    file.expected_sha256.as_deref().unwrap_or_default()
                ),
            );
        }
    }
    check.changes = file
        .changes
        .iter()
        .zip(placed)
        .map(|(change, placed)| match placed {
            Placed::AsIs => verify_change(change, lines, false, true),
            Placed::At(at) => ChangeCheck {
                status: Status::Ok,
                problems: vec![Problem::note(
                    ProblemKind::Offset,
                    format!(
                        "it stands at line {at}, not {}: changes before it are applied already",
                        change.range.start
                    ),
                )],
                placed,
            },
            Placed::Applied => ChangeCheck {
                status: Status::Ok,
                problems: vec![applied_note(change)],
                placed,
            },
        })
        .collect();
}

/// A file whose SHA-256 differs while every one of the batch's changes stands applied in it
/// (after a commit that moved them, or edits of the person's around them): there is nothing
/// to write, so the mismatch is a note that says so, not a conflict.
fn applied_in_full(check: &mut FileCheck, file: &FilePatch) {
    let all =
        !check.changes.is_empty() && check.changes.iter().all(|c| c.placed == Placed::Applied);
    if !all {
        return;
    }
    let path = check.display_path(file);
    for problem in &mut check.problems {
        if problem.kind == ProblemKind::ShaMismatch {
            *problem = Problem::note(
                ProblemKind::AlreadyApplied,
                format!(
                    "{path} already holds every one of the batch's {} change(s); its SHA-256 is not the batch's base (it changed around them), and there is nothing to write",
                    file.changes.len()
                ),
            );
        }
    }
}

/// The note of a change applied already.
fn applied_note(change: &Change) -> Problem {
    Problem::note(
        ProblemKind::AlreadyApplied,
        if change.new_lines.is_empty() {
            "already applied: the lines it deletes are gone; writing it changes nothing".to_owned()
        } else {
            "already applied: its new lines stand where it would put them; writing it changes nothing"
                .to_owned()
        },
    )
}

/// Whether a created file is the new name of a case-only rename or copy (`Readme.md` to
/// `README.md`, in the same folder): its name matched `rel` only case-insensitively, and `rel`
/// is the file it is created from. On a case-sensitive file system the new name is free, and
/// git renames the file; where names are case-insensitive the exact name resolves to the file
/// itself, and creating it stays a `file_exists` conflict.
fn renamed_by_case(file: &FilePatch, rel: &Path, workspace: &Workspace) -> bool {
    let Some(source) = &file.copy_from else {
        return false;
    };
    file.action == FileAction::Create
        && Path::new(&file.doc_path).parent() == rel.parent()
        && matches!(workspace.resolve(source), Ok(Resolved::File { rel: from, by_case: false }) if from.as_path() == rel)
}

/// Reads the file a created file copies (the old side of a rename); it must exist.
fn read_source(workspace: &Workspace, doc_path: &str) -> Result<Snapshot, Problem> {
    match workspace.resolve(doc_path) {
        Ok(Resolved::File { rel, .. }) => workspace.read_to_check(&rel).map_err(|e| {
            Problem::new(
                ProblemKind::Unreadable,
                format!("cannot read {}: {e}", rel.display()),
            )
        }),
        Ok(Resolved::Missing { rel }) => Err(Problem::new(
            ProblemKind::MissingFile,
            format!(
                "{} does not exist; the batch creates this file as a copy of it",
                rel.display()
            ),
        )),
        Err(problem) => Err(Problem::new(problem.kind, problem.message)),
    }
}

/// Marks every change of an unusable file with the file's status.
fn finish(mut check: FileCheck, file: &FilePatch, status: Status) -> FileCheck {
    check.status = status;
    check.changes = file
        .changes
        .iter()
        .map(|_| ChangeCheck {
            status,
            problems: Vec::new(),
            placed: Placed::AsIs,
        })
        .collect();
    check
}

/// Verifies one change against the file's lines.
///
/// `sha_mismatch` says the file differs from the batch's base: then an insertion's position
/// cannot be confirmed (a note), and a range past the end is a conflict rather than an invalid
/// batch. `has_sha` says the format carries a hash at all.
pub fn verify_change(
    change: &Change,
    lines: &Lines<'_>,
    sha_mismatch: bool,
    has_sha: bool,
) -> ChangeCheck {
    let n = lines.len();
    let mut problems: Vec<Problem> = change
        .load_problems
        .iter()
        .map(|p| Problem {
            blocking: p.blocking,
            ..Problem::new(p.kind, p.message.clone())
        })
        .collect();
    if problems.iter().any(|p| p.blocking) {
        // The format could not place the change: its range means nothing to check, but a
        // hunk not found where it says is shown against what stands there, as any conflict
        // of expected lines is.
        if let (Some(expected), Some(problem)) = (
            &change.expected,
            problems.iter_mut().find(|p| {
                p.blocking && matches!(p.kind, ProblemKind::NotFound | ProblemKind::Ambiguous)
            }),
        ) {
            if change.unplaced().is_none() && change.range.start >= 1 && change.range.start <= n {
                problem.mismatch = Some(LineMismatch {
                    at: change.range.start,
                    expected: expected.to_vec(),
                    actual: lines
                        .range(LineRange {
                            start: change.range.start,
                            count: change.range.count.min(n + 1 - change.range.start),
                        })
                        .map(|l| l.text_str().into_owned())
                        .collect(),
                });
            }
        }
        return ChangeCheck {
            status: Status::Conflict,
            problems,
            placed: Placed::AsIs,
        };
    }
    let in_range = match change.operation {
        Operation::Insert => change.range.start - 1 <= n,
        Operation::Replace | Operation::Delete => change.range.last() <= n,
    };
    let stale = sha_mismatch || !has_sha;
    if !in_range {
        let problem = Problem::new(
            ProblemKind::OutOfRange,
            match change.operation {
                Operation::Insert => format!(
                    "insert after line {} but the file has {n} line{}",
                    change.range.start - 1,
                    plural(n)
                ),
                _ if change.range.count == 1 => format!(
                    "line {} is past the end of the file, which has {n} line{}",
                    change.range.describe(),
                    plural(n)
                ),
                _ => format!(
                    "lines {} are past the end of the file, which has {n} line{}",
                    change.range.describe(),
                    plural(n)
                ),
            },
        );
        problems.push(problem);
        let status = if stale {
            Status::Conflict
        } else {
            Status::Invalid
        };
        return ChangeCheck {
            status,
            problems,
            placed: Placed::AsIs,
        };
    }
    if let Some(expected) = &change.expected {
        if !lines.matches_at(change.range, expected)
            && applied::applied_at_own_range(lines, change.range, &change.new_lines)
        {
            problems.push(applied_note(change));
            return ChangeCheck {
                status: Status::Ok,
                problems,
                placed: Placed::Applied,
            };
        }
        if !lines.matches_at(change.range, expected) {
            let actual: Vec<String> = lines
                .range(change.range)
                .map(|l| l.text_str().into_owned())
                .collect();
            let mut problem = Problem::new(
                ProblemKind::ExpectedMismatch,
                format!(
                    "the lines at {} are not the expected ones",
                    change.range.describe()
                ),
            );
            problem.mismatch = Some(LineMismatch {
                at: change.range.start,
                expected: expected.to_vec(),
                actual,
            });
            problems.push(problem);
            return ChangeCheck {
                status: Status::Conflict,
                problems,
                placed: Placed::AsIs,
            };
        }
    } else if sha_mismatch && change.operation == Operation::Insert {
        problems.push(Problem::note(
            ProblemKind::UnverifiedPosition,
            format!(
                "an insert has no expected lines, so its position (after line {}) cannot be checked in a changed file",
                change.range.start - 1
            ),
        ));
    }
    ChangeCheck {
        status: Status::Ok,
        problems,
        placed: Placed::AsIs,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
