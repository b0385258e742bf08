//! The README says what the code does: the parts of it made from the code are checked here
//! against the code. `PATCHDECK_BLESS=1 cargo test --test integration readme` rewrites them.

use patchdeck::problem::ProblemKind;
use std::path::Path;

/// Replaces what stands between `start` and `end` in the README with `made`, or checks that it
/// is that already.
fn holds(start: &str, end: &str, made: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("README.md has no {start:?}"))
        + start.len();
    let to = from
        + text[from..]
            .find(end)
            .unwrap_or_else(|| panic!("README.md has no {end:?}"));
    let want = format!("\n{made}");
    if text[from..to] == want {
        return;
    }
    if std::env::var_os("PATCHDECK_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..from], &text[to..])).unwrap();
        return;
    }
    panic!(
        "README.md between {start:?} and {end:?} is not what the code says; run PATCHDECK_BLESS=1 cargo test --test integration readme, or write:\n{made}"
    );
}

#[test]
fn the_readme_lists_every_problem_kind_as_the_code_defines_it() {
    holds(
        "<!-- problem kinds: generated from ProblemKind::table -->",
        "<!-- end of problem kinds -->",
        &ProblemKind::table(),
    );
}
