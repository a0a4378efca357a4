//! Large arrays the CPU simulators visit in random order, backed by huge pages where the
//! kernel allows it.
//!
//! At 10^6 facilities an event touches a few random lines of ~100 MB of state. With 4 KB
//! pages each is a TLB miss too (a page walk, nested under virtualization), and software
//! prefetches stall on it. Linux backs a range with 2 MB pages when asked
//! (`MADV_HUGEPAGE`) even where transparent huge pages are set to "madvise"; measured on
//! the dev VM, this alone took the sequential torus at 1024² from 2.9 to 4.1 M events/s
//! (bench/NOTES.md, "CPU baselines"). Elsewhere, or when refused, the advice is a no-op.

/// A vector of `n` copies of `value` whose memory is advised to be huge pages before it
/// is first written (the advice must precede the page faults to take effect at once).
pub fn huge_vec<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge_pages(v.as_ptr().cast::<u8>(), n * std::mem::size_of::<T>());
    v.resize(n, value);
    v
}

/// Asks the kernel to back the 2 MB-aligned part of `[start, start + len)` with huge
/// pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *const u8, len: usize) {
    const HUGE: usize = 2 << 20;
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
    #[test]
    fn huge_vec_holds_n_copies() {
        let v = super::huge_vec(3 << 20, 7u32);
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&x| x == 7));
    }
}
