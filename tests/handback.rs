//! Handing a batch back from the reviewer: `F` writes the feedback for the model, `X` the batch
//! as decided; the status line says where, and what is written is what the commands print.

use crate::common::reviewer::{open, open_demo, press, select, Open};
use crate::common::{copy_tree, patchdeck, sample_workspace, samples, stderr, user_tree};
use std::fs;
use std::path::PathBuf;

/// The path the status line names after "written to " or the export's ": ".
fn said_path(text: &str, after: &str) -> PathBuf {
    let start = text.find(after).unwrap_or_else(|| panic!("{text}")) + after.len();
    let rest = &text[start..];
    PathBuf::from(rest.split(' ').next().unwrap())
}

#[test]
fn feedback_from_the_reviewer_names_the_open_conflicts_and_quotes_the_disk() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    press(&mut app, "F");
    let text = app.message.as_ref().unwrap().text.clone();
    assert!(
        text.starts_with("feedback on 1 failed change(s): written to "),
        "{text}"
    );
    let path = said_path(&text, "written to ");
    assert!(
        path.starts_with(ws.path().join(".patchdeck/handback")),
        "{}",
        path.display()
    );
    let written = fs::read_to_string(&path).unwrap();
    assert!(written.contains("clearer-error"), "{written}");
    let app_py = fs::read_to_string(ws.path().join("src/app.py")).unwrap();
    let line_32 = app_py.lines().nth(31).unwrap();
    assert!(
        written.contains(line_32.trim()),
        "quotes line 32 as it is on disk:\n{written}"
    );
    // What the command prints, as decided here: nothing decided yet.
    assert!(
        written.contains("replace line 32, conflict, left undecided"),
        "{written}"
    );
    let out = patchdeck(&[
        "feedback",
        "--root",
        ws.path().to_str().unwrap(),
        samples().join("demo.json").to_str().unwrap(),
    ]);
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        printed.replace(", left undecided", ""),
        written.replace(", left undecided", ""),
        "{}",
        stderr(&out)
    );
    // The state folder stays out of git's sight.
    assert!(ws.path().join(".patchdeck/.gitignore").exists());
}

#[test]
fn an_export_from_the_reviewer_applies_to_what_committing_there_writes() {
    let ws = sample_workspace();
    let twin = tempfile::tempdir().unwrap();
    copy_tree(ws.path(), twin.path());
    let mut app = open_demo(ws.path());
    // Refused while an accepted change cannot be written, saying why.
    press(&mut app, "V");
    press(&mut app, "y");
    select(&mut app, "debug-logs");
    press(&mut app, "a"); // its file's SHA-256 differs: blocked until overridden
    press(&mut app, "X");
    let refused = app.message.as_ref().unwrap().text.clone();
    assert!(refused.starts_with("nothing exported: "), "{refused}");
    assert!(refused.contains("src/inventory.toml"), "{refused}");
    select(&mut app, "debug-logs");
    press(&mut app, "o");
    select(&mut app, "clearer-error");
    press(&mut app, "m");
    press(&mut app, "X");
    let text = app.message.as_ref().unwrap().text.clone();
    assert!(
        text.starts_with("exported 9 change(s) in 6 file(s) as decided: "),
        "{text}"
    );
    let export = said_path(&text, "as decided: ");
    let kept = twin.path().join("export.json");
    fs::copy(&export, &kept).unwrap();
    // Commit in the reviewer; apply the export, plainly, to the twin.
    press(&mut app, "cy");
    let out = patchdeck(&[
        "apply",
        "--root",
        twin.path().to_str().unwrap(),
        kept.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    fs::remove_file(&kept).unwrap();
    let mut written = user_tree(ws.path());
    let mut applied = user_tree(twin.path());
    written.retain(|p, _| !p.starts_with(".patchdeck"));
    applied.retain(|p, _| !p.starts_with(".patchdeck"));
    assert_eq!(written, applied);
}

#[test]
fn read_only_hands_nothing_back() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            read_only: true,
            session: false,
            ..Open::default()
        },
    );
    press(&mut app, "F");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("read-only: nothing is written; `patchdeck feedback INPUT` prints it"));
    press(&mut app, "X");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("`patchdeck export INPUT`"));
    assert!(!ws.path().join(".patchdeck").exists());
}
