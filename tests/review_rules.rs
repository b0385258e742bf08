//! The reviewer's promises and the commit answer from one rule set: wherever the review says a
//! file's SHA-256 mismatch may be overridden, the plan writes the file once the override is
//! made; wherever it refuses, the plan blocks exactly the changes the refusal names. Before the
//! rules lived in the core, the reviewer offered `o` on a file with an insertion whose place
//! nothing confirms, and the commit then refused it.

use crate::common::{sample_workspace, samples, sha, workspace_with};
use patchdeck::formats::Input;
use patchdeck::model::ChangeId;
use patchdeck::pipeline;
use patchdeck::review::{Decisions, Refusal, Review};
use patchdeck::verify::Checked;
use serde_json::json;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

fn checked(root: &Path, name: &str, bytes: Vec<u8>) -> Checked {
    let opened = pipeline::open(root, pipeline::Access::Read, Duration::from_secs(5)).unwrap();
    pipeline::load(&opened.workspace, &Input::from_bytes(name, bytes), None).unwrap()
}

/// Holds the review's override answer for every file with a SHA-256 mismatch to what the
/// plan does when every change of the file is accepted (and, with `relocate`, moved where
/// its expected lines were found) and the override made. Returns how many files it asked.
fn holds_to_the_plan(checked: Checked, relocate: bool) -> usize {
    let files: Vec<usize> = (0..checked.batch.files.len())
        .filter(|&f| checked.verification.files[f].sha_mismatch())
        .collect();
    let mut asked = 0;
    for &f in &files {
        let ids: Vec<&str> = checked.batch.files[f]
            .changes
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        let file_id = checked.batch.files[f].id.as_str();
        let accepted: serde_json::Map<String, serde_json::Value> = ids
            .iter()
            .map(|id| ((*id).to_owned(), json!("accept")))
            .collect();
        let relocated: Vec<&str> = if relocate { ids.clone() } else { Vec::new() };
        // The review decides on its own decisions: the moves, nothing accepted yet.
        let moves: Decisions = serde_json::from_value(json!({"relocate": relocated})).unwrap();
        let review = Review::new(
            Checked {
                batch: checked.batch.clone(),
                verification: checked.verification.clone(),
            },
            moves,
        );
        let promise = review.override_refusal(f);
        // What the commit will be asked: every change accepted, the moves, the override.
        let all: Decisions = serde_json::from_value(json!({
            "decisions": accepted,
            "relocate": relocated,
            "shaOverrides": [file_id],
        }))
        .unwrap();
        let plan = checked.plan(&all);
        let blocked: BTreeSet<ChangeId> = plan
            .blockers
            .iter()
            .filter(|b| b.file == f)
            .filter_map(|b| b.change.clone())
            .collect();
        let file_blocked = plan
            .blockers
            .iter()
            .any(|b| b.file == f && b.change.is_none());
        match promise {
            None => assert!(
                blocked.is_empty() && !file_blocked,
                "the review lets {file_id} be overridden; the plan blocks {blocked:?}"
            ),
            Some(Refusal::Unresolved { changes }) => {
                let named: BTreeSet<ChangeId> = changes
                    .iter()
                    .map(|c| review.change(c.at).change.id.clone())
                    .collect();
                assert_eq!(
                    named, blocked,
                    "{file_id}: the refusal and the plan disagree"
                );
            }
            Some(other) => panic!("{file_id} has a mismatch; refused as {other:?}"),
        }
        asked += 1;
    }
    asked
}

#[test]
fn the_override_the_review_offers_is_the_one_the_commit_writes() {
    let mut asked = 0;
    for sample in ["demo.json", "moved-line.json", "stale-sha.json"] {
        for relocate in [false, true] {
            let ws = sample_workspace();
            let bytes = std::fs::read(samples().join(sample)).unwrap();
            asked += holds_to_the_plan(checked(ws.path(), sample, bytes), relocate);
        }
    }
    assert!(
        asked >= 4,
        "the samples hold files with a mismatch: {asked}"
    );
}

/// The case the two rule sets disagreed on: an insertion (no expected lines) in a file whose
/// SHA-256 differs, beside a replacement that verifies.
#[test]
fn an_insertion_in_a_changed_file_is_named_before_the_override_not_after() {
    let ws = workspace_with(&[("a.txt", b"one\ntwo\nthree\n")]);
    let batch = json!({"files": [{"docPath": "a.txt", "originalSha256": sha(b"an older a.txt\n"),
        "changes": [
            {"changeKey": "add", "operation": "insert", "afterLine": 1, "newLines": ["one and a half"]},
            {"changeKey": "fix", "operation": "replace", "startLine": 3, "endLine": 3,
             "expectedOriginalLines": ["three"], "newLines": ["THREE"]}]}]});
    let checked = checked(ws.path(), "b.json", batch.to_string().into_bytes());
    let review = Review::new(
        Checked {
            batch: checked.batch.clone(),
            verification: checked.verification.clone(),
        },
        Decisions::undecided(&checked.batch),
    );
    let Some(Refusal::Unresolved { changes }) = review.override_refusal(0) else {
        panic!("the override is refused while the insertion would block it");
    };
    assert_eq!(changes.len(), 1);
    assert_eq!(
        review.change(changes[0].at).change.key.as_deref(),
        Some("add")
    );
    assert_eq!(holds_to_the_plan(checked, false), 1);
}
