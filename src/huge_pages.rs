//! The memory the files and the input are read into, on huge pages.
//!
//! Reading a 2,000-file batch's 84 MB of files and its 17 MB diff into fresh buffers costs a
//! page fault every 4 KiB: 25,000 of the 39,000 faults of a `check -q`, and about a seventh of
//! its processor time (`README.md`, Performance). The buffers a [`scope`] allocates come instead
//! from one region the kernel is asked to back with transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`): a fault every 2 MiB. Everything else, and everything where the
//! region cannot be had (another system, a full region, a refused mapping, a kernel that counts
//! every mapping against a strict commit limit), comes from the system's allocator as before.
//! Where the kernel gives no huge pages (transparent huge pages off), the region is ordinary
//! memory.
//!
//! The region is reserved once (4 GiB of address space only) and handed out from its start in
//! order, never twice: a buffer freed leaves a hole. It is cut into chunks of one huge page
//! (2 MiB); a chunk whose buffers are all freed, once allocation has moved past it, is given
//! back to the kernel (`MADV_DONTNEED`). So memory is held as long as what was read is, and a
//! long review that reads the batch again and again uses up the region's address space, after
//! which its reads take ordinary memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Allocates from the huge-page region inside a [`scope`], from the system elsewhere.
pub struct Allocator;

#[global_allocator]
static GLOBAL: Allocator = Allocator;

thread_local! {
    /// Whether this thread is inside a [`scope`].
    static IN_SCOPE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with its large allocations (a buffer to read a file into) taken from the huge-page
/// region when it can be had.
pub fn scope<T>(f: impl FnOnce() -> T) -> T {
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            IN_SCOPE.with(|s| s.set(self.0));
        }
    }
    let _leave = Leave(IN_SCOPE.with(|s| s.replace(true)));
    f()
}

fn in_scope() -> bool {
    IN_SCOPE.try_with(Cell::get).unwrap_or(false)
}

/// Allocations smaller than this are the system's even inside a scope: a small file's buffer
/// gains nothing from huge pages.
const SMALLEST: usize = 4 << 10;

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod region {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    /// Address space reserved for the region (nothing is committed until it is written).
    pub const REGION: usize = 4 << 30;
    /// The unit given back to the kernel: one huge page.
    pub const CHUNK: usize = 2 << 20;
    const HUGE_PAGE: usize = 2 << 20;
    /// The largest buffer taken from the region (a batch's input is at most 64 MiB).
    pub const LARGEST: usize = 256 << 20;
    /// Every buffer starts on a cache line.
    const ALIGN: usize = 64;
    /// `base` before the region is asked for, and once it could not be mapped.
    const UNMAPPED: usize = 0;
    const FAILED: usize = 1;

    /// Address space handed out from its start, in chunks given back once empty.
    pub struct Region {
        /// The region's start, or [`UNMAPPED`] or [`FAILED`].
        base: AtomicUsize,
        /// Offset of the next allocation from the start.
        next: AtomicUsize,
        size: usize,
        chunk: usize,
        /// Bytes allocated and not yet freed, per chunk.
        live: &'static [AtomicUsize],
    }

    static LIVE: [AtomicUsize; REGION / CHUNK] = [const { AtomicUsize::new(0) }; REGION / CHUNK];

    /// The region the global allocator uses.
    pub static THE: Region = Region {
        base: AtomicUsize::new(UNMAPPED),
        next: AtomicUsize::new(0),
        size: REGION,
        chunk: CHUNK,
        live: &LIVE,
    };

    /// Whether `/proc/sys/vm/overcommit_memory` says 2. Read with plain system calls into a
    /// buffer on the stack: the allocator must not allocate.
    fn strict_overcommit() -> bool {
        let mut mode = [0u8; 1];
        // SAFETY: a NUL-terminated path; the descriptor is closed before returning, and read
        // writes at most the one byte of `mode`.
        unsafe {
            let fd = libc::open(
                c"/proc/sys/vm/overcommit_memory".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return false;
            }
            let got = libc::read(fd, mode.as_mut_ptr().cast(), 1);
            libc::close(fd);
            got == 1 && mode[0] == b'2'
        }
    }

    impl Region {
        /// A region of its own, for tests: `chunks` chunks of `chunk` bytes.
        #[cfg(test)]
        pub fn new(chunk: usize, chunks: usize) -> Region {
            let live = (0..chunks).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>();
            Region {
                base: AtomicUsize::new(UNMAPPED),
                next: AtomicUsize::new(0),
                size: chunk * chunks,
                chunk,
                live: Vec::leak(live),
            }
        }

        fn base(&self) -> Option<usize> {
            match self.base.load(SeqCst) {
                UNMAPPED => self.map(),
                FAILED => None,
                base => Some(base),
            }
        }

        /// Maps the region, aligned to a huge page, and asks for huge pages on it. Not where
        /// the kernel counts every mapping against a strict commit limit (overcommit mode 2):
        /// 4 GiB reserved there would be 4 GiB other programs could not have.
        #[cold]
        fn map(&self) -> Option<usize> {
            if strict_overcommit() {
                let _ = self.base.compare_exchange(UNMAPPED, FAILED, SeqCst, SeqCst);
                return None;
            }
            let len = self.size + HUGE_PAGE;
            // SAFETY: an anonymous private mapping of fresh address space, no memory committed
            // (NORESERVE); nothing else refers to it.
            let mapped = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            let got = if mapped == libc::MAP_FAILED {
                FAILED
            } else {
                let start = (mapped as usize).next_multiple_of(HUGE_PAGE);
                // SAFETY: advice on the mapping just made; refused advice changes nothing.
                unsafe {
                    libc::madvise(start as *mut libc::c_void, self.size, libc::MADV_HUGEPAGE)
                };
                start
            };
            match self.base.compare_exchange(UNMAPPED, got, SeqCst, SeqCst) {
                Ok(_) => (got != FAILED).then_some(got),
                Err(other) => {
                    if got != FAILED {
                        // Another thread mapped it first: this mapping is not used.
                        // SAFETY: the whole mapping made above, which nothing refers to.
                        unsafe { libc::munmap(mapped, len) };
                    }
                    (other != FAILED).then_some(other)
                }
            }
        }

        /// `size` bytes from the region, or `None` when it is full or cannot be had. A buffer
        /// that fits in a chunk never straddles two; a larger one starts a chunk.
        pub fn alloc(&self, size: usize, align: usize) -> Option<*mut u8> {
            if size == 0 || size > LARGEST || align > ALIGN {
                return None;
            }
            let base = self.base()?;
            let size = size.next_multiple_of(ALIGN);
            let mut at = self.next.load(SeqCst);
            loop {
                let start = if at / self.chunk == (at + size - 1) / self.chunk {
                    at
                } else {
                    at.next_multiple_of(self.chunk)
                };
                let end = start + size;
                if end > self.size {
                    return None;
                }
                match self.next.compare_exchange_weak(at, end, SeqCst, SeqCst) {
                    Ok(_) => {
                        self.each_chunk(start, end, |chunk, bytes| {
                            self.live[chunk].fetch_add(bytes, SeqCst);
                        });
                        // Chunks passed over for good, empty already, are given back.
                        for chunk in at / self.chunk..start / self.chunk {
                            self.release_if_empty(base, chunk);
                        }
                        return Some((base + start) as *mut u8);
                    }
                    Err(now) => at = now,
                }
            }
        }

        /// Calls `f` with each chunk `start..end` (offsets) covers and how many of its bytes.
        fn each_chunk(&self, start: usize, end: usize, mut f: impl FnMut(usize, usize)) {
            let mut at = start;
            while at < end {
                let chunk = at / self.chunk;
                let stop = end.min((chunk + 1) * self.chunk);
                f(chunk, stop - at);
                at = stop;
            }
        }

        /// Whether `ptr` was allocated from the region.
        pub fn owns(&self, ptr: *mut u8) -> bool {
            let base = self.base.load(SeqCst);
            base > FAILED && (ptr as usize).wrapping_sub(base) < self.size
        }

        /// Frees a buffer of `size` bytes of the region (`owns` holds of `ptr`).
        pub fn dealloc(&self, ptr: *mut u8, size: usize) {
            let base = self.base.load(SeqCst);
            let start = ptr as usize - base;
            self.each_chunk(
                start,
                start + size.next_multiple_of(ALIGN),
                |chunk, bytes| {
                    self.live[chunk].fetch_sub(bytes, SeqCst);
                    self.release_if_empty(base, chunk);
                },
            );
        }

        /// Gives a chunk's memory back to the kernel when none of its buffers is left and no
        /// buffer will be allocated in it again. (Whoever makes the second of those true sees
        /// the first: each is read after the other is written, in one order for all threads.
        /// Both may give it back; the second time does nothing.)
        fn release_if_empty(&self, base: usize, chunk: usize) {
            let past = self.next.load(SeqCst) > (chunk + 1) * self.chunk - 1;
            if past && self.live[chunk].load(SeqCst) == 0 {
                // SAFETY: the chunk holds no buffer and none will be allocated in it again.
                unsafe {
                    libc::madvise(
                        (base + chunk * self.chunk) as *mut libc::c_void,
                        self.chunk,
                        libc::MADV_DONTNEED,
                    )
                };
            }
        }
    }
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
mod region {
    /// No region on this system: every allocation is the system's.
    pub struct Region;

    pub static THE: Region = Region;

    impl Region {
        pub fn alloc(&self, _size: usize, _align: usize) -> Option<*mut u8> {
            None
        }

        pub fn owns(&self, _ptr: *mut u8) -> bool {
            false
        }

        pub fn dealloc(&self, _ptr: *mut u8, _size: usize) {}
    }
}

use region::THE;

// SAFETY: every allocation is either the system allocator's, passed through unchanged, or a
// range of the region no other live allocation overlaps (`region::alloc` hands each byte out
// once), aligned as asked (at most 64) and freed only through `dealloc`.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= SMALLEST && in_scope() {
            if let Some(ptr) = THE.alloc(layout.size(), layout.align()) {
                return ptr;
            }
        }
        // SAFETY: as the caller promised us.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // The region's memory is fresh (zero) only the first time: the system zeroes.
        // SAFETY: as the caller promised us.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if THE.owns(ptr) {
            THE.dealloc(ptr, layout.size());
        } else {
            // SAFETY: the system allocated it.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !THE.owns(ptr) {
            // SAFETY: the system allocated it.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // A region buffer that grows (a file that grew while it was read) moves out to the
        // system's memory.
        // SAFETY: `new_size` is nonzero and, rounded to the alignment, fits (the caller's
        // promise); the old buffer holds `layout.size()` bytes.
        unsafe {
            let new = System.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                THE.dealloc(ptr, layout.size());
            }
            new
        }
    }
}

#[cfg(all(test, target_os = "linux", target_pointer_width = "64"))]
mod tests {
    use super::region::{Region, LARGEST, THE};
    use super::*;

    #[test]
    fn buffers_allocated_in_a_scope_come_from_the_region_and_others_do_not() {
        let owned = |v: &Vec<u8>| THE.owns(v.as_ptr().cast_mut());
        let outside: Vec<u8> = Vec::with_capacity(64 << 10);
        assert!(!owned(&outside));
        let small = scope(|| Vec::<u8>::with_capacity(100));
        assert!(!owned(&small));
        let mut inside = scope(|| Vec::with_capacity(64 << 10));
        assert!(owned(&inside));
        inside.extend((0..64 << 10).map(|i| i as u8));
        // Growing moves it to the system's memory, bytes and all.
        inside.extend_from_slice(b"more");
        assert!(!owned(&inside));
        assert_eq!(inside[1000], (1000 % 256) as u8);
        assert_eq!(&inside[64 << 10..], b"more");
        // Nested scopes leave the outer one in force.
        scope(|| {
            scope(|| {});
            let again: Vec<u8> = Vec::with_capacity(8 << 10);
            assert!(owned(&again));
        });
        let after: Vec<u8> = Vec::with_capacity(8 << 10);
        assert!(!owned(&after));
        let big: Vec<u8> = scope(|| Vec::with_capacity(LARGEST + 1));
        assert!(!owned(&big));
    }

    /// Whether the page at `ptr` is in memory (`mincore`).
    fn resident(ptr: *mut u8) -> bool {
        let page = (ptr as usize) & !4095;
        let mut vec = 0u8;
        // SAFETY: one page of a mapping of ours; the kernel writes one byte to `vec`.
        let got = unsafe { libc::mincore(page as *mut libc::c_void, 4096, &mut vec) };
        assert_eq!(got, 0, "mincore: {}", std::io::Error::last_os_error());
        vec & 1 == 1
    }

    #[test]
    fn a_chunk_goes_back_to_the_kernel_once_empty_and_passed() {
        const MIB: usize = 1 << 20;
        let region = Region::new(2 * MIB, 4);
        let write = |ptr: *mut u8, len: usize| {
            // SAFETY: `len` bytes the region just handed out.
            unsafe { std::ptr::write_bytes(ptr, 7, len) }
        };
        let a = region.alloc(MIB, 1).unwrap();
        write(a, MIB);
        assert!(region.owns(a) && resident(a));
        // Does not fit beside `a`: it starts the next chunk, and the first is passed.
        let b = region.alloc(3 * MIB / 2, 1).unwrap();
        write(b, 3 * MIB / 2);
        assert_eq!(b as usize - a as usize, 2 * MIB);
        // `a` is still there: its chunk is kept.
        assert!(resident(a));
        region.dealloc(a, MIB);
        assert!(!resident(a), "the empty chunk behind is given back");
        // `b`'s chunk is empty but allocation has not moved past it: kept for what comes next.
        region.dealloc(b, 3 * MIB / 2);
        assert!(resident(b));
        let c = region.alloc(MIB, 1).unwrap();
        assert!(!resident(b), "passed over, empty, given back");
        assert_eq!(c as usize - a as usize, 4 * MIB);
        // Full: the rest is the system's.
        assert!(region.alloc(2 * MIB, 1).is_some());
        assert!(region.alloc(2 * MIB, 1).is_none());
        assert!(region.alloc(0, 1).is_none() && region.alloc(64, 128).is_none());
    }

    #[test]
    fn a_buffer_over_several_chunks_gives_each_back_as_it_empties() {
        const MIB: usize = 1 << 20;
        let region = Region::new(2 * MIB, 8);
        let small = region.alloc(MIB, 1).unwrap();
        // Five MiB: chunks 1, 2 and half of 3.
        let big = region.alloc(5 * MIB, 1).unwrap();
        assert_eq!(big as usize - small as usize, 2 * MIB);
        // SAFETY: the bytes the region just handed out.
        unsafe { std::ptr::write_bytes(big, 1, 5 * MIB) };
        let after = region.alloc(MIB / 2, 1).unwrap();
        assert_eq!(
            after as usize - big as usize,
            5 * MIB,
            "after it, in its last chunk"
        );
        region.dealloc(big, 5 * MIB);
        // Chunks 1 and 2 are empty and passed; chunk 3 still holds `after`.
        assert!(!resident(big) && !resident(big.wrapping_add(3 * MIB)));
        assert!(resident(big.wrapping_add(4 * MIB)));
        region.dealloc(small, MIB);
        region.dealloc(after, MIB / 2);
    }
}
