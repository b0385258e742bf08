//! Codex markers padded with whitespace, as Codex's own parser allows them: a header between
//! operations, the first `*** Begin Patch` and a last `*** End Patch` are read as markers, each
//! with a note; inside an `@@` section a padded `*** ...` line stays a context line. And a move
//! onto an existing file is one `file_exists` conflict, its lines checked against the source.

use crate::common::formats::{kinds, run_input, warnings};
use crate::common::{json_out, stderr, stdout, user_tree, workspace_with};

const FILES: &[(&str, &[u8])] = &[("foo.txt", b"one\ntwo\n"), ("bar.txt", b"alpha\n")];

#[test]
fn a_padded_header_between_operations_is_read_as_a_header_with_a_note() {
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n  *** Update File: foo.txt\n@@\n-two\n+TWO\n*** End Patch\n";
    let (_, out) = run_input(FILES, "check", &["--json"], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    let notes = warnings(&report);
    assert!(
        notes
            .iter()
            .any(|w| w.starts_with("line 4: ") && w.contains("*** Update File: foo.txt")),
        "{notes:?}"
    );
    let (ws, out) = run_input(FILES, "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(ws.path().join("foo.txt")).unwrap(),
        b"one\nTWO\n"
    );
    assert_eq!(
        std::fs::read(ws.path().join("new.txt")).unwrap(),
        b"hello\n"
    );
}

#[test]
fn a_padded_begin_is_detected_and_a_padded_last_end_ends_the_patch_with_a_note() {
    let patch =
        " *** Begin Patch\n*** Update File: foo.txt\n@@\n one\n-two\n+deux\n *** End Patch\n";
    for args in [&["--json"][..], &["--json", "--format", "codex"][..]] {
        let (_, out) = run_input(FILES, "check", args, patch.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
        let report = json_out(&out);
        let notes = warnings(&report);
        assert!(notes.iter().any(|w| w.starts_with("line 1: ")), "{notes:?}");
        assert!(
            notes
                .iter()
                .any(|w| w.starts_with("line 7: ") && w.contains("last line")),
            "{notes:?}"
        );
    }
    let (ws, out) = run_input(FILES, "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    // The padded end is not a context line of the section: the file ends as it did.
    assert_eq!(
        std::fs::read(ws.path().join("foo.txt")).unwrap(),
        b"one\ndeux\n"
    );
}

#[test]
fn a_padded_marker_inside_a_section_stays_a_context_line() {
    let files: &[(&str, &[u8])] = &[("notes.md", b"intro\n*** Update File: x\nend\n")];
    let patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n intro\n *** Update File: x\n-end\n+END\n*** End Patch\n";
    let (ws, out) = run_input(files, "apply", &[], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(ws.path().join("notes.md")).unwrap(),
        b"intro\n*** Update File: x\nEND\n"
    );
}

#[test]
fn a_padded_end_that_is_not_the_last_line_is_not_an_end() {
    let patch =
        "*** Begin Patch\n*** Update File: foo.txt\n@@\n-two\n+deux\n *** End Patch\n trailing\n";
    let (ws, out) = run_input(FILES, "check", &["--json"], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = json_out(&out)["error"].to_string();
    assert!(text.contains("does not end with"), "{text}");
    assert_eq!(
        user_tree(ws.path()),
        user_tree(workspace_with(FILES).path())
    );
}

#[test]
fn a_move_onto_an_existing_file_is_one_file_exists_conflict() {
    let files: &[(&str, &[u8])] = &[("from.txt", b"a\nb\n"), ("to.txt", b"other\n")];
    let patch = "*** Begin Patch\n*** Update File: from.txt\n*** Move to: to.txt\n@@\n a\n-b\n+B\n*** End Patch\n";
    let (ws, out) = run_input(files, "check", &["--json"], patch.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(kinds(&json_out(&out)), vec!["file_exists"]);
    let (ws2, out) = run_input(files, "apply", &[], patch.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    for ws in [ws, ws2] {
        assert_eq!(
            user_tree(ws.path()),
            user_tree(workspace_with(files).path())
        );
    }
}
