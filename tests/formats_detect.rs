//! Detection without `--format`: a unified diff is recognised before the other text formats,
//! whatever its hunks hold, and the other formats' markers count only where their formats put
//! them.

use patchdeck::formats::{detect, Input};
use std::process::Command;

fn detected(text: &str) -> Result<&'static str, String> {
    detect(&Input::from_bytes("input", text)).map_err(|e| e.to_string())
}

/// A git diff of a file whose lines (context, removed and added) are the given ones.
fn diff_holding(lines: &[&str]) -> String {
    let mut out = String::from(
        "diff --git a/README.md b/README.md\nindex 1111111..2222222 100644\n--- a/README.md\n+++ b/README.md\n",
    );
    out.push_str(&format!(
        "@@ -1,{} +1,{} @@\n",
        lines.len() + 1,
        lines.len() + 1
    ));
    for line in lines {
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("-old\n+new\n");
    out
}

#[test]
fn other_formats_markers_inside_a_diffs_hunks_are_not_markers() {
    for inside in [
        "*** Begin Patch",
        "<<<<<<< SEARCH",
        "```diff",
        "```json",
        "A patch cannot be safely generated with the information provided.",
        "Unable to generate a safe Git patch; fallback to Aptix file bundle.",
    ] {
        let diff = diff_holding(&["intro", inside, "more", "```", "end"]);
        assert_eq!(detected(&diff), Ok("unified"), "{inside}:\n{diff}");
        // As an added line too.
        let added = diff.replace("+new\n", &format!("+{inside}\n"));
        assert_eq!(detected(&added), Ok("unified"), "{added}");
    }
}

#[test]
fn a_plain_diff_is_a_header_group_at_column_0_outside_fences() {
    let plain = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(detected(plain), Ok("unified"));
    // In a chat answer's fence, the same lines make a chat answer.
    let answer = format!("Here you go:\n\n```diff\n{plain}```\n");
    assert_eq!(detected(&answer), Ok("markdown"));
    // Prose that merely quotes --- and +++ lines is no diff.
    let prose = "--- a list item\n+++ another\nnothing else\n";
    assert!(detected(prose).is_err(), "{:?}", detected(prose));
}

#[test]
fn a_diff_after_an_unclosed_fence_in_a_mails_message_is_still_a_diff() {
    let mail = format!(
        "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] Show an example\n\nLike this:\n```diff\n---\n{}",
        diff_holding(&["x"])
    );
    assert_eq!(detected(&mail), Ok("unified"));
}

#[test]
fn codex_and_aider_markers_count_at_column_0_only_but_a_codex_first_line() {
    let codex = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n";
    assert_eq!(detected(codex), Ok("codex"));
    // Codex allows a padded Begin as the patch's first line; after prose it is no marker.
    let indented = codex.replace("*** Begin Patch", "  *** Begin Patch");
    assert_eq!(detected(&indented), Ok("codex"));
    let after_prose = format!("Here it is:\n{indented}");
    assert!(
        detected(&after_prose).is_err(),
        "{:?}",
        detected(&after_prose)
    );
    let aider = "a.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    assert_eq!(detected(aider), Ok("aider"));
    let indented = aider.replace("<<<<<<< SEARCH", "    <<<<<<< SEARCH");
    assert!(detected(&indented).is_err(), "{:?}", detected(&indented));
    // Fenced, as Aider writes them, they still count.
    let fenced = "a.txt\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n";
    assert_eq!(detected(fenced), Ok("aider"));
    // An Aider block whose SEARCH text is a diff is still an Aider block.
    let of_a_diff = "docs/example.patch\n<<<<<<< SEARCH\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n=======\n>>>>>>> REPLACE\n";
    assert_eq!(detected(of_a_diff), Ok("aider"));
}

#[test]
fn a_refusal_counts_only_in_prose_and_only_when_nothing_else_is_found() {
    let refusal =
        "I looked.\n\nA patch cannot be safely generated with the information provided.\n";
    assert_eq!(detected(refusal), Ok("markdown"));
    let in_a_fence = "I looked.\n\n```text\nA patch cannot be safely generated with the information provided.\n```\n";
    assert!(detected(in_a_fence).is_err(), "{:?}", detected(in_a_fence));
    // A mail whose message quotes the sentence, followed by its diff, is the diff.
    let mail = format!(
        "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] Quote the refusal\n\nThe model says: A patch cannot be safely generated with the information provided.\n---\n{}",
        diff_holding(&["x"])
    );
    assert_eq!(detected(&mail), Ok("unified"));
}

/// Every commit of this repository's history, as `git log -p` shows it (merges against their
/// first parent), is detected as a unified diff: its messages, samples and tests are full of
/// fences, Codex envelopes, Aider blocks and refusal sentences.
#[test]
fn every_commit_of_this_repository_is_detected_as_a_diff_writer() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("git")
        .args([
            "log",
            "-p",
            "--diff-merges=first-parent",
            "--pretty=medium",
            "--no-color",
            "--no-ext-diff",
        ])
        .current_dir(root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git log: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = out.stdout;
    // Each commit starts with "commit <sha>" at column 0; messages are indented and diff lines
    // start with their tag, so nothing else starts a line so.
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    while at < log.len() {
        let end = log[at..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(log.len(), |p| at + p + 1);
        if log[at..end].starts_with(b"commit ") && end - at >= 47 {
            starts.push(at);
        }
        at = end;
    }
    starts.push(log.len());
    let mut checked = 0;
    let mut wrong = Vec::new();
    for pair in starts.windows(2) {
        let commit = &log[pair[0]..pair[1]];
        let sha = String::from_utf8_lossy(&commit[7..47]).into_owned();
        if !commit.windows(12).any(|w| w == b"\ndiff --git ") {
            continue; // no change (an empty commit)
        }
        checked += 1;
        let input = Input::from_bytes(&sha, commit.to_vec());
        match detect(&input) {
            Ok("unified") => {}
            other => wrong.push(format!("{sha}: {:?}", other.map_err(|e| e.to_string()))),
        }
    }
    assert!(
        checked >= 50,
        "only {checked} commits with a diff were found"
    );
    assert!(
        wrong.is_empty(),
        "not detected as unified:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn input_that_starts_like_json_and_does_not_parse_gets_the_line_and_column() {
    let call = "{\"path\": \"a.txt\",\n \"patches\": [{\"operation\": \"append_eof\", \"newText\": \"x\"},]}\n";
    let err = detected(call).unwrap_err();
    assert!(
        err.contains("invalid JSON batch")
            && err.contains("line 2, column 58: not valid JSON: trailing comma"),
        "{err}"
    );
    assert!(
        err.contains("tried: tul002,") && err.contains("unified"),
        "{err}"
    );
    // Text that is no format at all still lists what was tried.
    let err = detected("just words\n").unwrap_err();
    assert!(
        err.contains("not a patch batch") && err.contains("tried:"),
        "{err}"
    );
}
