//! Finding every newline of a text: the scan behind a file's line index and a diff's lines.
//!
//! Source code has a newline every 40 bytes or so. `memchr`'s iterator is built for needles
//! that are rare: it returns to its caller at each one and starts its vector loop again, so on
//! such text most of its time goes to starting. Here, 64 bytes are compared at a time, 16 in
//! each instruction (SSE2, which every x86-64 processor has), and every newline of those 64
//! bytes is taken from one bit mask. Indexing the 84 MB of the `peers` bench's 2,000 files took
//! 13.7 ms this way against 26 ms with `memchr_iter` (`docs/performance.md`). Elsewhere
//! the scan is `memchr`'s.

/// Calls `found` with the offset of every `\n` in `bytes`, in order.
#[inline]
pub fn each(bytes: &[u8], found: impl FnMut(usize)) {
    // SAFETY: the build targets SSE2 (every x86-64 processor has it), which is all `sse2` needs.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    unsafe {
        sse2(bytes, found)
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    portable(bytes, found);
}

/// The scan on other processors (and the tests' second opinion on x86-64).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn portable(bytes: &[u8], found: impl FnMut(usize)) {
    memchr::memchr_iter(b'\n', bytes).for_each(found);
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn sse2(bytes: &[u8], mut found: impl FnMut(usize)) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let newline = _mm_set1_epi8(b'\n' as i8);
    // The bits of one 16-byte quarter of a block that are newlines, lowest byte first.
    let quarter = |block: &[u8], at: usize| -> u64 {
        let sixteen: &[u8; 16] = block[at..at + 16].try_into().expect("16 bytes");
        // SAFETY: an unaligned load of exactly the 16 bytes `sixteen` borrows.
        let loaded = unsafe { _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>()) };
        _mm_movemask_epi8(_mm_cmpeq_epi8(loaded, newline)) as u16 as u64
    };
    let mut blocks = bytes.chunks_exact(64);
    let mut base = 0;
    for block in &mut blocks {
        let mut mask = quarter(block, 0)
            | quarter(block, 16) << 16
            | quarter(block, 32) << 32
            | quarter(block, 48) << 48;
        while mask != 0 {
            found(base + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
        base += 64;
    }
    memchr::memchr_iter(b'\n', blocks.remainder()).for_each(|at| found(base + at));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`each`] finds, checked against what [`portable`] finds.
    fn scanned(bytes: &[u8]) -> Vec<usize> {
        let (mut offsets, mut elsewhere) = (Vec::new(), Vec::new());
        each(bytes, |at| offsets.push(at));
        portable(bytes, |at| elsewhere.push(at));
        assert_eq!(offsets, elsewhere, "the two scans differ");
        offsets
    }

    fn expected(bytes: &[u8]) -> Vec<usize> {
        (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect()
    }

    /// Lengths around the edges of a 16-byte quarter and a 64-byte block.
    const LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 500];

    #[test]
    fn every_newline_is_found_in_order_at_every_length_and_alignment() {
        // A fixed pseudo-random stream: newlines from none to nearly every byte, lengths across
        // several 64-byte blocks and a remainder, and slices starting at every alignment.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for density in [0, 1, 8, 40, 128, 250, 256] {
            let text: Vec<u8> = (0..1_000)
                .map(|_| match (next() % 256) < density {
                    true => b'\n',
                    // Bytes beside the newline's value, and with the high bit set.
                    false => [b'\t', b'\x0b', b'a', b'\r', 0x8a, 0xff][next() as usize % 6],
                })
                .collect();
            for start in 0..70 {
                for len in LENGTHS.into_iter().chain([930 - start]) {
                    let slice = &text[start..start + len];
                    assert_eq!(
                        scanned(slice),
                        expected(slice),
                        "density {density}/256, start {start}, length {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_of_newlines_or_of_none() {
        assert_eq!(scanned(b""), Vec::<usize>::new());
        assert_eq!(scanned(&[b'\n'; 200]), (0..200).collect::<Vec<_>>());
        assert_eq!(scanned(&[b'x'; 200]), Vec::<usize>::new());
    }
}
