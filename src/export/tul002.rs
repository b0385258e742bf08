//! A plan as a TUL-002 batch, rebased on the files as they were read: each file patch's
//! `originalSha256` is the file's SHA-256 now (the hash of empty content for a creation), each
//! change's line numbers are where the plan writes it and its `expectedOriginalLines` the
//! lines there now, and its `newLines` what it writes as decided (edited lines included).
//! Keys, labels, descriptions and the file patch and change IDs are kept; the batch gets an ID
//! of its own (its content is new).
//!
//! TUL-002 says line edits only, each line written with the file's ending. What it cannot say
//! is refused by name: deleting a file, creating one as a copy of another (a rename), a mode,
//! and any write whose bytes its rules would not give back exactly (endings or a final newline
//! a diff carries, an empty new file). The last is checked, not guessed: the export's changes
//! are spliced into the file as `apply` would splice them, and must give the plan's bytes.

use super::{change_name, Exported, Inexpressible, Refusal};
use crate::lines::{is_one_line, Eol, Lines};
use crate::model::{FilePatch, LineRange, Operation, EMPTY_SHA256};
use crate::plan::{FileWrite, Plan, WriteKind};
use crate::review::{Decision, Decisions};
use crate::splice::{splice_with_eol, Splice};
use crate::text_lines::TextLines;
use crate::verify::Checked;
use crate::verify::FileCheck;
use serde::Serialize;
use std::borrow::Cow;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BatchOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_label: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    batch_key: Option<&'a str>,
    files: Vec<FileOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file_key: Option<&'a str>,
    doc_path: String,
    original_sha256: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_label: Option<&'a str>,
    file_patch_id: &'a str,
    changes: Vec<ChangeOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    change_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    change_id: Option<&'a str>,
    operation: Operation,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_original_lines: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_lines: Option<Cow<'a, TextLines>>,
    /// Where it is written, for the check that the export gives the plan's bytes.
    #[serde(skip)]
    range: LineRange,
}

/// The plan's writes as one TUL-002 batch; no bytes when nothing is written.
pub fn write(checked: &Checked, decisions: &Decisions, plan: &Plan) -> Result<Exported, Refusal> {
    let mut files = Vec::new();
    let mut refused = Vec::new();
    for write in &plan.writes {
        let file = &checked.batch.files[write.file];
        let check = &checked.verification.files[write.file];
        match file_out(file, check, write, decisions) {
            Ok(Some(out)) => files.push(out),
            Ok(None) => {}
            Err(why) => refused.push(why),
        }
    }
    if !refused.is_empty() {
        return Err(Refusal::Inexpressible(refused));
    }
    let changes = files.iter().map(|f| f.changes.len()).sum();
    let written = files.len();
    let mut bytes = Vec::new();
    if !files.is_empty() {
        let batch = BatchOut {
            batch_label: checked.batch.label.as_deref(),
            batch_key: checked.batch.key.as_deref(),
            files,
        };
        bytes = serde_json::to_vec_pretty(&batch).expect("a batch always serialises");
        bytes.push(b'\n');
    }
    Ok(Exported {
        files: written,
        changes,
        bytes,
    })
}

/// One write as a file patch; `None` when it says nothing (every change writes what is
/// there already).
fn file_out<'a>(
    file: &'a FilePatch,
    check: &'a FileCheck,
    write: &'a FileWrite,
    decisions: &'a Decisions,
) -> Result<Option<FileOut<'a>>, Inexpressible> {
    let names: Vec<String> = write
        .changes
        .iter()
        .map(|&ci| {
            let change = &file.changes[ci];
            change_name(ci, change.key.as_deref(), &change.id)
        })
        .collect();
    let refuse = |why: String| Inexpressible {
        path: write.rel.display().to_string(),
        file_patch: file.id.to_string(),
        changes: names.clone(),
        why,
    };
    if write.kind == WriteKind::Delete {
        return Err(refuse(
            "it deletes the file; TUL-002 changes lines of files that stay".into(),
        ));
    }
    if let Some(source) = &file.copy_from {
        return Err(refuse(format!(
            "it creates the file as a copy of {source} (a rename or a copy); TUL-002 cannot say where content comes from"
        )));
    }
    let (base, sha): (&[u8], &str) = match (&write.before, write.kind) {
        (Some(before), WriteKind::Modify) => (before.bytes(), before.sha256()),
        _ => (&[], EMPTY_SHA256),
    };
    if let Some(executable) = write.executable {
        let mode = write
            .before
            .as_ref()
            .map_or(0o644, |b| b.stamp.mode & 0o7777);
        let wanted = if executable {
            mode | ((mode & 0o444) >> 2)
        } else {
            mode & !0o111
        };
        if wanted != mode {
            return Err(refuse(format!(
                "it makes the file {}executable (mode {}); TUL-002 has no modes",
                if executable { "" } else { "not " },
                if executable { "100755" } else { "100644" }
            )));
        }
    }
    let lines = Lines::split(base);
    let texts = |range: LineRange| -> Vec<String> {
        lines
            .range(range)
            .map(|l| l.text_str().into_owned())
            .collect()
    };
    // A file the batch creates over the one that exists (allowed): rebased, it is the whole
    // of that file replaced.
    let over_existing = check.action == crate::model::FileAction::Create && !base.is_empty();
    let mut changes = Vec::new();
    if over_existing {
        changes.push(whole_file(file, write, &texts, lines.len()));
    } else {
        for (&ci, &range) in write.changes.iter().zip(&write.ranges) {
            let change = &file.changes[ci];
            let new_lines: &TextLines = match decisions.get(&change.id) {
                Decision::Edit(lines) => lines,
                _ => &change.new_lines,
            };
            if range.count == 0 && new_lines.is_empty() {
                // Nothing inserted (a rename's or a mode's change without lines).
                continue;
            }
            let operation = match (range.count, new_lines.is_empty()) {
                (0, _) => Operation::Insert,
                (_, true) => Operation::Delete,
                _ => Operation::Replace,
            };
            changes.push(ChangeOut {
                change_key: change.key.as_deref(),
                change_id: Some(change.id.as_str()),
                operation,
                description: change.description.clone(),
                after_line: (range.count == 0).then(|| range.start - 1),
                start_line: (range.count > 0).then_some(range.start),
                end_line: (range.count > 0).then(|| range.last()),
                expected_original_lines: (range.count > 0).then(|| texts(range)),
                new_lines: (operation != Operation::Delete).then_some(Cow::Borrowed(new_lines)),
                range,
            });
        }
    }
    let said: Vec<&str> = changes
        .iter()
        .flat_map(|c| {
            c.expected_original_lines
                .iter()
                .flatten()
                .map(String::as_str)
                .chain(c.new_lines.iter().flat_map(|l| l.iter()))
        })
        .collect();
    if let Some(line) = said.iter().find(|l| !is_one_line(l)) {
        return Err(refuse(format!(
            "the line {line:?} ends with a carriage return TUL-002 would read as part of its line ending"
        )));
    }
    // What `apply` of the export would write: the changes spliced as TUL-002 says them.
    let none = TextLines::default();
    let splices: Vec<Splice> = changes
        .iter()
        .map(|c| Splice::new(c.range, c.new_lines.as_deref().unwrap_or(&none)))
        .collect();
    let written = splice_with_eol(base, &splices, Eol::Lf);
    if write.after != written {
        let line = first_difference(&written, &write.after.bytes());
        return Err(refuse(format!(
            "what it writes differs from what TUL-002's rules give from line {line} of the new file on (a line ending or a final newline the batch gives, or an empty new file); TUL-002 writes each line with the file's ending"
        )));
    }
    if changes.is_empty() {
        return Ok(None);
    }
    Ok(Some(FileOut {
        file_key: file.key.as_deref(),
        doc_path: write.rel.display().to_string(),
        original_sha256: sha,
        file_label: file.label.as_deref(),
        file_patch_id: file.id.as_str(),
        changes,
    }))
}

/// The change that writes a created file over the one there: every line of that file
/// replaced with the created file's lines (whose bytes the caller checks).
fn whole_file<'a>(
    file: &'a FilePatch,
    write: &FileWrite,
    texts: &dyn Fn(LineRange) -> Vec<String>,
    count: usize,
) -> ChangeOut<'a> {
    let range = LineRange { start: 1, count };
    let after = write.after.bytes();
    let created: TextLines = Lines::split(&after).iter().map(|l| l.text_str()).collect();
    let operation = if created.is_empty() {
        Operation::Delete
    } else {
        Operation::Replace
    };
    let only = match write.changes.as_slice() {
        [ci] => Some(&file.changes[*ci]),
        _ => None,
    };
    let descriptions: Vec<&str> = write
        .changes
        .iter()
        .filter_map(|&ci| file.changes[ci].description.as_deref())
        .collect();
    let mut description =
        "replaces the file that was there with the one the batch creates".to_owned();
    if !descriptions.is_empty() {
        description = format!("{}: {description}", descriptions.join("; "));
    }
    ChangeOut {
        change_key: only.and_then(|c| c.key.as_deref()),
        change_id: only.map(|c| c.id.as_str()),
        operation,
        description: Some(description),
        after_line: None,
        start_line: Some(1),
        end_line: Some(count),
        expected_original_lines: Some(texts(range)),
        new_lines: (operation != Operation::Delete).then_some(Cow::Owned(created)),
        range,
    }
}

/// The line (from 1) of `planned` at which `said` first differs from it.
fn first_difference(said: &[u8], planned: &[u8]) -> usize {
    let same = said.iter().zip(planned).take_while(|(a, b)| a == b).count();
    1 + planned[..same].iter().filter(|&&b| b == b'\n').count()
}
