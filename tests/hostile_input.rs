//! Hostile paths and bytes: nothing outside the root, nothing through a link, nothing into
//! `.git` or `.patchdeck`, no special files, no silent splitting of hard links, untouched bytes
//! kept exactly (BOM, CRLF, tabs, non-ASCII), and limits that refuse clearly. Ideas from git's
//! t4139-apply-escape and t4122-apply-symlink-inside, and GNU patch's bad-filenames and
//! symlinks tests, for TUL-002 docPaths.

use crate::common;
use crate::common::{
    batch_file, json_out, patchdeck, sha, stderr, stdout, user_tree, workspace_with,
};
use patchdeck::model::EMPTY_SHA256;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

fn create(doc_path: &str) -> Value {
    json!({"files": [{"docPath": doc_path, "originalSha256": EMPTY_SHA256,
        "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["pwned"]}]}]})
}

fn apply(root: &Path, batch: &Value, extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let path = batch_file(&dir, batch);
    let mut args = vec!["apply", "--json", "--root", root.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    patchdeck(&args)
}

/// Applies a batch in a workspace that sits next to a sentinel folder, and checks that the
/// batch is refused with `kind`, and that neither folder changed.
fn assert_refused(setup: impl Fn(&Path, &Path), doc_path: &str, kind: &str) {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let outside = outer.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    setup(&root, &outside);
    let (before_root, before_outside) = (user_tree(&root), user_tree(&outside));
    let out = apply(&root, &create(doc_path), &[]);
    assert_ne!(out.status.code(), Some(0), "{doc_path:?} was applied");
    let report = json_out(&out);
    let problems: Vec<&str> = report["files"][0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(
        problems.contains(&kind),
        "{doc_path:?}: expected {kind}, got {problems:?}"
    );
    assert_eq!(
        user_tree(&root),
        before_root,
        "{doc_path:?} changed the root"
    );
    assert_eq!(
        user_tree(&outside),
        before_outside,
        "{doc_path:?} wrote outside the root"
    );
}

#[test]
fn lexically_hostile_paths_are_refused() {
    let none = |_: &Path, _: &Path| {};
    for (doc, kind) in [
        ("/tmp/pwned", "path_outside_root"),
        ("../outside/secret.txt", "path_outside_root"),
        ("a/../../outside/pwned", "path_outside_root"),
        ("..", "path_outside_root"),
        ("\\\\server\\share", "path_outside_root"),
        ("C:/Windows/pwned", "path_outside_root"),
        ("a//b", "invalid_path"),
        ("./a", "invalid_path"),
        ("a/./b", "invalid_path"),
        ("a/", "invalid_path"),
        ("a\u{0}b", "invalid_path"),
        ("a\nb", "invalid_path"),
        ("a\u{1b}[31mb", "invalid_path"),
        (".git/hooks/pre-commit", "protected_path"),
        (".GIT/config", "protected_path"),
        ("vendor/lib/.git/config", "protected_path"),
        (".patchdeck/journal", "protected_path"),
        // Names git treats as .git (is_ntfs_dotgit, is_hfs_dotgit): trailing spaces and dots,
        // an alternate data stream, the 8.3 short name, a backslash separator, HFS+ ignorables.
        (".git ", "protected_path"),
        (".git./x", "protected_path"),
        (".git . ./config", "protected_path"),
        (".git::$INDEX_ALLOCATION/config", "protected_path"),
        ("GIT~1/config", "protected_path"),
        ("a\\.git\\config", "protected_path"),
        (".g\u{200c}it/config", "protected_path"),
        ("\u{feff}.GIT/hooks/post-checkout", "protected_path"),
        // patchdeck's own state, at any depth (a later --root sub would trust it).
        ("sub/.patchdeck/journal", "protected_path"),
        ("sub/.PatchDeck./lock", "protected_path"),
    ] {
        assert_refused(none, doc, kind);
    }
    // Longer than Linux lets a path or a name be: refused as such, not read as missing.
    let deep = vec!["d".repeat(200); 21].join("/");
    assert_refused(none, &deep, "path_too_long");
    assert_refused(none, &format!("a/{}.txt", "n".repeat(300)), "path_too_long");
}

#[test]
fn names_that_only_start_like_git_are_fine() {
    let ws = workspace_with(&[]);
    for doc in [
        ".gitignore",
        ".github/workflows/ci.yml",
        "git~12",
        "a/.git-keep",
        ".patchdeckrc",
    ] {
        let out = apply(ws.path(), &create(doc), &[]);
        assert_eq!(out.status.code(), Some(0), "{doc}: {}", stdout(&out));
    }
}

#[test]
fn a_file_name_that_is_not_utf8_is_refused_not_matched_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let ws = workspace_with(&[]);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(ws.path().join(name), b"x\n").unwrap();
    let before = user_tree(ws.path());
    let batch = json!({"files": [{"docPath": "caf\u{fffd}.txt", "originalSha256": sha(b"x\n"), "changes": [
        {"operation": "insert", "afterLine": 1, "newLines": ["y"]}]}]});
    // check said ok and apply failed at the journal; now both refuse, as for an ambiguous path.
    let out = apply(ws.path(), &batch, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let problem = &json_out(&out)["files"][0]["problems"][0];
    assert_eq!(problem["kind"], "not_utf8_name");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("holds \"caf\\xe9.txt\""),
        "{problem}"
    );
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn a_symlinked_folder_leading_out_is_not_written_through() {
    // t4122: a link inside the tree pointing outside it, and a patch that writes "through" it.
    assert_refused(
        |root, outside| std::os::unix::fs::symlink(outside, root.join("link")).unwrap(),
        "link/pwned",
        "path_outside_root",
    );
    assert_refused(
        |root, outside| std::os::unix::fs::symlink(outside, root.join("link")).unwrap(),
        "link/secret.txt",
        "path_outside_root",
    );
    // A link found only by the case-insensitive search is refused as well.
    assert_refused(
        |root, outside| std::os::unix::fs::symlink(outside, root.join("Link")).unwrap(),
        "link/pwned",
        "path_outside_root",
    );
}

#[test]
fn a_symlink_inside_the_root_is_not_written_through() {
    assert_refused(
        |root, _| {
            fs::create_dir_all(root.join("real")).unwrap();
            std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        },
        "alias/file.txt",
        "symlink",
    );
    assert_refused(
        |root, _| {
            fs::write(root.join("target.txt"), "x\n").unwrap();
            std::os::unix::fs::symlink("target.txt", root.join("file.txt")).unwrap();
        },
        "file.txt",
        "symlink",
    );
    // A dangling link is a link too: creating "through" it would land wherever it points.
    assert_refused(
        |root, outside| {
            std::os::unix::fs::symlink(outside.join("new.txt"), root.join("dangling.txt")).unwrap()
        },
        "dangling.txt",
        "path_outside_root",
    );
}

#[test]
fn special_files_are_refused() {
    assert_refused(
        |root, _| {
            let status = std::process::Command::new("mkfifo")
                .arg(root.join("fifo"))
                .status()
                .unwrap();
            assert!(status.success());
        },
        "fifo",
        "not_a_file",
    );
    assert_refused(
        |root, _| {
            std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
        },
        "sock",
        "not_a_file",
    );
    assert_refused(
        |root, _| fs::create_dir_all(root.join("dir")).unwrap(),
        "dir",
        "not_a_file",
    );
    assert_refused(
        |root, _| fs::write(root.join("file"), "x\n").unwrap(),
        "file/child.txt",
        "not_a_file",
    );
}

#[test]
fn a_device_file_is_refused() {
    // /dev/null reached through the root itself: the workspace root is /dev.
    let report = json_out(&apply(
        Path::new("/dev"),
        &json!({"files": [{"docPath": "null", "originalSha256": EMPTY_SHA256,
        "changes": [{"operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]}),
        &[],
    ));
    assert_eq!(report["files"][0]["problems"][0]["kind"], "not_a_file");
}

#[test]
fn a_file_with_several_hard_links_is_written_only_on_request() {
    let ws = workspace_with(&[("a.txt", b"one\n")]);
    fs::hard_link(ws.path().join("a.txt"), ws.path().join("b.txt")).unwrap();
    let batch = json!({"files": [{"docPath": "a.txt", "originalSha256": sha(b"one\n"),
        "changes": [{"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": ["one"], "newLines": ["ONE"]}]}]});
    let out = apply(ws.path(), &batch, &[]);
    assert_eq!(out.status.code(), Some(1));
    let report = json_out(&out);
    assert_eq!(report["files"][0]["problems"][0]["kind"], "hard_link");
    assert!(report["blocked"][0]
        .as_str()
        .unwrap()
        .contains("--allow-hard-links"));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"one\n");
    let out = apply(ws.path(), &batch, &["--allow-hard-links"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(json_out(&out)["overrides"][0]
        .as_str()
        .unwrap()
        .contains("several hard links"));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"ONE\n");
    assert_eq!(
        fs::read(ws.path().join("b.txt")).unwrap(),
        b"one\n",
        "the other name keeps the old bytes"
    );
    // The original shares its inode with b.txt, so the undo history keeps a copy of it (a
    // rename would let a later write through b.txt change what undo restores), and the name
    // it had beside a.txt is removed all the same.
    let mut names: Vec<String> = fs::read_dir(ws.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".patchdeck", "a.txt", "b.txt"]);
    fs::write(ws.path().join("b.txt"), b"changed through the other name\n").unwrap();
    let out = patchdeck(&["undo", "--root", ws.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"one\n");
}

#[test]
fn untouched_bytes_never_change() {
    let bom_crlf =
        "\u{feff}first\r\n\tindented\twith tabs\r\nnaïve café ☕\r\nmixed lf\nlast without newline"
            .as_bytes();
    let ws = workspace_with(&[("f.txt", bom_crlf)]);
    let batch = json!({"files": [{"docPath": "f.txt", "originalSha256": sha(bom_crlf), "changes": [
        {"operation": "replace", "startLine": 1, "endLine": 1, "expectedOriginalLines": ["first"], "newLines": ["FIRST"]},
        {"operation": "replace", "startLine": 3, "endLine": 3, "expectedOriginalLines": ["naïve café ☕"], "newLines": ["naïve café ☕ ✓"]}]}]});
    let out = apply(ws.path(), &batch, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        fs::read(ws.path().join("f.txt")).unwrap(),
        "\u{feff}FIRST\r\n\tindented\twith tabs\r\nnaïve café ☕ ✓\r\nmixed lf\nlast without newline".as_bytes()
    );
}

#[test]
fn rejecting_every_change_leaves_the_tree_identical() {
    let ws = common::sample_workspace();
    let before = user_tree(ws.path());
    let out = patchdeck(&[
        "apply",
        "--root",
        ws.path().to_str().unwrap(),
        "--reject",
        "app",
        "--reject",
        "utils",
        "--reject",
        "config",
        "--reject",
        "setup",
        "--reject",
        "notes",
        "--reject",
        "changelog",
        common::samples().join("clean.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("nothing to write"),
        "{}",
        stdout(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}

#[test]
fn json_nested_too_deeply_is_refused_clearly() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let err = common::load_bytes(deep.as_bytes(), Some("tul002")).unwrap_err();
    assert!(
        err.to_string().contains("nested deeper than 128 levels"),
        "{err}"
    );
}

#[test]
fn an_oversized_input_is_refused_before_parsing() {
    let big = vec![b' '; patchdeck::formats::MAX_INPUT_BYTES + 1];
    let err = common::load_bytes(&big, None).unwrap_err();
    assert!(err.to_string().contains("reads at most 64 MiB"), "{err}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn a_non_utf8_file_is_refused_for_line_edits_and_left_alone() {
    let bytes = b"caf\xe9\nok\n";
    let ws = workspace_with(&[("latin1.txt", bytes)]);
    let batch = json!({"files": [{"docPath": "latin1.txt", "originalSha256": sha(bytes), "changes": [
        {"operation": "replace", "startLine": 2, "endLine": 2, "expectedOriginalLines": ["ok"], "newLines": ["OK"]}]}]});
    let out = apply(ws.path(), &batch, &[]);
    assert_eq!(out.status.code(), Some(1));
    let report = json_out(&out);
    assert_eq!(report["files"][0]["problems"][0]["kind"], "not_utf8");
    assert!(report["files"][0]["problems"][0]["message"]
        .as_str()
        .unwrap()
        .contains("offset 3"));
    assert_eq!(fs::read(ws.path().join("latin1.txt")).unwrap(), bytes);
}

#[test]
fn huge_line_numbers_are_refused_naming_the_field() {
    let ws = workspace_with(&[("notes.txt", b"a\nb\n")]);
    let max = u64::MAX;
    let file = |changes: Value| json!({"files": [{"docPath": "notes.txt", "originalSha256": sha(b"a\nb\n"), "changes": changes}]});
    for (changes, field) in [
        (
            json!([{"operation": "insert", "afterLine": max, "newLines": ["x"]}]),
            "afterLine",
        ),
        (
            json!([{"operation": "delete", "startLine": max, "endLine": max, "expectedOriginalLines": ["a"]}]),
            "startLine",
        ),
        (
            json!([{"operation": "replace", "startLine": 1, "endLine": max, "expectedOriginalLines": ["a"], "newLines": ["b"]}]),
            "endLine",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = batch_file(&dir, &file(changes));
        let out = patchdeck(&[
            "check",
            "--root",
            ws.path().to_str().unwrap(),
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{field}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "files[0].changes[0].{field}: in \"notes.txt\", change #1: {field} {max} is past the end"
            )),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn an_oversized_standard_input_is_refused_without_reading_it_all() {
    // 400 MB of zeros (sparse: nothing is written to disk) on standard input.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let file = fs::File::create(&path).unwrap();
    file.set_len(400 << 20).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args(["check", "--root", dir.path().to_str().unwrap(), "-"])
        .stdin(fs::File::open(&path).unwrap());
    let (out, peak_mib) = common::run_measured(&mut command);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the input is more than 64 MiB; patchdeck reads at most 64 MiB"),
        "{}",
        stderr(&out)
    );
    // Reading it all took 417 MB.
    assert!(peak_mib < 200, "peak resident size {peak_mib} MiB");
}

/// Every file patchdeck reads besides the batch has a bound too: a decisions file or a
/// configuration that leads to an endless source is refused, naming it and the limit.
#[test]
fn endless_decisions_and_config_files_are_refused_at_their_limit() {
    let ws = workspace_with(&[("a.txt", b"x\n")]);
    let root = ws.path().to_str().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let batch = outside.path().join("b.diff");
    fs::write(&batch, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n").unwrap();
    let batch = batch.to_str().unwrap();
    for (args, names, limit) in [
        (
            vec!["apply", "--decisions", "/dev/zero", "--root", root, batch],
            "decisions file /dev/zero",
            "more than 64 MiB",
        ),
        (
            vec!["check", "--config", "/dev/zero", "--root", root, batch],
            "/dev/zero",
            "more than 1 MiB",
        ),
    ] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"));
        command.args(&args).env_remove("PATCHDECK_CONFIG");
        let (out, peak_mib) = common::run_measured(&mut command);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(names) && stderr(&out).contains(limit),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            peak_mib < 200,
            "{args:?}: peak resident size {peak_mib} MiB"
        );
        assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"x\n");
    }
}

/// `café.txt` typed precomposed (NFC) names the file a Mac wrote decomposed (NFD), as a case
/// variant names it: patchdeck writes that file, never a look-alike twin beside it.
#[test]
fn a_name_in_another_unicode_normalisation_is_the_same_file() {
    let nfd = "cafe\u{301}.txt";
    let nfc = "caf\u{e9}.txt";
    for doc in [nfc.to_owned(), nfc.to_uppercase()] {
        let ws = workspace_with(&[(nfd, b"old\n")]);
        let outside = tempfile::tempdir().unwrap();
        let batch = outside.path().join("b.json");
        fs::write(
            &batch,
            serde_json::json!({"root": ".", "files": [{"path": doc, "content": "new\n"}]})
                .to_string(),
        )
        .unwrap();
        let out = patchdeck(&[
            "apply",
            "--root",
            ws.path().to_str().unwrap(),
            batch.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{doc}: {}", stderr(&out));
        let names: Vec<_> = fs::read_dir(ws.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != ".patchdeck")
            .collect();
        assert_eq!(
            names,
            [std::ffi::OsString::from(nfd)],
            "{doc}: a twin was made"
        );
        assert_eq!(fs::read(ws.path().join(nfd)).unwrap(), b"new\n");
    }
}

/// A diff that is not UTF-8 is refused with the line its first bad byte is on, and nothing is
/// written (the input is kept as bytes, not as the text the changes of a diff share).
#[test]
fn a_diff_that_is_not_utf8_is_refused_at_its_first_bad_line() {
    let ws = workspace_with(&[("x", b"a\n")]);
    let dir = tempfile::tempdir().unwrap();
    let diff = dir.path().join("bad.diff");
    fs::write(
        &diff,
        b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+\xff\n",
    )
    .unwrap();
    let before = user_tree(ws.path());
    let out = patchdeck(&[
        "apply",
        "--format",
        "unified",
        "--root",
        ws.path().to_str().unwrap(),
        diff.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 6: not valid UTF-8 text"),
        "{}",
        stderr(&out)
    );
    assert_eq!(user_tree(ws.path()), before);
}
