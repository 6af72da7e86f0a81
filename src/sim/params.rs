//! Constants derived once from the scene: kernels, rest density, the adhesion matrix in
//! metres, per-liquid mass and viscous exchange rate.

use glam::Vec3;

use super::kernels::{self, DensityKernel, ViscosityKernel};
use super::neighbours::Space;
use crate::geometry::OBJECT_PARTICLE_RADIUS_FACTOR;
use crate::scene::{AdhesionMatrix, Scene};

/// Extra reach of neighbour lists, in particle radii, so they stay valid while particles move
/// a little within a substep (patched for the particles that move more). Every sweep over
/// the 4r forces and density visits the skin's pairs for nothing: 1 r meant 5 r lists, half
/// of their pairs out of reach; 0.5 r visits 27% fewer pairs and measured 9% faster on the
/// honey drop with 17% less memory (`gloop bench`), the extra patching costing less.
/// Wider, 0.75 r, on a 100k honey block dropped on a plate, whose density passes rebuild the
/// near lists about three times a substep (`examples/honey_drop_bench.rs 50 50 40 5`): 3.29
/// → 3.40 s per frame; the rebuilds' share fell (24% → 20%) by less than the longer lists
/// cost every pass. Narrower again once the full search was 2.4 times faster (its kept
/// points stored at once, `neighbours::cell_grid::full_search`), 0.4 r and 0.35 r: a 30k
/// honey block 4.91/4.80 s of CPU at 0.5 r, 4.95/4.91 and 4.91/4.91 s at those, the honey
/// drop's 10 frames 2.19/2.21, 2.22/2.21 and 2.23/2.20 s: within noise.
pub const SKIN_RADII: f32 = 0.5;

/// The skin of the moves' contact lists, in particle radii: wider than the other lists',
/// because what it costs and saves is the other way round. The contacts are few (pairs
/// within 2r) and read once per move, while keeping them was a rebuild or patch whenever a
/// few particles had moved a quarter radius, which happens within a move or two of an
/// impact: at 0.5 r their upkeep was 11% of the honey drop's time (0.23 s of frames 2-13),
/// at 1 r 5% (0.10 s), the interpenetration's extra pairs costing 0.01 s. Whole frames 2-13,
/// one run each: 2.22 s at 0.5 r, 2.03 at 1 r, 2.02 at 1.5 r (whose extra pairs then cost
/// what its rarer upkeep saves). (The near lists' skin is no lever there: at 0.4 r and 0.7 r
/// the honey drop measured within 2% of 0.5 r.)
///
/// No skin helps the fan after its impact, where the contacts are rebuilt at nearly every
/// move (their upkeep took 1.8 s of its frames 2-7's 16.8): the gel falling through the blades
/// moves radii per move against the gel resting on them, and the movers are measured
/// against the mean motion of all the liquid, so nearly all of it counts as moving. A
/// reference motion per region of the liquid rather than one for all would be the fix.
pub const CONTACT_SKIN_RADII: f32 = 1.0;

/// The value every one of `values` has, when they are all the same (most scenes have one
/// liquid, or paints of one density and viscosity): a per-particle lookup by material can
/// then be skipped.
pub(super) fn shared_value<'a, T: PartialEq + 'a>(
    values: impl IntoIterator<Item = &'a T>,
) -> Option<&'a T> {
    let mut values = values.into_iter();
    let first = values.next()?;
    values.all(|v| v == first).then_some(first)
}

/// Largest stable explicit exchange per substep (PHYSICS_NOTES §1.3: v·dt < 0.92 keeps signs).
pub const CLASSIC_EXCHANGE_CEILING: f32 = 0.9;

pub struct Params {
    pub radius: f32,
    pub gravity: Vec3,
    /// Frames per second (a frame's substeps share its 1/fps).
    pub fps: f32,
    /// The current frame's substep duration: 1/(fps · substeps), the substeps chosen for the
    /// frame (`set_substeps`, `sim::adaptive`). Starts at the scene's minimum.
    pub dt: f32,
    pub moves: u32,
    pub space: Space,
    pub viscosity_kernel: ViscosityKernel,
    pub density_kernel: DensityKernel,
    pub rest_density: f32,
    pub adhesion: AdhesionMatrix,
    /// Reach of liquid–liquid forces (adhesion and viscosity), metres.
    pub force_reach: f32,
    /// Reach of liquid–object forces and contacts, metres.
    pub object_reach: f32,
    /// Liquid–liquid contact distance (2r, the lattice spacing).
    pub liquid_contact: f32,
    /// Liquid–object contact distance (r + object particle radius).
    pub object_contact: f32,
    /// Skin of the near and object lists (`SKIN_RADII`).
    pub skin: f32,
    /// Skin of the moves' contact lists (`CONTACT_SKIN_RADII`).
    pub contact_skin: f32,
    /// Mass of one particle of each liquid, kg.
    pub liquid_mass: Vec<f32>,
    /// Steele's exchange rate v (1/s) each liquid's viscosity asks for.
    pub exchange_wanted: Vec<f32>,
    /// Steele's exchange rate v (1/s) of each liquid, after the stability ceiling at `dt`.
    pub exchange_rate: Vec<f32>,
    /// Share of each liquid's requested viscosity that Steele's explicit exchange gives at
    /// this resolution and time step: 1 unless the exchange was capped at its ceiling.
    pub exchange_achieved: Vec<f32>,
    /// Friction of each adhesion-matrix entry that is a solid: fraction lost per 1/30 s.
    pub friction: Vec<f32>,
    pub density_tolerance: f32,
    pub elastic_coefficient: f32,
    pub max_density_iterations: u32,
    /// The density passes after which a correction is in its tail: it lifts the liquid once
    /// and takes more momentum (`density::TAIL_AFTER_PASSES`; tests set `u32::MAX` to
    /// measure what that saves).
    pub density_tail_after: u32,
    /// The passes after which a correction still far from its tolerance enters its tail
    /// early (`density::EARLY_TAIL_AFTER_PASSES`; `u32::MAX` in tests that measure without).
    pub density_early_tail_after: u32,
}

/// The classic exchange rate of each liquid at substep `dt`, capped at the stability ceiling,
/// and the share of the wanted rate that leaves.
fn classic_exchange(wanted: &[f32], dt: f32) -> (Vec<f32>, Vec<f32>) {
    let ceiling = CLASSIC_EXCHANGE_CEILING / dt;
    let rate = wanted.iter().map(|w| w.min(ceiling)).collect();
    let achieved = wanted.iter().map(|w| (ceiling / w).min(1.0)).collect();
    (rate, achieved)
}

impl Params {
    /// Sets the substep count of the coming frame, and with it `dt` and what depends on it
    /// (the classic exchange's ceiling). Bit-identical to `new` when `substeps` is the
    /// scene's own.
    pub fn set_substeps(&mut self, substeps: u32) {
        self.dt = 1.0 / (self.fps * substeps as f32);
        (self.exchange_rate, self.exchange_achieved) =
            classic_exchange(&self.exchange_wanted, self.dt);
    }

    pub fn new(scene: &Scene) -> Result<Self, String> {
        let s = &scene.settings;
        let r = s.particle_radius;
        let dt = s.substep_dt(s.substeps);
        let viscosity_kernel = ViscosityKernel::new(r);
        let density_kernel = DensityKernel::new(r);
        let adhesion = AdhesionMatrix::from_materials(&scene.materials)?;
        let mean_d2 = kernels::lattice_mean_square_distance(&viscosity_kernel, r);
        // Steele's exchange rate for each liquid's kinematic viscosity, and the most the
        // explicit exchange can take in one substep.
        let wanted: Vec<f32> = scene
            .materials
            .liquids
            .iter()
            .map(|l| 6.0 * (l.viscosity / l.density) / mean_d2)
            .collect();
        let (exchange_rate, exchange_achieved) = classic_exchange(&wanted, dt);
        let nl = scene.materials.liquids.len();
        let mut friction = vec![0.0; adhesion.size];
        for (k, solid) in scene.materials.solids.iter().enumerate() {
            friction[nl + k] = solid.friction;
        }
        let object_contact = r * (1.0 + OBJECT_PARTICLE_RADIUS_FACTOR);
        let liquid_support = (0..nl)
            .flat_map(|a| (0..nl).map(move |b| (a, b)))
            .map(|(a, b)| adhesion.get(a, b).support())
            .fold(0.0f32, f32::max);
        let solid_support = (0..nl)
            .flat_map(|a| (nl..adhesion.size).map(move |b| (a, b)))
            .map(|(a, b)| adhesion.get(a, b).support())
            .fold(0.0f32, f32::max);
        Ok(Params {
            radius: r,
            gravity: s.gravity,
            fps: s.fps,
            dt,
            moves: s.moves,
            space: Space::new(&s.domain),
            viscosity_kernel,
            density_kernel,
            rest_density: kernels::rest_density(&density_kernel, r),
            force_reach: r * liquid_support
                .max(kernels::VISCOSITY_SUPPORT_RADII)
                .max(kernels::DENSITY_SUPPORT_RADII),
            object_reach: (r * solid_support).max(object_contact),
            liquid_contact: 2.0 * r,
            object_contact,
            skin: SKIN_RADII * r,
            contact_skin: CONTACT_SKIN_RADII * r,
            liquid_mass: scene
                .materials
                .liquids
                .iter()
                .map(|l| l.density * (2.0 * r).powi(3))
                .collect(),
            exchange_wanted: wanted,
            exchange_rate,
            exchange_achieved,
            adhesion,
            friction,
            density_tolerance: s.density_tolerance,
            elastic_coefficient: s.elastic_coefficient,
            max_density_iterations: s.max_density_iterations,
            density_tail_after: super::density::TAIL_AFTER_PASSES,
            density_early_tail_after: super::density::EARLY_TAIL_AFTER_PASSES,
        })
    }
}
