//! Compressed per-particle neighbour lists.

use glam::Vec3;

use super::Space;
use crate::sim::csr::{gather_rows, Rows};

/// Compressed per-particle neighbour lists: particle `i`'s neighbours, in the order the
/// search found them (a patch appends). Stored in chunks of rows (`csr::Rows`), so a patch
/// for a few particles rewrites only the chunks that hold them.
#[derive(Clone, Debug, Default)]
pub struct NeighbourList {
    rows: Rows<u32>,
}

impl NeighbourList {
    /// Lists `0..n`, list `i` being `list(i)`.
    pub fn gather<'a>(n: usize, list: impl Fn(usize) -> &'a [u32] + Sync) -> Self {
        NeighbourList {
            rows: gather_rows(n, |i| list(i).iter().copied()),
        }
    }

    pub fn from_rows(rows: Rows<u32>) -> Self {
        NeighbourList { rows }
    }

    pub fn from_lists(lists: Vec<Vec<u32>>) -> Self {
        Self::gather(lists.len(), |i| &lists[i])
    }

    /// `n` empty lists.
    pub fn empty(n: usize) -> Self {
        Self::gather(n, |_| &[])
    }

    /// These lists, of the particles `rows` (ascending), as lists of `n` particles: row k
    /// becomes particle `rows[k]`'s list, and every other particle's list is empty.
    pub fn spread(&self, rows: &[u32], n: usize) -> NeighbourList {
        let mut row_of = vec![u32::MAX; n];
        for (k, &r) in rows.iter().enumerate() {
            row_of[r as usize] = k as u32;
        }
        Self::gather(n, |i| match row_of[i] {
            u32::MAX => &[],
            k => self.of(k as usize),
        })
    }

    /// Replaces the lists of some particles (`replaced`, sorted by particle, each with its new
    /// list) and appends entries to others (`added`, same form), keeping all other lists.
    pub fn patch(&mut self, replaced: &[(u32, Vec<u32>)], added: &[(u32, Vec<u32>)]) {
        self.rows.patch(replaced, added);
    }

    /// Reorders every list so the neighbours `pick` maps to `Some` come first, and returns
    /// the picked values as rows lined up with them (`csr::Rows::pick_first`).
    pub fn pick_first<U: Send>(
        &mut self,
        pick: impl Fn(usize, u32) -> Option<U> + Sync,
    ) -> Rows<U> {
        self.rows.pick_first(pick)
    }

    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        self.rows.of(i)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn pair_count(&self) -> u64 {
        self.rows.item_count() as u64
    }

    /// The sub-lists of pairs closer than `radius` (positions as given).
    pub fn filtered(&self, space: &Space, a: &[Vec3], b: &[Vec3], radius: f32) -> NeighbourList {
        let r2 = radius * radius;
        NeighbourList {
            rows: gather_rows(self.len(), |i| {
                self.of(i)
                    .iter()
                    .copied()
                    .filter(move |&j| space.delta(b[j as usize], a[i]).length_squared() < r2)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_lists_land_on_their_particles_and_the_rest_are_empty() {
        let rows = NeighbourList::from_lists(vec![vec![4, 5], vec![], vec![6]]);
        let lists = rows.spread(&[1, 2, 4], 6);
        let expected: [&[u32]; 6] = [&[], &[4, 5], &[], &[], &[6], &[]];
        for (i, e) in expected.iter().enumerate() {
            assert_eq!(lists.of(i), *e, "particle {i}");
        }
    }
}
