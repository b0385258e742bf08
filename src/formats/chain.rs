//! Sections of one input that change the same file one after the other, as `git apply` applies
//! the mails of an mbox and the patch tool its calls: a later section is placed against the file
//! as the earlier sections leave it, and its changes join the same file patch, expressed against
//! the file on disk.
//!
//! A later change that shares no line with the earlier changes stays a change of its own (at the
//! lines it maps to on disk); one that does is merged with the changes it shares lines with
//! (context included) into one change, which the reviewer accepts or rejects whole. The merged
//! result is checked: the composed changes applied to the file give exactly the bytes of the
//! sections applied one after the other. Nothing here knows any format's syntax.

use super::build::{Builder, ChangeSpec};
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::lines::{Eol, Line, Lines};
use crate::model::{Change, FileAction, FilePatch, LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use crate::splice::{splice_with_eol, Splice};
use crate::text_lines::TextLines;

/// The file patch among `files` that a later section changing `doc_path` continues: the last
/// one naming exactly that path, when it modifies or creates the file (a deleted file is not
/// continued).
pub fn continued(files: &[FilePatch], doc_path: &str) -> Option<usize> {
    let at = files.iter().rposition(|f| f.doc_path == doc_path)?;
    (files[at].action != FileAction::Delete).then_some(at)
}

/// A file patch ready to take a later section: the bytes its changes apply to and the bytes
/// they make.
pub struct Continuation {
    pub base: Vec<u8>,
    /// The file as every change so far leaves it: what the later section is placed against.
    pub current: Vec<u8>,
}

impl Continuation {
    /// The file patch's base and result, or why a later section cannot be placed after it (a
    /// change that cannot be placed, changes that overlap, an unreadable file).
    pub fn of(tree: &dyn Files, file: &FilePatch) -> Result<Continuation, String> {
        let source = match (&file.action, &file.copy_from) {
            (FileAction::Create, None) => None,
            (FileAction::Create, Some(from)) => Some(from.as_str()),
            _ => Some(file.doc_path.as_str()),
        };
        let base = match source.map(|path| (path, tree.file(path))) {
            None => Vec::new(),
            Some((_, OnDisk::File { bytes, .. })) => bytes.to_vec(),
            Some((path, _)) => return Err(format!("{path} cannot be read")),
        };
        let changes: Vec<ChangeSpec> = file.changes.iter().map(spec_of).collect();
        if let Some(k) = changes.iter().position(blocked) {
            return Err(format!(
                "change {} of the earlier section cannot be placed",
                k + 1
            ));
        }
        let current = apply(&base, &changes, default_eol(file)).ok_or_else(|| {
            "the changes of the earlier section overlap or do not match the file".to_owned()
        })?;
        Ok(Continuation { base, current })
    }

    /// Adds a later section's changes, placed against [`Continuation::current`], to `file`.
    pub fn extend(&self, builder: &Builder, file: &mut FilePatch, later: Vec<ChangeSpec>) {
        let earlier: Vec<ChangeSpec> = file.changes.iter().map(spec_of).collect();
        let composed = compose(&self.base, &self.current, earlier, later, default_eol(file));
        file.changes.clear();
        for spec in composed {
            builder.push(file, spec);
        }
    }
}

/// Adds a later section's changes to a file patch that cannot take them (see
/// [`Continuation::of`]): each is a conflict saying why.
pub fn refuse(builder: &Builder, file: &mut FilePatch, later: Vec<ChangeSpec>, why: &str) {
    for mut spec in later {
        spec.range = Some(LineRange::after(0));
        spec.problems.push(LoadProblem::conflict(
            ProblemKind::EarlierFailed,
            format!("placed after an earlier section of this file, but {why}; fix or drop that section first"),
        ));
        builder.push(file, spec);
    }
}

fn default_eol(file: &FilePatch) -> Eol {
    file.new_file_eol.unwrap_or(Eol::Lf)
}

fn blocked(spec: &ChangeSpec) -> bool {
    spec.problems.iter().any(|p| p.blocking)
}

/// A pushed change as the spec it was built from (the tolerance note is added again on push).
fn spec_of(change: &Change) -> ChangeSpec {
    ChangeSpec {
        description: change.description.clone(),
        key: change.key.clone(),
        range: Some(change.range),
        expected: change.expected.clone(),
        new_lines: change.new_lines.clone(),
        tier: change.match_tier,
        eof_newline: change.eof_newline,
        new_eols: change.new_eols.clone(),
        problems: change
            .load_problems
            .iter()
            .filter(|p| p.kind != ProblemKind::TolerantMatch)
            .cloned()
            .collect(),
    }
}

fn range(spec: &ChangeSpec) -> LineRange {
    spec.range.unwrap_or(LineRange::after(0))
}

/// Changes (placed, not overlapping) applied to `base` as the plan would, or `None` when one is
/// outside the file, does not find its expected lines, or overlaps another.
fn apply(base: &[u8], specs: &[ChangeSpec], eol: Eol) -> Option<Vec<u8>> {
    let lines = Lines::split(base);
    let mut order: Vec<usize> = (0..specs.len()).collect();
    order.sort_by_key(|&k| (range(&specs[k]).start, range(&specs[k]).count > 0, k));
    for pair in order.windows(2) {
        if range(&specs[pair[0]]).overlaps(range(&specs[pair[1]])) {
            return None;
        }
    }
    for spec in specs {
        let r = range(spec);
        if r.start == 0 || r.end() - 1 > lines.len() {
            return None;
        }
        if let Some(expected) = &spec.expected {
            if !lines.matches_at(r, expected) {
                return None;
            }
        }
    }
    let splices: Vec<Splice> = order
        .iter()
        .map(|&k| Splice {
            range: range(&specs[k]),
            new_lines: &specs[k].new_lines,
            final_newline: specs[k].eof_newline,
            new_eols: specs[k].new_eols.as_deref(),
        })
        .collect();
    Some(splice_with_eol(base, &splices, eol))
}

/// Where a line of the file as the earlier changes leave it comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Line `o` (0-based) of the base, untouched.
    Base(usize),
    /// Written by an earlier change.
    Earlier,
}

/// An earlier or later change, by its lines in the intermediate file (`start..end`, empty for a
/// change that writes no line there).
#[derive(Clone, Copy)]
struct Item {
    start: usize,
    end: usize,
    later: bool,
    index: usize,
}

/// Items that share lines, with the lines of the intermediate file they span.
struct Group {
    items: Vec<Item>,
    start: usize,
    end: usize,
}

/// The earlier changes (against `base`) and the later ones (against `current`, the base with
/// the earlier ones applied) as one list of changes against `base`.
fn compose(
    base: &[u8],
    current: &[u8],
    mut earlier: Vec<ChangeSpec>,
    later: Vec<ChangeSpec>,
    eol: Eol,
) -> Vec<ChangeSpec> {
    let base_lines = Lines::split(base);
    let inter_lines = Lines::split(current);
    earlier.sort_by_key(|s| (range(s).start, range(s).count > 0));
    // Lines of the intermediate file: where each comes from, and each earlier change's lines.
    let mut origin = Vec::with_capacity(inter_lines.len());
    let mut items = Vec::new();
    let mut next = 0;
    for (k, spec) in earlier.iter().enumerate() {
        let r = range(spec);
        origin.extend((next..r.index()).map(Origin::Base));
        let start = origin.len();
        origin.extend(spec.new_lines.iter().map(|_| Origin::Earlier));
        items.push(Item {
            start,
            end: origin.len(),
            later: false,
            index: k,
        });
        next = r.index() + r.count;
    }
    origin.extend((next..base_lines.len()).map(Origin::Base));
    // The later changes that can be placed, not overlapping one another.
    let (mut placed, mut failed): (Vec<ChangeSpec>, Vec<ChangeSpec>) =
        later.into_iter().partition(|s| !blocked(s));
    placed.sort_by_key(|s| (range(s).start, range(s).count > 0));
    let mut k = 1;
    while k < placed.len() {
        let (a, b) = (range(&placed[k - 1]), range(&placed[k]));
        if a.overlaps(b) {
            let mut spec = placed.remove(k);
            spec.problems.push(LoadProblem::conflict(
                ProblemKind::Overlap,
                format!(
                    "its lines {} overlap another change of the same section (lines {})",
                    b.describe(),
                    a.describe()
                ),
            ));
            failed.push(spec);
        } else {
            k += 1;
        }
    }
    if origin.len() != inter_lines.len() {
        return whole_file(base, current, earlier, placed, failed, eol);
    }
    for (j, spec) in placed.iter().enumerate() {
        let r = range(spec);
        items.push(Item {
            start: r.index(),
            end: r.index() + r.count,
            later: true,
            index: j,
        });
    }
    let finals = apply(current, &placed, eol);
    let Some(finals) = finals else {
        return whole_file(base, current, earlier, placed, failed, eol);
    };
    let groups = group(items, &origin, &earlier, &placed, base_lines.len());
    let mut out: Vec<ChangeSpec> = Vec::new();
    for g in &groups {
        if !g.items.iter().any(|i| i.later) {
            out.extend(g.items.iter().map(|i| earlier[i.index].clone()));
        } else if let ([only], Some(r)) = (
            g.items.as_slice(),
            base_range(g, &origin, &earlier, base_lines.len()),
        ) {
            let mut spec = placed[only.index].clone();
            spec.range = Some(r);
            if spec.expected.is_some() {
                spec.expected = Some(texts(base_lines.range(r)));
            }
            out.push(spec);
        } else {
            match merged(g, &origin, &earlier, &placed, &base_lines, &finals, current) {
                Some(spec) => out.push(spec),
                None => return whole_file(base, current, earlier, placed, failed, eol),
            }
        }
    }
    // The composition must give what the sections give one after the other.
    if apply(base, &out, eol).as_deref() != Some(&finals[..]) {
        return whole_file(base, current, earlier, placed, failed, eol);
    }
    out.sort_by_key(|s| (range(s).start, range(s).count > 0));
    out.extend(failed.into_iter().map(|mut s| {
        s.range = Some(LineRange::after(0));
        s
    }));
    out
}

/// Items grouped so that no two groups share a line of the intermediate file, a later insertion
/// with no untouched line beside it joins its neighbours, and groups whose lines on disk
/// overlap (two insertions at one place) or that decide the final newline for a group after
/// them are one.
fn group(
    mut items: Vec<Item>,
    origin: &[Origin],
    earlier: &[ChangeSpec],
    placed: &[ChangeSpec],
    base_len: usize,
) -> Vec<Group> {
    items.sort_by_key(|i| (i.start, i.end, i.later));
    let mut groups: Vec<Group> = Vec::new();
    for item in items {
        let joins = groups.last().is_some_and(|g| {
            if item.start < item.end {
                g.start < g.end && item.start < g.end
            } else {
                g.start < item.start && item.start < g.end
            }
        });
        match groups.last_mut() {
            Some(g) if joins => {
                g.end = g.end.max(item.end);
                g.items.push(item);
            }
            _ => groups.push(Group {
                items: vec![item],
                start: item.start,
                end: item.end,
            }),
        }
    }
    let mut k = 0;
    while k + 1 < groups.len() {
        let (a, b) = (&groups[k], &groups[k + 1]);
        let touching = a.end == b.start;
        let unanchored = |g: &Group| base_range(g, origin, earlier, base_len).is_none();
        let base_overlap = match (
            base_range(a, origin, earlier, base_len),
            base_range(b, origin, earlier, base_len),
        ) {
            (Some(ra), Some(rb)) => ra.overlaps(rb),
            _ => false,
        };
        let decides_end = a.items.iter().any(|i| {
            let spec = if i.later {
                &placed[i.index]
            } else {
                &earlier[i.index]
            };
            spec.eof_newline.is_some()
        }) && base_range(a, origin, earlier, base_len)
            .is_some_and(|r| r.end() - 1 < base_len);
        if touching && (unanchored(a) || unanchored(b)) || base_overlap || decides_end {
            let b = groups.remove(k + 1);
            let a = &mut groups[k];
            a.end = a.end.max(b.end);
            a.items.extend(b.items);
        } else {
            k += 1;
        }
    }
    groups
}

/// The lines on disk a group replaces, or `None` for a lone later insertion that has no
/// untouched line beside it (it must join its neighbours).
fn base_range(
    g: &Group,
    origin: &[Origin],
    earlier: &[ChangeSpec],
    base_len: usize,
) -> Option<LineRange> {
    let mut lo = usize::MAX;
    let mut hi = 0;
    for item in g.items.iter().filter(|i| !i.later) {
        let r = range(&earlier[item.index]);
        lo = lo.min(r.index());
        hi = hi.max(r.index() + r.count);
    }
    for o in &origin[g.start..g.end] {
        if let Origin::Base(o) = o {
            lo = lo.min(*o);
            hi = hi.max(o + 1);
        }
    }
    if lo == usize::MAX {
        // Only later insertions at one place: before the untouched line there, or after the
        // one before it.
        let at = g.start;
        lo = match (origin.get(at), at.checked_sub(1).map(|p| origin[p])) {
            (Some(Origin::Base(o)), _) => *o,
            (_, Some(Origin::Base(o))) => o + 1,
            (None, None) if base_len == 0 => 0,
            _ => return None,
        };
        hi = lo;
    }
    Some(LineRange {
        start: lo + 1,
        count: hi - lo,
    })
}

fn texts<'a>(lines: impl Iterator<Item = Line<'a>>) -> TextLines {
    lines.map(|l| l.text_str()).collect()
}

/// One change for a group of earlier and later changes that share lines: the lines on disk the
/// group covers, and the lines the sections leave there (`None` if the group cannot be found in
/// the result, which the caller answers with one change for the whole file).
fn merged(
    g: &Group,
    origin: &[Origin],
    earlier: &[ChangeSpec],
    placed: &[ChangeSpec],
    base_lines: &Lines,
    finals: &[u8],
    current: &[u8],
) -> Option<ChangeSpec> {
    let r = base_range(g, origin, earlier, base_lines.len())?;
    let inter_len = Lines::split(current).len();
    // The group's lines in the final file: the intermediate lines before it, shifted by what
    // the later changes before it added or removed.
    let shift_before = |at: usize| -> isize {
        placed
            .iter()
            .enumerate()
            .filter(|(j, s)| {
                let sr = range(s);
                let in_group = g.items.iter().any(|i| i.later && i.index == *j);
                !in_group && sr.index() + sr.count <= at
            })
            .map(|(_, s)| s.new_lines.len() as isize - range(s).count as isize)
            .sum()
    };
    let grown: isize = g
        .items
        .iter()
        .filter(|i| i.later)
        .map(|i| placed[i.index].new_lines.len() as isize - range(&placed[i.index]).count as isize)
        .sum();
    let final_lines = Lines::split(finals);
    let first = usize::try_from(g.start as isize + shift_before(g.start)).ok()?;
    let last = usize::try_from(first as isize + (g.end - g.start) as isize + grown).ok()?;
    if first > last || last > final_lines.len() {
        return None;
    }
    let span = final_lines.between(first, last);
    let reaches_end = r.end() - 1 == base_lines.len() && g.end == inter_len;
    let mut spec = ChangeSpec {
        range: Some(r),
        expected: (r.count > 0).then(|| texts(base_lines.range(r))),
        new_lines: texts(span.clone()),
        new_eols: Some(span.map(|l| l.eol).collect()),
        eof_newline: reaches_end.then(|| !final_lines.missing_final_newline()),
        ..ChangeSpec::default()
    };
    let mut members: Vec<&Item> = g.items.iter().collect();
    members.sort_by_key(|i| (i.start, i.later));
    let mut descriptions: Vec<String> = Vec::new();
    for item in members {
        let from = if item.later {
            &placed[item.index]
        } else {
            &earlier[item.index]
        };
        if let Some(d) = &from.description {
            if !descriptions.contains(d) {
                descriptions.push(d.clone());
            }
        }
        spec.key = spec.key.take().or(from.key.clone());
        if spec.tier == MatchTier::Exact {
            spec.tier = from.tier;
        }
        for p in from.problems.iter().filter(|p| !p.blocking) {
            if !spec.problems.contains(p) {
                spec.problems.push(p.clone());
            }
        }
    }
    spec.description = Some(descriptions.join("; "));
    Some(spec)
}

/// The fallback when the changes cannot be composed line by line: one change from the file on
/// disk to the file the sections make (never expected in practice; the composition is checked).
fn whole_file(
    base: &[u8],
    current: &[u8],
    earlier: Vec<ChangeSpec>,
    placed: Vec<ChangeSpec>,
    failed: Vec<ChangeSpec>,
    eol: Eol,
) -> Vec<ChangeSpec> {
    let finals = apply(current, &placed, eol).unwrap_or_else(|| current.to_vec());
    let base_lines = Lines::split(base);
    let final_lines = Lines::split(&finals);
    let r = LineRange {
        start: 1,
        count: base_lines.len(),
    };
    let descriptions: Vec<String> = earlier
        .iter()
        .chain(&placed)
        .filter_map(|s| s.description.clone())
        .collect();
    let mut out = vec![ChangeSpec {
        description: Some(descriptions.join("; ")),
        range: Some(r),
        expected: (r.count > 0).then(|| texts(base_lines.iter())),
        new_lines: texts(final_lines.iter()),
        new_eols: Some(final_lines.iter().map(|l| l.eol).collect()),
        eof_newline: Some(!final_lines.missing_final_newline()),
        ..ChangeSpec::default()
    }];
    out.extend(failed.into_iter().map(|mut s| {
        s.range = Some(LineRange::after(0));
        s
    }));
    out
}
