//! The core's error type: what went wrong, where, and what to do; and the exit status it maps to.
//!
//! Expected outcomes such as a conflict are not errors: they are data in the verification and
//! the report. An [`Error`] means the run could not do what was asked: the input is malformed
//! (exit 2), the request names nothing (exit 2), or the commit failed and was rolled back
//! (exit 3). Each variant's `Display` names the file, line, JSON path or change concerned.

use std::fmt;
use std::path::PathBuf;

/// Exit statuses of the command-line interface; other tools rely on these numbers.
pub mod exit {
    /// Clean, or applied.
    pub const OK: i32 = 0;
    /// Conflicts found; for `apply`, nothing was written.
    pub const CONFLICT: i32 = 1;
    /// Invalid input or usage; nothing was written.
    pub const INVALID: i32 = 2;
    /// The commit failed and every file was rolled back.
    pub const COMMIT_FAILED: i32 = 3;
    /// An I/O failure outside the workspace's files (standard output, the terminal, a folder
    /// patchdeck makes); nothing was written to the workspace.
    pub const IO: i32 = 4;
}

/// One thing wrong with an input, located by JSON path or line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputProblem {
    /// Where: a JSON path (`files[2].changes[0].endLine`), `line 14`, or a file.
    pub location: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for InputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

#[derive(Debug)]
pub enum Error {
    /// The input could not be read.
    ReadInput {
        source: String,
        cause: std::io::Error,
    },
    /// The input is not a valid batch; every problem found is listed.
    InvalidInput {
        source: String,
        format: String,
        problems: Vec<InputProblem>,
    },
    /// No format recognised the input.
    UnknownFormat { source: String, tried: Vec<String> },
    /// The input is larger than a reviewable batch (REQ-PATCH-008).
    TooLarge {
        source: String,
        tokens: usize,
        limit: usize,
    },
    /// A commit was asked for in read-only mode (REQ-PATCH-009); nothing was written.
    ReadOnly,
    /// A request (selector, decisions file, option) names something that does not exist or is
    /// ambiguous.
    Usage {
        message: String,
        hint: Option<String>,
    },
    /// The workspace root is unusable.
    Root { root: PathBuf, message: String },
    /// A file changed on disk between verification and the commit; nothing was written.
    ChangedOnDisk { path: String, what: String },
    /// `undo` found files changed since the batch it would undo was committed.
    UndoBlocked { label: String, changed: Vec<String> },
    /// `undo` found saved originals that no longer have the bytes they were saved with (a
    /// hard-linked original edited through its other name, or a damaged history).
    UndoDamaged { label: String, files: Vec<String> },
    /// Another commit holds the workspace lock.
    Locked { lock: PathBuf, owner: String },
    /// The commit failed; every file was restored to its original bytes.
    CommitFailed {
        path: String,
        step: String,
        cause: String,
        rolled_back: bool,
    },
    /// Recovering an interrupted commit failed; the journal is kept for another attempt.
    RecoveryFailed { journal: PathBuf, cause: String },
    /// `undo` could not read or update the undo history at `path`; `restored` says whether
    /// the files had already been put back (then only the bookkeeping is left, and the next
    /// command that writes finishes it).
    UndoFailed {
        path: PathBuf,
        cause: String,
        restored: bool,
    },
    /// A file the last commit wrote cannot be read to check it before an undo: nothing was
    /// written.
    UndoUnreadable { path: PathBuf, cause: String },
    /// An undo record whose seal does not open for this user and this workspace, met where
    /// one was expected: nothing was done with it.
    Foreign { record: PathBuf, why: String },
    /// patchdeck's state folder (or a folder in it) is not one it will use: a link, not this
    /// user's, or open to others' writes. `why` ends with the fix. Nothing was written.
    Untrusted { path: PathBuf, why: String },
    /// The workspace lock could not be taken (not another patchdeck holding it: see
    /// [`Error::Locked`]): nothing was written.
    LockFailed { lock: PathBuf, cause: String },
    /// An I/O failure outside the workspace's files: `what` says what was being done.
    Io { what: String, cause: std::io::Error },
}

impl Error {
    /// The exit status this error ends the program with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::ReadInput { .. }
            | Error::InvalidInput { .. }
            | Error::UnknownFormat { .. }
            | Error::TooLarge { .. }
            | Error::ReadOnly
            | Error::Usage { .. }
            | Error::Root { .. } => exit::INVALID,
            Error::ChangedOnDisk { .. } | Error::UndoBlocked { .. } | Error::UndoDamaged { .. } => {
                exit::CONFLICT
            }
            Error::Locked { .. }
            | Error::CommitFailed { .. }
            | Error::RecoveryFailed { .. }
            | Error::UndoFailed { .. }
            | Error::UndoUnreadable { .. }
            | Error::Foreign { .. }
            | Error::Untrusted { .. }
            | Error::LockFailed { .. } => exit::COMMIT_FAILED,
            Error::Io { .. } => exit::IO,
        }
    }

    /// A line telling the user what to do next, when there is one.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Usage { hint, .. } => hint.clone(),
            Error::UnknownFormat { .. } => {
                Some("force a format with --format NAME if the input is one of these".into())
            }
            Error::TooLarge { .. } => Some(
                "break the change into several smaller patches and review them one after the other"
                    .into(),
            ),
            Error::ReadOnly => Some(
                "run the command again without --read-only to get write access".into(),
            ),
            Error::Locked { .. } => Some(
                "wait for the other patchdeck to finish; if no patchdeck is running, remove the lock file"
                    .into(),
            ),
            Error::ChangedOnDisk { .. } => {
                Some("check the batch again against the file as it is now".into())
            }
            Error::RecoveryFailed { journal, .. } if journal.ends_with("journal") => Some(format!(
                "fix the cause, then run `patchdeck recover` again; a journal this patchdeck cannot use (one of another version) stays until you move it aside by hand (`mv {} {}.aside`), once you have checked the files it names",
                journal.display(),
                journal.display()
            )),
            Error::RecoveryFailed { .. } => {
                Some("fix the cause, then run `patchdeck recover` again".into())
            }
            Error::Foreign { record, .. } => Some(format!(
                "if this workspace came from elsewhere, that record is not yours to act on: check the files it names, then remove {} by hand (and, for a journal, the .NAME.pd-* files beside the files it names)",
                record.display()
            )),
            _ => None,
        }
    }

    /// An I/O failure while `what` (`writing to standard output`).
    pub fn io(what: impl Into<String>, cause: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            cause,
        }
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage {
            message: message.into(),
            hint: None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ReadInput { source, cause } => write!(f, "cannot read {source}: {cause}"),
            Error::Io { what, cause } => write!(f, "{what} failed: {cause}"),
            Error::InvalidInput {
                source,
                format,
                problems,
            } => {
                let count = problems.len();
                write!(
                    f,
                    "{source}: invalid {format} batch ({count} problem{}):",
                    if count == 1 { "" } else { "s" }
                )?;
                for problem in problems {
                    write!(f, "\n  {source}: {problem}")?;
                }
                Ok(())
            }
            Error::UnknownFormat { source, tried } => write!(
                f,
                "{source}: not a patch batch in any format patchdeck reads (tried: {})",
                tried.join(", ")
            ),
            Error::TooLarge {
                source,
                tokens,
                limit,
            } => write!(
                f,
                "{source}: the input is about {tokens} tokens (characters / 4), more than the {limit} a patch may have; split it into smaller patches"
            ),
            Error::ReadOnly => f.write_str(
                "patchdeck is in read-only mode (--read-only): review works, but nothing may be written. Run it without --read-only to get write access.",
            ),
            Error::Usage { message, .. } => f.write_str(message),
            Error::Root { root, message } => {
                write!(f, "workspace root {}: {message}", root.display())
            }
            Error::ChangedOnDisk { path, what } => {
                write!(
                    f,
                    "{path}: {what}; the commit stopped before writing anything"
                )
            }
            Error::UndoBlocked { label, changed } => write!(
                f,
                "cannot undo \"{label}\": changed since it was committed: {}; nothing was written",
                changed.join(", ")
            ),
            Error::UndoDamaged { label, files } => write!(
                f,
                "cannot undo \"{label}\": the saved originals of {} no longer have the bytes they were saved with; nothing was written",
                files.join(", ")
            ),
            Error::Locked { lock, owner } => write!(
                f,
                "another commit holds the workspace lock {} ({owner})",
                lock.display()
            ),
            Error::CommitFailed {
                path,
                step,
                cause,
                rolled_back,
            } => {
                match path.is_empty() {
                    true => write!(f, "commit failed while {step}: {cause}")?,
                    false => write!(f, "commit failed at {path} while {step}: {cause}")?,
                }
                if *rolled_back {
                    write!(f, "; every file was restored, nothing was written")
                } else {
                    write!(f, "; rollback did not finish, run `patchdeck recover`")
                }
            }
            Error::RecoveryFailed { journal, cause } => write!(
                f,
                "cannot recover the interrupted commit recorded in {}: {cause}",
                journal.display()
            ),
            Error::Foreign { why, .. } => f.write_str(why),
            Error::LockFailed { lock, cause } => write!(
                f,
                "cannot take the workspace lock {}: {cause}; nothing was written",
                lock.display()
            ),
            Error::Untrusted { path, why } => {
                write!(f, "{}: {why}; nothing was written", path.display())
            }
            Error::UndoFailed {
                path,
                cause,
                restored: false,
            } => write!(
                f,
                "cannot undo: the undo history {} cannot be read: {cause}; nothing was written",
                path.display()
            ),
            Error::UndoUnreadable { path, cause } => write!(
                f,
                "cannot undo: {} cannot be read to check it is as the commit left it: {cause}; nothing was written",
                path.display()
            ),
            Error::UndoFailed {
                path,
                cause,
                restored: true,
            } => write!(
                f,
                "the files were restored, but their record in {} could not be removed: {cause}; the next patchdeck command that writes finishes it",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::ReadInput { cause, .. } | Error::Io { cause, .. } => Some(cause),
            _ => None,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
