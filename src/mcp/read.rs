//! `workspace_read_file`: a file's lines, numbered, with the SHA-256 of the whole file and its
//! line count, so that a model can write a batch that verifies (TUL-002's `originalSha256`,
//! line numbers and `expectedOriginalLines`).
//!
//! The docPath is resolved beneath the root by the workspace, exactly as a batch's is, and
//! what a batch would refuse (a path outside the root, through a link, into `.git`, a folder,
//! a file that is not UTF-8...) is refused with the same kind and message.

use crate::error::Error;
use crate::lines::invalid_utf8_offset;
use crate::pipeline::{self, Access};
use crate::problem::ProblemKind;
use crate::workspace::Resolved;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// The arguments of `workspace_read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    /// The file's docPath: its path under the workspace root, as a batch names it.
    pub doc_path: String,
    /// The first line to return, from 1 (default: 1).
    #[serde(default)]
    pub start_line: Option<usize>,
    /// The last line to return, inclusive (default: the file's last line).
    #[serde(default)]
    pub end_line: Option<usize>,
}

/// The result of `workspace_read_file`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileRead {
    pub doc_path: String,
    /// The file's path under the root, as the docPath resolved.
    pub path: String,
    /// The SHA-256 of the whole file: a batch's `originalSha256` for it.
    pub sha256: String,
    /// How many lines the whole file has.
    pub line_count: usize,
    /// The number of `lines[0]`.
    pub start_line: usize,
    /// The number of the last line returned (`startLine - 1` when none is).
    pub end_line: usize,
    /// The lines `startLine..=endLine`, without their line endings, as a batch's
    /// `expectedOriginalLines` quotes them.
    pub lines: Vec<String>,
}

/// Reads the file `request` names under `root`.
pub fn read(root: &Path, request: ReadRequest) -> Result<FileRead, Error> {
    let refused = |kind: ProblemKind, message: String| Error::Usage {
        message: format!("{}: {kind}: {message}", request.doc_path),
        hint: None,
    };
    let opened = pipeline::open(root, Access::Read, Duration::ZERO)?;
    let workspace = &opened.workspace;
    let rel = match workspace.resolve(&request.doc_path) {
        Ok(Resolved::File { rel, .. }) => rel,
        Ok(Resolved::Missing { rel }) => {
            return Err(refused(
                ProblemKind::MissingFile,
                format!("{} does not exist", rel.display()),
            ))
        }
        Err(problem) => return Err(refused(problem.kind, problem.message)),
    };
    let snapshot = workspace.read(&rel).map_err(|e| {
        refused(
            ProblemKind::Unreadable,
            format!("{} cannot be read: {e}", rel.display()),
        )
    })?;
    if let Some(offset) = invalid_utf8_offset(snapshot.bytes()) {
        return Err(refused(
            ProblemKind::NotUtf8,
            format!(
                "{} is not valid UTF-8 (first bad byte at offset {offset}); patchdeck will not edit its lines",
                rel.display()
            ),
        ));
    }
    let lines = snapshot.lines();
    let line_count = lines.len();
    let start_line = request.start_line.unwrap_or(1);
    let end_line = request.end_line.unwrap_or(line_count).min(line_count);
    if start_line == 0 || start_line > line_count.max(1) || end_line + 1 < start_line {
        return Err(Error::Usage {
            message: format!(
                "{}: lines {start_line}-{} are not in the file, which has {line_count} line(s)",
                request.doc_path,
                request.end_line.unwrap_or(line_count)
            ),
            hint: Some(
                "lines are numbered from 1; leave out startLine and endLine to read the whole file"
                    .into(),
            ),
        });
    }
    Ok(FileRead {
        path: rel.display().to_string(),
        sha256: snapshot.sha256().to_owned(),
        line_count,
        start_line,
        end_line,
        lines: (start_line..=end_line)
            .map(|n| lines.get(n - 1).text_str().into_owned())
            .collect(),
        doc_path: request.doc_path,
    })
}

impl FileRead {
    /// A heading, then each line with its number (`   12\t...`), as a model reads a file.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{} (sha256 {}, {} line(s); lines {}-{})\n",
            self.path, self.sha256, self.line_count, self.start_line, self.end_line
        );
        for (n, line) in (self.start_line..).zip(&self.lines) {
            let _ = writeln!(text, "{n:>6}\t{line}");
        }
        text
    }
}
