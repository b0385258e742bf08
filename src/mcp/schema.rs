//! The input schemas of the write tools: a TUL-002 batch (`workspace_write_patch`'s arguments
//! are the batch itself), Codex's envelope, and a patch in any format as text.
//!
//! The batch's schema only tells a model what to send: patchdeck reads the arguments with the
//! TUL-002 reader `patchdeck check` uses, which says every problem with its JSON path.

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

/// The arguments of `apply_patch`: Codex's envelope.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodexEnvelope {
    /// The patch: `*** Begin Patch`, then `*** Add File:`, `*** Delete File:` and
    /// `*** Update File:` sections (with `*** Move to:` and `@@` anchors), then `*** End Patch`.
    pub input: String,
}

/// The arguments of `submit_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmittedPatch {
    /// The patch as text: a unified diff or git patch, Aider SEARCH/REPLACE blocks, a Codex
    /// envelope, a TUL-002 batch as JSON, a chat answer with fenced patches...
    pub patch: String,
    /// Its format, when it should not be detected: tul002, unified, directive, bundle,
    /// structured, edits, markdown, codex or aider.
    #[serde(default)]
    pub format: Option<String>,
}

/// `schema` with a description.
fn described(schema: &serde_json::Value, description: &str) -> serde_json::Value {
    let mut schema = schema.clone();
    schema["description"] = description.into();
    schema
}

/// The schema of a TUL-002 batch, as `workspace_write_patch` takes it.
pub fn tul002_batch() -> Arc<JsonObject> {
    let lines = json!({"type": "array", "items": {"type": "string"}});
    let line = json!({"type": "integer", "minimum": 0});
    let schema = json!({
        "type": "object",
        "description": "A TUL-002 batch: one or more file patches, each against the exact file content it was planned on (read it with workspace_read_file).",
        "properties": {
            "batchKey": {"type": "string", "description": "A short key for the batch, echoed in the result."},
            "batchLabel": {"type": "string", "description": "What the batch does, for the person reviewing it."},
            "files": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "fileKey": {"type": "string", "description": "A key for this file patch, echoed in the result."},
                        "docPath": {"type": "string", "description": "The file's path under the workspace root; each at most once a batch."},
                        "originalSha256": {"type": "string", "description": "The SHA-256 (hex) of the whole file the changes were planned on, as workspace_read_file gives it; the SHA-256 of empty content creates the file."},
                        "fileLabel": {"type": "string"},
                        "changes": {
                            "type": "array",
                            "minItems": 1,
                            "description": "Whole-line changes, top to bottom, not overlapping; line numbers are the file's as read.",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "changeKey": {"type": "string", "description": "A key for this change, echoed in the result."},
                                    "operation": {"type": "string", "enum": ["insert", "replace", "delete"]},
                                    "description": {"type": "string"},
                                    "afterLine": described(&line, "insert: the line after which newLines go (0: the top)."),
                                    "startLine": described(&line, "replace, delete: the first line, from 1."),
                                    "endLine": described(&line, "replace, delete: the last line, inclusive."),
                                    "expectedOriginalLines": described(&lines, "replace, delete: the lines startLine..endLine exactly as they are now."),
                                    "newLines": described(&lines, "insert, replace: the lines written (none for delete).")
                                },
                                "required": ["operation"]
                            }
                        }
                    },
                    "required": ["docPath", "originalSha256", "changes"]
                }
            }
        },
        "required": ["files"]
    });
    match schema {
        serde_json::Value::Object(object) => Arc::new(object),
        _ => unreachable!("a schema is an object"),
    }
}
