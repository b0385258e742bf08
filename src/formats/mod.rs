//! Input formats: detecting which one an input is, and turning it into the batch model.
//!
//! Each format lives in its own module and is the only place that knows its syntax. This
//! module reads the input, picks the format (forced with `--format NAME`, or detected by
//! [`detect`]), and returns a [`Batch`] or an [`Error::InvalidInput`] that lists every problem
//! with its location. How each format is read, with an example of each, its rules and where
//! patchdeck departs from the format's origin, is in the repository's `docs/formats.md`.

pub mod aider;
pub mod build;
pub mod bundle;
pub mod chain;
pub mod codex;
mod detect;
pub mod directive;
pub mod edits;
pub mod files;
pub mod markdown;
pub mod matcher;
pub mod structured;
pub mod tul002;
pub mod unified;

use crate::error::{Error, InputProblem, Result};
use crate::json::{self, Walker};
use crate::model::{Batch, Stance};
use crate::problem::ProblemKind;
use build::{Builder, Loaded};
pub use detect::detect;
pub use files::{parsed_reading_ahead, Files, Met, OnDisk, Source};
use std::sync::Arc;

/// The names `--format` accepts (how detection chooses among them: see [`detect`]).
pub const NAMES: &[&str] = &[
    tul002::NAME,
    directive::NAME,
    bundle::NAME,
    structured::NAME,
    edits::NAME,
    codex::NAME,
    aider::NAME,
    markdown::NAME,
    unified::NAME,
];

/// The largest patch-tool call (`edits`) patchdeck takes, in tokens estimated as characters / 4
/// (REQ-PATCH-008).
pub const MAX_TOKENS: usize = 60_000;

/// How an input is loaded: the CLI fills this from its flags.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Force a format by name instead of detecting it.
    pub format: Option<String>,
    /// Leading path components to strip from unified-diff paths (`-p N`); git's 1 when unset.
    pub strip: Option<usize>,
    /// Refuse inputs larger than this many tokens; `None` for no limit.
    pub max_tokens: Option<usize>,
    /// Whether every change gets its ID (the default). A caller whose answer names nothing
    /// (`check -q`, which answers with its exit status) leaves them empty
    /// ([`crate::model::ChangeId::unnamed`]): deriving them hashes every line of every change
    /// with SHA-256. Such a load does not hash the input either: the batch's ID and
    /// `content_sha256` are empty, and its file patches' IDs come from their place, their
    /// docPath and a value drawn at random once per process (see
    /// [`crate::model::IdDeriver::unnamed`]). Nothing about the changes or
    /// the verification differs, but such a batch must not be reported, decided, saved or
    /// committed: those name the batch and its changes by ID, and every unnamed change's is
    /// the same. TUL-002 batches are named anyway: their changes' IDs are checked against
    /// the ones the batch gives as it is read.
    pub change_ids: bool,
    /// Whether the load asks git which target files have uncommitted changes (the
    /// `uncommitted_changes` notes; [`crate::pipeline::load_with`]). A caller that shows no
    /// notes (`-q`, `diff`, `export`, `feedback`) leaves it off: `git status` looks at every
    /// file of the work tree, which a stale index makes read them all.
    pub git_status: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            strip: None,
            max_tokens: Some(MAX_TOKENS),
            change_ids: true,
            git_status: true,
        }
    }
}

impl LoadOptions {
    pub fn format(format: Option<&str>) -> LoadOptions {
        LoadOptions {
            format: format.map(str::to_owned),
            ..LoadOptions::default()
        }
    }
}

/// The raw bytes of an input and where they came from.
pub struct Input {
    /// A path, or `-` for standard input.
    pub source: String,
    /// The input as read.
    data: Data,
    /// The SHA-256 of the bytes, once computed (see [`Input::sha256`]).
    sha256: std::sync::OnceLock<String>,
}

/// An input's bytes: as text when they are UTF-8 (as every format but TUL-002 reads them),
/// shared, so that a diff's changes hold spans of it instead of a copy; else as bytes, which
/// a text format refuses with the line of the first bad byte.
enum Data {
    Text(Arc<String>),
    Bytes(Vec<u8>),
}

impl Input {
    /// Reads a path, or standard input when `source` is `-`, refusing more than
    /// [`MAX_INPUT_BYTES`] without reading (or holding) more than one byte past it.
    pub fn read(source: &str) -> Result<Input> {
        let bytes =
            crate::bounded::read_source(source, MAX_INPUT_BYTES as u64).map_err(|cause| {
                Error::ReadInput {
                    source: source.to_owned(),
                    cause,
                }
            })?;
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(too_big(source, None));
        }
        Ok(Input::from_bytes(source, bytes))
    }

    pub fn from_bytes(source: &str, bytes: impl Into<Vec<u8>>) -> Input {
        let data = match String::from_utf8(bytes.into()) {
            Ok(text) => Data::Text(Arc::new(text)),
            Err(e) => Data::Bytes(e.into_bytes()),
        };
        Input {
            source: source.to_owned(),
            data,
            sha256: std::sync::OnceLock::new(),
        }
    }

    /// The input's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Text(text) => text.as_bytes(),
            Data::Bytes(bytes) => bytes,
        }
    }

    /// The input as text, when it is UTF-8.
    pub fn text(&self) -> Option<&Arc<String>> {
        match &self.data {
            Data::Text(text) => Some(text),
            Data::Bytes(_) => None,
        }
    }

    /// The SHA-256 of the input's bytes (lowercase hex): the batch's `content_sha256` and the
    /// seed of its derived IDs. Computed once; a caller that asks while another thread is
    /// computing it waits for that thread's answer.
    pub fn sha256(&self) -> &str {
        self.sha256
            .get_or_init(|| crate::sha256::sha256_hex(self.bytes()))
    }

    /// Whether the SHA-256 has been computed (for tests of what is hashed).
    pub fn is_hashed(&self) -> bool {
        self.sha256.get().is_some()
    }
}

/// The largest input patchdeck reads.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// The error for an input over [`MAX_INPUT_BYTES`], of `size` bytes when known (a read stops
/// one byte past the limit).
fn too_big(source: &str, size: Option<usize>) -> Error {
    let size = match size {
        Some(bytes) => format!("{} MiB", bytes >> 20),
        None => format!("more than {} MiB", MAX_INPUT_BYTES >> 20),
    };
    Error::InvalidInput {
        source: source.to_owned(),
        format: "any".into(),
        problems: vec![InputProblem {
            location: "(input)".into(),
            message: format!(
                "the input is {size}; patchdeck reads at most {} MiB: split the batch",
                MAX_INPUT_BYTES >> 20
            ),
        }],
    }
}

/// The most file patches a batch may hold.
pub const MAX_FILES: usize = 100_000;
/// The most changes a batch may hold.
pub const MAX_CHANGES: usize = 1_000_000;

/// Loads a batch from an input: the forced format, or the one detected.
///
/// `workspace` is there for formats that locate their changes by text rather than by line
/// number: they read the files to turn each find into a line range. Formats with line numbers
/// (TUL-002) do not touch it; verification reads the files for everyone.
pub fn load(input: &Input, forced: Option<&str>, files: &dyn Files) -> Result<Batch> {
    load_with(input, files, &LoadOptions::format(forced))
}

/// [`load`] with every option.
pub fn load_with(input: &Input, files: &dyn Files, options: &LoadOptions) -> Result<Batch> {
    if input.bytes().len() > MAX_INPUT_BYTES {
        let mut error = too_big(&input.source, Some(input.bytes().len()));
        if let Error::InvalidInput { format, .. } = &mut error {
            *format = options.format.clone().unwrap_or_else(|| "any".into());
        }
        return Err(error);
    }
    let batch = load_format(input, files, options)?;
    check_counts(input, batch)
}

/// The first `files` file patches of a large input, cut out as an input of their own, with
/// its format and how many file patches the whole input has: when its format can be cut
/// without reading it all and it has more. A git diff is cut at a `diff --git` line (see
/// [`unified::first_sections_len`]), and a TUL-002 batch after an element of its top-level
/// `files` array (see [`tul002::first::first_files`]). The reviewer shows them while the whole
/// input loads. Loaded, they are not the batch: nothing after the cut is checked, and a later
/// section of a diff may join one of their file patches.
pub fn first_files(
    input: &Input,
    options: &LoadOptions,
    files: usize,
) -> Option<(Input, &'static str, usize)> {
    let json = input.bytes().trim_ascii_start().starts_with(b"{");
    let format = match options.format.as_deref() {
        Some(tul002::NAME) => tul002::NAME,
        Some(unified::NAME) => unified::NAME,
        Some(_) => return None,
        // A JSON batch is told by the skeleton of its first file patches, not of the whole.
        None if json => tul002::NAME,
        None => detect(input).ok()?,
    };
    match format {
        unified::NAME => {
            let text = input.text()?;
            let len = unified::first_sections_len(text, files)?;
            let first = Input::from_bytes(&input.source, text.as_bytes()[..len].to_vec());
            Some((first, unified::NAME, unified::sections(text)))
        }
        tul002::NAME => {
            let (cut, of) = tul002::first::first_files(input.bytes(), files)?;
            let mut bytes = input.bytes()[..cut].to_vec();
            bytes.extend_from_slice(b"]}");
            let first = Input::from_bytes(&input.source, bytes);
            // Read as TUL-002 by what the first file patches say, the whole batch is too:
            // its skeleton has their fields, and TUL-002 is told first.
            let told = options.format.is_some() || detect(&first).ok() == Some(tul002::NAME);
            told.then_some((first, tul002::NAME, of))
        }
        _ => None,
    }
}

/// Refuses batches with more files or changes than patchdeck reviews.
fn check_counts(input: &Input, batch: Batch) -> Result<Batch> {
    let (files, changes) = (batch.files.len(), batch.change_count());
    if files > MAX_FILES || changes > MAX_CHANGES {
        return Err(invalid(
            input,
            &batch.format,
            vec![InputProblem {
                location: "(batch)".into(),
                message: format!(
                    "{files} files and {changes} changes; patchdeck takes at most {MAX_FILES} files and {MAX_CHANGES} changes: split the batch"
                ),
            }],
        ));
    }
    Ok(batch)
}

fn load_format(input: &Input, files: &dyn Files, options: &LoadOptions) -> Result<Batch> {
    // The input's SHA-256 (17 MB for a 2,000-file diff) is needed only once the first file
    // patch gets its ID: it is computed on another core meanwhile, beside detecting the format
    // (and, for a text format, checking the text is UTF-8 and parsing it; a TUL-002 batch
    // needs it as its first file is read). An input refused early waits for it: at most the
    // hash of 64 MiB.
    // A load that names nothing seeds no ID with it (see `IdDeriver::unnamed`), so it hashes
    // the input only where a format's contract needs it: TUL-002's, whose batches are JSON
    // objects (a JSON input is hashed as before, in case it is one).
    std::thread::scope(|scope| {
        if options.change_ids || may_be_tul002(input, options) {
            scope.spawn(|| input.sha256());
        }
        load_detected(input, files, options)
    })
}

/// Whether `input` may be read as a TUL-002 batch: the format is forced to it, or the input
/// is a JSON object (its first byte that is not white space is `{`).
fn may_be_tul002(input: &Input, options: &LoadOptions) -> bool {
    match options.format.as_deref() {
        Some(format) => format == tul002::NAME,
        None => input
            .bytes()
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'{'),
    }
}

fn load_detected(input: &Input, files: &dyn Files, options: &LoadOptions) -> Result<Batch> {
    let format = match options.format.as_deref() {
        Some(name) => match NAMES.iter().find(|n| **n == name) {
            Some(name) => *name,
            None => {
                return Err(Error::Usage {
                    message: format!("unknown format \"{name}\""),
                    hint: Some(format!("formats: {}", NAMES.join(", "))),
                })
            }
        },
        None => detect::detect(input)?,
    };
    // REQ-PATCH-008 limits the patch tool's calls: a model's single edit call (a chat answer
    // applies it to each of its patch-tool blocks). Batches in the other formats are bounded
    // only by the byte and count limits, so that a large reviewed batch (a 2,000-file diff) is
    // not refused for its size. The limit is checked before the calls are read.
    if let (Some(limit), edits::NAME) = (options.max_tokens, format) {
        let tokens = estimate_tokens(input.bytes());
        if tokens > limit {
            return Err(Error::TooLarge {
                source: input.source.clone(),
                tokens,
                limit,
            });
        }
    }
    if format == tul002::NAME {
        return load_tul002(input, files);
    }
    let text = input.text().ok_or_else(|| {
        let valid = std::str::from_utf8(input.bytes()).map_or_else(|e| e.valid_up_to(), str::len);
        let line = input.bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        invalid(
            input,
            format,
            vec![InputProblem {
                location: format!("line {line}"),
                message: "not valid UTF-8 text; patchdeck reads patches as UTF-8".into(),
            }],
        )
    })?;
    let mut builder = Builder::new(input, options.change_ids);
    let mut loaded = Loaded::default();
    let context = Context { files, options };
    let problems = load_text(format, text, &context, &mut builder, &mut loaded);
    if !problems.is_empty() {
        return Err(invalid(input, format, problems));
    }
    builder.hash_pins(&mut loaded.files);
    builder.derive_change_ids(&mut loaded.files);
    flag_files_named_twice(&mut loaded.files, format);
    Ok(Batch {
        id: builder.batch_id(),
        key: None,
        label: loaded.label,
        format: format.to_owned(),
        source: input.source.clone(),
        content_sha256: builder.input_sha256().to_owned(),
        files: loaded.files,
        warnings: loaded.warnings,
        stance: Stance::Proposed,
    })
}

/// Two file patches of one batch that name one file would overwrite each other's work. A file
/// is named as TUL-002 names it (`tul002::path_identity`: Unicode NFC, lowercase), so
/// `café.txt` in NFC and NFD, or `Read.txt` and `read.txt`, are one file. Such file patches are
/// conflicts (`same_file_twice`), except for the two halves of a rename (the old name deleted,
/// the new one created from it: a case-only rename) and for two blocks of a chat answer that
/// name the file exactly alike, which are flagged with a note: the reviewer accepts one of
/// them, and the plan refuses to write both. Sections that change one file one after the other
/// are not here: each format chains them into one file patch.
fn flag_files_named_twice(files: &mut [crate::model::FilePatch], format: &str) {
    use crate::model::{FileAction, LoadProblem};
    use std::collections::HashMap;
    let mut by_identity: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, file) in files.iter().enumerate() {
        by_identity
            .entry(tul002::path_identity(&file.doc_path))
            .or_default()
            .push(i);
    }
    let halves_of_a_rename = |a: &crate::model::FilePatch, b: &crate::model::FilePatch| {
        a.action == FileAction::Create
            && b.action == FileAction::Delete
            && a.copy_from.as_deref() == Some(b.doc_path.as_str())
    };
    let mut found: Vec<(usize, LoadProblem)> = Vec::new();
    for members in by_identity.values().filter(|m| m.len() > 1) {
        for &i in members {
            let others: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&j| j != i)
                .filter(|&j| {
                    !halves_of_a_rename(&files[i], &files[j])
                        && !halves_of_a_rename(&files[j], &files[i])
                })
                .collect();
            let Some(&other) = others.first() else {
                continue;
            };
            let numbers: Vec<String> = others.iter().map(|j| (j + 1).to_string()).collect();
            let numbers = numbers.join(", ");
            let name = &files[i].doc_path;
            let exactly = others.iter().all(|&j| files[j].doc_path == *name);
            let problem = if exactly && format == markdown::NAME {
                LoadProblem::note(
                    ProblemKind::SameFileTwice,
                    format!("{name} is also changed by file patch {numbers} of this batch (another block of the answer); accept the changes of only one of them"),
                )
            } else if exactly {
                LoadProblem::conflict(
                    ProblemKind::SameFileTwice,
                    format!("{name} is also changed by file patch {numbers} of this batch, and they cannot be applied one after the other (one of them creates, deletes or moves the file); split the batch"),
                )
            } else {
                LoadProblem::conflict(
                    ProblemKind::SameFileTwice,
                    format!(
                        "\"{}\" and \"{}\" (file patch {numbers}) name the same file: paths that differ only in case or Unicode normalisation are one file, as in TUL-002; name each file once, spelled one way",
                        name.escape_debug(),
                        files[other].doc_path.escape_debug()
                    ),
                )
            };
            found.push((i, problem));
        }
    }
    for (i, problem) in found {
        files[i].load_problems.push(problem);
    }
}

/// What a format may use while loading besides its text.
pub struct Context<'a> {
    pub files: &'a dyn Files,
    pub options: &'a LoadOptions,
}

/// Tokens as REQ-PATCH-008 estimates them: characters / 4.
pub fn estimate_tokens(bytes: &[u8]) -> usize {
    String::from_utf8_lossy(bytes).chars().count() / 4
}

/// Loads text in a named format (not TUL-002) into `loaded`, returning every input problem.
/// Markdown calls this for the blocks it finds.
pub(crate) fn load_text(
    format: &str,
    text: &Arc<String>,
    context: &Context,
    builder: &mut Builder,
    loaded: &mut Loaded,
) -> Vec<InputProblem> {
    let mut problems = Vec::new();
    match format {
        unified::NAME => {
            let strip = context.options.strip;
            // The changes' lines are spans of the diff, which they share (see `TextLines`). A
            // workspace that releases files reads none ahead: the threads placing the hunks
            // read each file, and let it go.
            let files = parsed_reading_ahead(context.files, false, |met| {
                unified::parse_reading_ahead(text, 1, strip, &mut problems, Some(met))
            });
            if problems.is_empty() {
                unified::build(files, text, context.files, builder, loaded);
            }
        }
        codex::NAME => codex::load(text, context.files, builder, loaded, &mut problems),
        aider::NAME => aider::load(text, context.files, builder, loaded, &mut problems),
        markdown::NAME => markdown::load(text, context, builder, loaded, &mut problems),
        json_format => match json::parse_strict(text.as_bytes()) {
            Err(problem) => problems.push(problem),
            Ok(value) => {
                let mut walker = Walker::default();
                load_json(json_format, &value, context, builder, loaded, &mut walker);
                problems.extend(walker.take_problems());
                loaded.warnings.extend(walker.take_warnings());
            }
        },
    }
    problems
}

/// Loads a parsed JSON value in one of the JSON formats other than TUL-002.
pub(crate) fn load_json(
    format: &str,
    value: &serde_json::Value,
    context: &Context,
    builder: &mut Builder,
    loaded: &mut Loaded,
    walker: &mut Walker,
) {
    match format {
        directive::NAME => directive::load(value, context, builder, loaded, walker),
        bundle::NAME => bundle::load(value, context.files, builder, loaded, walker),
        structured::NAME => structured::load(value, context.files, builder, loaded, walker),
        edits::NAME => edits::load(value, context.files, builder, loaded, walker),
        other => walker.problem("(top level)", format!("{other} is not a JSON format")),
    }
}

/// The JSON format a value is in, if any (TUL-002 included).
pub fn detect_json(value: &serde_json::Value) -> Option<&'static str> {
    if tul002::detect(value) {
        Some(tul002::NAME)
    } else if directive::detect(value) {
        Some(directive::NAME)
    } else if structured::detect(value) {
        Some(structured::NAME)
    } else if bundle::detect(value) {
        Some(bundle::NAME)
    } else if edits::detect(value) {
        Some(edits::NAME)
    } else {
        None
    }
}

fn invalid(input: &Input, format: &str, problems: Vec<InputProblem>) -> Error {
    Error::InvalidInput {
        source: input.source.clone(),
        format: format.to_owned(),
        problems,
    }
}

/// A TUL-002 batch's changes always get their IDs ([`LoadOptions::change_ids`] aside): they are
/// derived as each file patch is read, and checked against the changeIds the batch gives.
fn load_tul002(input: &Input, files: &dyn Files) -> Result<Batch> {
    let mut walker = Walker::default();
    let parsed = parsed_reading_ahead(files, true, |met| {
        tul002::parse_reading_ahead(
            input.bytes(),
            input.text(),
            input.sha256(),
            &mut walker,
            met,
        )
    });
    match parsed {
        Some(parsed) if !walker.has_problems() => {
            let mut batch = parsed.into_batch(&input.source);
            batch.warnings = walker.take_warnings();
            Ok(batch)
        }
        _ => Err(invalid(input, tul002::NAME, walker.take_problems())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BatchId, FileAction, FilePatch, FilePatchId};
    use crate::workspace::Workspace;

    #[test]
    fn only_a_json_object_or_a_forced_tul002_may_be_tul002() {
        let may = |text: &str, format: Option<&str>| {
            may_be_tul002(&Input::from_bytes("-", text), &LoadOptions::format(format))
        };
        assert!(may(" \n\t{\"files\": []}", None));
        assert!(may("diff --git a/x b/x", Some("tul002")));
        assert!(!may("diff --git a/x b/x", None));
        assert!(!may("[{\"path\": \"x\"}]", None));
        assert!(!may("{\"files\": []}", Some("unified")));
        assert!(!may("", None));
    }

    #[test]
    fn a_tul002_batch_read_as_text_lends_its_lines_from_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
        let files = Workspace::open(dir.path()).unwrap();
        let sha = crate::sha256::sha256_hex(b"one\ntwo\n");
        let json = format!(
            r#"{{"files": [{{"docPath": "a.txt", "originalSha256": "{sha}", "changes": [
                {{"operation": "replace", "startLine": 1, "endLine": 1,
                  "expectedOriginalLines": ["one"], "newLines": ["uno", "say \"hi\""]}},
                {{"operation": "replace", "startLine": 2, "endLine": 2,
                  "expectedOriginalLines": ["two"], "newLines": ["dos", "tres"]}}]}}]}}"#
        );
        let input = Input::from_bytes("batch.json", json);
        let text = Arc::clone(input.text().expect("a UTF-8 input is held as text"));
        let batch = load_with(&input, &files, &LoadOptions::default()).unwrap();
        let changes = &batch.files[0].changes;
        assert_eq!(changes[0].expected.as_ref().unwrap(), &["one"]);
        assert_eq!(changes[0].new_lines, ["uno", "say \"hi\""]);
        assert_eq!(changes[1].expected.as_ref().unwrap(), &["two"]);
        assert_eq!(changes[1].new_lines, ["dos", "tres"]);
        // The input, this test's handle, and the three arrays without an escape, each
        // holding the input once; the array with an escaped string holds copies.
        assert_eq!(Arc::strong_count(&text), 2 + 3);
        drop(batch);
        assert_eq!(Arc::strong_count(&text), 2);
    }

    #[test]
    fn batches_over_the_file_limit_are_refused() {
        let file = FilePatch {
            id: FilePatchId("f".into()),
            key: None,
            doc_path: "a".into(),
            label: None,
            action: FileAction::Modify,
            expected_sha256: None,
            changes: Vec::new(),
            copy_from: None,
            replaces: false,
            new_file_eol: None,
            mode: None,
            load_problems: Vec::new(),
        };
        let batch = Batch {
            id: BatchId("b".into()),
            key: None,
            label: None,
            format: "tul002".into(),
            source: "x".into(),
            content_sha256: String::new(),
            files: vec![file; MAX_FILES + 1],
            warnings: Vec::new(),
            stance: Default::default(),
        };
        let err = check_counts(&Input::from_bytes("x", ""), batch).unwrap_err();
        assert!(err.to_string().contains("at most 100000 files"), "{err}");
    }
}
