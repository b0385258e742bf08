//! Turning parsed sections into file patches: modifications, creations, deletions, renames and
//! copies, each section's hunks placed in the file it changes as `git apply` does (without
//! fuzz; see `hunks`), and a section for a file an earlier section changes continuing it.

use super::hunks::{place_all, place_hunk, shared};
use super::seek::Seek;
use super::{mode, DiffFile, Hunk, HunkLine};
use crate::formats::build::{delete_all, Builder, ChangeSpec, Loaded};
use crate::formats::chain::{self, continued, Continuation};
use crate::formats::OnDisk;
use crate::formats::{Files, Source};
use crate::fs::Snapshot;
use crate::lines::{Eol, Lines};
use crate::model::{FileAction, FilePatch, LineRange, LoadProblem};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use std::collections::HashSet;
use std::sync::Arc;

/// Turns parsed sections into file patches, placing every hunk in the file it changes.
pub fn build(
    mut files: Vec<DiffFile<'_>>,
    diff: &Arc<String>,
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
) {
    // File patches of this diff: a later section for one of their files continues it.
    let first = loaded.files.len();
    for section in &mut files {
        written_name(section, tree);
        created_from_nothing(section, tree);
    }
    tree.expect(
        &mut files
            .iter()
            .filter(|section| !section.created)
            .filter_map(|section| section.old_path.as_deref()),
    );
    let once = named_once(&files);
    let mut placed = place_plain(files.iter_mut(), diff, &once, tree).into_iter();
    let mut patches = Patches {
        diff,
        tree,
        builder,
        loaded,
        first,
        once,
    };
    for section in files {
        patches.section(section, placed.next().flatten());
    }
    replace_where_removed(&mut loaded.files, first);
    for file in &mut loaded.files[first..] {
        let paths = std::iter::once(&file.doc_path).chain(&file.copy_from);
        if let Some(problem) = paths.filter_map(|p| control_character(p)).next() {
            file.load_problems.push(problem);
        }
    }
}

/// Where the diff both removes a file (renames it away, or deletes it) and creates one at the
/// same path (a swap of two files, a rotation, a chain of renames that reuses a name), the two
/// file patches (from index `first` on) become one: the creation, which replaces the file
/// there in the same atomic commit (`FilePatch::replaces`), keeping what the removal found
/// wrong with it.
fn replace_where_removed(files: &mut Vec<FilePatch>, first: usize) {
    let mut by_path: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, file) in files.iter().enumerate().skip(first) {
        by_path.entry(file.doc_path.as_str()).or_default().push(i);
    }
    let mut pairs: Vec<(usize, usize)> = by_path
        .values()
        .filter_map(|at| match at.as_slice() {
            [a, b] => {
                let (a, b) = (*a, *b);
                match (files[a].action, files[b].action) {
                    (FileAction::Delete, FileAction::Create) => Some((a, b)),
                    (FileAction::Create, FileAction::Delete) => Some((b, a)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    for &(removal, creation) in &pairs {
        // Renamed away when another file patch is made from it, else deleted.
        let gone = files[removal].doc_path.as_str();
        let how = match files.iter().find(|f| f.copy_from.as_deref() == Some(gone)) {
            Some(to) => format!("renamed to {}", to.doc_path),
            None => "deleted".to_owned(),
        };
        // What the removal found wrong with the file there (it is not the content a deletion
        // expects, it cannot be read) stays a conflict of the file patch that replaces it.
        let removed = &files[removal];
        let of_changes = removed.changes.iter().flat_map(|c| &c.load_problems);
        let kept: Vec<LoadProblem> = removed
            .load_problems
            .iter()
            .chain(of_changes)
            .filter(|p| p.blocking)
            .cloned()
            .collect();
        let creation = &mut files[creation];
        creation.replaces = true;
        creation.load_problems.extend(kept);
        let what = format!("replaces the file there, which is {how}");
        creation.label = Some(match creation.label.take() {
            Some(label) => format!("{label}; {what}"),
            None => what,
        });
    }
    let mut removals: Vec<usize> = pairs.iter().map(|&(removal, _)| removal).collect();
    removals.sort_unstable_by(|a, b| b.cmp(a));
    for at in removals {
        files.remove(at);
    }
}

/// A section's changes placed already (see [`place_plain`]), and whether it had hunks.
type PlacedSection = (Vec<ChangeSpec>, bool);

/// The file patches a diff's sections become, pushed to `loaded` (those of this diff from
/// index `first` on), with what a section needs to become one.
struct Patches<'b, 'i> {
    diff: &'b Arc<String>,
    tree: &'b dyn Files,
    builder: &'b mut Builder<'i>,
    loaded: &'b mut Loaded,
    first: usize,
    /// The paths exactly one section names (see [`named_once`]).
    once: HashSet<String>,
}

impl Patches<'_, '_> {
    /// Turns one section into file patches, by what it does: a creation, a section for a
    /// file an earlier one changes, a deletion, or a modification (a rename or copy
    /// included). `placed`: its changes, when its hunks were placed already.
    fn section(&mut self, mut section: DiffFile<'_>, placed: Option<PlacedSection>) {
        let notes = std::mem::take(&mut section.notes);
        let before = self.loaded.files.len();
        self.section_as(section, placed);
        // Its notes go on the file patch it made (a rename's new file), else on the one it
        // continued.
        let at = match self.loaded.files.len() > before {
            true => before,
            false => self.loaded.files.len().saturating_sub(1),
        };
        if let Some(file) = self.loaded.files.get_mut(at).filter(|_| at >= self.first) {
            for note in notes {
                file.load_problems
                    .push(LoadProblem::note(ProblemKind::ReadAs, note));
            }
        }
    }

    /// [`Patches::section`], the notes aside.
    fn section_as(&mut self, mut section: DiffFile<'_>, placed: Option<PlacedSection>) {
        if self.loaded.label.is_none() {
            self.loaded.label = section.subject.clone();
        }
        if section.created {
            self.create(&section);
            return;
        }
        let Some(old_path) = section.old_path.clone() else {
            return;
        };
        let moves = (section.renamed || section.copied)
            && section.new_path.as_ref().is_some_and(|p| *p != old_path);
        // Only a path named by more than one section can continue an earlier file patch.
        let repeated = !self.once.contains(old_path.as_str());
        let earlier = repeated
            .then(|| continued(&self.loaded.files[self.first..], &old_path))
            .flatten();
        // A rename or copy reads the file as it was, as git's do, where an earlier section
        // only created the name over a file that is there (a swap, a rotation): that file is
        // what it moves. Any other section for a file an earlier one changed continues it.
        let reads_the_original = |k: usize| {
            moves
                && self.loaded.files[self.first + k].action == FileAction::Create
                && self.tree.source(&old_path).is_some()
        };
        if let Some(k) = earlier.filter(|&k| !reads_the_original(k)) {
            self.continue_earlier(&section, self.first + k, moves);
            return;
        }
        // A section placed already needs its file no more (and a workspace that releases
        // files would read it again).
        let disk = match placed {
            Some(_) => OnDisk::Unusable,
            None => self.tree.file(&old_path),
        };
        if section.deleted {
            self.delete(&section, &old_path, &disk);
            return;
        }
        self.modify(&mut section, old_path, moves, &disk, placed);
    }

    /// The file patch of a section that creates a file: one change writing the new lines of
    /// all its hunks, with the file's mode.
    fn create(&mut self, section: &DiffFile<'_>) {
        let Some(path) = section.new_path.clone() else {
            return;
        };
        let mut file = self.builder.file(&path, FileAction::Create);
        file.label = section.subject.clone();
        let new: Vec<HunkLine<'_>> = section
            .hunks
            .iter()
            .flat_map(|h| h.new.iter().copied())
            .collect();
        file.new_file_eol = new.first().map(|l| l.eol).filter(|e| *e != Eol::None);
        self.builder.push(
            &mut file,
            ChangeSpec {
                description: Some(format!("new file {path}")),
                range: Some(LineRange::after(0)),
                new_lines: shared(self.diff, &new),
                new_eols: Some(new.iter().map(|l| l.eol).collect()),
                eof_newline: Some(new.last().is_none_or(|l| l.eol != Eol::None)),
                ..ChangeSpec::default()
            },
        );
        mode::on_creation(section, &mut file);
        self.loaded.files.push(file);
    }

    /// A section for the file the file patch at `at` changes already: it continues that file
    /// patch, or, when it `moves` the file, makes a new one from it (see [`continue_move`]).
    fn continue_earlier(&mut self, section: &DiffFile<'_>, at: usize, moves: bool) {
        let at = match (moves, section.new_path.as_deref()) {
            (true, Some(new_path)) => {
                continue_move(
                    section,
                    self.diff,
                    self.loaded,
                    at,
                    new_path,
                    self.tree,
                    self.builder,
                );
                self.loaded.files.len() - 1
            }
            _ => {
                continue_file(
                    section,
                    self.diff,
                    &mut self.loaded.files[at],
                    self.tree,
                    self.builder,
                );
                at
            }
        };
        mode::on_change(section, &mut self.loaded.files[at], self.builder, false);
    }

    /// The file patch of a section that deletes `old_path`: one change removing the lines of
    /// all its hunks, a conflict when the file (`disk`) is not those lines.
    fn delete(&mut self, section: &DiffFile<'_>, old_path: &str, disk: &OnDisk) {
        let mut file = self.builder.file(old_path, FileAction::Delete);
        file.label = section.subject.clone();
        mode::check_old(section, &mut file);
        let old: Vec<HunkLine<'_>> = section
            .hunks
            .iter()
            .flat_map(|h| h.old.iter().copied())
            .collect();
        let mut spec = ChangeSpec {
            description: Some(format!("delete {old_path}")),
            range: Some(LineRange {
                start: 1,
                count: old.len(),
            }),
            expected: Some(shared(self.diff, &old)),
            ..ChangeSpec::default()
        };
        if let OnDisk::File { bytes, snapshot } = disk {
            let old: Vec<&HunkLine> = old.iter().collect();
            if let Some(differs) = deletion_mismatch(&snapshot.lines(), &old) {
                spec = delete_all(bytes, format!("delete {old_path}"));
                spec.problems.push(LoadProblem::conflict(
                    ProblemKind::ExpectedMismatch,
                    format!("{old_path} is not the content the deletion expects ({differs}); git apply refuses this too"),
                ));
            }
        }
        self.builder.push(&mut file, spec);
        self.loaded.files.push(file);
    }

    /// The file patch of a section that modifies `old_path` (`disk`: the file as it is), or
    /// renames or copies it (`moves`) and may modify the result: its hunks placed (taken from
    /// `placed`, when placed already), its mode, and the removal of a renamed file.
    fn modify(
        &mut self,
        section: &mut DiffFile<'_>,
        old_path: String,
        moves: bool,
        disk: &OnDisk,
        placed: Option<PlacedSection>,
    ) {
        let new_path = section.new_path.clone().unwrap_or_else(|| old_path.clone());
        let mut file = self.builder.file(
            &new_path,
            if moves {
                FileAction::Create
            } else {
                FileAction::Modify
            },
        );
        file.label = section.subject.clone();
        if moves {
            file.copy_from = Some(old_path.clone());
            let how = if section.renamed { "renamed" } else { "copied" };
            file.label = Some(match &section.subject {
                Some(subject) => format!("{subject} ({how} from {old_path})"),
                None => format!("{how} from {old_path}"),
            });
        }
        let lines = match disk {
            OnDisk::File { snapshot, .. } => Some(snapshot.lines()),
            _ => None,
        };
        let (specs, had_hunks) = match placed {
            Some(placed) => placed,
            None => {
                let hunks = std::mem::take(&mut section.hunks);
                let had_hunks = !hunks.is_empty();
                (place_all(hunks, self.diff, lines.as_ref()), had_hunks)
            }
        };
        // Room for every change at once (and the one a mode change or a move may add): grown
        // one push at a time, the vectors of a large diff were copied as they doubled, on
        // the one core that builds the batch.
        file.changes.reserve_exact(specs.len() + 1);
        for spec in specs {
            self.builder.push(&mut file, spec);
        }
        mode::on_change(section, &mut file, self.builder, !moves && !had_hunks);
        if moves && !had_hunks {
            self.builder.push(
                &mut file,
                ChangeSpec {
                    description: Some(format!(
                        "{} {old_path} as {new_path}",
                        if section.renamed { "rename" } else { "copy" }
                    )),
                    range: Some(LineRange::after(0)),
                    ..ChangeSpec::default()
                },
            );
        }
        self.loaded.files.push(file);
        if moves && section.renamed {
            self.remove_renamed(&old_path, &new_path, disk);
        }
    }

    /// The file patch that removes `old_path`, renamed to `new_path`: the deletion of the
    /// file (`disk`: as it is), or of nothing when it cannot be read (verify says why).
    fn remove_renamed(&mut self, old_path: &str, new_path: &str, disk: &OnDisk) {
        let mut old = self.builder.file(old_path, FileAction::Delete);
        old.label = Some(format!("renamed to {new_path}"));
        let spec = match disk {
            OnDisk::File { bytes, .. } => {
                delete_all(bytes, format!("remove {old_path} (renamed to {new_path})"))
            }
            _ => ChangeSpec {
                description: Some(format!("remove {old_path} (renamed to {new_path})")),
                range: Some(LineRange { start: 1, count: 0 }),
                expected: Some(TextLines::default()),
                ..ChangeSpec::default()
            },
        };
        self.builder.push(&mut old, spec);
        self.loaded.files.push(old);
    }
}

/// A plain section read with git's default `-p1` whose stripped name is no file while its name
/// as written is one (`--- src/app.py`, as models write names, without `a/` and `b/`) changes
/// the file its name says, with a note that gives the evidence; with both files there, or
/// neither, it stays git's reading.
fn written_name(section: &mut DiffFile, tree: &dyn Files) {
    let (Some(stripped), Some(written)) = (section.old_path.clone(), section.unstripped.clone())
    else {
        return;
    };
    if written == stripped
        || !matches!(tree.file(&stripped), OnDisk::Missing)
        || !matches!(tree.file(&written), OnDisk::File { .. })
    {
        return;
    }
    section.notes.push(format!(
        "read as {written}, the name as written (-p0): {stripped}, which git's default -p1 leaves of it, does not exist and {written} does; give -p1 to read it as git does"
    ));
    section.old_path = Some(written.clone());
    if section.new_path.is_some() {
        section.new_path = Some(written);
    }
}

/// A plain section whose one hunk adds lines to nothing (`@@ -0,0 +1,N @@`), for a file that
/// does not exist, creates it: git apply reads it so, as models, Subversion (`(revision 0)`) and
/// Bazaar write a new file. Over a file that exists (empty or not) it stays a change to it.
fn created_from_nothing(section: &mut DiffFile, tree: &dyn Files) {
    let from_nothing = section.plain.is_some()
        && !section.created
        && !section.deleted
        && matches!(section.hunks.as_slice(), [hunk] if hunk.old_count == 0);
    let Some(path) = section.old_path.clone().filter(|_| from_nothing) else {
        return;
    };
    if matches!(tree.file(&path), OnDisk::Missing) {
        section.created = true;
        section.old_path = None;
        section.notes.push(format!(
            "{path} does not exist and the hunk at line {} adds lines to nothing (-0,0): read as the creation of {path}, as git apply reads it",
            section.hunks[0].at_line
        ));
    }
}

/// The paths exactly one section of the diff names (as its old or its new path).
fn named_once(files: &[DiffFile]) -> std::collections::HashSet<String> {
    let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for section in files {
        let mut paths = vec![section.old_path.as_deref(), section.new_path.as_deref()];
        paths.dedup();
        for path in paths.into_iter().flatten() {
            *count.entry(path).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, n)| *n == 1)
        .map(|(p, _)| p.to_owned())
        .collect()
}

/// Places, on every core, the hunks of every section that plainly modifies a file no other
/// section names (most of a large diff): such a section depends on nothing placed before it.
/// Each such section's hunks are taken; the answer, per section in order, is its changes and
/// whether it had hunks (`None` for the sections left to the loop). In a workspace that
/// releases files, each thread reads the file it places in, and lets it go.
fn place_plain<'s, 'a: 's, 'f>(
    sections: impl Iterator<Item = &'s mut DiffFile<'a>>,
    diff: &Arc<String>,
    once: &std::collections::HashSet<String>,
    tree: &'f dyn Files,
) -> Vec<Option<(Vec<ChangeSpec>, bool)>> {
    type Plain<'a, 'f> = Option<(Vec<Hunk<'a>>, Source<'f>)>;
    let work: Vec<Plain<'a, 'f>> = sections
        .map(|section| {
            let old_path = section.old_path.as_deref()?;
            let plain = !section.created
                && !section.deleted
                && !section.renamed
                && !section.copied
                && section.new_path.as_deref().is_none_or(|p| p == old_path)
                && once.contains(old_path);
            if !plain {
                return None;
            }
            let source = tree.source(old_path)?;
            Some((std::mem::take(&mut section.hunks), source))
        })
        .collect();
    crate::parallel::map_into(work, |plain| {
        plain.map(|(hunks, source)| {
            let had_hunks = !hunks.is_empty();
            // A file that cannot be read is placed in as a missing one would be, as the loop
            // places it; verification says why it cannot be read.
            let snapshot = source.snapshot();
            let lines = snapshot.as_ref().map(Snapshot::lines);
            (place_all(hunks, diff, lines.as_ref()), had_hunks)
        })
    })
}

/// The problem of a path with a control character (a tab, say), which git applies: patchdeck
/// refuses such paths everywhere, and says why here.
fn control_character(path: &str) -> Option<LoadProblem> {
    let c = path.chars().find(|c| c.is_control())?;
    let what = match c {
        '\t' => "a tab".to_owned(),
        '\n' => "a newline".to_owned(),
        c => format!("the control character U+{:04X}", c as u32),
    };
    Some(LoadProblem::conflict(
        ProblemKind::InvalidPath,
        format!("the path \"{}\" holds {what}: git apply accepts it, but patchdeck refuses control characters in every path (a report, a terminal or a TUL-002 docPath cannot carry them safely); rename the file, or apply this file with git apply", path.escape_debug()),
    ))
}

/// A section for a file an earlier section of the same diff already changes: placed against
/// the file as the earlier section leaves it (as `git apply` applies the mails of an mbox), and
/// merged into the earlier section's file patch. A deletion replaces the earlier changes with
/// the deletion of the file, when its lines are the file as the earlier section leaves it.
fn continue_file(
    section: &DiffFile<'_>,
    diff: &Arc<String>,
    file: &mut FilePatch,
    tree: &dyn Files,
    builder: &mut Builder,
) {
    let path = file.doc_path.clone();
    let continuation = match Continuation::of(tree, file) {
        Ok(_) if section.deleted && file.action == FileAction::Create => Err(format!(
            "{path} is created by an earlier section and deleted by this one; drop both"
        )),
        other => other,
    };
    let continuation = match continuation {
        Ok(c) => c,
        Err(why) => {
            let specs = section
                .hunks
                .iter()
                .map(|h| place_hunk(h, diff, None))
                .collect();
            chain::refuse(builder, file, specs, &why);
            return;
        }
    };
    let current = Lines::split(&continuation.current);
    if section.deleted {
        let old: Vec<&HunkLine> = section.hunks.iter().flat_map(|h| &h.old).collect();
        let description = format!("delete {path} (after the changes of the earlier section)");
        let mut spec = delete_all(&continuation.base, description);
        if let Some(differs) = deletion_mismatch(&current, &old) {
            spec.problems.push(LoadProblem::conflict(
                ProblemKind::ExpectedMismatch,
                format!("{path} is not the content the deletion expects once the earlier section is applied ({differs}); git apply refuses this too"),
            ));
        }
        file.action = FileAction::Delete;
        file.changes.clear();
        builder.push(file, spec);
        return;
    }
    let seek = Seek::new(&current);
    let specs = section
        .hunks
        .iter()
        .map(|h| place_hunk(h, diff, Some(&seek)))
        .collect();
    continuation.extend(builder, file, specs);
}

/// A rename or copy of a file an earlier section of the same diff changes: the new file is
/// the earlier changes and this section's hunks over the same source. A rename then deletes the
/// old file, or drops its creation when the batch creates it.
fn continue_move(
    section: &DiffFile<'_>,
    diff: &Arc<String>,
    loaded: &mut Loaded,
    at: usize,
    new_path: &str,
    tree: &dyn Files,
    builder: &mut Builder,
) {
    // The new file starts with copies of the earlier changes, which keep their IDs when they
    // cannot be composed with this section's (see `chain::refuse`): derive those now, as they
    // will be derived for the earlier file patch.
    builder.derive_change_ids(std::slice::from_mut(&mut loaded.files[at]));
    let old = &loaded.files[at];
    let old_path = old.doc_path.clone();
    let how = if section.renamed { "renamed" } else { "copied" };
    let mut file = builder.file(new_path, FileAction::Create);
    file.copy_from = match old.action {
        FileAction::Create => old.copy_from.clone(),
        _ => Some(old_path.clone()),
    };
    file.new_file_eol = old.new_file_eol;
    file.label = Some(match &section.subject {
        Some(subject) => format!("{subject} ({how} from {old_path})"),
        None => format!("{how} from {old_path}"),
    });
    file.changes = old.changes.clone();
    match Continuation::of(tree, &file) {
        Ok(continuation) => {
            let current = Lines::split(&continuation.current);
            let seek = Seek::new(&current);
            let specs = section
                .hunks
                .iter()
                .map(|h| place_hunk(h, diff, Some(&seek)))
                .collect();
            continuation.extend(builder, &mut file, specs);
        }
        Err(why) => {
            let specs = section
                .hunks
                .iter()
                .map(|h| place_hunk(h, diff, None))
                .collect();
            chain::refuse(builder, &mut file, specs, &why);
        }
    }
    if section.renamed {
        let old = &mut loaded.files[at];
        if old.action == FileAction::Create {
            loaded.files.remove(at);
        } else {
            old.action = FileAction::Delete;
            old.label = Some(format!("renamed to {new_path}"));
            old.changes.clear();
            let description = format!("remove {old_path} (renamed to {new_path})");
            let spec = match tree.file(&old_path) {
                OnDisk::File { bytes, .. } => delete_all(&bytes, description),
                _ => ChangeSpec {
                    description: Some(description),
                    range: Some(LineRange { start: 1, count: 0 }),
                    expected: Some(TextLines::default()),
                    ..ChangeSpec::default()
                },
            };
            builder.push(old, spec);
        }
    }
    loaded.files.push(file);
}

/// How a file differs from the lines a deletion removes, when it does.
fn deletion_mismatch(file: &Lines<'_>, old: &[&HunkLine<'_>]) -> Option<String> {
    let differs = file
        .iter()
        .zip(old)
        .position(|(a, b)| a.text != b.text.as_bytes() || a.eol != b.eol);
    match (differs, file.len().cmp(&old.len())) {
        (Some(at), _) => Some(format!("line {} differs", at + 1)),
        (None, std::cmp::Ordering::Equal) => None,
        (None, std::cmp::Ordering::Greater) => Some(format!(
            "the file goes on after the {} the patch removes",
            lines(old.len())
        )),
        (None, std::cmp::Ordering::Less) => Some(format!(
            "the file ends after {}, the patch removes {}",
            lines(file.len()),
            old.len()
        )),
    }
}

/// `1 line`, `3 lines`.
fn lines(n: usize) -> String {
    format!("{n} line{}", if n == 1 { "" } else { "s" })
}
