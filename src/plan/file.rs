//! Planning one file patch, in named steps: the changes selected; the file's own problems (an
//! override not made stops it); where each change is written (as it is, shifted, relocated,
//! placed, edited over the lines on disk, or not at all when applied already); changes that
//! would overlap; and the write itself.

use super::blocker::{flags_hint, Blocker, Override, Remedy};
use super::content::content_of;
use super::{Contents, FileWrite, Plan, WriteKind};
use crate::content::Content;
use crate::model::{ChangeId, FileAction, FileMode, FilePatch, LineRange};
use crate::problem::ProblemKind;
use crate::review::rules::{self, overridden, FileOverride, Placement, Stuck};
use crate::review::{Decision, Decisions};
use crate::text_lines::TextLines;
use crate::verify::{FileCheck, Placed, Status};

/// A change to write: where, which change (by its index), and the lines it writes.
type Splice<'a> = (LineRange, usize, &'a TextLines);

/// The plan of one file patch being made.
pub(super) struct FilePlanner<'a> {
    index: usize,
    file: &'a FilePatch,
    check: &'a FileCheck,
    decisions: &'a Decisions,
    /// The file as messages name it: its path under the root, or its docPath.
    name: String,
    plan: Plan,
}

impl<'a> FilePlanner<'a> {
    /// The plan of file patch `index`: its write, or what blocks it (nothing for a file none
    /// of whose changes is selected).
    pub(super) fn plan(
        index: usize,
        file: &'a FilePatch,
        check: &'a FileCheck,
        decisions: &'a Decisions,
        contents: Contents,
    ) -> Plan {
        let selected: Vec<usize> = file
            .changes
            .iter()
            .enumerate()
            .filter(|(_, c)| decisions.writes(&c.id))
            .map(|(i, _)| i)
            .collect();
        if selected.is_empty() {
            return Plan::default();
        }
        let mut planner = FilePlanner {
            index,
            file,
            check,
            decisions,
            name: check.display_path(file),
            plan: Plan::default(),
        };
        if planner.stopped_by_the_file(&selected) {
            return planner.plan;
        }
        let mut overrides = planner.file_overrides();
        let Some(mut splices) = planner.place_changes(&selected, &mut overrides) else {
            return planner.plan;
        };
        let all_applied = selected
            .iter()
            .all(|&ci| check.changes[ci].placed == Placed::Applied);
        // Every selected change is in the file already: nothing to write (and a file the
        // batch creates, which exists as it would create it, is not created again). A deletion
        // whose file exists is never in the file already, even when it removes no line (an
        // empty file's deletion).
        let deletes = check.action == FileAction::Delete;
        if (splices.is_empty() && all_applied && !deletes)
            || planner.overlap(&mut splices, &overrides)
        {
            return planner.plan;
        }
        planner.write(&selected, &splices, overrides, contents);
        planner.plan
    }

    fn block(
        &mut self,
        kind: ProblemKind,
        change: Option<ChangeId>,
        status: Status,
        message: String,
        remedy: Option<Remedy>,
    ) {
        self.plan.blockers.push(Blocker {
            kind,
            file: self.index,
            change,
            status,
            message,
            remedy,
            cli_hint: String::new(),
            restates_problem: false,
        })
    }

    /// Gives the last blocker its command line hint; one without restates a problem.
    fn restated(&mut self, hint: &str) {
        if let Some(last) = self.plan.blockers.last_mut() {
            last.cli_hint = hint.to_owned();
            last.restates_problem = hint.is_empty();
        }
    }

    /// Whether the file's own problems end its planning: every one no override lifts yet
    /// blocks it, with the flags that would. A file whose selected changes all stand applied
    /// is written nothing, so an override only writing it would need (its SHA-256, its other
    /// names) stops nothing either.
    fn stopped_by_the_file(&mut self, selected: &[usize]) -> bool {
        let (file, check) = (self.file, self.check);
        let blocking: Vec<_> = check
            .problems
            .iter()
            .filter(|p| p.blocking && !overridden(p.kind, file, self.decisions))
            .collect();
        let nothing_to_write = selected
            .iter()
            .all(|&ci| check.changes[ci].placed == Placed::Applied);
        if nothing_to_write
            && blocking
                .iter()
                .all(|p| matches!(p.kind, ProblemKind::ShaMismatch | ProblemKind::HardLink))
        {
            return true;
        }
        if blocking.is_empty() && check.resolved.is_some() {
            return false;
        }
        let status = match check.status {
            Status::Invalid => Status::Invalid,
            _ => Status::Conflict,
        };
        let hint = flags_hint(file, check, self.decisions, selected, &blocking);
        for (i, problem) in blocking.into_iter().enumerate() {
            let remedy = FileOverride::lifting(problem.kind).map(Remedy::File);
            let message = format!("{}: {}", self.name, problem.message);
            self.block(problem.kind, None, status, message, remedy);
            self.restated(if i == 0 { hint.as_str() } else { "" });
        }
        true
    }

    /// The overrides of the file's own problems its write would use; claimed only if it is
    /// written.
    fn file_overrides(&self) -> Vec<Override> {
        let file = self.index;
        let mut overrides = Vec::new();
        if self.check.sha_mismatch() {
            overrides.push(Override::File {
                file,
                how: FileOverride::Sha,
            });
        }
        if self
            .check
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::HardLink)
        {
            overrides.push(Override::File {
                file,
                how: FileOverride::HardLink,
            });
        }
        overrides
    }

    /// Where each selected change is written, with the overrides that takes; `None` when a
    /// change cannot be written (each such change blocks the file).
    fn place_changes(
        &mut self,
        selected: &[usize],
        overrides: &mut Vec<Override>,
    ) -> Option<Vec<Splice<'a>>> {
        let sha_overridden = self.check.sha_mismatch();
        let mut splices = Vec::with_capacity(selected.len());
        let mut blocked = false;
        for &ci in selected {
            let change = &self.file.changes[ci];
            let placement =
                rules::placement(self.file, self.check, ci, self.decisions, sha_overridden);
            let range = match placement {
                Ok(placement) => match self.placed_range(ci, placement, overrides) {
                    Some(range) => range,
                    // Its lines are in the file already: there is nothing to write.
                    None => continue,
                },
                Err(stuck) => {
                    blocked = true;
                    self.stuck(ci, stuck);
                    continue;
                }
            };
            let new_lines: &TextLines = match self.decisions.get(&change.id) {
                Decision::Edit(lines) => lines,
                _ => &change.new_lines,
            };
            splices.push((range, ci, new_lines));
        }
        (!blocked).then_some(splices)
    }

    /// The range change `ci` is written at, placed so (`None`: applied already), noting the
    /// override a person's choice of place is.
    fn placed_range(
        &self,
        ci: usize,
        placement: Placement,
        overrides: &mut Vec<Override>,
    ) -> Option<LineRange> {
        let change = &self.file.changes[ci];
        let (file, id, mut range) = (self.index, change.id.clone(), change.range);
        match placement {
            Placement::AsIs => {}
            Placement::AlreadyApplied => return None,
            Placement::Shifted { to } => range.start = to,
            Placement::Placed { to } => {
                let from = range.start;
                overrides.push(Override::Placed {
                    file,
                    change: id,
                    from,
                    to,
                });
                range.start = to;
            }
            Placement::EditedOver { at } => overrides.push(Override::EditedOver {
                file,
                change: id,
                at,
            }),
            Placement::Relocated { to } => {
                let from = range.start;
                overrides.push(Override::Relocated {
                    file,
                    change: id,
                    from,
                    to,
                });
                range.start = to;
            }
        }
        Some(range)
    }

    /// Blocks change `ci`, which cannot be written as it is decided, saying why.
    fn stuck(&mut self, ci: usize, stuck: Stuck) {
        let change = &self.file.changes[ci];
        let change_check = &self.check.changes[ci];
        let named = format!(
            "{}: change #{} {}",
            self.name,
            ci + 1,
            change.key.as_deref().unwrap_or(change.id.as_str())
        );
        match stuck {
            Stuck::Unresolved { status, found_at } => {
                let why = change_check
                    .problems
                    .iter()
                    .map(|p| p.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ");
                let kind = change_check
                    .problems
                    .iter()
                    .find(|p| p.blocking)
                    .map_or(ProblemKind::ExpectedMismatch, |p| p.kind);
                let remedy = found_at.map(|_| Remedy::Relocate);
                let message = format!("{named}: {why}");
                self.block(kind, Some(change.id.clone()), status, message, remedy);
                let hint = remedy.map(|r| format!(" ({})", r.cli_hint()));
                self.restated(hint.as_deref().unwrap_or(""));
            }
            Stuck::UnverifiedUnderOverride => {
                // The override writes a changed file only where each change still finds its
                // expected lines; an insertion has none, so nothing says it lands where meant.
                let message = format!(
                    "{named}: an insertion ({}) in a file whose SHA-256 differs: it has no expected lines, so its position cannot be verified and --{} does not write it (reject it to write the file's other changes)",
                    change.range.describe_lines(),
                    FileOverride::Sha.long()
                );
                let id = Some(change.id.clone());
                self.block(
                    ProblemKind::UnverifiedPosition,
                    id,
                    Status::Conflict,
                    message,
                    None,
                );
            }
        }
    }

    /// Whether two changes would be written over the same lines (relocation can reorder
    /// changes or make them collide; a batch's own changes may overlap too): the later one
    /// blocks. An insertion sorts before a replacement starting at the same line.
    fn overlap(&mut self, splices: &mut [Splice<'a>], overrides: &[Override]) -> bool {
        splices.sort_by_key(|(range, ci, _)| (range.start, range.count > 0, *ci));
        let Some(pair) = splices.windows(2).find(|w| w[0].0.overlaps(w[1].0)) else {
            return false;
        };
        let (a, b) = (&self.file.changes[pair[0].1], &self.file.changes[pair[1].1]);
        let relocated = [a, b].iter().any(|c| {
            overrides
                .iter()
                .any(|o| matches!(o, Override::Relocated { change, .. } if *change == c.id))
        });
        let message = format!(
            "{}: {}change {} (lines {}) overlaps change {} (lines {})",
            self.name,
            if relocated { "after relocation, " } else { "" },
            b.key.as_deref().unwrap_or(b.id.as_str()),
            pair[1].0.describe(),
            a.key.as_deref().unwrap_or(a.id.as_str()),
            pair[0].0.describe()
        );
        let id = Some(b.id.clone());
        self.block(ProblemKind::Overlap, id, Status::Conflict, message, None);
        true
    }

    /// The file's write: its kind, where each change goes, and (when the plan computes them)
    /// its new content; with the overrides it uses. A deletion is accepted or rejected whole.
    fn write(
        &mut self,
        selected: &[usize],
        splices: &[Splice<'a>],
        mut overrides: Vec<Override>,
        contents: Contents,
    ) {
        let (file, check) = (self.file, self.check);
        let rel = check.resolved.as_ref().expect("resolved").rel().clone();
        // A creation over a file that exists (the person allowed it): the file is replaced.
        let overwriting = check.action == FileAction::Create && check.snapshot.is_some();
        // One that replaces a file the batch moves or deletes is what the batch says.
        if overwriting && !file.replaces {
            overrides.push(Override::File {
                file: self.index,
                how: FileOverride::Overwrite,
            });
        }
        let kind = match check.action {
            FileAction::Create if overwriting => WriteKind::Modify,
            FileAction::Create => WriteKind::Create,
            FileAction::Delete if selected.len() == file.changes.len() => WriteKind::Delete,
            FileAction::Delete => {
                let message = format!(
                    "{}: a file deletion is accepted or rejected as a whole",
                    self.name
                );
                self.block(
                    ProblemKind::PartialDelete,
                    None,
                    Status::Invalid,
                    message,
                    None,
                );
                return;
            }
            FileAction::Modify => WriteKind::Modify,
        };
        self.plan.overrides.extend(overrides);
        let mut write = FileWrite {
            file: self.index,
            rel,
            kind,
            before: check.snapshot.clone(),
            after: Content::default(),
            changes: splices.iter().map(|(_, ci, _)| *ci).collect(),
            ranges: splices.iter().map(|(range, _, _)| *range).collect(),
            mode: None,
            owner: None,
            // A rename or copy keeps its source's execute bits unless the batch names a mode, as
            // git apply keeps them.
            executable: file.mode.map(|m| m == FileMode::Executable).or_else(|| {
                let source = check.copied_from.as_ref()?;
                (source.stamp.mode & 0o111 != 0).then_some(true)
            }),
            may_be_unchanged: kind != WriteKind::Delete && self.may_be_unchanged(splices),
        };
        if contents == Contents::Computed {
            write.after = content_of(file, check, self.decisions, &write, check.snapshot.as_ref());
        }
        self.plan.writes.push(write);
    }

    /// Whether every change writes back the very lines it replaces: its expected lines, or,
    /// for a change edited over the lines on disk, those lines.
    fn may_be_unchanged(&self, splices: &[Splice<'a>]) -> bool {
        self.check.action != FileAction::Create
            && splices.iter().all(|(_, ci, new_lines)| {
                let change = &self.file.changes[*ci];
                match (self.decisions.edited_over(&change.id), &change.expected) {
                    (Some(seen), _) => {
                        seen.len() == new_lines.len() && new_lines.iter().eq(seen.iter())
                    }
                    (None, Some(expected)) => expected == *new_lines,
                    (None, None) => new_lines.is_empty(),
                }
            })
    }
}
