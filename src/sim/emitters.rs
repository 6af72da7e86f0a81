//! Emitters: liquid enters the scene from an object's surface, at a rate and speed over a frame
//! range. How many particles have been emitted is a pure function of time, so a resumed bake
//! emits exactly what an uninterrupted one would.

use glam::Vec3;

use super::LiquidParticles;
use crate::geometry::{self, SurfaceSample};
use crate::scene::{Emission, Role, Scene};

pub struct Emitter {
    object: usize,
    samples: Vec<SurfaceSample>,
    emission: Emission,
    material: u16,
    colour: [f32; 3],
}

impl Emitter {
    /// Every emitter of the scene; nozzle points are the surface sampled at the lattice spacing.
    pub fn all(scene: &Scene) -> Vec<Emitter> {
        let r = scene.settings.particle_radius;
        scene
            .objects
            .iter()
            .enumerate()
            .filter_map(|(index, object)| {
                let Role::Emitter { material, emission } = &object.role else {
                    return None;
                };
                let m = scene.materials.liquid_index(material).expect("validated");
                let frame = scene.settings.frame_start as f32;
                let vertices = geometry::world_vertices(&object.mesh, &object.motion, frame);
                let samples = geometry::sample_surface(&vertices, &object.mesh.triangles, 2.0 * r);
                Some(Emitter {
                    object: index,
                    samples,
                    emission: emission.clone(),
                    material: m as u16,
                    colour: scene.materials.liquids[m].colour,
                })
            })
            .collect()
    }

    /// Particles emitted from the start of the bake up to `frame` (fractional).
    pub fn emitted_by(&self, frame: f64, fps: f32) -> u64 {
        let e = &self.emission;
        let active =
            (frame - e.frame_start as f64).clamp(0.0, (e.frame_end - e.frame_start) as f64);
        (e.rate as f64 * active / fps as f64 + 1e-9).floor() as u64
    }

    /// Emits the particles due between `from` and `to` (fractional frames). Nozzle points are
    /// used round-robin; particles due at the same point in one batch are stacked outward.
    pub fn emit(&self, scene: &Scene, from: f64, to: f64, liquid: &mut LiquidParticles) -> usize {
        let fps = scene.settings.fps;
        let (start, end) = (self.emitted_by(from, fps), self.emitted_by(to, fps));
        if end <= start || self.samples.is_empty() {
            return 0;
        }
        let object = &scene.objects[self.object];
        let vertices = geometry::world_vertices(&object.mesh, &object.motion, to as f32);
        let r = scene.settings.particle_radius;
        let n = self.samples.len() as u64;
        for k in start..end {
            let s = &self.samples[(k % n) as usize];
            let normal =
                geometry::triangle_normal(&vertices, object.mesh.triangles[s.triangle as usize]);
            let layer = ((k - start) / n) as f32;
            let position =
                s.position(&vertices, &object.mesh.triangles) + normal * r * (1.0 + 2.0 * layer);
            let velocity: Vec3 = normal * self.emission.speed;
            liquid.push(position, velocity, self.material, self.colour);
        }
        (end - start) as usize
    }
}
