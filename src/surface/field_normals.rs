//! Shading normals: the gradient of the implicit function (`field`) at each final vertex.
//!
//! Why not the mesh's own normals: marching cubes at half a particle radius, smoothed and then
//! decimated, is a polyhedron whose vertex normals wobble from vertex to vertex, and a sharp
//! highlight drawn across it shows every facet (a ball's highlight came out hexagonal, like
//! hammered metal). The field the mesh was cut from is smooth between particles; its gradient
//! is the surface's true orientation wherever the vertex ends up, so large decimated triangles
//! shade as smoothly as the fine ones.
//!
//! `f(x) = min(max(rho(x) / (iso rho0), ball(x)) - 1, d(x) / r - GAP)` (see `field` and
//! `contact`). The normal is minus the gradient of
//! - on the contact face (where the clip is the smaller term), the clip: the obstacle's own
//!   normal turned inwards;
//! - elsewhere the blob sum `rho`, `sum -6 w (1 - u)^2 M d` (for a blob swept down to an
//!   obstacle, `d` is the offset from the nearest point of the sweep in the blob's metric: the
//!   gradient of a minimum over the sweep is that at its minimiser), even where the ball term
//!   is the larger. On a bulk surface the two cross everywhere: the blob sum reaches the iso
//!   value near the outermost particles' centres, their balls a radius beyond, and the mesh,
//!   smoothed and given back its volume, lies beyond both (the blob sum is about half the iso
//!   value at its vertices). The gradient of the larger term then jumps from vertex to vertex
//!   (a jittered ball's normals were 42° off radial at the 95th percentile), while the blob
//!   sum's level sets out there are smooth (8.6°, and none beyond 19°, where the mesh's own
//!   vertex normals have a tail up to 84° at particles poking out). Lone drops and strands are
//!   round in the blob sum too (a lone blob is a ball; a strand's blobs are stretched along
//!   it);
//! - the ball term's, only where no blob reaches the vertex.
//!
//! Each vertex sums over its own region's kernels, exactly as the field did (the undecimated
//! field: decimation moves no vertex, it only drops some). Where the gradient vanishes (a
//! vertex deep inside a ball term's flat top, far outside every support) the mesh normal is
//! kept. Vertices are handled in groups sharing a cube of one kernel support, each group on one
//! thread with its candidates in a fixed order, so the result is the same bits at any thread
//! count.

use glam::Vec3;
use rayon::prelude::*;

use super::contact::Walls;
use super::field::{FieldParams, Kernel, BALL_SUPPORT};
use super::neighbours::ParticleGrid;

/// Minus the field's gradient at each vertex, normalised (`fallback[v]` where it vanishes or
/// is not finite). `kernels`, `kernel_region`, `links` and `walls` are what was polygonized;
/// `vertex_region` each vertex's region; `cell` the marching cubes' size.
#[allow(clippy::too_many_arguments)]
pub fn field_normals(
    vertices: &[Vec3],
    vertex_region: &[u32],
    kernels: &[Kernel],
    kernel_region: &[u32],
    links: &[(u32, u32)],
    params: &FieldParams,
    cell: f32,
    walls: Option<&Walls>,
    fallback: &[Vec3],
) -> Vec<Vec3> {
    if vertices.is_empty() || kernels.is_empty() {
        return fallback.to_vec();
    }
    let side = params.support;
    let b = BALL_SUPPORT * params.radius;
    let fine = side / SUBDIVISIONS as f32;

    // Vertices sorted by (region, cube of side `side`, sub-cube): candidates are gathered once
    // per cube, then narrowed per sub-cube.
    let mut keyed: Vec<(u32, [i32; 3], u16, u32)> = vertices
        .par_iter()
        .zip(vertex_region.par_iter())
        .enumerate()
        .map(|(v, (p, &g))| {
            let f = (*p / fine).floor().as_ivec3().to_array();
            let c = f.map(|v| v.div_euclid(SUBDIVISIONS));
            let s = f.map(|v| v.rem_euclid(SUBDIVISIONS));
            let sub = (s[2] * SUBDIVISIONS + s[1]) * SUBDIVISIONS + s[0];
            (g, [c[2], c[1], c[0]], sub as u16, v as u32)
        })
        .collect();
    keyed.par_sort_unstable();
    let runs = |same: &dyn Fn(usize) -> bool, from: usize, to: usize| {
        let mut starts = vec![from];
        starts.extend((from + 1..to).filter(|&k| !same(k)));
        starts.push(to);
        starts
    };
    let cubes = runs(
        &|k| (keyed[k].0, keyed[k].1) == (keyed[k - 1].0, keyed[k - 1].1),
        0,
        keyed.len(),
    );

    // How far from its centre a kernel's support (with its ball and sweep) or a link's capsule
    // (from its first end) reaches: every grid cell within that of a cube is scanned.
    let extent = |k: &Kernel| k.reach.max(Vec3::splat(b)) + k.sweep.abs();
    let kernel_reach = kernels
        .iter()
        .map(|k| extent(k).max_element())
        .fold(0.0f32, f32::max);
    let link_reach = links
        .iter()
        .map(|&(i, j)| {
            b + kernels[i as usize]
                .centre
                .distance(kernels[j as usize].centre)
        })
        .fold(0.0f32, f32::max);
    let scan = ((kernel_reach.max(link_reach) / side).ceil() as i32 + 1).min(64);
    let centres: Vec<Vec3> = kernels.iter().map(|k| k.centre).collect();
    let grid = ParticleGrid::with_regions(&centres, kernel_region, side);
    // Links by their first kernel (compressed rows, in link order).
    let mut link_offsets = vec![0u32; kernels.len() + 1];
    for &(i, _) in links {
        link_offsets[i as usize + 1] += 1;
    }
    for i in 0..kernels.len() {
        link_offsets[i + 1] += link_offsets[i];
    }
    let mut fill = link_offsets.clone();
    let mut links_of = vec![0u32; links.len()];
    for (l, &(i, _)) in links.iter().enumerate() {
        links_of[fill[i as usize] as usize] = l as u32;
        fill[i as usize] += 1;
    }
    // Vertices may sit a hair outside their cube after rounding: boxes get a small margin.
    let margin = 1e-3 * side;

    let per_cube: Vec<Vec<(u32, Vec3)>> = (0..cubes.len() - 1)
        .into_par_iter()
        .map(|c| {
            let (from, to) = (cubes[c], cubes[c + 1]);
            let (region, [cz, cy, cx], _, _) = keyed[from];
            let lo = Vec3::new(cx as f32, cy as f32, cz as f32) * side - margin;
            let hi = lo + Vec3::splat(side + 2.0 * margin);
            // (kernel, its support's box) and (link, its capsule's box) reaching the cube.
            let mut near = Vec::new();
            let mut near_links = Vec::new();
            grid.for_each_within_cells(0.5 * (lo + hi), scan, |i, p, g| {
                if g != region {
                    return;
                }
                let k = &kernels[i];
                let half = k.reach.max(Vec3::splat(b));
                let (k_lo, k_hi) = (p.min(p + k.sweep) - half, p.max(p + k.sweep) + half);
                if overlaps(k_lo, k_hi, lo, hi) {
                    near.push((i as u32, k_lo, k_hi));
                }
                for &l in &links_of[link_offsets[i] as usize..link_offsets[i + 1] as usize] {
                    let (a, e) = links[l as usize];
                    let (a, e) = (kernels[a as usize].centre, kernels[e as usize].centre);
                    let (l_lo, l_hi) = (a.min(e) - b, a.max(e) + b);
                    if overlaps(l_lo, l_hi, lo, hi) {
                        near_links.push((l, l_lo, l_hi));
                    }
                }
            });
            // A fixed order whatever the grid's visiting order.
            near.sort_unstable_by_key(|n| n.0);
            near_links.sort_unstable_by_key(|n| n.0);
            let subs = runs(&|k| keyed[k].2 == keyed[k - 1].2, from, to);
            let mut out = Vec::with_capacity(to - from);
            let (mut plain, mut swept, mut capsules) = (Vec::new(), Vec::new(), Vec::new());
            for w in subs.windows(2) {
                let sub = keyed[w[0]].2 as i32;
                let at = Vec3::new(
                    (sub % SUBDIVISIONS) as f32,
                    ((sub / SUBDIVISIONS) % SUBDIVISIONS) as f32,
                    (sub / (SUBDIVISIONS * SUBDIVISIONS)) as f32,
                );
                let s_lo = lo + margin + at * fine - margin;
                let s_hi = s_lo + Vec3::splat(fine + 2.0 * margin);
                plain.clear();
                swept.clear();
                capsules.clear();
                for &(i, k_lo, k_hi) in &near {
                    if overlaps(k_lo, k_hi, s_lo, s_hi) {
                        let k = kernels[i as usize];
                        if k.sweep == Vec3::ZERO {
                            plain.push(k);
                        } else {
                            swept.push(k);
                        }
                    }
                }
                for &(l, l_lo, l_hi) in &near_links {
                    if overlaps(l_lo, l_hi, s_lo, s_hi) {
                        let (i, j) = links[l as usize];
                        capsules.push((kernels[i as usize].centre, kernels[j as usize].centre));
                    }
                }
                let near = Near {
                    plain: &plain,
                    swept: &swept,
                    capsules: &capsules,
                };
                for &(_, _, _, v) in &keyed[w[0]..w[1]] {
                    let gradient = gradient_at(vertices[v as usize], &near, params, cell, walls);
                    let normal = (-gradient).normalize_or_zero();
                    let own = fallback[v as usize];
                    // A normal facing away from the facets would shade black; that happens only
                    // where the mesh and the field disagree about inside (a tiny interior
                    // shell turned inside out by the volume restoration).
                    let good = normal.is_finite() && normal.dot(own) > 0.0;
                    out.push((v, if good { normal } else { own }));
                }
            }
            out
        })
        .collect();
    let mut normals = fallback.to_vec();
    for (v, n) in per_cube.into_iter().flatten() {
        normals[v as usize] = n;
    }
    normals
}

/// Sub-cubes per cube side: vertices a particle radius apart share their candidates.
const SUBDIVISIONS: i32 = 4;

/// The kernels (split by kind, in index order) and link capsules that may reach a vertex.
struct Near<'a> {
    plain: &'a [Kernel],
    swept: &'a [Kernel],
    capsules: &'a [(Vec3, Vec3)],
}

fn overlaps(a_lo: Vec3, a_hi: Vec3, b_lo: Vec3, b_hi: Vec3) -> bool {
    a_lo.cmple(b_hi).all() && b_lo.cmple(a_hi).all()
}

/// The gradient of `f` at `x` (pointing into the liquid) as the module docs choose it.
fn gradient_at(
    x: Vec3,
    near: &Near,
    params: &FieldParams,
    cell: f32,
    walls: Option<&Walls>,
) -> Vec3 {
    let scale = 1.0 / params.surface_sum;
    let (rho, rho_gradient) = blob_sum(x, near);
    // On the contact face the clip is the smaller term: the obstacle's normal, inwards. (`clip`
    // looks only a cube far where the field is outside, as at most free-surface vertices.)
    if let Some(walls) = walls {
        let f = (rho * scale).max(ball_term(x, near, params).0) - 1.0;
        if walls.clip(f, x, params.radius, cell) < f {
            if let Some((_, _, n)) = walls.signed_distance(x) {
                return n / params.radius;
            }
        }
    }
    if rho > 0.0 {
        rho_gradient * scale
    } else {
        ball_term(x, near, params).1
    }
}

/// `rho(x)` and its gradient.
fn blob_sum(x: Vec3, near: &Near) -> (f32, Vec3) {
    let (mut rho, mut gradient) = (0.0f32, Vec3::ZERO);
    let mut add = |k: &Kernel, e: Vec3| {
        let m_e = k.metric(e);
        let v = (1.0 - e.dot(m_e)).max(0.0);
        rho += k.weight * v * v * v;
        gradient += (-6.0 * k.weight * v * v) * m_e;
    };
    for k in near.plain {
        add(k, x - k.centre);
    }
    // Swept blobs: the offset from the nearest point of the sweep in the blob's metric.
    for k in near.swept {
        let d = x - k.centre;
        let m_s = k.metric(k.sweep);
        let s_m_s = k.sweep.dot(m_s).max(f32::MIN_POSITIVE);
        add(k, d - k.sweep * (d.dot(m_s) / s_m_s).clamp(0.0, 1.0));
    }
    (rho, gradient)
}

/// The ball term (never below 0, as `field` starts it there) and its gradient: that of the
/// particle ball, swept capsule or link capsule giving the maximum.
fn ball_term(x: Vec3, near: &Near, params: &FieldParams) -> (f32, Vec3) {
    let b2 = (BALL_SUPPORT * params.radius).powi(2);
    let inv_ball = 1.0 / (b2 - params.radius * params.radius);
    let (mut ball, mut gradient) = (0.0f32, Vec3::ZERO);
    let mut candidate = |weight: f32, q: Vec3| {
        let value = weight * (b2 - q.length_squared()) * inv_ball;
        if value > ball {
            ball = value;
            gradient = (-2.0 * weight * inv_ball) * q;
        }
    };
    for k in near.plain {
        candidate(k.weight, x - k.centre);
    }
    for k in near.swept {
        let d = x - k.centre;
        let inv_s2 = 1.0 / k.sweep.length_squared().max(f32::MIN_POSITIVE);
        candidate(
            k.weight,
            d - k.sweep * (d.dot(k.sweep) * inv_s2).clamp(0.0, 1.0),
        );
    }
    for &(a, e) in near.capsules {
        let axis = e - a;
        let t = ((x - a).dot(axis) / axis.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
        candidate(1.0, x - (a + axis * t));
    }
    (ball, gradient)
}
