//! `flat-coat`: a honey layer 4 r thick (two particle layers) settled on a plane must mesh as a
//! flat sheet lying on it (issue 33). Away from the layer's edges:
//! - the top's RMS height deviation is at most 0.05 r and its normals (interpolated at the
//!   sampled points, as rendered) are within 2° RMS of vertical;
//! - the bottom lies within 0.25 r of the plane, and no part of the mesh is deeper below the
//!   plane than the contact face's offset into opaque obstacles (`surface::CONTACT_OFFSET`).
//!
//! The layer is simulated, not constructed: a block of liquid lattice two cells high, 64 r
//! square, placed at contact distance on the steel floor of a tank, settles for 48 frames (2 s)
//! with the real solver (about 7 s of work), so the particles carry the disorder and
//! compression a real coat has. The tank's walls keep it from spreading: on an open plane
//! honey (19 Pa·s) is still spreading after a second, its top domed and rippled by 0.2 r RMS
//! with a slumping rim 10 r wide, which would judge the flow's progress rather than the
//! mesher. The walls' meniscus is left out with them: the judged patch is 12 r in from the
//! walls, sampled by vertical rays r apart.
//!
//! The plane is the floor's top, found among the obstacles' world-space triangles under the
//! layer's middle; they are kept so that meshing with obstacle contact is a one-line change
//! once the mesher takes them.

use std::sync::atomic::AtomicBool;

use super::layer;
use super::scenes::liquid_in_tank;
use super::Check;
use glam::Vec3;

use crate::scene::presets;
use crate::surface::{mesh_liquid, ObstacleSurface, SurfaceMesh, SurfaceSettings};
use crate::Simulation;

/// Particle radius of the scene (m).
pub const RADIUS: f32 = 0.004;
/// Frames (at 24 fps) the layer settles before it is meshed.
pub const SETTLE_FRAMES: u32 = 48;
/// The layer's extent in lattice cells (2r): 64 r square, 4 r thick.
pub const CELLS: [u32; 3] = [32, 32, 2];
/// How far in from the walls the layer is judged, in particle radii.
pub const EDGE: f32 = 12.0;

/// What one settled layer measured, lengths in particle radii.
#[derive(Clone, Debug)]
pub struct CoatFigures {
    pub particles: usize,
    pub shape: layer::LayerShape,
    /// The whole mesh's lowest vertex relative to the plane (negative: through it).
    pub lowest_vertex: f64,
    /// The plane's height (m).
    pub plane: f64,
    pub radius: f32,
}

/// The highest obstacle surface crossed by the vertical line through (x, y) below `below`.
fn surface_under(obstacles: &[ObstacleSurface], x: f32, y: f32, below: f32) -> Option<f32> {
    obstacles
        .iter()
        .flat_map(|o| {
            let mesh = SurfaceMesh {
                positions: o.vertices.clone(),
                triangles: o.triangles.clone(),
                ..SurfaceMesh::default()
            };
            layer::vertical_crossings(&mesh, x, y)
        })
        .map(|c| c.z)
        .filter(|&z| z < below)
        .max_by(f32::total_cmp)
}

/// Settles a layer of `cells` lattice cells in a tank for `settle` frames, meshes it, and
/// measures it `edge` particle radii in from the walls.
pub fn measure(radius: f32, cells: [u32; 3], settle: u32, edge: f32) -> crate::Result<CoatFigures> {
    let scene = liquid_in_tank(radius, cells, presets::honey(), settle as i32 + 2);
    let mut sim = Simulation::new(&scene)?;
    let cancel = AtomicBool::new(false);
    for _ in 0..settle {
        sim.step_frame(&cancel)?;
    }
    let obstacles = ObstacleSurface::of_scene(&scene, scene.settings.frame_start + settle as i32);
    // The block starts at the origin (the tank's inner corner).
    let size = Vec3::new(cells[0] as f32, cells[1] as f32, 0.0) * 2.0 * radius;
    let lowest_particle = sim
        .liquid()
        .position
        .iter()
        .map(|p| p.z)
        .fold(f32::INFINITY, f32::min);
    let plane = surface_under(&obstacles, size.x / 2.0, size.y / 2.0, lowest_particle)
        .ok_or_else(|| crate::GloopError::Other("flat-coat: no floor under the layer".into()))?;
    let settings = SurfaceSettings::default();
    let mesh = mesh_liquid(sim.liquid(), radius, &settings, &obstacles);
    let positions = &sim.liquid().position;
    let edge = edge * radius;
    let points = layer::grid_points((edge, edge), (size.x - edge, size.y - edge), radius);
    let shape = layer::measure(&mesh, plane, &points);
    let lowest = mesh
        .positions
        .iter()
        .map(|p| p.z)
        .fold(f32::INFINITY, f32::min);
    Ok(CoatFigures {
        particles: positions.len(),
        shape,
        lowest_vertex: (lowest - plane) as f64,
        plane: plane as f64,
        radius,
    })
}

pub fn checks(f: &CoatFigures) -> Vec<Check> {
    let r = f.radius as f64;
    let s = &f.shape;
    vec![
        Check::info("particles", f.particles as f64),
        Check::info("rays sampled, r apart, away from the walls", s.rays as f64),
        Check::at_most("rays finding no liquid (holes)", s.misses as f64, 0.0),
        Check::at_most("top: RMS height deviation (r)", s.top_rms_height / r, 0.05),
        Check::at_most(
            "top: RMS normal angle from vertical (deg)",
            s.top_normal_rms_deg,
            2.0,
        ),
        Check::at_most(
            "bottom: largest height above the plane (r)",
            s.worst_bottom_gap / r,
            0.25,
        ),
        Check::at_least(
            "mesh's lowest point above the plane (r)",
            f.lowest_vertex / r,
            // The floor is opaque steel: the contact face lies inside it by the offset.
            -crate::surface::CONTACT_OFFSET as f64 - 1e-4,
        ),
        Check::info(
            "bottom: RMS height above the plane (r)",
            s.rms_bottom_gap / r,
        ),
        Check::info(
            "mean height of the top above the plane (r)",
            (s.mean_top - f.plane) / r,
        ),
    ]
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(checks(&measure(RADIUS, CELLS, SETTLE_FRAMES, EDGE)?))
}
