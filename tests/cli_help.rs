//! What the binary says about itself, all made from the clap definitions: every subcommand's
//! `--help` has an example, and the real `--max-tokens` default wherever it takes that flag;
//! the shell completions (bash, zsh, fish) and the man page name the subcommands and flags.

use crate::common::clean_env::{run_in, text};

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
