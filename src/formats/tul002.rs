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
    batch.contains_key("batchLabel")
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

    let mut files = Vec::with_capacity(files_value.len());
    let mut seen_paths: HashMap<String, usize> = HashMap::new();
    let mut seen_change_ids: HashMap<String, String> = HashMap::new();
    for (index, file_value) in files_value.iter().enumerate() {
        let path = index_path(&files_path, index);
        let Some(file) = parse_file(walker, &ids, file_value, &path, index) else {
            continue;
        };
        if let Some(first) = seen_paths.insert(path_identity(&file.doc_path), index) {
            walker.problem(
                field_path(&path, "docPath"),
                format!(
                    "docPath \"{}\" names the same file as files[{first}] (paths that differ only in case or Unicode normalisation are one file); each file may appear once in a batch",
                    file.doc_path
                ),
            );
        }
        for change in &file.changes {
            let here = format!("{path} (docPath \"{}\")", file.doc_path);
            if let Some(other) = seen_change_ids.insert(change.id.0.clone(), here.clone()) {
                walker.problem(
                    here,
                    format!(
                        "changeId \"{}\" is also used in {other}; IDs must be unique",
                        change.id
                    ),
                );
            }
        }
        files.push(file);
    }
    if !walker.problems.is_empty() {
        return None;
    }
    Some(ParsedBatch {
        id: batch_id,
        key,
        label,
        files,
    })
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
}

impl ParsedBatch {
    pub fn into_batch(self, source: &str, content_sha256: String) -> Batch {
        Batch {
            id: self.id,
            key: self.key,
            label: self.label,
            format: NAME.to_owned(),
            source: source.to_owned(),
            content_sha256,
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
            walker.problem(
                &changes_path,
                format!("file patch for \"{doc_name}\" must have at least one change"),
            );
        }
        let mut positions = Vec::new();
        for (i, change_value) in values.iter().enumerate() {
            let change_path = index_path(&changes_path, i);
            let (position, change) =
                parse_change(walker, ids, &id, change_value, &change_path, &doc_name, i);
            if let Some(position) = position {
                positions.push(position);
            }
            if let Some(change) = change {
                changes.push(change);
            }
        }
        check_order(walker, &changes_path, &doc_name, &positions);
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
    doc_path: &str,
    index: usize,
) -> (Option<Position>, Option<Change>) {
    let Some(obj) = walker.object(value, path) else {
        return (None, None);
    };
    walker.unknown_fields(obj, path, CHANGE_FIELDS);
    let before = walker.problems.len();
    let key = walker.opt_str(obj, path, "changeKey").map(str::to_owned);
    let name = format!("in \"{doc_path}\", {}", change_name(index, key.as_deref()));
    let description = walker.opt_str(obj, path, "description").map(str::to_owned);
    let given_id = walker.opt_str(obj, path, "changeId").map(str::to_owned);
    let operation = match walker.req_str(obj, path, "operation") {
        Some("insert") => Some(Operation::Insert),
        Some("replace") => Some(Operation::Replace),
        Some("delete") => Some(Operation::Delete),
        Some(other) => {
            walker.problem(
                field_path(path, "operation"),
                format!(
                    "{name}: expected \"insert\", \"replace\" or \"delete\", found \"{other}\""
                ),
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
            walker.problem(field_path(path, field), format!("{name}: {why}"));
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
            let after = walker.req_uint(obj, path, "afterLine");
            (after.map(|a| LineRange::after(a as usize)), None)
        }
        Operation::Replace | Operation::Delete => {
            forbid(
                walker,
                "afterLine",
                "not used by a replace or delete (it takes startLine and endLine)",
            );
            let start = walker.req_uint(obj, path, "startLine");
            let end = walker.req_uint(obj, path, "endLine");
            let expected = walker.req_str_array(obj, path, "expectedOriginalLines");
            let range = match (start, end) {
                (Some(0), _) => {
                    walker.problem(
                        field_path(path, "startLine"),
                        format!("{name}: lines are numbered from 1, found startLine 0"),
                    );
                    None
                }
                (Some(s), Some(e)) if e < s => {
                    walker.problem(
                        field_path(path, "endLine"),
                        format!("{name}: endLine {e} is before startLine {s}; expected startLine <= endLine"),
                    );
                    None
                }
                (Some(s), Some(e)) => Some(LineRange::inclusive(s as usize, e as usize)),
                _ => None,
            };
            if let (Some(range), Some(expected)) = (range, &expected) {
                if expected.len() != range.count {
                    walker.problem(
                        field_path(path, "expectedOriginalLines"),
                        format!(
                            "{name}: lines {} are {} line(s), but expectedOriginalLines has {} entr{}",
                            range.describe(),
                            range.count,
                            expected.len(),
                            if expected.len() == 1 { "y" } else { "ies" }
                        ),
                    );
                }
            }
            if let Some(expected) = &expected {
                check_single_lines(walker, path, "expectedOriginalLines", &name, expected);
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
                        format!("{name}: an insert must have at least one new line"),
                    );
                }
                check_single_lines(walker, path, "newLines", &name, lines);
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
        ids.change_id_fmt(
            file_id,
            index,
            format_args!(
                "{}\0{}\0{}\0{:?}\0{:?}",
                operation.as_str(),
                range.start,
                range.count,
                expected,
                new_lines
            ),
        )
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
fn check_single_lines(walker: &mut Walker, path: &str, field: &str, name: &str, lines: &[String]) {
    for (i, line) in lines.iter().enumerate() {
        if line.contains('\n') || line.ends_with('\r') {
            walker.problem(
                index_path(&field_path(path, field), i),
                format!("{name}: each entry must be one line without its line ending, found a line break inside"),
            );
        }
    }
}

/// Changes must be ordered top to bottom and must not overlap (TUL-002 section 6).
fn check_order(walker: &mut Walker, changes_path: &str, doc_path: &str, positions: &[Position]) {
    for pair in positions.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let name_b = change_name(b.index, b.key.as_deref());
        let name_a = change_name(a.index, a.key.as_deref());
        let at = index_path(changes_path, b.index);
        if a.range.overlaps(b.range) {
            walker.problem(
                at,
                format!(
                    "in \"{doc_path}\", {name_b} (lines {}) overlaps {name_a} (lines {}); changes must not overlap",
                    b.range.describe(),
                    a.range.describe()
                ),
            );
        } else if position_key(b.range) < position_key(a.range) {
            walker.problem(
                at,
                format!(
                    "in \"{doc_path}\", {name_b} (lines {}) comes before {name_a} (lines {}) in the file; changes must be ordered top to bottom",
                    b.range.describe(),
                    a.range.describe()
                ),
            );
        }
    }
}

/// Position of a change in the file: an insertion sorts before a replacement at the same line.
fn position_key(range: LineRange) -> (usize, bool) {
    (range.start, range.count > 0)
}
