//! Property: after a tolerant match, every line the replacement keeps from the find is the file's
//! own text for that line, wherever it sits (before, between or after the changed lines), and
//! only the lines the replacement changes or adds take the patch's text (re-indented by the
//! matched shift).
//!
//! A file of unique lines is generated; a window of it is the find, written as the patch's
//! author would in one tolerant tier (trailing whitespace dropped, a different indentation,
//! ASCII punctuation where the file has Unicode); the replacement is the find with random lines
//! kept, dropped, changed and added. Changed and added lines are unique markers, so the lines
//! the replacement keeps are known exactly.

use patchdeck::formats::matcher::{find_lines, Doc, CODEX};
use patchdeck::model::MatchTier;
use proptest::prelude::*;

/// How the file's text differs from the find, line by line.
#[derive(Clone, Copy, Debug)]
enum Tolerance {
    TrailingWs,
    Indent,
    Unicode,
}

/// What the replacement does with one find line.
#[derive(Clone, Copy, Debug)]
enum Step {
    Keep,
    Drop,
    Change,
    /// Keep the line and add a new one after it.
    KeepAndAdd,
}

fn file_line(i: usize, word: &str, tolerance: Tolerance, spaces: usize) -> String {
    match tolerance {
        Tolerance::TrailingWs => format!("    l{i} {word}{}", " ".repeat(spaces)),
        Tolerance::Indent => format!("        l{i} {word}"),
        Tolerance::Unicode => format!("    l{i} {word} \u{2019}q\u{2019}"),
    }
}

fn find_line(i: usize, word: &str, tolerance: Tolerance) -> String {
    match tolerance {
        Tolerance::TrailingWs => format!("    l{i} {word}"),
        Tolerance::Indent => format!("l{i} {word}"),
        Tolerance::Unicode => format!("    l{i} {word} 'q'"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn kept_lines_keep_the_files_text_wherever_they_sit(
        words in prop::collection::vec("[a-z]{1,6}", 1..14),
        spaces in prop::collection::vec(0usize..3, 14),
        window in (0usize..14, 1usize..14),
        steps in prop::collection::vec(
            prop_oneof![Just(Step::Keep), Just(Step::Drop), Just(Step::Change), Just(Step::KeepAndAdd)],
            14,
        ),
        tolerance in prop_oneof![
            Just(Tolerance::TrailingWs),
            Just(Tolerance::Indent),
            Just(Tolerance::Unicode)
        ],
    ) {
        let n = words.len();
        let start = window.0 % n;
        let len = 1 + (window.1 - 1) % (n - start);
        let file: Vec<String> = (0..n).map(|i| file_line(i, &words[i], tolerance, spaces[i])).collect();
        let mut text = file.join("\n");
        text.push('\n');
        let doc = Doc::from_bytes(text.as_bytes());
        let find: Vec<String> = (start..start + len).map(|i| find_line(i, &words[i], tolerance)).collect();
        // The replacement, and what it must become: kept lines as the file has them, markers
        // re-indented as the match was (eight more spaces in the indent tier).
        let shift = if matches!(tolerance, Tolerance::Indent) { "        " } else { "" };
        let (mut new, mut expected) = (Vec::new(), Vec::new());
        for (k, step) in steps.iter().take(len).enumerate() {
            let marker = format!("NEW{k}");
            match step {
                Step::Keep => {
                    new.push(find[k].clone());
                    expected.push(file[start + k].clone());
                }
                Step::Drop => {}
                Step::Change => {
                    new.push(marker.clone());
                    expected.push(format!("{shift}{marker}"));
                }
                Step::KeepAndAdd => {
                    new.push(find[k].clone());
                    expected.push(file[start + k].clone());
                    new.push(format!("{marker}+"));
                    expected.push(format!("{shift}{marker}+"));
                }
            }
        }
        let found = find_lines(&doc, &find, &new, CODEX, 0..n, false).unwrap();
        prop_assert_eq!(found.range.start, start + 1);
        prop_assert_eq!(found.range.count, len);
        prop_assert_ne!(found.tier, MatchTier::Offset);
        prop_assert_eq!(found.new_lines, expected);
    }
}
