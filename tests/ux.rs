//! How patchdeck fits a terminal and git: the configuration file and its precedence, remapped
//! keys in the footer and help, completions and the man page, uncommitted-change marks on a
//! real git repository, `apply --stage`, colour decisions, `--quiet` and `--json`.

use crate::common::reviewer;
use crate::common::{copy_tree, git, sample_workspace, samples};
use patchdeck::config::{Config, KeyOverride, Origin, Sources};
use patchdeck::tui::draw::draw;
use patchdeck::tui::keys::{Action, Key, KeyMap, Mode};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// The real binary with a clean, chosen environment: no config file unless `home` holds one,
/// no colour variables unless given.
fn run_in(dir: Option<&Path>, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&output.stdout)))
}

/// A home folder whose `~/.config/patchdeck/config.toml` holds `config`.
fn home_with(config: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/patchdeck");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("config.toml"), config).unwrap();
    home
}

fn batch(name: &str) -> String {
    samples().join(name).display().to_string()
}

// ---- configuration ----

#[test]
fn precedence_is_defaults_then_file_then_environment_then_flags() {
    let home = home_with("theme = \"light\"\ncolor = \"never\"\nmax_tokens = 10\n");
    let out = run_in(None, home.path(), &["config", "--print"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let file = home.path().join(".config/patchdeck/config.toml");
    assert!(
        printed.contains(&format!("theme = \"light\"  # {}:1", file.display())),
        "{printed}"
    );
    assert!(printed.contains("max_tokens = 10  #"), "{printed}");
    assert!(printed.contains("stage = false  # default"), "{printed}");

    // The environment over the file.
    let out = run_in(
        None,
        home.path(),
        &["config", "--print"],
        &[
            ("PATCHDECK_THEME", "high-contrast"),
            ("CLICOLOR_FORCE", "1"),
        ],
    );
    let printed = text(&out.stdout);
    assert!(
        printed.contains("theme = \"high-contrast\"  # environment PATCHDECK_THEME"),
        "{printed}"
    );
    assert!(
        printed.contains("color = \"always\"  # environment CLICOLOR_FORCE"),
        "{printed}"
    );

    // A flag over both.
    let out = run_in(
        None,
        home.path(),
        &["--color", "never", "config", "--print"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(text(&out.stdout).contains("color = \"never\"  # flag --color"));

    // XDG_CONFIG_HOME comes before ~/.config.
    let xdg = tempfile::tempdir().unwrap();
    fs::create_dir_all(xdg.path().join("patchdeck")).unwrap();
    fs::write(xdg.path().join("patchdeck/config.toml"), "stage = true\n").unwrap();
    let out = run_in(
        None,
        home.path(),
        &["config", "--print"],
        &[("XDG_CONFIG_HOME", xdg.path().to_str().unwrap())],
    );
    let printed = text(&out.stdout);
    assert!(printed.contains("stage = true"), "{printed}");
    assert!(printed.contains("theme = \"dark\"  # default"), "{printed}");
}

#[test]
fn the_config_files_max_tokens_is_used_and_the_flag_overrides_it() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    let home = home_with("max_tokens = 1\n");
    let edits = batch("edits-clean.json");
    let out = run_in(None, home.path(), &["check", "--root", root, &edits], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = run_in(
        None,
        home.path(),
        &["check", "--root", root, "--max-tokens", "0", &edits],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_bad_config_is_an_error_naming_file_line_and_key() {
    let home = home_with("theme = \"light\"\n\n[keys]\naccept = \"y\"\nthme = \"dark\"\n");
    // `thme` sits inside [keys]: an unknown action.
    let out = run_in(None, home.path(), &["config", "--print"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("config.toml:5: keys.thme: unknown action"),
        "{err}"
    );

    let home = home_with("theme = \"light\"\ncolour = \"never\"\n");
    let out = run_in(None, home.path(), &["config", "--print"], &[]);
    let err = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("config.toml:2: colour:"), "{err}");

    let home = home_with("color = \"sometimes\"\n");
    let out = run_in(None, home.path(), &["check", "x.json"], &[]);
    let err = text(&out.stderr);
    assert!(
        err.contains("config.toml:1: color: \"sometimes\" is not auto, always or never"),
        "{err}"
    );

    let home = home_with("");
    let out = run_in(
        None,
        home.path(),
        &["config", "--print"],
        &[("PATCHDECK_COLOR", "blue")],
    );
    assert!(
        text(&out.stderr).contains("PATCHDECK_COLOR"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn every_subcommand_checks_the_whole_config_the_same_way() {
    let ws = sample_workspace();
    let root = ws.path().to_str().unwrap();
    for (config, wanted) in [
        // An unknown action (check accepted it; config and review refused it).
        (
            "[keys]\nfrobnicate = \"x\"\n",
            "config.toml:2: keys.frobnicate: unknown action",
        ),
        // A key left meaning two actions: where it was written, with the same prefix and hint.
        (
            "theme = \"light\"\n[keys]\naccept = \"r\"\n",
            "config.toml:3: keys.accept: key r would mean both accept and reject",
        ),
        // An unknown theme (config --print showed it without a word).
        (
            "theme = \"solarised\"\n",
            "config.toml:1: theme: \"solarised\" is neither a bundled theme",
        ),
        ("theme = 3\n", "config.toml:1: theme: expected a string"),
    ] {
        let home = home_with(config);
        for args in [
            vec!["check", "--root", root, &batch("clean.json")],
            vec!["config", "--print"],
            vec!["config", "--json"],
            vec!["review", "--root", root, &batch("clean.json")],
        ] {
            let out = run_in(None, home.path(), &args, &[]);
            assert_eq!(out.status.code(), Some(2), "{args:?} with {config:?}");
            let err = text(&out.stderr);
            assert!(
                err.contains("patchdeck: error: bad configuration: ") && err.contains(wanted),
                "{args:?} with {config:?}: {err}"
            );
            assert!(err.contains("\nhint: fix or remove that setting"), "{err}");
        }
    }
}

#[test]
fn config_speaks_json_and_names_a_dumb_terminal() {
    let home = home_with("stage = true\n");
    let out = run_in(
        None,
        home.path(),
        &["config", "--json"],
        &[("TERM", "dumb")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let config = json(&out);
    assert_eq!(config["stage"]["value"], true);
    assert!(config["stage"]["origin"]
        .as_str()
        .unwrap()
        .ends_with("config.toml:1"));
    assert_eq!(config["max_tokens"]["value"], 60000);
    assert_eq!(config["color"]["value"], "auto");
    assert_eq!(config["dumbTerminal"], true);
    assert_eq!(config["keys"]["accept"]["keys"], serde_json::json!(["a"]));
    assert_eq!(config["keys"]["accept"]["origin"], "default");
    let out = run_in(
        None,
        home.path(),
        &["config", "--print"],
        &[("TERM", "dumb")],
    );
    assert!(
        text(&out.stdout).contains("no colour: TERM=dumb"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn sources_injected_by_a_test_never_read_the_real_home() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    fs::write(&path, "[keys]\naccept = [\"y\", \"Enter\"]\n").unwrap();
    let sources = Sources {
        file: Some(path.clone()),
        env: Default::default(),
    };
    let config = Config::load(&sources).unwrap();
    assert_eq!(config.file.as_deref(), Some(path.as_path()));
    assert_eq!(
        config.keys[0].origin,
        Origin::File {
            path: path.clone(),
            line: 2
        }
    );
    // A missing default file is no error.
    let sources = Sources {
        file: Some(dir.path().join("absent.toml")),
        env: Default::default(),
    };
    assert_eq!(Config::load(&sources).unwrap(), Config::default());
}

// ---- keys ----

fn remap(pairs: &[(&str, &[&str])]) -> Result<KeyMap, String> {
    let overrides: Vec<KeyOverride> = pairs
        .iter()
        .enumerate()
        .map(|(i, (action, keys))| KeyOverride {
            action: (*action).to_owned(),
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            origin: Origin::File {
                path: "/c.toml".into(),
                line: i + 2,
            },
        })
        .collect();
    KeyMap::with_overrides(&overrides)
}

#[test]
fn remapped_keys_drive_the_reviewer_and_show_in_footer_and_help() {
    let keymap = remap(&[("accept", &["y"]), ("reject", &["x"]), ("help", &["H"])]).unwrap();
    assert_eq!(
        keymap.lookup(Mode::Browse, Key::Char('y')),
        Some(Action::Accept)
    );
    assert_eq!(keymap.lookup(Mode::Browse, Key::Char('a')), None);

    let ws = sample_workspace();
    let mut app = reviewer::open(ws.path(), reviewer::Open::default());
    app.keymap = keymap;
    let footer: String = patchdeck::tui::draw::footer_spans(&app, 200)
        .iter()
        .map(|s| s.content.to_string())
        .collect();
    assert!(footer.contains(" y accept"), "{footer}");
    assert!(footer.contains(" x reject"), "{footer}");
    assert!(footer.contains(" H help"), "{footer}");
    assert!(!footer.contains(" a accept"), "{footer}");

    // The remapped key decides; the old one no longer does.
    let first = app.pos;
    app.key(Key::Char('a'));
    assert!(app.decisions().decided().is_empty());
    app.key(Key::Char('y'));
    assert_eq!(
        app.decisions().decided().len(),
        1,
        "y accepted change {first}"
    );

    app.key(Key::Char('H'));
    assert_eq!(app.mode(), Mode::Help);
    let mut terminal = Terminal::new(TestBackend::new(100, 60)).unwrap();
    app.size = (100, 60);
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let screen: String = (0..60)
        .map(|y| {
            (0..100)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect::<String>()
                + "\n"
        })
        .collect();
    let accept_line = screen
        .lines()
        .find(|l| l.contains("accept the change"))
        .unwrap_or_else(|| panic!("help lists accept:\n{screen}"));
    assert!(accept_line.contains("│  y "), "{accept_line}");
    assert!(!accept_line.contains("│  a "), "{accept_line}");
}

#[test]
fn bad_key_remaps_say_where_and_why() {
    let error = remap(&[("acept", &["y"])]).unwrap_err();
    assert!(
        error.starts_with("/c.toml:2: keys.acept: unknown action"),
        "{error}"
    );
    let error = remap(&[("accept", &["Hyper-q"])]).unwrap_err();
    assert!(error.contains("\"Hyper-q\" is not a key name"), "{error}");
    // `r` still means reject: a clash, unless reject moves too.
    let error = remap(&[("accept", &["r"])]).unwrap_err();
    assert!(
        error.contains("would mean both accept and reject"),
        "{error}"
    );
    let swapped = remap(&[("accept", &["r"]), ("reject", &["a"])]).unwrap();
    assert_eq!(
        swapped.lookup(Mode::Browse, Key::Char('r')),
        Some(Action::Accept)
    );
    assert_eq!(
        swapped.lookup(Mode::Browse, Key::Char('a')),
        Some(Action::Reject)
    );
    let ctrl = remap(&[("redo", &["C-y", "Space"]), ("page_down", &["PageDown"])]).unwrap();
    assert_eq!(
        ctrl.lookup(Mode::Browse, Key::Ctrl('y')),
        Some(Action::Redo)
    );
    assert_eq!(
        ctrl.lookup(Mode::Browse, Key::Char(' ')),
        Some(Action::Redo)
    );
}

// ---- completions and man page ----

#[test]
fn completions_and_man_page_come_from_the_clap_definitions() {
    let home = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = run_in(None, home.path(), &["completions", shell], &[]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for word in [
            "check",
            "apply",
            "diff",
            "undo",
            "stage",
            "max-tokens",
            "color",
        ] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let out = run_in(None, home.path(), &["man"], &[]);
    assert!(out.status.success());
    let page = text(&out.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH patchdeck 1"),
        "{page}"
    );
    for word in [
        "patchdeck check",
        "patchdeck apply",
        "\\-\\-stage",
        "\\-\\-json",
        "NO_COLOR",
    ] {
        assert!(page.contains(word), "the man page lacks {word}");
    }
}

#[test]
fn every_subcommand_help_has_an_example_and_every_flag_a_default() {
    let home = tempfile::tempdir().unwrap();
    let out = run_in(None, home.path(), &["--help"], &[]);
    let top = text(&out.stdout);
    let names: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let out = run_in(None, home.path(), &[name, "--help"], &[]);
        let help = text(&out.stdout);
        assert!(
            help.contains("Example:\n  patchdeck"),
            "{name} --help has no example:\n{help}"
        );
        assert!(
            help.contains(&patchdeck::formats::MAX_TOKENS.to_string())
                || !help.contains("--max-tokens"),
            "{name}: the --max-tokens default is the real one"
        );
    }
}

// ---- git ----

fn notes_of(report: &Value, path: &str) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == path)
        .flat_map(|f| f["problems"].as_array().unwrap().clone())
        .filter(|p| p["blocking"] == false)
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn files_with_uncommitted_changes_are_marked_and_apply_stage_stages_what_it_wrote() {
    let repo = tempfile::tempdir().unwrap();
    // The workspace is a subfolder of the repository, as a monorepo package would be.
    let ws = repo.path().join("pkg");
    fs::create_dir(&ws).unwrap();
    copy_tree(&samples().join("workspace"), &ws);
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let home = tempfile::tempdir().unwrap();
    let root = ws.to_str().unwrap();
    let clean = batch("clean.json");

    // Committed and untouched: no note.
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(notes_of(&json(&out), "src/app.py").is_empty());

    // A local edit that the batch does not touch the lines of: still verifies, now noted.
    let app = ws.join("src/app.py");
    let mut bytes = fs::read(&app).unwrap();
    bytes.extend_from_slice(b"# local work\n");
    fs::write(&app, &bytes).unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    let report = json(&out);
    // The SHA differs now, so the file conflicts; the git note is there as well.
    assert_eq!(notes_of(&report, "src/app.py"), vec!["uncommitted_changes"]);
    let out = run_in(None, home.path(), &["check", "--root", root, &clean], &[]);
    let report_text = text(&out.stdout);
    assert!(
        report_text.contains("src/app.py: note: uncommitted_changes: "),
        "{report_text}"
    );
    assert!(!report_text.contains("\x1b["), "piped output has no colour");

    // The usual case: the agent wrote the batch against a working copy that git has not
    // recorded. It verifies (exit 0) and carries the note.
    let original = fs::read(&app).unwrap()[..bytes.len() - b"# local work\n".len()].to_vec();
    git(repo.path(), &["commit", "-qam", "local work committed"]);
    fs::write(&app, &original).unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        notes_of(&json(&out), "src/app.py"),
        vec!["uncommitted_changes"]
    );

    // Apply with --stage: the written files are staged, nothing else.
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "back to the batch's base"]);
    fs::write(ws.join("unrelated.txt"), "mine\n").unwrap();
    let out = run_in(
        None,
        home.path(),
        &["apply", "--stage", "--root", root, &clean],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    let staged: Vec<&str> = staged.lines().collect();
    assert!(staged.contains(&"pkg/src/app.py"), "{staged:?}");
    assert!(
        !staged.iter().any(|p| p.contains("unrelated")),
        "{staged:?}"
    );
    assert!(
        git(repo.path(), &["diff", "--name-only"]).is_empty(),
        "everything written is staged"
    );
}

#[test]
fn apply_stage_says_which_files_were_not_staged_and_reports_it_in_json() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), repo.path());
    fs::write(repo.path().join(".gitignore"), "docs/\n").unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let home = tempfile::tempdir().unwrap();
    let root = repo.path().to_str().unwrap();
    // clean.json writes six files, one of them docs/changelog.md, which git ignores.
    let out = run_in(
        None,
        home.path(),
        &[
            "apply",
            "--stage",
            "--json",
            "--root",
            root,
            &batch("clean.json"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let staging = &json(&out)["staging"];
    assert_eq!(staging["staged"].as_array().unwrap().len(), 5, "{staging}");
    assert_eq!(
        staging["notStaged"][0]["path"], "docs/changelog.md",
        "{staging}"
    );
    assert!(
        staging["notStaged"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("ignored"),
        "{staging}"
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: docs/changelog.md was written but not staged: ignored"),
        "{err}"
    );
    assert!(
        !err.contains("the files were written but not staged"),
        "{err}"
    );
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    assert_eq!(staged.lines().count(), 5, "{staged}");
}

#[test]
fn reading_the_git_status_never_takes_the_index_lock() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&samples().join("workspace"), repo.path());
    git(repo.path(), &["init", "-q"]);
    // A git that records GIT_OPTIONAL_LOCKS, then runs the real one.
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    let script = format!(
        "#!/bin/sh\necho \"$1 $2 $3 $4 locks=$GIT_OPTIONAL_LOCKS\" >> {}\nexec {} \"$@\"\n",
        log.display(),
        real.trim()
    );
    fs::write(bin.path().join("git"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(bin.path().join("git"), fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args([
            "check",
            "--root",
            repo.path().to_str().unwrap(),
            &batch("clean.json"),
        ])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let calls = fs::read_to_string(&log).unwrap();
    assert!(calls.contains("status"), "{calls}");
    for call in calls.lines() {
        assert!(call.ends_with("locks=0"), "{calls}");
    }
}

#[test]
fn outside_a_repository_nothing_is_marked_and_nothing_fails() {
    let ws = sample_workspace();
    let home = tempfile::tempdir().unwrap();
    let root = ws.path().to_str().unwrap();
    let out = run_in(
        None,
        home.path(),
        &["check", "--json", "--root", root, &batch("clean.json")],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stdout).contains("uncommitted_changes"));
    // Without git on the PATH at all.
    let out = Command::new(env!("CARGO_BIN_EXE_patchdeck"))
        .args([
            "apply",
            "--stage",
            "--json",
            "--root",
            root,
            &batch("clean.json"),
        ])
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

// ---- colour, quiet, json ----

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

#[test]
fn the_reviewer_marks_files_with_uncommitted_changes() {
    let ws = sample_workspace();
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "base"]);
    // HEAD moves on while the working copy keeps the bytes the batch was written against:
    // notes.txt verifies, and carries changes git has not recorded.
    let notes = ws.path().join("notes.txt");
    let original = fs::read(&notes).unwrap();
    fs::write(&notes, b"committed later\n").unwrap();
    git(ws.path(), &["commit", "-qam", "later"]);
    fs::write(&notes, &original).unwrap();
    let mut app = reviewer::open(ws.path(), reviewer::Open::default());
    let status = patchdeck::git::status(ws.path()).expect("a git work tree");
    assert!(
        status.dirty.contains_key(Path::new("notes.txt")),
        "{status:?}"
    );
    // Loading marked it: the reviewer asks git as `check` does.
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    app.size = (120, 40);
    terminal.draw(|frame| draw(frame, &app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let screen: Vec<String> = (0..40)
        .map(|y| {
            (0..120)
                .map(|x| buffer[(x, y)].symbol().to_owned())
                .collect()
        })
        .collect();
    let row = |path: &str| {
        screen
            .iter()
            .find(|l| l.contains(&format!(" {path} ")))
            .unwrap_or_else(|| panic!("{path} is listed:\n{}", screen.join("\n")))
            .clone()
    };
    assert!(
        row("notes.txt").contains("M notes.txt"),
        "{}",
        row("notes.txt")
    );
    let file = app
        .review()
        .batch()
        .files
        .iter()
        .position(|f| f.doc_path == "notes.txt")
        .unwrap();
    assert_eq!(
        app.review().verification().files[file].status,
        patchdeck::verify::Status::Ok,
        "the note does not block"
    );
    assert!(!row("src/Utils.py").contains("M src/Utils.py"));
}

/// With every reviewing action on another key, no message, hint, summary line or screen
/// names a default key: each sentence is made from the key map in effect.
#[test]
fn with_every_key_remapped_no_message_names_a_default_key() {
    use patchdeck::review::{At, Refusal, StillBlocking, Way};
    use patchdeck::tui::words::{Asked, Words};
    let keymap = remap(&[
        ("accept", &["Y"]),
        ("reject", &["B"]),
        ("edit", &["E"]),
        ("move", &["M"]),
        ("override_sha", &["O"]),
        ("commit", &["C"]),
        ("quit", &["Q"]),
        ("undo", &["Z"]),
        ("help", &["H"]),
    ])
    .unwrap();
    let mut said: Vec<String> = Vec::new();
    for batch in ["demo.json", "moved-line.json", "clean.json"] {
        let ws = sample_workspace();
        let mut app = reviewer::open(
            ws.path(),
            reviewer::Open {
                batch,
                session: false,
                keymap: keymap.clone(),
                ..reviewer::Open::default()
            },
        );
        app.size = (200, 60);
        let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
        let mut screen = |app: &patchdeck::tui::app::App| {
            terminal.draw(|frame| draw(frame, app)).unwrap();
            let buffer = terminal.backend().buffer().clone();
            (0..60)
                .map(|y| {
                    (0..200)
                        .map(|x| buffer[(x, y)].symbol().to_owned())
                        .collect::<String>()
                        + "\n"
                })
                .collect::<String>()
        };
        for pos in 0..app.flat.len() {
            for key in ["Y", "Z", "M", "O", "B", "Z", "E"] {
                app.go(pos);
                said.push(screen(&app));
                let effect = app.key(Key::Char(key.chars().next().unwrap()));
                if let patchdeck::tui::app::Effect::RunEditor { .. } = effect {
                    continue;
                }
                said.extend(app.message.as_ref().map(|m| m.text.clone()));
            }
        }
        // Move and override where that works, accept the rest, then the summary.
        for pos in 0..app.flat.len() {
            app.go(pos);
            app.key(Key::Char('M'));
            app.key(Key::Char('O'));
            app.key(Key::Char('Y'));
            said.extend(app.message.as_ref().map(|m| m.text.clone()));
            said.push(screen(&app));
        }
        app.key(Key::Char('C'));
        said.extend(app.summary_lines().iter().map(|l| l.text.clone()));
        said.push(screen(&app));
        // Every refusal the core can give, in this key map's words.
        let words = Words::new(&keymap);
        let at = At::default();
        let refusals = [
            Refusal::Unplaced { places: vec![] },
            Refusal::Unplaced { places: vec![3, 9] },
            Refusal::Invalid { why: "x".into() },
            Refusal::Conflict {
                ways: vec![Way::Edit, Way::Relocate { to: 4 }, Way::Reject],
            },
            Refusal::Deletion,
            Refusal::NotInFile,
            Refusal::NoPlace { why: "x".into() },
            Refusal::NothingToTake,
            Refusal::NothingToOverride,
            Refusal::Unresolved {
                changes: vec![StillBlocking {
                    at,
                    stuck: patchdeck::review::rules::Stuck::UnverifiedUnderOverride,
                    ways: vec![Way::Edit, Way::Relocate { to: 2 }, Way::Reject],
                }],
            },
        ];
        for refusal in &refusals {
            for asked in [Asked::Accept, Asked::Edit, Asked::Relocate, Asked::Override] {
                said.push(words.refusal(asked, refusal, app.review()));
            }
        }
        said.extend([
            words.committed(),
            words.all_decided(),
            words.accepted_before_override(patchdeck::review::FileOverride::Sha),
            words.accepted_before_override(patchdeck::review::FileOverride::Overwrite),
            words.edit_unchanged(),
        ]);
    }
    let defaults = [
        "a accept",
        "r reject",
        "e edit",
        "m move",
        "o override",
        "c shows",
        "q quits",
        "u undo",
        "(m undoes)",
        "(o undoes)",
        "(m takes",
        "(o takes",
        "o on a change",
        "m on the change",
        "then o ",
        "r rejects",
        "e edits",
        "m moves",
    ];
    // `phrase` as words of their own: "or rejected" does not name the key r.
    let names = |text: &str, phrase: &str| {
        text.match_indices(phrase).any(|(at, _)| {
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
    };
    for text in &said {
        for default in defaults {
            assert!(
                !names(text, default),
                "names the default key ({default:?}):\n{text}"
            );
        }
    }
    let all = said.join("\n");
    for remapped in [
        "M moves",
        "B rejects",
        "E edits",
        "O overrides",
        "Q quits",
        "C shows",
    ] {
        assert!(all.contains(remapped), "no message says {remapped:?}");
    }
}
