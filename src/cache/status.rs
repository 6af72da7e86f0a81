//! `status.json`: live progress of a bake, rewritten atomically after every frame so another
//! process (the Blender add-on) can poll it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::atomic_file::write_atomically;
use crate::error::{GloopError, Result};

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BakeState {
    Running,
    Finished,
    Cancelled,
    Failed,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Status {
    pub state: BakeState,
    /// The last frame whose particle file is written.
    pub frame: i32,
    /// Frames written by the whole bake so far, the initial frame included.
    pub frames_done: u32,
    /// Frames the finished bake will have, the initial frame included.
    pub frames_total: u32,
    pub liquid_particles: usize,
    pub object_particles: usize,
    /// Seconds since this bake (or resume) started.
    pub elapsed_s: f64,
    /// Estimated seconds to the end, from the mean time per frame of this run.
    pub eta_s: Option<f64>,
    /// The error message when `state` is `failed`.
    pub error: Option<String>,
    /// Frames of this run (since it started or resumed) in which some substep's density
    /// correction stopped at its pass cap short of the tolerance, and the largest compression
    /// (ρ/ρ0 − 1) such a substep left: liquid visibly squeezed there.
    #[serde(default)]
    pub capped_frames: u32,
    #[serde(default)]
    pub worst_compression: f32,
    /// Substeps the last frame simulated took (adaptive: between the scene's `substeps` and
    /// `max_substeps`); `None` before this run has simulated one.
    #[serde(default)]
    pub substeps: Option<u32>,
    /// Which bound set the last frame's substeps (`sim::adaptive::Bound::name`: floor, speed,
    /// adhesion or stretch); `None` before this run has simulated a frame.
    #[serde(default)]
    pub substeps_set_by: Option<String>,
    /// Frames of this run whose speed asked for more substeps than `max_substeps`: there
    /// particles moved further per move than the bound, and could pass through thin obstacles.
    #[serde(default)]
    pub substeps_capped_frames: u32,
    /// The stats line of the latest frame whose figures are all in (time, particles,
    /// substeps, triangles): while baking, the surface lags the solver by a frame or so.
    #[serde(default)]
    pub last_frame_stats: Option<super::FrameLine>,
}

impl Status {
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a status always serializes");
        write_atomically(path, text.as_bytes())
    }

    pub fn read(path: &Path) -> Result<Status> {
        let text = std::fs::read_to_string(path).map_err(|e| GloopError::io(path, e))?;
        serde_json::from_str(&text)
            .map_err(|e| GloopError::file(path, format!("cannot read bake status: {e}")))
    }
}
