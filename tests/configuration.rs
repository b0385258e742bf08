//! The configuration file and the environment (`docs/configuration.md`): defaults, then the
//! file (`$XDG_CONFIG_HOME` before `~/.config`), then the environment, then flags, each value
//! shown with where it came from (`config --print`, `config --json`); a bad setting is an error
//! naming file, line and key, the same from every subcommand; sources a test injects never read
//! the real home.

use crate::common::clean_env::{batch, json, run_in, text};
use crate::common::sample_workspace;
use patchdeck::config::{Config, Origin, Sources};
use std::fs;

/// A home folder whose `~/.config/patchdeck/config.toml` holds `config`.
fn home_with(config: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/patchdeck");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("config.toml"), config).unwrap();
    home
}

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
