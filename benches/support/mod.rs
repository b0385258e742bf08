//! What the benchmarks share: a deterministic generator of source-like text, so every run of
//! every bench measures the same bytes, and the processor time a process has used.

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
