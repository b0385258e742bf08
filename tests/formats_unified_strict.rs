//! Diffs git apply refuses, refused by patchdeck too with the line and what was expected, and
//! nothing written: names on `---`/`+++` lines that are not the files a `diff --git` line
//! names, junk between two hunks, and sections that create or delete a file with no hunk
//! (or an empty one) and no `diff --git` line to say so.

use crate::common::formats::run_input;
use crate::common::{json_out, stderr, stdout, user_tree, workspace_with};
use crate::formats_unified::{git_apply, patchdeck_apply, same_as_git};

const TEN: &[u8] = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// The refusal's `location: message` lines, asserting exit 2 and an untouched workspace.
fn refused(files: &[(&str, &[u8])], patch: &str) -> Vec<String> {
    let (ws, out) = run_input(
        files,
        "check",
        &["--json", "--format", "unified"],
        patch.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let (code, after, output) = patchdeck_apply(files, patch.as_bytes(), &[]);
    assert_eq!(code, 2, "{output}");
    assert_eq!(after, without_modes(files));
    assert_eq!(
        user_tree(ws.path()),
        user_tree(workspace_with(files).path())
    );
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

fn without_modes(files: &[(&str, &[u8])]) -> crate::formats_unified::Tree {
    files
        .iter()
        .map(|(p, b)| (std::path::PathBuf::from(p), (b.to_vec(), 0)))
        .collect()
}

#[test]
fn a_plus_name_other_than_the_git_headers_is_refused() {
    let files: &[(&str, &[u8])] = &[("ok.txt", b"one\n")];
    let patch =
        "diff --git a/ok.txt b/ok.txt\n--- a/ok.txt\n+++ b/sub/escape\n@@ -1 +1 @@\n-one\n+two\n";
    let problems = refused(files, patch);
    assert!(
        problems[0].starts_with("line 3: inconsistent new filename")
            && problems[0].contains("\"ok.txt\"")
            && problems[0].contains("\"sub/escape\""),
        "{problems:?}"
    );
    // Where git itself calls the names inconsistent (a rename, a new file), both refuse.
    let renamed = "diff --git a/ok.txt b/new.txt\nrename from ok.txt\nrename to new.txt\n--- a/ok.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-one\n+two\n";
    assert!(git_apply(files, renamed.as_bytes(), &[]).is_none());
    assert!(refused(files, renamed)[0].starts_with("line 5: inconsistent new filename"));
    let created = "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/other.txt\n@@ -0,0 +1 @@\n+two\n";
    assert!(!same_as_git(files, created, &[]));
    // The names as the header gives them, quoted or not, still apply.
    let quoted = "diff --git \"a/ok.txt\" \"b/ok.txt\"\n--- \"a/ok.txt\"\n+++ b/ok.txt\n@@ -1 +1 @@\n-one\n+two\n";
    assert!(same_as_git(files, quoted, &[]));
}

#[test]
fn junk_between_two_hunks_is_refused_naming_the_line() {
    let files: &[(&str, &[u8])] = &[("a.txt", TEN)];
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\nthis is junk\n@@ -9,2 +9,2 @@\n 9\n-10\n+ten\n";
    assert!(!same_as_git(files, patch, &[]));
    let problems = refused(files, patch);
    assert!(
        problems[0].starts_with("line 8: hunk after junk: line 7 (\"this is junk\")"),
        "{problems:?}"
    );
    // A blank line there is junk to git as well.
    assert!(!same_as_git(files, &patch.replace("this is junk", ""), &[]));
    // Junk after the last hunk (a mail's signature) is not between hunks: both apply.
    let signed = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n-- \n2.47.0\n";
    assert!(same_as_git(files, signed, &[]));
}

#[test]
fn a_plain_creation_without_a_hunk_or_with_an_empty_one_is_refused() {
    let files: &[(&str, &[u8])] = &[("a.txt", TEN)];
    let no_hunk = "--- /dev/null\n+++ empty.txt\n";
    assert!(!same_as_git(files, no_hunk, &["-p0"]));
    let problems = refused(files, no_hunk);
    assert!(
        problems[0].starts_with("line 1: no hunk for empty.txt"),
        "{problems:?}"
    );
    let empty_hunk = "--- /dev/null\n+++ empty.txt\n@@ -0,0 +1,0 @@\n";
    assert!(!same_as_git(files, empty_hunk, &["-p0"]));
    let problems = refused(files, empty_hunk);
    assert!(
        problems[0].starts_with("line 3: empty hunk"),
        "{problems:?}"
    );
    // A git section says a new empty file in its header: both create it.
    let git_empty =
        "diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n";
    assert!(same_as_git(files, git_empty, &[]));
}
