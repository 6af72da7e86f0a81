//! `honey-pour`: honey poured from a round nozzle onto a plate falls as one straight, even
//! rope and coils where it lands.
//!
//! Set-up (issue 32): honey (19 Pa·s, 1420 kg/m³) leaves a downward nozzle of radius 4 mm at
//! 10 mL/s, 6 cm above a no-slip plate, for 3 s. Judged:
//! - (a) the stream is one connected piece from nozzle to pile in every frame after the first
//!   touchdown: particles closer than 3r are connected, and the particle nearest the nozzle is
//!   connected to one on the plate;
//! - (b) the rope coils: over the last 2 s its touchdown point circles the axis at least 3
//!   turns in one sense (net angle ≥ 0.8 of the angle travelled), at a radius between 2r and
//!   2 (νQ/g)^¼;
//! - (c) the particles emitted are the flow times the time, to within one;
//! - (d) the upper half of the fall is straight and even: the rope's centre within 0.25 of its
//!   radius of the axis (the median over the judged frames; the worst is printed), and the
//!   particle count per slice 4r high varying by at most 12% about a straight-line fit along
//!   the fall (a thread that speeds up as it falls tapers, and that taper is not unevenness;
//!   DECISIONS.md, 2026-11-28);
//! - (e) the mesh of the upper half of the fall (below the nozzle's cap) is a smooth cylinder
//!   (issue 33): its cross-section area, every r/4 along the fitted axis, varies by at most
//!   10%, and its RMS deviation from the best-fit cylinder is at most 5% of that cylinder's
//!   radius, in each of four frames 0.5 s apart over the last 2 s (`cylinder`).
//!
//! The touchdown point is where the falling rope meets the pile: going down the rope in slices
//! 4r high, the centroid of the last slice before one holding more than twice the rope's
//! radius (from its count) or nothing, the rope's radius being the median over the top third
//! of the fall. Its angle about the axis is followed frame to frame.

use std::f64::consts::{PI, TAU};
use std::sync::atomic::AtomicBool;

use glam::{IVec3, Vec3};
use rustc_hash::FxHashMap;

use super::Check;
use crate::demos::honey_pour as pour;
use crate::scene::{Motion, Role, Scene};
use crate::sim::FrameStats;
use crate::Simulation;

/// What one pour measured.
#[derive(Clone, Debug, Default)]
pub struct PourFigures {
    pub radius: f32,
    pub fps: f32,
    pub frames: usize,
    /// Frames after the first touchdown in which the stream was not one piece.
    pub broken_frames: usize,
    pub frames_judged_connected: usize,
    /// Net and travelled angle of the touchdown point over the last 2 s, radians.
    pub net_angle: f64,
    pub travelled_angle: f64,
    /// Mean distance of the touchdown point from the axis over the last 2 s, metres.
    pub coil_radius: f64,
    /// Mean radius of the rope at touchdown, metres.
    pub touchdown_rope_radius: f64,
    /// Mean height of the touchdown point above the plate, metres.
    pub touchdown_height: f64,
    /// Median over the judged frames of the worst distance of the upper rope's centre from
    /// the axis, in rope radii, and the worst frame's.
    pub upper_wobble: f64,
    pub upper_wobble_worst: f64,
    /// Worst coefficient of variation of the upper rope's particles per slice about their
    /// straight-line fit along the fall.
    pub upper_count_variation: f64,
    /// Worst coefficient of variation of the meshed upper rope's cross-section area, and worst
    /// RMS deviation of it from its best-fit cylinder in that cylinder's radii, over the
    /// meshed frames.
    pub rope_mesh_area_variation: f64,
    pub rope_mesh_deviation: f64,
    /// Worst RMS of the meshed upper rope's sections off their own circles, in radii: the
    /// mesh's lumps without the rope's swing and taper.
    pub rope_mesh_section_roundness: f64,
    /// Frames whose rope was meshed, and of those, the ones with no mesh along the stretch.
    pub rope_meshes: usize,
    pub rope_meshes_missing: usize,
    pub emitted: usize,
    pub expected_emitted: f64,
    pub mean_substeps: f64,
    /// The nozzle's exit height above the plate (m) and its flow (m³/s), from the scene.
    pub nozzle_height: f32,
    pub flow: f32,
    /// How long the touchdown point was followed (s): the last 2 s, or less of a shorter pour.
    pub watched_seconds: f64,
}

/// The pour's nozzle height above the plate and its flow, from `scene`'s first emitter (the
/// demo's when the scene has none).
fn nozzle_of(scene: &Scene) -> (f32, f32) {
    scene
        .objects
        .iter()
        .find_map(|o| match (&o.role, &o.motion) {
            (Role::Emitter { emission, .. }, Motion::Static { matrix }) => Some((
                matrix.w_axis.z - pour::PLATE_TOP,
                emission.flow.unwrap_or(pour::FLOW),
            )),
            _ => None,
        })
        .unwrap_or((pour::NOZZLE_HEIGHT, pour::FLOW))
}

/// Where the touchdown point is in one frame, and how the upper rope looks.
struct FrameShape {
    touchdown: Option<(f64, f64)>,
    touchdown_rope_radius: f64,
    /// Height of the touchdown slice's middle above the plate.
    touchdown_height: f64,
    upper_wobble: f64,
    upper_count_variation: f64,
    /// The falling rope's radius (from the counts, the median over the top third of the fall)
    /// and the height where the upper half of the fall ends.
    rope_radius: f64,
    upper_bottom: f64,
}

/// One slice of the rope, 4r high: how many particles it holds and their centroid's x and y.
#[derive(Clone, Copy, Default)]
struct Slice {
    count: usize,
    x: f64,
    y: f64,
}

/// Where the slices start: at the first particle centres, a radius below the nozzle's exit
/// (`nozzle`, its height above the plate).
fn slices_top(nozzle: f32, r: f32) -> f32 {
    nozzle - r
}

/// The rope's slices, 4r high from `slices_top` down to the plate.
fn slices(positions: &[Vec3], nozzle: f32, r: f32) -> Vec<Slice> {
    let height = 4.0 * r;
    let top = slices_top(nozzle, r);
    let mut slices = vec![Slice::default(); (top / height).ceil() as usize];
    for p in positions {
        let k = ((top - p.z) / height).floor();
        if k >= 0.0 && (k as usize) < slices.len() {
            let s = &mut slices[k as usize];
            s.count += 1;
            s.x += p.x as f64;
            s.y += p.y as f64;
        }
    }
    for s in slices.iter_mut().filter(|s| s.count > 0) {
        s.x /= s.count as f64;
        s.y /= s.count as f64;
    }
    slices
}

/// A rope slice's radius from its count: count × (2r)³ = π a² × 4r.
fn rope_radius(count: usize, r: f32) -> f64 {
    (2.0 * count as f64 * (r as f64).powi(2) / PI).sqrt()
}

fn frame_shape(positions: &[Vec3], nozzle: f32, r: f32) -> FrameShape {
    let slices = slices(positions, nozzle, r);
    let radii: Vec<f64> = slices.iter().map(|s| rope_radius(s.count, r)).collect();
    // The falling rope's radius: the median over the top third of the fall, where no pile
    // reaches.
    let mut top_third: Vec<f64> = radii[..slices.len() / 3]
        .iter()
        .copied()
        .filter(|&a| a > 0.0)
        .collect();
    top_third.sort_by(f64::total_cmp);
    let rope = top_third.get(top_third.len() / 2).copied().unwrap_or(0.0);
    // The rope ends where a slice is empty or twice as wide as the rope: the pile.
    let rope_end = (0..slices.len())
        .position(|k| slices[k].count == 0 || radii[k] > 2.0 * rope)
        .unwrap_or(slices.len());
    let last = rope_end.checked_sub(1);
    let top = slices_top(nozzle, r) as f64;
    let touchdown_height = last.map_or(top, |k| top - (k as f64 + 0.5) * 4.0 * r as f64);
    // The upper half of the fall: nozzle to midway to the pile.
    let upper = &slices[..rope_end / 2];
    let mut upper_wobble = 0.0f64;
    for s in upper.iter().filter(|s| s.count > 0) {
        upper_wobble = upper_wobble.max((s.x * s.x + s.y * s.y).sqrt() / rope_radius(s.count, r));
    }
    let counts: Vec<f64> = upper.iter().map(|s| s.count as f64).collect();
    let mean = counts.iter().sum::<f64>() / counts.len().max(1) as f64;
    let residual_rms = detrended_rms(&counts);
    FrameShape {
        touchdown: last.map(|k| (slices[k].x, slices[k].y)),
        touchdown_rope_radius: last.map_or(0.0, |k| radii[k]),
        touchdown_height,
        upper_wobble,
        upper_count_variation: if mean > 0.0 { residual_rms / mean } else { 0.0 },
        rope_radius: rope,
        upper_bottom: top - (rope_end / 2) as f64 * 4.0 * r as f64,
    }
}

/// RMS of `values` about their least-squares straight line over their index.
fn detrended_rms(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    if values.len() < 2 {
        return 0.0;
    }
    let mean_k = (n - 1.0) / 2.0;
    let mean_v = values.iter().sum::<f64>() / n;
    let (mut kv, mut kk) = (0.0, 0.0);
    for (k, v) in values.iter().enumerate() {
        kv += (k as f64 - mean_k) * (v - mean_v);
        kk += (k as f64 - mean_k).powi(2);
    }
    let slope = kv / kk;
    let squares: f64 = values
        .iter()
        .enumerate()
        .map(|(k, v)| (v - mean_v - slope * (k as f64 - mean_k)).powi(2))
        .sum();
    (squares / n).sqrt()
}

/// Whether the particle nearest the nozzle is linked to one on the plate through particles
/// closer than 3r to each other.
pub fn nozzle_linked_to_plate(positions: &[Vec3], r: f32) -> bool {
    let link = 3.0 * r;
    let cell = |p: Vec3| (p / link).floor().as_ivec3();
    let mut grid: FxHashMap<IVec3, Vec<u32>> = FxHashMap::default();
    for (i, p) in positions.iter().enumerate() {
        grid.entry(cell(*p)).or_default().push(i as u32);
    }
    let Some(start) =
        (0..positions.len()).max_by(|&a, &b| positions[a].z.total_cmp(&positions[b].z))
    else {
        return false;
    };
    let on_plate = |p: Vec3| p.z < pour::PLATE_TOP + 3.0 * r;
    let mut seen = vec![false; positions.len()];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(i) = stack.pop() {
        let p = positions[i];
        if on_plate(p) {
            return true;
        }
        let c = cell(p);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(members) = grid.get(&(c + IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for &j in members {
                        let j = j as usize;
                        if !seen[j] && positions[j].distance_squared(p) < link * link {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
        }
    }
    false
}

/// How often the rope is meshed over the last 2 s (seconds): four frames, the last one
/// included.
const MESH_EVERY: f32 = 0.5;

/// The meshed rope's upper half measured as a cylinder: from R + 6r below the top of the
/// particles (past the nozzle's cap, the field's support and the smoothing's reach, as for the
/// `thread` scene) down to midway to the pile. The whole liquid is meshed, so nothing is cut
/// where the field is sampled.
fn rope_mesh_shape(
    positions: &[Vec3],
    nozzle: f32,
    r: f32,
    shape: &FrameShape,
    outer_only: bool,
) -> Option<super::cylinder::CylinderShape> {
    let mut mesh = crate::surface::mesh_particles(
        positions,
        &[],
        &[],
        r,
        &crate::surface::SurfaceSettings::default(),
    );
    if outer_only {
        mesh = super::pieces::without_voids(&mesh);
    }
    let top = Vec3::new(0.0, 0.0, slices_top(nozzle, r));
    let from = shape.rope_radius + 6.0 * r as f64;
    let to = slices_top(nozzle, r) as f64 - shape.upper_bottom;
    if to <= from {
        return None;
    }
    super::cylinder::measure(&mesh, top, Vec3::NEG_Z, (from, to), 0.25 * r as f64)
}

/// The meshed upper rope of one frame measured as a cylinder, as check (e) measures it.
pub fn rope_cylinder(positions: &[Vec3], r: f32) -> Option<super::cylinder::CylinderShape> {
    let nozzle = pour::NOZZLE_HEIGHT;
    rope_mesh_shape(
        positions,
        nozzle,
        r,
        &frame_shape(positions, nozzle, r),
        false,
    )
}

/// [`rope_cylinder`] of the outer surface alone, the voids' shells left out.
pub fn rope_cylinder_outer(positions: &[Vec3], r: f32) -> Option<super::cylinder::CylinderShape> {
    let nozzle = pour::NOZZLE_HEIGHT;
    rope_mesh_shape(
        positions,
        nozzle,
        r,
        &frame_shape(positions, nozzle, r),
        true,
    )
}

/// Pours `scene` (one of `pour::scene`'s) for `seconds`, judging every frame; `observe` sees
/// each frame's number, statistics and liquid positions as it ends.
pub fn measure(
    scene: &Scene,
    seconds: f32,
    mut observe: impl FnMut(usize, &FrameStats, &[Vec3]),
) -> crate::Result<PourFigures> {
    let (radius, fps) = (scene.settings.particle_radius, scene.settings.fps);
    let (nozzle, flow) = nozzle_of(scene);
    let mut sim = Simulation::new(scene)?;
    let cancel = AtomicBool::new(false);
    let frames = (seconds * fps).round() as usize;
    let watch_from = frames.saturating_sub((2.0 * fps).round() as usize);
    let mut figures = PourFigures {
        radius,
        fps,
        frames,
        nozzle_height: nozzle,
        flow,
        ..PourFigures::default()
    };
    let mut touched_down = false;
    let mut last_angle: Option<f64> = None;
    let (mut radius_sum, mut rope_sum, mut height_sum) = (0.0, 0.0, 0.0);
    let (mut watched, mut substeps) = (0usize, 0u64);
    let mut wobbles = Vec::new();
    for frame in 0..frames {
        let stats = sim.step_frame(&cancel)?;
        substeps += stats.substeps as u64;
        let positions = &sim.liquid().position;
        observe(frame, &stats, positions);
        touched_down |= positions
            .iter()
            .any(|p| p.z < pour::PLATE_TOP + 3.0 * radius);
        if !touched_down {
            continue;
        }
        figures.frames_judged_connected += 1;
        if !nozzle_linked_to_plate(positions, radius) {
            figures.broken_frames += 1;
        }
        if frame < watch_from {
            continue;
        }
        let shape = frame_shape(positions, nozzle, radius);
        if (frames - 1 - frame).is_multiple_of((MESH_EVERY * fps).round() as usize) {
            figures.rope_meshes += 1;
            match rope_mesh_shape(positions, nozzle, radius, &shape, false) {
                Some(rope) => {
                    figures.rope_mesh_area_variation =
                        figures.rope_mesh_area_variation.max(rope.area_variation());
                    figures.rope_mesh_deviation = figures
                        .rope_mesh_deviation
                        .max(rope.rms_deviation / rope.radius);
                    figures.rope_mesh_section_roundness = figures
                        .rope_mesh_section_roundness
                        .max(rope.rms_section_roundness());
                }
                None => figures.rope_meshes_missing += 1,
            }
        }
        wobbles.push(shape.upper_wobble);
        figures.upper_count_variation = figures
            .upper_count_variation
            .max(shape.upper_count_variation);
        if let Some((x, y)) = shape.touchdown {
            let angle = y.atan2(x);
            if let Some(last) = last_angle {
                // The step's angle in (−π, π]: sampling must be faster than half a turn.
                let step = (angle - last + PI).rem_euclid(TAU) - PI;
                figures.net_angle += step;
                figures.travelled_angle += step.abs();
            }
            last_angle = Some(angle);
            radius_sum += (x * x + y * y).sqrt();
            rope_sum += shape.touchdown_rope_radius;
            height_sum += shape.touchdown_height;
            watched += 1;
        }
    }
    wobbles.sort_by(f64::total_cmp);
    figures.upper_wobble = wobbles.get(wobbles.len() / 2).copied().unwrap_or(0.0);
    figures.upper_wobble_worst = wobbles.last().copied().unwrap_or(0.0);
    figures.coil_radius = radius_sum / watched.max(1) as f64;
    figures.watched_seconds = watched as f64 / fps as f64;
    figures.touchdown_rope_radius = rope_sum / watched.max(1) as f64;
    figures.touchdown_height = height_sum / watched.max(1) as f64;
    figures.emitted = sim.liquid().len();
    let particle_volume = (2.0 * radius as f64).powi(3);
    figures.expected_emitted = flow as f64 * seconds as f64 / particle_volume;
    figures.mean_substeps = substeps as f64 / frames.max(1) as f64;
    Ok(figures)
}

/// The checks of one pour, with the coiling frequency beside Ribe's (2004) and Maleki et
/// al.'s (2004) gravitational-regime scaling, Ω ~ (g Q³ / (ν a⁸))^¼ with a the rope's radius
/// at touchdown.
pub fn checks(f: &PourFigures) -> Vec<Check> {
    let honey = crate::scene::presets::honey();
    let nu = (honey.viscosity / honey.density) as f64;
    let (q, g) = (f.flow as f64, 9.81f64);
    let coil_limit = 2.0 * (nu * q / g).powf(0.25);
    let r = f.radius as f64;
    let turns = f.net_angle.abs() / TAU;
    let steadiness = f.net_angle.abs() / f.travelled_angle.max(f64::MIN_POSITIVE);
    let frequency = turns / f.watched_seconds.max(f64::MIN_POSITIVE);
    // Ribe (2004) and Maleki et al. (2004), in turns per second and without their prefactors:
    // from the rope's radius a and speed U = Q/πa² at touchdown, and the fall H from the
    // nozzle to there.
    let a = f.touchdown_rope_radius;
    let u = q / (PI * a * a);
    let fall = f.nozzle_height as f64 - f.touchdown_height;
    let viscous = u / fall / TAU;
    let gravitational = (g * u.powi(3) / (nu * a * a)).powf(0.25) / TAU;
    let inertial = (u.powi(4) / (nu * a * a)).powf(1.0 / 3.0) / TAU;
    vec![
        Check::at_most(
            "(a) frames after touchdown with the stream broken",
            f.broken_frames as f64,
            0.0,
        ),
        Check::at_least("(b) coil turns over the last 2 s", turns, 3.0),
        Check::at_least("(b) net angle / angle travelled", steadiness, 0.8),
        Check::at_least("(b) coil radius (m), at least 2r", f.coil_radius, 2.0 * r),
        Check::at_most(
            "(b) coil radius (m), at most 2 (νQ/g)^1/4",
            f.coil_radius,
            coil_limit,
        ),
        Check::at_most(
            "(c) emitted particles off flow × time",
            (f.emitted as f64 - f.expected_emitted).abs(),
            1.0,
        ),
        Check::at_most(
            "(d) upper rope's centre off the axis (rope radii), median",
            f.upper_wobble,
            0.25,
        ),
        Check::info(
            "(d) upper rope's centre off the axis (rope radii), worst",
            f.upper_wobble_worst,
        ),
        Check::at_most(
            "(d) upper rope's count per slice, variation about its taper",
            f.upper_count_variation,
            0.12,
        ),
        Check::at_most(
            "(e) upper rope's mesh: cross-section area, std / mean",
            f.rope_mesh_area_variation,
            0.10,
        ),
        Check::at_most(
            "(e) upper rope's mesh: RMS off best-fit cylinder / radius",
            f.rope_mesh_deviation,
            0.05,
        ),
        Check::at_most(
            "(e) meshed frames with no upper rope",
            f.rope_meshes_missing as f64,
            0.0,
        ),
        Check::info(
            "(e) upper rope's mesh: sections off round, RMS / radius",
            f.rope_mesh_section_roundness,
        ),
        Check::info("(e) frames meshed", f.rope_meshes as f64),
        Check::info("coiling frequency (turns/s)", frequency),
        Check::info("viscous coiling scaling U/H / 2π (1/s)", viscous),
        Check::info(
            "gravitational coiling scaling (g U³/ν a²)^1/4 / 2π (1/s)",
            gravitational,
        ),
        Check::info(
            "inertial coiling scaling (U⁴/ν a²)^1/3 / 2π (1/s)",
            inertial,
        ),
        Check::info("rope radius at touchdown (particles r)", a / r),
        Check::info("rope speed at touchdown (m/s)", u),
        Check::info("touchdown height above the plate (m)", f.touchdown_height),
        Check::info("particle radius (m)", r),
        Check::info("substeps per frame, mean", f.mean_substeps),
    ]
}

pub fn run() -> crate::Result<Vec<Check>> {
    let seconds = 3.0;
    let scene = pour::scene(pour::DEFAULT_RADIUS, pour::VALIDATION_FPS, seconds);
    let f = measure(&scene, seconds, |_, _, _| {})?;
    Ok(checks(&f))
}
