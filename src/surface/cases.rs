//! The marching-cubes case table, derived at start-up instead of copied from a 256-row
//! literal table.
//!
//! For each of the 256 inside/outside patterns of a cube's corners, each cube face contributes
//! segments joining the crossings on its edges; the segments chain into closed loops that are
//! fanned into triangles. Because a face's segments depend only on the four corners of that
//! face, the two cubes sharing a face always agree on them, so the surface is watertight and
//! every edge is shared by exactly two triangles. Ambiguous faces (diagonal corners inside)
//! always separate the inside corners. Segments are directed so the inside corners lie on their
//! right seen from outside the cube; the loops then wind counter-clockwise seen from the
//! outside of the liquid, i.e. the triangles face outward.

use std::sync::OnceLock;

/// Corner `c` of the unit cube sits at `(c & 1, (c >> 1) & 1, (c >> 2) & 1)`.
pub fn corner_offset(c: usize) -> [usize; 3] {
    [c & 1, (c >> 1) & 1, (c >> 2) & 1]
}

/// Cube edge `e`: axis `e / 4`, starting at the corner with the axis bit clear whose other two
/// bits are the two bits of `e % 4` (lower axis first). Returns (start corner, axis).
pub fn edge_start(e: usize) -> (usize, usize) {
    let axis = e / 4;
    let rest = e % 4;
    let (a, b) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let corner = ((rest & 1) << a) | (((rest >> 1) & 1) << b);
    (corner, axis)
}

fn edge_between(c0: usize, c1: usize) -> usize {
    let diff = c0 ^ c1;
    let axis = diff.trailing_zeros() as usize;
    let start = c0 & !diff;
    let (a, b) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    axis * 4 + ((start >> a) & 1) + (((start >> b) & 1) << 1)
}

/// The triangles (as cube-edge triples) for each corner pattern (bit c set = corner c inside).
pub fn case_triangles(case: usize) -> &'static [[u8; 3]] {
    static TABLE: OnceLock<Vec<Vec<[u8; 3]>>> = OnceLock::new();
    &TABLE.get_or_init(|| (0..256).map(build_case).collect())[case]
}

/// The four corners of each face in counter-clockwise order seen from outside the cube.
fn faces() -> [[usize; 4]; 6] {
    let ccw = |axis: usize, side: usize| -> [usize; 4] {
        let (a, b) = match axis {
            0 => (1, 2),
            1 => (2, 0),
            _ => (0, 1),
        };
        let base = side << axis;
        // (a, b) is right-handed with `axis`, so this order is CCW seen from +axis.
        let quad = [base, base | 1 << a, base | 1 << a | 1 << b, base | 1 << b];
        if side == 1 {
            quad
        } else {
            [quad[0], quad[3], quad[2], quad[1]]
        }
    };
    [
        ccw(0, 0),
        ccw(0, 1),
        ccw(1, 0),
        ccw(1, 1),
        ccw(2, 0),
        ccw(2, 1),
    ]
}

fn build_case(case: usize) -> Vec<[u8; 3]> {
    let inside = |c: usize| case >> c & 1 == 1;
    // next[e] = the crossing that follows crossing e around its loop.
    let mut next = [usize::MAX; 12];
    for quad in faces() {
        let crossing = |i: usize| edge_between(quad[i], quad[(i + 1) % 4]);
        let crosses: Vec<usize> = (0..4)
            .filter(|&i| inside(quad[i]) != inside(quad[(i + 1) % 4]))
            .collect();
        match crosses.len() {
            0 => {}
            2 => {
                let (i, j) = (crosses[0], crosses[1]);
                // Corners strictly after face edge i up to j (CCW) lie on the right of i -> j.
                if inside(quad[(i + 1) % 4]) {
                    next[crossing(i)] = crossing(j);
                } else {
                    next[crossing(j)] = crossing(i);
                }
            }
            _ => {
                // Ambiguous face: cut off each inside corner on its own.
                for k in 0..4 {
                    if inside(quad[k]) {
                        next[crossing((k + 3) % 4)] = crossing(k);
                    }
                }
            }
        }
    }
    let mut done = [false; 12];
    let mut triangles = Vec::new();
    for start in 0..12 {
        if next[start] == usize::MAX || done[start] {
            continue;
        }
        let mut lp = vec![start];
        done[start] = true;
        let mut e = next[start];
        while e != start {
            done[e] = true;
            lp.push(e);
            e = next[e];
        }
        for k in 1..lp.len() - 1 {
            triangles.push([lp[0] as u8, lp[k] as u8, lp[k + 1] as u8]);
        }
    }
    triangles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_round_trip() {
        for e in 0..12 {
            let (c, axis) = edge_start(e);
            assert_eq!(edge_between(c, c | 1 << axis), e);
            assert_eq!(edge_between(c | 1 << axis, c), e);
        }
    }

    #[test]
    fn single_inside_corner_gives_one_outward_triangle() {
        let tris = case_triangles(1);
        assert_eq!(tris.len(), 1);
        // Corner 0 inside: the triangle's normal must point away from it, towards (1,1,1).
        let mid = |e: u8| {
            let (c, axis) = edge_start(e as usize);
            let mut p = corner_offset(c).map(|v| v as f32);
            p[axis] += 0.5;
            glam::Vec3::from(p)
        };
        let [a, b, c] = tris[0].map(mid);
        assert!((b - a).cross(c - a).dot(glam::Vec3::ONE) > 0.0);
    }

    #[test]
    fn every_case_uses_each_crossing_edge_in_a_closed_loop() {
        for case in 0..256usize {
            let tris = case_triangles(case);
            let crossing: usize = (0..12)
                .filter(|&e| {
                    let (c, axis) = edge_start(e);
                    (case >> c & 1) != (case >> (c | 1 << axis) & 1)
                })
                .count();
            let used: std::collections::BTreeSet<u8> = tris.iter().flatten().copied().collect();
            assert_eq!(used.len(), crossing, "case {case}");
        }
        assert!(case_triangles(0).is_empty() && case_triangles(255).is_empty());
    }
}
