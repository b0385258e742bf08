//! The flags that shape what the command line prints: colour follows `NO_COLOR`,
//! `CLICOLOR_FORCE` and `--color`, decided in one place, and JSON is never coloured; `--quiet`
//! prints nothing but errors and lets the exit status say the rest; `diff`, `undo` and
//! `recover` speak JSON with `--json`; and the global flags may come before the default review
//! command.

use crate::common::clean_env::{batch, json, run_in, text};
use crate::common::sample_workspace;

#[test]
fn colour_follows_no_color_clicolor_force_and_the_flag() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let root = ws.path().to_str().unwrap();
    let demo = batch("demo.json");
    let check = |args: &[&str], env: &[(&str, &str)]| {
        let mut all = vec!["check", "--root", root, &demo];
        all.extend_from_slice(args);
        let out = run_in(None, home.path(), &all, env);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        text(&out.stdout).contains("\x1b[")
    };
    assert!(!check(&[], &[]), "not a terminal: no colour");
    assert!(check(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!check(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(
        !check(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
        "NO_COLOR wins"
    );
    assert!(
        check(&["--color", "always"], &[("NO_COLOR", "1")]),
        "the flag wins"
    );
    assert!(!check(&["--color=never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(
        !check(&["--json", "--color", "always"], &[]),
        "JSON is never coloured"
    );

    let out = run_in(
        None,
        home.path(),
        &[
            "diff",
            "--color",
            "always",
            "--root",
            root,
            &batch("clean.json"),
        ],
        &[],
    );
    let diff = text(&out.stdout);
    assert!(diff.contains("\x1b[32m+"), "{diff}");
    assert!(diff.contains("\x1b[31m-"), "{diff}");
    let out = run_in(
        None,
        home.path(),
        &["diff", "--root", root, &batch("clean.json")],
        &[],
    );
    assert!(!text(&out.stdout).contains('\x1b'));
    assert!(
        text(&out.stderr).is_empty(),
        "no progress when stderr is not a terminal"
    );
}

#[test]
fn color_decisions_in_one_place() {
    use patchdeck::config::ColorChoice;
    assert!(ColorChoice::Auto.enabled(true));
    assert!(!ColorChoice::Auto.enabled(false));
    assert!(ColorChoice::Always.enabled(false));
    assert!(!ColorChoice::Never.enabled(true));
}

#[test]
fn quiet_prints_nothing_and_the_status_says_the_rest() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let root = ws.path().to_str().unwrap();
    let out = run_in(
        None,
        home.path(),
        &["-q", "check", "--root", root, &batch("demo.json")],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let out = run_in(
        None,
        home.path(),
        &["apply", "--quiet", "--root", root, &batch("clean.json")],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        text(&out.stdout)
    );
    // Errors still show.
    let out = run_in(
        None,
        home.path(),
        &["-q", "check", "--root", root, "/no/such/batch.json"],
        &[],
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("error"));
}

#[test]
fn diff_undo_and_recover_speak_json() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let root = ws.path().to_str().unwrap();
    let clean = batch("clean.json");
    let out = run_in(
        None,
        home.path(),
        &["diff", "--json", "--root", root, &clean],
        &[],
    );
    let diff = json(&out);
    let files = diff["files"].as_array().unwrap();
    assert!(!files.is_empty());
    assert!(files.iter().any(|f| f["path"] == "src/app.py"
        && f["action"] == "modify"
        && f["diff"].as_str().unwrap().contains("+        log.info(")));

    let out = run_in(
        None,
        home.path(),
        &["apply", "--json", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(None, home.path(), &["undo", "--json", "--root", root], &[]);
    let undone = json(&out);
    assert!(undone["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["path"] == "src/app.py" && f["action"] == "restored"));
    let out = run_in(
        None,
        home.path(),
        &["recover", "--json", "--root", root],
        &[],
    );
    assert_eq!(json(&out)["recovered"], false);
}

#[test]
fn global_flags_may_come_before_the_default_review_command() {
    let home = tempfile::tempdir().unwrap();
    // `patchdeck -q --color never BATCH` means review, which needs a terminal: the error says
    // so rather than clap rejecting the flags.
    let out = run_in(
        None,
        home.path(),
        &["-q", "--color", "never", &batch("clean.json")],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the reviewer needs a terminal"),
        "{}",
        text(&out.stderr)
    );
}
