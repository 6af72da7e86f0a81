//! The implicit viscosity's operator (`viscosity_implicit.rs`): the pairs of the system, their
//! coupling strengths, and the kernel and lattice calibration they are computed from.
//!
//! (A v)_i = m_i v_i + Σ_j k_ij x_ij (x_ij·(v_i − v_j)) + walls, with
//! k_ij = δt·2(d+2) μ_ij V² (−W'(r)/(r (r² + 0.01h²))) / (the lattice's long-wave value).

use glam::Vec3;

use super::bf16;
use super::cg;
use super::csr::{gather_rows, Rows};
use super::kernels::VISCOSITY_SUPPORT_RADII;
use super::neighbourhoods::Neighbourhoods;
use super::neighbours::{NeighbourList, Row, Space};
use super::objects::ObjectParticles;
use super::params::{shared_value, Params};
use super::rigid::reactions::NO_BODY;
use super::LiquidParticles;

mod eight_pairs;
mod pair_weights;

use pair_weights::pair_weights;

/// Dimension factor 2(d+2) of the projected Laplacian (d = 3).
const LAPLACIAN_FACTOR: f32 = 10.0;
/// The cubic spline kernel of support `h` (as SPlisHSPlasH's CubicKernel): only its radial
/// derivative is needed.
#[derive(Clone, Copy, Debug)]
struct CubicSpline {
    h: f32,
    gradient_scale: f32,
}

impl CubicSpline {
    fn new(h: f32) -> Self {
        CubicSpline {
            h,
            gradient_scale: 48.0 / (std::f32::consts::PI * h * h * h * h),
        }
    }

    /// dW/dr at distance `r` (≤ 0).
    #[inline(always)]
    fn derivative(&self, r: f32) -> f32 {
        let q = r / self.h;
        if q >= 1.0 {
            0.0
        } else if q <= 0.5 {
            self.gradient_scale * q * (3.0 * q - 2.0)
        } else {
            -self.gradient_scale * (1.0 - q) * (1.0 - q)
        }
    }

    /// −W'(r)/(r (r² + 0.01h²)): the pair weight of the projected Laplacian.
    #[inline(always)]
    fn laplacian_weight(&self, r2: f32) -> f32 {
        if r2 <= 0.0 || r2 >= self.h * self.h {
            return 0.0;
        }
        let r = r2.sqrt();
        -self.derivative(r) / (r * (r2 + 0.01 * self.h * self.h))
    }
}

/// Long-wave value of the discrete operator on the 2r lattice, relative to the continuum:
/// for u_x = f(y), the operator gives F·ν·f'' with F = −(d+2) Σ_j V x_j² y_j² W'/(r(r²+ε)).
/// (F = 1 for the exact integral; the sum over a 2-spacing support gives 0.698.)
fn lattice_factor(kernel: &CubicSpline, radius: f32) -> f32 {
    let s = 2.0 * radius;
    let volume = s * s * s;
    let reach = (VISCOSITY_SUPPORT_RADII / 2.0).ceil() as i32 + 1;
    let mut sum = 0.0f64;
    for z in -reach..=reach {
        for y in -reach..=reach {
            for x in -reach..=reach {
                let d = Vec3::new(x as f32, y as f32, z as f32) * s;
                let w = kernel.laplacian_weight(d.length_squared()) as f64;
                sum += w * (d.x as f64).powi(2) * (d.y as f64).powi(2);
            }
        }
    }
    (LAPLACIAN_FACTOR as f64 / 2.0 * volume as f64 * sum) as f32
}

/// A coupling strength k_ij in 16 bits (`bf16`). Relative precision 2^-8, far finer than the
/// kernel's own discretisation error (the viscometer's measured ν moved by under 0.01%), at
/// half the memory of an f32. k_ji is computed from the same numbers as k_ij, so both round
/// alike and every pair term stays exactly antisymmetric.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
struct Strength(u16);

impl Strength {
    fn new(k: f32) -> Self {
        Strength(bf16::round(k))
    }

    #[inline(always)]
    fn get(self) -> f32 {
        bf16::widen(self.0)
    }
}

/// Pairs of the system with their coupling strengths k_ij = δt·c_ij, so that the implicit
/// operator is (A v)_i = m_i v_i + Σ_j k_ij x_ij (x_ij·(v_i − v_j)). The offsets x_ij are
/// taken from the positions again rather than stored (a stored vector per pair tripled the
/// couplings' memory); x_ji = −x_ij and k_ji = k_ij bitwise, so each pair term is exactly
/// antisymmetric.
///
/// The coupled neighbours are not listed again either: the near lists are reordered so each
/// particle's coupled neighbours come first, and `strength` holds only their k_ij, lined up
/// with them. Storing (j, k_ij) per pair made the couplings the largest array of the solve,
/// and the honey drop's memory peak.
pub(super) struct Couplings<'a> {
    positions: &'a [Vec3],
    space: Space,
    /// The near lists, each particle's coupled neighbours first.
    near: &'a NeighbourList,
    /// k_ij of particle i's first `strength.of(i).len()` near neighbours, as `Strength`s.
    strength: Rows<Strength>,
    /// Couplings to obstacle particles (no-slip walls), with the obstacle's velocity: the same
    /// operator with the wall's velocity held fixed, scaled by the solid's friction so an
    /// artist's "how much it sticks" also sets how strongly the wall drags viscous liquid.
    /// Without them, the wall's drag reached the liquid only through the first layer's
    /// friction and weakened as the resolution got finer.
    walls: Rows<(Vec3, Vec3)>,
    /// Couplings to rigid bodies' particles: e_ik, the particle's offset from its body's
    /// centre of mass r_k, and the body. Unlike a wall's, a body's velocity is unknown: the
    /// solve finds it with the liquid's (`BodyNodes`). Empty without bodies.
    bodies: Rows<(Vec3, Vec3, u32)>,
    /// The number of liquid particles: unknowns from here on are the bodies'.
    liquid_len: usize,
    /// The bodies' nodes of the system.
    nodes: BodyNodes,
}

/// The rigid bodies as unknowns of the viscosity solve (strong coupling of the viscous
/// exchange, issue 44): after the liquid's velocities come each body's velocity U and
/// angular velocity Ω, rows M U + Σ f and I Ω + Σ r × f, f = e (e·(u_k − v_i)) with
/// u_k = U + Ω × r_k, the reaction of the liquid rows' terms. The system stays symmetric
/// positive definite (the coupling is Σ ½ (e·(v_i − u_k))²). Weakly coupled, a ball's
/// viscous exchange with honey, which drags several times the ball's mass of liquid within
/// one substep, threw a steel ball out of the liquid at 5.7 m/s in its first frame.
#[derive(Default)]
pub(super) struct BodyNodes {
    pub mass: Vec<f32>,
    /// World inertia about the centre of mass.
    pub inertia: Vec<glam::Mat3>,
    /// The preconditioner's diagonal blocks: M + Σ e eᵀ and I + Σ (r×e)(r×e)ᵀ per body.
    blocks: Vec<cg::Symmetric3>,
}

/// A force and a torque, summed.
#[derive(Clone, Copy, Default)]
struct ForceTorque(Vec3, Vec3);

impl std::ops::Add for ForceTorque {
    type Output = ForceTorque;
    fn add(self, o: ForceTorque) -> ForceTorque {
        ForceTorque(self.0 + o.0, self.1 + o.1)
    }
}

/// The verdicts on a row's pairs when all the liquid has one viscosity, `scale_mu` = scale·μ:
/// k_ij = scale_mu · w for a pair within the support, `None` beyond it (w ≤ 0), as
/// `Couplings::build` judges any pair, without a branch per pair or a look at j.
///
/// Judged pair by pair as the general rule does, a pair's branch on its weight went either
/// way at random (a third of a near row lies beyond the support) and its verdict was pushed
/// with a capacity check. Measured with a temporary timer per solve (two rounds, alternating
/// binaries; the same bits): the couplings' build took 2.2/2.1 → 1.6/1.5 ms on the honey
/// drop's frames 2-13 and 12.1/11.6 → 8.4/8.2 ms on the fan's 2-4; the honey drop's 12
/// frames (`examples/frame_profile.rs`, three rounds) 1.59/1.63/1.56 → 1.49/1.52/1.51 s.
/// (Inlined into the build's closure, it moved the compiler's inlining elsewhere and the fan
/// lost what it gained.)
#[inline(never)]
fn one_viscosity_verdicts(weights: &[f32], scale_mu: f32, verdicts: &mut Vec<Option<Strength>>) {
    verdicts.extend(weights.iter().map(|&w| {
        let beyond_support = w <= 0.0;
        (!beyond_support).then_some(Strength::new(scale_mu * w))
    }));
}

impl<'a> Couplings<'a> {
    pub(super) fn build(
        p: &Params,
        mu: &[f32],
        liquid: &'a LiquidParticles,
        objects: &ObjectParticles,
        lists: &'a mut Neighbourhoods,
    ) -> Self {
        let kernel = CubicSpline::new(VISCOSITY_SUPPORT_RADII * p.radius);
        let volume = (2.0 * p.radius).powi(3);
        let scale = LAPLACIAN_FACTOR * volume * volume * p.dt / lattice_factor(&kernel, p.radius);
        let x = &liquid.position;
        // One viscosity for all the liquid (most scenes) is looked up once, not per pair: the
        // material of j is a load from anywhere in memory. (The pair's mean of two equal
        // values is that value exactly, so the strengths are the same bits as the general
        // rule's, which a shared viscosity of zero still takes: every verdict `None`.)
        let shared_mu = shared_value(mu).copied().filter(|&mu| mu > 0.0);
        let strength = lists
            .near
            .list
            .pick_first(|i, row, weights: &mut Vec<f32>, verdicts| {
                pair_weights(&p.space, &kernel, x, i, row, weights);
                if let Some(mu) = shared_mu {
                    return one_viscosity_verdicts(weights, scale * mu, verdicts);
                }
                verdicts.extend(row.into_iter().zip(weights.iter()).map(|(j, &w)| {
                    if w <= 0.0 {
                        return None;
                    }
                    let mu_ij = 0.5
                        * (mu[liquid.material[i] as usize]
                            + mu[liquid.material[j as usize] as usize]);
                    (mu_ij > 0.0).then(|| Strength::new(scale * mu_ij * w))
                }));
            });
        let lists: &'a Neighbourhoods = lists;
        // A wall term: e_ik = x_ik (scale μ_ik w)^½ with the wall's velocity, and its body.
        let wall = move |i: usize, k: u32| {
            let k = k as usize;
            let mi = mu[liquid.material[i] as usize];
            let d = p.space.delta(x[i], objects.position[k]);
            let w = kernel.laplacian_weight(d.length_squared());
            let mu_ik = mi * p.friction[objects.material[k] as usize];
            (w > 0.0 && mu_ik > 0.0).then(|| {
                let e = d * (scale * mu_ik * w).sqrt();
                (e, objects.velocity[k], objects.body_of(k))
            })
        };
        let walls = gather_rows(liquid.len(), |i| {
            let wall = &wall;
            lists
                .objects
                .of(i)
                .into_iter()
                .filter_map(move |k| wall(i, k).filter(|t| t.2 == NO_BODY).map(|t| (t.0, t.1)))
        });
        let bodies = match objects.has_bodies() {
            true => gather_rows(liquid.len(), |i| {
                let wall = &wall;
                lists.objects.of(i).into_iter().filter_map(move |k| {
                    let (e, _, b) = wall(i, k).filter(|t| t.2 != NO_BODY)?;
                    let centre = objects.rigid[b as usize].state.position.as_vec3();
                    Some((e, objects.position[k as usize] - centre, b))
                })
            }),
            false => Rows::default(),
        };
        let nodes = BodyNodes::of(objects, &bodies, liquid.len());
        Couplings {
            positions: x,
            space: p.space,
            near: &lists.near.list,
            strength,
            walls,
            bodies,
            liquid_len: liquid.len(),
            nodes,
        }
    }

    /// Σ_k e_ik (e_ik·(v_i − u_k)) over the walls near i (u_k the wall's velocity).
    #[inline(always)]
    pub(super) fn wall_sum(&self, i: usize, vi: Vec3) -> Vec3 {
        self.walls
            .of(i)
            .iter()
            .fold(Vec3::ZERO, |s, (e, u)| s + *e * e.dot(vi - *u))
    }

    /// The unknowns in all: the liquid's, then two per body.
    pub(super) fn unknowns(&self) -> usize {
        self.liquid_len + 2 * self.nodes.mass.len()
    }

    pub(super) fn nodes_mass(&self, b: usize) -> f32 {
        self.nodes.mass[b]
    }

    pub(super) fn nodes_inertia(&self, b: usize) -> glam::Mat3 {
        self.nodes.inertia[b]
    }

    pub(super) fn body_count(&self) -> usize {
        self.nodes.mass.len()
    }

    /// Σ e_ik (e_ik·(v_i − u_k)) over the bodies' particles near liquid particle i, with the
    /// bodies' velocities read from `x` (the liquid's velocity change through the bodies,
    /// negated).
    #[inline(always)]
    pub(super) fn body_wall_sum(&self, i: usize, vi: Vec3, x: &[Vec3]) -> Vec3 {
        if self.bodies.is_empty() {
            return Vec3::ZERO;
        }
        let n = self.liquid_len;
        self.bodies.of(i).iter().fold(Vec3::ZERO, |s, (e, r, b)| {
            let b = *b as usize;
            let u = x[n + 2 * b] + x[n + 2 * b + 1].cross(*r);
            s + *e * e.dot(vi - u)
        })
    }

    /// Σ over the liquid of what body `b` takes through its couplings, f = e (e·(v_i − u_k)),
    /// and its torque r × f, from the velocities `x` (the same bits at any thread count).
    pub(super) fn body_takes(&self, b: usize, x: &[Vec3]) -> (Vec3, Vec3) {
        let n = self.liquid_len;
        let (ub, wb) = (x[n + 2 * b], x[n + 2 * b + 1]);
        let sum = cg::chunked_sum(n, ForceTorque::default(), |i| {
            self.bodies.of(i).iter().filter(|t| t.2 as usize == b).fold(
                ForceTorque::default(),
                |s, (e, r, _)| {
                    let f = *e * e.dot(x[i] - (ub + wb.cross(*r)));
                    s + ForceTorque(f, r.cross(f))
                },
            )
        });
        (sum.0, sum.1)
    }

    /// The bodies' rows of the operator into `out` (one entry per body unknown).
    pub(super) fn body_rows(&self, x: &[Vec3], out: &mut [Vec3]) {
        let n = self.liquid_len;
        for b in 0..self.body_count() {
            let (force, torque) = self.body_takes(b, x);
            out[2 * b] = self.nodes.mass[b] * x[n + 2 * b] - force;
            out[2 * b + 1] = self.nodes.inertia[b] * x[n + 2 * b + 1] - torque;
        }
    }

    /// Σ_k e_ik (e_ik·v_i): the walls' part of the operator (their velocities, known, are on
    /// the right-hand side).
    #[inline(always)]
    pub(super) fn wall_drag(&self, i: usize, vi: Vec3) -> Vec3 {
        self.walls
            .of(i)
            .iter()
            .fold(Vec3::ZERO, |s, (e, _)| s + *e * e.dot(vi))
    }

    /// Calls `f(j, k_ij)` for particle i's coupled neighbours j (one loop per index width).
    #[inline(always)]
    fn for_each_pair(&self, i: usize, mut f: impl FnMut(usize, f32)) {
        if i >= self.liquid_len {
            return; // a body's unknown: no pairs of the near lists
        }
        let strength = self.strength.of(i);
        match self.near.of(i).head(strength.len()) {
            Row::Narrow(js) => js
                .iter()
                .zip(strength)
                .for_each(|(&j, k)| f(j as usize, k.get())),
            Row::Wide(js) => js
                .iter()
                .zip(strength)
                .for_each(|(&j, k)| f(j as usize, k.get())),
        }
    }

    /// Σ_j k_ij x_ij (x_ij·(v_i − v_j)): the (momentum-conserving) viscous impulse on i, negated.
    /// (CG's hot loop, eight pairs at a time: `eight_pairs`.)
    #[inline(always)]
    pub(super) fn pair_sum(&self, i: usize, v: &[Vec3]) -> Vec3 {
        let strength = self.strength.of(i);
        eight_pairs::pair_sum(&self.space, self.positions, v, i, self.near.of(i), strength)
    }

    /// Calls `f(j, K_ij)` for particle i's coupled neighbours j, with K_ij = k_ij x_ij x_ijᵀ
    /// the pair's block: (A v)_i = m_i v_i + Σ_j K_ij (v_i − v_j) + walls.
    #[inline(always)]
    fn pair_blocks(&self, i: usize, mut f: impl FnMut(usize, cg::Symmetric3)) {
        if i >= self.liquid_len {
            return; // a body's unknown: no pairs of the near lists
        }
        let xi = self.positions[i];
        self.for_each_pair(i, |j, k| {
            f(
                j,
                cg::Symmetric3::outer(self.space.delta(xi, self.positions[j]), k),
            );
        });
    }

    /// Σ_k e_ik e_ikᵀ added to `start`: the walls near i's part of A's diagonal block.
    fn wall_block(&self, i: usize, start: cg::Symmetric3) -> cg::Symmetric3 {
        let walls = self
            .walls
            .of(i)
            .iter()
            .fold(start, |d, (e, _)| d + cg::Symmetric3::outer(*e, 1.0));
        if self.bodies.is_empty() {
            return walls;
        }
        self.bodies
            .of(i)
            .iter()
            .fold(walls, |d, (e, _, _)| d + cg::Symmetric3::outer(*e, 1.0))
    }

    /// The operator as CG's preconditioners read it: these couplings with the particles'
    /// masses.
    pub(super) fn with_mass<M: Fn(usize) -> f32 + Sync>(&self, mass: M) -> WithMass<'_, 'a, M> {
        WithMass {
            couplings: self,
            mass,
        }
    }
}

impl BodyNodes {
    /// The bodies' masses and world inertias, and their blocks with the couplings `bodies`
    /// of `n` liquid particles.
    fn of(objects: &ObjectParticles, bodies: &Rows<(Vec3, Vec3, u32)>, n: usize) -> Self {
        let mut nodes = BodyNodes::default();
        for body in &objects.rigid {
            let (mass, inertia) = (body.mass as f32, body.world_inertia_now().as_mat3());
            nodes.mass.push(mass);
            nodes.inertia.push(inertia);
            nodes.blocks.push(cg::Symmetric3::scaled_identity(mass));
            nodes.blocks.push(cg::Symmetric3::from_mat3(inertia));
        }
        if bodies.is_empty() {
            return nodes;
        }
        for i in 0..n {
            for (e, r, b) in bodies.of(i) {
                let b = *b as usize;
                nodes.blocks[2 * b] += cg::Symmetric3::outer(*e, 1.0);
                nodes.blocks[2 * b + 1] += cg::Symmetric3::outer(r.cross(*e), 1.0);
            }
        }
        nodes
    }
}

/// The operator as `cg::PairOperator`: the couplings with the particles' masses.
pub(super) struct WithMass<'c, 'a, M> {
    couplings: &'c Couplings<'a>,
    mass: M,
}

impl<M: Fn(usize) -> f32 + Sync> cg::PairOperator for WithMass<'_, '_, M> {
    fn own_block(&self, i: usize) -> cg::Symmetric3 {
        if i >= self.couplings.liquid_len {
            return self.couplings.nodes.blocks[i - self.couplings.liquid_len];
        }
        let mass = (self.mass)(i);
        self.couplings
            .wall_block(i, cg::Symmetric3::scaled_identity(mass))
    }

    #[inline(always)]
    fn for_each_pair_block(&self, i: usize, f: impl FnMut(usize, cg::Symmetric3)) {
        self.couplings.pair_blocks(i, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_factor_matches_a_direct_sum() {
        // 0.69811 from an independent double-precision sum over the lattice (in Python).
        for r in [0.001, 0.01] {
            let f = lattice_factor(&CubicSpline::new(4.0 * r), r);
            assert!((f - 0.69811).abs() < 1e-4, "lattice factor {f}");
        }
    }

    /// One viscosity's verdicts are the general rule's: `None` at and below zero weight, else
    /// the strength of scale·μ·w.
    #[test]
    fn one_viscositys_verdicts_are_the_pairs_own() {
        let weights = [-0.0, 0.0, -1.0, 1e-30, 0.37, 2.5, f32::MIN_POSITIVE];
        let scale_mu = 3.7e-5;
        let mut verdicts = Vec::new();
        one_viscosity_verdicts(&weights, scale_mu, &mut verdicts);
        let general: Vec<Option<Strength>> = weights
            .iter()
            .map(|&w| (w > 0.0).then(|| Strength::new(scale_mu * w)))
            .collect();
        assert_eq!(verdicts, general);
        assert_eq!(verdicts.iter().flatten().count(), 4);
    }

    #[test]
    fn kernel_derivative_is_continuous_and_vanishes_at_support() {
        let k = CubicSpline::new(1.0);
        assert!((k.derivative(0.5 - 1e-6) - k.derivative(0.5 + 1e-6)).abs() < 1e-3);
        assert_eq!(k.derivative(1.0), 0.0);
        assert!(k.derivative(0.3) < 0.0);
    }
}
