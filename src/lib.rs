//! Gloop: highly viscous liquids for Blender, after Steele et al. 2004 ("Modeling and
//! Rendering Viscous Liquids"), with physical viscosity and a smooth surface.
//!
//! One crate, three faces: this library, the `gloop` CLI (`src/main.rs`) and the `gloop_core`
//! Python module for the Blender add-on (feature `python`).

pub mod atomic_file;
pub mod bake;
pub mod cache;
pub mod demos;
pub mod error;
pub mod fuzz;
pub mod geometry;
pub mod remesh;
pub mod rheology;
pub mod scene;
pub mod sim;
pub mod surface;
pub mod validation;

#[cfg(feature = "python")]
mod python;

pub use error::{GloopError, Result};
pub use scene::Scene;
pub use sim::Simulation;
