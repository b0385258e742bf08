//! The reviewer's first screen as a person waits for it: the real binary started in a
//! pseudo-terminal of the bench's own (the end-to-end tests' `Terminal`, 120x40), timed from its
//! start until its first frame is drawn whole (the header counts files: `file(s) ·`), and
//! until the whole batch is there to decide on (the header counts changes: `change(s) ·`; a
//! large diff opens on its first files while the whole of it loads, see `src/loading.rs`).
//! `cargo bench --bench peers` measures both on each size's unified diff, `review
//! --read-only`, with the page cache warm and then dropped before each run (cold: the batch,
//! the files and the binary itself come from the disk).

#[allow(dead_code)]
#[path = "../../tests/common/terminal.rs"]
mod terminal;

use std::path::Path;
use std::time::Duration;

/// The medians of the runs, warm, and cold or why cold could not be measured: of the first
/// screen, and of the whole batch's arrival.
pub struct FirstScreen {
    pub warm: Duration,
    pub cold: Result<Duration, String>,
    pub whole_warm: Duration,
    pub whole_cold: Result<Duration, String>,
}

/// Where the kernel is told to drop its page cache (root only).
const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Measures `runs` first screens of the reviewer on `batch` over the workspace `root`, warm
/// then cold.
pub fn measure(root: &Path, batch: &Path, runs: usize) -> FirstScreen {
    let home = tempfile::tempdir().unwrap();
    let once = || first_screen(home.path(), root, batch);
    // One run first, untimed: the warm runs then meet the page cache as a second review does.
    once();
    let warm: Vec<(Duration, Duration)> = (0..runs).map(|_| once()).collect();
    let cold = (0..runs)
        .map(|_| drop_page_cache().map(|()| once()))
        .collect::<Result<Vec<_>, _>>();
    let first = |runs: &[(Duration, Duration)]| median(runs.iter().map(|r| r.0).collect());
    let whole = |runs: &[(Duration, Duration)]| median(runs.iter().map(|r| r.1).collect());
    FirstScreen {
        warm: first(&warm),
        whole_warm: whole(&warm),
        cold: cold.as_deref().map(first).map_err(Clone::clone),
        whole_cold: cold.as_deref().map(whole).map_err(Clone::clone),
    }
}

/// From start to the first screen, and to the whole batch.
fn first_screen(home: &Path, root: &Path, batch: &Path) -> (Duration, Duration) {
    let (root, batch) = (root.to_str().unwrap(), batch.to_str().unwrap());
    let mut reviewer =
        terminal::Terminal::start(home, &["review", "--read-only", "--root", root, batch], &[]);
    let shown = reviewer.time_to("file(s) ·");
    let whole = reviewer.time_to("change(s) ·");
    reviewer.keys(&["q"]);
    let (code, screen) = reviewer.wait_exit();
    assert_eq!(code, 0, "the reviewer did not quit cleanly:\n{screen}");
    (shown, whole)
}

/// Writes every dirty page out, then has the kernel drop its clean ones.
fn drop_page_cache() -> Result<(), String> {
    // SAFETY: sync takes no arguments and cannot fail.
    unsafe { libc::sync() };
    std::fs::write(DROP_CACHES, "3").map_err(|e| {
        format!("not measured: dropping the page cache ({DROP_CACHES}) needs root: {e}")
    })
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
