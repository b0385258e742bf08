//! `apply --stage` then `undo` in a real git repository: the files and git's index both go back
//! to what they were, what the person had staged before included; an index entry the person
//! changed since is left and named; paths are names to git, never patterns.

use crate::common::{git, patchdeck_env, stderr, stdout};
use std::fs;
use std::path::Path;

/// A repository whose workspace is its `pkg/` folder, with one change already staged by the
/// person (`b.txt`), one left unstaged (`notes.md`) and an untracked file named `*.md`.
fn repository() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let ws = repo.path().join("pkg");
    fs::create_dir(&ws).unwrap();
    fs::write(ws.join("a.txt"), "one\ntwo\n").unwrap();
    fs::write(ws.join("b.txt"), "x\n").unwrap();
    fs::write(ws.join("notes.md"), "notes\n").unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    fs::write(ws.join("*.md"), "star\n").unwrap();
    fs::write(ws.join("b.txt"), "y\n").unwrap();
    git(repo.path(), &["add", "pkg/b.txt"]);
    fs::write(ws.join("notes.md"), "notes, edited\n").unwrap();
    repo
}

/// A git diff that edits `a.txt` and `b.txt`, creates `c.txt` and deletes the file named
/// `*.md`. Staging a deletion runs `git rm --cached` on a path that no longer exists and that
/// git never tracked: read as a pattern, it would take every `.md` file out of the index.
const DIFF: &str = "\
diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 one
-two
+TWO
diff --git a/b.txt b/b.txt
--- a/b.txt
+++ b/b.txt
@@ -1 +1 @@
-y
+z
diff --git a/c.txt b/c.txt
new file mode 100644
--- /dev/null
+++ b/c.txt
@@ -0,0 +1 @@
+new
diff --git a/*.md b/*.md
deleted file mode 100644
--- a/*.md
+++ /dev/null
@@ -1 +0,0 @@
-star
";

fn batch(dir: &Path) -> String {
    let path = dir.join("batch.diff");
    fs::write(&path, DIFF).unwrap();
    path.display().to_string()
}

/// Runs patchdeck with no user configuration.
fn run(home: &Path, args: &[&str]) -> std::process::Output {
    let home = home.to_str().unwrap();
    patchdeck_env(
        args,
        &[
            ("HOME", home),
            ("XDG_CONFIG_HOME", home),
            ("PATCHDECK_CONFIG", "none"),
        ],
    )
}

/// A repository, a folder for the batch, and the workspace root and batch path as arguments.
struct Case {
    repo: tempfile::TempDir,
    tools: tempfile::TempDir,
    root: String,
    batch: String,
}

fn case() -> Case {
    let repo = repository();
    let root = repo.path().join("pkg").display().to_string();
    let tools = tempfile::tempdir().unwrap();
    let batch = batch(tools.path());
    Case {
        repo,
        tools,
        root,
        batch,
    }
}

impl Case {
    /// `apply` (with `--stage` or not), which must succeed.
    fn apply(&self, stage: bool) {
        let mut args = vec!["apply", "--root", &self.root, &self.batch];
        if stage {
            args.insert(1, "--stage");
        }
        let out = run(self.tools.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    /// `undo` (with `--json` or not), which must succeed.
    fn undo(&self, json: bool) -> std::process::Output {
        let mut args = vec!["undo", "--root", &self.root];
        if json {
            args.insert(1, "--json");
        }
        let out = run(self.tools.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    }

    fn git(&self, args: &[&str]) -> String {
        git(self.repo.path(), args)
    }
}

#[test]
fn undo_after_apply_stage_puts_the_index_back_as_the_person_left_it() {
    let c = case();
    let index_before = c.git(&["ls-files", "--stage"]);
    let status_before = c.git(&["status", "--porcelain"]);

    c.apply(true);
    let staged = c.git(&["diff", "--cached", "--name-only"]);
    let staged: Vec<&str> = staged.lines().collect();
    assert_eq!(
        staged,
        ["pkg/a.txt", "pkg/b.txt", "pkg/c.txt"],
        "only the files written are staged: `*.md` is a name, not a pattern matching notes.md"
    );
    assert!(
        c.git(&["ls-files", "pkg/notes.md"]).contains("notes.md"),
        "notes.md is still tracked"
    );

    let out = c.undo(false);
    let said = stdout(&out);
    for path in ["a.txt", "b.txt", "c.txt"] {
        assert!(said.contains(&format!("unstaged {path}\n")), "{said}");
    }
    assert_eq!(c.git(&["ls-files", "--stage"]), index_before);
    assert_eq!(c.git(&["status", "--porcelain"]), status_before);
    assert_eq!(
        c.git(&["diff", "--cached", "--name-only"]),
        "pkg/b.txt\n",
        "what the person had staged is staged again"
    );
}

#[test]
fn an_index_entry_changed_since_apply_stage_is_left_and_named() {
    let c = case();
    c.apply(true);
    // The person takes the new file out of the index; the work tree is unchanged, so undo
    // may go ahead, but that index entry is theirs now.
    c.git(&["rm", "--cached", "-q", "pkg/c.txt"]);

    let out = c.undo(true);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        report["index"]["restored"],
        serde_json::json!(["a.txt", "b.txt"])
    );
    assert_eq!(report["index"]["left"][0]["path"], "c.txt");
    let reason = "its index entry changed since apply --stage";
    assert_eq!(report["index"]["left"][0]["reason"], reason);
    assert!(
        stderr(&out).contains(&format!(
            "the index entry of c.txt is left as it is: {reason}"
        )),
        "{}",
        stderr(&out)
    );
    assert!(!c.repo.path().join("pkg/c.txt").exists());
    assert_eq!(c.git(&["diff", "--cached", "--name-only"]), "pkg/b.txt\n");
}

#[test]
fn undo_of_an_apply_without_stage_leaves_the_index_alone() {
    let c = case();
    c.apply(false);
    c.git(&["add", "pkg/a.txt"]);
    let out = c.undo(false);
    assert!(!stdout(&out).contains("unstaged"), "{}", stdout(&out));
    // The person's own `git add` of the batch's content stays: patchdeck did not stage it.
    let staged = c.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "pkg/a.txt\npkg/b.txt\n");
}

#[test]
fn a_commit_made_after_apply_stage_leaves_the_index_to_the_person() {
    let c = case();
    c.apply(true);
    c.git(&["commit", "-qm", "the batch"]);
    let index_after_commit = c.git(&["ls-files", "--stage"]);
    let out = c.undo(false);
    assert!(
        stderr(&out)
            .contains("the index entry of a.txt is left as it is: HEAD moved since apply --stage"),
        "{}",
        stderr(&out)
    );
    // Restoring would have staged a revert of the commit: the index is as the commit left it.
    assert_eq!(c.git(&["ls-files", "--stage"]), index_after_commit);
}

#[test]
fn an_intent_to_add_entry_is_named_not_turned_into_a_staged_empty_file() {
    let c = case();
    fs::write(c.repo.path().join("pkg/c.txt"), "").unwrap();
    c.git(&["add", "-N", "pkg/c.txt"]);
    // c.txt exists (empty) now: the batch edits it instead of creating it.
    let diff = DIFF.replace(
        "new file mode 100644\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@",
        "--- a/c.txt\n+++ b/c.txt\n@@ -0,0 +1 @@",
    );
    fs::write(&c.batch, diff).unwrap();
    c.apply(true);
    let out = c.undo(false);
    assert!(
        stderr(&out)
            .contains("the index entry of c.txt is left as it is: it was added with git add -N"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("unstaged a.txt\n"),
        "{}",
        stdout(&out)
    );
}
