//! What the benchmarks share: a deterministic generator of source-like text, so every run of
//! every bench measures the same bytes, the processor time a process has used, and what
//! machine the figures come from.

use std::time::Duration;

/// The processor time this process has used so far, every thread, user and system.
pub fn cpu_used() -> Duration {
    // SAFETY: rusage is plain data, which getrusage fills.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(got, 0, "getrusage: {}", std::io::Error::last_os_error());
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// The machine a run measures, for the first line of a bench's output: its processor, its
/// cores, whether it has SHA instructions (x86-64), and which SHA-256 patchdeck hashes with
/// there (`patchdeck::sha256`). Every figure that hashes (change IDs, `originalSha256`, the
/// report's and the journal's hashes) moves with these, so runs compare only on like machines.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown processor".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    #[cfg(target_arch = "x86_64")]
    let instructions = match std::arch::is_x86_feature_detected!("sha") {
        true => "with SHA instructions, ",
        false => "without SHA instructions, ",
    };
    #[cfg(not(target_arch = "x86_64"))]
    let instructions = "";
    let backend = patchdeck::sha256::Backend::fastest().name();
    format!("machine: {model}, {cores} cores, {instructions}SHA-256 by {backend}")
}

/// Replaces `to` with a copy of `from` (`cp -a`: modes and times kept).
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    let _ = std::fs::remove_dir_all(to);
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a {} {}", from.display(), to.display());
}

/// A small xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A random word of source code.
    pub fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "let", "value", "config", "items", "count", "result", "handle", "buffer", "index", "parse",
    "render", "state", "token", "offset", "length", "cache", "update", "return", "match", "error",
];
