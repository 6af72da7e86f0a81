//! Rows of varying length stored as one flat array (compressed sparse rows), gathered without
//! a temporary vector per row.
//!
//! Collecting a `Vec` per row and then flattening holds every pair twice, plus the rows'
//! growth slack, and makes an allocation per particle per substep; counting each row first
//! and writing it in place holds the pairs once.

use rayon::prelude::*;

/// Flat rows: row `i` is `items[start[i]..start[i + 1]]`.
pub struct Rows<T> {
    pub start: Vec<usize>,
    pub items: Vec<T>,
}

impl<T> Rows<T> {
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[T] {
        &self.items[self.start[i]..self.start[i + 1]]
    }
}

/// Gathers `row(i)` for `i` in `0..n`. `row` is called twice per row (to count, then to
/// write), so it must yield the same items both times; rows are written in parallel and the
/// result does not depend on the thread count.
pub fn gather_rows<T, I, F>(n: usize, row: F) -> Rows<T>
where
    T: Copy + Default + Send + Sync,
    I: Iterator<Item = T>,
    F: Fn(usize) -> I + Sync,
{
    let counts: Vec<usize> = (0..n).into_par_iter().map(|i| row(i).count()).collect();
    let mut start = Vec::with_capacity(n + 1);
    start.push(0);
    let mut total = 0;
    for &c in &counts {
        total += c;
        start.push(total);
    }
    let mut items = vec![T::default(); total];
    let mut slices = Vec::with_capacity(n);
    let mut rest = items.as_mut_slice();
    for &c in &counts {
        let (head, tail) = rest.split_at_mut(c);
        slices.push(head);
        rest = tail;
    }
    slices.into_par_iter().enumerate().for_each(|(i, out)| {
        for (slot, item) in out.iter_mut().zip(row(i)) {
            *slot = item;
        }
    });
    Rows { start, items }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_hold_what_each_row_yields_in_order() {
        let rows = gather_rows(5, |i| (0..i as u32).filter(move |j| j % 2 == i as u32 % 2));
        for i in 0..5 {
            let expected: Vec<u32> = (0..i as u32).filter(|j| j % 2 == i as u32 % 2).collect();
            assert_eq!(rows.of(i), expected.as_slice());
        }
        assert_eq!(rows.start, vec![0, 0, 0, 1, 2, 4]);
    }
}
