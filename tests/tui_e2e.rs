//! End to end: the real binary in a real terminal (tmux), keys pressed as a person would,
//! the screen read back, and the bytes on disk checked after the commit.
//!
//! Each test runs its own tmux server (`-L` with a unique name) and polls the screen with a
//! generous timeout, so a loaded machine slows the tests down but does not fail them.

mod tui_support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use tui_support::{editor_script, samples, workspace};

const TIMEOUT: Duration = Duration::from_secs(20);

struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` in a detached 120x40 session.
    fn start(name: &str, command: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("tmux is not installed: skipping (CI installs it)");
            return None;
        }
        let socket = format!("patchdeck-e2e-{name}-{}", std::process::id());
        let tmux = Tmux { socket };
        let status = tmux
            .cmd(&["new-session", "-d", "-x", "120", "-y", "40", command])
            .status()
            .unwrap();
        assert!(status.success(), "tmux could not start");
        Some(tmux)
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut command = Command::new("tmux");
        command
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args);
        command
    }

    /// The screen with its colours (SGR escapes).
    fn screen_in_colour(&self) -> String {
        let output = self.cmd(&["capture-pane", "-p", "-e"]).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn screen(&self) -> String {
        let output = self.cmd(&["capture-pane", "-p"]).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen shows `needle`.
    fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                panic!("waited {TIMEOUT:?} for {needle:?}; the screen shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Presses keys (tmux key names: "j", "Enter", "Escape"...).
    fn keys(&self, keys: &[&str]) {
        for key in keys {
            let status = self.cmd(&["send-keys", key]).status().unwrap();
            assert!(status.success());
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

fn quote(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// The shell command that runs patchdeck, then waits so the pane (and its last words) stay.
fn patchdeck(env: &str, args: &str) -> String {
    format!(
        "env TERM=xterm-256color {env} {} {args}; echo \"exit status $?\"; sleep 60",
        env!("CARGO_BIN_EXE_patchdeck")
    )
}

#[test]
fn review_accept_edit_reject_and_commit_writes_the_bytes() {
    let ws = workspace();
    let tools = tempfile::tempdir().unwrap();
    let editor = editor_script(
        tools.path(),
        "edit.sh",
        "sed -i 's/^+.*if not name:$/+        if not name or not name.strip():/' \"$1\"",
    );
    let report = tools.path().join("report.json");
    let command = patchdeck(
        &format!("EDITOR={editor} NO_COLOR=1"),
        &format!(
            "--root {} --report {} {}",
            quote(ws.path()),
            quote(&report),
            quote(&samples().join("demo.json"))
        ),
    );
    let Some(tmux) = Tmux::start("commit", &command) else {
        return;
    };
    tmux.wait_for("1/4 log-load");
    tmux.keys(&["a"]); // accept log-load, on to validate-name
    tmux.wait_for("2/4 validate-name");
    tmux.keys(&["e"]); // edit it with the script
    tmux.wait_for("✎ 1 ");
    // Now on the conflict: accepting is refused, moving it resolves it.
    tmux.wait_for("3/4 clearer-error");
    tmux.keys(&["a"]);
    tmux.wait_for("cannot simply be accepted");
    tmux.keys(&["m"]); // moves it, accepts it and goes on to drop-demo-add
    tmux.wait_for("moved to line 30");
    tmux.wait_for("4/4 drop-demo-add");
    tmux.keys(&["r"]); // reject drop-demo-add
    tmux.wait_for("accept-whitespace");
    tmux.keys(&["c"]);
    let summary = tmux.wait_for("Commit: all of these, or nothing");
    assert!(
        summary.contains("write  src/app.py  3 of 4 change(s) (1 edited)"),
        "{summary}"
    );
    assert!(
        summary.contains("override:"),
        "the move is listed: {summary}"
    );
    tmux.keys(&["y"]);
    let done = tmux.wait_for("Committed");
    assert!(done.contains("sha256 "), "{done}");
    tmux.keys(&["q"]);
    tmux.wait_for("exit status 0");

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
    let ws = workspace();
    let batch = samples().join("demo.json");
    let command = patchdeck(
        "NO_COLOR=1",
        &format!("--root {} {}", quote(ws.path()), quote(&batch)),
    );
    let Some(tmux) = Tmux::start("resume", &command) else {
        return;
    };
    tmux.wait_for("1/4 log-load");
    tmux.keys(&["r", "r"]);
    tmux.wait_for("2/9 decided");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("exit status 0");
    assert!(screen.contains("2 decision(s) saved in"), "{screen}");
    drop(tmux);

    let Some(tmux) = Tmux::start("resume2", &command) else {
        return;
    };
    let screen = tmux.wait_for("resumed 2 decision(s)");
    assert!(
        screen.contains("3/4 clearer-error"),
        "resumes at the first undecided: {screen}"
    );
    tmux.keys(&["j", "a"]);
    tmux.wait_for("3/9 decided");
    tmux.keys(&["u"]);
    tmux.wait_for("2/9 decided");
    tmux.keys(&["q"]);
    tmux.wait_for("exit status 0");
}

#[test]
fn demo_opens_on_its_own_copy_and_read_only_refuses_to_commit() {
    let tools = tempfile::tempdir().unwrap();
    let dir = tools.path().join("demo");
    let command = patchdeck("", &format!("demo --dir {}", quote(&dir)));
    let Some(tmux) = Tmux::start("demo", &command) else {
        return;
    };
    let screen = tmux.wait_for("Demo: inventory cleanup");
    assert!(screen.contains("⚠ 2 conflict(s)"), "{screen}");
    tmux.keys(&["?"]);
    tmux.wait_for("Esc/?/q close");
    // `?` closes the help (an Esc right before another key reads as Alt+key).
    tmux.keys(&["?"]);
    tmux.wait_for("? help");
    tmux.keys(&["q"]);
    tmux.wait_for("exit status 0");
    assert!(dir.join("workspace/src/app.py").exists());

    let ws = workspace();
    let before = std::fs::read(ws.path().join("src/app.py")).unwrap();
    let command = patchdeck(
        "",
        &format!(
            "review --read-only --root {} {}",
            quote(ws.path()),
            quote(&samples().join("demo.json"))
        ),
    );
    let Some(tmux) = Tmux::start("readonly", &command) else {
        return;
    };
    tmux.wait_for("READ-ONLY");
    tmux.keys(&["a", "c", "y"]);
    tmux.wait_for("disabled in Restricted mode");
    assert_eq!(std::fs::read(ws.path().join("src/app.py")).unwrap(), before);
}

#[test]
fn a_session_that_cannot_be_saved_is_never_called_saved() {
    let ws = workspace();
    // The state folder cannot be made: a file is in its way.
    std::fs::write(ws.path().join(".patchdeck"), "in the way").unwrap();
    let command = patchdeck(
        "NO_COLOR=1",
        &format!(
            "--root {} {}",
            quote(ws.path()),
            quote(&samples().join("demo.json"))
        ),
    );
    let Some(tmux) = Tmux::start("unsaved", &command) else {
        return;
    };
    tmux.wait_for("1/4 log-load");
    tmux.keys(&["a"]);
    tmux.wait_for("2/4 validate-name");
    tmux.keys(&["j", "k"]);
    // The failure stays on screen, key after key.
    tmux.wait_for("SESSION NOT SAVED");
    tmux.keys(&["q"]);
    let prompt = tmux.wait_for("Quit and lose 1 decision(s)?");
    assert!(prompt.contains("session not saved"), "{prompt}");
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("exit status 0");
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
    let tools = tempfile::tempdir().unwrap();
    let batch_path = tools.path().join("deep.json");
    std::fs::write(&batch_path, batch.to_string()).unwrap();
    let command = patchdeck(
        "COLORTERM=truecolor",
        &format!("--root {} {}", quote(ws.path()), quote(&batch_path)),
    );
    let Some(tmux) = Tmux::start("repaint", &command) else {
        return;
    };
    let context = format!("inside_{}", at - 2);
    tmux.wait_for(&context);
    let row = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains(&context))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    // Inside the comment the whole line is one run of the comment's colour; provisionally
    // it is coloured as code (`let` a keyword, the call a function), escapes between them.
    // The first frame is always provisional, but on a loaded machine the parser may finish
    // before tmux first looks, so the test waits for the exact colours rather than a change.
    let exact = format!("let inside_{n} = the_comment({n});", n = at - 2);
    let first = row(&tmux.screen_in_colour());
    let start = Instant::now();
    while !row(&tmux.screen_in_colour()).contains(&exact) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the row was never repainted in the comment's colour:\n{first}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.keys(&["q"]);
    tmux.wait_for("exit status 0");
}
