//! Compressed per-particle neighbour lists.

use glam::Vec3;
use rayon::prelude::*;

use super::Space;

/// Compressed per-particle neighbour lists: neighbours of `i` are
/// `index[start[i]..start[i + 1]]`, in the order the search found them (a patch appends).
#[derive(Clone, Debug, Default)]
pub struct NeighbourList {
    pub start: Vec<u32>,
    pub index: Vec<u32>,
}

/// Row offsets from row lengths: `[0, l0, l0 + l1, …]`, one more entry than rows.
pub(super) fn offsets(lengths: impl ExactSizeIterator<Item = u32>) -> Vec<u32> {
    let mut start = Vec::with_capacity(lengths.len() + 1);
    start.push(0u32);
    let mut total = 0u32;
    for length in lengths {
        total += length;
        start.push(total);
    }
    start
}

impl NeighbourList {
    pub fn from_lists(lists: Vec<Vec<u32>>) -> Self {
        let start = offsets(lists.iter().map(|l| l.len() as u32));
        let mut index = Vec::with_capacity(start[lists.len()] as usize);
        for l in lists {
            index.extend(l);
        }
        NeighbourList { start, index }
    }

    /// These lists, of the particles `rows` (ascending), as lists of `n` particles: row k
    /// becomes particle `rows[k]`'s list, and every other particle's list is empty.
    pub fn spread(self, rows: &[u32], n: usize) -> NeighbourList {
        let mut next = rows.iter().enumerate().peekable();
        let lengths = (0..n as u32).map(|i| match next.next_if(|&(_, &r)| r == i) {
            Some((k, _)) => self.start[k + 1] - self.start[k],
            None => 0,
        });
        NeighbourList {
            start: offsets(lengths),
            index: self.index,
        }
    }

    /// Replaces the lists of some particles (`replaced`, sorted by particle, each with its new
    /// list) and appends entries to others (`added`, same form), keeping all other lists.
    pub fn patched(
        &self,
        replaced: &[(u32, Vec<u32>)],
        added: &[(u32, Vec<u32>)],
    ) -> NeighbourList {
        let mut start = Vec::with_capacity(self.start.len());
        start.push(0u32);
        let extra: usize = replaced.iter().chain(added).map(|(_, l)| l.len()).sum();
        let mut index = Vec::with_capacity(self.index.len() + extra);
        let (mut r, mut a) = (replaced.iter().peekable(), added.iter().peekable());
        for i in 0..self.len() as u32 {
            if r.peek().is_some_and(|(k, _)| *k == i) {
                index.extend_from_slice(&r.next().unwrap().1);
            } else {
                index.extend_from_slice(self.of(i as usize));
            }
            if a.peek().is_some_and(|(k, _)| *k == i) {
                index.extend_from_slice(&a.next().unwrap().1);
            }
            start.push(index.len() as u32);
        }
        NeighbourList { start, index }
    }

    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        &self.index[self.start[i] as usize..self.start[i + 1] as usize]
    }

    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn pair_count(&self) -> u64 {
        self.index.len() as u64
    }

    /// The sub-lists of pairs closer than `radius` (positions as given).
    pub fn filtered(&self, space: &Space, a: &[Vec3], b: &[Vec3], radius: f32) -> NeighbourList {
        let r2 = radius * radius;
        let close = |i: usize, j: u32| space.delta(b[j as usize], a[i]).length_squared() < r2;
        let counts: Vec<u32> = (0..self.len())
            .into_par_iter()
            .map(|i| self.of(i).iter().filter(|&&j| close(i, j)).count() as u32)
            .collect();
        let index: Vec<u32> = (0..self.len())
            .into_par_iter()
            .flat_map_iter(|i| self.of(i).iter().copied().filter(move |&j| close(i, j)))
            .collect();
        NeighbourList {
            start: offsets(counts.into_iter()),
            index,
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
