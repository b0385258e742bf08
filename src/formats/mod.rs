//! Input formats: detecting which one an input is, and turning it into the batch model.
//!
//! Each format lives in its own module and is the only place that knows its syntax. This module
//! reads the input, picks the format (forced by name, or detected), and returns a [`Batch`] or
//! an [`Error::InvalidInput`] that lists every problem with its location.

pub mod tul002;

use crate::error::{Error, InputProblem, Result};
use crate::json::{self, Walker};
use crate::model::{sha256_hex, Batch};
use crate::workspace::Workspace;
use std::io::Read;
use std::path::Path;

/// The names `--format` accepts.
pub const NAMES: &[&str] = &[tul002::NAME];

/// The raw bytes of an input and where they came from.
pub struct Input {
    /// A path, or `-` for standard input.
    pub source: String,
    pub bytes: Vec<u8>,
}

impl Input {
    /// Reads a path, or standard input when `source` is `-`.
    pub fn read(source: &str) -> Result<Input> {
        let mut bytes = Vec::new();
        let result = if source == "-" {
            std::io::stdin().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::read(Path::new(source)).map(|b| bytes = b)
        };
        result.map_err(|cause| Error::ReadInput {
            source: source.to_owned(),
            cause,
        })?;
        Ok(Input {
            source: source.to_owned(),
            bytes,
        })
    }

    pub fn from_bytes(source: &str, bytes: impl Into<Vec<u8>>) -> Input {
        Input {
            source: source.to_owned(),
            bytes: bytes.into(),
        }
    }
}

/// The largest input patchdeck reads.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// The most file patches a batch may hold.
pub const MAX_FILES: usize = 100_000;
/// The most changes a batch may hold.
pub const MAX_CHANGES: usize = 1_000_000;

/// Loads a batch from an input: the forced format, or the one detected.
///
/// `workspace` is there for formats that locate their changes by text rather than by line
/// number: they read the files to turn each find into a line range. Formats with line numbers
/// (TUL-002) do not touch it; verification reads the files for everyone.
pub fn load(input: &Input, forced: Option<&str>, workspace: &Workspace) -> Result<Batch> {
    let _ = workspace;
    if input.bytes.len() > MAX_INPUT_BYTES {
        return Err(invalid(
            input,
            forced.unwrap_or("any"),
            vec![InputProblem {
                location: "(input)".into(),
                message: format!(
                    "the input is {} MiB; patchdeck reads at most {} MiB: split the batch",
                    input.bytes.len() >> 20,
                    MAX_INPUT_BYTES >> 20
                ),
            }],
        ));
    }
    let batch = load_format(input, forced)?;
    check_counts(input, batch)
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

fn load_format(input: &Input, forced: Option<&str>) -> Result<Batch> {
    let format = match forced {
        Some(name) => {
            if !NAMES.contains(&name) {
                return Err(Error::Usage {
                    message: format!("unknown format \"{name}\""),
                    hint: Some(format!("formats: {}", NAMES.join(", "))),
                });
            }
            name
        }
        None => detect(input)?,
    };
    match format {
        tul002::NAME => load_tul002(input),
        _ => unreachable!("every name in NAMES is handled"),
    }
}

/// Names the format of an input, or says what was tried.
pub fn detect(input: &Input) -> Result<&'static str> {
    let trimmed = input.bytes.trim_ascii_start();
    if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&input.bytes) {
            if tul002::detect(&value) {
                return Ok(tul002::NAME);
            }
        }
    }
    Err(Error::UnknownFormat {
        source: input.source.clone(),
        tried: NAMES.iter().map(|s| s.to_string()).collect(),
    })
}

fn invalid(input: &Input, format: &str, problems: Vec<InputProblem>) -> Error {
    Error::InvalidInput {
        source: input.source.clone(),
        format: format.to_owned(),
        problems,
    }
}

fn load_tul002(input: &Input) -> Result<Batch> {
    let value = json::parse_strict(&input.bytes)
        .map_err(|problem| invalid(input, tul002::NAME, vec![problem]))?;
    let mut walker = Walker::default();
    let parsed = tul002::parse(&value, &input.bytes, &mut walker);
    match parsed {
        Some(parsed) if walker.problems.is_empty() => {
            let mut batch = parsed.into_batch(&input.source, sha256_hex(&input.bytes));
            batch.warnings = walker.warnings;
            Ok(batch)
        }
        _ => Err(invalid(input, tul002::NAME, walker.problems)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BatchId, FileAction, FilePatch, FilePatchId};

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
        };
        let err = check_counts(&Input::from_bytes("x", ""), batch).unwrap_err();
        assert!(err.to_string().contains("at most 100000 files"), "{err}");
    }
}
