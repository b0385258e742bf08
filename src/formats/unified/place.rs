//! Placing parsed hunks in the files of the workspace as `git apply` does (without fuzz), and
//! turning them into file patches: modifications, creations, deletions, renames and copies.

use super::{mode, DiffFile, Hunk, HunkLine};
use crate::formats::build::{delete_all, Builder, ChangeSpec, Loaded};
use crate::formats::chain::{self, continued, Continuation};
use crate::formats::OnDisk;
use crate::formats::{Files, Source};
use crate::fs::Snapshot;
use crate::lines::{Eol, Lines};
use crate::model::{FileAction, FilePatch, LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
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
    tree.expect(
        &mut files
            .iter()
            .filter(|section| !section.created)
            .filter_map(|section| section.old_path.as_deref()),
    );
    let once = named_once(&files);
    let mut placed = place_plain(files.iter_mut(), diff, &once, tree).into_iter();
    for mut section in files {
        let placed = placed.next().flatten();
        let description = section.subject.clone();
        if loaded.label.is_none() {
            loaded.label = description.clone();
        }
        if section.created {
            let Some(path) = section.new_path.clone() else {
                continue;
            };
            let mut file = builder.file(&path, FileAction::Create);
            file.label = description.clone();
            let new: Vec<HunkLine<'_>> = section
                .hunks
                .iter()
                .flat_map(|h| h.new.iter().copied())
                .collect();
            file.new_file_eol = new.first().map(|l| l.eol).filter(|e| *e != Eol::None);
            builder.push(
                &mut file,
                ChangeSpec {
                    description: Some(format!("new file {path}")),
                    range: Some(LineRange::after(0)),
                    new_lines: shared(diff, &new),
                    new_eols: Some(new.iter().map(|l| l.eol).collect()),
                    eof_newline: Some(new.last().is_none_or(|l| l.eol != Eol::None)),
                    ..ChangeSpec::default()
                },
            );
            mode::on_creation(&section, &mut file);
            loaded.files.push(file);
            continue;
        }
        let Some(old_path) = section.old_path.clone() else {
            continue;
        };
        let moves = (section.renamed || section.copied)
            && section.new_path.as_ref().is_some_and(|p| *p != old_path);
        // Only a path named by more than one section can continue an earlier file patch.
        let repeated = !once.contains(old_path.as_str());
        if let Some(k) = repeated
            .then(|| continued(&loaded.files[first..], &old_path))
            .flatten()
        {
            let at = match (moves, section.new_path.as_deref()) {
                (true, Some(new_path)) => {
                    continue_move(&section, diff, loaded, first + k, new_path, tree, builder);
                    loaded.files.len() - 1
                }
                _ => {
                    continue_file(&section, diff, &mut loaded.files[first + k], tree, builder);
                    first + k
                }
            };
            mode::on_change(&section, &mut loaded.files[at], builder, false);
            continue;
        }
        // A section placed already needs its file no more (and a workspace that releases
        // files would read it again).
        let disk = match placed {
            Some(_) => OnDisk::Unusable,
            None => tree.file(&old_path),
        };
        if section.deleted {
            let mut file = builder.file(&old_path, FileAction::Delete);
            file.label = description.clone();
            mode::check_old(&section, &mut file);
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
                expected: Some(shared(diff, &old)),
                ..ChangeSpec::default()
            };
            if let OnDisk::File { bytes, snapshot } = &disk {
                let old: Vec<&HunkLine> = old.iter().collect();
                if let Some(differs) = deletion_mismatch(&snapshot.lines(), &old) {
                    spec = delete_all(bytes, format!("delete {old_path}"));
                    spec.problems.push(LoadProblem::conflict(
                        ProblemKind::ExpectedMismatch,
                        format!("{old_path} is not the content the deletion expects ({differs}); git apply refuses this too"),
                    ));
                }
            }
            builder.push(&mut file, spec);
            loaded.files.push(file);
            continue;
        }
        let new_path = section.new_path.clone().unwrap_or_else(|| old_path.clone());
        let mut file = builder.file(
            &new_path,
            if moves {
                FileAction::Create
            } else {
                FileAction::Modify
            },
        );
        file.label = description.clone();
        if moves {
            file.copy_from = Some(old_path.clone());
            let how = if section.renamed { "renamed" } else { "copied" };
            file.label = Some(match &description {
                Some(subject) => format!("{subject} ({how} from {old_path})"),
                None => format!("{how} from {old_path}"),
            });
        }
        let lines = match &disk {
            OnDisk::File { snapshot, .. } => Some(snapshot.lines()),
            _ => None,
        };
        let (specs, had_hunks) = match placed {
            Some(placed) => placed,
            None => {
                let hunks = std::mem::take(&mut section.hunks);
                let had_hunks = !hunks.is_empty();
                (place_all(hunks, diff, lines.as_ref()), had_hunks)
            }
        };
        // Room for every change at once (and the one a mode change or a move may add): grown
        // one push at a time, the vectors of a large diff were copied as they doubled, on
        // the one core that builds the batch.
        file.changes.reserve_exact(specs.len() + 1);
        for spec in specs {
            builder.push(&mut file, spec);
        }
        mode::on_change(&section, &mut file, builder, !moves && !had_hunks);
        if moves && !had_hunks {
            builder.push(
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
        loaded.files.push(file);
        if moves && section.renamed {
            let mut old = builder.file(&old_path, FileAction::Delete);
            old.label = Some(format!("renamed to {new_path}"));
            let spec = match &disk {
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
            builder.push(&mut old, spec);
            loaded.files.push(old);
        }
    }
    for file in &mut loaded.files[first..] {
        let paths = std::iter::once(&file.doc_path).chain(&file.copy_from);
        if let Some(problem) = paths.filter_map(|p| control_character(p)).next() {
            file.load_problems.push(problem);
        }
    }
}

/// A hunk's lines as a change holds them: spans of the diff they were read from. A line that
/// is not part of `diff` (a caller that parsed another text) is copied instead.
fn shared(diff: &Arc<String>, lines: &[HunkLine<'_>]) -> TextLines {
    let base = diff.as_ptr() as usize;
    let span = |text: &str| {
        let start = (text.as_ptr() as usize).checked_sub(base)?;
        let end = start + text.len();
        diff.get(start..end).map(|_| start..end)
    };
    match lines
        .iter()
        .map(|l| span(l.text))
        .collect::<Option<Vec<_>>>()
    {
        Some(spans) => TextLines::of_shared(diff, spans),
        None => lines.iter().map(|l| l.text).collect(),
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

/// Places every hunk of a section in the file's lines (none for a missing or unusable file),
/// giving each hunk's lines to its change, and flags hunks that overlap.
fn place_all(
    hunks: Vec<Hunk<'_>>,
    diff: &Arc<String>,
    lines: Option<&Lines<'_>>,
) -> Vec<ChangeSpec> {
    let headers: Vec<&str> = hunks.iter().map(|h| h.header).collect();
    let mut specs: Vec<ChangeSpec> = hunks.iter().map(|h| place_hunk(h, diff, lines)).collect();
    if let Some(lines) = lines {
        doubt_weak_offsets(&hunks, lines, &mut specs);
    }
    flag_overlapping_hunks(&headers, &mut specs);
    specs
}

/// A hunk found only at another line than its header says is held to the judgement every
/// relocation is ([`crate::locate`]): where the hunks around it stand (with the lines the
/// applied ones added or removed), whether its own place holds its lines nearly (edited there),
/// how much its lines say, and that it stays between the hunks around it. One found far from
/// where the hunks around it are, with its place edited, is a conflict that says where it was
/// found and why that was not taken, not a change written into another function.
fn doubt_weak_offsets(hunks: &[Hunk<'_>], lines: &Lines<'_>, specs: &mut [ChangeSpec]) {
    let placed: Vec<Option<Placed>> = hunks
        .iter()
        .zip(specs.iter())
        .map(|(hunk, spec)| {
            let range = spec
                .range
                .filter(|_| !spec.problems.iter().any(|p| p.blocking))?;
            Some(Placed::of(hunk, range.start, lines))
        })
        .collect();
    let mut before: Option<Placed> = None;
    let mut after: Vec<Option<Placed>> = vec![None; placed.len()];
    for i in (0..placed.len().saturating_sub(1)).rev() {
        after[i] = placed[i + 1].or(after[i + 1]);
    }
    for i in 0..specs.len() {
        let Some(this) = placed[i] else {
            continue;
        };
        if specs[i].tier == MatchTier::Offset {
            let hunk = &hunks[i];
            let sought = this.sought(hunk, lines, before, after[i]);
            if let crate::locate::Verdict::Doubted(doubts) = crate::locate::judge(&sought) {
                doubt(hunk, this, &mut specs[i], &crate::locate::describe(&doubts));
                continue;
            }
        }
        before = Some(this);
    }
}

/// Where a placed hunk stands: its first line, how far from where its header says, whether
/// by its new side (applied already), and how many lines it adds.
#[derive(Clone, Copy)]
struct Placed {
    at: usize,
    offset: i64,
    applied: bool,
    delta: i64,
    len: usize,
}

impl Placed {
    fn of(hunk: &Hunk<'_>, at: usize, lines: &Lines<'_>) -> Placed {
        let stands = |side: &[HunkLine<'_>]| {
            at + side.len() <= lines.len() + 1
                && lines
                    .between(at - 1, at - 1 + side.len())
                    .zip(side)
                    .all(|(f, p)| f.text == p.text.as_bytes())
        };
        let applied = !stands(&hunk.old) && stands(&hunk.new);
        Placed {
            at,
            offset: at as i64 - stated_line(hunk) as i64,
            applied,
            delta: hunk.new.len() as i64 - hunk.old.len() as i64,
            len: if applied {
                hunk.new.len()
            } else {
                hunk.old.len()
            },
        }
    }

    /// What the judgement is asked of this hunk, with the placed hunks around it.
    fn sought<'h>(
        self,
        hunk: &'h Hunk<'_>,
        lines: &'h Lines<'_>,
        before: Option<Placed>,
        after: Option<Placed>,
    ) -> crate::locate::Sought<'h> {
        let from = stated_line(hunk);
        let first = from - 1;
        let old: Vec<&str> = hunk.old.iter().map(|l| l.text).collect();
        let at_stated: Vec<&str> = lines
            .between(
                first.min(lines.len()),
                (first + hunk.old.len()).min(lines.len()),
            )
            .map(|l| std::str::from_utf8(l.text).unwrap_or(""))
            .collect();
        let side = if self.applied { &hunk.new } else { &hunk.old };
        let own_delta = if self.applied { self.delta } else { 0 };
        crate::locate::Sought {
            stated: from,
            lines: side.iter().map(|l| l.text).collect(),
            places: vec![self.at],
            near: crate::locate::near_match(&old, &at_stated),
            neighbours: crate::locate::Neighbours {
                before: before.map(|b| b.offset + if b.applied { b.delta } else { 0 }),
                after: after.map(|a| a.offset - own_delta),
            },
            window: crate::locate::Window {
                first: before.map_or(1, |b| b.at + b.len),
                end: after.map_or(usize::MAX, |a| a.at),
            },
            unique_is_enough: true,
        }
    }
}

/// The first line a hunk's header says its old lines stand at (1-based).
fn stated_line(hunk: &Hunk<'_>) -> usize {
    if hunk.old_count == 0 {
        hunk.old_start + 1
    } else {
        hunk.old_start.max(1)
    }
}

/// Makes a hunk placed where the judgement doubts a conflict at the line its header says.
fn doubt(hunk: &Hunk<'_>, placed: Placed, spec: &mut ChangeSpec, why: &str) {
    let from = stated_line(hunk);
    spec.problems.retain(|p| p.kind != ProblemKind::Offset);
    spec.tier = MatchTier::Exact;
    spec.range = Some(LineRange {
        start: from,
        count: hunk.old.len(),
    });
    let message = if placed.applied {
        format!(
            "hunk {}: its context and removed lines stand nowhere in the file, and its context and added lines are not at line {from} as if it were applied{why}",
            hunk.header
        )
    } else {
        format!(
            "hunk {}: its context and removed lines are not at line {from}{why}",
            hunk.header
        )
    };
    spec.problems
        .push(LoadProblem::conflict(ProblemKind::NotFound, message));
}

/// Hunks of one section placed over the same lines (context included): git apply refuses them
/// (a hunk is searched only after the previous one), and so does patchdeck, on the later hunk.
fn flag_overlapping_hunks(headers: &[&str], specs: &mut [ChangeSpec]) {
    let placed = |s: &ChangeSpec| !s.problems.iter().any(|p| p.blocking);
    for j in 1..specs.len() {
        let Some(b) = specs[j].range.filter(|_| placed(&specs[j])) else {
            continue;
        };
        let earlier =
            (0..j).find(|&i| placed(&specs[i]) && specs[i].range.is_some_and(|a| a.overlaps(b)));
        if let Some(i) = earlier {
            let a = specs[i].range.unwrap_or(b);
            specs[j].problems.push(LoadProblem::conflict(
                ProblemKind::Overlap,
                format!(
                    "hunk {} (lines {}) overlaps hunk {} (lines {}); git apply refuses overlapping hunks too",
                    headers[j],
                    b.describe(),
                    headers[i],
                    a.describe()
                ),
            ));
        }
    }
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
    let specs = section
        .hunks
        .iter()
        .map(|h| place_hunk(h, diff, Some(&current)))
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
            let specs = section
                .hunks
                .iter()
                .map(|h| place_hunk(h, diff, Some(&current)))
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

/// Places a hunk in the file's lines as `git apply` would (without fuzz); its change holds its
/// lines as spans of `diff`.
fn place_hunk(hunk: &Hunk<'_>, diff: &Arc<String>, lines: Option<&Lines<'_>>) -> ChangeSpec {
    // A byte order mark belongs to the file, not to its first line (see `lines`); git shows it
    // as part of line 1, so a hunk at the top of a file with one is read without it.
    let without_bom;
    let hunk = match lines {
        Some(lines) if lines.has_bom() && hunk.old_start <= 1 => {
            let mut h = hunk.clone();
            for side in [&mut h.old, &mut h.new] {
                if let Some(first) = side.first_mut() {
                    first.text = first.text.strip_prefix('\u{feff}').unwrap_or(first.text);
                }
            }
            without_bom = h;
            &without_bom
        }
        _ => hunk,
    };
    // Where the hunk says it applies (0-based index of its first old line).
    let stated = if hunk.old_count == 0 {
        hunk.old_start
    } else {
        hunk.old_start.saturating_sub(1)
    };
    let placed = lines.map(|lines| {
        // Not there, but applied already: its new side (context and added lines) stands where
        // its old side would. Placed there, verify finds its new lines at its range.
        locate(hunk, lines, stated).or_else(|problem| match problem.kind {
            ProblemKind::NotFound => locate_side(hunk, &hunk.new, lines, stated).ok_or(problem),
            _ => Err(problem),
        })
    });
    let old_len = hunk.old.len();
    let at_end = |at: usize| lines.is_some_and(|l| at + old_len == l.len());
    let eof_newline = match placed {
        Some(Ok(at)) if at_end(at) => hunk.new.last().map(|last| last.eol != Eol::None),
        _ => None,
    };
    let header = hunk.header;
    let description = if hunk.section.is_empty() {
        header
    } else {
        hunk.section
    };
    let old = shared(diff, &hunk.old);
    let new = shared(diff, &hunk.new);
    let new_eols = hunk.new.iter().map(|l| l.eol).collect();
    let mut spec = ChangeSpec {
        description: Some(description.to_owned()),
        key: None,
        range: Some(LineRange {
            start: stated + 1,
            count: old_len,
        }),
        expected: (!old.is_empty()).then_some(old),
        new_lines: new,
        new_eols: Some(new_eols),
        eof_newline,
        ..ChangeSpec::default()
    };
    match placed {
        // A missing or unusable file: verify reports it.
        None => {}
        Some(Err(problem)) => spec.problems.push(problem),
        Some(Ok(at)) => {
            spec.range = Some(LineRange {
                start: at + 1,
                count: old_len,
            });
            if at != stated {
                spec.tier = MatchTier::Offset;
                let offset = at as i64 - stated as i64;
                spec.problems.push(LoadProblem::note(
                    ProblemKind::Offset,
                    format!(
                        "hunk {} applies at line {} instead of line {} (offset {offset:+} line{})",
                        header,
                        at + 1,
                        stated + 1,
                        if offset.abs() == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
    spec
}

/// Where one side of a hunk (`side`: its old lines, or its new ones) stands in the file (a
/// 0-based index), as git looks for it: at `stated`, else at the one other place it occurs.
fn locate_side(
    hunk: &Hunk<'_>,
    side: &[HunkLine<'_>],
    lines: &Lines<'_>,
    stated: usize,
) -> Option<usize> {
    if side.is_empty() {
        return None;
    }
    match places_of(hunk, side, lines, stated).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The places one side of a hunk stands at (0-based): `stated` alone when it stands there,
/// else every place, with git's rules for a hunk at the top or the end of a file.
fn places_of(
    hunk: &Hunk<'_>,
    side: &[HunkLine<'_>],
    lines: &Lines<'_>,
    stated: usize,
) -> Vec<usize> {
    let len = lines.len();
    let matches_at = |at: usize| -> bool {
        at + side.len() <= len
            && lines
                .between(at, at + side.len())
                .zip(side)
                .all(|(f, p)| f.text == p.text.as_bytes() && f.eol == p.eol)
    };
    let match_beginning = hunk.old_start <= 1;
    let match_end = hunk.trailing_context == 0;
    let allowed = |at: usize| -> bool {
        (!match_beginning || at == 0) && (!match_end || at + side.len() == len)
    };
    if matches_at(stated) && allowed(stated) {
        return vec![stated];
    }
    (0..=len.saturating_sub(side.len()))
        .filter(|&at| matches_at(at) && allowed(at))
        .collect()
}

/// Where a hunk's old lines stand in the file (a 0-based index): at `stated`, else at the one
/// other place they occur; else the conflict that says why not.
fn locate(hunk: &Hunk<'_>, lines: &Lines<'_>, stated: usize) -> Result<usize, LoadProblem> {
    let len = lines.len();
    let matches_at = |at: usize| -> bool {
        at + hunk.old.len() <= len
            && lines
                .between(at, at + hunk.old.len())
                .zip(&hunk.old)
                .all(|(f, p)| f.text == p.text.as_bytes() && f.eol == p.eol)
    };
    let match_beginning = hunk.old_start <= 1;
    let match_end = hunk.trailing_context == 0;
    let places = places_of(hunk, &hunk.old, lines, stated);
    if places == [stated] {
        return Ok(stated);
    }
    match places.as_slice() {
        [one] => Ok(*one),
        [] => {
            let why = if match_end && !hunk.old.is_empty() && (0..len).any(matches_at) {
                "; a hunk without trailing context must match at the end of the file (as git apply requires)"
            } else if match_beginning && (0..len).any(matches_at) {
                "; a hunk starting at line 1 must match at the top of the file (as git apply requires)"
            } else if hunk.old.iter().any(|l| l.eol == Eol::Lf)
                && lines.iter().any(|l| l.eol == Eol::CrLf)
                || hunk.old.iter().any(|l| l.eol == Eol::CrLf)
                    && lines.iter().any(|l| l.eol == Eol::Lf)
            {
                "; the line endings differ (LF against CRLF), and git apply compares them too"
            } else {
                ""
            };
            Err(LoadProblem::conflict(
                ProblemKind::NotFound,
                format!(
                    "hunk {}: its context and removed lines are not at line {} nor anywhere else in the file{why}",
                    hunk.header,
                    stated + 1
                ),
            ))
        }
        many => {
            let list: Vec<String> = many.iter().map(|a| (a + 1).to_string()).collect();
            Err(LoadProblem::conflict(
                ProblemKind::Ambiguous,
                format!(
                    "hunk {}: not at line {}; its lines occur {} times, at lines {} (git apply would take the nearest; patchdeck does not guess)",
                    hunk.header,
                    stated + 1,
                    many.len(),
                    list.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_lines_become_spans_of_their_diff_or_copies_of_another_text() {
        let diff = Arc::new(String::from(" a\n-b\n+c\n"));
        let line = |text| HunkLine { text, eol: Eol::Lf };
        let from_diff = [line(&diff[1..2]), line(&diff[4..5])];
        assert_eq!(shared(&diff, &from_diff), ["a", "b"]);
        let other = String::from("elsewhere");
        let not_from_diff = [line(&diff[1..2]), line(other.as_str())];
        assert_eq!(shared(&diff, &not_from_diff), ["a", "elsewhere"]);
        assert!(shared(&diff, &[]).is_empty());
    }
}
