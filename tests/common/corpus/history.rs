//! Reading a repository's history with git: the commits to sample, what each commit changed,
//! the blobs on either side and the hunks of a file's diff.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A repository read through `git --git-dir`, with no user or system configuration (a
/// person's `diff.noprefix` or `color.ui = always` must not change what the corpus holds).
pub struct History {
    git_dir: PathBuf,
}

/// What a commit did to one file, as `git diff --name-status` says it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Added,
    Modified,
    Deleted,
}

/// A hunk of `git diff -U<n>`: the line it starts at in the old file (for a pure insertion,
/// the line it comes after), its old side and its new side, context lines on both.
pub struct Hunk {
    pub old_start: usize,
    pub old: Vec<String>,
    pub new: Vec<String>,
}

impl History {
    pub fn new(git_dir: &Path) -> History {
        History {
            git_dir: git_dir.to_path_buf(),
        }
    }

    /// Runs git; its standard output, or git's own error.
    pub fn bytes(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        let out = Command::new("git")
            .arg("--git-dir")
            .arg(&self.git_dir)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .map_err(|e| format!("git could not run ({e}); the corpus needs git on PATH"))?;
        if !out.status.success() {
            return Err(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    }

    pub fn text(&self, args: &[&str]) -> Result<String, String> {
        String::from_utf8(self.bytes(args)?).map_err(|e| format!("git {}: {e}", args.join(" ")))
    }

    /// The commits reachable from HEAD, newest first, merges left out.
    pub fn commits(&self) -> Result<Vec<String>, String> {
        Ok(self
            .text(&["rev-list", "--no-merges", "HEAD"])?
            .split_whitespace()
            .map(str::to_owned)
            .collect())
    }

    /// The files `parent..commit` changed, with what happened to each; renames are reported as
    /// a deletion and an addition.
    pub fn changed(&self, parent: &str, commit: &str) -> Result<Vec<(Status, String)>, String> {
        let listing = self.text(&["diff", "--no-renames", "--name-status", parent, commit])?;
        let mut out = Vec::new();
        for row in listing.lines().filter(|l| !l.is_empty()) {
            let (status, path) = row
                .split_once('\t')
                .ok_or_else(|| format!("unexpected name-status row {row:?}"))?;
            let status = match status {
                "A" => Status::Added,
                "M" => Status::Modified,
                "D" => Status::Deleted,
                other => return Err(format!("{path}: status {other} is not A, M or D")),
            };
            out.push((status, path.to_owned()));
        }
        Ok(out)
    }

    /// Lines added plus lines removed, or `None` when a file is binary.
    pub fn lines_changed(&self, parent: &str, commit: &str) -> Result<Option<usize>, String> {
        let numstat = self.text(&["diff", "--no-renames", "--numstat", parent, commit])?;
        let mut total = 0;
        for row in numstat.lines().filter(|l| !l.is_empty()) {
            let mut fields = row.split('\t');
            let (Some(added), Some(removed)) = (fields.next(), fields.next()) else {
                return Err(format!("unexpected numstat row {row:?}"));
            };
            if added == "-" || removed == "-" {
                return Ok(None);
            }
            let count = |n: &str| n.parse::<usize>().map_err(|e| format!("{row:?}: {e}"));
            total += count(added)? + count(removed)?;
        }
        Ok(Some(total))
    }

    /// A file's bytes at a revision.
    pub fn blob(&self, rev: &str, path: &str) -> Result<Vec<u8>, String> {
        self.bytes(&["show", &format!("{rev}:{path}")])
    }

    /// The hunks of one file's diff with `context` lines of context.
    pub fn hunks(
        &self,
        parent: &str,
        commit: &str,
        path: &str,
        context: usize,
    ) -> Result<Vec<Hunk>, String> {
        let raw = self.text(&[
            "diff",
            &format!("-U{context}"),
            "--no-renames",
            parent,
            commit,
            "--",
            path,
        ])?;
        Ok(parse_hunks(&raw))
    }
}

/// The hunks of a one-file diff. Header lines come before the first `@@` and are skipped;
/// `\ No newline at end of file` belongs to neither side.
fn parse_hunks(raw: &str) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    for line in raw.split('\n') {
        if let Some(start) = hunk_start(line) {
            out.push(Hunk {
                old_start: start,
                old: Vec::new(),
                new: Vec::new(),
            });
            continue;
        }
        let (Some(hunk), Some(tag)) = (out.last_mut(), line.chars().next()) else {
            continue;
        };
        let body = &line[tag.len_utf8()..];
        match tag {
            ' ' => {
                hunk.old.push(body.to_owned());
                hunk.new.push(body.to_owned());
            }
            '-' => hunk.old.push(body.to_owned()),
            '+' => hunk.new.push(body.to_owned()),
            _ => {}
        }
    }
    out
}

/// The old start of an `@@ -a[,b] +c[,d] @@` line.
fn hunk_start(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("@@ -")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
