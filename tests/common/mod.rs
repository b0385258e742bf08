//! Helpers shared by the integration tests: temporary workspaces, batches, the real binary.

pub mod clean_env;
pub mod corpus;
pub mod express;
pub mod formats;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(target_os = "linux")]
pub mod mount;
pub mod reviewer;
pub mod terminal;

use patchdeck::formats::Input;
use patchdeck::model::{sha256_hex, Batch};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

/// The repository's `sample-batches/` folder.
pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-batches")
}

/// Calls `check` with each sample batch and a fresh copy of the sample workspace, and asserts
/// the samples are all there.
pub fn each_sample_batch(mut check: impl FnMut(&Path, &Path)) {
    let mut checked = 0;
    for entry in fs::read_dir(samples()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let ws = sample_workspace();
            check(ws.path(), &path);
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} sample batches found");
}

/// A fresh copy of the sample workspace in a temporary folder.
pub fn sample_workspace() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), dir.path());
    dir
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary workspace holding these files.
pub fn workspace_with(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let full = dir.path().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, bytes).unwrap();
    }
    dir
}

/// A temporary workspace holding these files, made by a test rather than written out.
pub fn workspace_of(files: &[(String, Vec<u8>)]) -> TempDir {
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    workspace_with(&named)
}

/// What a commit left beside its targets under `root`: staged files and originals
/// (`.NAME.pd-ID-N.tmp`, `.orig`). A finished or recovered commit leaves none.
pub fn staged_leftovers(root: &Path) -> Vec<PathBuf> {
    tree(root)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".pd-"))
        .collect()
}

/// Every file under `dir` with its bytes and permission bits, `.patchdeck/` included, so a
/// leftover temporary, backup or journal shows up as a difference.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    collect(dir, dir, &mut out);
    out
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, u32)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = fs::symlink_metadata(entry.path()).unwrap();
        let rel = entry.path().strip_prefix(root).unwrap().to_path_buf();
        if meta.is_dir() {
            out.insert(rel.join(""), (Vec::new(), meta.permissions().mode()));
            collect(root, &entry.path(), out);
        } else if meta.is_file() {
            let bytes = fs::read(entry.path()).unwrap_or_default();
            out.insert(rel, (bytes, meta.permissions().mode()));
        } else {
            // Links, FIFOs, sockets: recorded, never opened (a FIFO would block).
            let target =
                fs::read_link(entry.path()).map(|t| t.into_os_string().into_encoded_bytes());
            out.insert(rel, (target.unwrap_or_default(), meta.permissions().mode()));
        }
    }
}

/// The tree without patchdeck's state folder (whose leftovers `tree` shows).
pub fn user_tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut t = tree(dir);
    t.retain(|path, _| !path.starts_with(".patchdeck"));
    t
}

pub fn sha(bytes: &[u8]) -> String {
    sha256_hex(bytes)
}

/// Parses a batch given as JSON, as TUL-002.
pub fn parse(value: &Value) -> Result<Batch, patchdeck::error::Error> {
    let bytes = serde_json::to_vec_pretty(value).unwrap();
    load_bytes(&bytes, Some("tul002"))
}

/// Loads input bytes (detecting the format when `format` is none) against an empty workspace.
pub fn load_bytes(bytes: &[u8], format: Option<&str>) -> Result<Batch, patchdeck::error::Error> {
    let empty = tempfile::tempdir().unwrap();
    let workspace = patchdeck::workspace::Workspace::open(empty.path()).unwrap();
    patchdeck::formats::load(
        &Input::from_bytes("batch.json", bytes.to_vec()),
        format,
        &workspace,
    )
}

/// The problems of an invalid batch, as `location: message` lines.
pub fn problems(value: &Value) -> Vec<String> {
    match parse(value) {
        Err(patchdeck::error::Error::InvalidInput { problems, .. }) => {
            problems.iter().map(|p| p.to_string()).collect()
        }
        Err(other) => panic!("expected an invalid-input error, got {other}"),
        Ok(_) => panic!("expected the batch to be refused"),
    }
}

/// Writes a batch file into a temporary folder (outside the workspace) and returns its path.
pub fn batch_file(dir: &TempDir, value: &Value) -> PathBuf {
    let path = dir.path().join("batch.json");
    fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path
}

/// Runs git in `dir` as a test user, with no user or system configuration, asserting it
/// succeeds; its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git is installed");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Runs the real binary.
pub fn patchdeck(args: &[&str]) -> Output {
    patchdeck_env(args, &[])
}

pub fn patchdeck_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command.args(args).env_remove("PATCHDECK_FAILPOINT");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            stdout(output),
            stderr(output)
        )
    })
}

/// Runs patchdeck's command to its end, its output captured, with its peak resident memory
/// in MiB as the binary itself reports it (`PATCHDECK_REPORT_PEAK`, debug builds): the
/// kernel's count for a child also holds the memory of the test runner that spawned it.
pub fn run_measured(command: &mut Command) -> (Output, u64) {
    let output = command.env("PATCHDECK_REPORT_PEAK", "1").output().unwrap();
    let text = stderr(&output);
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("patchdeck: peak memory: "))
        .and_then(|v| v.trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("patchdeck did not report its peak memory: {text}"));
    (output, kib / 1024)
}
