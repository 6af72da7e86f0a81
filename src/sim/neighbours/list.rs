//! Compressed per-particle neighbour lists.

use glam::Vec3;

use super::Space;
use crate::sim::csr::{fill_rows, Rows};

/// Compressed per-particle neighbour lists: particle `i`'s neighbours, in the order the
/// search found them (a patch appends). Stored in chunks of rows (`csr::Rows`), so a patch
/// for a few particles rewrites only the chunks that hold them.
///
/// Indices take 16 bits when every point the lists can name fits in them (up to 65,536
/// points, which covers the demos), 32 bits otherwise. The near lists are the largest array
/// of a substep, and the narrow form halves them.
#[derive(Clone, Debug)]
pub struct NeighbourList {
    rows: Indices,
}

#[derive(Clone, Debug)]
enum Indices {
    Narrow(Rows<u16>),
    Wide(Rows<u32>),
}

impl Default for NeighbourList {
    fn default() -> Self {
        NeighbourList {
            rows: Indices::Narrow(Rows::default()),
        }
    }
}

/// Largest number of points the narrow form can name.
const NARROW_POINTS: usize = 1 << 16;

/// An index of the narrow form (checked in debug builds: a wider one would alias another
/// point silently).
#[inline(always)]
fn narrow_index(j: u32) -> u16 {
    debug_assert!((j as usize) < NARROW_POINTS, "index {j} in a narrow list");
    j as u16
}

/// One particle's neighbours, in either width.
#[derive(Clone, Copy, Debug)]
pub enum Row<'a> {
    Narrow(&'a [u16]),
    Wide(&'a [u32]),
}

impl<'a> Row<'a> {
    pub fn len(self) -> usize {
        match self {
            Row::Narrow(s) => s.len(),
            Row::Wide(s) => s.len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn contains(self, j: u32) -> bool {
        match self {
            Row::Narrow(s) => j < NARROW_POINTS as u32 && s.contains(&(j as u16)),
            Row::Wide(s) => s.contains(&j),
        }
    }

    /// The first `n` neighbours.
    pub fn head(self, n: usize) -> Row<'a> {
        match self {
            Row::Narrow(s) => Row::Narrow(&s[..n]),
            Row::Wide(s) => Row::Wide(&s[..n]),
        }
    }

    pub fn to_vec(self) -> Vec<u32> {
        self.into_iter().collect()
    }
}

/// `each_neighbour!(j in row => { … })`: runs the block for each neighbour `j` (a `u32`) of
/// `row`, with one loop per index width, so hot loops never ask the width per neighbour.
/// `continue` and `break` work as in a `for` loop.
macro_rules! each_neighbour {
    ($j:ident in $row:expr => $body:block) => {
        match $row {
            $crate::sim::neighbours::Row::Narrow(s) => {
                for &$j in s {
                    let $j = $j as u32;
                    $body
                }
            }
            $crate::sim::neighbours::Row::Wide(s) => {
                for &$j in s {
                    $body
                }
            }
        }
    };
}
pub(crate) use each_neighbour;

/// `with_indices!(row, |js| call)`: `call` with `js` the row's indices at their own width
/// (`&[u16]` or `&[u32]`), written once and expanded for each, so that a loop generic over
/// the width is chosen once per row rather than per neighbour.
macro_rules! with_indices {
    ($row:expr, |$js:ident| $call:expr) => {
        match $row {
            $crate::sim::neighbours::Row::Narrow($js) => $call,
            $crate::sim::neighbours::Row::Wide($js) => $call,
        }
    };
}
pub(crate) use with_indices;

impl<'a> IntoIterator for Row<'a> {
    type Item = u32;
    type IntoIter = RowIter<'a>;
    #[inline(always)]
    fn into_iter(self) -> RowIter<'a> {
        match self {
            Row::Narrow(s) => RowIter::Narrow(s.iter()),
            Row::Wide(s) => RowIter::Wide(s.iter()),
        }
    }
}

pub enum RowIter<'a> {
    Narrow(std::slice::Iter<'a, u16>),
    Wide(std::slice::Iter<'a, u32>),
}

impl Iterator for RowIter<'_> {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        match self {
            RowIter::Narrow(s) => s.next().map(|&j| j as u32),
            RowIter::Wide(s) => s.next().copied(),
        }
    }

    // Folds (and so `for_each`, `sum`, `map(..).sum()`) run one loop per width rather than
    // asking the width at every neighbour.
    #[inline(always)]
    fn fold<B, F: FnMut(B, u32) -> B>(self, init: B, mut f: F) -> B {
        match self {
            RowIter::Narrow(s) => s.fold(init, |b, &j| f(b, j as u32)),
            RowIter::Wide(s) => s.fold(init, |b, &j| f(b, j)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            RowIter::Narrow(s) => s.size_hint(),
            RowIter::Wide(s) => s.size_hint(),
        }
    }
}

impl NeighbourList {
    /// Lists `0..n` naming points `0..points`, list `i` being what `fill(state, i, list)`
    /// appends to `list` (empty on entry). Each chunk of lists is filled in order by one task
    /// with its own `state` from `init()` (`csr::fill_rows`).
    pub fn fill<S>(
        n: usize,
        points: usize,
        init: impl Fn() -> S + Sync,
        fill: impl Fn(&mut S, usize, &mut Vec<u32>) + Sync,
    ) -> Self {
        // Each list is found into a scratch list of 32-bit indices, then stored at its width.
        let with_scratch = || (init(), Vec::new());
        let rows = if points <= NARROW_POINTS {
            Indices::Narrow(fill_rows(n, with_scratch, |(state, list), i, items| {
                list.clear();
                fill(state, i, list);
                items.extend(list.iter().map(|&j| narrow_index(j)));
            }))
        } else {
            Indices::Wide(fill_rows(n, with_scratch, |(state, list), i, items| {
                list.clear();
                fill(state, i, list);
                items.extend_from_slice(list);
            }))
        };
        NeighbourList { rows }
    }

    /// Lists `0..n` naming points `0..points`, list `i` being `list(i)`.
    fn gather<'a>(n: usize, points: usize, list: impl Fn(usize) -> Row<'a> + Sync) -> Self {
        Self::fill(n, points, || (), |_, i, out| out.extend(list(i)))
    }

    pub fn from_lists(lists: Vec<Vec<u32>>) -> Self {
        let points = lists.iter().flatten().map(|&j| j as usize + 1).max();
        Self::gather(lists.len(), points.unwrap_or(0), |i| Row::Wide(&lists[i]))
    }

    /// `n` empty lists.
    pub fn empty(n: usize) -> Self {
        Self::gather(n, 0, |_| Row::Narrow(&[]))
    }

    /// How many points the lists can name (an upper bound fixing their width).
    fn points(&self) -> usize {
        match self.rows {
            Indices::Narrow(_) => NARROW_POINTS,
            Indices::Wide(_) => usize::MAX,
        }
    }

    /// These lists, of the particles `rows` (ascending), as lists of `n` particles: row k
    /// becomes particle `rows[k]`'s list, and every other particle's list is empty.
    pub fn spread(&self, rows: &[u32], n: usize) -> NeighbourList {
        let mut row_of = vec![u32::MAX; n];
        for (k, &r) in rows.iter().enumerate() {
            row_of[r as usize] = k as u32;
        }
        Self::gather(n, self.points(), |i| match row_of[i] {
            u32::MAX => Row::Narrow(&[]),
            k => self.of(k as usize),
        })
    }

    /// Replaces the lists of some particles (`replaced`, sorted by particle, each with its new
    /// list) and appends entries to others (`added`, same form), keeping all other lists.
    pub fn patch(&mut self, replaced: &[(u32, Vec<u32>)], added: &[(u32, Vec<u32>)]) {
        match &mut self.rows {
            Indices::Narrow(rows) => {
                // A patch names the points the lists were built over, so they fit in 16 bits.
                let narrow = |edits: &[(u32, Vec<u32>)]| -> Vec<(u32, Vec<u16>)> {
                    edits
                        .iter()
                        .map(|(i, l)| (*i, l.iter().map(|&j| narrow_index(j)).collect()))
                        .collect()
                };
                rows.patch(&narrow(replaced), &narrow(added));
            }
            Indices::Wide(rows) => rows.patch(replaced, added),
        }
    }

    /// Reorders every list so the neighbours `pick` keeps come first, and returns the kept
    /// values as rows lined up with them (`csr::Rows::pick_first`: `pick(i, row, scratch,
    /// verdicts)` pushes one verdict per neighbour in the row).
    pub fn pick_first<U: Send, S: Default>(
        &mut self,
        pick: impl Fn(usize, Row, &mut S, &mut Vec<Option<U>>) + Sync,
    ) -> Rows<U> {
        match &mut self.rows {
            Indices::Narrow(rows) => {
                rows.pick_first(|i, row, scratch, v| pick(i, Row::Narrow(row), scratch, v))
            }
            Indices::Wide(rows) => {
                rows.pick_first(|i, row, scratch, v| pick(i, Row::Wide(row), scratch, v))
            }
        }
    }

    #[inline(always)]
    pub fn of(&self, i: usize) -> Row<'_> {
        match &self.rows {
            Indices::Narrow(rows) => Row::Narrow(rows.of(i)),
            Indices::Wide(rows) => Row::Wide(rows.of(i)),
        }
    }

    pub fn len(&self) -> usize {
        match &self.rows {
            Indices::Narrow(rows) => rows.len(),
            Indices::Wide(rows) => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn pair_count(&self) -> u64 {
        (match &self.rows {
            Indices::Narrow(rows) => rows.item_count(),
            Indices::Wide(rows) => rows.item_count(),
        }) as u64
    }

    /// The sub-lists of pairs closer than `radius` (positions as given).
    pub fn filtered(&self, space: &Space, a: &[Vec3], b: &[Vec3], radius: f32) -> NeighbourList {
        let r2 = radius * radius;
        Self::fill(
            self.len(),
            self.points().min(b.len()),
            || (),
            |_, i, out| crate::sim::eight_lanes::keep_within(space, b, a[i], self.of(i), r2, out),
        )
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
            assert_eq!(lists.of(i).to_vec(), *e, "particle {i}");
        }
    }

    #[test]
    fn lists_of_many_points_are_wide_and_of_few_narrow_and_both_read_alike() {
        let few = NeighbourList::from_lists(vec![vec![3, 65_535], vec![]]);
        let many = NeighbourList::from_lists(vec![vec![3, 65_536], vec![]]);
        assert!(matches!(few.of(0), Row::Narrow(_)));
        assert!(matches!(many.of(0), Row::Wide(_)));
        assert_eq!(few.of(0).to_vec(), [3, 65_535]);
        assert_eq!(many.of(0).to_vec(), [3, 65_536]);
        assert!(few.of(0).contains(65_535) && !few.of(0).contains(65_536 + 3));
        let mut patched = few.clone();
        patched.patch(&[(1, vec![7])], &[(0, vec![9])]);
        assert_eq!(patched.of(0).to_vec(), [3, 65_535, 9]);
        assert_eq!(patched.of(1).to_vec(), [7]);
    }
}
