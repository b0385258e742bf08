//! SHA-256, from whichever implementation is faster on the processor at hand.
//!
//! SHA-256 is patchdeck's contract in many places (a TUL-002 `originalSha256`, the report's
//! hashes, the journal, every derived ID), and on a large batch it is much of the work.
//! - On x86-64 with SHA instructions, RustCrypto's `sha2` uses them (what every figure before
//!   this module measured).
//! - On x86-64 without them, `sha2` falls back to portable code, and `ring`'s assembly (from
//!   OpenSSL's, with AVX or SSSE3) is faster: on a Xeon without SHA instructions, 100 MB took
//!   0.41 to 0.89 s with `ring` against 1.02 to 1.44 s with `sha2` (six alternating runs).
//! - On AArch64, `sha2` (built without its `asm` feature) runs portable code even where the
//!   processor has SHA instructions, and `ring` uses them: `ring`.
//! - Elsewhere (32-bit x86 included) `ring` has no faster code: `sha2`.
//!
//! `ring` is built on Linux only (`cfg(sha256_ring)`, set by `src/build.rs` for the targets
//! Cargo.toml builds it for): its build compiles C and assembly, which for macOS would need a C
//! compiler for each Apple target even to check the crate. On macOS `sha2` hashes, with the SHA
//! instructions of an x86-64 that has them and portable code otherwise.
//!
//! Both compute the same function; a test holds them to the same digests.

/// Which implementation hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// RustCrypto's `sha2`.
    Sha2,
    /// `ring`'s assembly.
    #[cfg(sha256_ring)]
    Ring,
}

impl Backend {
    /// Every implementation built for this target.
    #[cfg(sha256_ring)]
    pub const BUILT: &[Backend] = &[Backend::Sha2, Backend::Ring];
    /// Every implementation built for this target.
    #[cfg(not(sha256_ring))]
    pub const BUILT: &[Backend] = &[Backend::Sha2];

    /// The faster implementation on this processor (see the module's documentation).
    pub fn fastest() -> Backend {
        #[cfg(all(sha256_ring, target_arch = "x86_64"))]
        {
            match std::arch::is_x86_feature_detected!("sha") {
                true => Backend::Sha2,
                false => Backend::Ring,
            }
        }
        #[cfg(all(sha256_ring, target_arch = "aarch64"))]
        {
            Backend::Ring
        }
        #[cfg(not(sha256_ring))]
        {
            Backend::Sha2
        }
    }

    /// The implementation's name, as the benches print it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sha2 => "sha2",
            #[cfg(sha256_ring)]
            Backend::Ring => "ring's assembly",
        }
    }
}

#[derive(Clone)]
pub struct Sha256(State);

#[derive(Clone)]
enum State {
    Sha2(sha2::Sha256),
    #[cfg(sha256_ring)]
    Ring(ring::digest::Context),
}

impl Sha256 {
    /// A new computation, with the faster implementation.
    pub fn new() -> Sha256 {
        Sha256::with(Backend::fastest())
    }

    /// A new computation with the given implementation.
    pub fn with(backend: Backend) -> Sha256 {
        Sha256(match backend {
            Backend::Sha2 => State::Sha2(<sha2::Sha256 as sha2::Digest>::new()),
            #[cfg(sha256_ring)]
            Backend::Ring => State::Ring(ring::digest::Context::new(&ring::digest::SHA256)),
        })
    }

    pub fn update(&mut self, bytes: impl AsRef<[u8]>) {
        match &mut self.0 {
            State::Sha2(state) => sha2::Digest::update(state, bytes.as_ref()),
            #[cfg(sha256_ring)]
            State::Ring(state) => state.update(bytes.as_ref()),
        }
    }

    pub fn finalize(self) -> [u8; 32] {
        match self.0 {
            State::Sha2(state) => sha2::Digest::finalize(state).into(),
            #[cfg(sha256_ring)]
            State::Ring(state) => state
                .finish()
                .as_ref()
                .try_into()
                .expect("a SHA-256 digest is 32 bytes"),
        }
    }

    /// The SHA-256 of `bytes`.
    pub fn digest(bytes: impl AsRef<[u8]>) -> [u8; 32] {
        let mut state = Sha256::new();
        state.update(bytes);
        state.finalize()
    }
}

impl Default for Sha256 {
    fn default() -> Sha256 {
        Sha256::new()
    }
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of empty content: the `originalSha256` of a file that does not exist yet.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    prefixed_hex("", bytes)
}

/// `prefix` and then `bytes` as lowercase hex, in one string (an ID is one allocation).
pub fn prefixed_hex(prefix: &str, bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(prefix.len() + bytes.len() * 2);
    out.push_str(prefix);
    for byte in bytes {
        out.push(DIGITS[(byte >> 4) as usize] as char);
        out.push(DIGITS[(byte & 15) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The digest of `bytes` fed in pieces of `piece` bytes, with `backend`.
    fn digest(backend: Backend, bytes: &[u8], piece: usize) -> [u8; 32] {
        let mut state = Sha256::with(backend);
        for part in bytes.chunks(piece.max(1)) {
            state.update(part);
        }
        if bytes.is_empty() {
            state.update([]);
        }
        state.finalize()
    }

    #[test]
    fn both_backends_give_the_known_digests() {
        for &backend in Backend::BUILT {
            assert_eq!(
                hex(&digest(backend, b"", 1)),
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            );
            assert_eq!(
                hex(&digest(backend, b"abc", 1)),
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            );
            let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
            assert_eq!(
                hex(&digest(backend, long, 7)),
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            );
        }
    }

    /// Every length below 1,200 bytes (several blocks), fed whole and in uneven pieces, and a
    /// state forked midway: every backend built agrees on each with `sha2` fed whole.
    #[test]
    fn the_backends_agree_on_every_length_and_split() {
        const PIECES: [usize; 6] = [1, 3, 63, 64, 65, 500];
        let bytes: Vec<u8> = (0..1_200u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for len in 0..bytes.len() {
            let bytes = &bytes[..len];
            let sha2 = digest(Backend::Sha2, bytes, len);
            for (&backend, piece) in Backend::BUILT.iter().flat_map(|b| PIECES.map(|p| (b, p))) {
                assert_eq!(
                    digest(backend, bytes, piece),
                    sha2,
                    "{backend:?}, {len} in {piece}s"
                );
            }
            let half = len / 2;
            for &backend in Backend::BUILT {
                let mut seeded = Sha256::with(backend);
                seeded.update(&bytes[..half]);
                let mut fork = seeded.clone();
                fork.update(&bytes[half..]);
                seeded.update(&bytes[half..]);
                assert_eq!((seeded.finalize(), fork.finalize()), (sha2, sha2), "{len}");
            }
        }
    }
}
