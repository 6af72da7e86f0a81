//! The CLI's global allocator: the system allocator, counting the bytes it has handed out,
//! so `gloop bench` can report the solver's live heap beside the process's resident set.
//!
//! The two differ a lot on a small scene: the resident set also holds the code pages the
//! solver touched, the worker threads' stacks, and freed memory the C allocator keeps for
//! reuse, none of which grows with the particle count. The live heap is what the solver's data
//! structures need. Two relaxed atomic additions per allocation cost nothing measurable: the
//! solver allocates whole arrays, not per particle.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct HeapMeter {
    live: AtomicUsize,
    peak: AtomicUsize,
}

#[global_allocator]
static HEAP: HeapMeter = HeapMeter {
    live: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
};

impl HeapMeter {
    fn grew(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(live, Ordering::Relaxed);
    }
    fn shrank(&self, bytes: usize) {
        self.live.fetch_sub(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are updated beside it.
unsafe impl GlobalAlloc for HeapMeter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.shrank(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.shrank(layout.size());
            self.grew(new_size);
        }
        p
    }
}

/// Bytes allocated and not yet freed.
pub fn live_bytes() -> usize {
    HEAP.live.load(Ordering::Relaxed)
}

/// The largest `live_bytes` since the process started or since the last [`reset_peak`].
pub fn peak_bytes() -> usize {
    HEAP.peak.load(Ordering::Relaxed)
}

/// Starts a new peak measurement from the current live heap.
pub fn reset_peak() {
    HEAP.peak.store(live_bytes(), Ordering::Relaxed);
}
