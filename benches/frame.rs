//! `cargo bench --bench frame`: what one frame of the reviewer costs on a 100,000-line file
//! against a 100-line one, and how long a 2,000-file batch takes to show its first frame.
//!
//! Frames are drawn on ratatui's `TestBackend` at 120x40 with syntax highlighting on (the dark
//! theme, truecolor). Each figure is what a person waits for:
//! - "start": once per process, loading syntect's syntax definitions and theme, then the
//!   session's first frame, which compiles the patterns of the file's syntax as they are met.
//!   Every later reviewer in the process shares them, as every later frame of a session does.
//! - "cold": the first frame on a change of a new session (no parse state, no screen cached;
//!   the background parser has just been asked for the file);
//! - "warm": a redraw of the same screen;
//! - "move": a key press to the next change plus its frame;
//! - "background": how long the background parser takes to reach the end of the 100,000-line
//!   file, after which a change deep in it is repainted with exact colours (one run).
//!
//! Each figure is the median of several runs. The workspace is generated deterministically in
//! a temporary folder.

use patchdeck::formats::Input;
use patchdeck::model::sha256_hex;
use patchdeck::pipeline;
use patchdeck::tui::app::{App, Config, ReviewerSetup};
use patchdeck::tui::draw::draw;
use patchdeck::tui::env::Env;
use patchdeck::tui::keys::{Key, KeyMap};
use patchdeck::tui::theme::Palette;
use patchdeck::verify::Checked;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs of each measure, unless `PATCHDECK_FRAME_RUNS` says otherwise.
const RUNS: usize = 9;

fn runs() -> usize {
    std::env::var("PATCHDECK_FRAME_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RUNS)
}

/// Whether the row labelled `label` is measured: all of them, or those whose label contains
/// `PATCHDECK_FRAME_ONLY` (to profile one row on its own).
fn wanted(label: &str) -> bool {
    std::env::var("PATCHDECK_FRAME_ONLY").map_or(true, |only| label.contains(&only))
}

fn source(lines: usize) -> String {
    (1..=lines)
        .map(|n| match n % 7 {
            0 => format!("fn item_{n}(value: u64) -> u64 {{\n"),
            1 => format!("    let total = value * {n} + 1; // \"line {n}\"\n"),
            6 => "}\n".to_owned(),
            _ => format!("    // step {n}: keep the value in range\n"),
        })
        .collect()
}

/// A file patch changing lines `at` (two changes, a few lines apart).
fn file_patch(path: &str, text: &str, at: &[usize]) -> Value {
    let lines: Vec<&str> = text.lines().collect();
    let changes: Vec<Value> = at
        .iter()
        .enumerate()
        .map(|(i, &line)| {
            json!({
                "changeKey": format!("change-{i}"),
                "operation": "replace",
                "description": "Rename the value.",
                "startLine": line,
                "endLine": line,
                "expectedOriginalLines": [lines[line - 1]],
                "newLines": [lines[line - 1].replace("value", "amount")]
            })
        })
        .collect();
    json!({"docPath": path, "originalSha256": sha256_hex(text.as_bytes()), "changes": changes})
}

fn load(root: &Path, batch: &Value) -> (pipeline::Opened, Checked) {
    let opened = pipeline::open(root, pipeline::Access::Write, Duration::from_secs(5)).unwrap();
    let input = Input::from_bytes("bench.json", serde_json::to_vec(batch).unwrap());
    let checked = pipeline::load(&opened.workspace, &input, None).unwrap();
    (opened, checked)
}

fn app(root: &Path, batch: &Value) -> App {
    let (opened, checked) = load(root, batch);
    App::new(setup(opened, checked))
}

/// A reviewer's setup with no session, in true colour and the dark theme.
fn setup(opened: pipeline::Opened, checked: Checked) -> ReviewerSetup {
    let env = Env::from_vars(None, Some("truecolor".into()), None, None);
    let palette = Palette::load("dark", env.colors).unwrap();
    ReviewerSetup {
        workspace: opened.workspace,
        checked,
        env,
        palette,
        keymap: KeyMap::default(),
        config: Config::default(),
        session: None,
        fresh: false,
    }
}

fn frame(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal.draw(|f| draw(f, app)).unwrap();
}

// One function per measure, never inlined, so a profiler (`valgrind --tool=callgrind`) reports
// each one's cost on its own.

#[inline(never)]
fn cold_frame(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let start = Instant::now();
    frame(terminal, app);
    start.elapsed()
}

#[inline(never)]
fn first_frame(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let start = Instant::now();
    frame(terminal, app);
    std::hint::black_box("first");
    start.elapsed()
}

#[inline(never)]
fn warm_frame(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let start = Instant::now();
    frame(terminal, app);
    // Not the same code as `cold_frame`, which the compiler would otherwise fold into one.
    std::hint::black_box("warm");
    start.elapsed()
}

#[inline(never)]
fn move_frame(terminal: &mut Terminal<TestBackend>, app: &mut App) -> Duration {
    let start = Instant::now();
    app.key(Key::Char('j'));
    frame(terminal, app);
    start.elapsed()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:>9.3} ms", d.as_secs_f64() * 1e3)
}

/// Measures cold, warm and move frames on a one-file batch changing `file` at `at`.
fn measure_file(
    root: &Path,
    path: &str,
    text: &str,
    at: &[usize],
    whole_file: bool,
) -> [Duration; 3] {
    let batch = json!({"batchKey": "bench", "files": [file_patch(path, text, at)]});
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let (mut cold, mut warm, mut step) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs() {
        let mut app = app(root, &batch);
        app.size = (120, 40);
        app.whole_file = whole_file;
        cold.push(cold_frame(&mut terminal, &app));
        warm.push(warm_frame(&mut terminal, &app));
        step.push(move_frame(&mut terminal, &mut app));
    }
    [median(cold), median(warm), median(step)]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let small = source(100);
    let big = source(100_000);
    std::fs::write(root.join("small.rs"), &small).unwrap();
    std::fs::write(root.join("big.rs"), &big).unwrap();

    // Always first, and always run: every later reviewer of the process shares what it loads.
    start(root, &small);
    println!(
        "frame cost at 120x40, syntax highlighting on (median of {})",
        runs()
    );
    println!(
        "{:<44} {:>12} {:>12} {:>12}",
        "", "cold", "warm", "move (j)"
    );
    let rows = [
        (
            "100-line file, change at line 50",
            "small.rs",
            &small,
            [50, 60],
            false,
        ),
        (
            "100-line file, whole file at 50",
            "small.rs",
            &small,
            [50, 60],
            true,
        ),
        (
            "100,000-line file, change at line 50",
            "big.rs",
            &big,
            [50, 60],
            false,
        ),
        (
            "100,000-line file, change at line 99,950",
            "big.rs",
            &big,
            [99_950, 99_960],
            false,
        ),
        (
            "100,000-line file, whole file at 99,950",
            "big.rs",
            &big,
            [99_950, 99_960],
            true,
        ),
    ];
    for (label, path, text, at, whole) in rows {
        if !wanted(label) {
            continue;
        }
        let [cold, warm, step] = measure_file(root, path, text, &at, whole);
        println!("{label:<44} {} {} {}", ms(cold), ms(warm), ms(step));
    }

    if wanted("background") {
        background(root, &big);
    }
    // A 2,000-file batch: load and verify, then the reviewer's start and first frame.
    if wanted("2,000 files") {
        many_files(root);
    }
}

/// The first reviewer of the process: loading the syntaxes and theme, then its first frame.
fn start(root: &Path, text: &str) {
    let batch = json!({"batchKey": "start", "files": [file_patch("small.rs", text, &[50, 60])]});
    let (opened, checked) = load(root, &batch);
    let setup = setup(opened, checked);
    let begin = Instant::now();
    let mut app = App::new(setup);
    let loading = begin.elapsed();
    app.size = (120, 40);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let first = first_frame(&mut terminal, &app);
    println!(
        "start, once per process: load syntaxes and theme {}, first frame {} (one run)",
        ms(loading),
        ms(first)
    );
    println!();
}

/// How long the background parser takes to read the 100,000-line file from its top (off the
/// input path, at a lower priority), and the repaint with exact colours at line 99,950 after.
fn background(root: &Path, text: &str) {
    let batch =
        json!({"batchKey": "bench", "files": [file_patch("big.rs", text, &[99_950, 99_960])]});
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let mut app = app(root, &batch);
    app.size = (120, 40);
    cold_frame(&mut terminal, &app);
    let waited = app.highlighter.waiting();
    let start = Instant::now();
    app.highlighter.settle();
    let parse = start.elapsed();
    let repaint = repaint_frame(&mut terminal, &app);
    println!(
        "100,000-line file: background parse from the top {} (first paint provisional: {waited}), then the repaint at 99,950 {} (one run)",
        ms(parse),
        ms(repaint)
    );
}

#[inline(never)]
fn repaint_frame(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let start = Instant::now();
    frame(terminal, app);
    std::hint::black_box("repaint");
    start.elapsed()
}

fn many_files(root: &Path) {
    let many = root.join("many");
    let mut files = Vec::new();
    for i in 0..2_000 {
        let path = format!("pkg{}/mod{i}.rs", i % 40);
        let text = source(60);
        std::fs::create_dir_all(many.join(format!("pkg{}", i % 40))).unwrap();
        std::fs::write(many.join(&path), &text).unwrap();
        files.push(file_patch(&path, &text, &[8, 22]));
    }
    let batch = json!({"batchKey": "many", "files": files});
    let (mut loading, mut first) = (Vec::new(), Vec::new());
    // Each key with what is typed, untimed, before and after each press, so that every press
    // does its work: `G` from the first change, `J` from the first file, `A` undone after, and
    // `f` (which cycles the filter) back to every change at the end.
    let mut keys: Vec<(&str, &str, &str, Vec<Duration>)> = [
        ("j", "", ""),
        ("]", "", ""),
        ("a", "", ""),
        ("u", "", ""),
        ("!", "", ""),
        ("/mod1999", "", ""),
        ("f", "", ""),
        ("G", "g", ""),
        ("J", "g", ""),
        ("A", "", "u"),
        ("?", "", ""),
    ]
    .into_iter()
    .map(|(k, before, after)| (k, before, after, Vec::new()))
    .collect();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    for _ in 0..runs().min(5) {
        let start = Instant::now();
        let mut app = app(&many, &batch);
        loading.push(start.elapsed());
        app.size = (120, 40);
        first.push(cold_frame(&mut terminal, &app));
        // A key and the frame after it, as a person sees it: each key ten times.
        for (typed, before, after, samples) in keys.iter_mut() {
            for _ in 0..10 {
                before.chars().for_each(|c| {
                    app.key(Key::Char(c));
                });
                let start = Instant::now();
                for c in typed.chars() {
                    app.key(Key::Char(c));
                }
                if typed.starts_with('/') {
                    app.key(Key::Esc);
                }
                frame(&mut terminal, &app);
                samples.push(start.elapsed());
                after.chars().for_each(|c| {
                    app.key(Key::Char(c));
                });
            }
            if *typed == "f" {
                // Ten presses of a three-way cycle: two more bring back every change.
                app.key(Key::Char('f'));
                app.key(Key::Char('f'));
            }
        }
    }
    // The commit summary over every file: opening it, and a scroll in it, each with its frame;
    // then, after the last run commits (untimed), a scroll in what the commit wrote.
    let (mut open, mut scroll, mut committed) = (Vec::new(), Vec::new(), Vec::new());
    let (mut steps, mut counted) = (Vec::new(), Vec::new());
    let summary_runs = runs().min(5);
    for run in 0..summary_runs {
        let mut app = app(&many, &batch);
        app.size = (120, 40);
        app.key(Key::Char('V'));
        app.key(Key::Char('y'));
        frame(&mut terminal, &app);
        let start = Instant::now();
        app.key(Key::Char('c'));
        frame(&mut terminal, &app);
        open.push(start.elapsed());
        // The rest of the counts, a step and its frame at a time, as the loop makes them
        // between keys.
        let start = Instant::now();
        while app.summary_counting() {
            let step = Instant::now();
            app.count_summary(patchdeck::tui::summary::STEP);
            frame(&mut terminal, &app);
            steps.push(step.elapsed());
        }
        counted.push(start.elapsed());
        for _ in 0..10 {
            let start = Instant::now();
            app.key(Key::Char('j'));
            frame(&mut terminal, &app);
            scroll.push(start.elapsed());
        }
        if run + 1 == summary_runs {
            app.key(Key::Char('y'));
            assert!(
                app.committed(),
                "the 2,000 files were written (the batch is made anew for each run of the bench)"
            );
            frame(&mut terminal, &app);
            for _ in 0..10 {
                let start = Instant::now();
                app.key(Key::Char('j'));
                frame(&mut terminal, &app);
                committed.push(start.elapsed());
            }
        }
    }
    println!();
    println!(
        "2,000 files / 4,000 changes: load + verify + start {}, first frame {}",
        ms(median(loading)),
        ms(median(first))
    );
    println!(
        "  commit summary of 2,000 writes: open + frame {}, scroll + frame median {}, worst {}",
        ms(median(open)),
        ms(median(scroll.clone())),
        ms(*scroll.iter().max().expect("measured"))
    );
    match steps.iter().max() {
        Some(&worst) => println!(
            "  its line counts, made between keys after it opens: all {}, a step + frame median {}, worst {}",
            ms(median(counted)),
            ms(median(steps.clone())),
            ms(worst)
        ),
        None => println!("  its line counts: all made as it opened"),
    }
    println!(
        "  what the commit of 2,000 files wrote: scroll + frame median {}, worst {}",
        ms(median(committed.clone())),
        ms(*committed.iter().max().expect("measured"))
    );
    for (typed, _, _, samples) in keys {
        let worst = *samples.iter().max().expect("measured");
        println!(
            "  key {typed:<9} + frame: median {}, worst {}",
            ms(median(samples)),
            ms(worst)
        );
    }
}
