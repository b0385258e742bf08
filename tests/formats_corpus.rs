//! Every format on real commits: each case of the corpus (built by `common::corpus`)
//! expressed as a unified diff, a bundle, a structured patch and patch-tool calls (written by
//! the builder), and as a directive, a Codex patch, Aider blocks and a chat
//! answer (written here from `diff.patch`), must turn base/ into expected/ byte for byte.

use crate::common::corpus;
use crate::common::express::{aider, codex, sections};
use crate::common::{copy_tree, user_tree};
use patchdeck::commit::{commit, CommitOptions};
use patchdeck::formats::{load_with, Input, LoadOptions};
use patchdeck::model::sha256_hex;
use patchdeck::plan::plan;
use patchdeck::review::Decisions;
use patchdeck::verify::verify;
use patchdeck::workspace::Workspace;
use std::collections::BTreeMap;
use std::path::Path;

/// Applies `input` in `format` to a copy of `base`; the tree after, or what stopped it.
fn apply(
    base: &Path,
    format: &str,
    input: &[u8],
) -> Result<BTreeMap<std::path::PathBuf, (Vec<u8>, u32)>, String> {
    let ws = tempfile::tempdir().unwrap();
    copy_tree(base, ws.path());
    let workspace = Workspace::open(ws.path()).unwrap();
    let options = LoadOptions {
        format: Some(format.into()),
        max_tokens: None,
        ..LoadOptions::default()
    };
    let batch = load_with(
        &Input::from_bytes("case", input.to_vec()),
        &workspace,
        &options,
    )
    .map_err(|e| e.to_string())?;
    let verification = verify(&batch, &workspace);
    let planned = plan(&batch, &verification, &Decisions::accept_all(&batch));
    if planned.is_blocked() {
        return Err(planned
            .blockers
            .iter()
            .map(|b| b.message.clone())
            .collect::<Vec<_>>()
            .join("\n"));
    }
    commit(&workspace, &planned, &CommitOptions::default()).map_err(|e| e.to_string())?;
    Ok(user_tree(ws.path()))
}

#[test]
fn every_format_of_every_real_commit_gives_the_expected_bytes() {
    let cases = corpus::cases();
    assert!(!cases.is_empty(), "the corpus is empty");
    let mut applied: BTreeMap<&str, usize> = BTreeMap::new();
    let mut declined: Vec<String> = Vec::new();
    for case in cases {
        let base = case.dir.join("base");
        let expected = user_tree(&case.dir.join("expected"));
        let diff = std::fs::read_to_string(case.dir.join("diff.patch")).unwrap();
        let no_eof_marker = !diff.contains("\\ No newline at end of file");
        let mut inputs: Vec<(&str, Vec<u8>)> = vec![("unified", diff.clone().into_bytes())];
        for (format, file) in [
            ("bundle", "bundle.json"),
            ("structured", "structured.json"),
            ("edits", "edits.json"),
        ] {
            if let Ok(bytes) = std::fs::read(case.dir.join(file)) {
                inputs.push((format, bytes));
            }
        }
        // A fence longer than any backtick fence inside the diff (a README's context line
        // ` ```` closes a three-backtick block, as CommonMark says).
        let longest = diff
            .lines()
            .map(|l| l.trim_start().chars().take_while(|&c| c == '`').count())
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        inputs.push((
            "markdown",
            format!("Sure, here is the patch:\n\n{fence}diff\n{diff}{fence}\n\nLet me know.\n")
                .into_bytes(),
        ));
        let secs = sections(&diff);
        if secs.len() == 1 && !secs[0].created {
            let before = std::fs::read(base.join(&secs[0].path)).unwrap();
            let directive = serde_json::json!({"action": "patch", "diff": diff, "document_version": sha256_hex(&before), "rationale": case.meta["subject"]});
            inputs.push(("directive", serde_json::to_vec(&directive).unwrap()));
        }
        if no_eof_marker {
            inputs.push(("codex", codex(&diff).into_bytes()));
            if let Some(text) = aider(&diff) {
                inputs.push(("aider", text.into_bytes()));
            }
        }
        for (format, input) in inputs {
            match apply(&base, format, &input) {
                Ok(tree) => {
                    assert!(
                        tree == expected,
                        "{}: {format} did not give expected/",
                        case.name()
                    );
                    *applied.entry(format).or_default() += 1;
                }
                // Text-locating formats must refuse a find that is not unique; that is the
                // only failure allowed, and only for them.
                Err(why)
                    if matches!(format, "codex" | "aider")
                        && (why.contains("occurs") || why.contains("must occur once")) =>
                {
                    declined.push(format!("{}: {format}: {why}", case.name()));
                }
                Err(why) => panic!("{}: {format} failed: {why}", case.name()),
            }
        }
    }
    eprintln!(
        "applied exactly: {applied:?}; declined as ambiguous: {}",
        declined.len()
    );
    for format in ["unified", "bundle", "markdown", "codex", "aider"] {
        assert!(
            applied.get(format).copied().unwrap_or(0) > 0,
            "no case applied as {format}: {applied:?} {declined:?}"
        );
    }
}
