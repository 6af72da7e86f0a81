//! Caps left by decimation: triangles with a corner of nearly 180°, that corner's vertex lying
//! on the opposite edge. Each is flipped away: the long edge is swapped for the one from the
//! cap's flat corner to the neighbour's far corner, which splits the neighbour at that vertex.
//!
//! Why: a cap covers no area worth a ray, but its plane is arbitrary (0.2-0.5 of its normal
//! along the surface's on Quick Honey's puddle) and Blender shades with vertex normals weighted
//! by the corners' angles, in which the cap's 180° corner outweighs every other triangle round
//! that vertex. Each cap showed as a white fleck or a dark dot on a smooth top (Quick Honey at
//! frames 12 and 48: hundreds per decimated frame, most along the seams of decimation's cubes,
//! none without decimation). Flipping moves no vertex, so the surface stays where decimation
//! put it: the cap's vertex lies on the long edge within the cap's height.

use glam::Vec3;
use rustc_hash::FxHashMap;

/// A corner wider than this (its cosine below) makes a cap: 175°.
const CAP_COSINE: f32 = -0.996_194_7;

/// Rounds of flips: a flip can leave a new cap where a neighbour was one too.
const ROUNDS: usize = 4;

/// The corner (0-2) of triangle `t` wider than [`CAP_COSINE`], if any.
fn cap_corner(positions: &[Vec3], t: &[u32; 3]) -> Option<usize> {
    let p = t.map(|v| positions[v as usize]);
    (0..3).find(|&k| {
        let (u, w) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
        let lengths = u.length() * w.length();
        lengths > 0.0 && u.dot(w) < CAP_COSINE * lengths
    })
}

fn normal(positions: &[Vec3], t: [u32; 3]) -> Vec3 {
    let [a, b, c] = t.map(|v| positions[v as usize]);
    (b - a).cross(c - a)
}

/// Flips the caps of a closed, consistently wound mesh away (see the module docs), in triangle
/// order (the same result at any thread count), and returns how many flips were made. A flip
/// is made only where the edge it makes is new (the mesh stays manifold), both new triangles
/// face the way the neighbour did, and neither is a cap.
pub fn flip_caps(positions: &[Vec3], triangles: &mut [[u32; 3]]) -> usize {
    // The edge map costs about 40 bytes a triangle: not built for a mesh without caps.
    if !triangles.iter().any(|t| cap_corner(positions, t).is_some()) {
        return 0;
    }
    let mut owner: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    for (i, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            owner.insert((t[k], t[(k + 1) % 3]), i);
        }
    }
    let mut flips = 0;
    for _ in 0..ROUNDS {
        let before = flips;
        for i in 0..triangles.len() {
            let Some(k) = cap_corner(positions, &triangles[i]) else {
                continue;
            };
            // The cap as (a, b, v), v its wide corner; its neighbour across a-b is (b, a, w).
            let t = triangles[i];
            let (a, b, v) = (t[(k + 1) % 3], t[(k + 2) % 3], t[k]);
            let Some(&j) = owner.get(&(b, a)) else {
                continue;
            };
            let n = triangles[j];
            let Some(&w) = n.iter().find(|&&x| x != a && x != b) else {
                continue;
            };
            if w == v || owner.contains_key(&(v, w)) || owner.contains_key(&(w, v)) {
                continue;
            }
            let (first, second) = ([a, w, v], [w, b, v]);
            let facing = normal(positions, n);
            if normal(positions, first).dot(facing) <= 0.0
                || normal(positions, second).dot(facing) <= 0.0
                || cap_corner(positions, &first).is_some()
                || cap_corner(positions, &second).is_some()
            {
                continue;
            }
            owner.remove(&(a, b));
            owner.remove(&(b, a));
            owner.insert((a, w), i);
            owner.insert((w, v), i);
            owner.insert((v, a), i);
            owner.insert((w, b), j);
            owner.insert((b, v), j);
            owner.insert((v, w), j);
            triangles[i] = first;
            triangles[j] = second;
            flips += 1;
        }
        if flips == before {
            break;
        }
    }
    flips
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square pyramid's base (a flat square split in two) whose diagonal carries a vertex
    /// nudged up a little off it, as decimation leaves one: a cap over the diagonal.
    #[test]
    fn a_cap_on_a_flat_square_is_flipped_into_its_neighbour() {
        let positions = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.5, 0.5, 0.002), // on the diagonal 0-2
            Vec3::new(0.5, 0.5, -1.0),  // closes the mesh below
        ];
        // Top: the cap (0, 2, 4)'s neighbour across 0-2 is (2, 0, 3); 4 also sits in (0, 1, 2)'s
        // place as (0, 1, 4), (1, 2, 4).
        let mut triangles = vec![
            [0, 1, 4],
            [1, 2, 4],
            [0, 4, 2], // the cap: its corner at 4 is ~180°
            [2, 3, 0],
            [1, 0, 5],
            [2, 1, 5],
            [3, 2, 5],
            [0, 3, 5],
        ];
        let area = |t: &[[u32; 3]]| -> f32 {
            t.iter()
                .map(|&t| 0.5 * normal(&positions, t).length())
                .sum()
        };
        let before = area(&triangles);
        assert!(cap_corner(&positions, &triangles[2]).is_some());
        assert_eq!(flip_caps(&positions, &mut triangles), 1);
        assert!(triangles
            .iter()
            .all(|t| cap_corner(&positions, t).is_none()));
        assert!((area(&triangles) - before).abs() < 5e-3);
        assert_eq!(crate::surface::quality::components(6, &triangles), 1);
        // Still closed and consistently wound: every directed edge's reverse is there once.
        let mut edges: Vec<(u32, u32)> = triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .collect();
        edges.sort_unstable();
        for &(a, b) in &edges {
            assert_eq!(edges.binary_search(&(b, a)).map(|_| ()), Ok(()), "{a}-{b}");
        }
    }
}
