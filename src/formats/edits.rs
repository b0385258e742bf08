//! Patch-tool calls (patch-tool-requirements.md): `{"path", "patches": [...]}` or an array of
//! them, each patch one of `replace`, `append_eof`, `prepend_bof`, `overwrite`.
//!
//! REQ-PATCH-001: `replace` needs `oldText` to occur once; a missing file allows only
//! `append_eof`, `prepend_bof` and `overwrite`, and is created (with its folders, by the
//! commit). REQ-PATCH-002: the patches of a call are all placed against the original content;
//! when one of them cannot be placed, every change of the call is a conflict, so the call is
//! applied whole or not at all. Calls follow one another: a later call for a file an earlier
//! call changes is placed against what that call wrote, and joins its file patch. REQ-PATCH-003: clipboards, shared by the calls in order:
//! `toClipboard` stores the matched text (the file's text, after a tolerant match),
//! `fromClipboard` replaces `newText`, the same name for both copies; a missing clipboard is an
//! input error. REQ-PATCH-004: `reindent` strips then adds a prefix on each non-empty line of the
//! inserted text; a line without the strip prefix is an input error. REQ-PATCH-005: the tolerant
//! tiers of the shared matcher. `overwrite` of an existing file becomes its hunks, as a bundle.

use super::build::{create_all, diff_changes, text_lines, Builder, ChangeSpec, Loaded};
use super::chain::{self, Continuation};
use super::matcher::{find_text, split_text, tier_name, Doc, Located, Miss, TOLERANT};
use super::structured::preview;
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::json::{field_path, index_path, Walker};
use crate::model::{FileAction, InputWarning, LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub const NAME: &str = "edits";

const CALL_FIELDS: &[&str] = &["path", "patches"];
const PATCH_FIELDS: &[&str] = &[
    "operation",
    "oldText",
    "newText",
    "toClipboard",
    "fromClipboard",
    "reindent",
];

pub fn detect(value: &Value) -> bool {
    let is_call =
        |v: &Value| v.get("path").is_some() && v.get("patches").is_some_and(Value::is_array);
    match value {
        Value::Array(calls) => !calls.is_empty() && calls.iter().all(is_call),
        other => is_call(other),
    }
}

pub fn load(
    value: &Value,
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
    walker: &mut Walker,
) {
    let calls: Vec<(String, &Value)> = match value {
        Value::Array(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, c)| (index_path("", i), c))
            .collect(),
        other => vec![(String::new(), other)],
    };
    let mut clipboards: HashMap<String, String> = HashMap::new();
    let first = loaded.files.len();
    for (path, call) in calls {
        let Some(obj) = walker.object(call, &path) else {
            continue;
        };
        walker.unknown_fields(obj, &path, CALL_FIELDS);
        let doc_path = walker.req_str(obj, &path, "path");
        let Some(patches) = walker.req_array(obj, &path, "patches") else {
            continue;
        };
        let Some(doc_path) = doc_path else { continue };
        if patches.is_empty() {
            walker.problem(field_path(&path, "patches"), "must list at least one patch");
            continue;
        }
        let mut changes = |content: Option<&[u8]>, loaded: &mut Loaded| {
            call_changes(
                doc_path,
                patches,
                &path,
                content,
                walker,
                &mut clipboards,
                &mut loaded.warnings,
            )
        };
        // A later call for a file an earlier call changes is placed against its result.
        let Some(k) = chain::continued(&loaded.files[first..], doc_path).map(|k| first + k) else {
            let disk = tree.file(doc_path);
            let content = match &disk {
                OnDisk::File { bytes, .. } => Some(bytes.clone()),
                _ => None,
            };
            let Some(specs) = changes(content.as_ref().map(|b| b.as_slice()), loaded) else {
                continue;
            };
            let action = match disk {
                OnDisk::Missing => FileAction::Create,
                _ => FileAction::Modify,
            };
            let mut file = builder.file(doc_path, action);
            if let OnDisk::File { snapshot, .. } = disk {
                builder.pin(&file, &snapshot);
            }
            file.changes.reserve_exact(specs.len());
            for spec in specs {
                builder.push(&mut file, spec);
            }
            loaded.files.push(file);
            continue;
        };
        match Continuation::of(tree, &loaded.files[k]) {
            Ok(continuation) => {
                if let Some(specs) = changes(Some(&continuation.current), loaded) {
                    continuation.extend(builder, &mut loaded.files[k], specs);
                }
            }
            Err(why) => {
                if let Some(specs) = changes(None, loaded) {
                    chain::refuse(builder, &mut loaded.files[k], specs, &why);
                }
            }
        }
    }
}

enum Op {
    Replace(String),
    Append,
    Prepend,
    Overwrite,
}

/// One patch of a call as read: its operation and the fields that settle its text.
struct Patch {
    op: Op,
    new_text: Option<String>,
    to_clip: Option<String>,
    from_clip: Option<String>,
    /// The `reindent` prefixes: what to strip, then what to add.
    reindent: Option<(String, String)>,
}

/// The changes of one call against the file's `content` (`None`: the file does not exist), or
/// `None` when the call has input problems (reported to `walker`).
#[allow(clippy::too_many_arguments)]
fn call_changes(
    doc_path: &str,
    patches: &[Value],
    path: &str,
    content: Option<&[u8]>,
    walker: &mut Walker,
    clipboards: &mut HashMap<String, String>,
    warnings: &mut Vec<InputWarning>,
) -> Option<Vec<ChangeSpec>> {
    let bytes = content.unwrap_or_default();
    let before = walker.problems.len();
    let mut call = Call {
        doc_path,
        exists: content.is_some(),
        bytes,
        doc: Doc::from_bytes(bytes),
        walker,
        clipboards,
        warnings,
    };
    let mut specs: Vec<ChangeSpec> = Vec::new();
    for (i, patch) in patches.iter().enumerate() {
        let at = index_path(&field_path(path, "patches"), i);
        call.place(i, patch, &at, &mut specs);
    }
    if call.walker.problems.len() > before {
        return None;
    }
    merge_insertions(&mut specs);
    flag_overlaps(&mut specs);
    fail_together(&mut specs);
    Some(specs)
}

/// The patches of one call being placed: the file they are placed against, as the call finds
/// it, and where input problems, warnings and the clipboards shared by the calls go.
struct Call<'c> {
    doc_path: &'c str,
    /// Whether the file exists; `bytes` is empty when it does not.
    exists: bool,
    bytes: &'c [u8],
    doc: Doc,
    walker: &'c mut Walker,
    clipboards: &'c mut HashMap<String, String>,
    warnings: &'c mut Vec<InputWarning>,
}

impl Call<'_> {
    /// Reads the patch `value`, the `i`-th of the call (at the JSON path `at`), and adds its
    /// changes to `specs`. A patch with input problems adds none: the problems fail the call.
    fn place(&mut self, i: usize, value: &Value, at: &str, specs: &mut Vec<ChangeSpec>) {
        let Some(patch) = read_patch(self.walker, value, at) else {
            return;
        };
        // Place a replace first: its matched text is what toClipboard stores.
        let located = match &patch.op {
            Op::Replace(old) if self.exists => Some(find_text(
                &self.doc,
                old,
                patch.new_text.as_deref().unwrap_or(""),
                TOLERANT,
            )),
            _ => None,
        };
        self.store_clipboard(&patch, located.as_ref(), at);
        let Some(text) = self.text(&patch, at) else {
            return;
        };
        match &patch.op {
            Op::Replace(old) => specs.push(self.replace(i, old, &text, &patch, located.as_ref())),
            Op::Append => specs.push(self.append(i, &text)),
            Op::Prepend => specs.push(self.prepend(i, &text)),
            Op::Overwrite => self.overwrite(i, &text, specs),
        }
    }

    /// REQ-PATCH-003: stores the matched text of a replace under its `toClipboard` name: the
    /// file's own text (with a warning) when it matched with tolerance, else `oldText`. Only a
    /// replace has matched text: `toClipboard` on another operation is an input problem.
    fn store_clipboard(
        &mut self,
        patch: &Patch,
        located: Option<&Result<Located, Miss>>,
        at: &str,
    ) {
        if let (Some(name), Op::Replace(old)) = (&patch.to_clip, &patch.op) {
            let matched = match located {
                Some(Ok(found)) if found.tier != MatchTier::Exact => {
                    let text = found.expected.join("\n") + "\n";
                    self.warnings.push(InputWarning {
                        location: field_path(at, "toClipboard"),
                        message: format!("clipboard \"{name}\" holds the file's text as matched with tolerance \"{}\", not oldText as written", tier_name(found.tier)),
                    });
                    text
                }
                _ => old.clone(),
            };
            self.clipboards.insert(name.clone(), matched);
        } else if patch.to_clip.is_some() {
            self.walker.problem(
                field_path(at, "toClipboard"),
                "only a replace has matched text to store",
            );
        }
    }

    /// The text a patch writes: its `fromClipboard` clipboard's, else its `newText`, then
    /// reindented (REQ-PATCH-004); `None` after an input problem (a missing clipboard, a line
    /// without the strip prefix).
    fn text(&mut self, patch: &Patch, at: &str) -> Option<String> {
        let mut text = match &patch.from_clip {
            Some(name) => match self.clipboards.get(name) {
                Some(text) => text.clone(),
                None => {
                    self.walker.problem(field_path(at, "fromClipboard"), format!("clipboard \"{name}\" does not exist (no earlier patch stored it with toClipboard)"));
                    return None;
                }
            },
            None => patch.new_text.clone().unwrap_or_default(),
        };
        if let Some((strip, add)) = &patch.reindent {
            match apply_reindent(&text, strip, add) {
                Ok(t) => text = t,
                Err(line) => {
                    self.walker.problem(field_path(at, "reindent"), format!("strip precondition failed: line {line} of the inserted text does not start with \"{strip}\""));
                    return None;
                }
            }
        }
        Some(text)
    }

    /// The change of the `i`-th patch, a replace of `old` with `text` (`located`: where `old`
    /// was found with the patch's own newText, for an existing file). A missing file is a
    /// conflict; a copy (the same clipboard for both) keeps the matched text as it is; else
    /// `old` is placed again with the final text.
    fn replace(
        &self,
        i: usize,
        old: &str,
        text: &str,
        patch: &Patch,
        located: Option<&Result<Located, Miss>>,
    ) -> ChangeSpec {
        if !self.exists {
            return ChangeSpec::unplaced(patch_description(i, &format!("replace {}", preview(old))), LoadProblem::conflict(ProblemKind::NotFound, format!("{} does not exist; a missing file allows only append_eof, prepend_bof and overwrite", self.doc_path))).writing(split_text(text));
        }
        let copies = patch.to_clip.is_some() && patch.to_clip == patch.from_clip;
        if let (true, Some(Ok(found))) = (copies, located) {
            // REQ-PATCH-003: the same clipboard for both is a copy and the text stays
            // as it is. The clipboard holds the file's own text; placing it as new text
            // would shift it again after a tolerant (indent) match.
            return ChangeSpec {
                description: patch_description(
                    i,
                    &format!(
                        "copy \"{}\" to clipboard \"{}\"",
                        preview(old),
                        patch.to_clip.as_deref().unwrap_or_default()
                    ),
                ),
                range: Some(found.range),
                expected: Some(found.expected.clone()),
                new_lines: found.expected.clone(),
                tier: found.tier,
                ..ChangeSpec::default()
            };
        }
        // Re-place with the final text (clipboard and reindent applied).
        let description = patch_description(i, &format!("replace \"{}\"", preview(old)));
        match find_text(&self.doc, old, text, TOLERANT) {
            Ok(found) => ChangeSpec {
                description,
                range: Some(found.range),
                expected: Some(found.expected),
                new_lines: found.new_lines,
                tier: found.tier,
                eof_newline: found.eof_newline,
                ..ChangeSpec::default()
            },
            Err(miss) => {
                let name = format!("oldText \"{}\"", preview(old));
                let (kind, message) = miss.describe(&name);
                let message = if kind == ProblemKind::NotFound {
                    format!("old text not found: {message}")
                } else {
                    message
                };
                ChangeSpec::near(&miss, description, LoadProblem::conflict(kind, message))
                    .writing(split_text(text))
            }
        }
    }

    /// The change of the `i`-th patch, an `append_eof` of `text`: it keeps the file's final
    /// newline when it appends nothing.
    fn append(&self, i: usize, text: &str) -> ChangeSpec {
        ChangeSpec {
            description: patch_description(i, "append at the end of the file"),
            range: Some(LineRange::after(self.doc.len())),
            new_lines: text_lines(text.as_bytes()).0,
            eof_newline: Some(
                text.ends_with('\n') || text.is_empty() && self.doc.ends_with_newline(),
            ),
            ..ChangeSpec::default()
        }
    }

    /// The change of the `i`-th patch, a `prepend_bof` of `text`: it sets the final newline
    /// only of an empty file, whose last line it writes.
    fn prepend(&self, i: usize, text: &str) -> ChangeSpec {
        ChangeSpec {
            description: patch_description(i, "insert at the top of the file"),
            range: Some(LineRange::after(0)),
            new_lines: text_lines(text.as_bytes()).0,
            eof_newline: self.doc.is_empty().then_some(text.ends_with('\n')),
            ..ChangeSpec::default()
        }
    }

    /// Adds the changes of the `i`-th patch, an `overwrite` with `text`, to `specs`: the hunks
    /// from the file's content to `text` (as a bundle does), or the creation of a missing file.
    fn overwrite(&self, i: usize, text: &str, specs: &mut Vec<ChangeSpec>) {
        if !self.exists {
            specs.push(create_all(
                text.as_bytes(),
                format!("patch {}: overwrite (creates the file)", i + 1),
            ));
            return;
        }
        let hunks = diff_changes(self.bytes, text.as_bytes());
        specs.extend(hunks.into_iter().map(|mut h| {
            h.description = patch_description(
                i,
                &format!("overwrite, {}", h.description.unwrap_or_default()),
            );
            h
        }));
    }
}

/// How the `i`-th patch's change is described: `patch 2: WHAT` (1-based, as a person counts).
fn patch_description(i: usize, what: &str) -> Option<String> {
    Some(format!("patch {}: {what}", i + 1))
}

/// Reads the fields of the patch `value` at the JSON path `at`; `None` when it is no object or
/// has no valid operation (a replace without `oldText` included), reported to `walker`.
fn read_patch(walker: &mut Walker, value: &Value, at: &str) -> Option<Patch> {
    let obj = walker.object(value, at)?;
    walker.unknown_fields(obj, at, PATCH_FIELDS);
    let op = match walker.req_str(obj, at, "operation") {
        Some("replace") => match walker.opt_str(obj, at, "oldText") {
            Some("") | None => {
                walker.problem(
                    field_path(at, "oldText"),
                    "required for replace: the text to find (it must occur once)",
                );
                return None;
            }
            Some(old) => Op::Replace(old.to_owned()),
        },
        Some("append_eof") => Op::Append,
        Some("prepend_bof") => Op::Prepend,
        Some("overwrite") => Op::Overwrite,
        Some(other) => {
            walker.problem(field_path(at, "operation"), format!("expected \"replace\", \"append_eof\", \"prepend_bof\" or \"overwrite\", found \"{other}\""));
            return None;
        }
        None => return None,
    };
    let new_text = walker.opt_str(obj, at, "newText").map(str::to_owned);
    let to_clip = walker.opt_str(obj, at, "toClipboard").map(str::to_owned);
    let from_clip = walker.opt_str(obj, at, "fromClipboard").map(str::to_owned);
    let reindent = read_reindent(walker, obj, at);
    Some(Patch {
        op,
        new_text,
        to_clip,
        from_clip,
        reindent,
    })
}

/// All patches are placed against the original: they must not overlap. Of two placed changes
/// whose lines overlap, the later in file order is a conflict.
fn flag_overlaps(specs: &mut [ChangeSpec]) {
    let mut order: Vec<usize> = (0..specs.len())
        .filter(|&k| specs[k].problems.is_empty())
        .collect();
    order.sort_by_key(|&k| {
        let r = specs[k].range.unwrap_or(LineRange::after(0));
        (r.start, r.count > 0)
    });
    for pair in order.windows(2) {
        let (a, b) = (
            specs[pair[0]].range.unwrap_or(LineRange::after(0)),
            specs[pair[1]].range.unwrap_or(LineRange::after(0)),
        );
        if a.overlaps(b) {
            let message = format!("it overlaps another patch of the same call (lines {} and {}); patches apply to the original content together", a.describe(), b.describe());
            specs[pair[1]]
                .problems
                .push(LoadProblem::conflict(ProblemKind::Overlap, message));
        }
    }
}

/// REQ-PATCH-002: one failed patch fails the call. Every change without a blocking problem of
/// its own gets a conflict naming the changes that cannot be placed.
fn fail_together(specs: &mut [ChangeSpec]) {
    let failed: Vec<usize> = (0..specs.len())
        .filter(|&k| specs[k].problems.iter().any(|p| p.blocking))
        .collect();
    if failed.is_empty() {
        return;
    }
    let names: Vec<String> = failed.iter().map(|k| (k + 1).to_string()).collect();
    for (k, spec) in specs.iter_mut().enumerate() {
        if !failed.contains(&k) {
            spec.problems.push(LoadProblem::conflict(
                ProblemKind::CallFailed,
                format!("change {} of this call cannot be placed; the patches of one call apply together or not at all", names.join(", ")),
            ));
        }
    }
}

/// Appends and prepends that insert at the same place (several appends, or a prepend and an
/// append to an empty file) become one insertion: prepends first, then appends, each in the
/// order given.
fn merge_insertions(specs: &mut Vec<ChangeSpec>) {
    let is_insertion = |s: &ChangeSpec| {
        s.problems.is_empty() && s.expected.is_none() && s.range.is_some_and(|r| r.count == 0)
    };
    let mut k = 0;
    while k < specs.len() {
        if !is_insertion(&specs[k]) {
            k += 1;
            continue;
        }
        let at = specs[k].range;
        let same: Vec<usize> = (k + 1..specs.len())
            .filter(|&j| is_insertion(&specs[j]) && specs[j].range == at)
            .collect();
        if same.is_empty() {
            k += 1;
            continue;
        }
        let mut group: Vec<ChangeSpec> = vec![specs[k].clone()];
        for &j in same.iter().rev() {
            group.insert(1, specs.remove(j));
        }
        let is_prepend = |s: &ChangeSpec| {
            s.description
                .as_deref()
                .is_some_and(|d| d.contains("insert at the top"))
        };
        group.sort_by_key(|s| !is_prepend(s));
        let mut merged = group[0].clone();
        for other in &group[1..] {
            merged.new_lines.extend(&other.new_lines);
            merged.eof_newline = other.eof_newline.or(merged.eof_newline);
            let text = other.description.clone().unwrap_or_default();
            merged.description = Some(format!(
                "{}; {text}",
                merged.description.unwrap_or_default()
            ));
        }
        specs[k] = merged;
        k += 1;
    }
}

fn read_reindent(
    walker: &mut Walker,
    obj: &Map<String, Value>,
    at: &str,
) -> Option<(String, String)> {
    let value = obj.get("reindent")?;
    let path = field_path(at, "reindent");
    let inner = walker.object(value, &path)?;
    walker.unknown_fields(inner, &path, &["strip", "add"]);
    let strip = walker
        .opt_str(inner, &path, "strip")
        .unwrap_or("")
        .to_owned();
    let add = walker.opt_str(inner, &path, "add").unwrap_or("").to_owned();
    Some((strip, add))
}

/// Strips `strip` from and adds `add` to every non-empty line; the 1-based line without the
/// strip prefix on failure.
fn apply_reindent(text: &str, strip: &str, add: &str) -> Result<String, usize> {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            out.push_str(line);
            continue;
        }
        let rest = line.strip_prefix(strip).ok_or(i + 1)?;
        out.push_str(add);
        out.push_str(rest);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindent_strips_then_adds_and_names_the_failing_line() {
        assert_eq!(
            apply_reindent("    a\n\n    b\n", "    ", "\t"),
            Ok("\ta\n\n\tb\n".into())
        );
        assert_eq!(apply_reindent("    a\n  b\n", "    ", ""), Err(2));
    }
}
