//! The point of a triangle nearest a given point (Ericson, "Real-Time Collision Detection",
//! 5.1.5): contact's signed distances and the decimation's Hausdorff check both measure by it.

use glam::Vec3;

/// The point of triangle `abc` closest to `p` (Ericson, Real-Time Collision Detection, 5.1.5).
pub fn closest_point_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    if !denom.is_finite() {
        // A degenerate triangle: the nearest point of its edges.
        return [(a, b), (b, c), (c, a)]
            .map(|(s, e)| {
                let t = ((p - s).dot(e - s) / (e - s).length_squared().max(f32::MIN_POSITIVE))
                    .clamp(0.0, 1.0);
                s + (e - s) * t
            })
            .into_iter()
            .min_by(|x, y| p.distance_squared(*x).total_cmp(&p.distance_squared(*y)))
            .unwrap_or(a);
    }
    a + ab * (vb * denom) + ac * (vc * denom)
}
