//! `patchdeck feedback`: the message for the model that wrote a batch. On the drifted and stale
//! variants of real commits it names every change that failed and quotes the lines that are
//! really on disk; a large batch with a few failures gives a message about those alone; what
//! the decisions resolve, and what is applied already, is not a failure; the JSON keeps its
//! field names.

use crate::common::corpus;
use crate::common::{
    copy_tree, json_out, patchdeck, sample_workspace, samples, sha, stderr, stdout, user_tree,
    workspace_with,
};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

fn workspace_from(dir: &Path) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    copy_tree(dir, ws.path());
    ws
}

fn feedback(root: &str, extra: &[&str], batch: &str) -> std::process::Output {
    let mut args = vec!["feedback", "--root", root];
    args.extend_from_slice(extra);
    args.push(batch);
    patchdeck(&args)
}

/// Every failed change of a feedback object, with the path of its file.
fn failed(feedback: &Value) -> Vec<(String, Value)> {
    feedback["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let path = f["path"].as_str().unwrap().to_owned();
            f["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |c| (path.clone(), c.clone()))
        })
        .collect()
}

/// Asserts that an excerpt quotes exactly the lines of `text` it says it does.
fn holds_disk_lines(excerpt: &Value, text: &str, what: &str) {
    let disk: Vec<&str> = text.split('\n').collect();
    let start = excerpt["startLine"].as_u64().unwrap() as usize;
    let lines = excerpt["lines"].as_array().unwrap();
    assert!(!lines.is_empty(), "{what}: an empty excerpt {excerpt}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(
            line.as_str().unwrap(),
            disk[start - 1 + i],
            "{what}: line {} of the excerpt {excerpt}",
            start + i
        );
    }
}

/// Whether `markdown` shows line `n` of a file as `text`, numbered as an excerpt numbers it.
fn shows_line(markdown: &str, n: usize, text: &str) -> bool {
    markdown
        .lines()
        .any(|l| l.ends_with(&format!(" {n} | {text}")) || l == format!("> {n} | {text}"))
}

#[test]
fn feedback_names_every_failed_change_of_real_commits_and_quotes_the_disk() {
    let cases = corpus::cases();
    let mut checked = 0;
    for case in cases {
        for variant in ["drift", "stale"] {
            if !case.dir.join(variant).exists() {
                continue;
            }
            let ws = workspace_from(&case.dir.join(variant));
            let root = ws.path().to_str().unwrap();
            let batch = case.dir.join("tul002.json");
            let batch = batch.to_str().unwrap();
            let before = user_tree(ws.path());
            let name = format!("{} ({variant})", case.name());

            // What failed, as `check` reports it: a conflict or an invalid change, or an
            // insertion whose position the changed file cannot confirm.
            let report = json_out(&patchdeck(&["check", "--json", "--root", root, batch]));
            let mut want = BTreeSet::new();
            for file in report["files"].as_array().unwrap() {
                for change in file["changes"].as_array().unwrap() {
                    let unverified = change["problems"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p["kind"] == "unverified_position");
                    if change["status"] != "ok" || unverified {
                        want.insert(change["id"].as_str().unwrap().to_owned());
                    }
                }
            }
            assert!(!want.is_empty(), "{name}: nothing failed");

            let out = feedback(root, &["--json"], batch);
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
            let fb = json_out(&out);
            let got: BTreeSet<String> = failed(&fb)
                .iter()
                .map(|(_, c)| c["id"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(got, want, "{name}: the failed changes");
            assert_eq!(fb["summary"]["failed"], want.len(), "{name}");

            let markdown = stdout(&feedback(root, &[], batch));
            let meta = &case.meta[variant];
            let path = meta["path"].as_str().unwrap();
            let disk = std::fs::read(ws.path().join(path)).unwrap();
            let text = String::from_utf8(disk.clone()).unwrap();
            // The file's SHA-256 now, which the batch no longer has.
            let file = fb["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"] == path)
                .unwrap_or_else(|| panic!("{name}: {path} is not in the feedback"));
            assert_eq!(file["shaMismatch"], true, "{name}");
            assert_eq!(file["actualSha256"], sha(&disk), "{name}");
            assert!(markdown.contains(&sha(&disk)), "{name}: {markdown}");
            for (at, change) in failed(&fb) {
                let id = change["id"].as_str().unwrap();
                assert!(markdown.contains(id), "{name}: {id} not named");
                if at != path {
                    continue;
                }
                let current = &change["current"];
                holds_disk_lines(current, &text, &format!("{name}: {id} now"));
                let start = current["startLine"].as_u64().unwrap() as usize;
                for (i, line) in current["lines"].as_array().unwrap().iter().enumerate() {
                    assert!(
                        shows_line(&markdown, start + i, line.as_str().unwrap()),
                        "{name}: line {} not shown:\n{markdown}",
                        start + i
                    );
                }
                for place in change["foundAt"].as_array().unwrap() {
                    holds_disk_lines(place, &text, &format!("{name}: {id} found"));
                }
                if variant == "drift" && change["operation"] != "insert" {
                    // Two lines were put on top: the expected lines stand two lower.
                    let start = change["startLine"].as_u64().unwrap();
                    let places: Vec<u64> = change["foundAt"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p["markedStart"].as_u64().unwrap())
                        .collect();
                    assert!(places.contains(&(start + 2)), "{name}: {change}");
                }
            }
            if variant == "stale" {
                // The stale change is named, and its line as edited on disk is quoted.
                let key = meta["changeKey"].as_str().unwrap();
                let (_, change) = failed(&fb)
                    .into_iter()
                    .find(|(at, c)| at == path && c["key"] == key)
                    .unwrap_or_else(|| panic!("{name}: {key} not in the feedback"));
                let quoted = change["current"]["lines"].as_array().unwrap();
                assert!(
                    quoted
                        .iter()
                        .any(|l| l.as_str().unwrap().ends_with("  // edited locally")),
                    "{name}: {change}"
                );
            }
            assert_eq!(user_tree(ws.path()), before, "{name}: feedback wrote");
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "no drift or stale case in {} cases",
        cases.len()
    );
    eprintln!("{checked} drifted or stale commits, every failed change named");
}

/// A workspace of four files of 60 lines, and a batch of 100 changes written against them,
/// three of which fail: one whose expected line stands at six places (none where it says),
/// one whose expected lines stand nowhere, and one past the end of its file (invalid).
fn hundred_changes() -> (tempfile::TempDir, Value, [&'static str; 3]) {
    let mut files = Vec::new();
    let mut texts = Vec::new();
    for f in 1..=4 {
        let mut text = String::new();
        for n in 1..=60 {
            if f == 1 && n % 10 == 5 {
                text.push_str("    pass\n");
            } else {
                text.push_str(&format!("file {f} line {n}\n"));
            }
        }
        texts.push((format!("src/f{f}.txt"), text));
    }
    for (f, (path, text)) in texts.iter().enumerate() {
        let lines: Vec<&str> = text.lines().collect();
        let changes: Vec<Value> = (1..=25)
            .map(|c| {
                let line = 2 * c;
                let key = format!("f{}-c{c:02}", f + 1);
                let mut expected = lines[line - 1].to_owned();
                let (mut start, mut end) = (line, line);
                match key.as_str() {
                    "f1-c03" => expected = "    pass".into(),
                    "f2-c07" => expected = "a line no file has".into(),
                    "f3-c25" => (start, end) = (70, 70),
                    _ => {}
                }
                json!({"changeKey": key, "operation": "replace", "startLine": start,
                       "endLine": end, "expectedOriginalLines": [expected],
                       "newLines": [format!("{} (changed)", lines[line - 1])]})
            })
            .collect();
        files.push(json!({"fileKey": format!("f{}", f + 1), "docPath": path,
                          "originalSha256": sha(text.as_bytes()), "changes": changes}));
    }
    let owned: Vec<(&str, &[u8])> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    let ws = workspace_with(&owned);
    let batch = json!({"batchLabel": "a hundred changes", "batchKey": "hundred", "files": files});
    (ws, batch, ["f1-c03", "f2-c07", "f3-c25"])
}

#[test]
fn a_hundred_changes_with_three_failures_give_feedback_on_exactly_those_three() {
    let (ws, batch, failing) = hundred_changes();
    let dir = tempfile::tempdir().unwrap();
    let batch_path = crate::common::batch_file(&dir, &batch);
    let batch_path = batch_path.to_str().unwrap();
    let root = ws.path().to_str().unwrap();

    let fb = json_out(&feedback(root, &["--json"], batch_path));
    assert_eq!(
        fb["summary"],
        json!({"files": 4, "changes": 100, "ok": 97, "failed": 3, "heldBack": 0,
               "resolved": 0, "alreadyApplied": 0})
    );
    let keys: Vec<String> = failed(&fb)
        .iter()
        .map(|(_, c)| c["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys, failing);
    let by_key = |key: &str| {
        failed(&fb)
            .into_iter()
            .find(|(_, c)| c["key"] == key)
            .unwrap()
            .1
    };
    // Six places, three quoted, nearest first: "… and 3 more places".
    let ambiguous = by_key("f1-c03");
    assert_eq!(ambiguous["problems"][0]["kind"], "expected_mismatch");
    assert_eq!(ambiguous["foundAt"].as_array().unwrap().len(), 3);
    assert_eq!(ambiguous["morePlaces"], 3);
    let places: Vec<u64> = ambiguous["foundAt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["markedStart"].as_u64().unwrap())
        .collect();
    assert_eq!(places, [5, 15, 25]);
    let nowhere = by_key("f2-c07");
    assert!(nowhere["foundAt"].as_array().unwrap().is_empty());
    assert_eq!(nowhere["current"]["lines"][2], "file 2 line 14");
    let past = by_key("f3-c25");
    assert_eq!(past["status"], "invalid");
    assert_eq!(past["problems"][0]["kind"], "out_of_range");
    assert_eq!(
        past["current"]["lines"].as_array().unwrap().last().unwrap(),
        "file 3 line 60"
    );

    let out = feedback(root, &[], batch_path);
    assert_eq!(out.status.code(), Some(0));
    let markdown = stdout(&out);
    assert!(
        markdown.starts_with("# 3 of 100 changes in \"a hundred changes\" did not apply\n"),
        "{markdown}"
    );
    for f in 1..=4 {
        for c in 1..=25 {
            let key = format!("f{f}-c{c:02}");
            assert_eq!(
                markdown.contains(&format!("`{key}`")),
                failing.contains(&key.as_str()),
                "{key} in:\n{markdown}"
            );
        }
    }
    assert!(markdown.contains("… and 3 more places."), "{markdown}");
    assert!(
        markdown.contains("**out_of_range**: line 70 is past the end"),
        "{markdown}"
    );
    // Compact: about the three, not the hundred.
    assert!(
        markdown.len() < 4_000,
        "{} bytes:\n{markdown}",
        markdown.len()
    );
}

#[test]
fn what_the_decisions_resolve_is_not_a_failure_and_a_rejected_failure_still_is() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let batch = samples().join("moved-line.json");
    let batch = batch.to_str().unwrap();

    let plain = json_out(&feedback(root, &["--json"], batch));
    assert_eq!(plain["summary"]["failed"], 1);
    assert_eq!(plain["summary"]["heldBack"], 1);
    assert_eq!(plain["files"][0]["problems"][0]["kind"], "sha_mismatch");

    let resolved = json_out(&feedback(
        root,
        &["--json", "--relocate", "--allow-sha-mismatch"],
        batch,
    ));
    assert_eq!(resolved["summary"]["failed"], 0, "{resolved}");
    assert!(resolved["files"].as_array().unwrap().is_empty());
    let how: Vec<&str> = resolved["resolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["how"].as_str().unwrap())
        .collect();
    assert_eq!(how, ["sha_override", "relocated"]);
    assert_eq!(
        resolved["resolved"][1]["message"],
        "moved from line 21 to line 19, where its expected lines are"
    );
    let markdown = stdout(&feedback(
        root,
        &["--relocate", "--allow-sha-mismatch"],
        batch,
    ));
    assert!(markdown.starts_with("# Every change of"), "{markdown}");
    assert!(markdown.contains("## Resolved as decided (nothing to fix)"));

    // Rejected, the change still does not fit: the model should hear of it.
    let rejected = json_out(&feedback(
        root,
        &[
            "--json",
            "--relocate",
            "--allow-sha-mismatch",
            "--reject",
            "log-load",
        ],
        batch,
    ));
    let changes = failed(&rejected);
    assert_eq!(changes.len(), 1, "{rejected}");
    assert_eq!(changes[0].1["key"], "log-load");
    assert_eq!(changes[0].1["decision"], "reject");
}

#[test]
fn changes_applied_already_are_not_failures() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let batch = samples().join("clean.json");
    let batch = batch.to_str().unwrap();
    let applied = patchdeck(&["apply", "--root", root, batch]);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    let fb = json_out(&feedback(root, &["--json"], batch));
    assert_eq!(fb["summary"]["failed"], 0, "{fb}");
    assert_eq!(fb["summary"]["alreadyApplied"], fb["summary"]["changes"]);
    assert!(fb["files"].as_array().unwrap().is_empty());
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn feedback_json_has_stable_field_names() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let batch = samples().join("moved-line.json");
    let batch = batch.to_str().unwrap();
    let fb = json_out(&feedback(root, &["--json", "--allow-sha-mismatch"], batch));
    assert_eq!(
        keys(&fb),
        [
            "batch",
            "files",
            "format",
            "moreRejected",
            "rejected",
            "resolved",
            "source",
            "summary"
        ]
    );
    assert_eq!(keys(&fb["batch"]), ["id", "key", "label"]);
    assert_eq!(
        keys(&fb["summary"]),
        [
            "alreadyApplied",
            "changes",
            "failed",
            "files",
            "heldBack",
            "ok",
            "resolved"
        ]
    );
    let file = &fb["files"][0];
    assert_eq!(
        keys(file),
        [
            "action",
            "actualSha256",
            "changes",
            "docPath",
            "expectedSha256",
            "heldBack",
            "id",
            "key",
            "label",
            "lineCount",
            "path",
            "problems",
            "shaMismatch"
        ]
    );
    let change = &file["changes"][0];
    assert_eq!(
        keys(change),
        [
            "afterLine",
            "current",
            "decision",
            "description",
            "endLine",
            "expected",
            "foundAt",
            "id",
            "key",
            "located",
            "morePlaces",
            "note",
            "number",
            "operation",
            "problems",
            "startLine",
            "status"
        ]
    );
    assert_eq!(keys(&change["problems"][0]), ["kind", "message"]);
    assert_eq!(keys(&change["expected"]), ["lines", "moreLines"]);
    let excerpt = [
        "lines",
        "markedEnd",
        "markedStart",
        "moreLines",
        "startLine",
    ];
    assert_eq!(keys(&change["current"]), excerpt);
    assert_eq!(keys(&change["foundAt"][0]), excerpt);
    assert_eq!(
        keys(&fb["resolved"][0]),
        ["changeId", "fileId", "how", "key", "message", "path"]
    );
    assert_eq!(fb["resolved"][0]["how"], "sha_override");
}

#[test]
fn a_malformed_batch_is_an_error_naming_its_place_and_nothing_is_written() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let batch = samples().join("invalid-ranges.json");
    let before = user_tree(ws.path());
    let out = feedback(root, &[], batch.to_str().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("files[0].changes[0].endLine: in \"src/app.py\""),
        "{}",
        stderr(&out)
    );
    let json = json_out(&feedback(root, &["--json"], batch.to_str().unwrap()));
    assert_eq!(json["error"]["exitCode"], 2);
    assert_eq!(
        json["error"]["problems"][0]["location"],
        "files[0].changes[0].endLine"
    );
    assert_eq!(user_tree(ws.path()), before);
}
