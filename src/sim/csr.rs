//! Rows of varying length (compressed sparse rows), gathered in one pass over the rows
//! without a temporary vector per row.
//!
//! Rows are stored in chunks of `ROWS_PER_CHUNK`, each chunk one flat array: a chunk is
//! filled by one task calling `row(i)` once per row, so nothing is counted first and
//! evaluated twice (the viscosity couplings' weights, a root and a division per pair, were
//! a third of the implicit solve's time when every row was walked twice), and no chunk is
//! copied into a single array afterwards, which would hold every item twice. For the same
//! reason an edit (`patch`) rebuilds only the chunks it touches: rebuilding all the rows
//! held the old and the new rows at once, the solver's memory peak, and copied every row
//! for the sake of a few.

use rayon::prelude::*;

/// Rows per chunk: enough that the per-chunk bookkeeping is negligible, few enough that the
/// chunks spread evenly over the threads.
const ROWS_PER_CHUNK: usize = 256;

/// Rows `0..n`; row `i` lives in chunk `i / ROWS_PER_CHUNK`.
#[derive(Clone, Debug)]
pub struct Rows<T> {
    chunks: Vec<Chunk<T>>,
    len: usize,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

#[derive(Clone, Debug)]
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

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of items over all rows.
    pub fn item_count(&self) -> usize {
        self.chunks.iter().map(|c| c.items.len()).sum()
    }
}

/// The edits (ascending by row) of the rows in chunk `c`.
fn in_chunk<E>(edits: &[(u32, E)], c: usize) -> &[(u32, E)] {
    let first = edits.partition_point(|(i, _)| (*i as usize) < c * ROWS_PER_CHUNK);
    let end = edits.partition_point(|(i, _)| (*i as usize) < (c + 1) * ROWS_PER_CHUNK);
    &edits[first..end]
}

impl<T: Copy + Send + Sync> Rows<T> {
    /// Reorders every row so the items `pick` keeps come first (in their order, the rest
    /// after them in theirs), and gathers the kept values into rows of their own: row i of
    /// the result lines up with the first items of row i here. `pick(i, row, scratch,
    /// verdicts)` is called once per row and pushes one verdict per item of the row
    /// (`Some(value)` to keep it) onto `verdicts`, which comes empty, so that it may judge a
    /// row's items together; `scratch` is its own, kept from row to row.
    ///
    /// (Tried, not adopted: each item written to both sides, only its own side's end moving
    /// on, instead of a branch on its verdict, which is kept or not at random: the same
    /// rows, a 30k honey block's CPU time and the honey drop's within noise, 4.85/4.73 →
    /// 4.81/4.81 s and 2.19/2.21 → 2.23/2.18 s.)
    pub fn pick_first<U: Send, S: Default>(
        &mut self,
        pick: impl Fn(usize, &[T], &mut S, &mut Vec<Option<U>>) + Sync,
    ) -> Rows<U> {
        let chunks = self
            .chunks
            .par_iter_mut()
            .enumerate()
            .map(|(c, chunk)| {
                let mut start = Vec::with_capacity(chunk.start.len());
                start.push(0u32);
                let mut picked = Vec::new();
                let mut rest = Vec::new();
                let (mut scratch, mut verdicts) = (S::default(), Vec::new());
                for k in 0..chunk.start.len() - 1 {
                    let row =
                        &mut chunk.items[chunk.start[k] as usize..chunk.start[k + 1] as usize];
                    verdicts.clear();
                    pick(c * ROWS_PER_CHUNK + k, row, &mut scratch, &mut verdicts);
                    assert_eq!(verdicts.len(), row.len(), "one verdict per item");
                    let mut front = 0;
                    rest.clear();
                    for (at, verdict) in verdicts.drain(..).enumerate() {
                        let item = row[at];
                        match verdict {
                            Some(value) => {
                                row[front] = item;
                                front += 1;
                                picked.push(value);
                            }
                            None => rest.push(item),
                        }
                    }
                    row[front..].copy_from_slice(&rest);
                    start.push(picked.len() as u32);
                }
                picked.shrink_to_fit();
                Chunk {
                    start,
                    items: picked,
                }
            })
            .collect();
        Rows {
            chunks,
            len: self.len,
        }
    }

    /// Replaces some rows (`replaced`, ascending by row, each with its new items) and appends
    /// items to others (`added`, same form). Only the chunks holding one of those rows are
    /// rebuilt, each on its own, so the edit holds at most a chunk per thread twice.
    /// (Copying the unedited rows between two edits as one run rather than row by row gave
    /// the same lists but no gain: a 30k honey block's 5 frames took 5.41/5.30/5.34 s of CPU
    /// time before and 5.32/5.36/5.33 after. Not kept.)
    pub fn patch(&mut self, replaced: &[(u32, Vec<T>)], added: &[(u32, Vec<T>)]) {
        self.chunks
            .par_iter_mut()
            .enumerate()
            .for_each(|(c, chunk)| {
                let (replaced, added) = (in_chunk(replaced, c), in_chunk(added, c));
                if replaced.is_empty() && added.is_empty() {
                    return;
                }
                let base = c * ROWS_PER_CHUNK;
                let (mut r, mut a) = (replaced.iter().peekable(), added.iter().peekable());
                let mut start = Vec::with_capacity(chunk.start.len());
                start.push(0u32);
                let extra: usize = replaced.iter().chain(added).map(|(_, l)| l.len()).sum();
                let mut items = Vec::with_capacity(chunk.items.len() + extra);
                for k in 0..chunk.start.len() - 1 {
                    let i = (base + k) as u32;
                    match r.next_if(|(row, _)| *row == i) {
                        Some((_, row)) => items.extend_from_slice(row),
                        None => items.extend_from_slice(
                            &chunk.items[chunk.start[k] as usize..chunk.start[k + 1] as usize],
                        ),
                    }
                    if let Some((_, more)) = a.next_if(|(row, _)| *row == i) {
                        items.extend_from_slice(more);
                    }
                    start.push(items.len() as u32);
                }
                *chunk = Chunk { start, items };
            });
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
    fill_rows(n, || (), |_, i, items| items.extend(row(i)))
}

/// Rows `0..n`, row `i` being what `fill(state, i, items)` appends to `items`. Each chunk is
/// filled in row order by one task with its own `state` from `init()` (a cache the rows of
/// a chunk share); the result does not depend on the thread count.
pub fn fill_rows<T, S>(
    n: usize,
    init: impl Fn() -> S + Sync,
    fill: impl Fn(&mut S, usize, &mut Vec<T>) + Sync,
) -> Rows<T>
where
    T: Send,
{
    let chunks = (0..n.div_ceil(ROWS_PER_CHUNK))
        .into_par_iter()
        .map(|c| {
            let rows = c * ROWS_PER_CHUNK..((c + 1) * ROWS_PER_CHUNK).min(n);
            let mut start = Vec::with_capacity(rows.len() + 1);
            start.push(0u32);
            let mut items = Vec::new();
            let mut state = init();
            for i in rows {
                fill(&mut state, i, &mut items);
                start.push(items.len() as u32);
            }
            // Growth by doubling leaves up to half unused, and every chunk is kept.
            items.shrink_to_fit();
            Chunk { start, items }
        })
        .collect();
    Rows { chunks, len: n }
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

    #[test]
    fn a_patch_replaces_and_extends_rows_in_any_chunk_and_keeps_the_rest() {
        let n = 3 * ROWS_PER_CHUNK + 1;
        let original =
            |i: usize| -> Vec<u32> { (0..(i % 4) as u32).map(|k| k + 10 * i as u32).collect() };
        let mut rows = gather_rows(n, |i| original(i).into_iter());
        // The first row, a row replaced and extended, the last row of a chunk, the first of
        // the next, and the lone row of the last chunk.
        let last_of_first = ROWS_PER_CHUNK as u32 - 1;
        let replaced = vec![(0, vec![7, 7]), (5, vec![]), (last_of_first, vec![1, 2, 3])];
        let added = vec![
            (5, vec![9]),
            (ROWS_PER_CHUNK as u32, vec![4]),
            (n as u32 - 1, vec![8, 8]),
        ];
        let untouched_chunk = rows.chunks[2].items.as_ptr();
        rows.patch(&replaced, &added);
        for i in 0..n {
            let mut expected = match replaced.iter().find(|(r, _)| *r as usize == i) {
                Some((_, row)) => row.clone(),
                None => original(i),
            };
            if let Some((_, more)) = added.iter().find(|(r, _)| *r as usize == i) {
                expected.extend(more);
            }
            assert_eq!(rows.of(i), expected.as_slice(), "row {i}");
        }
        assert_eq!(rows.len(), n);
        // The chunk without edits was left where it was, not copied.
        assert_eq!(rows.chunks[2].items.as_ptr(), untouched_chunk);
    }

    #[test]
    fn picked_items_come_first_and_their_values_line_up() {
        let n = ROWS_PER_CHUNK + 3;
        let original =
            |i: usize| -> Vec<u32> { (0..(i % 7) as u32).map(|k| k * 3 + i as u32).collect() };
        let mut rows = gather_rows(n, |i| original(i).into_iter());
        // Even items are picked, with a value that names the row and the item.
        let picked = rows.pick_first(|i, row, _: &mut (), verdicts| {
            verdicts.extend(row.iter().map(|&j| (j % 2 == 0).then_some((i, j))))
        });
        for i in 0..n {
            let (even, odd): (Vec<u32>, Vec<u32>) =
                original(i).into_iter().partition(|j| j % 2 == 0);
            let reordered: Vec<u32> = even.iter().chain(&odd).copied().collect();
            assert_eq!(rows.of(i), reordered.as_slice(), "row {i}");
            let values: Vec<(usize, u32)> = even.iter().map(|&j| (i, j)).collect();
            assert_eq!(picked.of(i), values.as_slice(), "picked row {i}");
        }
        assert_eq!(picked.len(), n);
    }
}
