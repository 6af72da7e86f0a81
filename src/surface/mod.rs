//! Particles to a smooth, watertight triangle mesh per frame (Steele et al. 2004, "Rendering",
//! and what has been learnt since; see `/work/shared/PHYSICS_NOTES.md` §4).
//!
//! Pipeline of [`mesh_particles`]:
//! 1. regions: particles closer than `region_distance` (union-find over a grid) are meshed
//!    together; separate drops get separate surfaces that never fuse (`neighbours`);
//! 2. particle centres smoothed towards their neighbours (Yu & Turk), so the lattice's terraces
//!    and a particle sitting on a surface do not show (`centres`);
//! 3. each particle's blob shaped like its neighbourhood (Yu & Turk's anisotropic kernels):
//!    flat on a coat, long along a thread, a ball inside the liquid (`anisotropy`);
//! 4. contact: particles near an obstacle draw their blob down to it, and the field is cut off
//!    just above the obstacle's surface, so resting liquid touches what it rests on
//!    (`contact`; only with [`mesh_particles_touching`]);
//! 5. the implicit function: the sum of the blobs, plus a ball per particle and a capsule
//!    along each link in thin parts, so lone drops survive and strands stay connected;
//!    evaluated on a sparse grid of blocks near particles (`field`);
//! 6. marching cubes with a derived, watertight case table (`cases`, `polygonize`); then
//!    every inward-facing shell too small to hold a particle-free ball of radius 2 r is
//!    deleted, filling the phantom voids where the field dips between particles (`cavities`);
//! 7. feature-aware Laplacian smoothing (bulk surfaces smoothed, strands and drops kept) and
//!    per-region volume restoration to the liquid's volume N (2r)^3 (`smooth`);
//! 8. decimation: quadric-error edge collapses within `max_error` r of the smoothed surface, so
//!    flat coats lose most of their triangles and threads and drops keep theirs (`decimate`);
//! 9. vertex normals of the decimated mesh, colours and velocities averaged from the particles
//!    (`smooth::vertex_normals`, `attributes`).
//!
//! Normals come from the final mesh rather than from the paper's surface-particle normals
//! ([`surface_particles`]): they then agree with the silhouette that is rendered, and they
//! inherit the smoothing (particle normals follow the lattice's facets, 10-25° off).
//!
//! Everything is rayon-parallel with gather formulations and sorted stitching, so the output is
//! the same bits whatever the thread count.

mod anisotropy;
mod attributes;
pub mod bench;
mod caps;
mod cases;
pub mod cavities;
mod centres;
mod contact;
mod decimate;
mod field;
pub mod hausdorff;
mod march;
mod neighbours;
pub mod ply;
mod polygonize;
pub mod quality;
pub use decimate::MAX_SHADING_TURN_DEGREES;
mod smooth;
pub(crate) mod srgb;
pub mod surface_particles;

use glam::Vec3;
use serde::{Deserialize, Serialize};

pub use cavities::Pockets;
pub use contact::{ObstacleSurface, OFFSET as CONTACT_OFFSET};
pub use ply::{read_surface_ply, write_surface_ply};

/// The two artist-facing knobs, plus expert ones with good defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SurfaceSettings {
    /// Marching-cubes cube size in particle radii (smaller = finer mesh, slower, bigger files).
    /// 0.5 resolves a single particle with ~4 cubes across and keeps spheres round to 0.5%.
    pub resolution: f32,
    /// 0 = the raw particle field (bumpy), 1 = very smooth (bulk surfaces only; drops and thin
    /// strands are protected either way).
    pub smoothness: f32,
    /// Kernel support of the blob field, in particle radii (4 = splashsurf's smoothing length 2r).
    pub kernel_radius: f32,
    /// Fraction of the resting blob sum at which the surface lies.
    pub iso: f32,
    /// Particles closer than this (in particle radii, through chains) are one region.
    pub region_distance: f32,
    /// 0 = a ball per particle; 1 = each particle's blob shaped like its neighbourhood (Yu &
    /// Turk's anisotropic kernels: flat coats, round threads).
    pub anisotropy: f32,
    /// meshoptimizer's error target for decimation, in particle radii (0 = no decimation).
    /// Whatever it is, the result is checked to stay within 0.2 r of the undecimated surface.
    /// 0.02 (the default) keeps a jittered ball of 10 r round to 0.5% and takes most
    /// triangles off coats.
    pub max_error: f32,
}

impl Default for SurfaceSettings {
    fn default() -> Self {
        SurfaceSettings {
            resolution: 0.5,
            smoothness: 0.5,
            kernel_radius: 4.0,
            iso: 0.5,
            region_distance: 3.0,
            anisotropy: 1.0,
            // On the honey-drop demo: 16 times fewer triangles at frame 50, 8 at frame 150 (a
            // thin film on the ball), renders differing by a mean of 0.3/255 at frame 50. The
            // film's specks once decimated came from its contact face lying just above the
            // ball, which now lies inside it (`contact::OFFSET`), and from triangles the edge
            // collapses turned over, which `decimate` now refuses.
            max_error: 0.02,
        }
    }
}

impl SurfaceSettings {
    /// Settings clamped to ranges that always mesh (never panics on odd values from a UI).
    pub fn sanitised(&self) -> SurfaceSettings {
        let or = |v: f32, d: f32| if v.is_finite() { v } else { d };
        let d = SurfaceSettings::default();
        SurfaceSettings {
            resolution: or(self.resolution, d.resolution).clamp(0.1, 4.0),
            smoothness: or(self.smoothness, d.smoothness).clamp(0.0, 1.0),
            kernel_radius: or(self.kernel_radius, d.kernel_radius).clamp(2.5, 8.0),
            iso: or(self.iso, d.iso).clamp(0.05, 0.95),
            region_distance: or(self.region_distance, d.region_distance).clamp(2.0, 8.0),
            anisotropy: or(self.anisotropy, d.anisotropy).clamp(0.0, 1.0),
            max_error: or(self.max_error, d.max_error).clamp(0.0, 0.25),
        }
    }

    /// Mesh smoothing iterations: diffusing a bump of a given size away takes (size / cube
    /// size)^2 steps, so finer meshes need more for the same look.
    pub fn smoothing_iterations(&self) -> usize {
        let s = self.sanitised();
        (s.smoothness * 100.0 * (0.5 / s.resolution).powi(2)).round() as usize
    }

    /// Particle-centre smoothing passes (0 at smoothness 0, 2 by default, 4 at most).
    pub fn centre_passes(&self) -> usize {
        (self.sanitised().smoothness * 4.0).round() as usize
    }
}

/// A triangle mesh with per-vertex attributes, triangles counter-clockwise seen from outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurfaceMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// Linear RGB 0..1.
    pub colours: Vec<[f32; 3]>,
    /// m/s (for motion blur).
    pub velocities: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl SurfaceMesh {
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }
}

/// Meshes one frame of particles. `velocities` and `colours` may be shorter than `positions`
/// (missing or non-finite entries count as still and grey); particles with non-finite
/// coordinates are ignored.
pub fn mesh_particles(
    positions: &[Vec3],
    velocities: &[Vec3],
    colours: &[[f32; 3]],
    particle_radius: f32,
    settings: &SurfaceSettings,
) -> SurfaceMesh {
    mesh_particles_touching(
        positions,
        velocities,
        colours,
        particle_radius,
        settings,
        &[],
    )
}

/// [`mesh_particles`] for liquid in contact with `obstacles` (world-space surfaces at the
/// frame): where it rests on or clings to them, the mesh reaches their surface and never
/// passes through it.
pub fn mesh_particles_touching(
    positions: &[Vec3],
    velocities: &[Vec3],
    colours: &[[f32; 3]],
    particle_radius: f32,
    settings: &SurfaceSettings,
    obstacles: &[ObstacleSurface],
) -> SurfaceMesh {
    mesh_particles_timed(
        positions,
        velocities,
        colours,
        particle_radius,
        settings,
        obstacles,
    )
    .0
}

/// [`mesh_particles`], also returning the wall time of each stage (for `gloop bench`).
pub fn mesh_particles_timed(
    positions: &[Vec3],
    velocities: &[Vec3],
    colours: &[[f32; 3]],
    particle_radius: f32,
    settings: &SurfaceSettings,
    obstacles: &[ObstacleSurface],
) -> (SurfaceMesh, Vec<(&'static str, std::time::Duration)>) {
    let mut pockets = Pockets::default();
    mesh_frame(
        positions,
        velocities,
        colours,
        particle_radius,
        settings,
        obstacles,
        &mut pockets,
    )
}

/// The pipeline; `pockets` gets the frame's interior shells (found, kept).
fn mesh_frame(
    positions: &[Vec3],
    velocities: &[Vec3],
    colours: &[[f32; 3]],
    particle_radius: f32,
    settings: &SurfaceSettings,
    obstacles: &[ObstacleSurface],
    pockets: &mut Pockets,
) -> (SurfaceMesh, Vec<(&'static str, std::time::Duration)>) {
    let mut stages = Vec::new();
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str| {
        stages.push((name, clock.elapsed()));
        clock = std::time::Instant::now();
    };
    let s = settings.sanitised();
    if !(particle_radius.is_finite() && particle_radius > 0.0) {
        return (SurfaceMesh::default(), vec![]);
    }
    let r = particle_radius;
    let cell = s.resolution * r;
    // Keep finite particles whose grid coordinates fit comfortably in i32.
    let limit = 1.0e9 * cell;
    let kept: Vec<usize> = (0..positions.len())
        .filter(|&i| positions[i].is_finite() && positions[i].abs().max_element() < limit)
        .collect();
    let pos: Vec<Vec3> = kept.iter().map(|&i| positions[i]).collect();
    let vel: Vec<Vec3> = kept
        .iter()
        .map(|&i| velocities.get(i).copied().unwrap_or(Vec3::ZERO))
        .map(|v| if v.is_finite() { v } else { Vec3::ZERO })
        .collect();
    let col: Vec<[f32; 3]> = kept
        .iter()
        .map(|&i| colours.get(i).copied().unwrap_or([0.8; 3]))
        .map(|c| {
            if c.iter().all(|v| v.is_finite()) {
                c
            } else {
                [0.8; 3]
            }
        })
        .collect();
    if pos.is_empty() {
        return (SurfaceMesh::default(), vec![]);
    }

    let (region, region_count) = neighbours::regions(&pos, s.region_distance * r);
    lap("regions");
    let params = field::FieldParams::new(r, s.kernel_radius, s.iso);
    let smoothed = centres::smooth_centres(
        &pos,
        &region,
        params.support,
        field::rest_sum(s.kernel_radius),
        0.5,
        s.centre_passes(),
    );
    lap("centre smoothing");
    let link = s.region_distance * r;
    let smoothed_grid =
        neighbours::ParticleGrid::with_regions(&smoothed, &region, params.support.max(link) / 2.0);
    let fraction = neighbours::kernel_fractions(
        &smoothed_grid,
        &smoothed,
        params.support,
        field::rest_sum(s.kernel_radius),
    );
    let links = neighbours::thin_links(&smoothed_grid, &smoothed, &region, &fraction, link, 0.7);
    lap("thin links");
    let kernels = anisotropy::kernels(
        &smoothed_grid,
        &smoothed,
        &region,
        params.support,
        r,
        s.anisotropy,
    );
    lap("anisotropy");
    // Contact: blobs of particles near obstacles swept down to them, the field clipped there.
    let walls = contact::Walls::around(obstacles, &kernels, params.support, cell);
    let (mut kernels, mut kernel_region) = (kernels, region.clone());
    if let Some(walls) = &walls {
        let (copies, copy_region) = contact::wetted_copies(walls, &kernels, &region, r);
        kernels.extend(copies);
        kernel_region.extend(copy_region);
    }
    lap("contact");
    let mut raw = polygonize::polygonize(
        &kernels,
        &kernel_region,
        &links,
        &params,
        cell,
        walls.as_ref(),
    );
    lap("polygonize");
    *pockets = cavities::fill_phantom_voids(&mut raw, &pos, r, cell);
    lap("phantom voids");
    if raw.triangles.is_empty() {
        return (SurfaceMesh::default(), stages);
    }

    let mut vertices = raw.positions;
    if let Some(walls) = &walls {
        walls.sink(&mut vertices, r);
    }
    let adjacency = smooth::Adjacency::new(vertices.len(), &raw.triangles);
    lap("mesh adjacency");
    // How much liquid lies under each vertex, probed one particle diameter below it: a particle
    // sitting on a bulk surface then counts as bulk (smoothed away), while strands and lone drops
    // stay light (kept).
    let raw_normals = smooth::vertex_normals(&vertices, &raw.triangles, &adjacency);
    let probes: Vec<Vec3> = vertices
        .iter()
        .zip(&raw_normals)
        .map(|(x, n)| *x - 2.0 * r * *n)
        .collect();
    let bulk = attributes::vertex_bulk(
        &probes,
        &raw.region,
        &smoothed_grid,
        params.support,
        field::rest_sum(s.kernel_radius),
    );
    let mut weight: Vec<f32> = bulk.iter().map(|&b| smooth::smoothing_weight(b)).collect();
    if let Some(walls) = &walls {
        walls.weigh_rim(&vertices, &mut weight, r);
    }
    lap("smoothing weights");
    smooth::laplacian(&mut vertices, &adjacency, &weight, s.smoothing_iterations());
    lap("mesh smoothing");

    // Each region encloses its liquid's volume: particles on a lattice of spacing 2r.
    let mut target = vec![0.0f64; region_count];
    for &g in &region {
        target[g as usize] += (2.0 * r as f64).powi(3);
    }
    let restore = |vertices: &mut [Vec3],
                   triangles: &[[u32; 3]],
                   adjacency: &smooth::Adjacency,
                   region: &[u32],
                   along: Option<&[Vec3]>| {
        // Where the liquid touches an obstacle the mesh stays on it: only the free surface
        // moves. The mesh fills the gap the solver leaves between the particles and the
        // obstacle, which holds no liquid volume (see `contact::Walls::gap_volume`).
        let (fixed, target) = match &walls {
            Some(walls) => {
                let fixed = walls.touching(vertices, r, cell);
                let gap = walls.gap_volume(vertices, triangles, region, &fixed, target.len(), r);
                let target: Vec<f64> = target.iter().zip(&gap).map(|(t, g)| t + g).collect();
                (fixed, target)
            }
            None => (vec![false; vertices.len()], target.clone()),
        };
        smooth::restore_volume(
            vertices, triangles, adjacency, region, &fixed, &target, r, along,
        );
        if let Some(walls) = &walls {
            walls.lift(vertices, r);
        }
    };
    restore(&mut vertices, &raw.triangles, &adjacency, &raw.region, None);
    if let Some(walls) = &walls {
        walls.relax_rim(&mut vertices, &adjacency, contact::RIM_ITERATIONS, r);
    }
    lap("volume restoration");

    // Decimation keeps vertices where they are, so it cuts chords across curved surfaces (a
    // ball of 10 r loses 0.8% of its volume): a second restoration gives that back, moving the
    // surface by a small fraction of the decimation's own bound. Normals and attributes are
    // worked out for the kept vertices only, so the normals agree with the triangles rendered.
    let bounds = decimate::Bounds {
        max_error: s.max_error * r,
        // Issue 33's bound is 0.25 r from the undecimated surface; the sampled distance may
        // miss a little of the true one, and the second restoration moves it a little.
        max_distance: 0.2 * r,
        lock_radius: 2.0 * r,
        chunk: 16.0 * r,
    };
    // Colours and velocities before decimation, so that it keeps where paints blend.
    let grid = neighbours::ParticleGrid::with_regions(&pos, &region, params.support / 2.0);
    let attributes =
        attributes::vertex_attributes(&vertices, &raw.region, &vel, &col, &grid, params.support);
    lap("colours, velocities");
    // The smoothed surface's normals: no decimated triangle may face against them, and the
    // restoration after decimation moves the kept vertices along them. (Along the decimated
    // mesh's own normals, which differ between the corners of a thin triangle by tens of
    // degrees, it turned a few such triangles over on the honey-drop film.)
    let surface_normals = smooth::vertex_normals(&vertices, &raw.triangles, &adjacency);
    // On glass the contact face stays outside, a film of air: its vertices are kept so that
    // no chord crosses the glass (see `contact`).
    let keep = match &walls {
        Some(walls) => walls.touching_transparent(&vertices, r, cell),
        None => vec![false; vertices.len()],
    };
    let mut slim = decimate::decimate(
        &vertices,
        &surface_normals,
        &attributes.colours,
        &raw.triangles,
        &keep,
        &bounds,
    );
    let keep = |all: &[Vec3]| -> Vec<Vec3> { slim.kept.iter().map(|&v| all[v as usize]).collect() };
    let mut vertices = keep(&vertices);
    // Decimation leaves caps (a corner of ~180°), which Blender's angle-weighted normals
    // show as flecks: flipped away, no vertex moved. Marching cubes and the smoothing make
    // none a render shows (no vertex turned 30° undecimated on the Quick Honey fixture), and
    // the undecimated mesh is the large one, so only a decimated mesh is looked at.
    if bounds.max_error > 0.0 {
        caps::flip_caps(&vertices, &mut slim.triangles);
    }
    let slim_region: Vec<u32> = slim.kept.iter().map(|&v| raw.region[v as usize]).collect();
    lap("decimation");
    let adjacency = smooth::Adjacency::new(vertices.len(), &slim.triangles);
    let slim_normals = keep(&surface_normals);
    restore(
        &mut vertices,
        &slim.triangles,
        &adjacency,
        &slim_region,
        Some(&slim_normals),
    );
    lap("volume restoration after decimation");

    let normals = smooth::vertex_normals(&vertices, &slim.triangles, &adjacency);
    lap("normals");
    let colours = slim
        .kept
        .iter()
        .map(|&v| attributes.colours[v as usize])
        .collect();
    let velocities = keep(&attributes.velocities);
    let mesh = SurfaceMesh {
        positions: vertices,
        normals,
        colours,
        velocities,
        triangles: slim.triangles,
    };
    (mesh, stages)
}

/// [`mesh_particles_touching`] for a frame of the simulation (what the bake and `gloop mesh`
/// call), with the obstacles as they stand at that frame.
pub fn mesh_liquid(
    liquid: &crate::sim::LiquidParticles,
    particle_radius: f32,
    settings: &SurfaceSettings,
    obstacles: &[ObstacleSurface],
) -> SurfaceMesh {
    mesh_liquid_counted(liquid, particle_radius, settings, obstacles).0
}

/// [`mesh_liquid`], also telling how many interior shells the frame had and kept (for the
/// cache's frame records, see [`cavities`]).
pub fn mesh_liquid_counted(
    liquid: &crate::sim::LiquidParticles,
    particle_radius: f32,
    settings: &SurfaceSettings,
    obstacles: &[ObstacleSurface],
) -> (SurfaceMesh, Pockets) {
    let mut pockets = Pockets::default();
    let (mesh, _) = mesh_frame(
        &liquid.position,
        &liquid.velocity,
        &liquid.colour,
        particle_radius,
        settings,
        obstacles,
        &mut pockets,
    );
    (mesh, pockets)
}
