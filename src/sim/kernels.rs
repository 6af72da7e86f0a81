//! The weighting functions of the solver, all in terms of the particle radius `r`.

/// Support of the viscosity weighting `k`, in particle radii (the paper: 4–6).
pub const VISCOSITY_SUPPORT_RADII: f32 = 4.0;
/// Width of the Gaussian in `k`, in particle radii.
const VISCOSITY_SIGMA_RADII: f32 = 2.0;
/// Support of the density ramp `w`, in particle radii: between 2√3 (the lattice's third
/// shell) and 4 (its fourth), so exactly the 26 lattice neighbours count towards ρ0.
pub const DENSITY_SUPPORT_RADII: f32 = 4.0;

/// The paper's piecewise Gaussian viscosity weight, shifted to reach zero at its support.
#[derive(Clone, Copy, Debug)]
pub struct ViscosityKernel {
    inv_two_sigma2: f32,
    support2: f32,
    offset: f32,
}

impl ViscosityKernel {
    pub fn new(radius: f32) -> Self {
        let sigma = VISCOSITY_SIGMA_RADII * radius;
        let support = VISCOSITY_SUPPORT_RADII * radius;
        let inv_two_sigma2 = 1.0 / (2.0 * sigma * sigma);
        ViscosityKernel {
            inv_two_sigma2,
            support2: support * support,
            offset: (-support * support * inv_two_sigma2).exp(),
        }
    }

    #[inline(always)]
    pub fn weight(&self, d2: f32) -> f32 {
        if d2 >= self.support2 {
            0.0
        } else {
            (-d2 * self.inv_two_sigma2).exp() - self.offset
        }
    }
}

/// The density weight. Steele uses a linear ramp; its slope jumps from constant to zero at the
/// support, so every neighbour crossing it kicks the correction, and a liquid at rest never
/// stops shimmering. This smooth bump, w = (1 − d²/h²)³, keeps the paper's shape (1 at zero
/// distance, 0 at the support) with a slope that fades to zero there.
#[derive(Clone, Copy, Debug)]
pub struct DensityKernel {
    pub support: f32,
    pub(crate) inv_support2: f32,
}

impl DensityKernel {
    pub fn new(radius: f32) -> Self {
        let support = DENSITY_SUPPORT_RADII * radius;
        DensityKernel {
            support,
            inv_support2: 1.0 / (support * support),
        }
    }

    #[inline(always)]
    pub fn weight(&self, d: f32) -> f32 {
        let q = (1.0 - d * d * self.inv_support2).max(0.0);
        q * q * q
    }

    /// w from the squared distance (no square root needed).
    #[inline(always)]
    pub fn weight_sq(&self, d2: f32) -> f32 {
        let q = (1.0 - d2 * self.inv_support2).max(0.0);
        q * q * q
    }

    /// |dw/dd| at distance `d`.
    #[inline(always)]
    pub fn slope(&self, d: f32) -> f32 {
        let q = (1.0 - d * d * self.inv_support2).max(0.0);
        6.0 * d * self.inv_support2 * q * q
    }

    /// |dw/dd| / d from the squared distance: the gradient is this times the offset vector.
    #[inline(always)]
    pub fn slope_over_distance_sq(&self, d2: f32) -> f32 {
        let q = (1.0 - d2 * self.inv_support2).max(0.0);
        6.0 * self.inv_support2 * q * q
    }

    /// `weight_sq` and `slope_over_distance_sq` of a squared distance at once (as
    /// `weight_sq(d2)` and `6·q²/h²` here; the separate forms round the slope's product in
    /// another order). The density passes' pair loops (`density::eight_lanes`) compute this,
    /// their AVX2 copy in the same operations.
    #[inline(always)]
    pub fn weight_and_slope_sq(&self, d2: f32) -> (f32, f32) {
        let q = (1.0 - d2 * self.inv_support2).max(0.0);
        let q2 = q * q;
        (q2 * q, q2 * (6.0 * self.inv_support2))
    }

    /// A squared distance whose weight and slope are exactly zero, for lanes that hold no
    /// neighbour. (The support itself is not: 1 − h²·(1/h²) may round to just under 1.)
    pub fn beyond_sq(&self) -> f32 {
        4.0 / self.inv_support2
    }
}

/// Offsets of the 26 neighbours of a simple-cubic lattice of spacing `spacing`.
pub fn lattice_neighbour_offsets(spacing: f32) -> Vec<glam::Vec3> {
    let mut out = Vec::with_capacity(26);
    for z in -1..=1 {
        for y in -1..=1 {
            for x in -1..=1 {
                if (x, y, z) != (0, 0, 0) {
                    out.push(glam::Vec3::new(x as f32, y as f32, z as f32) * spacing);
                }
            }
        }
    }
    out
}

/// ρ0: the density of a particle inside the initial 2r lattice (its 26 neighbours).
pub fn rest_density(kernel: &DensityKernel, radius: f32) -> f32 {
    lattice_neighbour_offsets(2.0 * radius)
        .iter()
        .map(|o| kernel.weight(o.length()))
        .sum()
}

/// ⟨d²⟩_k: the viscosity-kernel-weighted mean squared neighbour distance in the 2r lattice.
/// Steele's exchange rate `v` acts like a kinematic viscosity ν = v⟨d²⟩_k / 6 (PHYSICS_NOTES
/// §1.2), which is how a viscosity in Pa·s becomes an exchange rate.
pub fn lattice_mean_square_distance(kernel: &ViscosityKernel, radius: f32) -> f32 {
    let spacing = 2.0 * radius;
    let reach = (VISCOSITY_SUPPORT_RADII / 2.0).ceil() as i32;
    let (mut sum_w, mut sum_wd2) = (0.0f64, 0.0f64);
    for z in -reach..=reach {
        for y in -reach..=reach {
            for x in -reach..=reach {
                let d2 = ((x * x + y * y + z * z) as f32) * spacing * spacing;
                if d2 > 0.0 {
                    let w = kernel.weight(d2) as f64;
                    sum_w += w;
                    sum_wd2 += w * d2 as f64;
                }
            }
        }
    }
    (sum_wd2 / sum_w) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The joint form gives the separate forms' values (to rounding), and the padding
    /// distance weighs exactly nothing.
    #[test]
    fn weight_and_slope_together_match_them_apart() {
        let k = DensityKernel::new(0.0025);
        for d2 in [0.0, 1e-5, 6e-5, 9.9e-5] {
            let (weight, slope) = k.weight_and_slope_sq(d2);
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-6 * b.abs();
            assert!(close(weight, k.weight_sq(d2)), "d² {d2}");
            assert!(close(slope, k.slope_over_distance_sq(d2)), "d² {d2}");
        }
        let (weight, slope) = k.weight_and_slope_sq(k.beyond_sq());
        assert_eq!((weight, slope * slope * k.beyond_sq()), (0.0, 0.0));
    }

    #[test]
    fn rest_density_counts_exactly_the_26_neighbours() {
        let r = 0.01;
        let k = DensityKernel::new(r);
        // Shell distances 2r, 2√2r, 2√3r are inside the support; 4r is not.
        assert!(k.weight(2.0 * 3f32.sqrt() * r) > 0.0);
        assert_eq!(k.weight(4.0 * r), 0.0);
        let w = |d2: f32| (1.0 - d2 / 16.0f32).powi(3);
        let expect = 6.0 * w(4.0) + 12.0 * w(8.0) + 8.0 * w(12.0);
        assert!((rest_density(&k, r) - expect).abs() < 1e-5);
    }
}
