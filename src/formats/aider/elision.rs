//! Aider's `...` elision: a line `...` (alone, indented or not) in a SEARCH stands for lines of
//! the file left out, and the same line in the REPLACE at the matching place keeps them. Aider
//! (`try_dotdotdots`) splits both on those lines and replaces piece by piece; patchdeck reads
//! it only when the SEARCH is not found as written (a file may hold a `...` line), and makes
//! it one change: from the first piece's first line to the last piece's last line, the REPLACE
//! pieces in place of the SEARCH pieces and the file's own lines kept between them, with a
//! `read_as` note naming the rule and where each piece was found.
//!
//! Each SEARCH piece is found by the shared matcher, through the tolerant tiers: the first once
//! in the file, each later one once after the one before it. A REPLACE that elides at another
//! number of places, a piece not found or found twice, is a conflict naming the rule: never a
//! guess, and never a silent miss.

use crate::formats::build::ChangeSpec;
use crate::formats::matcher::{find_lines, Doc, Located, TOLERANT};
use crate::formats::structured::preview;
use crate::model::{LineRange, LoadProblem, MatchTier};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;

/// The rules, as the problems of an elided SEARCH name them: the places it elides at, and
/// its pieces.
const SAME_PLACES: &str =
    "a `...` line in SEARCH elides lines, and REPLACE must elide at the same places";
const EACH_ONCE: &str = "a `...` line in SEARCH elides lines, and each piece between them must occur once, after the one before";

/// A SEARCH piece, and the REPLACE piece that takes its place.
type Piece<'a> = (&'a [String], &'a [String]);

/// Whether a line is an elision: `...` alone, whatever the white space around it.
fn is_elision(line: &str) -> bool {
    line.trim() == "..."
}

/// Whether a SEARCH elides lines somewhere.
pub(super) fn elides(search: &[String]) -> bool {
    search.iter().any(|l| is_elision(l))
}

/// A SEARCH (not found as written) read as eliding lines at its `...` lines, and the range it
/// was placed at; or the conflict saying why it cannot be. `what` names the SEARCH lines.
pub(super) fn place(
    doc: &Doc,
    search: &[String],
    replace: &[String],
    what: &str,
    description: Option<String>,
) -> (ChangeSpec, Option<LineRange>) {
    let conflict = |kind: ProblemKind, rule: &str, why: String| {
        let problem =
            LoadProblem::conflict(kind, format!("{what} not found as written; {rule}: {why}"));
        let spec = ChangeSpec::unplaced(description.clone(), problem).writing(replace.to_vec());
        (spec, None)
    };
    let (searched, replaced): (Vec<&[String]>, Vec<&[String]>) = (
        search.split(|l| is_elision(l)).collect(),
        replace.split(|l| is_elision(l)).collect(),
    );
    if searched.len() != replaced.len() {
        let why = format!(
            "SEARCH has {}, REPLACE has {}",
            searched.len() - 1,
            replaced.len() - 1
        );
        return conflict(ProblemKind::NotFound, SAME_PLACES, why);
    }
    let pairs = match pieces(&searched, &replaced) {
        Ok(pairs) => pairs,
        Err((rule, why)) => return conflict(ProblemKind::NotFound, rule, why),
    };
    let mut found: Vec<Located> = Vec::new();
    for (k, (find, new)) in pairs.iter().enumerate() {
        let from = found.last().map_or(0, |f| f.range.end() - 1);
        match find_lines(doc, find, new, TOLERANT, from..doc.len(), false) {
            Ok(located) => found.push(located),
            Err(miss) => {
                let after = match from {
                    0 => String::new(),
                    line => format!(" after line {line}"),
                };
                let piece = format!(
                    "its piece {} of {} (\"{}\"){after}",
                    k + 1,
                    pairs.len(),
                    preview(&find.join("\n"))
                );
                let (kind, why) = miss.describe(&piece);
                return conflict(kind, EACH_ONCE, why);
            }
        }
    }
    joined(doc, &found, description)
}

/// The SEARCH and REPLACE pieces to place, in order. A SEARCH piece with no lines (a `...`
/// first or last, or two in a row) finds nothing: it is left out when its REPLACE piece has no
/// lines either, and otherwise nothing says where those lines go (the rule broken, and why).
fn pieces<'a>(
    searched: &[&'a [String]],
    replaced: &[&'a [String]],
) -> Result<Vec<Piece<'a>>, (&'static str, String)> {
    let mut pairs = Vec::new();
    for (k, (&find, &new)) in searched.iter().zip(replaced).enumerate() {
        match (find.is_empty(), new.is_empty()) {
            (false, _) => pairs.push((find, new)),
            (true, true) => {}
            (true, false) => {
                let why = format!(
                    "REPLACE piece {} of {} has lines where the SEARCH piece has none to find, so nothing says where they go",
                    k + 1,
                    searched.len()
                );
                return Err((SAME_PLACES, why));
            }
        }
    }
    if pairs.is_empty() {
        let why = "SEARCH holds nothing but `...` lines, so it has no piece to find";
        return Err((EACH_ONCE, why.into()));
    }
    Ok(pairs)
}

/// The one change of the pieces found: the file's lines from the first piece to the last as
/// its expected lines, the REPLACE pieces with the file's lines between them as its new ones.
fn joined(
    doc: &Doc,
    found: &[Located],
    description: Option<String>,
) -> (ChangeSpec, Option<LineRange>) {
    let (first, last) = (&found[0], &found[found.len() - 1]);
    let range = LineRange {
        start: first.range.start,
        count: last.range.end() - first.range.start,
    };
    let mut new_lines = TextLines::default();
    for (k, piece) in found.iter().enumerate() {
        new_lines.extend(&piece.new_lines);
        if let Some(next) = found.get(k + 1) {
            let kept = LineRange {
                start: piece.range.end(),
                count: next.range.start - piece.range.end(),
            };
            new_lines.extend(&TextLines::from(doc.texts(kept)));
        }
    }
    let at: Vec<String> = found.iter().map(|f| f.range.describe()).collect();
    let note = format!(
        "SEARCH elides lines with `...` (Aider's rule): its {} pieces were found in order at lines {}; the lines between are kept",
        found.len(),
        at.join(", ")
    );
    let spec = ChangeSpec {
        description,
        range: Some(range),
        expected: Some(doc.texts(range).into()),
        new_lines,
        tier: most_tolerant(found),
        problems: vec![LoadProblem::note(ProblemKind::ReadAs, note)],
        ..ChangeSpec::default()
    };
    (spec, Some(range))
}

/// The most tolerant tier any piece was found with, which the change's `tolerant_match` note
/// names.
fn most_tolerant(found: &[Located]) -> MatchTier {
    let rank = |tier: MatchTier| {
        TOLERANT
            .iter()
            .position(|&t| t == tier)
            .map_or(0, |i| i + 1)
    };
    found
        .iter()
        .map(|f| f.tier)
        .max_by_key(|&tier| rank(tier))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn placed(file: &str, search: &str, replace: &str) -> ChangeSpec {
        let doc = Doc::from_bytes(file.as_bytes());
        place(&doc, &lines(search), &lines(replace), "the SEARCH", None).0
    }

    #[test]
    fn pieces_are_found_in_order_and_the_lines_between_them_kept() {
        let spec = placed("a\nb\nc\nd\ne\nf\n", "b\n...\ne\n", "B\n...\nE\nE2\n");
        assert_eq!(spec.range, Some(LineRange::inclusive(2, 5)));
        assert_eq!(spec.expected.unwrap(), ["b", "c", "d", "e"]);
        assert_eq!(spec.new_lines, ["B", "c", "d", "E", "E2"]);
        assert_eq!(spec.tier, MatchTier::Exact);
        assert_eq!(spec.problems[0].kind, ProblemKind::ReadAs);
        assert!(!spec.problems[0].blocking);
    }

    #[test]
    fn a_later_piece_is_looked_for_only_after_the_one_before_it() {
        // "x" stands before "b" too: only the one after it counts.
        let spec = placed("x\nb\nc\nx\n", "b\n...\nx\n", "B\n...\nX\n");
        assert_eq!(spec.new_lines, ["B", "c", "X"]);
        // Twice after it is ambiguous, and says where.
        let spec = placed("b\nx\nc\nx\n", "b\n...\nx\n", "B\n...\nX\n");
        assert_eq!(spec.problems[0].kind, ProblemKind::Ambiguous);
        assert!(
            spec.problems[0]
                .message
                .contains("piece 2 of 2 (\"x\") after line 1: found 2 times, at lines 2, 4"),
            "{}",
            spec.problems[0].message
        );
    }

    #[test]
    fn an_edge_elision_with_nothing_to_write_is_left_out_and_one_with_lines_refused() {
        let spec = placed("a\nb\nc\n", "...\nb\n", "...\nB\n");
        assert_eq!(spec.range, Some(LineRange::inclusive(2, 2)));
        assert_eq!(spec.new_lines, ["B"]);
        let spec = placed("a\nb\nc\n", "b\n...\n", "B\n...\nnew\n");
        assert!(spec.problems[0].blocking);
        assert!(spec.problems[0]
            .message
            .contains("REPLACE piece 2 of 2 has lines"));
    }
}
