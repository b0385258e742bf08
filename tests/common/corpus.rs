//! Real batches from real commits: `../shared/tools/make_corpus.py` run on this repository's
//! own history, into a temporary folder. Each case holds `base/`, `expected/`, `diff.patch`, and
//! the batches (`tul002.json`, `bundle.json`, ...) that must turn base into expected.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use tempfile::TempDir;

pub struct Case {
    pub dir: PathBuf,
    pub meta: Value,
}

impl Case {
    pub fn name(&self) -> String {
        self.dir.file_name().unwrap().to_string_lossy().into_owned()
    }

    pub fn has(&self, format: &str) -> bool {
        self.meta["formats"]
            .as_array()
            .is_some_and(|f| f.iter().any(|x| x == format))
    }
}

/// The corpus builder shipped beside the repository.
pub fn builder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/make_corpus.py")
}

/// The cases of this repository's history, built once per test binary.
pub fn cases() -> &'static [Case] {
    static CORPUS: OnceLock<(TempDir, Vec<Case>)> = OnceLock::new();
    &CORPUS.get_or_init(|| build(60)).1
}

/// Builds up to `count` cases from this repository's history. Panics with a clear message when
/// the builder or the history is missing: the corpus tests must not pass by testing nothing.
pub fn build(count: usize) -> (TempDir, Vec<Case>) {
    let script = builder();
    assert!(
        script.exists(),
        "the corpus builder {} is missing",
        script.display()
    );
    let git_dir = Command::new("git")
        .args(["rev-parse", "--absolute-git-dir"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    assert!(
        git_dir.status.success(),
        "the corpus needs this repository's git history"
    );
    let git_dir = String::from_utf8(git_dir.stdout).unwrap().trim().to_owned();
    let out = tempfile::tempdir().unwrap();
    let status = Command::new("python3")
        .arg(&script)
        .args(["--repo", &git_dir, "--out"])
        .arg(out.path())
        .args(["--count", &count.to_string()])
        .status()
        .expect("python3 runs");
    assert!(status.success(), "make_corpus.py failed");
    let mut cases: Vec<Case> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("meta.json").exists())
        .map(|dir| Case {
            meta: serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap(),
            dir,
        })
        .collect();
    cases.sort_by(|a, b| a.dir.cmp(&b.dir));
    (out, cases)
}
