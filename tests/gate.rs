//! `patchdeck gate` end to end: the real binary waiting in a pseudo-terminal, an agent (rmcp's
//! own client driving the real `patchdeck mcp`) whose write call waits while a person decides,
//! and the bytes on disk afterwards.

use crate::common::mcp::Agent;
use crate::common::terminal::Terminal;
use crate::common::{patchdeck_env, stderr};
use crate::mcp::{clean_batch, workspace, APP, NOTES};
use std::fs;
use std::path::Path;

const APP_DOCUMENTED: &[u8] =
    b"def load():\n    \"\"\"Load the items.\"\"\"\n    return []\n\ndef save(items):\n    pass\n";

/// A user's runtime folder (`XDG_RUNTIME_DIR`): private, as the standard has it.
fn runtime() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// The gate in a terminal for the workspace at `root`, its socket under `runtime`.
fn gate(home: &Path, root: &Path, runtime: &Path) -> Terminal {
    let runtime = runtime.to_str().unwrap();
    let term = Terminal::start(
        home,
        &["gate", "--root", root.to_str().unwrap()],
        &[("NO_COLOR", "1"), ("XDG_RUNTIME_DIR", runtime)],
    );
    term.wait_for("Waiting for a batch from a coding agent");
    term
}

/// The issue's whole loop: the agent writes a batch of two files; the person takes one change,
/// rejects another with a note and a third without, writes a note on the batch and commits;
/// the call returns each outcome with the notes, in the TUL-002 response; the files hold
/// exactly the change taken, and `patchdeck undo` takes it back.
#[tokio::test]
async fn an_agent_waits_while_a_person_takes_one_change_and_rejects_the_rest_with_reasons() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let agent = Agent::start_with(ws.path(), &[], &[("XDG_RUNTIME_DIR", runtime.path())]).await;

    let person = tokio::task::spawn_blocking(move || {
        let screen = term.wait_for("1/2 doc-load");
        assert!(
            screen.contains("from rmcp (workspace_write_patch)"),
            "{screen}"
        );
        term.keys(&["a"]); // take doc-load; on to save-body
        term.wait_for("2/2 save-body");
        term.keys(&["t", "keep pass: save is a stub until the store lands", "\r"]);
        term.wait_for("rejected app.py#2 \"save-body\", with a note");
        term.keys(&["j"]);
        term.wait_for("1/1 third");
        term.keys(&["r", "M", "thanks, the docstring is good", "\r"]);
        term.wait_for("note on the batch kept");
        term.wait_for("note: thanks, the docstring is good");
        term.keys(&["c"]);
        term.wait_for("Commit: all of these, or nothing");
        term.keys(&["y"]);
        term.wait_for("Committed");
        term.keys(&["q"]);
        term.wait_for("Answered: 1 batch(es)");
        term
    });
    let answer = agent.call("workspace_write_patch", clean_batch()).await;
    let mut term = person.await.unwrap();

    assert!(!answer.is_error, "{}", answer.text);
    let result = &answer.structured;
    assert_eq!(
        answer.outcomes(),
        ["applied", "rejected", "rejected"],
        "{result:#}"
    );
    assert_eq!(result["reviewed"], true);
    assert_eq!(result["committed"], true);
    assert_eq!(result["batchKey"], "docs-and-save");
    assert_eq!(result["note"], "thanks, the docstring is good");
    let changes = &result["files"][0]["changes"];
    assert_eq!(changes[0]["changeKey"], "doc-load");
    assert_eq!(changes[1]["changeKey"], "save-body");
    assert_eq!(
        changes[1]["note"],
        "keep pass: save is a stub until the store lands"
    );
    assert!(changes[0]["changeId"].as_str().unwrap().starts_with("chg-"));
    assert_eq!(result["written"].as_array().unwrap().len(), 1, "{result:#}");
    assert!(
        result["message"].as_str().unwrap().starts_with(
            "The reviewer took 1 of 3 change(s): written in one atomic commit (1 file(s))."
        ),
        "{result:#}"
    );
    let feedback = result["feedback"].as_str().unwrap();
    assert!(
        feedback.contains("The reviewer's note: keep pass: save is a stub until the store lands"),
        "{feedback}"
    );
    assert!(answer.text.contains("rejected"), "{}", answer.text);

    assert_eq!(fs::read(ws.path().join("app.py")).unwrap(), APP_DOCUMENTED);
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), NOTES);
    // The undo record is sealed with the key of the user the gate ran as (its HOME).
    let state = home.path().join(".local/state");
    let undo = patchdeck_env(
        &["undo", "--root", ws.path().to_str().unwrap()],
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("XDG_STATE_HOME", state.to_str().unwrap()),
        ],
    );
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert_eq!(fs::read(ws.path().join("app.py")).unwrap(), APP);

    agent.stop().await;
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    assert!(screen.contains("the gate answered 1 batch(es)"), "{screen}");
}

/// Two agents write at once: the second batch waits behind the first (the header counts it),
/// the person dismisses the first after rejecting a change with a note, and takes every
/// verified change of the second. Each call hears its own batch's answer.
#[tokio::test]
async fn batches_queue_and_a_dismissed_one_says_what_the_person_decided() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let env = [("XDG_RUNTIME_DIR", runtime.path())];
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let first = Agent::start_with(ws.path(), &[], &env).await;
    let second = Agent::start_with(ws.path(), &[], &env).await;

    let mut other = clean_batch();
    other["batchKey"] = "second-batch".into();
    let person = tokio::task::spawn_blocking(move || {
        term.wait_for("[docs-and-save]");
        term.wait_for("1 more waiting");
        term.keys(&["j", "t", "not yet", "\r"]);
        term.wait_for("rejected app.py#2 \"save-body\", with a note");
        term.keys(&["q"]);
        term.wait_for(
            "Dismiss this batch? Nothing is written; rmcp hears your 1 decision(s) and notes.",
        );
        term.keys(&["y"]);
        let screen = term.wait_for("[second-batch]");
        assert!(!screen.contains("more waiting"), "{screen}");
        term.keys(&["V"]);
        term.wait_for("3 undecided change(s) verify as they are");
        term.keys(&["y", "c"]);
        term.wait_for("Commit: all of these, or nothing");
        term.keys(&["y"]);
        term.wait_for("Committed");
        term.keys(&["q"]);
        term.wait_for("Answered: 2 batch(es)");
        term.keys(&["q"]);
        term.wait_exit()
    });
    let (answered_first, answered_second) =
        tokio::join!(first.call("workspace_write_patch", clean_batch()), async {
            // The second call is made once the first batch is in front of the person.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            second.call("workspace_write_patch", other).await
        });
    let (status, screen) = person.await.unwrap();
    assert_eq!(status, 0, "{screen}");

    let dismissed = &answered_first.structured;
    assert_eq!(
        answered_first.outcomes(),
        ["not_reviewed", "rejected", "not_reviewed"],
        "{dismissed:#}"
    );
    assert_eq!(dismissed["committed"], false);
    assert_eq!(dismissed["files"][0]["changes"][1]["note"], "not yet");
    assert_eq!(
        dismissed["message"],
        "The reviewer wrote nothing. Not written: 1 rejected (with the reviewer's note where they wrote one); 2 left undecided."
    );
    let taken = &answered_second.structured;
    assert_eq!(
        answered_second.outcomes(),
        ["applied", "applied", "applied"],
        "{taken:#}"
    );
    assert_eq!(taken["batchKey"], "second-batch");
    assert!(taken["undo"]
        .as_str()
        .unwrap()
        .starts_with("patchdeck undo --root "));
    assert_eq!(
        fs::read(ws.path().join("notes.txt")).unwrap(),
        b"first\nsecond\nthird\n"
    );
    first.stop().await;
    second.stop().await;
}

/// A call bounded by `--wait` hears progress while the batch waits for the person, then
/// "still under review"; the person is told the agent stopped waiting, and can still decide.
#[tokio::test]
async fn a_bounded_call_hears_progress_then_still_under_review() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let agent = Agent::start_with(
        ws.path(),
        &["--wait", "2"],
        &[("XDG_RUNTIME_DIR", runtime.path())],
    )
    .await;
    let answer = agent
        .call_with("workspace_write_patch", clean_batch(), Some("write-1"))
        .await;
    assert!(answer.is_error);
    assert!(
        answer.text.starts_with(
            "Still under review: a person has had the batch in patchdeck gate for up to 2 s"
        ),
        "{}",
        answer.text
    );
    let progress = agent.progress();
    assert!(
        progress
            .iter()
            .any(|m| m.starts_with("a person is reviewing it in patchdeck gate")),
        "{progress:?}"
    );
    agent.stop().await;
    let person = tokio::task::spawn_blocking(move || {
        term.wait_for("rmcp stopped waiting");
        term.keys(&["q"]);
        term.wait_for("Dismiss this batch? Nothing is written; rmcp stopped waiting");
        term.keys(&["y"]);
        term.wait_for("Answered: 1 batch(es)");
        term.keys(&["q"]);
        term.wait_exit()
    });
    let (status, screen) = person.await.unwrap();
    assert_eq!(status, 0, "{screen}");
    assert_eq!(fs::read(ws.path().join("app.py")).unwrap(), APP);
}

/// One gate a workspace: a second is refused while the first listens; once it is gone, a write
/// follows the server's unattended policy again, and says how to start the gate.
#[tokio::test]
async fn a_second_gate_is_refused_and_a_write_with_none_says_how_to_start_one() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let runtime_dir = runtime.path().to_str().unwrap();
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let mut second = Terminal::start(
        home.path(),
        &["gate", "--root", ws.path().to_str().unwrap()],
        &[("NO_COLOR", "1"), ("XDG_RUNTIME_DIR", runtime_dir)],
    );
    let (status, screen) = second.wait_exit();
    assert_eq!(status, 4, "{screen}");
    assert!(
        screen.contains("another patchdeck gate waits for this workspace already"),
        "{screen}"
    );
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);

    let agent = Agent::start_with(ws.path(), &[], &[("XDG_RUNTIME_DIR", runtime.path())]).await;
    let answer = agent.call("workspace_write_patch", clean_batch()).await;
    assert_eq!(answer.structured["reviewed"], false);
    assert_eq!(answer.structured["unattended"], "refuse");
    assert!(
        answer.text.contains("Ask the person to start the reviewer in a terminal in the workspace (`patchdeck gate`), then call again"),
        "{}",
        answer.text
    );
    agent.stop().await;
}

/// The gate's folder is private to the user: one that others can open is refused by the gate,
/// which says how to get out of it; the server finds no gate there (none of this user's could
/// listen in it), follows its policy, and says where it looked.
#[tokio::test]
async fn a_gate_folder_others_can_open_is_refused_and_the_server_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let folder = runtime.path().join("patchdeck");
    fs::create_dir(&folder).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o777)).unwrap();
    let runtime_dir = runtime.path().to_str().unwrap();
    let mut term = Terminal::start(
        home.path(),
        &["gate", "--root", ws.path().to_str().unwrap()],
        &[("NO_COLOR", "1"), ("XDG_RUNTIME_DIR", runtime_dir)],
    );
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 4, "{screen}");
    assert!(
        screen.contains("is not a private folder of this user: others may open it (mode 777)")
            && screen.contains("set XDG_RUNTIME_DIR to a folder only you can open"),
        "{screen}"
    );
    let agent = Agent::start_with(ws.path(), &[], &[("XDG_RUNTIME_DIR", runtime.path())]).await;
    let answer = agent.call("workspace_write_patch", clean_batch()).await;
    assert!(!answer.is_error, "{}", answer.text);
    let warnings = answer.structured["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.starts_with("no patchdeck gate can listen for ") && w.contains("mode 777")
        }),
        "{warnings:?}"
    );
    assert_eq!(fs::read(ws.path().join("app.py")).unwrap(), APP);
    agent.stop().await;
}

/// A caller that sends a batch and then reads nothing never stalls the person's screen: the
/// answer, larger than the socket holds, is written on a thread of its own.
#[test]
fn a_caller_that_never_reads_does_not_stall_the_gate() {
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let socket = socket_in(runtime.path());
    // 3,000 insertions: the answer, every one not reviewed, is far larger than a socket's
    // buffer.
    let big: String = (1..=3_000).map(|i| format!("line {i}\n")).collect();
    fs::write(ws.path().join("big.txt"), &big).unwrap();
    let changes: Vec<serde_json::Value> = (1..=3_000)
        .map(|i| serde_json::json!({"operation": "insert", "afterLine": i, "newLines": [format!("after {i}")]}))
        .collect();
    let batch = serde_json::json!({"batchKey": "big", "files": [
        {"docPath": "big.txt", "originalSha256": crate::common::sha(big.as_bytes()), "changes": changes}
    ]});
    let root = fs::canonicalize(ws.path()).unwrap();
    let request = serde_json::json!({"version": 1, "root": root.to_str().unwrap(),
        "agent": "mute", "tool": "workspace_write_patch", "format": "tul002",
        "text": batch.to_string()});
    let mut stream = UnixStream::connect(&socket).unwrap();
    stream.write_all(format!("{request}\n").as_bytes()).unwrap();
    term.wait_for("[big]");
    term.keys(&["q"]);
    term.wait_for("Dismiss this batch?");
    term.keys(&["y"]);
    term.wait_for("Answered: 1 batch(es)");
    term.keys(&["q"]);
    let (status, screen) = term.wait_exit();
    assert_eq!(status, 0, "{screen}");
    drop(stream);
}

/// A request the gate cannot take is answered with why: another version of the link, another
/// workspace.
#[test]
fn a_request_of_another_version_or_workspace_is_refused_with_why() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let mut term = gate(home.path(), ws.path(), runtime.path());
    let socket = socket_in(runtime.path());
    let root = fs::canonicalize(ws.path()).unwrap();
    let cases = [
        (
            serde_json::json!({"version": 2, "anything": "else"}),
            "this patchdeck gate speaks version 1 of the link, the server 2",
        ),
        (
            serde_json::json!({"version": 1, "root": "/somewhere/else", "agent": "a",
                "tool": "submit_patch", "format": null, "text": ""}),
            "this patchdeck gate reviews",
        ),
    ];
    for (request, said) in cases {
        let mut stream = UnixStream::connect(&socket).unwrap();
        stream.write_all(format!("{request}\n").as_bytes()).unwrap();
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).unwrap();
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["kind"], "refused", "{reply}");
        assert!(reply["message"].as_str().unwrap().contains(said), "{reply}");
    }
    assert!(root.is_dir());
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
}

/// The one socket the runtime folder holds (the gate's).
fn socket_in(runtime: &Path) -> std::path::PathBuf {
    fs::read_dir(runtime.join("patchdeck"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sock"))
        .expect("the gate's socket")
}
