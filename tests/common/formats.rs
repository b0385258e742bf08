//! Helpers for the format tests: running the binary on a sample against a fresh copy of the
//! sample workspace, and reading what it left.

use crate::common::{json_out, patchdeck, sample_workspace, samples, stderr, stdout, user_tree};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

/// The path of a sample batch.
pub fn sample(name: &str) -> String {
    samples().join(name).display().to_string()
}

/// Runs `patchdeck SUBCOMMAND --root WS ARGS...`.
pub fn run(ws: &Path, subcommand: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec![subcommand, "--root", ws.to_str().unwrap()];
    all.extend_from_slice(args);
    patchdeck(&all)
}

/// `check --json` of a sample against a fresh sample workspace: the report.
pub fn report(name: &str) -> Value {
    let ws = sample_workspace();
    json_out(&run(ws.path(), "check", &["--json", &sample(name)]))
}

/// `apply` of a sample on a fresh sample workspace: the workspace, the exit status, the output.
pub fn apply(name: &str, extra: &[&str]) -> (TempDir, i32, String) {
    let ws = sample_workspace();
    let mut args = extra.to_vec();
    let path = sample(name);
    args.push(&path);
    let out = run(ws.path(), "apply", &args);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    (ws, out.status.code().unwrap(), text)
}

/// A file of a workspace as text.
pub fn read(ws: &TempDir, rel: &str) -> String {
    String::from_utf8(std::fs::read(ws.path().join(rel)).unwrap()).unwrap()
}

/// A sample workspace file as text, before any change.
pub fn original(rel: &str) -> String {
    std::fs::read_to_string(samples().join("workspace").join(rel)).unwrap()
}

/// Asserts that a workspace is still exactly the sample workspace.
pub fn assert_untouched(ws: &TempDir) {
    let fresh = sample_workspace();
    assert!(
        user_tree(ws.path()) == user_tree(fresh.path()),
        "the workspace was changed"
    );
}

/// Every problem kind in a report, file problems first, in order.
pub fn kinds(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for file in report["files"].as_array().unwrap() {
        for p in file["problems"].as_array().unwrap() {
            out.push(p["kind"].as_str().unwrap().to_owned());
        }
        for c in file["changes"].as_array().unwrap() {
            for p in c["problems"].as_array().unwrap() {
                out.push(p["kind"].as_str().unwrap().to_owned());
            }
        }
    }
    out
}

/// The `error.problems[].location: message` lines of a refused input (`--json`).
pub fn input_problems(name: &str) -> Vec<String> {
    let ws = sample_workspace();
    let out = run(ws.path(), "check", &["--json", &sample(name)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    json_out(&out)["error"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                p["location"].as_str().unwrap(),
                p["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// Runs `patchdeck SUBCOMMAND --root WS ARGS... INPUT` on a fresh workspace holding `files`,
/// with `input` written to a file outside it: the workspace and the output.
pub fn run_input(
    files: &[(&str, &[u8])],
    subcommand: &str,
    args: &[&str],
    input: &[u8],
) -> (TempDir, std::process::Output) {
    let ws = crate::common::workspace_with(files);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input");
    std::fs::write(&path, input).unwrap();
    let mut all = args.to_vec();
    all.push(path.to_str().unwrap());
    let out = run(ws.path(), subcommand, &all);
    (ws, out)
}

/// The batch warnings of a `check --json` report, as `location: message` lines.
pub fn warnings(report: &Value) -> Vec<String> {
    report["warnings"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|w| {
                    format!(
                        "{}: {}",
                        w["location"].as_str().unwrap(),
                        w["message"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}
