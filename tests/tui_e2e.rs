//! End to end: the real binary in a pseudo-terminal (`common::terminal`), keys pressed as a
//! person would, the screen read back with its colours, and the bytes on disk checked after
//! the commit.

use crate::common::reviewer::editor_script;
use crate::common::terminal::Terminal;
use crate::common::{sample_workspace, samples};
use std::time::{Duration, Instant};

#[test]
fn review_accept_edit_reject_and_commit_writes_the_bytes() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let editor = editor_script(
        home.path(),
        "edit.sh",
        "sed -i 's/^+.*if not name:$/+        if not name or not name.strip():/' \"$1\"",
    );
    let report = home.path().join("report.json");
    let mut term = Terminal::start(
        home.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            samples().join("demo.json").to_str().unwrap(),
        ],
        &[("EDITOR", &editor), ("NO_COLOR", "1")],
    );
    term.wait_for("1/4 log-load");
    term.keys(&["a"]); // accept log-load, on to validate-name
    term.wait_for("2/4 validate-name");
    term.keys(&["e"]); // edit it with the script
    term.wait_for("✎ 1 ");
    // Now on the conflict: accepting is refused, moving it resolves it.
    term.wait_for("3/4 clearer-error");
    term.keys(&["a"]);
    term.wait_for("cannot simply be accepted");
    term.keys(&["m"]); // moves it, accepts it and goes on to drop-demo-add
    term.wait_for("moved to line 30");
    term.wait_for("4/4 drop-demo-add");
    term.keys(&["r"]); // reject drop-demo-add
    term.wait_for("accept-whitespace");
    term.keys(&["c"]);
    let summary = term.wait_for("Commit: all of these, or nothing");
    assert!(
        summary.contains("write  src/app.py  3 of 4 change(s) (1 edited)"),
        "{summary}"
    );
    assert!(
        summary.contains("override:"),
        "the move is listed: {summary}"
    );
    term.keys(&["y"]);
    let done = term.wait_for("Committed");
    assert!(done.contains("sha256 "), "{done}");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);

    let app_py = std::fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    let lines: Vec<&str> = app_py.lines().collect();
    assert_eq!(
        lines[18],
        "        log.info(\"loaded %d items\", len(self.items))"
    );
    assert_eq!(lines[22], "        if not name or not name.strip():");
    assert_eq!(
        lines[23],
        "            raise ValueError(\"item name must not be empty\")"
    );
    assert!(app_py
        .contains("raise ValueError(f\"not enough {name}: {current} left, {quantity} asked\")"));
    assert!(
        app_py.contains("inventory.add(\"apples\", \"3\")"),
        "the rejected delete was not applied"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["summary"]["applied"], 3);
    assert!(report["files"][0]["newSha256"].is_string());
}

#[test]
fn quitting_keeps_the_session_and_reopening_resumes_it() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let batch = samples().join("demo.json");
    let args = [
        "--root",
        ws.path().to_str().unwrap(),
        batch.to_str().unwrap(),
    ];
    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    term.wait_for("1/4 log-load");
    term.keys(&["r", "r"]);
    term.wait_for("2/9 decided");
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(screen.contains("2 decision(s) saved in"), "{screen}");

    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    let screen = term.wait_for("resumed 2 decision(s)");
    assert!(
        screen.contains("3/4 clearer-error"),
        "resumes at the first undecided: {screen}"
    );
    term.keys(&["j", "a"]);
    term.wait_for("3/9 decided");
    term.keys(&["u"]);
    term.wait_for("2/9 decided");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
}

#[test]
fn demo_opens_on_its_own_copy_and_read_only_refuses_to_commit() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("demo");
    let mut term = Terminal::start(home.path(), &["demo", "--dir", dir.to_str().unwrap()], &[]);
    let screen = term.wait_for("Demo: inventory cleanup");
    assert!(screen.contains("⚠ 2 open conflict(s)"), "{screen}");
    term.keys(&["?"]);
    term.wait_for("Esc/?/q close");
    // `?` closes the help (an Esc right before another key reads as Alt+key).
    term.keys(&["?"]);
    term.wait_for("? help");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    assert!(dir.join("workspace/src/app.py").exists());

    let ws = sample_workspace();
    let before = std::fs::read(ws.path().join("src/app.py")).unwrap();
    let mut term = Terminal::start(
        home.path(),
        &[
            "review",
            "--read-only",
            "--root",
            ws.path().to_str().unwrap(),
            samples().join("demo.json").to_str().unwrap(),
        ],
        &[],
    );
    term.wait_for("READ-ONLY");
    term.keys(&["a", "c", "y"]);
    term.wait_for("read-only review (--read-only): nothing can be written");
    term.keys(&["n", "q"]);
    term.wait_for("Quit and lose 1 decision(s)? (read-only: no session is saved)");
    term.keys(&["y"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert_eq!(std::fs::read(ws.path().join("src/app.py")).unwrap(), before);
}

#[test]
fn a_session_that_cannot_be_saved_is_never_called_saved() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    // The state folder cannot be made: a file is in its way.
    std::fs::write(ws.path().join(".patchdeck"), "in the way").unwrap();
    let mut term = Terminal::start(
        home.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            samples().join("demo.json").to_str().unwrap(),
        ],
        &[("NO_COLOR", "1")],
    );
    term.wait_for("1/4 log-load");
    term.keys(&["a"]);
    term.wait_for("2/4 validate-name");
    term.keys(&["j", "k"]);
    // The failure stays on screen, key after key.
    term.wait_for("SESSION NOT SAVED");
    term.keys(&["q"]);
    let prompt = term.wait_for("Quit and lose 1 decision(s)?");
    assert!(prompt.contains("session not saved"), "{prompt}");
    term.keys(&["y"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(screen.contains("1 decision(s) NOT saved"), "{screen}");
    assert!(!screen.contains("saved in"), "{screen}");
}

/// Far down a file, the first paint's syntax colours are provisional (the background parser
/// has not read the comment opened on line 1); the screen is repainted with the exact ones
/// when it gets there, with no key pressed.
#[test]
fn colours_deep_in_a_file_are_repainted_once_the_background_parser_arrives() {
    let ws = tempfile::tempdir().unwrap();
    let lines = 10_000;
    let mut text = String::from("/*\n");
    for n in 2..lines {
        text.push_str(&format!("    let inside_{n} = the_comment({n});\n"));
    }
    text.push_str("*/\n");
    std::fs::write(ws.path().join("deep.rs"), &text).unwrap();
    let at = lines - 50;
    let old = format!("    let inside_{at} = the_comment({at});");
    let batch = serde_json::json!({
        "batchKey": "deep",
        "files": [{
            "docPath": "deep.rs",
            "originalSha256": patchdeck::model::sha256_hex(text.as_bytes()),
            "changes": [{
                "changeKey": "deep-change",
                "operation": "replace",
                "startLine": at,
                "endLine": at,
                "expectedOriginalLines": [old],
                "newLines": [old.replace("the_comment", "still_the_comment")]
            }]
        }]
    });
    let home = tempfile::tempdir().unwrap();
    let batch_path = home.path().join("deep.json");
    std::fs::write(&batch_path, batch.to_string()).unwrap();
    let mut term = Terminal::start(
        home.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            batch_path.to_str().unwrap(),
        ],
        &[("COLORTERM", "truecolor")],
    );
    // A context row two lines above the change, drawn in colour.
    let exact = format!("let inside_{n} = the_comment({n});", n = at - 2);
    term.wait_for(&exact);
    // Inside the comment the whole row is one run of the comment's colour; provisionally it
    // is coloured as code (`let` a keyword, the call a function), in several colours. The
    // first frame is always provisional, but on a loaded machine the parser may finish before
    // the test first looks, so it waits for the exact colours rather than for a change.
    let first = term.styles_of(&exact);
    let start = Instant::now();
    loop {
        let styles = term.styles_of(&exact).unwrap_or_default();
        if !styles.is_empty() && styles.iter().all(|s| *s == styles[0]) {
            assert_ne!(
                styles[0].fg,
                vt100::Color::Default,
                "the row is coloured at all"
            );
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the row was never repainted in the comment's colour; first seen as {first:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
}

#[test]
fn a_large_commit_is_counted_scrolls_to_its_last_file_and_says_goodbye_in_words() {
    use crate::common::{sha, workspace_with};
    let names: Vec<String> = (0..60).map(|i| format!("mod{i:02}.txt")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"old\n"[..])).collect();
    let ws = workspace_with(&files);
    let batch: Vec<serde_json::Value> = names
        .iter()
        .map(|n| {
            serde_json::json!({"docPath": n, "originalSha256": sha(b"old\n"), "changes": [
                {"operation": "replace", "startLine": 1, "endLine": 1,
                 "expectedOriginalLines": ["old"], "newLines": ["new"]}]})
        })
        .collect();
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("batch.json");
    std::fs::write(&path, serde_json::json!({"files": batch}).to_string()).unwrap();
    let mut term = Terminal::start(
        home.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            path.to_str().unwrap(),
        ],
        &[("NO_COLOR", "1")],
    );
    term.wait_for("0/60 decided");
    term.keys(&["V"]);
    term.wait_for("60 undecided change(s) verify");
    term.keys(&["y"]);
    term.wait_for("60/60 decided");
    term.keys(&["c"]);
    let summary = term.wait_for("Commit: all of these, or nothing");
    assert!(
        summary.contains("60 file(s) to write: 60 modified  60 change(s)  +60 -60"),
        "{summary}"
    );
    term.keys(&["y"]);
    let done = term.wait_for("Committed");
    assert!(done.contains("wrote 60 file(s): 60 modified"), "{done}");
    assert!(
        done.contains("`patchdeck undo` restores every file"),
        "{done}"
    );
    assert!(
        !done.contains("mod59.txt"),
        "the list is longer than the screen"
    );
    term.keys(&["G"]);
    term.wait_for("mod59.txt");
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(
        screen.contains("patchdeck: wrote 60 file(s): 60 modified (mod00.txt, mod01.txt, mod02.txt, … and 57 more)"),
        "{screen}"
    );
    assert!(
        screen.contains("patchdeck: `patchdeck undo` restores every file"),
        "{screen}"
    );
    assert!(!screen.contains("Modify"), "no debug names: {screen}");
    assert_eq!(
        std::fs::read(ws.path().join("mod59.txt")).unwrap(),
        b"new\n"
    );
}

#[test]
fn demo_dir_reopens_the_demo_as_it_was_left() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("demo");
    let args = ["demo", "--dir", dir.to_str().unwrap()];
    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    term.wait_for("0/9 decided");
    term.keys(&["r"]);
    term.wait_for("1/9 decided");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    let mut term = Terminal::start(home.path(), &args, &[("NO_COLOR", "1")]);
    // The status line is the frame's last row: waiting for the header alone could read a
    // frame still arriving.
    term.wait_until("the resumed demo with its status line", |screen| {
        screen.contains("1/9 decided") && screen.contains("resumed 1 decision(s)")
    });
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(screen.contains("reopening the demo in"), "{screen}");
}
