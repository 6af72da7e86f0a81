//! Picking particles by a cheap test (the list upkeep's movers, a patch's neighbourhood): in
//! one loop on the calling thread up to `SERIAL_PICK_LIMIT` particles, in chunks on rayon's
//! workers beyond.
//!
//! Rayon's `filter(..).collect()` cannot know where each kept index lands, so it splits the
//! range into many pieces, each filling its own vector, and links and joins them: on a test
//! like a mover's (two positions read, a length compared), 9,220 particles took 37 µs that
//! way against 18.5 µs in one loop, and 64,000 took 224 against 128 µs. (A throwaway
//! benchmark on this 2-core machine, each call between others, as the upkeep calls it:
//! medians of 3,000.) Chunks of `SERIAL_PICK_LIMIT` on the workers still lost to one loop at
//! 64,000 (139 µs), won at 200,000 (262 against 398 µs) and at 500,000 (612 against 1,018).

use rayon::prelude::*;

/// Particle counts up to this are picked in one loop; larger ones in chunks of this size.
const SERIAL_PICK_LIMIT: usize = 1 << 16;

/// The indices below `n` that `keep` accepts, in increasing order.
pub fn indices_where(n: usize, keep: impl Fn(usize) -> bool + Sync) -> Vec<u32> {
    let pick = |from: usize, to: usize| -> Vec<u32> {
        (from..to).filter(|&i| keep(i)).map(|i| i as u32).collect()
    };
    if n <= SERIAL_PICK_LIMIT {
        return pick(0, n);
    }
    let chunks: Vec<Vec<u32>> = (0..n.div_ceil(SERIAL_PICK_LIMIT))
        .into_par_iter()
        .map(|c| pick(c * SERIAL_PICK_LIMIT, ((c + 1) * SERIAL_PICK_LIMIT).min(n)))
        .collect();
    chunks.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_in_order_whether_in_one_loop_or_in_chunks() {
        for n in [
            0,
            1,
            1000,
            SERIAL_PICK_LIMIT,
            SERIAL_PICK_LIMIT + 1,
            3 * SERIAL_PICK_LIMIT + 7,
        ] {
            let keep = |i: usize| (i * 2_654_435_761) % 7 < 2;
            let expected: Vec<u32> = (0..n as u32).filter(|&i| keep(i as usize)).collect();
            assert_eq!(indices_where(n, keep), expected, "{n} particles");
        }
    }
}
