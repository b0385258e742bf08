//! The editing-v2 patch directive: `{"action": "patch", "diff": "...", "document_version": "..."}`.
//!
//! The `diff` is a unified diff (parsed by [`super::unified`]); the document version is the
//! SHA-256 of the document the diff was computed against, checked like TUL-002's
//! `originalSha256` (a mismatch is a `sha_mismatch` conflict). The version may also be given as
//! `snapshot_version`, `version` or `document_digest`, as the spec's normalisation allows, and
//! may carry a `sha256:` prefix. `rationale` describes the change. A directive targets one
//! document, so its diff must name one file.

use super::build::{Builder, Loaded};
use super::{unified, Context};
use crate::json::{field_path, Walker};
use serde_json::Value;

pub const NAME: &str = "directive";

const FIELDS: &[&str] = &[
    "action",
    "diff",
    "document_version",
    "snapshot_version",
    "version",
    "document_digest",
    "rationale",
    "selection_fingerprint",
];
const VERSION_FIELDS: &[&str] = &[
    "document_version",
    "snapshot_version",
    "version",
    "document_digest",
];

pub fn detect(value: &Value) -> bool {
    value.get("action").is_some() && value.get("diff").is_some()
}

pub fn load(
    value: &Value,
    context: &Context,
    builder: &mut Builder,
    loaded: &mut Loaded,
    walker: &mut Walker,
) {
    let Some(obj) = walker.object(value, "") else {
        return;
    };
    walker.unknown_fields(obj, "", FIELDS);
    match walker.req_str(obj, "", "action") {
        Some("patch") => {}
        Some(other) => walker.problem(
            "action",
            format!("expected \"patch\", found \"{other}\" (patchdeck reads patch directives; insert/replace/annotate carry no diff)"),
        ),
        None => {}
    }
    for forbidden in ["content", "target_range"] {
        if obj.contains_key(forbidden) {
            walker.problem(
                forbidden,
                "a patch directive must not have content/target_range (the diff says everything)",
            );
        }
    }
    let diff = walker.req_str(obj, "", "diff");
    if diff.is_some_and(|d| d.trim().is_empty()) {
        walker.problem("diff", "must not be empty: expected a unified diff");
    }
    let version = VERSION_FIELDS
        .iter()
        .find_map(|f| walker.opt_str(obj, "", f).map(|v| (*f, v)));
    let sha = match version {
        None => {
            walker.problem(
                "document_version",
                "required on a patch directive: the SHA-256 of the document the diff was computed against",
            );
            None
        }
        Some((field, v)) => {
            let hex = v.strip_prefix("sha256:").unwrap_or(v).to_ascii_lowercase();
            if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                Some(hex)
            } else {
                walker.problem(
                    field_path("", field),
                    format!("expected a SHA-256 digest (64 hexadecimal digits, optionally prefixed \"sha256:\"), found \"{v}\""),
                );
                None
            }
        }
    };
    let rationale = walker.opt_str(obj, "", "rationale").map(str::to_owned);
    let Some(diff) = diff else { return };
    let mut problems = Vec::new();
    let diff = std::sync::Arc::new(diff.to_owned());
    let files = unified::parse(&diff, 1, context.options.strip, &mut problems);
    for problem in problems {
        walker.problem(format!("diff ({})", problem.location), problem.message);
    }
    if files.len() > 1 {
        walker.problem(
            "diff",
            format!(
                "a directive patches one document, but the diff names {} files",
                files.len()
            ),
        );
    }
    if !walker.problems.is_empty() {
        return;
    }
    let before = loaded.files.len();
    unified::build(files, &diff, context.files, builder, loaded);
    for file in &mut loaded.files[before..] {
        file.expected_sha256 = sha.clone();
        file.label = rationale.clone().or(file.label.take());
    }
    loaded.label = rationale;
}
