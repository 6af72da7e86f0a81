//! Rows of varying length (compressed sparse rows), gathered in one pass over the rows
//! without a temporary vector per row.
//!
//! Rows are stored in chunks of `ROWS_PER_CHUNK`, each chunk one flat array: a chunk is
//! filled by one task calling `row(i)` once per row, so nothing is counted first and
//! evaluated twice (the viscosity couplings' weights, a root and a division per pair, were
//! a third of the implicit solve's time when every row was walked twice), and no chunk is
//! copied into a single array afterwards, which would hold every item twice.

use rayon::prelude::*;

/// Rows per chunk: enough that the per-chunk bookkeeping is negligible, few enough that the
/// chunks spread evenly over the threads.
const ROWS_PER_CHUNK: usize = 256;

/// Rows `0..n`; row `i` lives in chunk `i / ROWS_PER_CHUNK`.
pub struct Rows<T> {
    chunks: Vec<Chunk<T>>,
}

struct Chunk<T> {
    /// Row k of the chunk is `items[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Rows<T> {
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[T] {
        let chunk = &self.chunks[i / ROWS_PER_CHUNK];
        let k = i % ROWS_PER_CHUNK;
        &chunk.items[chunk.start[k] as usize..chunk.start[k + 1] as usize]
    }
}

/// Gathers `row(i)` for `i` in `0..n`, calling `row` once per row. Chunks are filled in
/// parallel; the result does not depend on the thread count.
pub fn gather_rows<T, I, F>(n: usize, row: F) -> Rows<T>
where
    T: Send,
    I: Iterator<Item = T>,
    F: Fn(usize) -> I + Sync,
{
    let chunks = (0..n.div_ceil(ROWS_PER_CHUNK))
        .into_par_iter()
        .map(|c| {
            let rows = c * ROWS_PER_CHUNK..((c + 1) * ROWS_PER_CHUNK).min(n);
            let mut start = Vec::with_capacity(rows.len() + 1);
            start.push(0u32);
            let mut items = Vec::new();
            for i in rows {
                items.extend(row(i));
                start.push(items.len() as u32);
            }
            // Growth by doubling leaves up to half unused, and every chunk is kept.
            items.shrink_to_fit();
            Chunk { start, items }
        })
        .collect();
    Rows { chunks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_hold_what_each_row_yields_in_order() {
        // Rows spread over three chunks, the last one partly filled, and some rows empty.
        let n = 2 * ROWS_PER_CHUNK + 7;
        let expected =
            |i: usize| -> Vec<u32> { (0..(i % 5) as u32).map(|k| k * 1000 + i as u32).collect() };
        let rows = gather_rows(n, |i| expected(i).into_iter());
        for i in 0..n {
            assert_eq!(rows.of(i), expected(i).as_slice(), "row {i}");
        }
        assert_eq!(rows.chunks.len(), 3);
        assert!(gather_rows(0, |_| std::iter::empty::<u32>())
            .chunks
            .is_empty());
    }
}
