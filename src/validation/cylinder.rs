//! How close a stretch of a surface mesh is to a round, even cylinder: the `thread` scene and
//! the honey pour's rope are judged with it.
//!
//! Two figures, both from the mesh alone:
//! - the RMS radial deviation from the best-fit cylinder (axis and radius fitted by least
//!   squares to the vertices, each weighted by its share of the surface's area, so a finely
//!   triangulated patch does not count more than a coarse one);
//! - the coefficient of variation of the cross-section area over planes across the fitted
//!   axis, a quarter particle radius apart (beads 2r long are sampled 8 times). Each area is
//!   the polygon where the plane cuts the mesh, summed from the oriented segments the triangles
//!   leave in it, so it needs neither welded vertices nor closed loops to be traced.
//!
//! Beside them, each section's own roundness (RMS off the circle about its centroid): a rope
//! that swings or tapers is off any straight cylinder although each section is round, and this
//! tells the mesher's lumps from the liquid's shape.

use glam::{DVec3, Vec3};

use crate::surface::SurfaceMesh;

/// A straight stretch of a mesh measured as a cylinder.
#[derive(Clone, Debug)]
pub struct CylinderShape {
    /// A point on the fitted axis (the weighted centroid's foot) and its unit direction.
    pub point: DVec3,
    pub axis: DVec3,
    /// The fitted radius.
    pub radius: f64,
    /// Area-weighted RMS of (distance from the axis − radius) over the stretch's vertices.
    pub rms_deviation: f64,
    /// Cross-section areas at the planes, in order along the axis.
    pub areas: Vec<f64>,
    /// Each cross-section's RMS distance from its own best circle (about its centroid) over
    /// its mean radius: how far from round the sections are whatever the axis does, so a
    /// bent or tapering stretch (a swinging, stretching rope) is told from a lumpy one.
    pub section_roundness: Vec<f64>,
}

impl CylinderShape {
    /// Standard deviation / mean of the cross-section areas.
    pub fn area_variation(&self) -> f64 {
        coefficient_of_variation(&self.areas)
    }

    /// RMS over the planes of the sections' own deviation from round.
    pub fn rms_section_roundness(&self) -> f64 {
        (mean(
            &self
                .section_roundness
                .iter()
                .map(|v| v * v)
                .collect::<Vec<_>>(),
        ))
        .sqrt()
    }

    /// The largest |area / mean − 1|: how deep the worst bead or neck is.
    pub fn worst_area_departure(&self) -> f64 {
        let mean = mean(&self.areas);
        self.areas
            .iter()
            .map(|a| (a / mean - 1.0).abs())
            .fold(0.0, f64::max)
    }
}

/// Measures the stretch of `mesh` between signed distances `from` and `to` along the line
/// through `point` in direction `axis` (a first guess; the axis is then fitted). Cross-sections
/// are taken every `spacing` across the fitted axis over the same stretch. `None` when no vertex
/// lies in the stretch.
pub fn measure(
    mesh: &SurfaceMesh,
    point: Vec3,
    axis: Vec3,
    (from, to): (f64, f64),
    spacing: f64,
) -> Option<CylinderShape> {
    let (p0, d0) = (point.as_dvec3(), axis.as_dvec3().normalize());
    let weights = vertex_areas(mesh);
    let samples: Vec<(DVec3, f64)> = mesh
        .positions
        .iter()
        .zip(&weights)
        .map(|(x, w)| (x.as_dvec3(), *w))
        .filter(|(x, w)| *w > 0.0 && (from..=to).contains(&(*x - p0).dot(d0)))
        .collect();
    let (point, axis, radius) = fit_cylinder(&samples, d0)?;
    let total: f64 = samples.iter().map(|s| s.1).sum();
    let rms_deviation = (samples
        .iter()
        .map(|(x, w)| w * (distance_from_axis(*x, point, axis) - radius).powi(2))
        .sum::<f64>()
        / total)
        .sqrt();
    // The stretch's ends carried over to the fitted axis.
    let along = |t: f64| (p0 + t * d0 - point).dot(axis);
    let (a, b) = (along(from), along(to));
    let (lo, hi) = (a.min(b), a.max(b));
    // A hair over, so a stretch a whole number of spacings long keeps its last plane.
    let planes = ((hi - lo) / spacing + 1e-9).floor() as usize + 1;
    let sections: Vec<Section> = (0..planes)
        .map(|k| cross_section(mesh, point + (lo + k as f64 * spacing) * axis, axis))
        .collect();
    Some(CylinderShape {
        point,
        axis,
        radius,
        rms_deviation,
        areas: sections.iter().map(|s| s.area).collect(),
        section_roundness: sections.iter().map(|s| s.roundness).collect(),
    })
}

/// Where a plane cuts a mesh.
#[derive(Clone, Copy, Debug, Default)]
pub struct Section {
    /// The area enclosed.
    pub area: f64,
    /// The cut's RMS distance from the circle about the enclosed area's centroid with the cut's
    /// mean distance from it, over that mean (each segment's ends weighted by half its length).
    pub roundness: f64,
}

/// The area enclosed where the plane through `origin` with unit normal `normal` cuts a closed,
/// outward-wound mesh.
pub fn cross_section_area(mesh: &SurfaceMesh, origin: DVec3, normal: DVec3) -> f64 {
    cross_section(mesh, origin, normal).area
}

/// The cut of a closed, outward-wound mesh by the plane through `origin` with unit normal
/// `normal`. Each triangle crossing the plane leaves a segment, oriented so the triangle's
/// outward side is on its right seen from `+normal`; the shoelace sum over the segments is then
/// the enclosed area (and its first moment the centroid), whatever order they come in.
pub fn cross_section(mesh: &SurfaceMesh, origin: DVec3, normal: DVec3) -> Section {
    let mut segments = Vec::new();
    for t in &mesh.triangles {
        let x = t.map(|i| mesh.positions[i as usize].as_dvec3() - origin);
        let s = x.map(|p| p.dot(normal));
        // A vertex on the plane counts as above it, so every crossing is counted once.
        let above = s.map(|v| v >= 0.0);
        if above.iter().all(|&a| a) || above.iter().all(|&a| !a) {
            continue;
        }
        let mut ends = Vec::with_capacity(2);
        for k in 0..3 {
            let (i, j) = (k, (k + 1) % 3);
            if above[i] != above[j] {
                let f = s[i] / (s[i] - s[j]);
                ends.push(x[i] + f * (x[j] - x[i]));
            }
        }
        let (mut p, mut q) = (ends[0], ends[1]);
        let outward = (x[1] - x[0]).cross(x[2] - x[0]);
        if (q - p).cross(normal).dot(outward) < 0.0 {
            std::mem::swap(&mut p, &mut q);
        }
        segments.push((p, q));
    }
    let twice: Vec<f64> = segments
        .iter()
        .map(|(p, q)| p.cross(*q).dot(normal))
        .collect();
    let area = 0.5 * twice.iter().sum::<f64>();
    if area <= 0.0 {
        return Section {
            area,
            roundness: 0.0,
        };
    }
    // Each segment with the origin is a triangle of signed area twice/2 and centroid (p+q)/3.
    let centroid = segments
        .iter()
        .zip(&twice)
        .map(|((p, q), a)| (*p + *q) * (*a / 6.0))
        .sum::<DVec3>()
        / area;
    let mut samples = Vec::with_capacity(2 * segments.len());
    for (p, q) in &segments {
        let half = 0.5 * (*q - *p).length();
        samples.push(((*p - centroid).length(), half));
        samples.push(((*q - centroid).length(), half));
    }
    let weight: f64 = samples.iter().map(|s| s.1).sum();
    let radius = samples.iter().map(|(d, w)| d * w).sum::<f64>() / weight;
    let spread = samples
        .iter()
        .map(|(d, w)| w * (d - radius).powi(2))
        .sum::<f64>()
        / weight;
    Section {
        area,
        roundness: spread.sqrt() / radius,
    }
}

/// Each vertex's share of the surface: a third of the area of every triangle it belongs to.
pub fn vertex_areas(mesh: &SurfaceMesh) -> Vec<f64> {
    let mut areas = vec![0.0; mesh.positions.len()];
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize].as_dvec3());
        let third = (b - a).cross(c - a).length() / 6.0;
        for &i in t {
            areas[i as usize] += third;
        }
    }
    areas
}

fn distance_from_axis(x: DVec3, point: DVec3, axis: DVec3) -> f64 {
    let w = x - point;
    (w - w.dot(axis) * axis).length()
}

/// Weighted least-squares cylinder through `samples` (position, weight), starting from the
/// axis `d0` through their centroid: Gauss–Newton on the axis' position and direction (two
/// parameters each, across the current axis) and the radius, minimising
/// Σ w (distance from the axis − radius)². Returns (point on the axis, unit axis, radius).
pub fn fit_cylinder(samples: &[(DVec3, f64)], d0: DVec3) -> Option<(DVec3, DVec3, f64)> {
    let total: f64 = samples.iter().map(|s| s.1).sum();
    if samples.is_empty() || total <= 0.0 {
        return None;
    }
    let centroid = samples.iter().map(|(x, w)| *x * *w).sum::<DVec3>() / total;
    let (mut point, mut axis) = (centroid, d0.normalize());
    let mean_distance = |point: DVec3, axis: DVec3| {
        samples
            .iter()
            .map(|(x, w)| w * distance_from_axis(*x, point, axis))
            .sum::<f64>()
            / total
    };
    let mut radius = mean_distance(point, axis);
    for _ in 0..30 {
        let (u, v) = axis.any_orthonormal_pair();
        // Normal equations J^T W J δ = −J^T W ρ over (shift u, shift v, tilt u, tilt v, radius).
        let mut jtj = [[0.0f64; 5]; 5];
        let mut jtr = [0.0f64; 5];
        for (x, w) in samples {
            let wv = *x - point;
            let q = wv - wv.dot(axis) * axis;
            let rho = q.length();
            if rho == 0.0 {
                continue;
            }
            let n = q / rho;
            let h = wv.dot(axis);
            let j = [-n.dot(u), -n.dot(v), -h * n.dot(u), -h * n.dot(v), -1.0];
            let residual = rho - radius;
            for a in 0..5 {
                jtr[a] += w * j[a] * residual;
                for b in 0..5 {
                    jtj[a][b] += w * j[a] * j[b];
                }
            }
        }
        let step = solve5(jtj, jtr.map(|v| -v))?;
        point += step[0] * u + step[1] * v;
        axis = (axis + step[2] * u + step[3] * v).normalize();
        radius += step[4];
        // Keep the axis' point at the samples' centroid, where the fit is best conditioned.
        point += (centroid - point).dot(axis) * axis;
        if step[0].hypot(step[1]) + step[4].abs() < 1e-12 * radius.abs().max(1e-30)
            && step[2].hypot(step[3]) < 1e-12
        {
            break;
        }
    }
    (radius.is_finite() && radius > 0.0).then_some((point, axis, radius))
}

/// Solves a 5×5 system by Gaussian elimination with partial pivoting (`None` if singular).
fn solve5(mut a: [[f64; 5]; 5], mut b: [f64; 5]) -> Option<[f64; 5]> {
    for c in 0..5 {
        let pivot = (c..5).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[pivot][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, pivot);
        b.swap(c, pivot);
        let (pivot_row, pivot_b) = (a[c], b[c]);
        for (row, rb) in a.iter_mut().zip(b.iter_mut()).skip(c + 1) {
            let f = row[c] / pivot_row[c];
            for (x, p) in row.iter_mut().zip(pivot_row).skip(c) {
                *x -= f * p;
            }
            *rb -= f * pivot_b;
        }
    }
    let mut x = [0.0; 5];
    for c in (0..5).rev() {
        let s: f64 = (c + 1..5).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    Some(x)
}

pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Standard deviation / mean (0 for no values or a zero mean).
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    let m = mean(values);
    if m == 0.0 {
        return 0.0;
    }
    let variance = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / values.len() as f64;
    variance.sqrt() / m.abs()
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{PI, TAU};

    use super::*;

    /// A closed tube along `axis` through `origin`, `length` long, whose radius at height h
    /// (from the bottom) is `radius(h)`: `rings` rings of `around` vertices, capped by fans.
    fn tube(
        origin: DVec3,
        axis: DVec3,
        length: f64,
        rings: usize,
        around: usize,
        radius: impl Fn(f64) -> f64,
    ) -> SurfaceMesh {
        let axis = axis.normalize();
        let (u, v) = axis.any_orthonormal_pair();
        let mut positions = Vec::new();
        for k in 0..rings {
            let h = length * k as f64 / (rings - 1) as f64;
            for i in 0..around {
                let a = TAU * (i as f64 + 0.5 * (k % 2) as f64) / around as f64;
                let x = origin + h * axis + radius(h) * (a.cos() * u + a.sin() * v);
                positions.push(x.as_vec3());
            }
        }
        let (bottom, top) = (positions.len() as u32, positions.len() as u32 + 1);
        positions.push(origin.as_vec3());
        positions.push((origin + length * axis).as_vec3());
        let at = |k: usize, i: usize| (k * around + i % around) as u32;
        let mut triangles = Vec::new();
        for k in 0..rings - 1 {
            for i in 0..around {
                // (u, v, axis) is right-handed, so counter-clockwise about the axis is outward.
                triangles.push([at(k, i), at(k, i + 1), at(k + 1, i)]);
                triangles.push([at(k, i + 1), at(k + 1, i + 1), at(k + 1, i)]);
            }
        }
        for i in 0..around {
            triangles.push([bottom, at(0, i + 1), at(0, i)]);
            triangles.push([top, at(rings - 1, i), at(rings - 1, i + 1)]);
        }
        SurfaceMesh {
            normals: vec![Vec3::ZERO; positions.len()],
            positions,
            triangles,
            ..SurfaceMesh::default()
        }
    }

    #[test]
    fn a_fine_round_cylinder_has_no_variation_or_deviation() {
        let (origin, axis) = (DVec3::new(0.3, -0.2, 0.1), DVec3::new(1.0, 0.4, 0.3));
        let mesh = tube(origin, axis, 1.0, 200, 256, |_| 0.05);
        let quality = crate::surface::quality::measure(&mesh);
        assert!(quality.is_closed_manifold(), "{quality:?}");
        // Start from a deliberately wrong guess of the axis: the fit must find it.
        let guess = (axis.normalize() + DVec3::new(0.0, 0.05, -0.05)).normalize();
        let c = measure(&mesh, origin.as_vec3(), guess.as_vec3(), (0.2, 0.8), 0.01).unwrap();
        assert!(c.axis.dot(axis.normalize()) > 1.0 - 1e-9, "{:?}", c.axis);
        // A polygon of 256 sides: its vertices at 0.05, its area π R² (1 − 0.00010).
        assert!((c.radius - 0.05).abs() < 1e-6, "radius {}", c.radius);
        assert!(c.rms_deviation < 1e-6, "deviation {}", c.rms_deviation);
        assert!(
            c.area_variation() < 1e-4,
            "variation {}",
            c.area_variation()
        );
        let area = mean(&c.areas);
        assert!(
            (area / (PI * 0.05 * 0.05) - 1.0).abs() < 2e-4,
            "area {area}"
        );
        // The stretch 0.6 long along the guess is 0.5985 along the true axis: 60 planes.
        assert_eq!(c.areas.len(), 60);
    }

    #[test]
    fn beads_show_as_area_variation_and_radial_deviation() {
        // Beads every 0.1 with 10% radius amplitude: area varies by about 2 × 10% / √2.
        let axis = DVec3::new(0.0, 0.0, 1.0);
        let bead = |h: f64| 0.05 * (1.0 + 0.1 * (TAU * h / 0.1).sin());
        let mesh = tube(DVec3::ZERO, axis, 1.0, 400, 128, bead);
        let c = measure(&mesh, Vec3::ZERO, Vec3::Z, (0.2, 0.8), 0.0025).unwrap();
        assert!(
            (c.area_variation() - 0.141).abs() < 0.01,
            "variation {}",
            c.area_variation()
        );
        // RMS of a sine of amplitude 10%: 7.1%.
        let relative = c.rms_deviation / c.radius;
        assert!((relative - 0.0707).abs() < 0.005, "deviation {relative}");
        assert!(c.worst_area_departure() > 0.18);
        // Each section is still round.
        assert!(
            c.rms_section_roundness() < 0.002,
            "{}",
            c.rms_section_roundness()
        );
    }

    #[test]
    fn a_flattened_tube_has_sections_off_round() {
        // An ellipse of axes 1.1 and 0.9 of the radius: distance from its centre varies as
        // 1 + 0.1 cos 2θ, RMS 7.1% (the perimeter weighting shifts it slightly).
        let mut mesh = tube(DVec3::ZERO, DVec3::Z, 1.0, 100, 256, |_| 0.05);
        for p in &mut mesh.positions {
            p.x *= 1.1;
            p.y *= 0.9;
        }
        let c = measure(&mesh, Vec3::ZERO, Vec3::Z, (0.2, 0.8), 0.01).unwrap();
        let round = c.rms_section_roundness();
        assert!((round - 0.0707).abs() < 0.005, "{round}");
    }

    #[test]
    fn a_single_bulge_is_seen_though_the_rest_is_round() {
        let bulge = |h: f64| 0.05 * (1.0 + 0.2 * (-((h - 0.5) / 0.03).powi(2)).exp());
        let mesh = tube(DVec3::ZERO, DVec3::Z, 1.0, 400, 128, bulge);
        let c = measure(&mesh, Vec3::ZERO, Vec3::Z, (0.2, 0.8), 0.0025).unwrap();
        assert!(
            c.area_variation() > 0.05,
            "variation {}",
            c.area_variation()
        );
        assert!(
            c.worst_area_departure() > 0.3,
            "{}",
            c.worst_area_departure()
        );
    }

    #[test]
    fn a_bent_tube_deviates_from_any_straight_cylinder() {
        // The axis bows sideways by 40% of the radius over the tube's length.
        let mut mesh = tube(DVec3::ZERO, DVec3::Z, 1.0, 200, 128, |_| 0.05);
        for p in &mut mesh.positions {
            p.x += 0.02 * (std::f32::consts::PI * p.z).sin();
        }
        let c = measure(&mesh, Vec3::ZERO, Vec3::Z, (0.2, 0.8), 0.01).unwrap();
        assert!(c.rms_deviation / c.radius > 0.02, "{}", c.rms_deviation);
        // Its cross-sections are still round and equal.
        assert!(
            c.area_variation() < 0.002,
            "variation {}",
            c.area_variation()
        );
    }

    #[test]
    fn the_cross_section_of_a_box_is_its_rectangle_and_ignores_winding_order() {
        let b = crate::geometry::box_mesh(Vec3::ZERO, Vec3::new(2.0, 3.0, 5.0));
        let mesh = SurfaceMesh {
            normals: vec![Vec3::ZERO; b.vertices.len()],
            positions: b.vertices,
            triangles: b.triangles,
            ..SurfaceMesh::default()
        };
        let a = cross_section_area(&mesh, DVec3::new(0.0, 0.0, 2.5), DVec3::Z);
        assert!((a - 6.0).abs() < 1e-9, "{a}");
        // Seen from the other side the loop is still counter-clockwise: the same area.
        let a = cross_section_area(&mesh, DVec3::new(0.0, 0.0, 2.5), DVec3::NEG_Z);
        assert!((a - 6.0).abs() < 1e-9, "{a}");
        // A plane through a face's vertices counts each crossing once.
        let a = cross_section_area(&mesh, DVec3::new(2.0, 0.0, 0.0), DVec3::X);
        assert!((a - 15.0).abs() < 1e-9, "{a}");
    }
}
