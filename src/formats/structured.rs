//! The Aptix structured patch: `{"root": ".", "patches": [{"path", "replacements": [{"find",
//! "replace", "limit"}]}]}`.
//!
//! As the spec says, the replacements of a file apply in order, each to the text the previous
//! ones left. A `find` is literal text, found through the shared matcher as patch-tool calls
//! find theirs: exactly first, then through the tolerant tiers (line endings, trailing
//! whitespace, indentation, blank edges), each tolerant match noted on its change, so that
//! line endings never decide whether a model's text is found. With `limit: "once"` (the
//! default) it must occur once: several occurrences are flagged `ambiguous` rather than taking
//! the first. `"all"` replaces every exact occurrence, or, when there is none, every one with
//! line endings forgiven. A find that is
//! not there is a `not_found` conflict on its own change. Several entries for one path apply in
//! order too, as one file patch. The edits are then expressed against the file as it is on
//! disk: each run of changed lines is one change, described by the replacements that made it.

use super::build::{Builder, ChangeSpec, Loaded};
use super::matcher::{find_all_text, find_text, split_text, Doc, Miss, TOLERANT};
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::json::{field_path, index_path, Walker};
use crate::model::{FileAction, FilePatch, LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use serde_json::Value;

pub const NAME: &str = "structured";

const TOP_FIELDS: &[&str] = &["root", "patches"];
const PATCH_FIELDS: &[&str] = &["path", "replacements"];
const REPLACEMENT_FIELDS: &[&str] = &["find", "replace", "limit"];

pub fn detect(value: &Value) -> bool {
    value
        .get("patches")
        .and_then(Value::as_array)
        .is_some_and(|p| p.iter().any(|e| e.get("replacements").is_some()))
}

/// One literal replacement, as read from the input.
#[derive(Clone, Debug)]
pub struct Replacement {
    pub find: String,
    pub replace: String,
    pub all: bool,
}

/// A path under the bundle's `root` (`.` or empty leaves it as it is).
pub fn rooted(root: Option<&str>, path: &str) -> String {
    match root.map(|r| r.trim_end_matches('/')) {
        None | Some("") | Some(".") => path.trim_start_matches("./").to_owned(),
        Some(root) => format!(
            "{}/{}",
            root.trim_start_matches("./"),
            path.trim_start_matches("./")
        ),
    }
}

pub fn load(
    value: &Value,
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
    walker: &mut Walker,
) {
    let Some(obj) = walker.object(value, "") else {
        return;
    };
    walker.unknown_fields(obj, "", TOP_FIELDS);
    let root = walker.opt_str(obj, "", "root");
    let Some(patches) = walker.req_array(obj, "", "patches") else {
        return;
    };
    if patches.is_empty() {
        walker.problem("patches", "must list at least one file to patch");
    }
    // Entries apply in order, each to the file the previous ones left: the replacements of
    // every entry naming one path are applied in turn, as one file patch.
    let mut files: Vec<(String, Vec<Replacement>)> = Vec::new();
    for (i, entry) in patches.iter().enumerate() {
        let path = index_path("patches", i);
        let Some(entry) = walker.object(entry, &path) else {
            continue;
        };
        walker.unknown_fields(entry, &path, PATCH_FIELDS);
        let doc_path = walker.req_str(entry, &path, "path");
        let replacements = read_replacements(walker, entry, &path);
        if let (Some(doc_path), Some(replacements)) = (doc_path, replacements) {
            let doc_path = rooted(root, doc_path);
            match files.iter_mut().find(|(p, _)| *p == doc_path) {
                Some((_, all)) => all.extend(replacements),
                None => files.push((doc_path, replacements)),
            }
        }
    }
    for (doc_path, replacements) in files {
        let file = patch_file(&doc_path, &replacements, tree, builder);
        loaded.files.push(file);
    }
}

/// Reads `replacements` at `path`: every entry with its `find`, `replace` and `limit`.
pub fn read_replacements(
    walker: &mut Walker,
    obj: &serde_json::Map<String, Value>,
    path: &str,
) -> Option<Vec<Replacement>> {
    let list = walker.req_array(obj, path, "replacements")?;
    let list_path = field_path(path, "replacements");
    if list.is_empty() {
        walker.problem(&list_path, "must list at least one replacement");
    }
    let before = walker.problems.len();
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = index_path(&list_path, i);
        let Some(item) = walker.object(item, &at) else {
            continue;
        };
        walker.unknown_fields(item, &at, REPLACEMENT_FIELDS);
        let find = walker.req_str(item, &at, "find");
        let replace = walker.req_str(item, &at, "replace");
        if find == Some("") {
            walker.problem(
                field_path(&at, "find"),
                "must not be empty: expected the literal text to replace",
            );
        }
        let all = match walker.opt_str(item, &at, "limit") {
            None | Some("once") => false,
            Some("all") => true,
            Some(other) => {
                walker.problem(
                    field_path(&at, "limit"),
                    format!("expected \"once\" or \"all\", found \"{other}\""),
                );
                false
            }
        };
        if let (Some(find), Some(replace)) = (find, replace) {
            out.push(Replacement {
                find: find.to_owned(),
                replace: replace.to_owned(),
                all,
            });
        }
    }
    (walker.problems.len() == before).then_some(out)
}

/// Applies replacements in order to a file and expresses the result as changes to the file on
/// disk.
pub fn patch_file(
    doc_path: &str,
    replacements: &[Replacement],
    tree: &dyn Files,
    builder: &mut Builder,
) -> FilePatch {
    let mut file = builder.file(doc_path, FileAction::Modify);
    let bytes = match tree.file(doc_path) {
        OnDisk::File { bytes, snapshot } => {
            builder.pin(&file, &snapshot);
            bytes
        }
        _ => {
            // Verify reports the missing or unusable file; the changes cannot be placed.
            for (i, r) in replacements.iter().enumerate() {
                builder.push(
                    &mut file,
                    ChangeSpec::unplaced(Some(describe(i, r)), LoadProblem::conflict(ProblemKind::NotFound, format!("{doc_path} cannot be read, so replacement {} has nothing to apply to", i + 1))).writing(split_text(&r.replace)),
                );
            }
            return file;
        }
    };
    let original = Doc::from_bytes(&bytes);
    let mut current = original.clone();
    // For each current line: the original line it still is, or the replacements that wrote it.
    let mut origin: Vec<Result<usize, Vec<usize>>> = (0..original.len()).map(Ok).collect();
    let mut removed_by: Vec<Vec<usize>> = vec![Vec::new(); original.len()];
    let mut failed = Vec::new();
    // The tolerance each replacement's find needed, if any: the changes it makes say so.
    let mut tiers: Vec<Option<MatchTier>> = vec![None; replacements.len()];
    for (i, r) in replacements.iter().enumerate() {
        let located = if r.all {
            let all = find_all_text(&current, &r.find, &r.replace);
            if all.is_empty() {
                Err(Miss::NotFound)
            } else {
                Ok(all)
            }
        } else {
            find_text(&current, &r.find, &r.replace, TOLERANT).map(|l| vec![l])
        };
        match located {
            Ok(edits) => {
                tiers[i] = edits
                    .iter()
                    .map(|e| e.tier)
                    .find(|t| *t != MatchTier::Exact);
                // Apply from the bottom so earlier ranges stay valid.
                for edit in edits.iter().rev() {
                    let at = edit.range.index();
                    let mut writers = vec![i];
                    for gone in origin.drain(at..at + edit.range.count) {
                        match gone {
                            Ok(o) => removed_by[o].push(i),
                            Err(w) => writers.extend(w),
                        }
                    }
                    writers.sort_unstable();
                    writers.dedup();
                    let inserted = std::iter::repeat_n(Err(writers), edit.new_lines.len());
                    origin.splice(at..at, inserted);
                    current.apply(edit);
                }
            }
            Err(miss) => {
                let what = format!("replacement {} (find \"{}\")", i + 1, preview(&r.find));
                let (kind, message) = miss.describe(&what);
                failed.push((
                    i,
                    ChangeSpec::near(
                        &miss,
                        Some(describe(i, r)),
                        LoadProblem::conflict(kind, message),
                    )
                    .writing(split_text(&r.replace)),
                ));
            }
        }
    }
    // The changes follow the author's order of the replacements (a run of lines several
    // replacements wrote goes where its first one is), not their places in the file: the plan
    // orders writes by place itself.
    let mut specs = runs(
        &original,
        &current,
        &origin,
        &removed_by,
        replacements,
        &tiers,
    );
    specs.extend(failed);
    specs.sort_by_key(|(first_writer, _)| *first_writer);
    for (_, spec) in specs {
        builder.push(&mut file, spec);
    }
    file
}

/// Each run of lines between untouched original lines is one change, with the first
/// replacement that wrote it.
fn runs(
    original: &Doc,
    current: &Doc,
    origin: &[Result<usize, Vec<usize>>],
    removed_by: &[Vec<usize>],
    replacements: &[Replacement],
    tiers: &[Option<MatchTier>],
) -> Vec<(usize, ChangeSpec)> {
    let mut out = Vec::new();
    let mut next_original = 0;
    let mut k = 0;
    while k <= current.len() {
        let anchor = match origin.get(k) {
            Some(Ok(o)) => Some(*o),
            Some(Err(_)) => {
                k += 1;
                continue;
            }
            None => None,
        };
        let end_original = anchor.unwrap_or(original.len());
        // New lines since the previous anchor.
        let mut start_new = k;
        while start_new > 0 && origin[start_new - 1].is_err() {
            start_new -= 1;
        }
        let has_new = start_new < k;
        if has_new || end_original > next_original {
            let mut writers: Vec<usize> = origin[start_new..k]
                .iter()
                .flat_map(|o| o.clone().err().unwrap_or_default())
                .collect();
            for gone in &removed_by[next_original..end_original] {
                writers.extend(gone);
            }
            writers.sort_unstable();
            writers.dedup();
            let range = LineRange {
                start: next_original + 1,
                count: end_original - next_original,
            };
            let reaches_end = anchor.is_none();
            let eof_newline = (reaches_end
                && current.ends_with_newline() != original.ends_with_newline())
            .then(|| current.ends_with_newline());
            let first_writer = writers.first().copied().unwrap_or(0);
            out.push((
                first_writer,
                ChangeSpec {
                    description: Some(
                        writers
                            .iter()
                            .map(|&w| describe(w, &replacements[w]))
                            .collect::<Vec<_>>()
                            .join("; "),
                    ),
                    range: Some(range),
                    expected: (range.count > 0).then(|| original.texts(range).into()),
                    new_lines: current.lines[start_new..k]
                        .iter()
                        .map(|(t, _)| t.as_str())
                        .collect(),
                    eof_newline,
                    tier: writers
                        .iter()
                        .find_map(|&w| tiers[w])
                        .unwrap_or(MatchTier::Exact),
                    ..ChangeSpec::default()
                },
            ));
        }
        next_original = end_original + 1;
        k += 1;
    }
    out
}

fn describe(index: usize, r: &Replacement) -> String {
    format!(
        "replacement {}{}: \"{}\" -> \"{}\"",
        index + 1,
        if r.all { " (all)" } else { "" },
        preview(&r.find),
        preview(&r.replace)
    )
}

/// The first line of a text, shortened, for messages.
pub fn preview(text: &str) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let short: String = first.chars().take(50).collect();
    let more = first.chars().count() > 50 || text.trim().lines().count() > 1;
    if more {
        format!("{short}...")
    } else {
        short
    }
}
