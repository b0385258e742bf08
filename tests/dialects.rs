//! The diffs the world writes, held against real `git apply`: cases in the shapes of git's own
//! apply tests (t41xx), of python-unidiff's samples (Subversion, Bazaar, Mercurial, git) and of
//! Aider's edit-block and udiff tests, each written for this repository in `dialects/cases/`
//! (a `setup.sh` that makes the files, the `patch`, and `args` for both tools).
//!
//! Each case is set up three times: left alone, given to `git apply`, given to `patchdeck
//! apply`. Both apply it with the same bytes, modes, links and files, or both refuse it and
//! patchdeck leaves the tree as it was; or `dialects/expect` lists it, with the rule of
//! docs/formats.md that says why patchdeck refuses what git applies, or applies (labelled) what
//! git refuses, as the case's `after/` holds.

use crate::common::{patchdeck, stderr, stdout};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a tree holds: each path's kind and mode (`-rw-r--r--`-like, permissions only), its
/// bytes or link target.
type Tree = BTreeMap<PathBuf, (char, u32, Vec<u8>)>;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dialects")
}

/// Where patchdeck differs from git on purpose: case name → (refuse or tolerate, rule).
fn expectations() -> BTreeMap<String, (String, String)> {
    let text = fs::read_to_string(cases_dir().join("expect")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next().unwrap().to_owned();
            let how = words.next().unwrap().to_owned();
            let rule = words.collect::<Vec<_>>().join(" ");
            (name, (how, rule))
        })
        .collect()
}

fn tree(root: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel == Path::new(".git") || rel == Path::new(".patchdeck") {
                continue;
            }
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o777;
            if meta.file_type().is_symlink() {
                let to = fs::read_link(&path).unwrap();
                out.insert(rel, ('l', 0, to.into_os_string().into_encoded_bytes()));
            } else if meta.is_dir() {
                out.insert(rel, ('d', 0, Vec::new()));
                stack.push(path);
            } else {
                out.insert(rel, ('f', mode & 0o111, fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// A fresh tree of the case, made by its `setup.sh` in a git repository (as the cases were
/// written), with umask 022 so that modes compare.
fn set_up(case: &Path, at: &Path) {
    fs::create_dir_all(at).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "umask 022 && git init -q && bash '{}'",
            case.join("setup.sh").display()
        ))
        .current_dir(at)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: setup: {}",
        case.display(),
        stderr(&out)
    );
}

fn args(case: &Path) -> Vec<String> {
    fs::read_to_string(case.join("args"))
        .map(|a| a.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Runs one case; what is wrong with it, if anything.
fn run(name: &str, expected: Option<&(String, String)>, formats_doc: &str) -> Option<String> {
    let case = cases_dir().join("cases").join(name);
    let dir = tempfile::tempdir().unwrap();
    let (before, by_git, ours) = (
        dir.path().join("o"),
        dir.path().join("g"),
        dir.path().join("p"),
    );
    for at in [&before, &by_git, &ours] {
        set_up(&case, at);
    }
    let args = args(&case);
    let patch = case.join("patch");
    let git = Command::new("git")
        .arg("apply")
        .args(&args)
        .arg(&patch)
        .current_dir(&by_git)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    let root = ours.to_str().unwrap();
    let mut all = vec![
        "apply", "--config", "none", "--root", root, "--format", "unified",
    ];
    all.extend(args.iter().map(String::as_str));
    all.push(patch.to_str().unwrap());
    let out = patchdeck(&all);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    let (git_ok, ours_ok) = (git.status.success(), out.status.success());
    let (before, by_git, ours) = (tree(&before), tree(&by_git), tree(&ours));
    let wrong = |what: &str| Some(format!("{name}: {what}\n  patchdeck said: {said}"));
    match expected.map(|(how, rule)| (how.as_str(), rule.as_str())) {
        None if git_ok && !ours_ok => wrong("git applied it, patchdeck refused"),
        None if git_ok && ours != by_git => wrong("both applied, with different trees"),
        None if !git_ok && ours_ok => wrong("git refused it, patchdeck applied it"),
        None if !git_ok && ours != before => wrong("both refused, but patchdeck changed the tree"),
        None => None,
        Some((_, rule)) if !formats_doc.contains(&format!("### {rule}\n")) => {
            wrong(&format!("docs/formats.md has no rule \"### {rule}\""))
        }
        Some(("refuse", _)) if !git_ok => {
            wrong("listed as refused where git applies, but git refuses it")
        }
        Some(("refuse", _)) if ours_ok || ours != before => {
            wrong("listed as refused, but patchdeck wrote")
        }
        Some(("tolerate", _)) => {
            let after = case.join("after");
            let after = if after.is_dir() {
                tree(&after)
            } else {
                Tree::new()
            };
            if !ours_ok || ours != after {
                wrong("listed as read with a tolerance, but patchdeck did not write `after/`")
            } else if !said.contains("read_as") {
                wrong("read with a tolerance, but no read_as note says so")
            } else if git_ok && by_git == after {
                wrong("listed as a tolerance, but git writes the same")
            } else {
                None
            }
        }
        Some(("refuse", _)) => None,
        Some((other, _)) => wrong(&format!("unknown expectation {other}")),
    }
}

/// Runs every case whose name starts with one of `prefixes`: a test per source, so that they
/// run at once.
fn cases_from(prefixes: &[&str]) {
    let expect = expectations();
    let formats_doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/formats.md")).unwrap();
    let mut names: Vec<String> = fs::read_dir(cases_dir().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| prefixes.iter().any(|p| n.starts_with(p)))
        .collect();
    names.sort();
    assert!(
        names.len() >= 10,
        "only {} cases from {prefixes:?}",
        names.len()
    );
    let wrong: Vec<String> = names
        .iter()
        .filter_map(|name| run(name, expect.get(name), &formats_doc))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} cases:\n{}",
        wrong.len(),
        names.len(),
        wrong.join("\n")
    );
}

#[test]
fn git_apply_test_shapes_agree_with_git_or_name_the_rule() {
    cases_from(&["git-"]);
}

#[test]
fn python_unidiff_samples_agree_with_git_or_name_the_rule() {
    cases_from(&["unidiff-"]);
}

#[test]
fn aider_udiff_and_other_tools_agree_with_git_or_name_the_rule() {
    let expect = expectations();
    assert!(expect
        .keys()
        .all(|name| cases_dir().join("cases").join(name).is_dir()));
    cases_from(&["aider-", "world-"]);
}

/// `patchdeck apply` of `patch` on a workspace of `files`: its exit code, what it said, and the
/// workspace.
pub(crate) fn apply_on(files: &[(&str, &[u8])], patch: &str) -> (i32, String, tempfile::TempDir) {
    let ws = crate::common::workspace_with(files);
    let input = ws.path().join(".input.diff");
    fs::write(&input, patch).unwrap();
    let root = ws.path().to_str().unwrap().to_owned();
    let out = patchdeck(&[
        "apply",
        "--config",
        "none",
        "--root",
        &root,
        "--format",
        "unified",
        input.to_str().unwrap(),
    ]);
    fs::remove_file(&input).unwrap();
    let said = format!("{}{}", stdout(&out), stderr(&out));
    (out.status.code().unwrap(), said, ws)
}

#[test]
fn a_hunk_whose_counts_run_past_the_next_header_is_found_by_its_lines_and_says_so() {
    let file: &[u8] = b"one\ntwo\nthree\nfour\nfive\nsix\n";
    // The first hunk says 4 lines and has 3; the second is right.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n one\n-two\n+TWO\n@@ -5,2 +5,2 @@\n five\n-six\n+SIX\n";
    let (code, said, ws) = apply_on(&[("f.txt", file)], patch);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("counts more lines than it has before the next header"),
        "{said}"
    );
    assert_eq!(
        fs::read(ws.path().join("f.txt")).unwrap(),
        b"one\nTWO\nthree\nfour\nfive\nSIX\n"
    );
}

#[test]
fn a_hunk_cut_by_the_end_of_the_input_is_refused_not_found_by_its_first_lines() {
    let file: &[u8] = b"one\ntwo\nthree\nfour\n";
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,3 @@\n one\n-two\n";
    let (code, said, ws) = apply_on(&[("f.txt", file)], patch);
    assert_ne!(code, 0, "{said}");
    assert!(said.contains("ends early"), "{said}");
    assert_eq!(fs::read(ws.path().join("f.txt")).unwrap(), file);
}

#[test]
fn a_numberless_hunk_that_only_adds_or_occurs_twice_is_a_conflict_that_says_why() {
    let file: &[u8] = b"a\nx\nb\nx\n";
    let adds = "--- f.txt\n+++ f.txt\n@@ ... @@\n+new\n";
    let (code, said, ws) = apply_on(&[("f.txt", file)], adds);
    assert_ne!(code, 0, "{said}");
    assert!(said.contains("has no context or removed lines"), "{said}");
    assert_eq!(fs::read(ws.path().join("f.txt")).unwrap(), file);
    let twice = "--- f.txt\n+++ f.txt\n@@ ... @@\n-x\n+y\n";
    let (code, said, _) = apply_on(&[("f.txt", file)], twice);
    assert_ne!(code, 0, "{said}");
    assert!(
        said.contains("ambiguous") && said.contains("lines 2, 4"),
        "{said}"
    );
}

/// A `git diff -M -B` of two files that trade places (one of them edited), made by git itself.
fn git_made_swap() -> String {
    let (a, b) = (lines("alpha"), lines("beta"));
    let edited = a.replace("number 3 of", "number three of");
    crate::formats_unified::git_diff(
        &[("a.txt", a.as_bytes()), ("b.txt", b.as_bytes())],
        &[("a.txt", b.as_bytes()), ("b.txt", edited.as_bytes())],
        &["-B"],
    )
}

/// Forty numbered lines of `word` (git's `-B` breaks files of 400 bytes and more only).
fn lines(word: &str) -> String {
    (1..=40)
        .map(|n| format!("{word} line number {n} of the file\n"))
        .collect()
}

#[test]
fn two_files_that_trade_places_are_swapped_in_one_commit_and_undone_as_one() {
    let patch = git_made_swap();
    assert!(
        patch.contains("rename from a.txt") && patch.contains("rename from b.txt"),
        "{patch}"
    );
    let (a, b) = (lines("alpha"), lines("beta"));
    let files: [(&str, &[u8]); 2] = [("a.txt", a.as_bytes()), ("b.txt", b.as_bytes())];
    let (code, said, ws) = apply_on(&files, &patch);
    assert_eq!(code, 0, "{said}");
    let read = |name: &str| fs::read_to_string(ws.path().join(name)).unwrap();
    assert_eq!(read("a.txt"), b);
    assert_eq!(read("b.txt"), a.replace("number 3 of", "number three of"));
    let root = ws.path().to_str().unwrap();
    let undo = patchdeck(&["undo", "--root", root]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!((read("a.txt"), read("b.txt")), (a, b));
}

#[test]
fn a_swap_whose_file_is_gone_writes_nothing_and_says_which() {
    let patch = git_made_swap();
    let a = lines("alpha");
    let (code, said, ws) = apply_on(&[("a.txt", a.as_bytes())], &patch);
    assert_ne!(code, 0, "{said}");
    assert!(said.contains("b.txt"), "{said}");
    assert_eq!(fs::read_to_string(ws.path().join("a.txt")).unwrap(), a);
    assert!(!ws.path().join("b.txt").exists());
}
