//! What stops a plan, what lifts it, and the overrides a plan uses: one vocabulary for the
//! command line's flags, the reviewer's keys and the report.

use crate::model::{ChangeId, FilePatch};
use crate::problem::ProblemKind;
use crate::review::rules::{self, FileOverride, RELOCATE};
use crate::review::Decisions;
use crate::verify::{FileCheck, Problem, Status};

/// A reason the plan cannot be committed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocker {
    /// What kind of problem it is (the file's or change's own, or one the plan found).
    pub kind: ProblemKind,
    pub file: usize,
    pub change: Option<ChangeId>,
    /// `conflict` or `invalid`: which exit status the blocker leads to.
    pub status: Status,
    /// What is wrong, without a remedy (each client names its own way to ask for one).
    pub message: String,
    /// The explicit override that would let it be written, when there is one (the reviewer
    /// names its key for it).
    pub remedy: Option<Remedy>,
    /// What the command line needs to write it: every flag, and the changes no flag writes
    /// (empty when nothing helps).
    pub cli_hint: String,
    /// True when the blocker only restates a problem the verification reports on the file or
    /// change, adding no hint: `check`, which shows those problems, does not repeat it.
    pub restates_problem: bool,
}

/// An explicit choice of the person that lifts a blocker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// An override of the file's problem: its SHA-256, its hard links, the file it creates
    /// over.
    File(FileOverride),
    /// Apply the change where its expected lines were found.
    Relocate,
}

impl Remedy {
    /// Its long option on the command line, without the dashes.
    pub fn long(self) -> &'static str {
        match self {
            Remedy::File(how) => how.long(),
            Remedy::Relocate => RELOCATE,
        }
    }

    /// How the command line asks for it, and what it does.
    pub fn cli_hint(self) -> String {
        let does = match self {
            Remedy::File(FileOverride::Sha) => "writes it anyway when every change still verifies",
            Remedy::File(FileOverride::HardLink) => "writes it anyway",
            Remedy::File(FileOverride::Overwrite) => "writes it over the file that is there",
            Remedy::Relocate => "applies it there",
        };
        format!("--{} {does}", self.long())
    }
}

impl Blocker {
    /// A conflict between two file patches of the batch, held on `file`: no flag lifts it,
    /// only rejecting the changes of one of them.
    pub(super) fn between_files(kind: ProblemKind, file: usize, message: String) -> Blocker {
        Blocker {
            kind,
            file,
            change: None,
            status: Status::Conflict,
            restates_problem: false,
            remedy: None,
            cli_hint: String::new(),
            message,
        }
    }

    /// The message with the command line's remedy, as the CLI and the report say it.
    pub fn cli_text(&self) -> String {
        format!("{}{}", self.message, self.cli_hint)
    }
}

/// An explicit override the plan uses; the report and the commit summary list every one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Override {
    /// A file written over one of its problems: a SHA-256 that differs from the batch's,
    /// other hard links (which keep the old content), or the file that existed where the batch
    /// creates one.
    File { file: usize, how: FileOverride },
    /// An edited change written over the lines the person saw at its range, which are not the
    /// batch's expected lines.
    EditedOver {
        file: usize,
        change: ChangeId,
        at: usize,
    },
    /// A change applied where the person placed it instead of where it said.
    Placed {
        file: usize,
        change: ChangeId,
        from: usize,
        to: usize,
    },
    /// A change applied where its expected lines were found instead of where it said.
    Relocated {
        file: usize,
        change: ChangeId,
        from: usize,
        to: usize,
    },
}

/// What a file blocked by file-level problems needs to be written: every override flag its
/// problems and its selected changes call for, and the changes no flag can write. Empty when
/// nothing helps (a missing file, a path outside the root...).
pub(super) fn flags_hint(
    file: &FilePatch,
    check: &FileCheck,
    decisions: &Decisions,
    selected: &[usize],
    blocking: &[&Problem],
) -> String {
    let mut flags = Vec::new();
    let mut cannot = Vec::new();
    for problem in blocking {
        match FileOverride::lifting(problem.kind) {
            Some(how) => flags.push(Remedy::File(how)),
            // No flag writes over this one.
            None => return String::new(),
        }
    }
    let sha_mismatch = blocking.iter().any(|p| p.kind == ProblemKind::ShaMismatch);
    for &ci in selected {
        let (change, change_check) = (&file.changes[ci], &check.changes[ci]);
        let name = format!(
            "#{} {}",
            ci + 1,
            change.key.as_deref().unwrap_or(change.id.as_str())
        );
        if change_check.status == Status::Ok {
            if sha_mismatch && rules::unverified_position(change_check) {
                cannot.push(format!("{name} (an insertion, its position unverified)"));
            }
        } else if change_check.found_at().is_some() && change_check.status == Status::Conflict {
            if !decisions.relocated(&change.id) && !flags.contains(&Remedy::Relocate) {
                flags.push(Remedy::Relocate);
            }
        } else {
            cannot.push(name);
        }
    }
    let flags: Vec<String> = flags.iter().map(|f| format!("--{}", f.long())).collect();
    let mut hint = format!(" (to write it, apply with {}", flags.join(" "));
    if !cannot.is_empty() {
        hint.push_str(&format!(
            "; and reject change{} {}, which no flag writes",
            if cannot.len() == 1 { "" } else { "s" },
            cannot.join(", ")
        ));
    }
    hint.push(')');
    hint
}
