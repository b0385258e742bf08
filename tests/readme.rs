//! The documentation says what the code does: the parts of it made from the code (the table of
//! problem kinds in `docs/cli.md`) are checked here against the code.
//! `PATCHDECK_BLESS=1 cargo test --test integration readme` rewrites them.

use patchdeck::problem::ProblemKind;
use std::path::Path;

/// The page the generated parts stand in.
const PAGE: &str = "docs/cli.md";

/// Replaces what stands between `start` and `end` in `docs/cli.md` with `made`, or checks that
/// it is that already.
fn holds(start: &str, end: &str, made: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE);
    let text = std::fs::read_to_string(&path).unwrap();
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{PAGE} has no {start:?}"))
        + start.len();
    let to = from
        + text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("{PAGE} has no {end:?}"));
    let want = format!("\n{made}");
    if text[from..to] == want {
        return;
    }
    if std::env::var_os("PATCHDECK_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..from], &text[to..])).unwrap();
        return;
    }
    panic!(
        "{PAGE} between {start:?} and {end:?} is not what the code says; run PATCHDECK_BLESS=1 cargo test --test integration readme, or write:\n{made}"
    );
}

#[test]
fn the_cli_page_lists_every_problem_kind_as_the_code_defines_it() {
    holds(
        "<!-- problem kinds: generated from ProblemKind::table -->",
        "<!-- end of problem kinds -->",
        &ProblemKind::table(),
    );
}
