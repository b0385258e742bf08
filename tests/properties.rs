//! Properties of the whole path, from a batch to the bytes on disk, over random workspaces:
//!
//! - accepting every change of a clean batch gives the bytes the format's own semantics give
//!   (the version the batch was made from), in every format that can express the change:
//!   unified, TUL-002, bundle, patch-tool edits, Codex and Aider;
//! - rejecting every change leaves the tree identical, through the real commit;
//! - what `patchdeck diff` prints, applied by the real `git apply`, gives the same tree as
//!   `patchdeck apply`.
//!
//! Lines are made unique within a file (a word and the line's number) so that the formats
//! that find text, which must refuse a text found twice, always have one place to find it.

use crate::common::express;
use crate::common::{copy_tree, tree, user_tree};
use patchdeck::commit::{commit, CommitOptions};
use patchdeck::diff_writer::{write_hunks, write_plan};
use patchdeck::formats::{load_with, Input, LoadOptions};
use patchdeck::line_diff::diff_ops;
use patchdeck::model::sha256_hex;
use patchdeck::plan::plan;
use patchdeck::review::Decisions;
use patchdeck::verify::verify;
use patchdeck::workspace::Workspace;
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

type Tree = BTreeMap<PathBuf, (Vec<u8>, u32)>;

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "let x = 1;",
    "    return y;",
    "",
];

/// One file before and after.
#[derive(Clone, Debug)]
struct Edit {
    path: String,
    before: Vec<String>,
    after: Vec<String>,
}

fn lines_text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A file of unique lines, and a version of it with lines removed, replaced and inserted.
fn edit(path: String) -> impl Strategy<Value = Edit> {
    (
        prop::collection::vec(0..WORDS.len(), 1..40),
        prop::collection::vec((0u8..6, 0..WORDS.len()), 1..40),
    )
        .prop_map(move |(before, ops)| {
            let before: Vec<String> = before
                .iter()
                .enumerate()
                .map(|(n, w)| format!("{} // {n}", WORDS[*w]))
                .collect();
            let mut after = Vec::new();
            let mut fresh = 0;
            let mut new_line = |w: usize| {
                fresh += 1;
                format!("{} // new {fresh}", WORDS[w])
            };
            for (i, line) in before.iter().enumerate() {
                let (op, w) = ops[i % ops.len()];
                match op {
                    0 => {}                       // removed
                    1 => after.push(new_line(w)), // replaced
                    2 => {
                        after.push(line.clone()); // kept, then a line inserted
                        after.push(new_line(w));
                    }
                    _ => after.push(line.clone()), // kept
                }
            }
            Edit {
                path: path.clone(),
                before,
                after,
            }
        })
        .prop_filter("a change", |e| e.before != e.after)
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    (
        edit("src/one.rs".into()),
        prop::option::of(edit("docs/Two Words.md".into())),
    )
        .prop_map(|(one, two)| std::iter::once(one).chain(two).collect())
}

fn git_diff(edits: &[Edit]) -> String {
    let mut out = Vec::new();
    for e in edits {
        out.extend_from_slice(
            format!("diff --git a/{0} b/{0}\n--- a/{0}\n+++ b/{0}\n", e.path).as_bytes(),
        );
        let (a, b) = (lines_text(&e.before), lines_text(&e.after));
        write_hunks(a.as_bytes(), b.as_bytes(), &[], 3, &mut out).unwrap();
    }
    String::from_utf8(out).unwrap()
}

fn tul002(edits: &[Edit]) -> String {
    let files: Vec<_> = edits
        .iter()
        .map(|e| {
            let mut changes = Vec::new();
            for op in diff_ops(&e.before, &e.after) {
                let (old, new) = (op.old_range(), op.new_range());
                if op.tag() == similar::DiffTag::Equal {
                    continue;
                }
                let new_lines = &e.after[new];
                changes.push(if old.is_empty() {
                    json!({"operation": "insert", "afterLine": old.start, "newLines": new_lines})
                } else if new_lines.is_empty() {
                    json!({"operation": "delete", "startLine": old.start + 1, "endLine": old.end,
                           "expectedOriginalLines": &e.before[old.clone()]})
                } else {
                    json!({"operation": "replace", "startLine": old.start + 1, "endLine": old.end,
                           "expectedOriginalLines": &e.before[old.clone()], "newLines": new_lines})
                });
            }
            json!({"docPath": e.path.to_lowercase(),
                   "originalSha256": sha256_hex(lines_text(&e.before).as_bytes()),
                   "changes": changes})
        })
        .collect();
    json!({"files": files}).to_string()
}

fn bundle(edits: &[Edit]) -> String {
    let files: Vec<_> = edits
        .iter()
        .map(|e| json!({"path": e.path, "content": lines_text(&e.after), "operation": "replace"}))
        .collect();
    json!({"root": ".", "files": files}).to_string()
}

/// Patch-tool calls: each hunk's old side (context included) replaced by its new side.
fn patch_tool(diff: &str) -> String {
    let calls: Vec<_> = express::sections(diff)
        .into_iter()
        .map(|s| {
            let patches: Vec<_> = s
                .hunks
                .iter()
                .map(|hunk| {
                    let side = |keep: char| -> String {
                        hunk.iter()
                            .filter(|l| l.starts_with(' ') || l.starts_with(keep))
                            .map(|l| format!("{}\n", &l[1..]))
                            .collect()
                    };
                    json!({"operation": "replace", "oldText": side('-'), "newText": side('+')})
                })
                .collect();
            json!({"path": s.path, "patches": patches})
        })
        .collect();
    serde_json::Value::Array(calls).to_string()
}

fn workspace(edits: &[Edit]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in edits {
        let path = dir.path().join(&e.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, lines_text(&e.before)).unwrap();
    }
    dir
}

fn expected(edits: &[Edit]) -> Tree {
    let dir = workspace(edits);
    for e in edits {
        std::fs::write(dir.path().join(&e.path), lines_text(&e.after)).unwrap();
    }
    user_tree(dir.path())
}

/// Loads `input` against `root` and commits what `decide` selects; the tree after.
fn apply(root: &Path, format: &str, input: &str, accept: bool) -> Result<Tree, String> {
    let workspace = Workspace::open(root).unwrap();
    let options = LoadOptions {
        format: Some(format.into()),
        ..LoadOptions::default()
    };
    let batch = load_with(
        &Input::from_bytes("p", input.as_bytes().to_vec()),
        &workspace,
        &options,
    )
    .map_err(|e| format!("{format}: {e}"))?;
    let verification = verify(&batch, &workspace);
    let decisions = if accept {
        Decisions::accept_all(&batch)
    } else {
        Decisions::reject_all(&batch)
    };
    let planned = plan(&batch, &verification, &decisions);
    if planned.is_blocked() {
        return Err(format!("{format}: {:?}", planned.blockers));
    }
    commit(&workspace, &planned, &CommitOptions::default()).map_err(|e| e.to_string())?;
    Ok(user_tree(root))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_format_gives_the_version_it_was_made_from(edits in edits()) {
        let diff = git_diff(&edits);
        let want = expected(&edits);
        let mut inputs = vec![
            ("unified", diff.clone()),
            ("tul002", tul002(&edits)),
            ("bundle", bundle(&edits)),
            ("edits", patch_tool(&diff)),
            ("codex", express::codex(&diff)),
        ];
        inputs.extend(express::aider(&diff).map(|a| ("aider", a)));
        for (format, input) in inputs {
            let ws = workspace(&edits);
            let got = apply(ws.path(), format, &input, true);
            prop_assert_eq!(got.as_ref(), Ok(&want), "{}:\n{}", format, input);
        }
    }

    #[test]
    fn rejecting_every_change_leaves_the_tree_identical(edits in edits()) {
        let diff = git_diff(&edits);
        for (format, input) in [("unified", diff.clone()), ("tul002", tul002(&edits)), ("bundle", bundle(&edits))] {
            let ws = workspace(&edits);
            let before = tree(ws.path());
            apply(ws.path(), format, &input, false).unwrap();
            prop_assert_eq!(tree(ws.path()), before, "{}", format);
        }
    }

    #[test]
    fn git_apply_of_the_diff_equals_apply(edits in edits()) {
        let input = tul002(&edits);
        let ws = workspace(&edits);
        let workspace = Workspace::open(ws.path()).unwrap();
        let batch = load_with(&Input::from_bytes("p", input.clone().into_bytes()), &workspace, &LoadOptions::default()).unwrap();
        let verification = verify(&batch, &workspace);
        let planned = plan(&batch, &verification, &Decisions::accept_all(&batch));
        let mut printed = Vec::new();
        write_plan(&planned, &mut printed).unwrap();
        let by_git = tempfile::tempdir().unwrap();
        copy_tree(ws.path(), by_git.path());
        let patch = by_git.path().join("../plan.diff");
        std::fs::write(&patch, &printed).unwrap();
        let out = Command::new("git")
            .args(["apply", "--unsafe-paths", patch.to_str().unwrap()])
            .current_dir(by_git.path())
            .output()
            .unwrap();
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let applied = apply(ws.path(), "tul002", &input, true).unwrap();
        prop_assert_eq!(user_tree(by_git.path()), applied);
    }
}
