//! The Aptix file bundle: `{"root": ".", "files": [{"path", "content", "operation"}]}`.
//!
//! A whole file is never written blindly over the person's copy: `replace` (or no operation,
//! when the file exists) becomes the diff between the file on disk and `content`, split into
//! hunks, each a change the reviewer accepts or rejects on its own; the file's own line endings
//! are kept. `create` (or no operation, when the file does not exist) is one change writing the
//! content; over an existing file it is a `file_exists` conflict. `delete` is one change removing
//! every line; of a missing file it is a `missing_file` conflict. `patch` takes `replacements`
//! as the structured patch does, and `gitPatch` a unified diff in `content`.

use super::build::{
    content_eol, create_all, delete_all, diff_changes, Builder, ChangeSpec, Loaded,
};
use super::structured::{patch_file, read_replacements, rooted};
use super::unified;
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::json::{field_path, index_path, Walker};
use crate::model::{FileAction, LineRange};
use crate::text_lines::TextLines;
use serde_json::Value;

pub const NAME: &str = "bundle";

const TOP_FIELDS: &[&str] = &["root", "files"];
const FILE_FIELDS: &[&str] = &["path", "content", "operation", "replacements"];

pub fn detect(value: &Value) -> bool {
    value
        .get("files")
        .and_then(Value::as_array)
        .is_some_and(|files| !files.is_empty() && files.iter().all(|f| f.get("path").is_some()))
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
    let Some(files) = walker.req_array(obj, "", "files") else {
        return;
    };
    if files.is_empty() {
        walker.problem("files", "must list at least one file");
    }
    for (i, entry) in files.iter().enumerate() {
        let path = index_path("files", i);
        let Some(entry) = walker.object(entry, &path) else {
            continue;
        };
        walker.unknown_fields(entry, &path, FILE_FIELDS);
        let Some(doc_path) = walker.req_str(entry, &path, "path") else {
            continue;
        };
        let doc_path = rooted(root, doc_path);
        let content = walker.opt_str(entry, &path, "content");
        let operation = walker.opt_str(entry, &path, "operation");
        let need_content = |walker: &mut Walker, op: &str| {
            if content.is_none() {
                walker.problem(
                    field_path(&path, "content"),
                    format!("required for {op}: the entire file content"),
                );
            }
        };
        match operation {
            None | Some("create") | Some("replace") => {
                need_content(walker, operation.unwrap_or("a file entry without operation"));
                let Some(content) = content else { continue };
                loaded.files.push(whole_file(&doc_path, content, operation, tree, builder));
            }
            Some("delete") => {
                let mut file = builder.file(&doc_path, FileAction::Delete);
                let spec = match tree.file(&doc_path) {
                    OnDisk::File { bytes, snapshot } => {
                        builder.pin(&file, &snapshot);
                        delete_all(&bytes, format!("delete {doc_path}"))
                    }
                    _ => ChangeSpec {
                        description: Some(format!("delete {doc_path}")),
                        range: Some(LineRange { start: 1, count: 0 }),
                        expected: Some(TextLines::default()),
                        ..ChangeSpec::default()
                    },
                };
                builder.push(&mut file, spec);
                loaded.files.push(file);
            }
            Some("patch") => {
                if let Some(replacements) = read_replacements(walker, entry, &path) {
                    loaded.files.push(patch_file(&doc_path, &replacements, tree, builder));
                }
            }
            Some("gitPatch") => {
                need_content(walker, "gitPatch (the unified diff)");
                let Some(diff) = content else { continue };
                let mut problems = Vec::new();
                let diff = std::sync::Arc::new(diff.to_owned());
                let files = unified::parse(&diff, 1, None, &mut problems);
                for problem in problems {
                    walker.problem(format!("{} ({})", field_path(&path, "content"), problem.location), problem.message);
                }
                if walker.problems.is_empty() {
                    unified::build(files, &diff, tree, builder, loaded);
                }
            }
            Some(other) => walker.problem(
                field_path(&path, "operation"),
                format!("expected \"create\", \"replace\", \"delete\", \"patch\" or \"gitPatch\", found \"{other}\""),
            ),
        }
    }
}

/// A full-file entry: the hunks against the file on disk, or a creation.
fn whole_file(
    doc_path: &str,
    content: &str,
    operation: Option<&str>,
    tree: &dyn Files,
    builder: &mut Builder,
) -> crate::model::FilePatch {
    let disk = tree.file(doc_path);
    match (disk, operation) {
        (OnDisk::File { bytes, snapshot }, None | Some("replace")) => {
            let mut file = builder.file(doc_path, FileAction::Modify);
            builder.pin(&file, &snapshot);
            for spec in diff_changes(&bytes, content.as_bytes()) {
                builder.push(&mut file, spec);
            }
            file
        }
        (OnDisk::Missing, Some("replace")) => {
            // Verify reports that the file to replace is missing.
            let mut file = builder.file(doc_path, FileAction::Modify);
            builder.push(
                &mut file,
                create_all(content.as_bytes(), format!("replace {doc_path}")),
            );
            file
        }
        _ => {
            // A creation (verify reports a `file_exists` conflict when the file is there).
            let mut file = builder.file(doc_path, FileAction::Create);
            file.new_file_eol = content_eol(content.as_bytes());
            builder.push(
                &mut file,
                create_all(content.as_bytes(), format!("create {doc_path}")),
            );
            file
        }
    }
}
