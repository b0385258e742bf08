//! Unified diffs and git patches, held against real `git apply` on the same inputs: where git
//! applies a patch, patchdeck writes the same bytes; where git refuses it, patchdeck writes
//! nothing and reports a conflict (or an invalid input).

use crate::common::{
    json_out, patchdeck, sample_workspace, samples, stderr, stdout, user_tree, workspace_with,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) type Tree = BTreeMap<PathBuf, (Vec<u8>, u32)>;

/// Runs `git apply` (outside any repository) in a copy of `files`; the tree after, or `None`
/// when git refused.
pub(crate) fn git_apply(files: &[(&str, &[u8])], patch: &[u8], args: &[&str]) -> Option<Tree> {
    use std::io::Write;
    let ws = workspace_with(files);
    let mut child = Command::new("git")
        .arg("apply")
        .args(args)
        .arg("-")
        .current_dir(ws.path())
        .env("GIT_CEILING_DIRECTORIES", ws.path().parent().unwrap())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(patch).unwrap();
    let ok = child.wait_with_output().unwrap().status.success();
    ok.then(|| without_modes(user_tree(ws.path())))
}

/// Runs `patchdeck apply` on a copy of `files`: its exit status and the tree after.
pub(crate) fn patchdeck_apply(
    files: &[(&str, &[u8])],
    patch: &[u8],
    args: &[&str],
) -> (i32, Tree, String) {
    let ws = workspace_with(files);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.patch");
    std::fs::write(&input, patch).unwrap();
    let mut all = vec![
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        "--format",
        "unified",
    ];
    all.extend_from_slice(args);
    all.push(input.to_str().unwrap());
    let out = patchdeck(&all);
    (
        out.status.code().unwrap(),
        without_modes(user_tree(ws.path())),
        format!("{}{}", stdout(&out), stderr(&out)),
    )
}

/// Permission bits differ by umask and are not what these tests compare.
fn without_modes(tree: Tree) -> Tree {
    tree.into_iter().map(|(k, (b, _))| (k, (b, 0))).collect()
}

/// Asserts that patchdeck and git agree: both apply with the same bytes, or both refuse and
/// patchdeck leaves the files as they were. Returns whether they applied.
pub(crate) fn same_as_git(files: &[(&str, &[u8])], patch: &str, args: &[&str]) -> bool {
    let by_git = git_apply(files, patch.as_bytes(), args);
    let (code, ours, output) = patchdeck_apply(files, patch.as_bytes(), args);
    match by_git {
        Some(expected) => {
            assert_eq!(code, 0, "git applied it, patchdeck did not:\n{output}");
            assert_eq!(ours, expected, "different bytes from git apply:\n{output}");
            true
        }
        None => {
            assert_ne!(code, 0, "git refused it, patchdeck applied it:\n{output}");
            let before = without_modes(user_tree(workspace_with(files).path()));
            assert_eq!(
                ours, before,
                "patchdeck wrote something although it refused"
            );
            false
        }
    }
}

/// A git diff between two versions of some files, made by git itself.
pub(crate) fn git_diff(old: &[(&str, &[u8])], new: &[(&str, &[u8])], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    git(&["init", "-q"]);
    git(&["config", "core.autocrlf", "false"]);
    git(&["config", "core.quotepath", "true"]);
    for (path, bytes) in old {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    git(&["add", "-A"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "old",
        "--allow-empty",
    ]);
    for (path, _) in old {
        let _ = std::fs::remove_file(dir.path().join(path));
    }
    for (path, bytes) in new {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    git(&["add", "-A"]);
    let mut args = vec!["diff", "--cached", "-M"];
    args.extend_from_slice(extra);
    String::from_utf8(git(&args)).unwrap()
}

const APP: &[u8] = b"import os\n\ndef one():\n    return 1\n\ndef two():\n    return 2\n\ndef three():\n    return 3\n";

#[test]
fn a_two_hunk_modification_gives_git_apply_bytes() {
    let new = b"import os\nimport sys\n\ndef one():\n    return 1\n\ndef two():\n    return 2\n\ndef three():\n    return 33\n";
    let patch = git_diff(&[("app.py", APP)], &[("app.py", new)], &["-U1"]);
    assert_eq!(patch.matches("@@ -").count(), 2, "{patch}");
    assert!(same_as_git(&[("app.py", APP)], &patch, &[]));
}

#[test]
fn a_hunk_whose_context_moved_applies_at_the_offset_as_git_does_and_says_so() {
    let new = b"import os\n\ndef one():\n    return 1\n\ndef two():\n    return 22\n\ndef three():\n    return 3\n";
    let patch = git_diff(&[("app.py", APP)], &[("app.py", new)], &[]);
    let mut moved = b"# header\n# more\n".to_vec();
    moved.extend_from_slice(APP);
    assert!(same_as_git(&[("app.py", &moved)], &patch, &[]));
    // The offset is reported, and the change is marked as not placed where it said.
    let ws = workspace_with(&[("app.py", &moved)]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.diff");
    std::fs::write(&input, &patch).unwrap();
    let report = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        ws.path().to_str().unwrap(),
        input.to_str().unwrap(),
    ]));
    assert_eq!(report["format"], "unified");
    let change = &report["files"][0]["changes"][0];
    assert_eq!(change["match"], "offset");
    assert_eq!(change["problems"][0]["kind"], "offset");
    assert!(
        change["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("+2 lines"),
        "{change}"
    );
}

#[test]
fn context_that_is_not_in_the_file_fails_like_git_apply() {
    let new = b"import os\n\ndef one():\n    return 11\n\ndef two():\n    return 2\n\ndef three():\n    return 3\n";
    let patch = git_diff(&[("app.py", APP)], &[("app.py", new)], &[]);
    let edited = String::from_utf8(APP.to_vec())
        .unwrap()
        .replace("def one():", "def uno():");
    assert!(!same_as_git(&[("app.py", edited.as_bytes())], &patch, &[]));
    let (code, _, output) =
        patchdeck_apply(&[("app.py", edited.as_bytes())], patch.as_bytes(), &[]);
    assert_eq!(code, 1, "a conflict, not an invalid input: {output}");
    assert!(output.contains("not_found"), "{output}");
}

#[test]
fn new_deleted_and_renamed_files_match_git() {
    let old: &[(&str, &[u8])] = &[
        ("gone.txt", b"bye\n"),
        ("old/name.txt", b"a\nb\nc\nd\ne\nf\n"),
        ("keep.txt", b"k\n"),
    ];
    let new: &[(&str, &[u8])] = &[
        ("fresh/new.txt", b"hello\n"),
        ("new/name.txt", b"a\nb\nc\nd\ne\nF\n"),
        ("keep.txt", b"k\n"),
    ];
    let patch = git_diff(old, new, &[]);
    assert!(patch.contains("rename from old/name.txt"), "{patch}");
    assert!(
        patch.contains("new file mode") && patch.contains("deleted file mode"),
        "{patch}"
    );
    assert!(same_as_git(old, &patch, &[]));
}

#[test]
fn a_pure_rename_moves_the_file() {
    let old: &[(&str, &[u8])] = &[("a.txt", b"same\ncontent\n")];
    let new: &[(&str, &[u8])] = &[("b.txt", b"same\ncontent\n")];
    let patch = git_diff(old, new, &[]);
    assert!(patch.contains("similarity index 100%"), "{patch}");
    assert!(same_as_git(old, &patch, &[]));
}

#[test]
fn creating_a_file_that_exists_fails_like_git() {
    let patch = git_diff(&[], &[("x.txt", b"new\n")], &[]);
    assert!(!same_as_git(&[("x.txt", b"already here\n")], &patch, &[]));
}

#[test]
fn final_newline_gained_and_lost_match_git() {
    for (old, new) in [
        (&b"a\nb"[..], &b"a\nb\n"[..]),
        (b"a\nb\n", b"a\nb"),
        (b"a\nb", b"a\nc"),
        (b"a\nb", b"a\nb\nc"),
        (b"x\n", b""),
    ] {
        let patch = git_diff(&[("f.txt", old)], &[("f.txt", new)], &[]);
        assert!(same_as_git(&[("f.txt", old)], &patch, &[]), "{patch}");
    }
}

#[test]
fn crlf_content_applies_to_a_crlf_file_and_an_lf_patch_does_not_as_with_git() {
    let old = b"one\r\ntwo\r\nthree\r\n";
    let new = b"one\r\nTWO\r\nthree\r\n";
    let patch = git_diff(&[("w.bat", old)], &[("w.bat", new)], &[]);
    assert!(patch.contains("-two\r\n"), "{patch:?}");
    assert!(same_as_git(&[("w.bat", old)], &patch, &[]));
    // The same change written with LF lines: git compares endings too.
    let lf_patch = patch.replace("\r\n", "\n");
    assert!(!same_as_git(&[("w.bat", old)], &lf_patch, &[]));
}

#[test]
fn quoted_paths_with_escapes_and_paths_with_spaces_match_git() {
    // (A tab in a name is C-escaped too, but patchdeck refuses control characters in paths.)
    let old: &[(&str, &[u8])] = &[
        ("sp ace.txt", b"a\n"),
        ("say \"hi\".txt", b"x\n"),
        ("caf\u{e9}.txt", b"c\n"),
    ];
    let new: &[(&str, &[u8])] = &[
        ("sp ace.txt", b"b\n"),
        ("say \"hi\".txt", b"y\n"),
        ("caf\u{e9}.txt", b"C\n"),
    ];
    let patch = git_diff(old, new, &[]);
    assert!(
        patch.contains("\"a/say \\\"hi\\\".txt\"") && patch.contains("\\303\\251"),
        "{patch}"
    );
    assert!(same_as_git(old, &patch, &[]));
}

#[test]
fn strip_option_follows_git_apply_p() {
    let patch = "--- x/y/f.txt\n+++ x/y/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let files: &[(&str, &[u8])] = &[("y/f.txt", b"a\n"), ("f.txt", b"a\n")];
    assert!(same_as_git(files, patch, &[]));
    assert!(same_as_git(files, patch, &["-p2"]));
}

#[test]
fn zero_context_hunks_in_the_middle_fail_as_in_git() {
    let new = b"import os\n\ndef one():\n    return 111\n\ndef two():\n    return 2\n\ndef three():\n    return 3\n";
    let patch = git_diff(&[("app.py", APP)], &[("app.py", new)], &["-U0"]);
    assert!(!same_as_git(&[("app.py", APP)], &patch, &[]));
}

#[test]
fn junk_between_files_and_mail_headers_are_ignored() {
    let mbox = std::fs::read_to_string(samples().join("unified-mbox.patch")).unwrap();
    let ws = sample_workspace();
    let files: Vec<(String, Vec<u8>)> = user_tree(ws.path())
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().ends_with('/'))
        .map(|(p, (b, _))| (p.to_string_lossy().into_owned(), b))
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    assert!(mbox.contains("\n-- \n"), "the sample has a signature");
    assert!(same_as_git(&borrowed, &mbox, &[]));
    let mut junk = String::from("Here is my patch.\n\n");
    junk.push_str(
        &std::fs::read_to_string(samples().join("unified-clean.patch"))
            .unwrap()
            .replace(
                "diff --git a/notes.txt",
                "Some words in between.\ndiff --git a/notes.txt",
            ),
    );
    junk.push_str("\nThanks!\n");
    assert!(same_as_git(&borrowed, &junk, &[]));
}

#[test]
fn the_clean_sample_applies_as_git_does_and_the_conflicting_one_does_not() {
    let ws = sample_workspace();
    let files: Vec<(String, Vec<u8>)> = user_tree(ws.path())
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().ends_with('/'))
        .map(|(p, (b, _))| (p.to_string_lossy().into_owned(), b))
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let clean = std::fs::read_to_string(samples().join("unified-clean.patch")).unwrap();
    assert!(same_as_git(&borrowed, &clean, &[]));
    let conflicting = std::fs::read_to_string(samples().join("unified-conflicting.patch")).unwrap();
    assert!(!same_as_git(&borrowed, &conflicting, &[]));
}

#[test]
fn detection_picks_unified_and_descriptions_come_from_hunk_headers() {
    let ws = sample_workspace();
    let report = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        ws.path().to_str().unwrap(),
        samples().join("unified-clean.patch").to_str().unwrap(),
    ]));
    assert_eq!(report["format"], "unified");
    assert_eq!(report["summary"]["conflicts"], 0, "{report}");
    let utils = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "src/Utils.py")
        .unwrap();
    assert_eq!(utils["changes"][0]["description"], "def load_config(path):");
    let created = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "docs/changelog.md")
        .unwrap();
    assert_eq!(created["action"], "create");
}

#[test]
fn malformed_diffs_are_refused_with_the_line() {
    let ws = sample_workspace();
    let out = patchdeck(&[
        "check",
        "--root",
        ws.path().to_str().unwrap(),
        samples().join("unified-malformed.patch").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("line 3: hunk @@ -1,3 +1,3 @@ ends early"),
        "{err}"
    );
}

#[test]
fn binary_patches_are_refused_clearly() {
    let patch = "diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\nBinary files a/logo.png and b/logo.png differ\n";
    let (code, _, output) = patchdeck_apply(&[("logo.png", b"\x89PNG")], patch.as_bytes(), &[]);
    assert_eq!(code, 2);
    assert!(
        output.contains("binary patch") && output.contains("line 3"),
        "{output}"
    );
}

#[test]
fn a_hunk_whose_context_occurs_twice_elsewhere_is_ambiguous_not_guessed() {
    let file = b"x\nsame\nctx\nend\nx\nsame\nctx\nend\n";
    let patch = "--- a/f\n+++ b/f\n@@ -20,3 +20,3 @@\n same\n-ctx\n+CTX\n end\n";
    let (code, tree, output) = patchdeck_apply(&[("f", file)], patch.as_bytes(), &[]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("ambiguous") && output.contains("lines 2, 6"),
        "{output}"
    );
    assert_eq!(tree[Path::new("f")].0, file.to_vec());
}

#[test]
fn a_rename_is_a_creation_from_the_old_content_plus_a_deletion_each_decided_alone() {
    let old: &[(&str, &[u8])] = &[("old.txt", b"1\n2\n3\n4\n5\n6\n7\n")];
    let new: &[(&str, &[u8])] = &[("new.txt", b"1\n2\n3\n4\n5\n6\nseven\n")];
    let patch = git_diff(old, new, &[]);
    assert!(patch.contains("rename from old.txt"), "{patch}");
    let ws = workspace_with(old);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("r.diff");
    std::fs::write(&input, &patch).unwrap();
    let root = ws.path().to_str().unwrap();
    let report = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        root,
        input.to_str().unwrap(),
    ]));
    assert_eq!(report["files"][0]["action"], "create");
    assert_eq!(report["files"][0]["label"], "renamed from old.txt");
    assert_eq!(report["files"][1]["action"], "delete");
    // Rejecting the deletion keeps the old file: the rename became a copy with the edit.
    let out = patchdeck(&[
        "apply",
        "--root",
        root,
        "--reject",
        "old.txt",
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(ws.path().join("old.txt")).unwrap(),
        b"1\n2\n3\n4\n5\n6\n7\n"
    );
    assert_eq!(
        std::fs::read(ws.path().join("new.txt")).unwrap(),
        b"1\n2\n3\n4\n5\n6\nseven\n"
    );
    // A rename onto an existing file is a conflict, as in git.
    let taken = workspace_with(&[
        ("old.txt", b"1\n2\n3\n4\n5\n6\n7\n"),
        ("new.txt", b"mine\n"),
    ]);
    let out = patchdeck(&[
        "apply",
        "--root",
        taken.path().to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("file_exists"), "{}", stdout(&out));
}

#[test]
fn a_hunk_at_the_top_of_a_file_with_a_byte_order_mark_applies_as_in_git() {
    let old: &[u8] = b"\xEF\xBB\xBFfirst\nsecond\nthird\n";
    let new: &[u8] = b"\xEF\xBB\xBFFIRST\nsecond\nthird\n";
    let patch = git_diff(&[("bom.txt", old)], &[("bom.txt", new)], &[]);
    assert!(same_as_git(&[("bom.txt", old)], &patch, &[]));
}

#[test]
fn a_diff_of_a_readme_holding_a_diff_example_is_detected_and_applied_as_git_does() {
    let old: &[u8] = b"# Tool\n\nAn example patch:\n\n```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\n\nA patch cannot be safely generated with the information provided.\n\nThe end.\n";
    let new = String::from_utf8(old.to_vec())
        .unwrap()
        .replace("The end.", "The very end.");
    let patch = git_diff(
        &[("README.md", old)],
        &[("README.md", new.as_bytes())],
        &["-U20"],
    );
    assert!(patch.contains(" ```diff\n"), "{patch}");
    // Detected, not forced: the fence and the refusal sentence are context lines.
    let ws = workspace_with(&[("README.md", old)]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("readme.diff");
    std::fs::write(&input, &patch).unwrap();
    let root = ws.path().to_str().unwrap();
    let out = patchdeck(&["apply", "--root", root, input.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let expected = git_apply(&[("README.md", old)], patch.as_bytes(), &[]).unwrap();
    assert_eq!(without_modes(user_tree(ws.path())), expected);
    assert!(!ws.path().join("x").exists());
}

#[test]
fn a_merges_combined_diff_is_refused_with_what_to_do_instead() {
    let combined = "commit 1\nMerge: a b\n\n    Merge\n\ndiff --cc Cargo.lock\nindex 1111111,2222222..3333333\n--- a/Cargo.lock\n+++ b/Cargo.lock\n@@@ -1,2 -1,2 +1,3 @@@\n  a\n+ b\n  c\n";
    let (code, _, output) = patchdeck_apply(&[("Cargo.lock", b"a\nc\n")], combined.as_bytes(), &[]);
    assert_eq!(code, 2, "{output}");
    assert!(
        output.contains("line 6: a combined diff of a merge commit")
            && output.contains("--first-parent"),
        "{output}"
    );
    assert!(git_apply(&[("Cargo.lock", b"a\nc\n")], combined.as_bytes(), &[]).is_none());
}

/// One commit of a series: files written (or, with `None`, removed).
type Step<'a> = &'a [(&'a str, Option<&'a [u8]>)];

/// `git format-patch --stdout` of a series of commits over `base`, one commit per step, one
/// mail per commit.
fn git_series(base: &[(&str, &[u8])], steps: &[Step]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        out.stdout
    };
    git(&["init", "-q"]);
    git(&["config", "core.autocrlf", "false"]);
    let write = |path: &str, bytes: Option<&[u8]>| {
        let full = dir.path().join(path);
        match bytes {
            Some(bytes) => {
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(full, bytes).unwrap();
            }
            None => std::fs::remove_file(full).unwrap(),
        }
    };
    for (path, bytes) in base {
        write(path, Some(bytes));
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "base", "--allow-empty"]);
    for (n, step) in steps.iter().enumerate() {
        for (path, bytes) in step.iter() {
            write(path, *bytes);
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", &format!("step {}", n + 1)]);
    }
    let range = format!("HEAD~{}", steps.len());
    String::from_utf8(git(&["format-patch", "-M", "--stdout", &range])).unwrap()
}

const LONG: &[u8] = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
#[test]
fn two_mails_changing_one_file_apply_in_order_as_git_does() {
    let base: String = (1..=40).map(|n| format!("{n}\n")).collect();
    // The first mail changes lines 2 and 20; the second changes what the first wrote at 20,
    // and line 32.
    let one = base
        .replace("\n2\n", "\ntwo\n")
        .replace("\n20\n", "\ntwenty\n");
    let two = one
        .replace("twenty", "TWENTY")
        .replace("\n32\n", "\nthirty-two\n");
    let mbox = git_series(
        &[("f.txt", base.as_bytes())],
        &[
            &[("f.txt", Some(one.as_bytes()))],
            &[("f.txt", Some(two.as_bytes()))],
        ],
    );
    assert_eq!(mbox.matches("diff --git a/f.txt").count(), 2, "{mbox}");
    assert!(same_as_git(&[("f.txt", base.as_bytes())], &mbox, &[]));
    // One file patch. Each change shows what it does to the file on disk: the changes at 2 and
    // 32 stay their own, the two at 20 are one.
    let ws = workspace_with(&[("f.txt", base.as_bytes())]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("series.mbox");
    std::fs::write(&input, &mbox).unwrap();
    let report = json_out(&patchdeck(&[
        "check",
        "--json",
        "--root",
        ws.path().to_str().unwrap(),
        input.to_str().unwrap(),
    ]));
    assert_eq!(report["files"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["summary"]["conflicts"], 0, "{report}");
    let ranges: Vec<(u64, u64)> = report["files"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["startLine"].as_u64().unwrap(),
                c["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ranges, vec![(1, 5), (17, 23), (29, 35)], "{report}");
    // Rejecting the merged change applies the other two.
    let merged = report["files"][0]["changes"][1]["id"].as_str().unwrap();
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        "--reject",
        merged,
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("f.txt")).unwrap(),
        base.replace("\n2\n", "\ntwo\n")
            .replace("\n32\n", "\nthirty-two\n")
    );
}

#[test]
fn a_series_that_creates_renames_deletes_and_edits_again_applies_as_git_does() {
    let base: &[(&str, &[u8])] = &[("a.txt", LONG), ("gone.txt", b"x\ny\n")];
    let edited = String::from_utf8(LONG.to_vec())
        .unwrap()
        .replace("\n3\n", "\nthree\n");
    let mbox = git_series(
        base,
        &[
            // Create a file, edit another and one that is deleted next.
            &[
                ("new.txt", Some(b"n1\nn2\n")),
                ("a.txt", Some(edited.as_bytes())),
                ("gone.txt", Some(b"x\ny\nz\n")),
            ],
            // Edit the created file, rename the edited one, delete the other.
            &[
                ("new.txt", Some(b"n1\nN2\nn3\n")),
                ("a.txt", None),
                ("b.txt", Some(edited.as_bytes())),
                ("gone.txt", None),
            ],
            // Edit the renamed file.
            &[(
                "b.txt",
                Some(edited.replace("19\n", "nineteen\n").as_bytes()),
            )],
        ],
    );
    assert!(mbox.contains("rename from a.txt"), "{mbox}");
    // git apply of the whole mbox mishandles this (it renames the unedited a.txt and deletes
    // neither a.txt nor gone.txt); applying the mails one after the other, as git am does, is
    // the reference.
    let mut expected = None;
    let ws = workspace_with(base);
    for mail in mbox.split("\nFrom ").filter(|m| m.contains("diff --git")) {
        use std::io::Write;
        let mut child = Command::new("git")
            .args(["apply", "-"])
            .current_dir(ws.path())
            .env("GIT_CEILING_DIRECTORIES", ws.path().parent().unwrap())
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(mail.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "{mail}");
        expected = Some(without_modes(user_tree(ws.path())));
    }
    let (code, ours, output) = patchdeck_apply(base, mbox.as_bytes(), &[]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(Some(ours), expected, "{output}");
}

#[test]
fn a_second_mail_whose_context_is_not_there_fails_as_in_git() {
    let one = String::from_utf8(LONG.to_vec())
        .unwrap()
        .replace("10\n", "ten\n");
    let two = one.replace("ten\n", "TEN\n");
    let mbox = git_series(
        &[("f.txt", LONG)],
        &[
            &[("f.txt", Some(one.as_bytes()))],
            &[("f.txt", Some(two.as_bytes()))],
        ],
    );
    // The first mail's context is not in the file, so the second mail cannot follow it.
    let moved = String::from_utf8(LONG.to_vec())
        .unwrap()
        .replace("9\n", "nine\n");
    assert!(!same_as_git(&[("f.txt", moved.as_bytes())], &mbox, &[]));
    let (_, _, output) = patchdeck_apply(&[("f.txt", moved.as_bytes())], mbox.as_bytes(), &[]);
    assert!(
        output.contains("not_found")
            && output.contains("earlier_failed: ")
            && output.contains("change 1 of the earlier section cannot be placed"),
        "{output}"
    );
}

#[test]
fn paths_that_differ_only_in_case_or_normalisation_are_one_file_and_block() {
    let nfc = "caf\u{e9}.txt";
    let nfd = "cafe\u{301}.txt";
    for (a, b) in [(nfc, nfd), ("Read.txt", "read.txt")] {
        let patch = format!(
            "--- /dev/null\n+++ b/{a}\n@@ -0,0 +1 @@\n+one\n--- /dev/null\n+++ b/{b}\n@@ -0,0 +1 @@\n+two\n"
        );
        let (code, tree, output) = patchdeck_apply(&[], patch.as_bytes(), &[]);
        assert_eq!(code, 1, "{output}");
        assert!(tree.is_empty(), "{tree:?}");
        assert!(
            output.contains("same_file_twice")
                && output.contains("differ only in case or Unicode normalisation"),
            "{output}"
        );
    }
}

#[test]
fn a_case_only_rename_renames_the_file_as_git_does() {
    let text = "# Tool\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    let edited = text.replace("four", "FOUR");
    let old: &[(&str, &[u8])] = &[("docs/Readme.md", text.as_bytes())];
    for new in [
        &[("docs/README.md", text.as_bytes())][..],
        &[("docs/README.md", edited.as_bytes())][..],
    ] {
        let patch = git_diff(old, new, &[]);
        assert!(patch.contains("rename to docs/README.md"), "{patch}");
        assert!(same_as_git(old, &patch, &[]));
    }
}

#[test]
fn strip_applies_one_component_less_to_rename_and_copy_names_as_git_does() {
    let patch = "diff --git a/x/f.txt b/x/g.txt\nsimilarity index 80%\nrename from x/f.txt\nrename to x/g.txt\n--- a/x/f.txt\n+++ b/x/g.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
    let files: &[(&str, &[u8])] = &[("f.txt", b"one\ntwo\n")];
    assert!(same_as_git(files, patch, &["-p2"]));
    let copy = patch
        .replace("rename from", "copy from")
        .replace("rename to", "copy to");
    assert!(same_as_git(files, &copy, &["-p2"]));
}

#[test]
fn a_tab_in_a_quoted_path_is_refused_saying_why_and_that_git_would_apply_it() {
    let files: &[(&str, &[u8])] = &[("t\tb.txt", b"x\n")];
    let patch = "diff --git \"a/t\\tb.txt\" \"b/t\\tb.txt\"\n--- \"a/t\\tb.txt\"\n+++ \"b/t\\tb.txt\"\n@@ -1 +1 @@\n-x\n+y\n";
    assert!(git_apply(files, patch.as_bytes(), &[]).is_some());
    let (code, tree, output) = patchdeck_apply(files, patch.as_bytes(), &[]);
    assert_ne!(code, 0, "{output}");
    assert_eq!(tree[Path::new("t\tb.txt")].0, b"x\n".to_vec());
    assert!(
        output.contains("holds a tab: git apply accepts it, but patchdeck refuses control characters in every path"),
        "{output}"
    );
}

#[test]
fn overlapping_hunks_are_refused_at_load_as_git_does_without_talk_of_relocation() {
    let file: &[u8] = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -4,5 +4,5 @@\n 4\n 5\n-6\n+six\n 7\n 8\n";
    assert!(!same_as_git(&[("f.txt", file)], patch, &[]));
    let (code, _, output) = patchdeck_apply(&[("f.txt", file)], patch.as_bytes(), &[]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("overlap: ")
            && output.contains(
                "hunk @@ -4,5 +4,5 @@ (lines 4-8) overlaps hunk @@ -1,5 +1,5 @@ (lines 1-5)"
            ),
        "{output}"
    );
    assert!(!output.contains("relocation"), "{output}");
}

#[test]
fn a_deletion_of_other_content_says_where_it_differs_and_offsets_count_lines_properly() {
    let patch = "diff --git a/f.txt b/f.txt\ndeleted file mode 100644\n--- a/f.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    let (code, _, output) = patchdeck_apply(&[("f.txt", b"a\nB\n")], patch.as_bytes(), &[]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("f.txt is not the content the deletion expects (line 2 differs)"),
        "{output}"
    );
    let (_, _, output) = patchdeck_apply(&[("f.txt", b"a\n")], patch.as_bytes(), &[]);
    assert!(
        output.contains("(the file ends after 1 line, the patch removes 2)"),
        "{output}"
    );
    let moved = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n x\n-y\n+Y\n z\n";
    assert!(same_as_git(&[("f.txt", b"a\nb\nx\ny\nz\nw\n")], moved, &[]));
    let ws = workspace_with(&[("f.txt", b"a\nb\nx\ny\nz\nw\n")]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.diff");
    std::fs::write(&input, moved).unwrap();
    let out = patchdeck(&[
        "check",
        "--root",
        ws.path().to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(
        stdout(&out).contains("(offset +1 line)"),
        "{}",
        stdout(&out)
    );
}
