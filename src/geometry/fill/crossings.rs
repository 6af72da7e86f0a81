//! The fill's ray crossings: every lattice row's crossings of the mesh along +x, and which
//! lattice points lie between an odd crossing and the next (the parity rule of "inside").

use glam::Vec3;

use super::LATTICE_INDEX_LIMIT;

/// Every ray crossing of the mesh, as (row, x) sorted by row then x. Rows are numbered z-major
/// from the bounding box's corner, the order the points are made in.
pub(super) struct Crossings {
    spacing: f32,
    j0: i64,
    k0: i64,
    rows_y: u64,
    rows_z: u64,
    hits: Vec<(u64, f32)>,
}

impl Crossings {
    /// None when the mesh has no triangles.
    pub(super) fn gather(
        vertices: &[Vec3],
        triangles: &[[u32; 3]],
        spacing: f32,
        max_row_tests: u64,
    ) -> Result<Option<Self>, String> {
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(format!(
                "the lattice spacing {spacing} is not a positive number"
            ));
        }
        if triangles.is_empty() {
            return Ok(None);
        }
        if let Some(i) = vertices.iter().position(|v| !v.is_finite()) {
            return Err(format!("vertex {i} is not finite"));
        }
        let (lo, hi) = crate::geometry::bounds(vertices);
        let reach = lo.abs().max(hi.abs()).max_element() / spacing;
        if reach.is_nan() || reach > LATTICE_INDEX_LIMIT {
            return Err(format!(
                "it reaches {} m from the origin, {reach:.3e} lattice spacings: more than the \
                 {LATTICE_INDEX_LIMIT} single precision can place particles at",
                lo.abs().max(hi.abs()).max_element()
            ));
        }
        let to_index = |x: f32| ((x / spacing) - 0.5).ceil() as i64;
        let (j0, j1) = (to_index(lo.y), to_index(hi.y));
        let (k0, k1) = (to_index(lo.z), to_index(hi.z));
        if j1 < j0 || k1 < k0 {
            // No row runs through it, yet it may hold a particle's volume (the points near
            // its surface decide), so it is a mesh with no crossings rather than none.
            return Ok(Some(Crossings {
                spacing,
                j0,
                k0,
                rows_y: 0,
                rows_z: 0,
                hits: Vec::new(),
            }));
        }
        let rows_y = (j1 - j0 + 1) as u64;
        let nudge_y = spacing * 1.234_567e-4;
        let nudge_z = spacing * 2.718_281e-4;
        // The rows each triangle's bounding box covers, clamped to the mesh's.
        let row_range = |a: Vec3, b: Vec3, c: Vec3| {
            let (tlo, thi) = (a.min(b).min(c), a.max(b).max(c));
            let (ja, jb) = (
                to_index(tlo.y - nudge_y).max(j0),
                to_index(thi.y - nudge_y).min(j1),
            );
            let (ka, kb) = (
                to_index(tlo.z - nudge_z).max(k0),
                to_index(thi.z - nudge_z).min(k1),
            );
            (ja, jb, ka, kb)
        };
        let corners = |t: &[u32; 3]| t.map(|i| vertices[i as usize]);
        let tests = triangles.iter().fold(0u64, |sum, t| {
            let [a, b, c] = corners(t);
            let (ja, jb, ka, kb) = row_range(a, b, c);
            let across = (jb - ja + 1).max(0) as u64;
            let up = (kb - ka + 1).max(0) as u64;
            sum.saturating_add(across.saturating_mul(up))
        });
        if tests > max_row_tests {
            return Err(format!(
                "filling it would cast {tests} ray tests, more than the {max_row_tests} allowed \
                 (its triangles' bounding boxes cover that many lattice rows)"
            ));
        }
        let mut hits = Vec::new();
        hits.try_reserve_exact(tests as usize)
            .map_err(|_| format!("no memory for {tests} ray crossings"))?;
        let from_index = |i: i64| (i as f32 + 0.5) * spacing;
        for t in triangles {
            let [a, b, c] = corners(t);
            let (ja, jb, ka, kb) = row_range(a, b, c);
            for k in ka..=kb {
                for j in ja..=jb {
                    let (y, z) = (from_index(j) + nudge_y, from_index(k) + nudge_z);
                    if let Some(x) = ray_x_crossing(a, b, c, y, z) {
                        let row = (k - k0) as u64 * rows_y + (j - j0) as u64;
                        hits.push((row, x));
                    }
                }
            }
        }
        hits.sort_unstable_by(|p, q| p.0.cmp(&q.0).then(p.1.total_cmp(&q.1)));
        Ok(Some(Crossings {
            spacing,
            j0,
            k0,
            rows_y,
            rows_z: (k1 - k0 + 1) as u64,
            hits,
        }))
    }

    pub(super) fn lattice(&self, i: i64) -> f32 {
        (i as f32 + 0.5) * self.spacing
    }

    /// Calls `f(j, k, first, last)` for each run of lattice points strictly between an odd
    /// crossing and the next, in the order points are made.
    pub(super) fn for_each_run(&self, mut f: impl FnMut(i64, i64, i64, i64)) {
        let to_index = |x: f32| ((x / self.spacing) - 0.5).ceil() as i64;
        for row in self.hits.chunk_by(|p, q| p.0 == q.0) {
            if row.len() < 2 {
                continue;
            }
            let (j, k) = (
                self.j0 + (row[0].0 % self.rows_y) as i64,
                self.k0 + (row[0].0 / self.rows_y) as i64,
            );
            for pair in row.chunks_exact(2) {
                let (a, b) = (pair[0].1, pair[1].1);
                let (mut first, mut last) = (to_index(a), to_index(b) - 1);
                // Rounding may put the ends on or past a crossing: only points strictly
                // between the two are inside.
                while first <= last && self.lattice(first) <= a {
                    first += 1;
                }
                while first <= last && self.lattice(last) >= b {
                    last -= 1;
                }
                if first <= last {
                    f(j, k, first, last);
                }
            }
        }
    }

    /// Whether lattice point (i, j, k) is inside: the rule of `for_each_run` (strictly between
    /// an odd crossing and the next of its row, an unpaired last crossing ignored), for one
    /// point, which may lie anywhere.
    pub(super) fn inside(&self, i: i64, j: i64, k: i64) -> bool {
        let (dj, dk) = (j - self.j0, k - self.k0);
        if dj < 0 || dk < 0 || dj as u64 >= self.rows_y || dk as u64 >= self.rows_z {
            return false;
        }
        let row = dk as u64 * self.rows_y + dj as u64;
        let start = self.hits.partition_point(|h| h.0 < row);
        let end = self.hits.partition_point(|h| h.0 <= row);
        let row = &self.hits[start..start + ((end - start) & !1)];
        let x = self.lattice(i);
        let before = row.partition_point(|h| h.1 < x);
        before % 2 == 1 && row[before].1 != x
    }

    pub(super) fn count(&self) -> u64 {
        let mut count = 0u64;
        self.for_each_run(|_, _, first, last| count += (last - first + 1) as u64);
        count
    }
}

/// Where the line {(x, y, z) : x ∈ ℝ} crosses triangle abc, if it does.
fn ray_x_crossing(a: Vec3, b: Vec3, c: Vec3, y: f32, z: f32) -> Option<f32> {
    // Barycentric coordinates of (y, z) in the triangle projected onto the yz plane.
    let d = (b.y - a.y) * (c.z - a.z) - (c.y - a.y) * (b.z - a.z);
    if d.abs() < f32::MIN_POSITIVE {
        return None;
    }
    let u = ((y - a.y) * (c.z - a.z) - (c.y - a.y) * (z - a.z)) / d;
    let v = ((b.y - a.y) * (z - a.z) - (y - a.y) * (b.z - a.z)) / d;
    if u < 0.0 || v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some(a.x + u * (b.x - a.x) + v * (c.x - a.x))
}
