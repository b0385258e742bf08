//! `cargo bench --bench growth`: how every command grows with the size of one batch, and the
//! exponent of that growth (1.0 is linear; the target is at most 1.1).
//!
//! Four shapes, each one file in a workspace of its own:
//! - `insert`: a unified diff of N one-line insertions into one file, each a hunk of its own
//!   with a line of context on each side, N = 10,000, 100,000 and 1,000,000 (at a million, a
//!   60 MB diff: three lines of context would pass the 64 MiB an input may have);
//! - `shifted`: the same diff on a file that gained a line at its top, so that every hunk
//!   stands a line lower than its header says;
//! - `replace`: N one-line replacements, each with a line of context on each side;
//! - `bundle`: an Aptix bundle giving the whole new content of a file of L lines with every
//!   other line changed, L = 10,000 to 160,000 (doubling).
//!
//! Every command is the real release binary, a whole process, standard output to
//! `/dev/null`; `apply -q` runs on a fresh copy of the workspace each time (the copy is not
//! timed). Figures are the median of `PATCHDECK_GROWTH_RUNS` runs (default 3). The exponent is
//! the slope of log(time) against log(size) between consecutive sizes, and over all of them
//! (least squares); a process's start (a few milliseconds) weighs on the smallest size, which
//! lowers the first slope. `PATCHDECK_GROWTH_SHAPES=insert,bundle` and
//! `PATCHDECK_GROWTH_MAX=100000` narrow a run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// Only `machine` and `copy_tree` are used here.
#[allow(dead_code)]
#[path = "support/mod.rs"]
mod support;

/// The commands measured, each with its arguments before the batch.
const COMMANDS: &[(&str, &[&str])] = &[
    ("check", &["check"]),
    ("check -q", &["-q", "check"]),
    ("diff", &["diff"]),
    ("show", &["show"]),
    ("export", &["export"]),
    ("feedback", &["feedback"]),
    ("apply -q", &["-q", "apply"]),
];

const TARGET: &str = "f.txt";

struct Shape {
    name: &'static str,
    sizes: &'static [usize],
    /// Writes the workspace's file and the batch for one size; returns the batch's path.
    make: fn(&Path, usize) -> PathBuf,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "insert",
        sizes: &[10_000, 100_000, 1_000_000],
        make: insertions,
    },
    Shape {
        name: "shifted",
        sizes: &[10_000, 100_000, 1_000_000],
        make: shifted,
    },
    Shape {
        name: "replace",
        sizes: &[10_000, 100_000, 1_000_000],
        make: replacements,
    },
    Shape {
        name: "bundle",
        sizes: &[10_000, 20_000, 40_000, 80_000, 160_000],
        make: bundle,
    },
];

/// A short line of its own: the largest diffs must stay under the 64 MiB an input may have.
fn line(n: usize) -> String {
    format!("l{n:x}\n")
}

fn write_file(dir: &Path, lines: usize) -> Vec<String> {
    let lines: Vec<String> = (0..lines).map(line).collect();
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    std::fs::write(dir.join("ws").join(TARGET), lines.concat()).unwrap();
    lines
}

fn write_diff(dir: &Path, hunks: String) -> PathBuf {
    let path = dir.join("batch.diff");
    std::fs::write(&path, format!("--- a/{TARGET}\n+++ b/{TARGET}\n{hunks}")).unwrap();
    path
}

/// N insertions, each between two lines of context of its own (a file of 2N lines).
fn insertions(dir: &Path, n: usize) -> PathBuf {
    let lines = write_file(dir, 2 * n);
    let mut hunks = String::new();
    for i in 0..n {
        let (old, new) = (2 * i + 1, 3 * i + 1);
        let _ = write!(
            hunks,
            "@@ -{old},2 +{new},3 @@\n {}+i{i:x}\n {}",
            lines[2 * i],
            lines[2 * i + 1]
        );
    }
    write_diff(dir, hunks)
}

/// The insertions of [`insertions`] into a file that has gained a line at its top since: every
/// hunk stands a line lower than its header says (a stale diff, which `git apply` applies with
/// offsets).
fn shifted(dir: &Path, n: usize) -> PathBuf {
    let batch = insertions(dir, n);
    let file = dir.join("ws").join(TARGET);
    let old = std::fs::read(&file).unwrap();
    std::fs::write(&file, [&b"top\n"[..], &old].concat()).unwrap();
    batch
}

/// N replacements of one line, each between two lines of context (a file of 3N lines).
fn replacements(dir: &Path, n: usize) -> PathBuf {
    let lines = write_file(dir, 3 * n);
    let mut hunks = String::new();
    for i in 0..n {
        let at = 3 * i + 1;
        let _ = write!(
            hunks,
            "@@ -{at},3 +{at},3 @@\n {}-{}+r{i:x}\n {}",
            lines[3 * i],
            lines[3 * i + 1],
            lines[3 * i + 2]
        );
    }
    write_diff(dir, hunks)
}

fn bundle(dir: &Path, n: usize) -> PathBuf {
    let lines = write_file(dir, n);
    let content: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| match i % 2 {
            0 => l.clone(),
            _ => format!("c{i:x}\n"),
        })
        .collect();
    let batch = serde_json::json!({"root": ".", "files": [{"path": TARGET, "content": content}]});
    let path = dir.join("batch.json");
    std::fs::write(&path, serde_json::to_vec(&batch).unwrap()).unwrap();
    path
}

/// One run of `patchdeck ARGS BATCH` in `ws`, its wall time.
fn run(exe: &str, args: &[&str], extra: &[&str], batch: &Path, ws: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(exe)
        .args(args)
        .arg("--root")
        .arg(ws)
        .arg(batch)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let wall = start.elapsed();
    // `check` and `feedback` answer 1 when something does not apply; nothing here conflicts,
    // but `feedback` says so with its own status. Only a crash is a failure here.
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "{args:?} {}: {status}",
        batch.display()
    );
    wall
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The least-squares slope of log(time) against log(size).
fn slope(points: &[(usize, Duration)]) -> f64 {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|&(n, t)| ((n as f64).ln(), t.as_secs_f64().ln()))
        .collect();
    let k = xy.len() as f64;
    let (mx, my) = (
        xy.iter().map(|p| p.0).sum::<f64>() / k,
        xy.iter().map(|p| p.1).sum::<f64>() / k,
    );
    let num: f64 = xy.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xy.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    num / den
}

fn env_list(name: &str) -> Option<Vec<String>> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_owned()).collect())
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("{}", support::machine());
    let exe = env!("CARGO_BIN_EXE_patchdeck");
    let runs: usize = std::env::var("PATCHDECK_GROWTH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let max: usize = std::env::var("PATCHDECK_GROWTH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let only = env_list("PATCHDECK_GROWTH_SHAPES");
    let scratch = tempfile::tempdir().unwrap();
    let mut over = Vec::new();
    for shape in SHAPES {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|s| s == shape.name))
        {
            continue;
        }
        let sizes: Vec<usize> = shape.sizes.iter().copied().filter(|&n| n <= max).collect();
        let mut times: Vec<Vec<(usize, Duration)>> = vec![Vec::new(); COMMANDS.len()];
        for &n in &sizes {
            let dir = scratch.path().join(format!("{}-{n}", shape.name));
            let batch = (shape.make)(&dir, n);
            let ws = dir.join("ws");
            for (c, (name, args)) in COMMANDS.iter().enumerate() {
                let samples = (0..runs)
                    .map(|_| match *name {
                        "apply -q" => {
                            let copy = dir.join("copy");
                            let _ = std::fs::remove_dir_all(&copy);
                            support::copy_tree(&ws, &copy);
                            run(exe, args, &[], &batch, &copy)
                        }
                        "show" => run(exe, args, &[TARGET], &batch, &ws),
                        _ => run(exe, args, &[], &batch, &ws),
                    })
                    .collect();
                times[c].push((n, median(samples)));
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        println!("\n{} (sizes {:?})", shape.name, sizes);
        println!(
            "{:<10} {}  steps  overall",
            "command",
            sizes
                .iter()
                .map(|n| format!("{:>10}", n))
                .collect::<String>()
        );
        for (c, (name, _)) in COMMANDS.iter().enumerate() {
            let points = &times[c];
            let cells: String = points
                .iter()
                .map(|(_, t)| format!("{:>8.1}ms", t.as_secs_f64() * 1e3))
                .collect();
            let steps: Vec<String> = points
                .windows(2)
                .map(|w| format!("{:.2}", slope(w)))
                .collect();
            let overall = slope(points);
            println!("{name:<10} {cells}  {}  {overall:.2}", steps.join(" "));
            // The slope of the last step is what a larger batch would meet.
            if let Some(last) = points.windows(2).last() {
                if slope(last) > 1.1 {
                    over.push(format!("{} {name}: {:.2}", shape.name, slope(last)));
                }
            }
        }
    }
    if over.is_empty() {
        println!("\nevery command's last step at most 1.1");
    } else {
        println!("\nover 1.1 at the last step: {}", over.join(", "));
    }
}
