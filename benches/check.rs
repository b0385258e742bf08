//! `cargo bench --bench check`: TUL-002 `check` and `apply` on a generated workspace, against
//! the floor of merely reading and SHA-256-hashing the same files.
//!
//! The generator is deterministic: N source-like files of about 200 lines, and a batch of 10
//! replace/insert/delete changes per file. Each figure is the median of several runs. Sizes:
//! `PATCHDECK_BENCH_FILES` (default 1000). With `PATCHDECK_BENCH_OUT=DIR` it only writes the
//! workspace (`DIR/ws`) and batch (`DIR/batch.json`) for profiling, and measures nothing.

use patchdeck::formats::Input;
use patchdeck::model::sha256_hex;
use patchdeck::pipeline;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const CHANGES_PER_FILE: usize = 10;
const RUNS: usize = 7;

#[path = "support/mod.rs"]
mod support;

use support::{copy_tree, cpu_used, Rng};

fn source_line(rng: &mut Rng, n: usize) -> String {
    let indent = "    ".repeat(rng.below(4) as usize);
    let words: Vec<&str> = (0..3 + rng.below(6)).map(|_| rng.word()).collect();
    format!(
        "{indent}{} = {}; // line {n}",
        words.join("_"),
        rng.below(100_000)
    )
}

/// Writes the workspace and returns the batch.
pub fn generate(root: &Path, files: usize) -> Value {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut patches = Vec::with_capacity(files);
    for f in 0..files {
        let lines: Vec<String> = (0..150 + rng.below(100) as usize)
            .map(|n| source_line(&mut rng, n))
            .collect();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let path = format!("src/module_{:02}/file_{f:04}.rs", f % 37);
        std::fs::create_dir_all(root.join(&path).parent().unwrap()).unwrap();
        std::fs::write(root.join(&path), &text).unwrap();
        let step = lines.len() / CHANGES_PER_FILE;
        let changes: Vec<Value> = (0..CHANGES_PER_FILE)
            .map(|c| {
                let line = c * step + 1 + rng.below(step as u64 - 1) as usize;
                match c % 3 {
                    0 => json!({"operation": "replace", "startLine": line, "endLine": line,
                        "expectedOriginalLines": [lines[line - 1]], "newLines": [format!("{} // changed", lines[line - 1])],
                        "description": format!("change {c}")}),
                    1 => json!({"operation": "insert", "afterLine": line, "newLines": ["// inserted", "// twice"]}),
                    _ => json!({"operation": "delete", "startLine": line, "endLine": line,
                        "expectedOriginalLines": [lines[line - 1]]}),
                }
            })
            .collect();
        patches.push(json!({"fileKey": format!("f{f}"), "docPath": path, "originalSha256": sha256_hex(text.as_bytes()), "changes": changes}));
    }
    json!({"batchKey": "bench", "files": patches})
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The median wall time of `f` over the runs, and the median processor time it used (on
/// every core: the work done, which moves less than the wall time on a shared machine).
fn time(mut f: impl FnMut()) -> (Duration, Duration) {
    let (walls, cpus) = (0..RUNS)
        .map(|_| {
            let (start, cpu) = (Instant::now(), cpu_used());
            f();
            (start.elapsed(), cpu_used() - cpu)
        })
        .unzip();
    (median(walls), median(cpus))
}

fn main() {
    println!("{}", support::machine());
    let files: usize = std::env::var("PATCHDECK_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let keep = std::env::var_os("PATCHDECK_BENCH_OUT").map(std::path::PathBuf::from);
    let base = keep.clone().unwrap_or_else(|| dir.path().to_path_buf());
    let root = base.join("ws");
    let batch = generate(&root, files);
    let batch_path = base.join("batch.json");
    std::fs::write(&batch_path, serde_json::to_vec(&batch).unwrap()).unwrap();
    if keep.is_some() {
        return;
    }
    let paths: Vec<String> = batch["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["docPath"].as_str().unwrap().to_owned())
        .collect();
    let bytes: usize = paths
        .iter()
        .map(|p| std::fs::metadata(root.join(p)).unwrap().len() as usize)
        .sum();

    let floor = time(|| {
        for p in &paths {
            let data = std::fs::read(root.join(p)).unwrap();
            std::hint::black_box(sha256_hex(&data));
        }
    });
    let library = time(|| {
        let opened =
            pipeline::open(&root, pipeline::Access::Write, Duration::from_secs(5)).unwrap();
        let input = Input::read(batch_path.to_str().unwrap()).unwrap();
        // The batch is far above the review size limit (REQ-PATCH-008): lift it.
        let options = patchdeck::formats::LoadOptions {
            max_tokens: None,
            ..Default::default()
        };
        let checked = pipeline::load_with(&opened.workspace, &input, &options).unwrap();
        assert_eq!(checked.verification.worst(), patchdeck::verify::Status::Ok);
        // Not freed, as `patchdeck check` never frees it: it exits, and the operating system
        // takes the memory back at once.
        std::mem::forget(checked);
    });
    let exe = env!("CARGO_BIN_EXE_patchdeck");
    let process = time(|| {
        let out = Command::new(exe)
            .args(["check", "--json", "--max-tokens", "0", "--root"])
            .arg(&root)
            .arg(&batch_path)
            .output()
            .unwrap();
        assert!(out.status.success());
    });
    let apply = median(
        (0..RUNS)
            .map(|i| {
                let copy = dir.path().join(format!("apply-{i}"));
                copy_tree(&root, &copy);
                let start = Instant::now();
                let out = Command::new(exe)
                    .args(["apply", "--json", "--max-tokens", "0", "--root"])
                    .arg(&copy)
                    .arg(&batch_path)
                    .output()
                    .unwrap();
                let elapsed = start.elapsed();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                elapsed
            })
            .collect(),
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "TUL-002 batch: {files} files, {} changes, {:.1} MB of target files",
        files * CHANGES_PER_FILE,
        bytes as f64 / 1e6
    );
    println!(
        "{:<44} {:>9}  {:>6}  {:>9}",
        "measure (median of 7)", "ms", "ratio", "CPU ms"
    );
    let (floor, floor_cpu) = floor;
    println!(
        "{:<44} {:>9.1}  {:>6}  {:>9.1}",
        "read + SHA-256 every target file (floor)",
        ms(floor),
        "1.00",
        ms(floor_cpu)
    );
    println!(
        "{:<44} {:>9.1}  {:>6.2}  {:>9.1}",
        "check, in process (parse, resolve, verify)",
        ms(library.0),
        ms(library.0) / ms(floor),
        ms(library.1)
    );
    for (name, d) in [
        ("patchdeck check --json (whole process)", process.0),
        ("patchdeck apply --json (atomic, fsynced)", apply),
    ] {
        println!("{name:<44} {:>9.1}  {:>6.2}", ms(d), ms(d) / ms(floor));
    }
}
