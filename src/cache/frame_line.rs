//! The stats line of one baked frame (as FLIP Fluids prints after each frame): how long the
//! solver took, how many particles, how many substeps, how many surface triangles. The bake
//! log and the CLI print it; `status.json` carries the latest one for the Blender panel.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FrameLine {
    pub frame: i32,
    /// Wall-clock seconds the solver spent on this frame (0 for the initial or resumed-from
    /// frame, which is written, not simulated; for a re-mesh, the mesher's time).
    pub seconds: f64,
    pub liquid_particles: usize,
    pub object_particles: usize,
    /// Substeps the frame took; `None` when it was not simulated (initial frame, re-mesh).
    pub substeps: Option<u32>,
    /// Which bound set the substeps (`sim::adaptive::Bound::name`: floor, speed, adhesion or
    /// stretch); `None` when the frame was not simulated.
    #[serde(default)]
    pub substeps_set_by: Option<String>,
    /// Triangles of the frame's surface mesh; `None` when the bake writes particles only.
    pub triangles: Option<usize>,
}

impl std::fmt::Display for FrameLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "frame {}: {:.2} s, {} particles",
            self.frame,
            self.seconds,
            thousands(self.liquid_particles)
        )?;
        if let Some(substeps) = self.substeps {
            write!(f, ", {substeps} substeps")?;
            if let Some(bound) = &self.substeps_set_by {
                write!(f, " ({bound})")?;
            }
        }
        if let Some(triangles) = self.triangles {
            write!(f, ", {} triangles", thousands(triangles))?;
        }
        Ok(())
    }
}

/// `9220` → `9,220`: counts in a log line read at a glance.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_flip_fluids_stats() {
        let line = FrameLine {
            frame: 12,
            seconds: 1.234,
            liquid_particles: 9220,
            object_particles: 4000,
            substeps: Some(8),
            substeps_set_by: Some("stretch".into()),
            triangles: Some(1_045_112),
        };
        assert_eq!(
            line.to_string(),
            "frame 12: 1.23 s, 9,220 particles, 8 substeps (stretch), 1,045,112 triangles"
        );
        let bare = FrameLine {
            substeps: None,
            substeps_set_by: None,
            triangles: None,
            ..line
        };
        assert_eq!(bare.to_string(), "frame 12: 1.23 s, 9,220 particles");
    }
}
