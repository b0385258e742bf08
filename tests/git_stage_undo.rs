//! `apply --stage` then `undo` in a real git repository: the files and git's index both go back
//! to what they were, what the person had staged before included; an index entry the person
//! changed since is left and named; paths are names to git, never patterns.

mod common;

use common::{git, patchdeck_env, stderr, stdout};
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

#[test]
fn undo_after_apply_stage_puts_the_index_back_as_the_person_left_it() {
    let repo = repository();
    let root = repo.path().join("pkg");
    let root = root.to_str().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let batch = batch(tools.path());
    let index_before = git(repo.path(), &["ls-files", "--stage"]);
    let status_before = git(repo.path(), &["status", "--porcelain"]);

    let out = run(tools.path(), &["apply", "--stage", "--root", root, &batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    let staged: Vec<&str> = staged.lines().collect();
    assert_eq!(
        staged,
        ["pkg/a.txt", "pkg/b.txt", "pkg/c.txt"],
        "only the files written are staged: `*.md` is a name, not a pattern matching notes.md"
    );
    assert!(
        git(repo.path(), &["ls-files", "pkg/notes.md"]).contains("notes.md"),
        "notes.md is still tracked"
    );

    let out = run(tools.path(), &["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    for path in ["a.txt", "b.txt", "c.txt"] {
        assert!(said.contains(&format!("unstaged {path}\n")), "{said}");
    }
    assert_eq!(git(repo.path(), &["ls-files", "--stage"]), index_before);
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), status_before);
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "pkg/b.txt\n",
        "what the person had staged is staged again"
    );
}

#[test]
fn an_index_entry_changed_since_apply_stage_is_left_and_named() {
    let repo = repository();
    let root = repo.path().join("pkg");
    let root = root.to_str().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let batch = batch(tools.path());
    let out = run(tools.path(), &["apply", "--stage", "--root", root, &batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The person takes the new file out of the index; the work tree is unchanged, so undo
    // may go ahead, but that index entry is theirs now.
    git(repo.path(), &["rm", "--cached", "-q", "pkg/c.txt"]);

    let out = run(tools.path(), &["undo", "--json", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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
    assert!(!repo.path().join("pkg/c.txt").exists());
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "pkg/b.txt\n"
    );
}

#[test]
fn undo_of_an_apply_without_stage_leaves_the_index_alone() {
    let repo = repository();
    let root = repo.path().join("pkg");
    let root = root.to_str().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let batch = batch(tools.path());
    let out = run(tools.path(), &["apply", "--root", root, &batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(repo.path(), &["add", "pkg/a.txt"]);
    let out = run(tools.path(), &["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("unstaged"), "{}", stdout(&out));
    // The person's own `git add` of the batch's content stays: patchdeck did not stage it.
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "pkg/a.txt\npkg/b.txt\n");
}

#[test]
fn a_commit_made_after_apply_stage_leaves_the_index_to_the_person() {
    let repo = repository();
    let root = repo.path().join("pkg");
    let root = root.to_str().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let batch = batch(tools.path());
    let out = run(tools.path(), &["apply", "--stage", "--root", root, &batch]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(repo.path(), &["commit", "-qm", "the batch"]);
    let index_after_commit = git(repo.path(), &["ls-files", "--stage"]);
    let out = run(tools.path(), &["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("the index entry of a.txt is left as it is: HEAD moved since apply --stage"),
        "{}",
        stderr(&out)
    );
    // Restoring would have staged a revert of the commit: the index is as the commit left it.
    assert_eq!(
        git(repo.path(), &["ls-files", "--stage"]),
        index_after_commit
    );
}

#[test]
fn an_intent_to_add_entry_is_named_not_turned_into_a_staged_empty_file() {
    let repo = repository();
    let ws = repo.path().join("pkg");
    fs::write(ws.join("c.txt"), "").unwrap();
    git(repo.path(), &["add", "-N", "pkg/c.txt"]);
    let root = ws.to_str().unwrap();
    let tools = tempfile::tempdir().unwrap();
    // c.txt exists (empty) now: the batch edits it instead of creating it.
    let diff = DIFF.replace(
        "new file mode 100644\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@",
        "--- a/c.txt\n+++ b/c.txt\n@@ -0,0 +1 @@",
    );
    let batch = tools.path().join("batch.diff");
    fs::write(&batch, diff).unwrap();
    let out = run(
        tools.path(),
        &["apply", "--stage", "--root", root, batch.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(tools.path(), &["undo", "--root", root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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
