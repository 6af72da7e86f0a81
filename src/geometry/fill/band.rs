//! The lattice points near a mesh's surface, each with its distance to the surface: where the
//! fill decides, one point at a time, what the lattice's all-or-nothing cells cannot.

use glam::Vec3;

use crate::geometry::closest_point_on_triangle;

/// A lattice point by its indices, ordered as the fill makes points: z, then y, then x.
pub(super) type Key = (i32, i32, i32);

/// Lattice points (as `Key`) closer than `width` to some triangle, each with its distance to
/// the nearest, sorted by key. Each triangle is tested only against the points of its own
/// slab: the lattice columns along its normal's largest axis that its bounding box (grown by
/// `width`) covers, within `width` of its plane. The tests are counted first and refused past
/// `max_tests`.
pub(super) fn near_surface(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    spacing: f32,
    width: f32,
    max_tests: u64,
) -> Result<Vec<(Key, f32)>, String> {
    let slabs: Vec<Slab> = triangles
        .iter()
        .map(|t| Slab::of(t.map(|i| vertices[i as usize]), spacing, width))
        .collect();
    let tests = slabs
        .iter()
        .fold(0u64, |sum, s| sum.saturating_add(s.tests()));
    if tests > max_tests {
        return Err(format!(
            "finding the lattice points near its surface would run {tests} distance tests, more \
             than the {max_tests} allowed"
        ));
    }
    let mut near = Vec::new();
    for slab in &slabs {
        slab.for_each_point(|key, p| {
            let [a, b, c] = slab.corners;
            let d = p.distance(closest_point_on_triangle(p, a, b, c));
            if d < width {
                near.push((key, d));
            }
        });
    }
    // The nearest triangle's distance for each point: a minimum, so the same whatever the
    // order the triangles were visited in.
    near.sort_unstable_by(|p, q| p.0.cmp(&q.0).then(p.1.total_cmp(&q.1)));
    near.dedup_by(|later, first| later.0 == first.0);
    Ok(near)
}

/// One triangle's share of the search: lattice columns along `axis` over the box `lo..=hi` of
/// the other two axes, each column cut to the points within the search width of the plane.
struct Slab {
    corners: [Vec3; 3],
    spacing: f32,
    width: f32,
    /// The axis along which columns run (the normal's largest component), then the other two.
    axes: [usize; 3],
    /// Index ranges over the whole grown bounding box, per world axis.
    lo: [i64; 3],
    hi: [i64; 3],
    normal: Vec3,
}

impl Slab {
    fn of(corners: [Vec3; 3], spacing: f32, width: f32) -> Slab {
        let [a, b, c] = corners;
        let (tlo, thi) = (a.min(b).min(c) - width, a.max(b).max(c) + width);
        let first = |x: f32| ((x / spacing) - 0.5).ceil() as i64;
        let last = |x: f32| ((x / spacing) - 0.5).floor() as i64;
        let normal = (b - a).cross(c - a);
        let m = normal.abs();
        let axis = if m.x >= m.y && m.x >= m.z {
            0
        } else if m.y >= m.z {
            1
        } else {
            2
        };
        Slab {
            corners,
            spacing,
            width,
            axes: [axis, (axis + 1) % 3, (axis + 2) % 3],
            lo: [first(tlo.x), first(tlo.y), first(tlo.z)],
            hi: [last(thi.x), last(thi.y), last(thi.z)],
            normal,
        }
    }

    fn count(&self, axis: usize) -> u64 {
        (self.hi[axis] - self.lo[axis] + 1).max(0) as u64
    }

    /// At most the points of each column's cut (a degenerate triangle, with no plane, tests
    /// its whole box).
    fn tests(&self) -> u64 {
        let [axis, u, v] = self.axes;
        let columns = self.count(u).saturating_mul(self.count(v));
        let along = match self.cut() {
            Some(reach) => ((2.0 * reach / self.spacing).ceil() as u64 + 1).min(self.count(axis)),
            None => self.count(axis),
        };
        columns.saturating_mul(along)
    }

    /// How far along the column axis a point may be from the plane and lie within the search
    /// width of it; None without a plane.
    fn cut(&self) -> Option<f32> {
        let along = self.normal[self.axes[0]].abs();
        let length = self.normal.length();
        (along > 0.0 && length.is_finite()).then(|| self.width * length / along)
    }

    fn for_each_point(&self, mut f: impl FnMut(Key, Vec3)) {
        let [axis, u, v] = self.axes;
        let at = |i: i64| (i as f32 + 0.5) * self.spacing;
        let a = self.corners[0];
        let n = self.normal;
        for iv in self.lo[v]..=self.hi[v] {
            for iu in self.lo[u]..=self.hi[u] {
                let (pu, pv) = (at(iu), at(iv));
                let (from, to) = match self.cut() {
                    Some(reach) => {
                        // Where the column meets the plane n · (p − a) = 0.
                        let meet = a[axis] - (n[u] * (pu - a[u]) + n[v] * (pv - a[v])) / n[axis];
                        let first = (((meet - reach) / self.spacing) - 0.5).ceil() as i64;
                        let last = (((meet + reach) / self.spacing) - 0.5).floor() as i64;
                        (first.max(self.lo[axis]), last.min(self.hi[axis]))
                    }
                    None => (self.lo[axis], self.hi[axis]),
                };
                for ia in from..=to {
                    let mut index = [0i64; 3];
                    index[axis] = ia;
                    index[u] = iu;
                    index[v] = iv;
                    let p = Vec3::new(at(index[0]), at(index[1]), at(index[2]));
                    f((index[2] as i32, index[1] as i32, index[0] as i32), p);
                }
            }
        }
    }
}
