//! The bounds every number of a scene is held to (`validate`), and the work the particle
//! makers may do for a given cap. A scene file can hold any value of its types; these keep a
//! valid scene within what the solver can do in finite time and memory, so that no file, mended
//! or mangled, panics, aborts on an allocation or runs away (issue 35).

/// The largest `max_particles` a scene may set. Particles are numbered in u32 (the neighbour
/// grids' order), and at the solver's few hundred bytes a particle a billion of them already
/// asks for hundreds of gigabytes.
pub const MAX_PARTICLES_LIMIT: u64 = 1_000_000_000;

/// Liquid and solid materials together. Materials are numbered in u16 and the adhesion matrix
/// holds one function per pair: 6,000 liquids once asked for 2.5 GB of matrix before the
/// scene was refused. Blender scenes use a handful.
pub const MAX_MATERIALS: usize = 256;

/// Particle radius, metres: from a micron to ten metres. Outside it the solver's single
/// precision (kernel values scale with r⁻³) and any sensible particle count end.
pub const MIN_RADIUS: f32 = 1e-6;
pub const MAX_RADIUS: f32 = 10.0;

/// Frames per second. Blender's own range ends at 32,767 (fps / fps_base can go further, but
/// not meaningfully).
pub const MAX_FPS: f32 = 32_767.0;

/// Passes of the density correction per substep (the default is 100).
pub const MAX_DENSITY_ITERATIONS: u32 = 10_000;

/// The domain may reach this many particle radii from the origin on any axis: at 2²⁰ r a
/// position's single-precision step is r/8, and beyond it positions round too coarsely for
/// the kernels to see the lattice.
pub const MAX_DOMAIN_RADII: f32 = 1_048_576.0;

/// A periodic axis must be at least this many radii long: minimum-image distances need the
/// period to exceed twice the neighbour reach, 5 r (the viscometer's 12 r box does).
pub const MIN_PERIOD_RADII: f32 = 10.0;

/// Largest magnitude of gravity, m/s² (a thousand g).
pub const MAX_GRAVITY: f32 = 1e4;

/// Largest speed of an initial velocity or an emission, m/s.
pub const MAX_SPEED: f32 = 1e4;

/// Liquid density, kg/m³: from a gas-like 1e-3 to above osmium.
pub const MIN_DENSITY: f32 = 1e-3;
pub const MAX_DENSITY: f32 = 1e5;

/// Dynamic viscosity, Pa·s: pitch is about 2e8.
pub const MAX_VISCOSITY: f32 = 1e10;

/// Magnitude of cohesion, stickiness and adhesion function values (the presets stay below 10).
pub const MAX_ADHESION: f32 = 1e4;

/// Magnitude of a colour channel (linear, so above 1 is allowed).
pub const MAX_COLOUR: f32 = 1e4;

/// Points of one adhesion function.
pub const MAX_ADHESION_POINTS: usize = 64;

/// Ray tests (triangle × lattice row) a liquid's fill may run: 16 bytes each if they hit, so a
/// fixed allowance plus four per particle the cap allows.
pub fn max_fill_row_tests(max_particles: u64) -> u64 {
    (1 << 24) + 4 * max_particles
}

/// Candidates a surface sampling may test (obstacles, emitter nozzles): a fixed allowance plus
/// 32 per particle the cap allows (a plain surface tests about 16 per sample it keeps).
pub fn max_sampling_candidates(max_particles: u64) -> u64 {
    (1 << 24) + 32 * max_particles
}
