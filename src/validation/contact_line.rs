//! How smooth a puddle's contact line is: where its mesh meets the horizontal plane it rests on.
//!
//! The line is the mesh's section by a horizontal plane just above the obstacle (a plane cuts
//! every triangle that crosses it into a segment; the segments chain into closed loops through
//! the edges they share). A saw-tooth of spikes at the rim, or beads along it, show as wiggles
//! of the loop about its own smoothed course: each loop is resampled evenly along its length,
//! smoothed by a moving average over a few particle radii, and the RMS distance of the samples
//! from the smoothed loop is the figure (a circle of radius R loses about w²/(6R) to a moving
//! average of half-width w, a small part of the figure for puddles many radii across).

use glam::{DVec3, Vec3};
use rustc_hash::FxHashMap;

use crate::surface::SurfaceMesh;

/// The closed loops where the plane z = `height` cuts the mesh, longest first. A vertex exactly
/// on the plane counts as above it, so each crossing is found once; open chains (a mesh that is
/// not closed) are left out.
pub fn section_loops(mesh: &SurfaceMesh, height: f32) -> Vec<Vec<Vec3>> {
    let h = height as f64;
    let p = |v: u32| mesh.positions[v as usize].as_dvec3();
    let above = |v: u32| p(v).z >= h;
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    let cut = |a: u32, b: u32| {
        let (pa, pb) = (p(a), p(b));
        let t = (h - pa.z) / (pb.z - pa.z);
        (pa + (pb - pa) * t).as_vec3()
    };
    // Each crossing triangle's segment, oriented so the liquid lies on one side throughout:
    // from the edge where the boundary goes up to the one where it goes down.
    let mut next: FxHashMap<(u32, u32), (u32, u32)> = FxHashMap::default();
    let mut points: FxHashMap<(u32, u32), Vec3> = FxHashMap::default();
    for t in &mesh.triangles {
        let mut from = None;
        let mut to = None;
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            match (above(a), above(b)) {
                (false, true) => from = Some(key(a, b)),
                (true, false) => to = Some(key(a, b)),
                _ => continue,
            }
            points.entry(key(a, b)).or_insert_with(|| cut(a, b));
        }
        if let (Some(f), Some(t)) = (from, to) {
            next.insert(f, t);
        }
    }
    let mut starts: Vec<(u32, u32)> = next.keys().copied().collect();
    starts.sort_unstable();
    let mut seen: FxHashMap<(u32, u32), ()> = FxHashMap::default();
    let mut loops = Vec::new();
    for start in starts {
        if seen.contains_key(&start) {
            continue;
        }
        let mut chain = vec![];
        let mut at = start;
        let closed = loop {
            seen.insert(at, ());
            chain.push(points[&at]);
            match next.get(&at) {
                Some(&n) if n == start => break true,
                Some(&n) if !seen.contains_key(&n) => at = n,
                _ => break false,
            }
        };
        if closed && chain.len() > 2 {
            loops.push(chain);
        }
    }
    loops.sort_by(|a, b| length(b).total_cmp(&length(a)));
    loops
}

/// A closed loop's length.
pub fn length(points: &[Vec3]) -> f64 {
    (0..points.len())
        .map(|k| points[k].distance(points[(k + 1) % points.len()]) as f64)
        .sum()
}

/// The loop resampled at `spacing` along its length (closed).
fn resampled(points: &[Vec3], spacing: f64) -> Vec<DVec3> {
    let total = length(points);
    let n = ((total / spacing).round() as usize).max(3);
    let step = total / n as f64;
    let mut out = Vec::with_capacity(n);
    let (mut k, mut walked) = (0usize, 0.0f64);
    for i in 0..n {
        let target = i as f64 * step;
        loop {
            let (a, b) = (
                points[k % points.len()].as_dvec3(),
                points[(k + 1) % points.len()].as_dvec3(),
            );
            let seg = a.distance(b);
            if walked + seg >= target || k >= 2 * points.len() {
                let t = if seg > 0.0 {
                    (target - walked) / seg
                } else {
                    0.0
                };
                out.push(a + (b - a) * t.clamp(0.0, 1.0));
                break;
            }
            walked += seg;
            k += 1;
        }
    }
    out
}

/// The RMS distance of a closed loop (evenly resampled at `spacing`) from its moving average of
/// half-width `window` (both lengths along the loop): the RMS of [`deviations`].
pub fn roughness(points: &[Vec3], spacing: f64, window: f64) -> f64 {
    let d = deviations(points, spacing, window);
    (d.iter().map(|d| d * d).sum::<f64>() / d.len() as f64).sqrt()
}

/// The largest of [`deviations`]: a single spike or bead, which the RMS spreads over the whole
/// rim.
pub fn worst_deviation(points: &[Vec3], spacing: f64, window: f64) -> f64 {
    deviations(points, spacing, window)
        .into_iter()
        .fold(0.0, f64::max)
}

/// Each sample's distance from the loop's smoothed course: the loop is resampled evenly at
/// `spacing` along its length, smoothed by a moving average of half-width `window`, and each
/// sample measured to the smoothed loop's nearest segment.
pub fn deviations(points: &[Vec3], spacing: f64, window: f64) -> Vec<f64> {
    let samples = resampled(points, spacing);
    let n = samples.len();
    let half = ((window / spacing).round() as usize).min((n - 1) / 2);
    let smooth: Vec<DVec3> = (0..n)
        .map(|i| {
            (0..=2 * half)
                .map(|j| samples[(i + n + j - half) % n])
                .sum::<DVec3>()
                / (2 * half + 1) as f64
        })
        .collect();
    let to_segment = |p: DVec3, a: DVec3, b: DVec3| {
        let ab = b - a;
        let t = ((p - a).dot(ab) / ab.length_squared().max(1e-300)).clamp(0.0, 1.0);
        p.distance(a + ab * t)
    };
    samples
        .iter()
        .map(|&p| {
            (0..n)
                .map(|k| to_segment(p, smooth[k], smooth[(k + 1) % n]))
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::SurfaceMesh;

    /// A closed prism: an `n`-gon of radius `radius(angle)` from z = -1 to z = 1, wound outwards.
    fn prism(n: usize, radius: impl Fn(f32) -> f32) -> SurfaceMesh {
        let mut positions = vec![Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0)];
        for k in 0..n {
            let a = std::f32::consts::TAU * k as f32 / n as f32;
            let r = radius(a);
            positions.push(Vec3::new(r * a.cos(), r * a.sin(), -1.0));
            positions.push(Vec3::new(r * a.cos(), r * a.sin(), 1.0));
        }
        let mut triangles = vec![];
        for k in 0..n as u32 {
            let (b0, t0) = (2 + 2 * k, 3 + 2 * k);
            let (b1, t1) = (2 + 2 * ((k + 1) % n as u32), 3 + 2 * ((k + 1) % n as u32));
            triangles.extend([[b0, b1, t1], [b0, t1, t0], [0, b1, b0], [1, t0, t1]]);
        }
        SurfaceMesh {
            positions,
            triangles,
            ..SurfaceMesh::default()
        }
    }

    #[test]
    fn a_round_section_is_smooth_and_a_toothed_one_is_not() {
        // A circle of radius 40 loses 3² / (6 · 40) ≈ 0.04 to the moving average.
        let round = section_loops(&prism(800, |_| 40.0), 0.0);
        assert_eq!(round.len(), 1);
        assert!((length(&round[0]) - std::f64::consts::TAU * 40.0).abs() < 0.1);
        let r = roughness(&round[0], 0.25, 3.0);
        assert!(r < 0.05, "{r}");
        // Teeth 0.8 deep every 2 along the rim: 0.4 off their mean radius, less from the
        // smoothed loop's nearest point (the flanks lie near it).
        let toothed = section_loops(
            &prism(800, |a| 40.0 + 0.8 * ((a * 125.0).sin() > 0.0) as u8 as f32),
            0.0,
        );
        let r = roughness(&toothed[0], 0.25, 3.0);
        assert!(r > 0.15, "{r}");
    }
}
