//! The work tree as git records it, for reviewing what an agent wrote: checkpoints, and the
//! diff between a base and the work tree as it is now.
//!
//! The work tree is recorded as a tree object made through an index of patchdeck's own (a
//! copy of git's, in a private temporary folder, named by `GIT_INDEX_FILE`): `git add -A`
//! there takes tracked and untracked files as `.gitignore` leaves them, and git's own index,
//! the stash and every branch stay as they are. Only objects are added to the repository. A
//! checkpoint is a commit of such a tree (parent `HEAD`, when there is one) under
//! [`CHECKPOINTS`], the last [`KEPT`] of them kept.
//!
//! What this module trusts: a checkpoint only when its seal opens ([`super::sealed`]): one
//! that came with the repository (a mirror clone copies `refs/patchdeck/`) or that another
//! user made is ignored, named in a warning, and never pruned.
//! It does not own the batch made of the diff (`crate::worktree` does) nor decide anything.

use super::git;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where checkpoints are kept: one ref each, named by the time it was made.
pub const CHECKPOINTS: &str = "refs/patchdeck/checkpoints/";

/// How many checkpoints are kept: older ones are removed as a new one is made.
pub const KEPT: usize = 20;

/// The identity a checkpoint commit is made with (it needs one, and the person may have
/// configured none).
const IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "patchdeck"),
    ("GIT_AUTHOR_EMAIL", "patchdeck@localhost"),
    ("GIT_COMMITTER_NAME", "patchdeck"),
    ("GIT_COMMITTER_EMAIL", "patchdeck@localhost"),
];

/// The error for a folder that is not in a git work tree, with the ways to make one.
pub fn not_a_work_tree(root: &Path) -> Error {
    Error::Usage {
        message: format!(
            "--worktree needs a git work tree, and {} is not in one (or git is not installed)",
            root.display()
        ),
        hint: Some(
            "make one before the agent writes: `git init && git add -A && git commit -m base`; `patchdeck checkpoint` then records each turn"
                .into(),
        ),
    }
}

/// The repository a workspace root is in.
pub struct Repo {
    root: PathBuf,
    /// Where the root sits in the work tree (`sub/`, or empty at the top).
    prefix: String,
}

impl Repo {
    /// The repository `root` is in; an error saying how to make one when it is in none.
    pub fn open(root: &Path) -> Result<Repo> {
        // `.git` is looked for in the root's folders above it: from `.`, there are none.
        let root = std::fs::canonicalize(root).map_err(|_| not_a_work_tree(root))?;
        let prefix = super::work_tree_prefix(&root).ok_or_else(|| not_a_work_tree(&root))?;
        Ok(Repo { root, prefix })
    }

    /// Runs git with `args`, and answers its standard output, or an error with what it said.
    fn run(&self, args: &[&str], env: &[(&str, &OsPath)]) -> Result<Vec<u8>> {
        let mut command = git(&self.root);
        command.args(args).stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        output(command, args)
    }

    /// The object a revision names (`HEAD`, a ref, a commit), or `None` when it names none.
    pub fn resolve(&self, revision: &str) -> Option<String> {
        let spec = format!("{revision}^{{commit}}");
        let out = self
            .run(
                &[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    "--end-of-options",
                    &spec,
                ],
                &[],
            )
            .ok()?;
        let oid = String::from_utf8(out).ok()?.trim().to_owned();
        (!oid.is_empty()).then_some(oid)
    }

    /// The work tree as it is now, tracked and untracked files as `.gitignore` leaves them, as
    /// a tree object. git's index is copied, never written: `git add -A` runs on the copy.
    pub fn snapshot(&self) -> Result<String> {
        let folder = tempfile::Builder::new()
            .prefix("patchdeck-index-")
            .tempdir()
            .map_err(|e| Error::io("making a private folder for an index", e))?;
        let index = folder.path().join("index");
        let real = self.run(&["rev-parse", "--git-path", "index"], &[])?;
        let real = PathBuf::from(String::from_utf8_lossy(&real).trim());
        let real = if real.is_absolute() {
            real
        } else {
            self.root.join(real)
        };
        // A repository without an index yet (nothing added) starts from an empty one.
        if real.is_file() {
            copy_index(&real, &index).map_err(|e| Error::io("copying git's index", e))?;
        }
        let env = [("GIT_INDEX_FILE", index.as_os_str())];
        // The whole work tree, whatever folder the root is in it, but patchdeck's own state
        // (its journal, its undo records): not the work, and not for git's objects.
        let state = format!(
            ":(top,exclude,literal){}{}",
            self.prefix,
            crate::fs::path::STATE_DIR
        );
        let mut add = git(&self.root);
        add.env_remove("GIT_LITERAL_PATHSPECS")
            .env("GIT_INDEX_FILE", &index)
            .args(["add", "-A", "--", ":(top)", &state])
            .stderr(Stdio::piped());
        output(add, &["add"])?;
        let tree = self.run(&["write-tree"], &env)?;
        Ok(String::from_utf8_lossy(&tree).trim().to_owned())
    }

    /// The repository's top-level folder, absolute and without links (as a seal names it,
    /// whatever path the root was given as).
    fn top(&self) -> PathBuf {
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let depth = self.prefix.split('/').filter(|c| !c.is_empty()).count();
        root.ancestors().nth(depth).unwrap_or(&root).to_path_buf()
    }

    /// Every checkpoint's ref this user made in this repository, oldest first, and how many
    /// others there are under [`CHECKPOINTS`] (refs whose seal does not open: they came with
    /// a clone, or another user or repository made them), which are ignored.
    pub fn checkpoints(&self) -> Checkpoints {
        let format = "--format=%(refname)%00%(objecttype)%00%(tree)%00%(parent)%00%(contents)%00";
        let out = self
            .run(&["for-each-ref", format, CHECKPOINTS], &[])
            .unwrap_or_default();
        let out = String::from_utf8_lossy(&out);
        let checker = super::sealed::Checker::of(&self.top());
        let mut found = Checkpoints::default();
        // Each record is five fields ended by NUL, then git's newline.
        let mut fields = out.split('\0');
        while let (Some(name), Some(kind), Some(tree), Some(parents), Some(message)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) {
            let name = name.trim_start_matches('\n');
            let parent = parents.split(' ').next().filter(|p| !p.is_empty());
            let ours = kind == "commit"
                && name.starts_with(CHECKPOINTS)
                && checker
                    .as_ref()
                    .is_some_and(|c| c.opens(name, tree, parent, message));
            match ours {
                true => found.ours.push(name.to_owned()),
                false => found.ignored += 1,
            }
        }
        // Named by the time they were made, zero-padded: their order is their names'.
        found.ours.sort();
        found
    }

    /// Records the work tree as a checkpoint, unless it is as the latest one records it;
    /// removes all but the last [`KEPT`].
    pub fn checkpoint(&self) -> Result<Checkpoint> {
        let tree = self.snapshot()?;
        let ours = self.checkpoints().ours;
        let latest = ours.last().cloned();
        let head = self.resolve("HEAD");
        if let Some(latest) = &latest {
            let spec = format!("{latest}^{{tree}}");
            let same = self
                .run(&["rev-parse", "--verify", "--quiet", &spec], &[])
                .is_ok_and(|t| String::from_utf8_lossy(&t).trim() == tree);
            // On another HEAD it is no longer the work tree's record: a review from it would
            // say HEAD moved.
            if same && self.resolve(&format!("{latest}^")) == head {
                return Ok(Checkpoint {
                    name: latest.clone(),
                    made: false,
                    pruned: 0,
                });
            }
        }
        let name = format!("{CHECKPOINTS}{}", next_name(&ours));
        let message = super::sealed::message(&self.top(), &name, &tree, head.as_deref())
            .map_err(|e| Error::io("sealing the checkpoint", e))?;
        let mut args = vec!["commit-tree", tree.as_str(), "-m", message.as_str()];
        if let Some(head) = &head {
            args.extend(["-p", head.as_str()]);
        }
        let env: Vec<(&str, &OsPath)> = IDENTITY
            .iter()
            .map(|(k, v)| (*k, std::ffi::OsStr::new(v)))
            .collect();
        let commit = self.run(&args, &env)?;
        let commit = String::from_utf8_lossy(&commit).trim().to_owned();
        // The empty old value: the ref must not exist yet.
        self.run(&["update-ref", &name, &commit, ""], &[])?;
        let pruned = self.prune()?;
        Ok(Checkpoint {
            name,
            made: true,
            pruned,
        })
    }

    /// Removes all checkpoints of this user's but the last [`KEPT`] (others are never
    /// touched); answers how many it removed.
    fn prune(&self) -> Result<usize> {
        let refs = self.checkpoints().ours;
        let old = refs.len().saturating_sub(KEPT);
        if old == 0 {
            return Ok(0);
        }
        let commands: String = refs[..old]
            .iter()
            .map(|r| format!("delete {r}\n"))
            .collect();
        let mut child = git(&self.root)
            .args(["update-ref", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| git_error("update-ref", &e.to_string()))?;
        let written = child
            .stdin
            .take()
            .expect("piped")
            .write_all(commands.as_bytes());
        let out = child
            .wait_with_output()
            .map_err(|e| git_error("update-ref", &e.to_string()))?;
        if !out.status.success() || written.is_err() {
            return Err(git_error(
                "update-ref --stdin",
                String::from_utf8_lossy(&out.stderr).trim(),
            ));
        }
        Ok(old)
    }

    /// Of `paths` (relative to the root), those git converts between the work tree and its
    /// objects (`core.autocrlf`, `core.eol`, and the `text`, `eol`, `filter`, `ident` and
    /// `working-tree-encoding` attributes; line endings only for a file that holds a carriage
    /// return): their diff is between converted forms, and the bytes on disk are not what it
    /// shows. Every path when git cannot say.
    pub fn converted(&self, paths: &[String]) -> std::collections::HashSet<String> {
        let config = |key: &str| {
            self.run(&["config", "--get", key], &[])
                .map(|v| String::from_utf8_lossy(&v).trim().to_ascii_lowercase())
                .unwrap_or_default()
        };
        let autocrlf = matches!(config("core.autocrlf").as_str(), "true" | "input");
        let crlf = config("core.eol") == "crlf";
        let mut child = match git(&self.root)
            .args(["check-attr", "-z", "--stdin"])
            .args([
                "text",
                "eol",
                "filter",
                "ident",
                "working-tree-encoding",
                "crlf",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(_) => return paths.iter().cloned().collect(),
        };
        let input: Vec<u8> = paths.iter().flat_map(|p| p.bytes().chain([0])).collect();
        let mut stdin = child.stdin.take().expect("piped");
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output();
        let written = writer.join().map(|w| w.is_ok()).unwrap_or(false);
        let Ok(out) = out.ok().filter(|o| o.status.success() && written).ok_or(()) else {
            return paths.iter().cloned().collect();
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<&str> = text.split('\0').collect();
        let mut converted = std::collections::HashSet::new();
        // A text file's line endings are converted (CRLF stored as LF) when its `text` is set
        // or `auto`, or unspecified under `core.autocrlf`/`core.eol`: that changes its bytes
        // only when it holds a carriage return. A file the agent deleted holds none: putting
        // back its stored form is what checking it out gives, unless checkout adds them.
        let holds_cr = |path: &str| match std::fs::read(self.root.join(path)) {
            Ok(bytes) => memchr::memchr(b'\r', &bytes).is_some(),
            Err(_) => autocrlf || crlf,
        };
        for triple in fields.chunks_exact(3) {
            let (path, attr, value) = (triple[0], triple[1], triple[2]);
            let set = !matches!(value, "unspecified" | "unset");
            let converts = match attr {
                "filter" | "ident" | "working-tree-encoding" | "crlf" | "eol" => set,
                "text" => match value {
                    "unset" => false,
                    "unspecified" => (autocrlf || crlf) && holds_cr(path),
                    _ => holds_cr(path),
                },
                _ => false,
            };
            if converts {
                converted.insert(path.to_owned());
            }
        }
        converted
    }

    /// The diff that takes the work tree's `tree` back to `base` (a commit), with paths
    /// relative to the workspace root and changes outside it left out: git's own unified
    /// diff, renames found, whatever the person's configuration says of diffs.
    pub fn diff_back(&self, tree: &str, base: &str) -> Result<Vec<u8>> {
        let base_tree = format!("{base}^{{tree}}");
        self.run(
            &[
                "-c",
                "core.quotePath=true",
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--find-renames",
                "--ignore-submodules=all",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                // Three lines of context whatever `diff.context` says: the hunks are changes
                // checked against the lines around them.
                "-U3",
                "--relative",
                tree,
                &base_tree,
            ],
            &[],
        )
    }
}

type OsPath = std::ffi::OsStr;

/// Copies git's index keeping its modification time: git trusts an entry's recorded size and
/// time only for files older than the index itself (an edit of the same size in the same
/// second as the index was written is "racily clean", and git looks at its content). A copy
/// stamped now would make every such edit look clean, and hide it.
fn copy_index(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::copy(from, to)?;
    let modified = std::fs::metadata(from)?.modified()?;
    std::fs::File::options()
        .write(true)
        .open(to)?
        .set_modified(modified)
}

/// The checkpoints under [`CHECKPOINTS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoints {
    /// This user's, made in this repository, oldest first.
    pub ours: Vec<String>,
    /// How many others there are (ignored).
    pub ignored: usize,
}

impl Checkpoints {
    /// What is said of the ignored ones, when there are any.
    pub fn warning(&self) -> Option<String> {
        (self.ignored > 0).then(|| {
            format!(
                "ignored {} ref(s) under {CHECKPOINTS} that are not checkpoints you made in this repository (they came with a clone or a copy of it, or another user made them): no review starts from them, and patchdeck never removes them",
                self.ignored
            )
        })
    }
}

/// A checkpoint made (or found to be the work tree already).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// Its ref.
    pub name: String,
    /// False when the latest checkpoint records the work tree as it is: none was made.
    pub made: bool,
    /// How many old checkpoints were removed.
    pub pruned: usize,
}

/// The next checkpoint's name after `ours` (this user's, oldest first): one past the last's
/// number, zero-padded so that names sort as they were made whatever the clock does, then
/// the time, for a person.
fn next_name(ours: &[String]) -> String {
    let last = ours
        .last()
        .and_then(|name| {
            name.strip_prefix(CHECKPOINTS)?
                .get(..12)?
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{:012}-{}", last + 1, now.as_secs())
}

/// Runs a git command, answering its standard output or an error with what git said.
fn output(mut command: Command, args: &[&str]) -> Result<Vec<u8>> {
    let what = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('='))
        .copied()
        .unwrap_or("git");
    let out = command
        .output()
        .map_err(|e| git_error(what, &format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(git_error(what, String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(out.stdout)
}

fn git_error(what: &str, said: &str) -> Error {
    Error::Usage {
        message: format!("git {what} failed: {said}"),
        hint: None,
    }
}
