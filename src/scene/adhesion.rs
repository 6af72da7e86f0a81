//! The adhesion matrix (Steele et al. 2004): one piecewise-linear function of distance per pair
//! of materials, giving the acceleration a particle feels towards (positive) or away from
//! (negative) a neighbour. Distances are in particle radii, so a scene keeps its behaviour when
//! the resolution changes.

use serde::{Deserialize, Serialize};

use super::materials::Materials;

/// Support of every generated adhesion function, in particle radii (the paper uses 4).
pub const ADHESION_SUPPORT_RADII: f32 = 4.0;

/// A piecewise-linear function: `points` are (distance in particle radii, acceleration in m/s²),
/// sorted by distance. Zero beyond the last point; the first value holds before the first point.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdhesionFunction {
    pub points: Vec<[f32; 2]>,
}

impl AdhesionFunction {
    pub fn zero() -> Self {
        AdhesionFunction { points: Vec::new() }
    }

    /// Lennard-Jones-like: repulsive close (capped at 10× the peak attraction, as the paper
    /// does to stay stable), zero at the lattice spacing 2r, attractive up to 4r.
    pub fn lennard_jones_like(peak_attraction: f32) -> Self {
        let a = peak_attraction;
        AdhesionFunction {
            points: vec![
                [0.0, -10.0 * a],
                [1.0, -10.0 * a],
                [2.0, 0.0],
                [2.6, a],
                [4.0, 0.0],
            ],
        }
    }

    /// Purely attractive: liquid clings to a solid.
    pub fn attractive(peak: f32) -> Self {
        AdhesionFunction {
            points: vec![[0.0, 0.0], [2.0, peak], [3.0, peak], [4.0, 0.0]],
        }
    }

    /// Purely repulsive: liquids that must not mix.
    pub fn repulsive(peak: f32) -> Self {
        AdhesionFunction {
            points: vec![[0.0, -peak], [2.0, -peak], [4.0, 0.0]],
        }
    }

    /// Largest distance (in radii) at which the function is non-zero.
    pub fn support(&self) -> f32 {
        self.points.last().map_or(0.0, |p| p[0])
    }

    /// Value at `d` particle radii.
    pub fn eval(&self, d: f32) -> f32 {
        let pts = &self.points;
        match pts.len() {
            0 => 0.0,
            _ if d <= pts[0][0] => pts[0][1],
            _ if d >= pts[pts.len() - 1][0] => 0.0,
            // A NaN distance (a particle gone non-finite, which the frame's end reports)
            // passes both tests above and falls before every point.
            _ if d.is_nan() => 0.0,
            _ => {
                let k = pts.partition_point(|p| p[0] <= d);
                let (a, b) = (pts[k - 1], pts[k]);
                let t = (d - a[0]) / (b[0] - a[0]).max(1e-12);
                a[1] + t * (b[1] - a[1])
            }
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        for w in self.points.windows(2) {
            if w[1][0] < w[0][0] {
                return Err("adhesion points must be sorted by distance".into());
            }
        }
        if self.points.iter().flatten().any(|v| !v.is_finite()) {
            return Err("adhesion points must be finite".into());
        }
        if self.support() > 8.0 {
            return Err(format!(
                "adhesion support {} radii is larger than the maximum of 8",
                self.support()
            ));
        }
        Ok(())
    }
}

/// Replaces the generated function for one pair of materials (by name; order does not matter).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AdhesionOverride {
    pub a: String,
    pub b: String,
    pub function: AdhesionFunction,
}

/// The resolved matrix, indexed by `Materials::matrix_index` (liquids first, then solids).
#[derive(Clone, Debug)]
pub struct AdhesionMatrix {
    pub size: usize,
    pub functions: Vec<AdhesionFunction>,
}

impl AdhesionMatrix {
    /// Generates the paper's three shapes from the materials, then applies the overrides:
    /// same liquid or two miscible liquids → Lennard-Jones-like; immiscible liquids → repulsive;
    /// liquid and solid → attractive; solid and solid → none (object particles do not move).
    pub fn from_materials(m: &Materials) -> Result<Self, String> {
        let nl = m.liquids.len();
        let size = nl + m.solids.len();
        let mut functions = vec![AdhesionFunction::zero(); size * size];
        for i in 0..size {
            for j in 0..size {
                let f = match (i < nl, j < nl) {
                    (true, true) => {
                        let (a, b) = (&m.liquids[i], &m.liquids[j]);
                        if i == j || (a.miscible && b.miscible) {
                            AdhesionFunction::lennard_jones_like(a.cohesion.min(b.cohesion))
                        } else {
                            AdhesionFunction::repulsive(a.cohesion.max(b.cohesion))
                        }
                    }
                    (true, false) => AdhesionFunction::attractive(m.solids[j - nl].stickiness),
                    (false, true) => AdhesionFunction::attractive(m.solids[i - nl].stickiness),
                    (false, false) => AdhesionFunction::zero(),
                };
                functions[i * size + j] = f;
            }
        }
        for o in &m.adhesion_overrides {
            let ia = m
                .matrix_index(&o.a)
                .ok_or_else(|| format!("adhesion override names unknown material '{}'", o.a))?;
            let ib = m
                .matrix_index(&o.b)
                .ok_or_else(|| format!("adhesion override names unknown material '{}'", o.b))?;
            o.function
                .validate()
                .map_err(|e| format!("adhesion override {}–{}: {e}", o.a, o.b))?;
            functions[ia * size + ib] = o.function.clone();
            functions[ib * size + ia] = o.function.clone();
        }
        Ok(AdhesionMatrix { size, functions })
    }

    pub fn get(&self, a: usize, b: usize) -> &AdhesionFunction {
        &self.functions[a * self.size + b]
    }

    /// Largest support over all pairs, in particle radii.
    pub fn max_support(&self) -> f32 {
        self.functions
            .iter()
            .map(|f| f.support())
            .fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piecewise_linear_interpolates_and_vanishes_outside() {
        let f = AdhesionFunction::lennard_jones_like(1.0);
        assert_eq!(f.eval(0.5), -10.0);
        assert!((f.eval(1.5) + 5.0).abs() < 1e-6);
        assert_eq!(f.eval(2.0), 0.0);
        assert!((f.eval(2.6) - 1.0).abs() < 1e-6);
        assert_eq!(f.eval(4.0), 0.0);
        assert_eq!(f.eval(9.0), 0.0);
        // A particle gone non-finite exerts nothing (the frame's end reports it).
        assert_eq!(f.eval(f32::NAN), 0.0);
        assert_eq!(f.eval(f32::INFINITY), 0.0);
    }
}
