//! TUL-002 `workspace_write_patch` batches: parsing and validating them into the batch model.
//!
//! Every rule of the spec that can be checked without the workspace is checked here, and every
//! violation is collected with its JSON path, the file's docPath and the change's index and key.
//! Rules that need the file (line numbers within its length, SHA-256, expected lines) are
//! checked by `verify`. A TUL-002 response (with `batchId`, `filePatchId`, `changeId`) keeps its
//! IDs; a request gets IDs derived from its bytes.

mod change;
pub mod first;
mod stream;

pub use change::MAX_LINE_NUMBER;

use crate::formats::Met;
use crate::json::stream::Lean;
use crate::json::{field_path, index_path, Walker};
use crate::model::{
    Batch, BatchId, Change, ChangeId, FileAction, FilePatch, FilePatchId, IdDeriver,
};
use change::{change_from, check_order, ChangeRead, Position};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

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

/// Whether a JSON value (the skeleton detection reads) looks like a TUL-002 batch (or a
/// response wrapping one).
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

/// Reads and validates a TUL-002 batch from its bytes, as a stream (see `stream.rs`).
/// Problems and warnings go to `walker`; the batch is returned only when there are no
/// problems.
pub fn parse(input: &[u8], walker: &mut Walker) -> Option<ParsedBatch> {
    stream::read(input, None, IdDeriver::new(input), walker, None)
}

/// [`parse`], handing each file's docPath to `ahead` as soon as it is read, so that the files
/// are read (and hashed, as every TUL-002 file names its SHA-256) while the rest is parsed.
/// `input_sha256` is the SHA-256 of `input`, computed already. `text` is `input` itself held
/// as shared text, when it is UTF-8: the changes' lines are then spans of it, not copies.
pub fn parse_reading_ahead(
    input: &[u8],
    text: Option<&Arc<String>>,
    input_sha256: &str,
    walker: &mut Walker,
    ahead: Met<'_>,
) -> Option<ParsedBatch> {
    let ids = IdDeriver::seeded(input_sha256.to_owned());
    stream::read(input, text, ids, walker, Some(ahead))
}

/// Fields read from a stream, by their place in a list of known fields.
#[derive(Debug)]
struct Fields<'de, const N: usize>(pub [Option<Lean<'de>>; N]);

impl<const N: usize> Default for Fields<'_, N> {
    fn default() -> Self {
        Fields(std::array::from_fn(|_| None))
    }
}

impl<'de, const N: usize> Fields<'de, N> {
    /// The field named `name` of `known`, when the input has it (`null` included).
    fn get(&self, known: &[&str], name: &str) -> Option<&Lean<'de>> {
        let i = known
            .iter()
            .position(|k| *k == name)
            .expect("a known field");
        self.0[i].as_ref()
    }

    fn take(&mut self, known: &[&str], name: &str) -> Option<Lean<'de>> {
        let i = known
            .iter()
            .position(|k| *k == name)
            .expect("a known field");
        self.0[i].take()
    }
}

type BatchFields<'de> = Fields<'de, 4>;
type FileFields<'de> = Fields<'de, 6>;
type ChangeFields<'de> = Fields<'de, 9>;

/// Where the walker stood before a part of the input was read: how many problems it listed
/// (to name those the part added) and had found (to tell whether it added any).
#[derive(Clone, Copy)]
struct Before {
    listed: usize,
    found: usize,
}

impl Before {
    pub fn of(walker: &Walker) -> Before {
        Before {
            listed: walker.problems.len(),
            found: walker.found(),
        }
    }

    fn added_to(self, walker: &Walker) -> bool {
        walker.found() > self.found
    }
}

/// Checks the batch object read from the stream: its own fields first, then what its files
/// brought, sorted by where in the batch they are.
fn batch_from(
    walker: &mut Walker,
    ids: &IdDeriver,
    body: stream::BodyRead<'_>,
    root_path: &str,
) -> Option<ParsedBatch> {
    let stream::BodyRead {
        fields,
        unknown,
        files,
        walker: mut from_files,
    } = body;
    walker.unknown_names(unknown.iter().map(String::as_str), root_path, BATCH_FIELDS);
    let field = |name| fields.get(BATCH_FIELDS, name);
    let batch_id = walker
        .lean_opt_str(field("batchId"), root_path, "batchId")
        .map(|s| BatchId(s.to_owned()))
        .unwrap_or_else(|| ids.batch_id());
    let key = walker
        .lean_opt_str(field("batchKey"), root_path, "batchKey")
        .map(str::to_owned);
    let label = walker
        .lean_opt_str(field("batchLabel"), root_path, "batchLabel")
        .map(str::to_owned);
    let files_path = field_path(root_path, "files");
    let files = match files {
        Some(stream::FilesRead::Read(files)) => Some(files),
        Some(stream::FilesRead::Not(Lean::Null)) | None => {
            walker.problem(&files_path, "required array is missing");
            None
        }
        Some(stream::FilesRead::Not(other)) => {
            walker.problem(
                &files_path,
                format!("expected an array, found {}", other.kind()),
            );
            None
        }
    };
    if files.as_ref().is_some_and(|f| f.count() == 0) {
        walker.problem(&files_path, "must list at least one file patch");
    }
    let files = files.map(|files| files.finish(&mut from_files, &files_path));
    // Stable: problems at one place keep the order they were found in.
    let prefix = if root_path.is_empty() {
        String::new()
    } else {
        format!("{root_path}.")
    };
    let place = |location: &str| {
        location
            .strip_prefix(&prefix)
            .map_or((None, None), position_of)
    };
    from_files
        .problems
        .sort_by_cached_key(|p| place(&p.location));
    from_files
        .warnings
        .sort_by_cached_key(|w| place(&w.location));
    walker.absorb(from_files);
    let files = files?;
    if walker.has_problems() {
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

/// The file patches of a batch as they are read, with what makes two of them clash: the same
/// file, the same filePatchId, fileKey or changeId. Only file patches without problems of
/// their own are compared.
#[derive(Default)]
struct Files {
    files: Vec<FilePatch>,
    /// The index in the batch of each of `files`.
    indexes: Vec<usize>,
    /// File patches read, with problems or without.
    count: usize,
    seen_paths: HashMap<String, usize>,
    seen_file_ids: HashMap<String, usize>,
    seen_file_keys: HashMap<String, usize>,
}

impl Files {
    pub fn count(&self) -> usize {
        self.count
    }

    /// A file patch that is not one (not an object).
    pub fn skip(&mut self) {
        self.count += 1;
    }

    /// Takes one file patch, as read at `path`.
    pub fn add(&mut self, walker: &mut Walker, path: &str, file: FileRead) {
        let index = self.count;
        self.count += 1;
        let Some(file) = file else {
            return;
        };
        let problems = walker.problems.len();
        if let Some(first) = self.seen_paths.insert(path_identity(&file.doc_path), index) {
            walker.problem(
                field_path(path, "docPath"),
                format!(
                    "names the same file as files[{first}] (paths that differ only in case or Unicode normalisation are one file); each file may appear once in a batch"
                ),
            );
        }
        if let Some(first) = self.seen_file_ids.insert(file.id.0.clone(), index) {
            walker.problem(
                field_path(path, "filePatchId"),
                format!(
                    "filePatchId \"{}\" is also the ID of files[{first}]; IDs must be unique",
                    file.id
                ),
            );
        }
        if let Some(key) = &file.key {
            if let Some(first) = self.seen_file_keys.insert(key.clone(), index) {
                walker.warn(
                    field_path(path, "fileKey"),
                    format!(
                        "fileKey \"{key}\" is also the key of files[{first}]; keys should be unique in a batch, and a selector naming it is refused as ambiguous"
                    ),
                );
            }
        }
        warn_repeated_change_keys(walker, path, &file);
        let listed = walker.problems.len();
        name_in_file(
            &mut walker.problems[problems.min(listed)..],
            Some(&file.doc_path),
        );
        self.files.push(file);
        self.indexes.push(index);
    }

    /// The file patches, once every one is read, with a problem for each change whose ID an
    /// earlier change has. IDs are compared once, at the end, by a sorted list of their
    /// hashes: a million IDs kept in a set as they come would hold a million more strings.
    pub fn finish(self, walker: &mut Walker, files_path: &str) -> Vec<FilePatch> {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let hasher = BuildHasherDefault::<DefaultHasher>::default();
        let count = self.files.iter().map(|f| f.changes.len()).sum();
        let mut ids: Vec<(u64, u32, u32)> = Vec::with_capacity(count);
        for (f, file) in self.files.iter().enumerate() {
            for (c, change) in file.changes.iter().enumerate() {
                ids.push((hasher.hash_one(change.id.as_str()), f as u32, c as u32));
            }
        }
        // By hash, then in input order: the first of equal IDs is the one named.
        ids.sort_unstable();
        let change = |(_, f, c): (u64, u32, u32)| (f as usize, c as usize);
        for run in ids.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
            for (i, &later) in run.iter().enumerate().skip(1) {
                let (f, c) = change(later);
                let id = &self.files[f].changes[c].id;
                let Some(&first) = run[..i]
                    .iter()
                    .find(|&&e| self.files[change(e).0].changes[change(e).1].id == *id)
                else {
                    continue;
                };
                let (first_f, first_c) = change(first);
                let file = &self.files[f];
                let at = index_path(
                    &field_path(&index_path(files_path, self.indexes[f]), "changes"),
                    c,
                );
                let listed = walker.problems.len();
                walker.problem(
                    field_path(&at, "changeId"),
                    format!(
                        "changeId \"{id}\" is also the ID of files[{}].changes[{first_c}]; IDs must be unique",
                        self.indexes[first_f]
                    ),
                );
                let named = &mut walker.problems[listed..];
                name_in_change(named, c, file.changes[c].key.as_deref());
                name_in_file(named, Some(&file.doc_path));
            }
        }
        self.files
    }
}

/// A file patch as read: `None` when it has problems of its own.
type FileRead = Option<FilePatch>;

/// A file's changes as read: only what the file needs of them (an invalid change holds
/// nothing, so a million of them take no memory).
#[derive(Default)]
struct ChangesRead {
    /// How many there were, valid or not.
    count: usize,
    positions: Vec<Position>,
    /// The valid ones, with their index and the ID the input gave.
    valid: Vec<(usize, Change, Option<ChangeId>)>,
}

impl ChangesRead {
    fn add(&mut self, read: ChangeRead) {
        let index = self.count;
        self.count += 1;
        self.positions.extend(read.position);
        if let Some((change, given)) = read.change {
            self.valid.push((index, change, given));
        }
    }
}

/// Checks a file patch read from the stream, with its changes, each already checked.
/// `before` is where the walker stood when the file began: the problems found since are
/// named with its docPath.
fn file_from(
    walker: &mut Walker,
    ids: &IdDeriver,
    mut fields: FileFields<'_>,
    changes: Option<stream::ChangesField<'_>>,
    path: &str,
    index: usize,
    before: Before,
) -> FileRead {
    let doc_path = walker
        .lean_req_str(fields.get(FILE_FIELDS, "docPath"), path, "docPath")
        .map(str::to_owned);
    if doc_path.as_deref() == Some("") {
        walker.problem(field_path(path, "docPath"), "must not be empty");
    }
    let sha = walker
        .lean_req_str(
            fields.get(FILE_FIELDS, "originalSha256"),
            path,
            "originalSha256",
        )
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
    let mut text = |name| {
        walker
            .lean_opt_str(fields.take(FILE_FIELDS, name).as_ref(), path, name)
            .map(str::to_owned)
    };
    let key = text("fileKey");
    let label = text("fileLabel");
    let given_id = text("filePatchId");
    let doc_name = doc_path.clone().unwrap_or_default();
    let id = given_id
        .map(FilePatchId)
        .unwrap_or_else(|| ids.file_id(index, &doc_name));

    let changes_path = field_path(path, "changes");
    let read = match changes {
        Some(stream::ChangesField::Read(read)) => {
            if read.count == 0 {
                walker.problem(&changes_path, "must have at least one change");
            }
            read
        }
        Some(stream::ChangesField::Not(Lean::Null)) | None => {
            walker.problem(&changes_path, "required array is missing");
            ChangesRead::default()
        }
        Some(stream::ChangesField::Not(other)) => {
            walker.problem(
                &changes_path,
                format!("expected an array, found {}", other.kind()),
            );
            ChangesRead::default()
        }
    };
    check_order(walker, &changes_path, &read.positions);
    let listed = walker.problems.len();
    name_in_file(
        &mut walker.problems[before.listed.min(listed)..],
        doc_path.as_deref(),
    );
    if before.added_to(walker) {
        return None;
    }
    // Collected into a vector of their own size: collected in place, they would keep the
    // larger allocation of what was read (32 bytes more a change).
    let mut changes = Vec::with_capacity(read.valid.len());
    changes.extend(read.valid.into_iter().map(|(i, mut change, given)| {
        change.id = given.unwrap_or_else(|| {
            ids.change_id_with(&id, i, |f| {
                f.text(change.operation.as_str())
                    .number(change.range.start)
                    .number(change.range.count)
                    .lines(change.expected.as_ref())
                    .lines(Some(&change.new_lines));
            })
        });
        change
    }));
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
        replaces: false,
        new_file_eol: None,
        mode: None,
        load_problems: Vec::new(),
    })
}

/// Names the change (its number and key) in front of each of `problems`, found in the
/// change at `index`: `change #2 "k": ...`.
fn name_in_change(problems: &mut [crate::error::InputProblem], index: usize, key: Option<&str>) {
    for problem in problems {
        problem.message = format!("{}: {}", change_name(index, key), problem.message);
    }
}

/// Names the file (its docPath) in front of each of `problems`, found in its file patch:
/// `in "src/app.py": ...`, or `in "src/app.py", change #2 "k": ...` for one a change's name
/// is already in front of (one whose JSON path is inside a change).
fn name_in_file(problems: &mut [crate::error::InputProblem], doc_path: Option<&str>) {
    let Some(doc_path) = doc_path.filter(|d| !d.is_empty()) else {
        return;
    };
    for problem in problems {
        let inside = problem
            .location
            .find("files[")
            .map(|at| &problem.location[at..]);
        let (file, change) = inside.map_or((None, None), position_of);
        if file.is_none() {
            continue;
        }
        let joint = if change.is_some() { ", " } else { ": " };
        problem.message = format!("in \"{doc_path}\"{joint}{}", problem.message);
    }
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
    crate::fs::path::fold(doc_path)
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
            stance: Default::default(),
        }
    }
}

/// How a change is named in messages: `change #3 "key"` (1-based, as a person counts).
fn change_name(index: usize, key: Option<&str>) -> String {
    match key {
        Some(key) => format!("change #{} \"{key}\"", index + 1),
        None => format!("change #{}", index + 1),
    }
}
