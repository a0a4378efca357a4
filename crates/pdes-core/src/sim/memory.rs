//! Large arrays the CPU simulators visit in random order, backed by huge pages where the
//! kernel allows it.
//!
//! At 10^6 facilities an event touches a few random lines of ~100 MB of state. With 4 KB
//! pages each is a TLB miss too (a page walk, nested under virtualization), and software
//! prefetches stall on it. Linux backs a range with 2 MB pages when asked
//! (`MADV_HUGEPAGE`) even where transparent huge pages are set to "madvise"; measured on
//! the dev VM, this alone took the sequential torus at 1024² from 2.9 to 4.1 M events/s
//! (bench/NOTES.md, "CPU baselines"). Elsewhere, or when refused, the advice is a no-op.

/// Huge page size on x86-64 Linux: allocations this large are aligned to it.
const HUGE: usize = 2 << 20;

/// The system allocator, with every allocation of [`HUGE`] bytes or more aligned to a huge
/// page. `huge_vec` can only advise the 2 MB-aligned interior of its array, and the
/// system allocator starts a large block 16 bytes past a 4 KB page: at 256² the bucket
/// array (4 MB) got one huge page of two and the token array (1 MB) none, so most random
/// accesses of a 256² run also missed the TLB. Installed by the `pdes-lab` binary.
pub struct HugeAligned;

/// The layout a request is served with: its own, or aligned to a huge page when large.
fn served(layout: std::alloc::Layout) -> std::alloc::Layout {
    if layout.size() >= HUGE && layout.align() < HUGE {
        // a power of two, and the size is unchanged: never fails
        std::alloc::Layout::from_size_align(layout.size(), HUGE).unwrap_or(layout)
    } else {
        layout
    }
}

// SAFETY: every block is allocated and freed by the system allocator with the same
// layout (`served` is a function of the caller's layout, which the caller passes again to
// free), and is at least as aligned as asked.
unsafe impl std::alloc::GlobalAlloc for HugeAligned {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: `served` keeps the size (non-zero, as the caller's) and a valid alignment.
        unsafe { std::alloc::System.alloc(served(layout)) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe { std::alloc::System.alloc_zeroed(served(layout)) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout, so the system got `served`.
        unsafe { std::alloc::System.dealloc(ptr, served(layout)) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY (layout): the caller guarantees a valid size for this alignment.
        let new =
            unsafe { std::alloc::Layout::from_size_align_unchecked(new_size, layout.align()) };
        let (old_served, new_served) = (served(layout), served(new));
        if old_served.align() == new_served.align() {
            // SAFETY: the block was allocated with `old_served`; the alignment is kept.
            return unsafe { std::alloc::System.realloc(ptr, old_served, new_size) };
        }
        // crossing the threshold: a new block with the other alignment, then a copy
        // SAFETY: `new_served` is valid (non-zero size); the copy stays inside both blocks.
        unsafe {
            let fresh = std::alloc::System.alloc(new_served);
            if !fresh.is_null() {
                std::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new_size));
                std::alloc::System.dealloc(ptr, old_served);
            }
            fresh
        }
    }
}

/// A vector of `n` copies of `value` whose memory is advised to be huge pages before it
/// is first written (the advice must precede the page faults to take effect at once).
///
/// From half a huge page up, the capacity is rounded up to whole huge pages, so that
/// (with [`HugeAligned`] installed, which starts such a block on a huge page) the array's
/// last part is a huge page too rather than a tail of small ones.
pub fn huge_vec<T: Clone>(n: usize, value: T) -> Vec<T> {
    let size = std::mem::size_of::<T>().max(1);
    let bytes = n * size;
    let capacity = if bytes >= HUGE / 2 {
        bytes.next_multiple_of(HUGE).div_ceil(size)
    } else {
        n
    };
    let mut v: Vec<T> = Vec::with_capacity(capacity);
    advise_huge_pages(v.as_ptr().cast::<u8>(), capacity * size);
    v.resize(n, value);
    v
}

/// Asks the kernel to back the 2 MB-aligned part of `[start, start + len)` with huge
/// pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *const u8, len: usize) {
    let begin = (start as usize).next_multiple_of(HUGE);
    let end = (start as usize + len) / HUGE * HUGE;
    if end > begin {
        // SAFETY: the range lies inside one live allocation of ours; MADV_HUGEPAGE changes
        // only how its pages are backed, never their contents, and failure is harmless.
        unsafe {
            libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *const u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    /// Large blocks come 2 MB-aligned, small ones as the system gives them; a block that
    /// grows across the threshold keeps its contents and gains the alignment.
    #[test]
    fn large_blocks_are_huge_page_aligned() {
        let a = super::HugeAligned;
        unsafe {
            let small = Layout::from_size_align(1000, 8).unwrap();
            let p = a.alloc(small);
            assert!(!p.is_null());
            p.write_bytes(7, 1000);
            let big = super::HUGE + 16;
            let q = a.realloc(p, small, big);
            assert_eq!(q as usize % super::HUGE, 0);
            assert!((0..1000).all(|i| *q.add(i) == 7));
            let big_layout = Layout::from_size_align(big, 8).unwrap();
            let r = a.realloc(q, big_layout, 3 * super::HUGE);
            assert_eq!(r as usize % super::HUGE, 0);
            assert!((0..1000).all(|i| *r.add(i) == 7));
            let s = a.realloc(r, Layout::from_size_align(3 * super::HUGE, 8).unwrap(), 500);
            assert!((0..500).all(|i| *s.add(i) == 7));
            a.dealloc(s, Layout::from_size_align(500, 8).unwrap());
            let z = Layout::from_size_align(4 * super::HUGE, 64).unwrap();
            let t = a.alloc_zeroed(z);
            assert_eq!(t as usize % super::HUGE, 0);
            assert_eq!(*t.add(4 * super::HUGE - 1), 0);
            a.dealloc(t, z);
        }
    }

    #[test]
    fn huge_vec_holds_n_copies() {
        let v = super::huge_vec(3 << 20, 7u32);
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&x| x == 7));
    }
}
