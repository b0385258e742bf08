//! TUL-002 `workspace_write_patch` batches: parsing and validating them into the batch model.
//!
//! Every rule of the spec that can be checked without the workspace is checked here, and every
//! violation is collected with its JSON path, the file's docPath and the change's index and key.
//! Rules that need the file (line numbers within its length, SHA-256, expected lines) are
//! checked by `verify`. A TUL-002 response (with `batchId`, `filePatchId`, `changeId`) keeps its
//! IDs; a request gets IDs derived from its bytes.

use crate::json::{field_path, index_path, Walker};
use crate::model::{
    Batch, BatchId, Change, ChangeId, FileAction, FilePatch, FilePatchId, IdDeriver, LineRange,
    MatchTier, Operation,
};
use serde_json::{Map, Value};
use std::collections::HashMap;

pub const NAME: &str = "tul002";

const BATCH_FIELDS: &[&str] = &["batchLabel", "batchKey", "batchId", "files"];
const FILE_FIELDS: &[&str] = &[
    "fileKey",
    "docPath",
    "originalSha256",
    "fileLabel",
    "filePatchId",
    "changes",
];
const CHANGE_FIELDS: &[&str] = &[
    "changeKey",
    "changeId",
    "operation",
    "description",
    "afterLine",
    "startLine",
    "endLine",
    "expectedOriginalLines",
    "newLines",
];

/// Whether a parsed JSON value looks like a TUL-002 batch (or a response wrapping one).
pub fn detect(value: &Value) -> bool {
    let Some((batch, _)) = unwrap_envelope(value) else {
        return false;
    };
    let Some(Value::Array(files)) = batch.get("files") else {
        return false;
    };
    // `{"files": []}` is a TUL-002 batch that breaks its first rule; say so rather than
    // "not a batch in any format". Other formats with a `files` array carry other fields.
    let only_batch_fields = batch.keys().all(|k| BATCH_FIELDS.contains(&k.as_str()));
    (files.is_empty() && only_batch_fields)
        || batch.contains_key("batchLabel")
        || batch.contains_key("batchKey")
        || batch.contains_key("batchId")
        || files.iter().any(|f| {
            f.get("docPath").is_some()
                || f.get("originalSha256").is_some()
                || f.get("changes").is_some()
        })
}

/// A batch is the top-level object, or sits under `result` (a tool response) or `arguments`
/// (a tool call). Returns the batch object and the JSON path it was found at.
fn unwrap_envelope(value: &Value) -> Option<(&Map<String, Value>, &'static str)> {
    let obj = value.as_object()?;
    if obj.contains_key("files") {
        return Some((obj, ""));
    }
    for key in ["result", "arguments"] {
        if let Some(inner) = obj.get(key).and_then(Value::as_object) {
            if inner.contains_key("files") {
                return Some((inner, key));
            }
        }
    }
    None
}

/// Parses and validates a TUL-002 batch. Problems and warnings go to `walker`; the batch is
/// returned only when there are no problems.
pub fn parse(value: &Value, input: &[u8], walker: &mut Walker) -> Option<ParsedBatch> {
    let (obj, root_path) = match unwrap_envelope(value) {
        Some(found) => found,
        None => {
            walker.object(value, "")?;
            walker.problem(
                "files",
                "required array is missing (a TUL-002 batch lists its files)",
            );
            return None;
        }
    };
    walker.unknown_fields(obj, root_path, BATCH_FIELDS);
    let ids = IdDeriver::new(input);
    let batch_id = walker
        .opt_str(obj, root_path, "batchId")
        .map(|s| BatchId(s.to_owned()))
        .unwrap_or_else(|| ids.batch_id());
    let key = walker
        .opt_str(obj, root_path, "batchKey")
        .map(str::to_owned);
    let label = walker
        .opt_str(obj, root_path, "batchLabel")
        .map(str::to_owned);
    let files_path = field_path(root_path, "files");
    let files_value = walker.req_array(obj, root_path, "files")?;
    if files_value.is_empty() {
        walker.problem(&files_path, "must list at least one file patch");
    }

    let problems_before = walker.problems.len();
    let mut files = Vec::with_capacity(files_value.len());
    let mut seen_paths: HashMap<String, usize> = HashMap::new();
    let mut seen_file_ids: HashMap<String, usize> = HashMap::new();
    let mut seen_file_keys: HashMap<String, usize> = HashMap::new();
    let mut seen_change_ids: HashMap<String, (usize, usize)> = HashMap::new();
    for (index, file_value) in files_value.iter().enumerate() {
        let path = index_path(&files_path, index);
        let Some(file) = parse_file(walker, &ids, file_value, &path, index) else {
            continue;
        };
        if let Some(first) = seen_paths.insert(path_identity(&file.doc_path), index) {
            walker.problem(
                field_path(&path, "docPath"),
                format!(
                    "names the same file as files[{first}] (paths that differ only in case or Unicode normalisation are one file); each file may appear once in a batch"
                ),
            );
        }
        if let Some(first) = seen_file_ids.insert(file.id.0.clone(), index) {
            walker.problem(
                field_path(&path, "filePatchId"),
                format!(
                    "filePatchId \"{}\" is also the ID of files[{first}]; IDs must be unique",
                    file.id
                ),
            );
        }
        if let Some(key) = &file.key {
            if let Some(first) = seen_file_keys.insert(key.clone(), index) {
                walker.warn(
                    field_path(&path, "fileKey"),
                    format!(
                        "fileKey \"{key}\" is also the key of files[{first}]; keys should be unique in a batch, and a selector naming it is refused as ambiguous"
                    ),
                );
            }
        }
        warn_repeated_change_keys(walker, &path, &file);
        for (change_index, change) in file.changes.iter().enumerate() {
            if let Some((f, c)) = seen_change_ids.insert(change.id.0.clone(), (index, change_index))
            {
                let change_path = index_path(&field_path(&path, "changes"), change_index);
                walker.problem(
                    field_path(&change_path, "changeId"),
                    format!(
                        "changeId \"{}\" is also the ID of files[{f}].changes[{c}]; IDs must be unique",
                        change.id
                    ),
                );
            }
        }
        files.push(file);
    }
    name_and_sort_problems(walker, problems_before, obj, root_path);
    if !walker.problems.is_empty() {
        return None;
    }
    Some(ParsedBatch {
        id: batch_id,
        key,
        label,
        files,
        content_sha256: ids.input_sha256().to_owned(),
    })
}

/// A changeKey is unique only within its file patch (TUL-002 section 5.1.1): one used twice
/// in a file gets a warning, as a selector naming it would be ambiguous.
fn warn_repeated_change_keys(walker: &mut Walker, path: &str, file: &FilePatch) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, change) in file.changes.iter().enumerate() {
        let Some(key) = change.key.as_deref() else {
            continue;
        };
        if let Some(first) = seen.insert(key, i) {
            let change_path = index_path(&field_path(path, "changes"), i);
            walker.warn(
                field_path(&change_path, "changeKey"),
                format!(
                    "in \"{}\", change #{}: changeKey \"{key}\" is also the key of change #{} of this file; keys should be unique within a file, and a selector naming it is refused as ambiguous",
                    file.doc_path,
                    i + 1,
                    first + 1
                ),
            );
        }
    }
}

/// Names the file (its docPath) and the change (its number and key) in front of every problem
/// found from `from` on, read from the problem's JSON path, and sorts the problems by where
/// they are in the batch: batch fields first, then each file's own fields before its changes,
/// in input order. (The walker reports each problem where it is found, which is not always the
/// input's order: ordering and duplicates are checked after a whole file or batch is read.)
fn name_and_sort_problems(
    walker: &mut Walker,
    from: usize,
    batch: &Map<String, Value>,
    root_path: &str,
) {
    let prefix = if root_path.is_empty() {
        String::new()
    } else {
        format!("{root_path}.")
    };
    let files = batch.get("files").and_then(Value::as_array);
    let mut located: Vec<(Place, crate::error::InputProblem)> = walker
        .problems
        .drain(from..)
        .map(|mut problem| {
            let (file, change) = problem
                .location
                .strip_prefix(&prefix)
                .map_or((None, None), position_of);
            let file_value = file.and_then(|f| files?.get(f));
            let doc_path = file_value
                .and_then(|f| f.get("docPath"))
                .and_then(Value::as_str)
                .filter(|d| !d.is_empty());
            let change_key = change
                .and_then(|c| file_value?.get("changes")?.get(c)?.get("changeKey"))
                .and_then(Value::as_str);
            let mut context = Vec::new();
            if let Some(doc_path) = doc_path {
                context.push(format!("in \"{doc_path}\""));
            }
            if let Some(change) = change {
                context.push(change_name(change, change_key));
            }
            if !context.is_empty() {
                problem.message = format!("{}: {}", context.join(", "), problem.message);
            }
            ((file, change), problem)
        })
        .collect();
    // Stable: problems at one place keep the order they were found in.
    located.sort_by_key(|(at, _)| *at);
    walker
        .problems
        .extend(located.into_iter().map(|(_, problem)| problem));
}

/// Where in a batch a problem is: the file and change indexes, when it is inside them.
type Place = (Option<usize>, Option<usize>);

/// The file and change indexes a JSON path points into: `files[2].changes[0].endLine` is
/// `(Some(2), Some(0))`.
fn position_of(location: &str) -> Place {
    fn index(text: &str, prefix: &str) -> Option<(usize, usize)> {
        let rest = text.strip_prefix(prefix)?;
        let end = rest.find(']')?;
        Some((rest[..end].parse().ok()?, prefix.len() + end + 1))
    }
    let Some((file, used)) = index(location, "files[") else {
        return (None, None);
    };
    let change = index(&location[used..], ".changes[").map(|(c, _)| c);
    (Some(file), change)
}

/// What makes two docPaths the same file: equal after lowercasing and Unicode NFC.
pub fn path_identity(doc_path: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    doc_path.nfc().collect::<String>().to_lowercase()
}

/// The parts of a batch a format produces; `formats` adds the source and hashes.
pub struct ParsedBatch {
    pub id: BatchId,
    pub key: Option<String>,
    pub label: Option<String>,
    pub files: Vec<FilePatch>,
    /// The SHA-256 of the input bytes.
    pub content_sha256: String,
}

impl ParsedBatch {
    pub fn into_batch(self, source: &str) -> Batch {
        Batch {
            id: self.id,
            key: self.key,
            label: self.label,
            format: NAME.to_owned(),
            source: source.to_owned(),
            content_sha256: self.content_sha256,
            files: self.files,
            warnings: Vec::new(),
        }
    }
}

fn parse_file(
    walker: &mut Walker,
    ids: &IdDeriver,
    value: &Value,
    path: &str,
    index: usize,
) -> Option<FilePatch> {
    let obj = walker.object(value, path)?;
    walker.unknown_fields(obj, path, FILE_FIELDS);
    let problems_before = walker.problems.len();
    let doc_path = walker.req_str(obj, path, "docPath").map(str::to_owned);
    if let Some(doc) = &doc_path {
        if doc.is_empty() {
            walker.problem(field_path(path, "docPath"), "must not be empty");
        }
    }
    let sha = walker
        .req_str(obj, path, "originalSha256")
        .map(str::to_ascii_lowercase);
    if let Some(sha) = &sha {
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            walker.problem(
                field_path(path, "originalSha256"),
                format!(
                    "expected 64 hexadecimal digits (a SHA-256), found \"{sha}\" ({} characters)",
                    sha.chars().count()
                ),
            );
        }
    }
    let key = walker.opt_str(obj, path, "fileKey").map(str::to_owned);
    let label = walker.opt_str(obj, path, "fileLabel").map(str::to_owned);
    let given_id = walker.opt_str(obj, path, "filePatchId").map(str::to_owned);
    let doc_name = doc_path.clone().unwrap_or_default();
    let id = given_id
        .map(FilePatchId)
        .unwrap_or_else(|| ids.file_id(index, &doc_name));

    let changes_path = field_path(path, "changes");
    let changes_value = walker.req_array(obj, path, "changes");
    let mut changes = Vec::new();
    if let Some(values) = changes_value {
        if values.is_empty() {
            walker.problem(&changes_path, "must have at least one change");
        }
        let mut positions = Vec::new();
        for (i, change_value) in values.iter().enumerate() {
            let change_path = index_path(&changes_path, i);
            let (position, change) = parse_change(walker, ids, &id, change_value, &change_path, i);
            if let Some(position) = position {
                positions.push(position);
            }
            if let Some(change) = change {
                changes.push(change);
            }
        }
        check_order(walker, &changes_path, &positions);
    }
    if walker.problems.len() > problems_before {
        return None;
    }
    Some(FilePatch {
        id,
        key,
        doc_path: doc_path?,
        label,
        // A missing file with the empty hash becomes a creation when resolved (verify).
        action: FileAction::Modify,
        expected_sha256: sha,
        changes,
        copy_from: None,
        new_file_eol: None,
        load_problems: Vec::new(),
    })
}

/// How a change is named in messages: `change #3 "key"` (1-based, as a person counts).
fn change_name(index: usize, key: Option<&str>) -> String {
    match key {
        Some(key) => format!("change #{} \"{key}\"", index + 1),
        None => format!("change #{}", index + 1),
    }
}

fn parse_change(
    walker: &mut Walker,
    ids: &IdDeriver,
    file_id: &FilePatchId,
    value: &Value,
    path: &str,
    index: usize,
) -> (Option<Position>, Option<Change>) {
    let Some(obj) = walker.object(value, path) else {
        return (None, None);
    };
    walker.unknown_fields(obj, path, CHANGE_FIELDS);
    let before = walker.problems.len();
    let key = walker.opt_str(obj, path, "changeKey").map(str::to_owned);
    let description = walker.opt_str(obj, path, "description").map(str::to_owned);
    let given_id = walker.opt_str(obj, path, "changeId").map(str::to_owned);
    let operation = match walker.req_str(obj, path, "operation") {
        Some("insert") => Some(Operation::Insert),
        Some("replace") => Some(Operation::Replace),
        Some("delete") => Some(Operation::Delete),
        Some(other) => {
            walker.problem(
                field_path(path, "operation"),
                format!("expected \"insert\", \"replace\" or \"delete\", found \"{other}\""),
            );
            None
        }
        None => None,
    };
    let Some(operation) = operation else {
        return (None, None);
    };

    let forbid = |walker: &mut Walker, field: &str, why: &str| {
        if obj.contains_key(field) {
            walker.problem(field_path(path, field), why);
        }
    };
    let (range, expected) = match operation {
        Operation::Insert => {
            for field in ["startLine", "endLine", "expectedOriginalLines"] {
                forbid(
                    walker,
                    field,
                    "not used by an insert (it takes afterLine and newLines)",
                );
            }
            let after = line_number(walker, obj, path, "afterLine");
            (after.map(LineRange::after), None)
        }
        Operation::Replace | Operation::Delete => {
            forbid(
                walker,
                "afterLine",
                "not used by a replace or delete (it takes startLine and endLine)",
            );
            let start = line_number(walker, obj, path, "startLine");
            let end = line_number(walker, obj, path, "endLine");
            let expected = walker.req_str_array(obj, path, "expectedOriginalLines");
            let range = match (start, end) {
                (Some(0), _) => {
                    walker.problem(
                        field_path(path, "startLine"),
                        "lines are numbered from 1, found startLine 0",
                    );
                    None
                }
                (Some(s), Some(e)) if e < s => {
                    walker.problem(
                        field_path(path, "endLine"),
                        format!(
                            "endLine {e} is before startLine {s}; expected startLine <= endLine"
                        ),
                    );
                    None
                }
                (Some(s), Some(e)) => Some(LineRange::inclusive(s, e)),
                _ => None,
            };
            if let (Some(range), Some(expected)) = (range, &expected) {
                if expected.len() != range.count {
                    walker.problem(
                        field_path(path, "expectedOriginalLines"),
                        format!(
                            "lines {} are {} line(s), but expectedOriginalLines has {} entr{}",
                            range.describe(),
                            range.count,
                            expected.len(),
                            if expected.len() == 1 { "y" } else { "ies" }
                        ),
                    );
                }
            }
            if let Some(expected) = &expected {
                check_single_lines(walker, path, "expectedOriginalLines", expected);
            }
            (range, expected)
        }
    };
    let new_lines = match operation {
        Operation::Delete => {
            forbid(walker, "newLines", "a delete must not have newLines");
            Some(Vec::new())
        }
        Operation::Insert | Operation::Replace => {
            let lines = walker.req_str_array(obj, path, "newLines");
            if let Some(lines) = &lines {
                if lines.is_empty() && operation == Operation::Insert {
                    walker.problem(
                        field_path(path, "newLines"),
                        "an insert must have at least one new line",
                    );
                }
                check_single_lines(walker, path, "newLines", lines);
            }
            lines
        }
    };
    let position = range.map(|range| Position {
        index,
        key: key.clone(),
        range,
    });
    if walker.problems.len() > before {
        return (position, None);
    }
    let (Some(range), Some(new_lines)) = (range, new_lines) else {
        return (position, None);
    };
    let id = given_id.map(ChangeId).unwrap_or_else(|| {
        ids.change_id_with(file_id, index, |f| {
            f.text(operation.as_str())
                .number(range.start)
                .number(range.count)
                .lines(expected.as_deref())
                .lines(Some(&new_lines));
        })
    });
    let change = Change {
        id,
        key,
        description,
        operation,
        range,
        expected,
        new_lines,
        match_tier: MatchTier::Exact,
        eof_newline: None,
        new_eols: None,
        load_problems: Vec::new(),
    };
    (position, Some(change))
}

/// Where a change sits, known even when other fields of it are invalid.
struct Position {
    index: usize,
    key: Option<String>,
    range: LineRange,
}

/// Each entry must be one line: a line break inside it would write (or expect) several.
pub(crate) fn check_single_lines(walker: &mut Walker, path: &str, field: &str, lines: &[String]) {
    for (i, line) in lines.iter().enumerate() {
        if !crate::lines::is_one_line(line) {
            walker.problem(
                index_path(&field_path(path, field), i),
                "each entry must be one line without its line ending, found a line break inside",
            );
        }
    }
}

/// The highest line number a batch may name: a file patchdeck edits has at most one line per
/// byte, so anything larger cannot be in range (and `afterLine + 1` cannot overflow).
pub const MAX_LINE_NUMBER: u64 = crate::workspace::MAX_FILE_BYTES;

/// A required line number, refused when no file patchdeck edits could have that line.
fn line_number(
    walker: &mut Walker,
    obj: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Option<usize> {
    let n = walker.req_uint(obj, path, key)?;
    match usize::try_from(n) {
        Ok(n) if n as u64 <= MAX_LINE_NUMBER => Some(n),
        _ => {
            walker.problem(
                field_path(path, key),
                format!(
                    "{key} {n} is past the end of any file patchdeck edits (at most {MAX_LINE_NUMBER} lines)"
                ),
            );
            None
        }
    }
}

/// Changes must be ordered top to bottom and must not overlap (TUL-002 section 6).
fn check_order(walker: &mut Walker, changes_path: &str, positions: &[Position]) {
    for pair in positions.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let name_a = change_name(a.index, a.key.as_deref());
        let at = index_path(changes_path, b.index);
        if a.range.overlaps(b.range) {
            walker.problem(
                at,
                format!(
                    "this change ({}) overlaps {name_a} ({}); changes must not overlap",
                    b.range.describe_lines(),
                    a.range.describe_lines()
                ),
            );
        } else if position_key(b.range) < position_key(a.range) {
            walker.problem(
                at,
                format!(
                    "this change ({}) comes before {name_a} ({}) in the file; changes must be ordered top to bottom",
                    b.range.describe_lines(),
                    a.range.describe_lines()
                ),
            );
        }
    }
}

/// Position of a change in the file: an insertion sorts before a replacement at the same line.
fn position_key(range: LineRange) -> (usize, bool) {
    (range.start, range.count > 0)
}
