//! The paper's surface particles (Steele et al. 2004, "Rendering"), with a continuous weight.
//!
//! Around each particle `p`, the neighbours within `R` give a centroid `c` and `N = p - c`. A
//! neighbour is on the normal side if `dot(unit(p_n - p), unit(N)) >= sin(theta)`. The paper
//! calls `p` a surface particle if `n_normal / n_neighbours <= t_s`, with normal `unit(N)`.
//! Inside the liquid about (1 - sin theta) / 2 = 0.41 of the neighbours are on either side; on a
//! flat surface none are. A hard threshold makes particles flip in and out of the surface set
//! between frames, so here the class is a weight that ramps from 1 (ratio <= t_s - 0.1) to 0
//! (ratio >= t_s + 0.1).
//!
//! The mesher does not need them: its field treats every particle alike (so nothing pops), and
//! its vertex normals come from the smoothed mesh itself, which is what is rendered (normals
//! averaged from particle normals disagree with the smoothed silhouette, by up to the 10-25°
//! of a lattice's facets). They are kept for tools that want surface particles (e.g. foam or
//! wetness maps) and as the paper's reference.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbours::ParticleGrid;

/// A particle's surface weight (0 inside .. 1 on the surface) and outward normal (zero if it
/// has no neighbours' centroid to point away from).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceParticle {
    pub weight: f32,
    pub normal: Vec3,
}

/// `radius`: neighbourhood `R`; `theta_deg`: the normal-side cone (paper ~10°); `t_s`: the
/// ratio threshold (paper 0.3-0.7 for its theta; with 10° a lattice's interior has ratios
/// 0.31-0.41 and its faces ~0, so 0.2 separates them).
pub fn surface_particles(
    positions: &[Vec3],
    radius: f32,
    theta_deg: f32,
    t_s: f32,
) -> Vec<SurfaceParticle> {
    let grid = ParticleGrid::new(positions, radius);
    let r2 = radius * radius;
    let sin_theta = theta_deg.to_radians().sin();
    positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let mut sum = Vec3::ZERO;
            let mut count = 0usize;
            grid.for_each_near(*p, |j, q, _| {
                if j != i && q.distance_squared(*p) < r2 {
                    sum += q;
                    count += 1;
                }
            });
            if count == 0 {
                // A lone drop is all surface; it has no preferred direction.
                return SurfaceParticle {
                    weight: 1.0,
                    normal: Vec3::ZERO,
                };
            }
            let offset = *p - sum / count as f32;
            if offset.length() < 1e-3 * radius {
                // Neighbours all round, evenly: inside.
                return SurfaceParticle {
                    weight: 0.0,
                    normal: Vec3::ZERO,
                };
            }
            let normal = offset.normalize();
            let mut on_normal_side = 0usize;
            grid.for_each_near(*p, |j, q, _| {
                let d = q - *p;
                if j != i
                    && d.length_squared() < r2
                    && d.normalize_or_zero().dot(normal) >= sin_theta
                {
                    on_normal_side += 1;
                }
            });
            let ratio = on_normal_side as f32 / count as f32;
            let t = ((t_s + 0.1 - ratio) / 0.2).clamp(0.0, 1.0);
            SurfaceParticle {
                weight: t * t * (3.0 - 2.0 * t),
                normal,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_ball_surface_particles_are_its_outer_shell_with_radial_normals() {
        let r = 0.01;
        let mut ball = Vec::new();
        for k in -6..=6 {
            for j in -6..=6 {
                for i in -6..=6 {
                    let p = Vec3::new(i as f32, j as f32, k as f32) * 2.0 * r;
                    if p.length() <= 12.0 * r {
                        ball.push(p);
                    }
                }
            }
        }
        let classes = surface_particles(&ball, 4.5 * r, 10.0, 0.2);
        for (p, c) in ball.iter().zip(&classes) {
            let depth = 12.0 * r - p.length();
            if depth > 4.5 * r {
                assert_eq!(c.weight, 0.0, "interior particle at {p} counted as surface");
            }
            if c.weight > 0.5 && p.length() > 0.0 {
                assert!(
                    c.normal.dot(p.normalize()) > 0.7,
                    "normal {} at {p}",
                    c.normal
                );
            }
        }
        // The six pole particles stick out: surface for sure.
        let pole = ball
            .iter()
            .position(|p| (p.x - 12.0 * r).abs() < 1e-6)
            .unwrap();
        assert_eq!(classes[pole].weight, 1.0);
        let surface = classes.iter().filter(|c| c.weight > 0.5).count();
        assert!(
            surface > ball.len() / 4 && surface < ball.len() * 3 / 4,
            "{surface} of {}",
            ball.len()
        );
    }
}
