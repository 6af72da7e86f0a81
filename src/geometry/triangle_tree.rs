//! A bounding-volume hierarchy over triangles, for "which triangles are near this point"
//! queries that stop as soon as nothing nearer can be left.
//!
//! Contact asks an obstacle's distance at every field sample near it. A uniform grid with each
//! triangle filed in every cell within the query band held a hundred or more triangles per cell
//! on a finely tessellated ball, and every query measured them all. A tree visits the boxes
//! nearest first and skips every box farther than the best triangle found, so a query measures
//! a handful of triangles whatever the band and the tessellation.

use glam::Vec3;

/// Triangles per leaf: below this, measuring them costs less than another level of boxes.
const LEAF: usize = 4;

/// Room for the search's pending siblings: one per level of a balanced tree, 2^60 leaves deep.
const STACK: usize = 64;

#[derive(Clone, Copy, Debug)]
struct Node {
    lo: Vec3,
    hi: Vec3,
    /// A leaf: the range `first..first + count` of `order`. An inner node (count 0): its
    /// children are the next node and node `first`.
    first: u32,
    count: u32,
}

/// Boxes over triangles given by their corners.
pub struct TriangleTree {
    nodes: Vec<Node>,
    /// Triangle indices, leaf by leaf.
    order: Vec<u32>,
}

impl TriangleTree {
    /// The tree over `triangles` (corners); queries report indices into this slice.
    pub fn new(triangles: &[[Vec3; 3]]) -> TriangleTree {
        let mut tree = TriangleTree {
            nodes: Vec::with_capacity(2 * triangles.len() / LEAF + 1),
            order: (0..triangles.len() as u32).collect(),
        };
        if !triangles.is_empty() {
            let centroids: Vec<Vec3> = triangles
                .iter()
                .map(|t| (t[0] + t[1] + t[2]) / 3.0)
                .collect();
            tree.build(triangles, &centroids, 0, triangles.len());
        }
        tree
    }

    /// Builds the node over `order[start..end]`, splitting at the median centroid along the
    /// widest axis of the centroids (a balanced tree, whatever the triangles' sizes).
    fn build(&mut self, triangles: &[[Vec3; 3]], centroids: &[Vec3], start: usize, end: usize) {
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let (mut c_lo, mut c_hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &t in &self.order[start..end] {
            for corner in triangles[t as usize] {
                lo = lo.min(corner);
                hi = hi.max(corner);
            }
            c_lo = c_lo.min(centroids[t as usize]);
            c_hi = c_hi.max(centroids[t as usize]);
        }
        let index = self.nodes.len();
        self.nodes.push(Node {
            lo,
            hi,
            first: start as u32,
            count: (end - start) as u32,
        });
        if end - start <= LEAF {
            return;
        }
        let axis = (c_hi - c_lo).max_position();
        let mid = (start + end) / 2;
        self.order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            let (a, b) = (centroids[a as usize][axis], centroids[b as usize][axis]);
            a.total_cmp(&b)
        });
        // Ties in the median make the split depend on the selection's order; sorting each half
        // keeps the leaves, and so the visiting order, the same on every run.
        self.order[start..mid].sort_unstable();
        self.order[mid..end].sort_unstable();
        self.build(triangles, centroids, start, mid);
        let right = self.nodes.len() as u32;
        self.build(triangles, centroids, mid, end);
        self.nodes[index].first = right;
        self.nodes[index].count = 0;
    }

    /// Visits the triangles that may lie within `reach` of `p`, nearest boxes first.
    /// `measure(t)` returns the squared distance at which nothing farther matters any more
    /// (usually the best squared distance found so far, or `reach²`), so the search narrows as
    /// it finds nearer triangles.
    pub fn visit_near(&self, p: Vec3, reach: f32, mut measure: impl FnMut(u32) -> f32) {
        if self.nodes.is_empty() {
            return;
        }
        let mut bound = reach * reach;
        // The tree is balanced, so the stack (one sibling per level) never nears its size; an
        // array, because queries run by the million and an allocation each would cost more than
        // the search.
        let mut stack = [(0u32, 0.0f32); STACK];
        stack[0] = (0, box_distance_squared(p, &self.nodes[0]));
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (n, d2) = stack[top];
            if d2 > bound {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for &t in &self.order[range] {
                    bound = bound.min(measure(t));
                }
                continue;
            }
            let (a, b) = (n + 1, node.first);
            let (da, db) = (
                box_distance_squared(p, &self.nodes[a as usize]),
                box_distance_squared(p, &self.nodes[b as usize]),
            );
            // The nearer child last, so it is popped first.
            let (near, far) = if da <= db {
                ((a, da), (b, db))
            } else {
                ((b, db), (a, da))
            };
            stack[top] = far;
            stack[top + 1] = near;
            top += 2;
        }
    }

    /// Whether some triangle's box comes within `reach` of the box `lo..hi`.
    pub fn any_box_near(&self, lo: Vec3, hi: Vec3, reach: f32) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let near = |node: &Node| {
            let gap = (node.lo - hi).max(lo - node.hi).max(Vec3::ZERO);
            gap.length_squared() <= reach * reach
        };
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if !near(node) {
                continue;
            }
            if node.count > 0 {
                return true;
            }
            stack.push(n + 1);
            stack.push(node.first);
        }
        false
    }
}

fn box_distance_squared(p: Vec3, node: &Node) -> f32 {
    (node.lo - p)
        .max(p - node.hi)
        .max(Vec3::ZERO)
        .length_squared()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Corners of a strip of small triangles along x, and scattered ones.
    fn triangles() -> Vec<[Vec3; 3]> {
        let mut out = vec![];
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32
        };
        for _ in 0..500 {
            let a = Vec3::new(next(), next(), next()) * 4.0;
            let b = a + Vec3::new(next(), next(), next()) * 0.2;
            let c = a + Vec3::new(next(), next(), next()) * 0.2;
            out.push([a, b, c]);
        }
        out
    }

    fn nearest_corner(triangles: &[[Vec3; 3]], p: Vec3) -> f32 {
        triangles
            .iter()
            .flatten()
            .map(|c| c.distance_squared(p))
            .fold(f32::INFINITY, f32::min)
    }

    #[test]
    fn the_nearest_is_found_as_by_measuring_every_triangle() {
        let triangles = triangles();
        let tree = TriangleTree::new(&triangles);
        for k in 0..200 {
            let p = Vec3::new(k as f32 * 0.021, (k % 7) as f32 * 0.6, (k % 5) as f32 * 0.9);
            let mut best = f32::INFINITY;
            // Corners stand in for the triangles: the tree's boxes bound them too.
            tree.visit_near(p, 10.0, |t| {
                let d2 = triangles[t as usize]
                    .iter()
                    .map(|c| c.distance_squared(p))
                    .fold(f32::INFINITY, f32::min);
                best = best.min(d2);
                best
            });
            assert_eq!(best, nearest_corner(&triangles, p), "at {p}");
        }
    }

    #[test]
    fn nothing_beyond_the_reach_is_visited() {
        let triangles = triangles();
        let tree = TriangleTree::new(&triangles);
        let far = Vec3::splat(20.0);
        tree.visit_near(far, 1.0, |_| panic!("visited a triangle 15 away"));
        assert!(!tree.any_box_near(far, far + 1.0, 1.0));
        let corner = triangles[17][1];
        assert!(tree.any_box_near(corner, corner + 0.01, 0.0));
        let empty = TriangleTree::new(&[]);
        empty.visit_near(Vec3::ZERO, 1.0, |_| panic!("no triangles"));
        assert!(!empty.any_box_near(Vec3::ZERO, Vec3::ONE, 1.0));
    }
}
