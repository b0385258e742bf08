//! Where a run of a hunk's lines stands in a file: every place, found through an index of the
//! file's lines by their text, made the first time a hunk is not where its header says. A diff
//! whose every hunk has moved (a stale diff) costs the file once, not once per hunk: looking
//! for each of 100,000 such hunks line by line took 33 s.

use super::HunkLine;
use crate::lines::{Eol, Lines};
use std::cell::OnceCell;
use std::collections::HashMap;

/// Where each distinct line (its text and ending) stands, first to last.
type Index<'a> = HashMap<(&'a [u8], Eol), Vec<usize>>;

/// A file's lines, with where each distinct line stands once something is looked for.
pub(super) struct Seek<'l, 'a> {
    lines: &'l Lines<'a>,
    index: OnceCell<Index<'a>>,
}

impl<'l, 'a> Seek<'l, 'a> {
    pub fn new(lines: &'l Lines<'a>) -> Seek<'l, 'a> {
        Seek {
            lines,
            index: OnceCell::new(),
        }
    }

    pub fn lines(&self) -> &'l Lines<'a> {
        self.lines
    }

    /// Whether `side` stands at line `at` (0-based), endings compared too.
    pub fn matches_at(&self, at: usize, side: &[HunkLine<'_>]) -> bool {
        at + side.len() <= self.lines.len()
            && self
                .lines
                .between(at, at + side.len())
                .zip(side)
                .all(|(f, p)| f.text == p.text.as_bytes() && f.eol == p.eol)
    }

    /// Every place `side` stands, first to last. `side` must not be empty.
    pub fn places(&self, side: &[HunkLine<'_>]) -> Vec<usize> {
        let index = self.index.get_or_init(|| {
            let mut index = Index::new();
            for (i, line) in self.lines.iter().enumerate() {
                index.entry((line.text, line.eol)).or_default().push(i);
            }
            index
        });
        fn found<'i, 'k>(index: &'i Index<'k>, line: &HunkLine<'k>) -> &'i [usize] {
            index
                .get(&(line.text.as_bytes(), line.eol))
                .map_or(&[], Vec::as_slice)
        }
        // The side's rarest line says where it can stand.
        let Some((k, rarest)) = side
            .iter()
            .enumerate()
            .map(|(k, line)| (k, found(index, line)))
            .min_by_key(|(_, at)| at.len())
        else {
            return Vec::new();
        };
        rarest
            .iter()
            .filter_map(|&at| at.checked_sub(k))
            .filter(|&at| self.matches_at(at, side))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_every_full_match_in_order() {
        let lines = Lines::split(b"a\nb\na\nb\nc\na\nb\r\n");
        let seek = Seek::new(&lines);
        let line = |text| HunkLine { text, eol: Eol::Lf };
        assert_eq!(seek.places(&[line("a"), line("b")]), [0, 2]);
        assert_eq!(seek.places(&[line("b"), line("c")]), [3]);
        assert_eq!(
            seek.places(&[line("c"), line("a"), line("b")]),
            Vec::<usize>::new()
        );
        assert_eq!(seek.places(&[line("x")]), Vec::<usize>::new());
        assert!(seek.matches_at(5, &[line("a")]));
        assert!(!seek.matches_at(6, &[line("b")]), "the ending is compared");
    }
}
