//! Liquid carries tension inside and none at its free surface: a stretched block pulls itself
//! together, a block on the lattice stays exactly where it is, and a poured honey thread stays
//! one piece from the nozzle to the plate.
mod common;

use std::sync::atomic::AtomicBool;

use glam::Vec3;
use gloop::demos::honey_pour;
use gloop::scene::Scene;
use gloop::sim::LiquidParticles;
use gloop::validation::honey_pour::nozzle_linked_to_plate;
use gloop::Simulation;

const R: f32 = 0.001;

/// Weightless honey without cohesion, so that only the density correction can move it.
fn weightless_scene() -> Scene {
    let mut settings = common::settings(R, 10);
    settings.gravity = Vec3::ZERO;
    let mut materials = common::materials();
    materials.liquids[0].cohesion = 0.0;
    let seed = common::liquid_box("Seed", Vec3::splat(-0.1), Vec3::splat(-0.1 + 2.0 * R));
    Scene::new(settings, materials, vec![seed])
}

/// An 8 × 8 × 8 block at rest, 2r apart across and `2r · stretch` apart in height.
fn block(stretch: f32) -> LiquidParticles {
    let mut liquid = LiquidParticles::default();
    for k in 0..8 {
        for j in 0..8 {
            for i in 0..8 {
                let at = Vec3::new(i as f32, j as f32, k as f32 * stretch) * 2.0 * R;
                liquid.push(at, Vec3::ZERO, 0, [0.8, 0.4, 0.05]);
            }
        }
    }
    liquid
}

/// Pairs of particles closer than 2.5r: the block's in-plane neighbours only, while its
/// layers stand 2.8r apart.
fn close_pairs(liquid: &LiquidParticles) -> usize {
    let x = &liquid.position;
    (0..x.len())
        .map(|i| {
            (i + 1..x.len())
                .filter(|&j| x[i].distance(x[j]) < 2.5 * R)
                .count()
        })
        .sum()
}

fn one_frame(liquid: LiquidParticles) -> LiquidParticles {
    let mut sim = Simulation::resume(&weightless_scene(), 1, liquid).unwrap();
    sim.step_frame(&AtomicBool::new(false)).unwrap();
    sim.liquid().clone()
}

#[test]
fn a_stretched_block_pulls_itself_together() {
    let stretched = block(1.4);
    let before = close_pairs(&stretched);
    let after = close_pairs(&one_frame(stretched));
    // One-sided, nothing moves it: no weight, no cohesion, no velocity. With tension its
    // inside draws together, layer to layer.
    assert!(
        after > before * 6 / 5,
        "a block stretched 1.4× in height: {before} close pairs before a frame, {after} after"
    );
}

#[test]
fn a_block_on_the_lattice_is_left_where_it_is() {
    let resting = block(1.0);
    let after = one_frame(resting.clone());
    // The solver reorders particles (by grid cell): each must stand on a lattice site.
    let moved = after
        .position
        .iter()
        .map(|b| {
            resting
                .position
                .iter()
                .map(|a| a.distance(*b))
                .fold(f32::MAX, f32::min)
        })
        .fold(0.0f32, f32::max);
    // Its surface is under-dense only for want of neighbours beyond it: not pulled in.
    assert!(moved < 1e-6 * R, "a resting lattice block moved {moved} m");
}

#[test]
fn a_poured_honey_thread_stays_one_piece_from_nozzle_to_plate() {
    let r = honey_pour::DEFAULT_RADIUS;
    let seconds = 0.6;
    let scene = honey_pour::scene(r, 120.0, seconds);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let (mut judged, mut broken) = (0, Vec::new());
    for _ in 0..(seconds * 120.0) as usize {
        sim.step_frame(&cancel).unwrap();
        let positions = &sim.liquid().position;
        if positions
            .iter()
            .any(|p| p.z < honey_pour::PLATE_TOP + 3.0 * r)
        {
            judged += 1;
            if !nozzle_linked_to_plate(positions, r) {
                broken.push(sim.frame());
            }
        }
    }
    assert!(
        judged > 30,
        "the stream reached the plate in only {judged} frames"
    );
    assert!(broken.is_empty(), "the stream broke in frames {broken:?}");
}
