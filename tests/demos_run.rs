//! The demos run: every frame of the bake is free of NaN and no liquid particle ends up inside
//! an obstacle (the "no liquid particle through an obstacle"), and the liquid really
//! reaches the obstacle, so the check is not passed by missing it. Nothing explodes either: no
//! particle moves faster than it could by falling from the top of the scene to the floor (plus
//! what a moving obstacle can give it), with a 50 % allowance for splashes. And the ball
//! demos end with their ball still coated: a quarter of the honey and a sixth of the paint lie
//! within 4r of it at frame 200 (at 2 mm; 46% and 31% measured).
//!
//! CI sizing: the scenes keep their physical geometry, frame rate and step counts, but the
//! particle radius is scaled up (fewer, larger particles), as `coarse` says per demo.

use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::demos::{self, demo_counts, demo_scene};
use gloop::scene::{Motion, Scene};
use gloop::Simulation;

/// `name` with its particle radius multiplied by `factor` and `frames` frames.
fn coarse(name: &str, factor: f32, frames: i32) -> Scene {
    let mut scene = demo_scene(name).unwrap();
    scene.settings.particle_radius *= factor;
    scene.settings.frame_end = scene.settings.frame_start + frames - 1;
    if let Some(fan) = scene.objects.iter_mut().find(|o| o.name == "fan") {
        if let Motion::Rigid { matrices, .. } = &mut fan.motion {
            matrices.truncate(frames as usize);
        }
    }
    let (liquid, object) = demo_counts(&scene);
    println!(
        "{name} at r = {} m: {liquid} liquid + {object} object particles, {frames} frames",
        scene.settings.particle_radius
    );
    scene
}

/// Fastest a liquid particle can physically move: free fall from the highest liquid particle
/// to the domain's floor, plus twice the fastest obstacle speed (liquid flung off a blade
/// leaves it at up to about √2 times the blade speed), with 50 % to spare.
fn speed_limit(scene: &Scene, liquid: &[Vec3], obstacle_speed: f32) -> f32 {
    let top = liquid.iter().map(|p| p.z).fold(f32::MIN, f32::max);
    let fall = top - scene.settings.domain.min.z;
    1.5 * ((2.0 * scene.settings.gravity.length() * fall).sqrt() + 2.0 * obstacle_speed)
}

/// Steps `scene` through all its frames; after each, checks that every liquid particle is
/// finite, no faster than `speed_limit`, and passes `outside` (given the frame and the
/// position). Returns how close the liquid came to the obstacle over the run (the smallest
/// `clearance`), and the liquid's positions at the end.
fn run_checked(
    scene: &Scene,
    obstacle_speed: f32,
    outside: impl Fn(i32, Vec3) -> bool,
    clearance: impl Fn(i32, Vec3) -> f32,
) -> (f32, Vec<Vec3>) {
    let mut sim = Simulation::new(scene).expect("demo scene starts");
    let cancel = AtomicBool::new(false);
    let mut closest = f32::INFINITY;
    assert!(!sim.liquid().is_empty());
    let limit = speed_limit(scene, &sim.liquid().position, obstacle_speed);
    for _ in scene.settings.frame_start..scene.settings.frame_end {
        sim.step_frame(&cancel).expect("frame steps");
        let frame = sim.frame();
        let liquid = sim.liquid();
        for (i, (p, v)) in liquid.position.iter().zip(&liquid.velocity).enumerate() {
            assert!(
                p.is_finite() && v.is_finite(),
                "frame {frame}: particle {i} at {p}, velocity {v}"
            );
            let speed = v.length();
            assert!(
                speed <= limit,
                "frame {frame}: particle {i} at {p} moves at {speed} m/s, faster than {limit} m/s: \
                 the liquid explodes"
            );
            assert!(
                outside(frame, *p),
                "frame {frame}: liquid particle {i} at {p} is inside the obstacle"
            );
            closest = closest.min(clearance(frame, *p));
        }
    }
    assert_eq!(sim.frame(), scene.settings.frame_end);
    (closest, sim.liquid().position.clone())
}

/// A ball obstacle: liquid must stay at least the ball's radius from its centre, and at the
/// end at least `coating` of the liquid the scene started with still coats the ball (lies
/// within 4r of its surface): the demos show liquid on a ball, not a ball it has left.
fn run_ball_demo(scene: &Scene, centre: Vec3, radius: f32, coating: f32) {
    let r = scene.settings.particle_radius;
    let (started, _) = demo_counts(scene);
    let (closest, end) = run_checked(
        scene,
        0.0,
        |_, p| p.distance(centre) >= radius,
        |_, p| p.distance(centre) - radius,
    );
    // The liquid landed on the ball (within a few radii of its surface) at some frame.
    assert!(
        closest < 4.0 * r,
        "liquid never came within 4r of the ball (closest {closest} m)"
    );
    let on_ball = end
        .iter()
        .filter(|p| p.distance(centre) < radius + 4.0 * r)
        .count();
    assert!(
        on_ball as f32 >= coating * started as f32,
        "only {on_ball} of {started} liquid particles still coat the ball"
    );
}

#[test]
fn honey_drop_runs_200_frames_without_nan_or_tunnelling() {
    let scene = coarse("honey-drop", 2.0, 200);
    run_ball_demo(
        &scene,
        demos::honey_drop::BALL_CENTRE,
        demos::honey_drop::BALL_RADIUS,
        0.25,
    );
}

#[test]
fn paint_drops_run_200_frames_without_nan_or_tunnelling() {
    let scene = coarse("paint-drops", 2.0, 200);
    run_ball_demo(
        &scene,
        demos::paint_drops::BALL_CENTRE,
        demos::paint_drops::BALL_RADIUS,
        0.15,
    );
}

#[test]
fn fan_runs_without_nan_or_liquid_inside_its_blades() {
    let (scene, closest) = run_fan(2.5, 200);
    assert!(
        closest < 4.0 * scene.settings.particle_radius,
        "the gel never came within 4r of the fan (closest {closest} m)"
    );
}

/// At the fan's true resolution (r = 1 mm, 9 × 3 steps) the gel meets the turning blades in
/// frames 4-7 and no particle gets inside them: the stops' judgement of what is inside a
/// blade and what is beside its edge (`sim::moves::obstacle_push`) holds where the demo is
/// baked, not only at the coarse radius above.
#[test]
fn full_resolution_fan_keeps_the_gel_out_of_its_blades_on_impact() {
    let (scene, closest) = run_fan(1.0, 10);
    assert!(
        closest < 2.0 * scene.settings.particle_radius,
        "the gel never touched the fan (closest {closest} m)"
    );
}

/// Runs the fan demo at `factor` times its particle radius for `frames` frames, checking
/// every frame; returns the scene and the gel's closest approach to the blades.
fn run_fan(factor: f32, frames: i32) -> (Scene, f32) {
    let scene = coarse("fan", factor, frames);
    let shape = demos::fan::fan_shape();
    let fan = scene.objects.iter().find(|o| o.name == "fan").unwrap();
    let Motion::Rigid {
        first_frame,
        matrices,
    } = &fan.motion
    else {
        panic!("the fan moves rigidly");
    };
    // The fan's pose at each frame, inverted once: world → fan-local.
    let to_local: Vec<Mat4> = matrices.iter().map(|m| m.inverse()).collect();
    let local = |frame: i32, p: Vec3| to_local[(frame - first_frame) as usize].transform_point3(p);
    let tip_speed = std::f32::consts::TAU * demos::fan::REVOLUTIONS_PER_SECOND * shape.tip_radius;
    let (closest, _) = run_checked(
        &scene,
        tip_speed,
        |frame, p| !shape.contains(local(frame, p)),
        |frame, p| shape.signed_distance(local(frame, p)),
    );
    (scene, closest)
}

/// At the demos' true resolution (r = 1 mm, the Table 1 step counts) no drop gets into the
/// ball on impact. (It used to: the velocity into the ball survived all M moves of a substep,
/// and one density pass could throw a particle past the ball's shell of object particles.)
#[test]
fn full_resolution_drops_do_not_tunnel_into_the_ball_on_impact() {
    for (name, centre, radius) in [
        (
            "honey-drop",
            demos::honey_drop::BALL_CENTRE,
            demos::honey_drop::BALL_RADIUS,
        ),
        (
            "paint-drops",
            demos::paint_drops::BALL_CENTRE,
            demos::paint_drops::BALL_RADIUS,
        ),
    ] {
        let scene = coarse(name, 1.0, 8);
        run_checked(
            &scene,
            0.0,
            |_, p| p.distance(centre) >= radius,
            |_, p| p.distance(centre) - radius,
        );
    }
}

/// Honey (19 Pa·s) coats the ball and drains off it over seconds — a film a centimetre thick
/// drains at about ρgh²/3μ ≈ 2 cm/s — so one second after impact most of the drop is still on
/// the ball. (With the classic exchange, capped far below honey's viscosity, the drop parted
/// round the ball nearly in free fall; the demos use the implicit model.)
#[test]
fn honey_is_still_on_the_ball_a_second_after_impact() {
    let scene = coarse("honey-drop", 2.0, 26);
    let (centre, radius) = (
        demos::honey_drop::BALL_CENTRE,
        demos::honey_drop::BALL_RADIUS,
    );
    let mut sim = Simulation::new(&scene).unwrap();
    let initial = sim.liquid().len();
    let cancel = AtomicBool::new(false);
    for _ in 1..26 {
        sim.step_frame(&cancel).unwrap();
    }
    let on_ball = sim
        .liquid()
        .position
        .iter()
        .filter(|p| p.distance(centre) < radius + 2.0 * demos::honey_drop::DROP_RADIUS)
        .count();
    assert!(
        on_ball * 2 >= initial,
        "only {on_ball} of {initial} honey particles are on the ball at frame 26"
    );
}

/// The honey that drains off the ball lands on the plate and stays in the domain (issue 34:
/// before the plate it drained out through the domain's floor, 9,220 particles at the start
/// and 482 at frame 200). At the coarse radius the first honey reaches the plate at about
/// frame 55 and ~450 of the 1,140 particles are on it by frame 80 (measured); every particle
/// the drop started with is still there, those that came down rest on the plate's top, and
/// they spread over less than its width.
#[test]
fn the_plate_catches_the_honey_that_drains_off_the_ball() {
    use demos::honey_drop::{PLATE_HALF_WIDTH, PLATE_TOP};
    const FRAMES: i32 = 80;
    let scene = coarse("honey-drop", 2.0, FRAMES);
    let r = scene.settings.particle_radius;
    let mut sim = Simulation::new(&scene).unwrap();
    let started = sim.liquid().len();
    let cancel = AtomicBool::new(false);
    for _ in 1..FRAMES {
        sim.step_frame(&cancel).unwrap();
    }
    let liquid = &sim.liquid().position;
    assert_eq!(liquid.len(), started, "honey left the domain");
    let on_plate: Vec<&Vec3> = liquid
        .iter()
        .filter(|p| {
            p.x.abs() < PLATE_HALF_WIDTH
                && p.y.abs() < PLATE_HALF_WIDTH
                && p.z < PLATE_TOP + 6.0 * r
        })
        .collect();
    let spread = on_plate
        .iter()
        .map(|p| p.x.abs().max(p.y.abs()))
        .fold(0.0, f32::max);
    println!(
        "frame {FRAMES}: {} of {started} particles on the plate, out to {spread:.3} m of its \
         {PLATE_HALF_WIDTH} m half-width",
        on_plate.len()
    );
    assert!(
        on_plate.len() * 10 >= started,
        "only {} of {started} particles reached the plate",
        on_plate.len()
    );
    assert!(
        spread < 0.75 * PLATE_HALF_WIDTH,
        "the honey reached {spread} m out"
    );
    // Resting on it, not sunk into it.
    let lowest = liquid.iter().map(|p| p.z).fold(f32::MAX, f32::min);
    assert!(
        lowest > PLATE_TOP,
        "a particle at z = {lowest} is inside the plate"
    );
}
