//! The apply plan: the new bytes of every file the accepted changes touch, computed in memory.
//!
//! Planning takes a verified batch and the review decisions and either produces the complete
//! set of file writes, or lists every blocker (a conflicting or invalid change that was
//! selected, a SHA mismatch not overridden, relocated changes that collide). Nothing is written
//! here; the commit writes a plan that has no blockers, and `diff` prints one.

use crate::content::Content;
use crate::fs::Snapshot;
use crate::lines::{Eol, Lines};
use crate::model::{Batch, ChangeId, FileAction, FilePatch, LineRange};
use crate::problem::ProblemKind;
use crate::review::rules::{self, overridden, Placement, Stuck};
use crate::review::{Decision, Decisions};
use crate::splice::{splice_content, Splice};
use crate::text_lines::TextLines;
use crate::verify::{Checked, FileCheck, Status, Verification};
use std::path::PathBuf;
use std::sync::Arc;

/// What a write does to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    Modify,
    Create,
    Delete,
}

/// Files counted by what happens to them, in words: `2 modified, 1 created`.
pub fn describe_kinds(kinds: impl IntoIterator<Item = WriteKind>) -> String {
    let mut counts = [0usize; 3];
    for kind in kinds {
        counts[match kind {
            WriteKind::Modify => 0,
            WriteKind::Create => 1,
            WriteKind::Delete => 2,
        }] += 1;
    }
    let words = ["modified", "created", "deleted"];
    let parts: Vec<String> = counts
        .iter()
        .zip(words)
        .filter(|&(&n, _)| n > 0)
        .map(|(n, word)| format!("{n} {word}"))
        .collect();
    parts.join(", ")
}

/// One file the commit will write, create or delete.
#[derive(Clone, Debug)]
pub struct FileWrite {
    /// Index of the file patch in the batch.
    pub file: usize,
    /// Path relative to the workspace root.
    pub rel: PathBuf,
    pub kind: WriteKind,
    /// The file as verified (absent for a creation); the commit re-checks it is unchanged.
    pub before: Option<Snapshot>,
    /// The new content (empty for a deletion): runs of the file it is made from, shared, and
    /// the lines the changes write.
    pub after: Content,
    /// The changes written, by their index in the file patch, in file order.
    pub changes: Vec<usize>,
    /// Where each of `changes` is written: the range of the lines it replaces in the content
    /// it applies to (the file as verified, the file a creation copies, or nothing), after
    /// every move the decisions make. In the same order as `changes`.
    pub ranges: Vec<LineRange>,
    /// Permissions for the written file when not the original's (a file restored by `undo`);
    /// `None` keeps the original's, or the default for a new file.
    pub mode: Option<u32>,
    /// Owner and group for the written file when not the original's (a file restored by
    /// `undo`); `None` keeps the original's, or the writer's for a new file.
    pub owner: Option<(u32, u32)>,
    /// Whether the written file is executable, when the batch says (`FilePatch::mode`): the
    /// execute bits follow the read bits, or are cleared; `None` leaves them as they are.
    pub executable: Option<bool>,
    /// Every change it writes puts back the very lines it replaces (or inserts none), so its
    /// new content may be the file as it is: a plan made without contents cannot tell, and
    /// the commit reads such a file before it writes anything, so that a batch that changes
    /// nothing touches nothing (not even patchdeck's folder).
    pub may_be_unchanged: bool,
}

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
    /// Write the file although its SHA-256 differs (when every change still verifies).
    OverrideSha,
    /// Write the file although it has several hard links.
    OverrideHardLink,
    /// Write a file the batch creates over the file that exists.
    Overwrite,
    /// Apply the change where its expected lines were found.
    Relocate,
}

impl Remedy {
    /// How the command line asks for it.
    pub fn cli_hint(self) -> &'static str {
        match self {
            Remedy::OverrideSha => {
                "--allow-sha-mismatch writes it anyway when every change still verifies"
            }
            Remedy::OverrideHardLink => "--allow-hard-links writes it anyway",
            Remedy::Overwrite => "--allow-overwrite writes it over the file that is there",
            Remedy::Relocate => "--relocate applies it there",
        }
    }
}

impl Blocker {
    /// A conflict between two file patches of the batch, held on `file`: no flag lifts it,
    /// only rejecting the changes of one of them.
    fn between_files(kind: ProblemKind, file: usize, message: String) -> Blocker {
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
    /// A file written although its SHA-256 differs from the batch's.
    ShaMismatch { file: usize },
    /// A file with several hard links written anyway: its other names keep the old content.
    HardLink { file: usize },
    /// A file the batch creates, written over the file that existed there.
    Overwrite { file: usize },
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

#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub writes: Vec<FileWrite>,
    pub blockers: Vec<Blocker>,
    pub overrides: Vec<Override>,
    /// Whether each write's `after` holds its new content: a plan made without contents
    /// commits only with each content made as its file is staged
    /// ([`crate::commit::NewContents::Made`]).
    pub contents: Contents,
}

impl Plan {
    pub fn is_blocked(&self) -> bool {
        !self.blockers.is_empty()
    }

    /// The worst status among the blockers.
    pub fn blocking_status(&self) -> Option<Status> {
        self.blockers.iter().map(|b| b.status).max()
    }
}

/// What a file blocked by file-level problems needs to be written: every override flag its
/// problems and its selected changes call for, and the changes no flag can write. Empty when
/// nothing helps (a missing file, a path outside the root...).
fn flags_hint(
    file: &crate::model::FilePatch,
    check: &crate::verify::FileCheck,
    decisions: &Decisions,
    selected: &[usize],
    blocking: &[&crate::verify::Problem],
) -> String {
    let mut flags = Vec::new();
    let mut cannot = Vec::new();
    for problem in blocking {
        match problem.kind {
            ProblemKind::ShaMismatch => flags.push("--allow-sha-mismatch"),
            ProblemKind::HardLink => flags.push("--allow-hard-links"),
            ProblemKind::FileExists => flags.push("--allow-overwrite"),
            // No flag writes over this one.
            _ => return String::new(),
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
            if !decisions.relocated(&change.id) && !flags.contains(&"--relocate") {
                flags.push("--relocate");
            }
        } else {
            cannot.push(name);
        }
    }
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

impl Checked {
    /// Plans the writes the decisions select.
    pub fn plan(&self, decisions: &Decisions) -> Plan {
        plan(&self.batch, &self.verification, decisions)
    }

    /// What the decisions would write and what blocks it, without computing new contents.
    pub fn plan_blockers(&self, decisions: &Decisions) -> Plan {
        plan_with(
            &self.batch,
            &self.verification,
            decisions,
            Contents::Skipped,
        )
    }

    /// The new content of a write of a plan the decisions made, from `target`, its target's
    /// bytes (see [`content_of`]): what a plan made without contents
    /// ([`Checked::plan_blockers`]) has the commit make as it stages each file.
    pub fn content_of(
        &self,
        decisions: &Decisions,
        write: &FileWrite,
        target: Option<&Snapshot>,
    ) -> Content {
        content_of(
            &self.batch.files[write.file],
            &self.verification.files[write.file],
            decisions,
            write,
            target,
        )
    }
}

impl crate::review::Review {
    /// The plan the decisions make: every new content, or what blocks the commit.
    pub fn plan(&self) -> Plan {
        self.checked().plan(self.decisions())
    }

    /// What the decisions would write and what blocks it, without the new contents (see
    /// [`Checked::plan_blockers`]): the commit makes each as it stages its file.
    pub fn plan_without_contents(&self) -> Plan {
        self.checked().plan_blockers(self.decisions())
    }
}

/// Plans the writes for the selected changes of a verified batch.
pub fn plan(batch: &Batch, verification: &Verification, decisions: &Decisions) -> Plan {
    plan_with(batch, verification, decisions, Contents::Computed)
}

/// Whether a plan computes the new content of each file it would write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Contents {
    /// Every new file content, in memory, ready to commit.
    #[default]
    Computed,
    /// Only what would be written and what blocks it (`check`, and `apply`, whose commit
    /// makes each content as it stages the file): every `after` is left empty, which saves
    /// computing, and holding, a second copy of every file.
    Skipped,
}

/// [`plan`], choosing whether the new contents are computed.
pub fn plan_with(
    batch: &Batch,
    verification: &Verification,
    decisions: &Decisions,
    contents: Contents,
) -> Plan {
    // Each file is planned on its own (splicing its new content is most of the work), on
    // every core; the plans are joined in the batch's order.
    let files: Vec<(usize, (&FilePatch, &FileCheck))> = batch
        .files
        .iter()
        .zip(&verification.files)
        .enumerate()
        .collect();
    let per_file = crate::parallel::map(&files, |&(index, (file, check))| {
        let mut plan = Plan::default();
        let selected: Vec<usize> = file
            .changes
            .iter()
            .enumerate()
            .filter(|(_, c)| decisions.get(&c.id).is_selected())
            .map(|(i, _)| i)
            .collect();
        if selected.is_empty() {
            return plan;
        }
        let block = |plan: &mut Plan,
                     kind: ProblemKind,
                     change: Option<ChangeId>,
                     status: Status,
                     message: String,
                     remedy: Option<Remedy>| {
            plan.blockers.push(Blocker {
                kind,
                file: index,
                change,
                status,
                message,
                remedy,
                cli_hint: String::new(),
                restates_problem: false,
            })
        };
        let restated = |plan: &mut Plan, hint: &str| {
            if let Some(last) = plan.blockers.last_mut() {
                last.cli_hint = hint.to_owned();
                last.restates_problem = hint.is_empty();
            }
        };
        let name = check
            .resolved
            .as_ref()
            .map_or_else(|| file.doc_path.clone(), |r| r.rel().display().to_string());

        let file_blocking: Vec<_> = check
            .problems
            .iter()
            .filter(|p| p.blocking && !overridden(p.kind, file, decisions))
            .collect();
        // Every selected change stands applied already: nothing is written to the file, so
        // what only writing it would need (an override of its SHA-256 or its other names)
        // stops nothing.
        let nothing_to_write = selected
            .iter()
            .all(|&ci| check.changes[ci].placed == crate::verify::Placed::Applied);
        if nothing_to_write
            && file_blocking
                .iter()
                .all(|p| matches!(p.kind, ProblemKind::ShaMismatch | ProblemKind::HardLink))
        {
            return plan;
        }
        if !file_blocking.is_empty() || check.resolved.is_none() {
            let status = if check.status == Status::Invalid {
                Status::Invalid
            } else {
                Status::Conflict
            };
            let hint = flags_hint(file, check, decisions, &selected, &file_blocking);
            for (i, problem) in file_blocking.into_iter().enumerate() {
                let hint = if i == 0 { hint.as_str() } else { "" };
                let remedy = match problem.kind {
                    ProblemKind::ShaMismatch => Some(Remedy::OverrideSha),
                    ProblemKind::HardLink => Some(Remedy::OverrideHardLink),
                    ProblemKind::FileExists => Some(Remedy::Overwrite),
                    _ => None,
                };
                block(
                    &mut plan,
                    problem.kind,
                    None,
                    status,
                    format!("{name}: {}", problem.message),
                    remedy,
                );
                restated(&mut plan, hint);
            }
            return plan;
        }
        // The overrides this file's write would use; claimed only if it is written.
        let mut overrides = Vec::new();
        let sha_overridden = check.sha_mismatch();
        if sha_overridden {
            overrides.push(Override::ShaMismatch { file: index });
        }
        if check
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::HardLink)
        {
            overrides.push(Override::HardLink { file: index });
        }

        let mut splices: Vec<(LineRange, usize, &TextLines)> = Vec::with_capacity(selected.len());
        let mut blocked = false;
        for &ci in &selected {
            let change = &file.changes[ci];
            let change_check = &check.changes[ci];
            let mut range = change.range;
            match rules::placement(file, check, ci, decisions, sha_overridden) {
                Ok(Placement::AsIs) => {}
                // Its lines are in the file already: there is nothing to write.
                Ok(Placement::AlreadyApplied) => continue,
                Ok(Placement::Shifted { to }) => range.start = to,
                Ok(Placement::Placed { to }) => {
                    overrides.push(Override::Placed {
                        file: index,
                        change: change.id.clone(),
                        from: range.start,
                        to,
                    });
                    range.start = to;
                }
                Ok(Placement::EditedOver { at }) => overrides.push(Override::EditedOver {
                    file: index,
                    change: change.id.clone(),
                    at,
                }),
                Ok(Placement::Relocated { to }) => {
                    overrides.push(Override::Relocated {
                        file: index,
                        change: change.id.clone(),
                        from: range.start,
                        to,
                    });
                    range.start = to;
                }
                Err(Stuck::Unresolved { status, found_at }) => {
                    blocked = true;
                    let why = change_check
                        .problems
                        .iter()
                        .map(|p| p.message.as_str())
                        .collect::<Vec<_>>()
                        .join("; ");
                    let hint = if found_at.is_some() {
                        " (--relocate applies it there)"
                    } else {
                        ""
                    };
                    let kind = change_check
                        .problems
                        .iter()
                        .find(|p| p.blocking)
                        .map_or(ProblemKind::ExpectedMismatch, |p| p.kind);
                    block(
                        &mut plan,
                        kind,
                        Some(change.id.clone()),
                        status,
                        format!(
                            "{name}: change #{} {}: {why}",
                            ci + 1,
                            change.key.as_deref().unwrap_or(change.id.as_str())
                        ),
                        found_at.map(|_| Remedy::Relocate),
                    );
                    restated(&mut plan, hint);
                    continue;
                }
                Err(Stuck::UnverifiedUnderOverride) => {
                    // The override writes a changed file only where each change still finds
                    // its expected lines; an insertion has none, so nothing says it lands
                    // where meant.
                    blocked = true;
                    block(
                        &mut plan,
                        ProblemKind::UnverifiedPosition,
                        Some(change.id.clone()),
                        Status::Conflict,
                        format!(
                            "{name}: change #{} {}: an insertion ({}) in a file whose SHA-256 differs: it has no expected lines, so its position cannot be verified and --allow-sha-mismatch does not write it (reject it to write the file's other changes)",
                            ci + 1,
                            change.key.as_deref().unwrap_or(change.id.as_str()),
                            change.range.describe_lines()
                        ),
                        None,
                    );
                    continue;
                }
            }
            let new_lines: &TextLines = match decisions.get(&change.id) {
                Decision::Edit(lines) => lines,
                _ => &change.new_lines,
            };
            splices.push((range, ci, new_lines));
        }
        if blocked {
            return plan;
        }
        if splices.is_empty()
            && selected
                .iter()
                .all(|&ci| check.changes[ci].placed == crate::verify::Placed::Applied)
        {
            // Every selected change is in the file already: nothing to write (and a file the
            // batch creates, which exists as it would create it, is not created again).
            return plan;
        }
        // Relocation can reorder changes or make them collide; a batch's own changes may
        // overlap too. An insertion sorts before a replacement starting at the same line.
        splices.sort_by_key(|(range, ci, _)| (range.start, range.count > 0, *ci));
        if let Some(pair) = splices.windows(2).find(|w| w[0].0.overlaps(w[1].0)) {
            let (a, b) = (&file.changes[pair[0].1], &file.changes[pair[1].1]);
            let relocated = [a, b].iter().any(|c| {
                overrides
                    .iter()
                    .any(|o| matches!(o, Override::Relocated { change, .. } if *change == c.id))
            });
            block(
                &mut plan,
                ProblemKind::Overlap,
                Some(b.id.clone()),
                Status::Conflict,
                format!(
                    "{name}: {}change {} (lines {}) overlaps change {} (lines {})",
                    if relocated { "after relocation, " } else { "" },
                    b.key.as_deref().unwrap_or(b.id.as_str()),
                    pair[1].0.describe(),
                    a.key.as_deref().unwrap_or(a.id.as_str()),
                    pair[0].0.describe()
                ),
                None,
            );
            return plan;
        }

        let rel = check
            .resolved
            .as_ref()
            .expect("resolved above")
            .rel()
            .to_path_buf();
        // A creation over a file that exists (the person allowed it): the file is replaced.
        let overwriting = check.action == FileAction::Create && check.snapshot.is_some();
        if overwriting {
            overrides.push(Override::Overwrite { file: index });
        }
        let kind = match check.action {
            FileAction::Create if overwriting => WriteKind::Modify,
            FileAction::Create => WriteKind::Create,
            FileAction::Delete if selected.len() == file.changes.len() => WriteKind::Delete,
            FileAction::Delete => {
                block(
                    &mut plan,
                    ProblemKind::PartialDelete,
                    None,
                    Status::Invalid,
                    format!("{name}: a file deletion is accepted or rejected as a whole"),
                    None,
                );
                return plan;
            }
            FileAction::Modify => WriteKind::Modify,
        };
        plan.overrides.extend(overrides);
        // Each change writes the lines it replaces: its expected lines, or, for a change
        // edited over the lines on disk, those lines.
        let may_be_unchanged = check.action != FileAction::Create
            && splices.iter().all(|(_, ci, new_lines)| {
                let change = &file.changes[*ci];
                match (decisions.edited_over(&change.id), &change.expected) {
                    (Some(seen), _) => {
                        seen.len() == new_lines.len() && new_lines.iter().eq(seen.iter())
                    }
                    (None, Some(expected)) => expected == *new_lines,
                    (None, None) => new_lines.is_empty(),
                }
            });
        let mut write = FileWrite {
            file: index,
            rel,
            kind,
            before: check.snapshot.clone(),
            after: Content::default(),
            changes: splices.iter().map(|(_, ci, _)| *ci).collect(),
            ranges: splices.iter().map(|(range, _, _)| *range).collect(),
            mode: None,
            owner: None,
            executable: file.mode.map(|m| m == crate::model::FileMode::Executable),
            may_be_unchanged,
        };
        if contents == Contents::Computed {
            write.after = content_of(file, check, decisions, &write, check.snapshot.as_ref());
        }
        plan.writes.push(write);
        plan
    });
    let mut plan = Plan {
        contents,
        ..Plan::default()
    };
    for part in per_file {
        plan.writes.extend(part.writes);
        plan.blockers.extend(part.blockers);
        plan.overrides.extend(part.overrides);
    }
    block_files_written_twice(batch, &mut plan);
    block_files_under_files(batch, &mut plan);
    plan
}

/// The new content of a planned write (empty for a deletion): its changes spliced at the
/// ranges the plan chose into `target`, the bytes of its target (the verified snapshot, or the
/// same bytes the commit has read again under its lock), or, for a creation, into nothing or
/// the file it copies. [`plan`] makes every content with it at once; a plan made without
/// contents has the commit make each with it as the file is staged.
pub fn content_of(
    file: &FilePatch,
    check: &FileCheck,
    decisions: &Decisions,
    write: &FileWrite,
    target: Option<&Snapshot>,
) -> Content {
    if write.kind == WriteKind::Delete {
        return Content::default();
    }
    let spliced: Vec<Splice> = write
        .changes
        .iter()
        .zip(&write.ranges)
        .map(|(&ci, &range)| {
            let change = &file.changes[ci];
            let edited = match decisions.get(&change.id) {
                Decision::Edit(lines) => Some(lines),
                _ => None,
            };
            Splice {
                range,
                new_lines: edited.unwrap_or(&change.new_lines),
                final_newline: change.eof_newline,
                // Lines the reviewer edited take the file's ending.
                new_eols: change.new_eols.as_deref().filter(|_| edited.is_none()),
            }
        })
        .collect();
    // A creation starts from nothing (or the file it copies), whatever is there.
    let base = match check.action {
        FileAction::Create => check.copied_from.as_ref(),
        _ => target,
    };
    let eol = file.new_file_eol.unwrap_or(Eol::Lf);
    match base {
        Some(base) => splice_content(base.bytes(), &base.lines(), &spliced, eol),
        None => {
            let nothing = Arc::default();
            splice_content(&nothing, &Lines::split(&nothing), &spliced, eol)
        }
    }
}

/// A batch that writes `x` as a file and also writes `x/y` needs `x` to be a file and a folder
/// at once: the commit could only fail halfway. Blocked here, where both are known, naming
/// both (paths compared as patchdeck identifies files: ignoring case).
fn block_files_under_files(batch: &Batch, plan: &mut Plan) {
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
fn block_files_written_twice(batch: &Batch, plan: &mut Plan) {
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
