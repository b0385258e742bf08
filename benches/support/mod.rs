//! What the benchmarks share: a deterministic generator of source-like text, so every run of
//! every bench measures the same bytes.

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
