//! Parse states that frames have left behind, so that the next frame in the same file (the
//! next change a few lines down, a scroll) parses only from the nearest one.
//!
//! Each state is the one before a line of the file on disk. An exact state was parsed from the
//! top of the file or from the background's checkpoint; a provisional one from a fresh state
//! below any checkpoint the background had reached (see `highlight`). The two are kept apart
//! so a provisional state never passes for an exact one.

use super::State;
use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;

/// States kept per file before the file's memory is dropped and rebuilt from checkpoints.
const KEPT_PER_FILE: usize = 512;

#[derive(Default)]
pub struct LeftStates {
    exact: HashMap<usize, BTreeMap<usize, State>>,
    provisional: HashMap<usize, BTreeMap<usize, State>>,
}

impl LeftStates {
    fn side(&self, exact: bool) -> &HashMap<usize, BTreeMap<usize, State>> {
        if exact {
            &self.exact
        } else {
            &self.provisional
        }
    }

    /// The state left nearest above or at the line `lines.end()`, within `lines`: (the line it
    /// stands before, a copy of it).
    pub fn nearest(
        &self,
        file: usize,
        exact: bool,
        lines: RangeInclusive<usize>,
    ) -> Option<(usize, State)> {
        let states = self.side(exact).get(&file)?;
        let (&line, state) = states.range(lines).next_back()?;
        Some((line, state.clone()))
    }

    /// Keeps `state`, the one before `line` of `file`, unless one is kept there already.
    pub fn keep(&mut self, file: usize, line: usize, state: &State, exact: bool) {
        let side = if exact {
            &mut self.exact
        } else {
            &mut self.provisional
        };
        let states = side.entry(file).or_default();
        if states.len() >= KEPT_PER_FILE {
            states.clear();
        }
        states.entry(line).or_insert_with(|| state.clone());
    }

    pub fn clear(&mut self) {
        self.exact.clear();
        self.provisional.clear();
    }
}
