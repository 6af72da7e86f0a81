//! Rigid bodies' states in a particle file (issue 44): one header comment per body,
//!
//! ```text
//! comment gloop rigid_body K px py pz qx qy qz qw vx vy vz wx wy wz
//! ```
//!
//! K the body's index among the scene's rigid bodies; p its centre of mass in the world (m);
//! q its orientation relative to the pose it started the bake in (a unit quaternion, x y z w;
//! its world matrix is then T(p) R(q) T(−p₀) M₀, with p₀ and M₀ its centre and matrix at the
//! bake's first frame); v and w its linear (m/s) and angular (rad/s) velocity in the world.
//! Numbers are f64 written in their shortest form that reads back to the same bits, so a
//! resumed bake continues bit-identically. A file without such comments (every file written
//! before rigid bodies) has no bodies.

use glam::{DQuat, DVec3};

use crate::sim::BodyState;

const PREFIX: &str = "gloop rigid_body ";

/// The comment lines for `bodies`, in order.
pub fn comments(bodies: &[BodyState]) -> Vec<String> {
    bodies
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let q = b.orientation;
            let numbers = [
                b.position.x,
                b.position.y,
                b.position.z,
                q.x,
                q.y,
                q.z,
                q.w,
                b.velocity.x,
                b.velocity.y,
                b.velocity.z,
                b.angular_velocity.x,
                b.angular_velocity.y,
                b.angular_velocity.z,
            ];
            let numbers: Vec<String> = numbers.iter().map(|x| format!("{x:e}")).collect();
            format!("{PREFIX}{k} {}", numbers.join(" "))
        })
        .collect()
}

/// The bodies the comments give, in order; an error naming what is wrong for a malformed or
/// out-of-order line.
pub fn from_comments(comments: &[String]) -> Result<Vec<BodyState>, String> {
    let mut bodies = Vec::new();
    for line in comments {
        let Some(rest) = line.strip_prefix(PREFIX) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let bad = || format!("malformed rigid body comment '{line}'");
        if fields.len() != 14 || fields[0].parse::<usize>().ok() != Some(bodies.len()) {
            return Err(bad());
        }
        let x: Vec<f64> = fields[1..]
            .iter()
            .map(|f| f.parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        if x.iter().any(|x| !x.is_finite()) {
            return Err(bad());
        }
        bodies.push(BodyState {
            position: DVec3::new(x[0], x[1], x[2]),
            orientation: DQuat::from_xyzw(x[3], x[4], x[5], x[6]),
            velocity: DVec3::new(x[7], x[8], x[9]),
            angular_velocity: DVec3::new(x[10], x[11], x[12]),
        });
    }
    Ok(bodies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_read_back_to_the_bit() {
        let bodies = vec![
            BodyState {
                position: DVec3::new(0.1, -2.5e-7, 1.0 / 3.0),
                orientation: DQuat::from_scaled_axis(DVec3::new(0.3, 0.1, -0.7)),
                velocity: DVec3::new(1e-300, -0.0, 123456.789),
                angular_velocity: DVec3::new(std::f64::consts::PI, 0.0, -1e-9),
            },
            BodyState {
                position: DVec3::ONE,
                orientation: DQuat::IDENTITY,
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
            },
        ];
        let mut lines = vec!["gloop frame 3".to_string()];
        lines.extend(comments(&bodies));
        let read = from_comments(&lines).unwrap();
        assert_eq!(read.len(), 2);
        for (a, b) in read.iter().zip(&bodies) {
            assert_eq!(
                a.position.to_array().map(f64::to_bits),
                b.position.to_array().map(f64::to_bits)
            );
            assert_eq!(
                a.orientation.to_array().map(f64::to_bits),
                b.orientation.to_array().map(f64::to_bits)
            );
            assert_eq!(
                a.velocity.to_array().map(f64::to_bits),
                b.velocity.to_array().map(f64::to_bits)
            );
        }
        assert_eq!(read, bodies);
        let broken = vec!["gloop rigid_body 0 1 2 3".to_string()];
        assert!(from_comments(&broken).unwrap_err().contains("malformed"));
        let skipped = vec![comments(&bodies)[1].clone()];
        assert!(from_comments(&skipped).is_err(), "body 1 without body 0");
        assert!(from_comments(&["gloop frame 1".into()]).unwrap().is_empty());
    }
}
