//! `cargo bench --bench peers`: patchdeck against `git apply` and GNU `patch`, as whole
//! processes, on the same generated unified diff; and patchdeck's `check` and `apply` on the same
//! changes written in each batch format (unified, TUL-002, bundle, edits).
//!
//! The generator is deterministic (xorshift): N source-like files of about 1,000 lines, and
//! 17 or 18 hunks a file (one to three lines replaced, three lines of context each side). At
//! 2,000 files that is about 35,000 hunks, a 24 MB diff and 2 M target lines, the scale of
//! issue 6. Every figure is the median of several runs (`PATCHDECK_BENCH_RUNS`, default 5) of a
//! whole process: wall time from spawn to exit, and, from `wait4`'s usage, peak resident
//! memory (`ru_maxrss`) and processor time (user and system, every thread; on a shared
//! machine it moves less than the wall time, so it is the figure to compare two builds by).
//! Each `apply` (and `git apply`, `patch -p1`) runs on a fresh copy of the
//! workspace, copied outside the timing. Sizes: `PATCHDECK_BENCH_SIZES` (default
//! `10,200,2000`). `PATCHDECK_BENCH_OUT=DIR` only writes the workspace and batches for profiling.
//!
//! The durable-protocol floor (`support/floor.rs`: only the disk work an atomic, durable apply
//! must do, handed the new contents) runs on the same fresh copies, in this process (its
//! processor time is this process's, from `getrusage`, around it), and the
//! summary gives each target ratio of issue 17 with its figures. The unified `apply`, the floor
//! and `git apply` run in turns, one of each per round, and their time ratios in the summary
//! are the medians of each round's ratio: on a disk where creating files slows down after
//! many were deleted, blocks of runs one after another measure different disks.
//!
//! The reviewer's first screen on each size's diff and TUL-002 batch is the real binary in a
//! pseudo-terminal, warm and with the page cache dropped (`support/first_screen.rs`; cold needs
//! root, and the row says so without it), with the time until the whole batch is there.
//! GNU `patch` is skipped when it is not installed. The frame and key
//! figures come from `cargo bench --bench frame`, which `cargo bench` runs too.

use patchdeck::model::sha256_hex;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/mod.rs"]
mod support;

#[path = "support/floor.rs"]
mod floor;

#[path = "support/first_screen.rs"]
mod first_screen;

#[path = "support/there_and_back.rs"]
mod there_and_back;

use support::{copy_tree, cpu_used, Rng};

/// One source-like line; the trailing `// line N` makes every line of a file unique, so a
/// find/replace of it matches once.
fn source_line(rng: &mut Rng, n: usize) -> String {
    let indent = "    ".repeat(rng.below(3) as usize);
    let words: Vec<&str> = (0..2 + rng.below(3)).map(|_| rng.word()).collect();
    format!(
        "{indent}{} = {}; // line {n}",
        words.join("_"),
        rng.below(1000)
    )
}

/// One replaced run of lines: `old` (1-based start, count) becomes `new`.
struct Hunk {
    start: usize,
    count: usize,
    new: Vec<String>,
}

struct GenFile {
    path: String,
    lines: Vec<String>,
    hunks: Vec<Hunk>,
}

impl GenFile {
    fn text(&self) -> String {
        let mut text = String::with_capacity(self.lines.len() * 40);
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    fn new_text(&self) -> String {
        let mut text = String::new();
        let mut next = 1;
        for hunk in &self.hunks {
            for line in &self.lines[next - 1..hunk.start - 1] {
                text.push_str(line);
                text.push('\n');
            }
            for line in &hunk.new {
                text.push_str(line);
                text.push('\n');
            }
            next = hunk.start + hunk.count;
        }
        for line in &self.lines[next - 1..] {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

const CONTEXT: usize = 3;

/// patchdeck refuses an input over 64 MiB (the 2,000-file bundle, which carries every file's
/// whole new content, is over it).
const MAX_INPUT: usize = patchdeck::formats::MAX_INPUT_BYTES;

fn generate_files(n: usize) -> Vec<GenFile> {
    let mut rng = Rng(0x5eed_1234_abcd_0006);
    (0..n)
        .map(|f| {
            let count = 900 + rng.below(200) as usize;
            let lines: Vec<String> = (1..=count).map(|n| source_line(&mut rng, n)).collect();
            let per_file = 17 + (f % 2);
            let step = count / per_file;
            let hunks = (0..per_file)
                .map(|h| {
                    // Far enough from the neighbours that the contexts never touch.
                    let start = h * step
                        + CONTEXT
                        + 2
                        + rng.below((step - 2 * CONTEXT - 6) as u64) as usize;
                    let old = 1 + rng.below(3) as usize;
                    let new = (0..1 + rng.below(3) as usize)
                        .map(|i| format!("{} // changed {i}", lines[start - 1]))
                        .collect();
                    Hunk {
                        start,
                        count: old,
                        new,
                    }
                })
                .collect();
            GenFile {
                path: format!("src/module_{:02}/file_{f:04}.rs", f % 37),
                lines,
                hunks,
            }
        })
        .collect()
}

fn unified(files: &[GenFile]) -> String {
    let mut out = String::new();
    for file in files {
        let p = &file.path;
        let _ = write!(out, "diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n");
        let mut shift: isize = 0;
        for hunk in &file.hunks {
            let from = hunk.start - CONTEXT;
            let to = (hunk.start + hunk.count + CONTEXT - 1).min(file.lines.len());
            let old_len = to - from + 1;
            let new_len = old_len - hunk.count + hunk.new.len();
            let _ = writeln!(
                out,
                "@@ -{from},{old_len} +{},{new_len} @@",
                from as isize + shift
            );
            for line in &file.lines[from - 1..hunk.start - 1] {
                let _ = writeln!(out, " {line}");
            }
            for line in &file.lines[hunk.start - 1..hunk.start - 1 + hunk.count] {
                let _ = writeln!(out, "-{line}");
            }
            for line in &hunk.new {
                let _ = writeln!(out, "+{line}");
            }
            for line in &file.lines[hunk.start - 1 + hunk.count..to] {
                let _ = writeln!(out, " {line}");
            }
            shift += hunk.new.len() as isize - hunk.count as isize;
        }
    }
    out
}

/// The same files after the change, and the change that takes them back.
fn reversed(files: &[GenFile]) -> Vec<GenFile> {
    files
        .iter()
        .map(|file| {
            let mut shift: isize = 0;
            let hunks = file
                .hunks
                .iter()
                .map(|hunk| {
                    let start = (hunk.start as isize + shift) as usize;
                    shift += hunk.new.len() as isize - hunk.count as isize;
                    Hunk {
                        start,
                        count: hunk.new.len(),
                        new: file.lines[hunk.start - 1..hunk.start - 1 + hunk.count].to_vec(),
                    }
                })
                .collect();
            GenFile {
                path: file.path.clone(),
                lines: file.new_text().lines().map(str::to_owned).collect(),
                hunks,
            }
        })
        .collect()
}

fn tul002(files: &[GenFile]) -> Value {
    let patches: Vec<Value> = files
        .iter()
        .enumerate()
        .map(|(f, file)| {
            let changes: Vec<Value> = file
                .hunks
                .iter()
                .map(|h| {
                    json!({"operation": "replace", "startLine": h.start, "endLine": h.start + h.count - 1,
                        "expectedOriginalLines": file.lines[h.start - 1..h.start - 1 + h.count],
                        "newLines": h.new})
                })
                .collect();
            json!({"fileKey": format!("f{f}"), "docPath": file.path,
                "originalSha256": sha256_hex(file.text().as_bytes()), "changes": changes})
        })
        .collect();
    json!({"batchKey": "bench", "files": patches})
}

fn bundle(files: &[GenFile]) -> Value {
    let entries: Vec<Value> = files
        .iter()
        .map(|f| json!({"path": f.path, "operation": "replace", "content": f.new_text()}))
        .collect();
    json!({"root": ".", "files": entries})
}

fn edits(files: &[GenFile]) -> Value {
    let calls: Vec<Value> = files
        .iter()
        .map(|file| {
            let patches: Vec<Value> = file
                .hunks
                .iter()
                .map(|h| {
                    let old = file.lines[h.start - 1..h.start - 1 + h.count].join("\n");
                    json!({"operation": "replace", "oldText": old, "newText": h.new.join("\n")})
                })
                .collect();
            json!({"path": file.path, "patches": patches})
        })
        .collect();
    Value::Array(calls)
}

/// One whole-process run: wall time, peak resident memory in KiB, and processor time (user
/// and system, every thread; zero when not measured). On a shared machine the processor
/// time moves less than the wall time, which waits for the other programs too.
struct Run {
    wall: Duration,
    max_rss_kib: u64,
    cpu: Duration,
}

/// Runs `program` from a fresh, small copy of this bench (`PATCHDECK_PEERS_LAUNCH`), which
/// spawns it and reports its wall time and `ru_maxrss`. Spawned straight from this process, a
/// child would inherit the bench's own resident size (the generated batches) as its peak:
/// Linux carries the high-water mark across fork and exec.
fn run_once(program: &str, args: &[&str], cwd: &Path) -> Run {
    let out = Command::new(std::env::current_exe().unwrap())
        .env("PATCHDECK_PEERS_LAUNCH", "1")
        .arg(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().unwrap());
    Run {
        wall: Duration::from_nanos(fields.next().unwrap()),
        max_rss_kib: fields.next().unwrap(),
        cpu: Duration::from_micros(fields.next().unwrap()),
    }
}

/// The launcher: runs argv[1..], prints "WALL_NS MAX_RSS_KIB CPU_US", exits with its status.
fn launch() -> ! {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let start = Instant::now();
    let child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", args[0]));
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we spawned, and reaps it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(pid, child.id() as libc::pid_t);
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    let cpu = micros(usage.ru_utime) + micros(usage.ru_stime);
    println!("{} {} {cpu}", wall.as_nanos(), usage.ru_maxrss);
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    std::process::exit(if ok { 0 } else { 1 });
}

fn median_run(runs: usize, mut once: impl FnMut() -> Run) -> Run {
    median_of((0..runs).map(|_| once()).collect())
}

/// Runs each of `work` `runs` times in rounds, one of each per round, the first of a round
/// moving on by one each round: on this kind of disk, how fast a file is created depends on
/// how many were deleted just before, so measures taken one after another in blocks meet
/// different disks (the floor took 202 ms in one run and 619 ms in the next). Taken in turns,
/// each round's measures meet the same state. Returns each one's runs, in its order.
fn in_turns<const N: usize>(runs: usize, work: &mut [&mut dyn FnMut() -> Run; N]) -> [Vec<Run>; N] {
    let mut taken: [Vec<Run>; N] = std::array::from_fn(|_| Vec::new());
    for round in 0..runs {
        for k in 0..N {
            let i = (round + k) % N;
            taken[i].push(work[i]());
        }
    }
    taken
}

/// The median of the ratios of `a` to `b`, round by round (see [`in_turns`]).
fn median_ratio(a: &[Run], b: &[Run]) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.wall.as_secs_f64() / b.wall.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// The apply's ratios to its peers at one size, each the median of the rounds' ratios.
struct Paired {
    size: usize,
    to_floor: f64,
    to_git: f64,
}

/// Each figure's median over the runs, taken one figure at a time.
fn median_of(all: Vec<Run>) -> Run {
    fn median<T: Ord + Copy>(mut values: Vec<T>) -> T {
        values.sort();
        values[values.len() / 2]
    }
    Run {
        wall: median(all.iter().map(|r| r.wall).collect()),
        max_rss_kib: median(all.iter().map(|r| r.max_rss_kib).collect()),
        cpu: median(all.iter().map(|r| r.cpu).collect()),
    }
}

struct Row {
    size: usize,
    what: String,
    run: Run,
    peer: Option<(String, Run)>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::var_os("PATCHDECK_PEERS_LAUNCH").is_some() {
        launch();
    }
    println!("{}", support::machine());
    let sizes: Vec<usize> = std::env::var("PATCHDECK_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 200, 2000]);
    let runs: usize = std::env::var("PATCHDECK_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let keep = std::env::var_os("PATCHDECK_BENCH_OUT").map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let have_patch = Command::new("patch")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let exe = env!("CARGO_BIN_EXE_patchdeck");
    let mut rows = Vec::new();
    let mut paired: Vec<Paired> = Vec::new();
    let mut back_and_forth: Vec<(usize, there_and_back::Pairs)> = Vec::new();
    let mut screens: Vec<(usize, &str, first_screen::FirstScreen)> = Vec::new();

    for &size in &sizes {
        let base = match &keep {
            Some(k) => k.join(format!("n{size}")),
            None => dir.path().join(format!("n{size}")),
        };
        let ws = base.join("ws");
        let files = generate_files(size);
        for f in &files {
            let p = ws.join(&f.path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, f.text()).unwrap();
        }
        let diff = unified(&files);
        let hunks: usize = files.iter().map(|f| f.hunks.len()).sum();
        let lines: usize = files.iter().map(|f| f.lines.len()).sum();
        let batches = [
            ("unified", base.join("batch.diff"), diff.into_bytes()),
            (
                "tul002",
                base.join("batch.tul.json"),
                serde_json::to_vec(&tul002(&files)).unwrap(),
            ),
            (
                "bundle",
                base.join("batch.bundle.json"),
                serde_json::to_vec(&bundle(&files)).unwrap(),
            ),
            (
                "edits",
                base.join("batch.edits.json"),
                serde_json::to_vec(&edits(&files)).unwrap(),
            ),
        ];
        for (_, path, bytes) in &batches {
            std::fs::write(path, bytes).unwrap();
        }
        println!(
            "{size} files: {hunks} hunks, {lines} target lines, unified diff {:.1} MB",
            batches[0].2.len() as f64 / 1e6
        );
        if keep.is_some() {
            continue;
        }
        let diff_path = batches[0].1.to_str().unwrap().to_owned();
        let scratch = base.join("scratch");
        for (format, path, _) in &batches[..2] {
            screens.push((size, format, first_screen::measure(&ws, path, runs)));
        }

        for (format, path, bytes) in &batches {
            if bytes.len() > MAX_INPUT {
                println!(
                    "  {format}: the batch is {} MiB, over patchdeck's input limit: skipped",
                    bytes.len() >> 20
                );
                continue;
            }
            let path = path.to_str().unwrap();
            let check = median_run(runs, || {
                run_once(
                    exe,
                    &[
                        "check",
                        "--json",
                        "--max-tokens",
                        "0",
                        "--root",
                        ws.to_str().unwrap(),
                        path,
                    ],
                    &base,
                )
            });
            // `apply -q`, as `git apply` and `patch` are silent (as `check -q` is set against
            // `git apply --check`); `apply --json`, which also hashes every original and every
            // new content with SHA-256 for its report, is a row of its own.
            let apply_with = |output: &'static [&'static str]| {
                let (ws, scratch, base) = (&ws, &scratch, &base);
                move || {
                    copy_tree(ws, scratch);
                    let mut args = vec!["apply"];
                    args.extend_from_slice(output);
                    args.extend(["--root", scratch.to_str().unwrap(), path]);
                    run_once(exe, &args, base)
                }
            };
            let apply_once = apply_with(&["-q", "--max-tokens", "0"]);
            // The unified apply is set against the floor and git apply in turns (see
            // `in_turns`); the other formats' apply has no peer.
            let (apply, git_apply) = if *format == "unified" {
                let writes: Vec<(PathBuf, Vec<u8>)> = files
                    .iter()
                    .map(|f| (PathBuf::from(&f.path), f.new_text().into_bytes()))
                    .collect();
                let turns = in_turns(
                    runs,
                    &mut [
                        &mut { apply_once },
                        &mut || {
                            copy_tree(&ws, &scratch);
                            // The floor runs alone in this process: the processor time
                            // around it is its own.
                            let cpu = cpu_used();
                            let wall = floor::run(&scratch, &writes) as u64;
                            Run {
                                wall: Duration::from_nanos(wall),
                                max_rss_kib: 0,
                                cpu: cpu_used() - cpu,
                            }
                        },
                        &mut || {
                            copy_tree(&ws, &scratch);
                            run_once("git", &["apply", &diff_path], &scratch)
                        },
                    ],
                );
                paired.push(Paired {
                    size,
                    to_floor: median_ratio(&turns[0], &turns[1]),
                    to_git: median_ratio(&turns[0], &turns[2]),
                });
                let back_files = reversed(&files);
                let back_path = base.join("back.diff");
                std::fs::write(&back_path, unified(&back_files)).unwrap();
                let writes_back: Vec<(PathBuf, Vec<u8>)> = back_files
                    .iter()
                    .map(|f| (PathBuf::from(&f.path), f.new_text().into_bytes()))
                    .collect();
                back_and_forth.push((
                    size,
                    there_and_back::measure(
                        exe,
                        &base,
                        &ws,
                        Path::new(&diff_path),
                        &back_path,
                        &writes,
                        &writes_back,
                        runs,
                    ),
                ));
                let [apply, floor, git] = turns.map(median_of);
                rows.push(Row {
                    size,
                    what: "apply -q unified".into(),
                    run: apply.clone_figures(),
                    peer: Some(("durable-protocol floor".into(), floor)),
                });
                rows.push(Row {
                    size,
                    what: "apply --json unified".into(),
                    run: median_run(runs, apply_with(&["--json", "--max-tokens", "0"])),
                    peer: None,
                });
                (apply, Some(git))
            } else {
                (median_run(runs, apply_once), None)
            };
            // git apply --check prints nothing and answers with its status, as `check -q` does
            // (`check --json` above also writes the report of every change, hashes included).
            let quiet = (*format == "unified").then(|| {
                median_run(runs, || {
                    run_once(
                        exe,
                        &["check", "-q", "--root", ws.to_str().unwrap(), path],
                        &base,
                    )
                })
            });
            let (check_peer, apply_peer) = if *format == "unified" {
                let c = median_run(runs, || {
                    run_once("git", &["apply", "--check", &diff_path], &ws)
                });
                (
                    Some(("git apply --check".to_owned(), c)),
                    git_apply.map(|a| ("git apply".to_owned(), a)),
                )
            } else {
                (None, None)
            };
            if let (Some(quiet), Some((name, git))) = (quiet, &check_peer) {
                rows.push(Row {
                    size,
                    what: "check -q unified".into(),
                    run: quiet,
                    peer: Some((name.clone(), git.clone_figures())),
                });
                // The default report, change IDs and notes included, as a person reads it.
                let report = median_run(runs, || {
                    run_once(exe, &["check", "--root", ws.to_str().unwrap(), path], &base)
                });
                rows.push(Row {
                    size,
                    what: "check (report) unified".into(),
                    run: report,
                    peer: Some((name.clone(), git.clone_figures())),
                });
            }
            println!(
                "  {format}: check {:.0} ms {} KiB, apply {:.0} ms {} KiB",
                ms(check.wall),
                check.max_rss_kib,
                ms(apply.wall),
                apply.max_rss_kib
            );
            rows.push(Row {
                size,
                what: format!("check {format}"),
                run: check,
                peer: check_peer,
            });
            rows.push(Row {
                size,
                what: format!("apply -q {format}"),
                run: apply,
                peer: apply_peer,
            });
            if *format == "unified" && have_patch {
                let c = median_run(runs, || {
                    run_once("patch", &["--dry-run", "-s", "-p1", "-i", &diff_path], &ws)
                });
                let a = median_run(runs, || {
                    copy_tree(&ws, &scratch);
                    run_once("patch", &["-s", "-p1", "-i", &diff_path], &scratch)
                });
                let c2 = rows[rows.len() - 2].run.clone_figures();
                let a2 = rows[rows.len() - 1].run.clone_figures();
                rows.push(Row {
                    size,
                    what: "check unified".into(),
                    run: c2,
                    peer: Some(("patch --dry-run".into(), c)),
                });
                rows.push(Row {
                    size,
                    what: "apply -q unified".into(),
                    run: a2,
                    peer: Some(("patch -p1".into(), a)),
                });
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if keep.is_some() {
        return;
    }

    println!();
    println!(
        "| files | patchdeck | ms | CPU ms | MiB | peer | ms | CPU ms | MiB | time ratio | CPU ratio | memory ratio |"
    );
    println!("|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    let mib = |r: &Run| r.max_rss_kib as f64 / 1024.0;
    // A figure not measured (the floor's memory: it runs in this process) is left blank, and
    // so is its ratio.
    let cell = |value: f64, measured: bool| {
        if measured {
            format!("{value:.0}")
        } else {
            String::new()
        }
    };
    let ratio_cell = |a: f64, b: f64, measured: bool| {
        if measured {
            format!("{:.2}", a / b)
        } else {
            String::new()
        }
    };
    for row in &rows {
        let run = &row.run;
        match &row.peer {
            Some((name, peer)) => {
                let (rss, cpu) = (peer.max_rss_kib > 0, !peer.cpu.is_zero());
                println!(
                    "| {} | {} | {:.0} | {:.0} | {:.0} | {name} | {:.0} | {} | {} | {:.2} | {} | {} |",
                    row.size,
                    row.what,
                    ms(run.wall),
                    ms(run.cpu),
                    mib(run),
                    ms(peer.wall),
                    cell(ms(peer.cpu), cpu),
                    cell(mib(peer), rss),
                    ms(run.wall) / ms(peer.wall),
                    ratio_cell(ms(run.cpu), ms(peer.cpu), cpu),
                    ratio_cell(mib(run), mib(peer), rss),
                )
            }
            None => println!(
                "| {} | {} | {:.0} | {:.0} | {:.0} | | | | | | | |",
                row.size,
                row.what,
                ms(run.wall),
                ms(run.cpu),
                mib(run)
            ),
        }
    }

    println!();
    println!("The reviewer's first screen (`review --read-only` on the unified diff and the TUL-002 batch, in a 120x40 pseudo-terminal, from start to the first frame drawn whole), and the whole batch there to decide on:");
    println!(
        "| files | batch | first screen, warm ms | cold ms | whole batch, warm ms | cold ms |"
    );
    println!("|---:|---|---:|---:|---:|---:|");
    let cold_ms = |cold: &Result<Duration, String>| match cold {
        Ok(d) => format!("{:.0}", ms(*d)),
        Err(why) => why.clone(),
    };
    for (size, format, screen) in &screens {
        println!(
            "| {size} | {format} | {:.0} | {} | {:.0} | {} |",
            ms(screen.warm),
            cold_ms(&screen.cold),
            ms(screen.whole_warm),
            cold_ms(&screen.whole_cold)
        );
    }

    // The targets of issue 17, at the largest size, each a ratio measured in this run.
    let largest = *sizes.iter().max().unwrap();
    let ratio = |what: &str, peer: &str| {
        rows.iter()
            .find(|r| {
                r.size == largest && r.what == what && r.peer.as_ref().is_some_and(|p| p.0 == peer)
            })
            .map(|r| {
                let p = &r.peer.as_ref().unwrap().1;
                (
                    ms(r.run.wall) / ms(p.wall),
                    r.run.max_rss_kib as f64 / p.max_rss_kib.max(1) as f64,
                    ms(r.run.cpu) / ms(p.cpu).max(f64::MIN_POSITIVE),
                )
            })
    };
    println!();
    println!("Targets at {largest} files (ratio measured in this run; target in brackets):");
    if let Some((t, m, c)) = ratio("check -q unified", "git apply --check") {
        println!(
            "  check -q / git apply --check: time {t:.2} [<= 0.5], peak memory {m:.2} [<= 1.0] (processor time {c:.2})"
        );
    }
    if let Some((t, _, c)) = ratio("check (report) unified", "git apply --check") {
        println!(
            "  check (the report) / git apply --check: time {t:.2} [<= 0.5] (processor time {c:.2})"
        );
    }
    if let Some((_, pairs)) = back_and_forth.iter().find(|(size, _)| *size == largest) {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "  apply -q there and back, ten undo records kept: {:.0} ms; the floor twice {:.0} ms, git apply twice {:.0} ms",
            ms(there_and_back::median(&pairs.apply)),
            ms(there_and_back::median(&pairs.floor)),
            ms(there_and_back::median(&pairs.git)),
        );
        println!(
            "    / the floor twice: {:.2} [<= 1.2]; / git apply twice: {:.2} [<= 0.6]",
            pairs.ratio(&pairs.floor),
            pairs.ratio(&pairs.git)
        );
    }
    if let Some((t, m, c)) = ratio("check unified", "git apply --check") {
        println!(
            "  check --json / git apply --check: time {t:.2}, peak memory {m:.2} (processor time {c:.2})"
        );
    }
    // The apply's time ratios are the medians of each round's ratio (see `in_turns`): the
    // ratio of the medians is in the table.
    let turns = paired.iter().find(|p| p.size == largest);
    if let (Some((_, m, _)), Some(p)) = (ratio("apply -q unified", "git apply"), turns) {
        println!(
            "  apply -q / git apply:      time {:.2} [<= 0.6], peak memory {m:.2} [<= 1.0]",
            p.to_git
        );
    }
    if let Some(p) = turns {
        println!(
            "  apply -q / durable floor:  time {:.2} [<= 1.2]",
            p.to_floor
        );
    }
    // The least wall time apply's work could take here, spread evenly over every core with
    // no waiting, against the floor's wall time: above 1.2, the target needs less work, not
    // better overlap.
    let floor_row = rows.iter().find(|r| {
        r.size == largest
            && r.what == "apply -q unified"
            && r.peer
                .as_ref()
                .is_some_and(|p| p.0 == "durable-protocol floor")
    });
    if let Some(row) = floor_row {
        let floor = &row.peer.as_ref().unwrap().1;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "  apply's processor time over {cores} cores / the floor's time: {:.2} (apply {:.0} ms of processor time, the floor {:.0} ms in {:.0} ms)",
            ms(row.run.cpu) / cores as f64 / ms(floor.wall),
            ms(row.run.cpu),
            ms(floor.cpu),
            ms(floor.wall)
        );
    }

    for (_, format, screen) in screens.iter().filter(|(size, ..)| *size == largest) {
        let cold = match &screen.cold {
            Ok(d) => format!("{:.0} ms [< 300]", ms(*d)),
            Err(why) => why.clone(),
        };
        println!(
            "  reviewer's first screen ({format}): warm {:.0} ms, cold {cold}; the whole batch: warm {:.0} ms, cold {}",
            ms(screen.warm),
            ms(screen.whole_warm),
            cold_ms(&screen.whole_cold)
        );
    }

    // Growth: time per file at each size, against the largest size (1.00 is linear).
    if sizes.len() > 1 {
        println!();
        println!("Growth, ms per file (unified; 1.00 = linear against the largest size):");
        let largest = *sizes.iter().max().unwrap();
        for what in ["check unified", "apply -q unified"] {
            let per_file = |size: usize| {
                rows.iter()
                    .find(|r| r.size == size && r.what == what)
                    .map(|r| ms(r.run.wall) / size as f64)
            };
            let top = per_file(largest).unwrap();
            let cells: Vec<String> = sizes
                .iter()
                .map(|&s| {
                    let p = per_file(s).unwrap();
                    format!("{s}: {p:.3} ({:.2})", p / top)
                })
                .collect();
            println!("  {what:<14} {}", cells.join("  "));
        }
    }
}

impl Run {
    fn clone_figures(&self) -> Run {
        Run {
            wall: self.wall,
            max_rss_kib: self.max_rss_kib,
            cpu: self.cpu,
        }
    }
}
