//! Real batches from real commits: the commits of this repository's own history, each written
//! as a case (see `case.rs`) into a temporary folder, plus those of a small scripted history
//! (see `scripted.rs`) so that a checkout without history still tests real commits, and the
//! scripted path itself never goes untested.

mod case;
mod history;
pub mod scripted;

use history::History;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use tempfile::TempDir;

/// How many commits of the project's history become cases.
const FROM_PROJECT: usize = 60;

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

/// Cases written into temporary folders that live as long as they do.
pub struct Corpus {
    _folders: Vec<TempDir>,
    pub cases: Vec<Case>,
}

/// The corpus every corpus test reads: the project's history where the checkout has one, and
/// the scripted history always. Built once per test run.
pub fn cases() -> &'static [Case] {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    &CORPUS
        .get_or_init(|| {
            let mut corpus = scripted();
            let from_scripted = corpus.cases.len();
            match usable_history(Path::new(env!("CARGO_MANIFEST_DIR"))) {
                Ok(git_dir) => {
                    let project = build(&History::new(&git_dir), FROM_PROJECT, "project");
                    eprintln!(
                        "corpus: {} cases from this repository's history, {from_scripted} from the scripted history",
                        project.cases.len()
                    );
                    corpus.cases.splice(0..0, project.cases);
                    corpus._folders.extend(project._folders);
                }
                Err(why) => {
                    eprintln!("corpus: {from_scripted} cases from the scripted history only ({why})")
                }
            }
            corpus
        })
        .cases
}

/// The batch files every case holds, one per format.
pub const BATCHES: [&str; 5] = [
    "diff.patch",
    "tul002.json",
    "bundle.json",
    "structured.json",
    "edits.json",
];

/// Calls `check` with every case's base, drift and stale workspaces and each of its batches,
/// and gives how many it checked.
pub fn each_batch(mut check: impl FnMut(&Path, &Path)) -> usize {
    let cases = cases();
    assert!(!cases.is_empty(), "the corpus is empty");
    let mut checked = 0;
    for case in cases {
        for workspace in ["base", "drift", "stale"] {
            let root = case.dir.join(workspace);
            if !root.is_dir() {
                continue;
            }
            for batch in BATCHES.map(|b| case.dir.join(b)) {
                if batch.is_file() {
                    check(&root, &batch);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > cases.len() * 3, "only {checked} checks made");
    checked
}

/// The scripted history's cases alone.
pub fn scripted() -> Corpus {
    let repository = scripted::repository();
    let mut corpus = build(
        &History::new(&repository.path().join(".git")),
        usize::MAX,
        "scripted",
    );
    corpus._folders.push(repository);
    corpus
}

/// The git folder of the checkout at `root`, when it has a history the corpus can read: not a
/// source tarball (no repository, or one that belongs to a folder above), not a shallow clone.
pub fn usable_history(root: &Path) -> Result<PathBuf, String> {
    let ask = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("git runs (the test suite needs git on PATH)");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let top =
        ask(&["rev-parse", "--show-toplevel"]).ok_or("this checkout is not a git repository")?;
    if Path::new(&top).canonicalize().ok() != root.canonicalize().ok() {
        return Err(format!(
            "this checkout is not a repository of its own ({top} is)"
        ));
    }
    if ask(&["rev-parse", "--is-shallow-repository"]).as_deref() == Some("true") {
        return Err("this checkout is a shallow clone".into());
    }
    let git_dir = ask(&["rev-parse", "--absolute-git-dir"]).ok_or("git has no folder here")?;
    Ok(PathBuf::from(git_dir))
}

/// Cases from up to `count` commits of `history`, sampled evenly from HEAD back, named
/// `PREFIX-case-N-COMMIT`.
pub fn build(history: &History, count: usize, prefix: &str) -> Corpus {
    let out = tempfile::tempdir().unwrap();
    let commits = history
        .commits()
        .unwrap_or_else(|e| panic!("the corpus cannot list commits: {e}"));
    let step = (commits.len() / count.saturating_mul(3)).max(1);
    let mut cases = Vec::new();
    for commit in commits.iter().step_by(step) {
        if cases.len() >= count {
            break;
        }
        if let Some(name) = case::build(history, commit, out.path(), cases.len(), prefix) {
            let dir = out.path().join(name);
            let meta = std::fs::read(dir.join("meta.json")).unwrap();
            cases.push(Case {
                meta: serde_json::from_slice(&meta).unwrap(),
                dir,
            });
        }
    }
    assert!(
        !cases.is_empty(),
        "no commit of {} commits became a corpus case",
        commits.len()
    );
    Corpus {
        _folders: vec![out],
        cases,
    }
}
