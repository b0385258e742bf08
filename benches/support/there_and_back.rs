//! `apply` forward then back in a workspace whose undo history is full (ten records, so that
//! each commit prunes one), against the durable-protocol floor run twice and `git apply` then
//! `git apply -R`, in turns (see `in_turns` in `peers.rs`): what a person who applies batches
//! day after day meets, where every apply of a fresh copy meets an empty history.

use crate::floor;
use crate::support::copy_tree;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The three pairs' wall times, round by round.
pub struct Pairs {
    pub apply: Vec<Duration>,
    pub floor: Vec<Duration>,
    pub git: Vec<Duration>,
}

impl Pairs {
    /// The median of the rounds' ratios of `apply` to `other`.
    pub fn ratio(&self, other: &[Duration]) -> f64 {
        let mut ratios: Vec<f64> = self
            .apply
            .iter()
            .zip(other)
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    }
}

pub fn median(samples: &[Duration]) -> Duration {
    let mut samples = samples.to_vec();
    samples.sort();
    samples[samples.len() / 2]
}

/// Measures `runs` rounds. `forward` and `back` are the diffs there and back; the writes are
/// what each leaves, for the floor.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    exe: &str,
    base: &Path,
    ws: &Path,
    forward: &Path,
    back: &Path,
    writes_forward: &[(PathBuf, Vec<u8>)],
    writes_back: &[(PathBuf, Vec<u8>)],
    runs: usize,
) -> Pairs {
    // The workspace that keeps its history across rounds: ten records first.
    let kept = base.join("with-history");
    copy_tree(ws, &kept);
    for _ in 0..5 {
        apply(exe, &kept, forward);
        apply(exe, &kept, back);
    }
    let scratch = base.join("there-and-back");
    let mut pairs = Pairs {
        apply: Vec::new(),
        floor: Vec::new(),
        git: Vec::new(),
    };
    for round in 0..runs {
        for k in 0..3 {
            match (round + k) % 3 {
                0 => {
                    let start = Instant::now();
                    apply(exe, &kept, forward);
                    apply(exe, &kept, back);
                    pairs.apply.push(start.elapsed());
                }
                1 => {
                    copy_tree(ws, &scratch);
                    let there = floor::run(&scratch, writes_forward);
                    // The second run keeps its originals beside the first's, as a history does.
                    std::fs::rename(
                        scratch.join(".floor/history"),
                        scratch.join(".floor/history-1"),
                    )
                    .unwrap();
                    let back = floor::run(&scratch, writes_back);
                    pairs
                        .floor
                        .push(Duration::from_nanos((there + back) as u64));
                }
                _ => {
                    copy_tree(ws, &scratch);
                    let start = Instant::now();
                    git(&scratch, &["apply", forward.to_str().unwrap()]);
                    git(&scratch, &["apply", back.to_str().unwrap()]);
                    pairs.git.push(start.elapsed());
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let _ = std::fs::remove_dir_all(&kept);
    pairs
}

fn apply(exe: &str, ws: &Path, batch: &Path) {
    let ok = Command::new(exe)
        .args(["-q", "apply", "--max-tokens", "0", "--root"])
        .arg(ws)
        .arg(batch)
        .stdin(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "apply {}", batch.display());
}

fn git(ws: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(ws)
        .stdin(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}
