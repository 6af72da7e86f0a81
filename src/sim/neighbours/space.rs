//! Minimum-image geometry of the simulation domain.

use glam::Vec3;

use crate::scene::Domain;

/// Minimum-image geometry: plain differences, except along periodic domain axes, where the
/// nearest periodic copy is used.
#[derive(Clone, Copy, Debug)]
pub struct Space {
    pub min: Vec3,
    pub size: Vec3,
    pub periodic: [bool; 3],
    /// Hoisted out of `delta`, which runs for every pair.
    any_periodic: bool,
}

impl Space {
    pub fn new(domain: &Domain) -> Self {
        Space::from_parts(domain.min, domain.size(), domain.periodic)
    }

    pub fn from_parts(min: Vec3, size: Vec3, periodic: [bool; 3]) -> Self {
        Space {
            min,
            size,
            periodic,
            any_periodic: periodic.iter().any(|&p| p),
        }
    }

    /// `a - b`, taking the nearest periodic image of `b`.
    #[inline(always)]
    pub fn delta(&self, a: Vec3, b: Vec3) -> Vec3 {
        let mut d = a - b;
        if !self.any_periodic {
            return d;
        }
        for axis in 0..3 {
            if self.periodic[axis] {
                let l = self.size[axis];
                d[axis] -= l * (d[axis] / l).round();
            }
        }
        d
    }

    /// `delta` for 16-byte vectors (one SIMD load and subtraction per pair).
    #[inline(always)]
    pub fn delta_aligned(&self, a: glam::Vec3A, b: glam::Vec3A) -> glam::Vec3A {
        if !self.any_periodic {
            return a - b;
        }
        self.delta(a.into(), b.into()).into()
    }

    /// Brings a position back into the domain along periodic axes.
    pub fn wrap(&self, mut p: Vec3) -> Vec3 {
        for axis in 0..3 {
            if self.periodic[axis] {
                let l = self.size[axis];
                p[axis] = self.min[axis] + (p[axis] - self.min[axis]).rem_euclid(l);
                if p[axis] >= self.min[axis] + l {
                    p[axis] = self.min[axis];
                }
            }
        }
        p
    }

    pub fn is_periodic(&self) -> bool {
        self.any_periodic
    }
}
