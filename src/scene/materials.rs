//! Liquid and solid materials, in physical units.

use serde::{Deserialize, Serialize};

/// A liquid: what a Liquid or Emitter object is made of.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LiquidMaterial {
    pub name: String,
    /// Density in kg/m³.
    pub density: f32,
    /// Dynamic viscosity in Pa·s.
    pub viscosity: f32,
    /// Linear RGB, 0..1; written per particle and averaged onto the surface (paints mix).
    pub colour: [f32; 3],
    /// Peak cohesive pull between two particles of this liquid, m/s² (the attractive well of
    /// the Lennard-Jones-like adhesion function). Acts like surface tension.
    #[serde(default = "default_cohesion")]
    pub cohesion: f32,
    /// Miscible liquids (paints) attract each other and mix; others repel and stay apart.
    #[serde(default)]
    pub miscible: bool,
    /// How the add-on renders it; no part of the physics (left out of the scene hash).
    #[serde(default)]
    pub look: Look,
}

/// How a liquid renders: light passes through a glassy one (honey, syrup, gel) and is absorbed
/// on the way; an opaque one (paint, chocolate) is seen by its surface only. Carried in the
/// scene so that a cache opened in Blender (Open Cache) renders each liquid as it was meant.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Look {
    #[default]
    Glassy,
    Opaque,
}

fn default_cohesion() -> f32 {
    0.5
}

/// A solid: what an Obstacle object is made of.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SolidMaterial {
    pub name: String,
    /// Fraction of a touching liquid particle's velocity lost per 1/30 s (the paper's friction
    /// factor, stated so that 0 is frictionless and 1 sticks completely).
    pub friction: f32,
    /// Peak pull of this solid on liquid particles near it, m/s² (liquid clings; wetting).
    #[serde(default = "default_stickiness")]
    pub stickiness: f32,
    /// Renders see-through (glass): the liquid's contact face then stays just outside it
    /// rather than inside (`surface::contact`). No part of the physics.
    #[serde(default)]
    pub see_through: bool,
}

fn default_stickiness() -> f32 {
    4.0
}

/// Every material of a scene. Liquids and solids are named; objects refer to them by name.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Materials {
    pub liquids: Vec<LiquidMaterial>,
    pub solids: Vec<SolidMaterial>,
    /// Per-pair replacements of the generated adhesion functions.
    #[serde(default)]
    pub adhesion_overrides: Vec<crate::scene::adhesion::AdhesionOverride>,
}

impl Materials {
    pub fn liquid_index(&self, name: &str) -> Option<usize> {
        self.liquids.iter().position(|m| m.name == name)
    }
    pub fn solid_index(&self, name: &str) -> Option<usize> {
        self.solids.iter().position(|m| m.name == name)
    }
    /// Index of a material in the adhesion matrix: liquids first, then solids.
    pub fn matrix_index(&self, name: &str) -> Option<usize> {
        self.liquid_index(name)
            .or_else(|| self.solid_index(name).map(|i| i + self.liquids.len()))
    }
}
