//! Steele et al. 2004's viscous-liquid solver (see `substep.rs` for the algorithm of their
//! Figure 3).

pub mod state;

use std::sync::atomic::AtomicBool;

use glam::Vec3;

pub use state::{FrameStats, LiquidParticles};

use crate::error::Result;
use crate::scene::Scene;

/// A running simulation of one scene.
pub struct Simulation {
    scene: Scene,
    frame: i32,
    liquid: LiquidParticles,
    object_positions: Vec<Vec3>,
}

impl Simulation {
    /// The scene's initial state at `settings.frame_start`: liquid objects filled, obstacles
    /// sampled. Fails (naming the object) on invalid input.
    pub fn new(scene: &Scene) -> Result<Self> {
        scene.validate()?;
        todo!()
    }

    /// Continues a bake from the particles saved for `frame`.
    pub fn resume(scene: &Scene, frame: i32, liquid: LiquidParticles) -> Result<Self> {
        let _ = (scene, frame, liquid);
        todo!()
    }

    /// The frame whose state the particles hold.
    pub fn frame(&self) -> i32 {
        self.frame
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn liquid(&self) -> &LiquidParticles {
        &self.liquid
    }

    /// Object particle positions at the current frame.
    pub fn object_positions(&self) -> &[Vec3] {
        &self.object_positions
    }

    /// Advances one frame. Checks `cancel` every substep and returns `GloopError::Cancelled`
    /// if it is set (the state is then mid-frame and must not be saved).
    pub fn step_frame(&mut self, cancel: &AtomicBool) -> Result<FrameStats> {
        let _ = cancel;
        todo!()
    }
}
