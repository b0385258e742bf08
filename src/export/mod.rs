//! Exporting a batch as decided: the changes the decisions select, as a fresh batch rebased on
//! the workspace as it is now, so that a plain `apply` of it writes exactly what `apply` with
//! those decisions writes.
//!
//! The export is made from the [`Plan`]: it knows, for every file, the selected changes in
//! file order, where each one lands after every move (relocated, placed, shifted past changes
//! applied already) and what it writes (edited or its own lines). A plan that is blocked is
//! not exported: the refusal carries the plan's blockers, the same ones `apply` reports.
//! Two forms: TUL-002 (`tul002.rs`), which keeps keys, descriptions and IDs and takes its
//! SHA-256, line numbers and expected lines from the files now, but can say only line edits
//! of UTF-8 text files (no deletion, rename, copy or mode); and a git-style unified diff, the
//! plan as [`crate::diff_writer`] writes it, which says every write `apply` can make but
//! carries no key. Nothing here reads or writes the disk.

mod tul002;

use crate::model::ChangeId;
use crate::plan::{Blocker, Plan};
use crate::review::Decisions;
use crate::verify::Checked;
use crate::verify::Status;
use std::fmt;

/// The form of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A TUL-002 `workspace_write_patch` batch.
    Tul002,
    /// A git-style unified diff (creations, deletions and modes in git's extended headers).
    Unified,
}

impl Format {
    /// Every form, by the name the command line takes.
    pub const ALL: &'static [(&'static str, Format)] =
        &[("tul002", Format::Tul002), ("unified", Format::Unified)];

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, format)| *format)
    }
}

/// An exported batch.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The batch, as a file holds it.
    pub bytes: Vec<u8>,
    /// Files it writes.
    pub files: usize,
    /// Changes of the original batch it carries.
    pub changes: usize,
}

/// Why a batch as decided was not exported.
#[derive(Clone, Debug)]
pub enum Refusal {
    /// The decisions select changes that cannot be written: what `apply` with them would
    /// report, and the status it would exit with.
    Blocked {
        blockers: Vec<Blocker>,
        status: Status,
    },
    /// Writes the form cannot say; each names its file patch and changes.
    Inexpressible(Vec<Inexpressible>),
    /// The decisions write nothing (nothing is selected, or every selected change leaves
    /// its file as it is): there is no batch to give.
    Empty,
}

/// One write a form cannot say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inexpressible {
    /// The file's path under the root.
    pub path: String,
    pub file_patch: String,
    /// The changes concerned, as a person names them: `#2 "key" (chg-…)`.
    pub changes: Vec<String>,
    pub why: String,
}

impl fmt::Display for Inexpressible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (file patch {})", self.path, self.file_patch)?;
        if !self.changes.is_empty() {
            write!(
                f,
                ", change{} {}",
                if self.changes.len() == 1 { "" } else { "s" },
                self.changes.join(", ")
            )?;
        }
        write!(f, ": {}", self.why)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Blocked { blockers, .. } => {
                let said: Vec<String> = blockers.iter().map(Blocker::cli_text).collect();
                write!(f, "blocked: {}", said.join("; "))
            }
            Refusal::Inexpressible(writes) => {
                let said: Vec<String> = writes.iter().map(ToString::to_string).collect();
                write!(f, "TUL-002 cannot say {}", said.join("; "))
            }
            Refusal::Empty => f.write_str(
                "nothing to export: no change is selected, or every selected change leaves its file as it is",
            ),
        }
    }
}

impl Refusal {
    /// What to do about it, when something helps.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Refusal::Inexpressible(_) => Some(
                "export with --to unified, a git diff that says creations, deletions, renames, modes and every line ending; or reject those changes",
            ),
            Refusal::Empty => Some("`patchdeck check INPUT` shows what would be written"),
            Refusal::Blocked { .. } => None,
        }
    }
}

/// Exports the changes `decisions` select from a checked batch, rebased on the files as they
/// were read, in `format`.
pub fn export(
    checked: &Checked,
    decisions: &Decisions,
    format: Format,
) -> Result<Exported, Refusal> {
    let plan = checked.plan(decisions);
    if let Some(status) = plan.blocking_status() {
        return Err(Refusal::Blocked {
            blockers: plan.blockers,
            status,
        });
    }
    let exported = match format {
        Format::Tul002 => tul002::write(checked, decisions, &plan)?,
        Format::Unified => unified(&plan),
    };
    if exported.bytes.is_empty() {
        return Err(Refusal::Empty);
    }
    Ok(exported)
}

/// The plan as a git diff: the same text as `patchdeck diff` prints.
fn unified(plan: &Plan) -> Exported {
    let mut bytes = Vec::new();
    let mut files = 0;
    for write in &plan.writes {
        let before = bytes.len();
        crate::diff_writer::write_file(write, &mut bytes).expect("writing to memory");
        files += usize::from(bytes.len() > before);
    }
    Exported {
        bytes,
        files,
        changes: plan.writes.iter().map(|w| w.changes.len()).sum(),
    }
}

/// How a change is named in a refusal: `#2 "key" (chg-…)`.
fn change_name(index: usize, key: Option<&str>, id: &ChangeId) -> String {
    match key {
        Some(key) => format!("#{} \"{key}\" ({id})", index + 1),
        None => format!("#{} ({id})", index + 1),
    }
}
