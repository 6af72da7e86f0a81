//! The liquid's linear and angular momentum, and the rigid correction that restores given
//! totals.
//!
//! The implicit viscosity's pair terms conserve both momenta exactly, but CG stops at a
//! tolerance and its unconverged solution does not. The correction that restores them is the
//! smallest rigid one: a uniform velocity plus a rotation about the centre of mass, which
//! changes the momenta by exactly the deficit at the least kinetic energy. It is as small as
//! the solve's residual and, being rigid, cannot excite the stiff modes the residual lives in
//! (see `viscosity_implicit.rs` on the update this replaced). It is one motion for all the
//! liquid: separate drops share it, and so exchange momentum of the residual's size.

use glam::{DMat3, DVec3, DVec4, Vec3};
use rayon::prelude::*;

use super::cg::chunked_sum;

/// Momentum totals: linear, and angular about the body's centre of mass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub linear: DVec3,
    pub angular: DVec3,
}

impl std::ops::Add for Totals {
    type Output = Totals;
    fn add(self, other: Totals) -> Totals {
        Totals {
            linear: self.linear + other.linear,
            angular: self.angular + other.angular,
        }
    }
}

impl std::ops::Sub for Totals {
    type Output = Totals;
    fn sub(self, other: Totals) -> Totals {
        Totals {
            linear: self.linear - other.linear,
            angular: self.angular - other.angular,
        }
    }
}

/// The particles' mass distribution: what turns a momentum deficit into a rigid correction.
pub struct Body {
    mass: f64,
    centre: DVec3,
    /// Inverse inertia tensor about the centre; `None` where angular momentum is not kept
    /// (periodic space, in which positions wrap and have no common centre).
    inverse_inertia: Option<DMat3>,
}

impl Body {
    /// `rotational`: whether angular momentum is measured and restored.
    pub fn new(x: &[Vec3], mass: impl Fn(usize) -> f32 + Sync, rotational: bool) -> Self {
        // Σ m x and Σ m, side by side.
        let sums = chunked_sum(x.len(), DVec4::ZERO, |i| {
            let m = mass(i) as f64;
            (x[i].as_dvec3() * m).extend(m)
        });
        let total = sums.w;
        let centre = sums.truncate() / total.max(f64::MIN_POSITIVE);
        let inverse_inertia = rotational.then(|| {
            let inertia = chunked_sum(x.len(), DMat3::ZERO, |i| {
                let r = x[i].as_dvec3() - centre;
                let outer = DMat3::from_cols(r * r.x, r * r.y, r * r.z);
                (DMat3::from_diagonal(DVec3::splat(r.length_squared())) - outer) * mass(i) as f64
            });
            // A body without extent along some axis (a line of particles) has no inertia about
            // it, and no pair term can give it angular momentum about it: the regularisation,
            // relative to the trace, keeps the inverse finite without noticeably changing the
            // rest (the inertia is positive semi-definite, so with a positive trace the sum is
            // positive definite).
            let trace = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
            if trace > 0.0 {
                (inertia + DMat3::from_diagonal(DVec3::splat(1e-9 * trace))).inverse()
            } else {
                // A body without any extent (a lone particle: its centre is its position,
                // exactly, as Σ m x / Σ m is exact for one term) has no inertia at all and no
                // angular momentum about its centre to measure or restore: no spin. (An
                // absolute floor on the diagonal did not do: the floor's cube, the
                // determinant, underflowed to 0, the inverse was ∞ and ∞ · 0 made the lone
                // particle of a one-particle liquid NaN, issue 32.)
                DMat3::ZERO
            }
        });
        Body {
            mass: total,
            centre,
            inverse_inertia,
        }
    }

    /// Σ p_i and Σ (x_i − c) × p_i for the per-particle momenta `momentum(i)`.
    pub fn totals(&self, x: &[Vec3], momentum: impl Fn(usize) -> Vec3 + Sync) -> Totals {
        chunked_sum(x.len(), Totals::default(), |i| {
            let p = momentum(i).as_dvec3();
            Totals {
                linear: p,
                angular: if self.inverse_inertia.is_some() {
                    (x[i].as_dvec3() - self.centre).cross(p)
                } else {
                    DVec3::ZERO
                },
            }
        })
    }

    /// Adds to `v` the rigid velocity field whose momenta are `deficit`.
    pub fn correct(&self, x: &[Vec3], v: &mut [Vec3], deficit: Totals) {
        let uniform = deficit.linear / self.mass.max(f64::MIN_POSITIVE);
        let spin = self
            .inverse_inertia
            .map_or(DVec3::ZERO, |inverse| inverse * deficit.angular);
        if uniform == DVec3::ZERO && spin == DVec3::ZERO {
            return;
        }
        v.par_iter_mut().zip(x).for_each(|(v, x)| {
            let r = x.as_dvec3() - self.centre;
            *v += (uniform + spin.cross(r)).as_vec3();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_particle_is_corrected_by_a_uniform_velocity_only() {
        // Issue 32: a one-particle liquid turned NaN here (an infinite inverse inertia).
        let x = [Vec3::new(0.3, -0.7, 1.1)];
        let body = Body::new(&x, |_| 2.5e-5, true);
        let mut v = [Vec3::new(0.0, 0.0, -1.0)];
        let target = Totals {
            linear: DVec3::new(0.0, 0.0, -2.5e-5 * 1.5),
            angular: DVec3::ZERO,
        };
        let deficit = target - body.totals(&x, |i| v[i] * 2.5e-5);
        assert_eq!(deficit.angular, DVec3::ZERO);
        body.correct(&x, &mut v, deficit);
        assert!((v[0] - Vec3::new(0.0, 0.0, -1.5)).length() < 1e-6, "{v:?}");
    }

    #[test]
    fn a_correction_restores_both_momenta_with_a_rigid_motion() {
        // An irregular cloud of particles of two masses.
        let x: Vec<Vec3> = (0..500)
            .map(|i| {
                let f = i as f32;
                Vec3::new((f * 0.37).sin(), (f * 0.71).cos(), (f * 0.13).sin() * 0.5) * 0.1
            })
            .collect();
        let mass = |i: usize| if i.is_multiple_of(3) { 2.0 } else { 1.0 };
        let mut v: Vec<Vec3> = (0..x.len())
            .map(|i| Vec3::new((i as f32 * 1.3).sin(), 0.2, (i as f32 * 0.9).cos()))
            .collect();
        let body = Body::new(&x, mass, true);
        let momenta = |v: &[Vec3]| body.totals(&x, |i| v[i] * mass(i));
        let target = Totals {
            linear: DVec3::new(3.0, -1.0, 0.5),
            angular: DVec3::new(0.01, 0.02, -0.03),
        };
        let before = v.clone();
        let deficit = target - momenta(&v);
        body.correct(&x, &mut v, deficit);
        let reached = momenta(&v);
        assert!(
            (reached.linear - target.linear).length() < 1e-5,
            "{reached:?}"
        );
        assert!(
            (reached.angular - target.angular).length() < 1e-6,
            "{reached:?}"
        );
        // Rigid: the change's relative velocity between any two particles is perpendicular
        // to the line joining them, so distances do not change to first order.
        for (i, j) in [(0, 1), (7, 400), (123, 321)] {
            let dv = (v[i] - before[i]) - (v[j] - before[j]);
            let d = (x[i] - x[j]).normalize();
            assert!(dv.dot(d).abs() < 1e-5, "pair {i},{j}: {}", dv.dot(d));
        }
    }
}
