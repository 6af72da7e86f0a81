//! Symmetric 3×3 matrices as their six distinct entries: the blocks of the viscosity's
//! operator (k x xᵀ per pair, the masses and walls on the diagonal) and of its
//! preconditioner, at two thirds of a full matrix's memory and arithmetic.

use glam::{Mat3, Vec3};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Symmetric3 {
    diagonal: Vec3,
    /// (xy, xz, yz)
    off: Vec3,
}

impl Symmetric3 {
    pub const ZERO: Self = Symmetric3 {
        diagonal: Vec3::ZERO,
        off: Vec3::ZERO,
    };

    /// s times the identity.
    pub fn scaled_identity(s: f32) -> Self {
        Symmetric3 {
            diagonal: Vec3::splat(s),
            off: Vec3::ZERO,
        }
    }

    /// k x xᵀ.
    #[inline(always)]
    pub fn outer(x: Vec3, k: f32) -> Self {
        let kx = k * x;
        Symmetric3 {
            diagonal: kx * x,
            off: Vec3::new(kx.x * x.y, kx.x * x.z, kx.y * x.z),
        }
    }

    /// The symmetric part of `m` (its off-diagonal pairs averaged).
    pub fn from_mat3(m: Mat3) -> Self {
        Symmetric3 {
            diagonal: Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z),
            off: Vec3::new(
                0.5 * (m.y_axis.x + m.x_axis.y),
                0.5 * (m.z_axis.x + m.x_axis.z),
                0.5 * (m.z_axis.y + m.y_axis.z),
            ),
        }
    }

    /// Entries (xx, yy, zz, xy, xz, yz).
    pub fn entries(self) -> [f32; 6] {
        let (d, o) = (self.diagonal, self.off);
        [d.x, d.y, d.z, o.x, o.y, o.z]
    }

    /// The inverse, by cofactors (infinite or NaN if singular).
    pub fn inverse(self) -> Self {
        let [a, b, c, d, e, f] = self.entries();
        let (ca, cb, cc) = (b * c - f * f, a * c - e * e, a * b - d * d);
        let (cd, ce, cf) = (e * f - c * d, d * f - b * e, d * e - a * f);
        let inverse_determinant = 1.0 / (a * ca + d * cd + e * ce);
        Symmetric3 {
            diagonal: Vec3::new(ca, cb, cc) * inverse_determinant,
            off: Vec3::new(cd, ce, cf) * inverse_determinant,
        }
    }
}

impl std::ops::Mul<Vec3> for Symmetric3 {
    type Output = Vec3;
    #[inline(always)]
    fn mul(self, v: Vec3) -> Vec3 {
        let (d, o) = (self.diagonal, self.off);
        Vec3::new(
            d.x * v.x + o.x * v.y + o.y * v.z,
            o.x * v.x + d.y * v.y + o.z * v.z,
            o.y * v.x + o.z * v.y + d.z * v.z,
        )
    }
}

impl std::ops::Add for Symmetric3 {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Symmetric3 {
            diagonal: self.diagonal + other.diagonal,
            off: self.off + other.off,
        }
    }
}

impl std::ops::AddAssign for Symmetric3 {
    #[inline(always)]
    fn add_assign(&mut self, other: Self) {
        self.diagonal += other.diagonal;
        self.off += other.off;
    }
}

impl std::ops::SubAssign for Symmetric3 {
    #[inline(always)]
    fn sub_assign(&mut self, other: Self) {
        self.diagonal -= other.diagonal;
        self.off -= other.off;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Mat3 {
        Mat3::from_cols(
            Vec3::new(4.0, 1.0, -2.0),
            Vec3::new(1.0, 3.0, 0.5),
            Vec3::new(-2.0, 0.5, 5.0),
        )
    }

    #[test]
    fn a_symmetric_block_multiplies_as_its_matrix() {
        let v = Vec3::new(0.3, -1.7, 2.2);
        assert!((Symmetric3::from_mat3(example()) * v - example() * v).length() < 1e-6);
        let x = Vec3::new(0.6, -0.48, 0.64);
        let outer = Mat3::from_cols(x * x.x, x * x.y, x * x.z) * 2.5;
        assert!((Symmetric3::outer(x, 2.5) * v - outer * v).length() < 1e-6);
    }

    #[test]
    fn a_symmetric_block_inverts_as_its_matrix() {
        let v = Vec3::new(0.3, -1.7, 2.2);
        let inverse = Symmetric3::from_mat3(example()).inverse();
        assert!((inverse * v - example().inverse() * v).length() < 1e-6);
    }
}
