//! Where a run of a hunk's lines stands in a file: every place, found through an index of the
//! file's lines by their text, made the first time a hunk is not where its header says. A diff
//! whose every hunk has moved (a stale diff) costs the file once, not once per hunk: looking
//! for each of 100,000 such hunks line by line took 33 s.

use super::HunkLine;
use crate::lines::Lines;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// Where each distinct line (its text and ending) stands, by the line's hash: in `last`, its
/// last place and how many it has; in `before`, each place's previous place of a line with the
/// same hash. Two flat tables keyed by 64 bits, so that indexing a file of two million lines
/// neither allocates per line nor reads a line again to compare it: lines that share a hash
/// share a chain, and every place is compared line by line before it is taken
/// ([`Seek::matches_at`]), so a collision costs a comparison, never a wrong place. The hash is
/// seeded at random per process (foldhash's), as a file and a diff are input from a stranger.
struct Index {
    hasher: foldhash::fast::RandomState,
    last: HashMap<u64, (u32, u32), BuildHasherDefault<Hashed>>,
    before: Vec<u32>,
}

/// No earlier place.
const NONE: u32 = u32::MAX;

impl Index {
    fn of(lines: &Lines<'_>) -> Index {
        let hasher = foldhash::fast::RandomState::default();
        let mut last = HashMap::with_capacity_and_hasher(lines.len(), Default::default());
        let mut before = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            // A file has fewer lines than bytes, and patchdeck reads at most 256 MiB of one.
            let i = u32::try_from(i).expect("fewer than 4 billion lines");
            let key = hasher.hash_one((line.text, line.eol));
            let (at, count) = last.entry(key).or_insert((NONE, 0));
            before.push(*at);
            (*at, *count) = (i, *count + 1);
        }
        Index {
            hasher,
            last,
            before,
        }
    }

    /// How many places a line with `line`'s hash has, and the last.
    fn find(&self, line: &HunkLine<'_>) -> (u32, u32) {
        let key = self.hasher.hash_one((line.text.as_bytes(), line.eol));
        self.last
            .get(&key)
            .map_or((0, NONE), |&(at, count)| (count, at))
    }

    /// The places of a hash, from its last place `at` back to its first.
    fn back_from(&self, mut at: u32) -> impl Iterator<Item = usize> + '_ {
        std::iter::from_fn(move || {
            (at != NONE).then(|| {
                let here = at;
                at = self.before[here as usize];
                here as usize
            })
        })
    }
}

/// The hasher of a map whose keys are hashes already: it keeps the key as it is.
#[derive(Default)]
struct Hashed(u64);

impl Hasher for Hashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed here; any other is folded in, byte by byte.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// A file's lines, with where each distinct line stands once something is looked for.
pub(super) struct Seek<'l, 'a> {
    lines: &'l Lines<'a>,
    index: OnceCell<Index>,
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
        let index = self.index.get_or_init(|| Index::of(self.lines));
        // The side's rarest line says where it can stand.
        let Some((k, (_, last))) = side
            .iter()
            .enumerate()
            .map(|(k, line)| (k, index.find(line)))
            .min_by_key(|(_, (count, _))| *count)
        else {
            return Vec::new();
        };
        let mut places: Vec<usize> = index
            .back_from(last)
            .filter_map(|at| at.checked_sub(k))
            .filter(|&at| self.matches_at(at, side))
            .collect();
        places.reverse();
        places
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Eol;

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
