//! Property: for random pairs of texts, the unified diff of a to b (similar's Myers diff, written
//! as git writes hunks by `patchdeck::diff_writer`) loaded by patchdeck turns a into b byte for
//! byte, in every combination of line endings (LF or CRLF, each text on its own) and final
//! newline (present or not, each text on its own).
//!
//! And for a series a, b, c, the diff of a to b followed by the diff of b to c (one file in two
//! sections, as in an mbox) turns a into c: the second section is placed against b and merged.
//!
//! (similar's own `UnifiedDiff` writer is not used: for some inputs its hunk headers miscount
//! the lines, e.g. `@@ -1 +2,4 @@` for a hunk of 2 old and 5 new lines, which `git apply`
//! refuses as well.)

use patchdeck::formats::{load_with, Input, LoadOptions};
use patchdeck::plan::plan;
use patchdeck::review::Decisions;
use patchdeck::verify::{verify, Status};
use patchdeck::workspace::Workspace;
use proptest::prelude::*;

fn text(lines: &[String], crlf: bool, final_newline: bool) -> String {
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(eol);
    if final_newline && !lines.is_empty() {
        out.push_str(eol);
    }
    out
}

/// Applies the diff of `a` to `b` to a file holding `a`; the bytes planned for it.
fn apply(a: &str, b: &str) -> Vec<u8> {
    apply_series(&[a, b], 3)
}

/// Applies the diffs between consecutive versions, as sections of one diff, to a file holding
/// the first version; the bytes planned for it.
fn apply_series(versions: &[&str], context: usize) -> Vec<u8> {
    let a = versions[0];
    let mut diff = Vec::new();
    for pair in versions.windows(2) {
        let mut hunks = Vec::new();
        patchdeck::diff_writer::write_hunks(
            pair[0].as_bytes(),
            pair[1].as_bytes(),
            &[],
            context,
            &mut hunks,
        )
        .unwrap();
        if !hunks.is_empty() {
            diff.extend_from_slice(b"--- a/f.txt\n+++ b/f.txt\n");
            diff.extend_from_slice(&hunks);
        }
    }
    if diff.is_empty() {
        return a.as_bytes().to_vec();
    }
    let diff = String::from_utf8(diff).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), a).unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let options = LoadOptions::format(Some("unified"));
    let batch = load_with(
        &Input::from_bytes("p.diff", diff.clone()),
        &workspace,
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}\n{diff}"));
    let verification = verify(&batch, &workspace);
    assert_eq!(verification.worst(), Status::Ok, "{diff:?}");
    let planned = plan(&batch, &verification, &Decisions::accept_all(&batch));
    assert!(!planned.is_blocked(), "{:?}", planned.blockers);
    planned.writes[0].after.to_vec()
}

fn lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "c", "", "  d", "e f"]),
        0..12,
    )
    .prop_map(|v| v.into_iter().map(str::to_owned).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_diff_of_a_to_b_applied_to_a_gives_b(
        a in lines(),
        b in lines(),
        a_crlf in any::<bool>(),
        b_crlf in any::<bool>(),
        a_nl in any::<bool>(),
        b_nl in any::<bool>(),
    ) {
        let a = text(&a, a_crlf, a_nl);
        let b = text(&b, b_crlf, b_nl);
        prop_assume!(!a.is_empty());
        let got = apply(&a, &b);
        prop_assert_eq!(String::from_utf8(got).unwrap(), b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn two_sections_for_one_file_apply_one_after_the_other(
        a in lines(),
        b in lines(),
        c in lines(),
        nl in prop::collection::vec(any::<bool>(), 3),
        context in 1usize..4,
    ) {
        let (a, b, c) = (text(&a, false, nl[0]), text(&b, false, nl[1]), text(&c, false, nl[2]));
        prop_assume!(!a.is_empty());
        let got = apply_series(&[&a, &b, &c], context);
        prop_assert_eq!(String::from_utf8(got).unwrap(), c);
    }
}

#[test]
fn every_ending_and_final_newline_combination_of_one_pair() {
    let a: Vec<String> = ["x", "y", "z", "w"].map(String::from).to_vec();
    let b: Vec<String> = ["x", "Y", "z", "w", "v"].map(String::from).to_vec();
    for mask in 0..16 {
        let (a_crlf, b_crlf, a_nl, b_nl) =
            (mask & 1 != 0, mask & 2 != 0, mask & 4 != 0, mask & 8 != 0);
        let (a, b) = (text(&a, a_crlf, a_nl), text(&b, b_crlf, b_nl));
        assert_eq!(String::from_utf8(apply(&a, &b)).unwrap(), b, "mask {mask}");
    }
}
