//! Filling a closed mesh with a lattice of liquid particles that holds the mesh's volume.
//!
//! Each liquid particle stands for one lattice cell, (2r)³ of liquid (the rest density's
//! spacing), so a liquid of volume V is N = round(V / (2r)³) particles, as an emitter's
//! stream is its flow over (2r)³ (`sim::emitters`). The lattice is the world's: spacing 2r,
//! points at odd multiples of r, the same for every object and every frame.
//!
//! Counting the points whose cell centre is inside is right only on average over where the
//! lattice falls: a face through a layer of points counts that whole layer or none of it, so
//! a 5 cm cube centred at the origin filled 14³ points at r = 1.92 mm for its 13.02³ cells of
//! volume (+24%), and 15,000 at r = 1 mm (−4%). So the fill decides the count first and the
//! points second:
//! - **How many:** N = round(V / spacing³), V the mesh's enclosed volume (exact for a closed
//!   mesh, `enclosed_volume`, taken as a magnitude so a mesh facing inward fills the same).
//! - **Which:** the N lattice points deepest inside, by signed distance to the surface
//!   (positive inside, by the crossings' parity). Every point farther than a spacing from the
//!   surface is decided by the parity alone (in if inside); only the points within a spacing
//!   of it (the band) are ranked. That is the centre-inside rule with its boundary moved in
//!   or out by the fraction of a cell that makes the count exact: a ball fills as the ball of
//!   lattice points of its own volume, a box's faces lose or gain part of a layer.
//! - **Ties:** points about equally deep (within an eighth of a spacing: a face's layer, or
//!   faces a hair apart) are taken nearest the volume's centre first. A part-filled layer is
//!   then a compact plateau in the middle of each face, its edges and corners going first, as
//!   surface tension would round them; a layer thinned evenly (tried first, by an ordered
//!   dither) meshed as a dimpled face with lumps along the edges. Points as far from the
//!   centre are ordered by the dither frac(i α₁ + j α₂ + k α₃) over the plastic number's
//!   powers (the R₃ sequence), then by index.
//!
//! The points are a subset of the rest lattice, so liquid at rest starts uncompressed: no
//! particle has a neighbour nearer, or more neighbours, than in the whole lattice; a face's
//! part-filled layer is a little under rest density until it settles.
//!
//! Other rules were weighed. Moving the lattice per object (choosing its offset for the best
//! count) cannot reach 3% at 1,000 particles: an upright cube 10.5 cells across fills 10 or
//! 11 points along each axis whatever the offset, 1,000, 1,100, 1,210 or 1,331 for 1,158 of
//! volume; and neighbouring objects' lattices would then clash where they touch. Stretching
//! the spacing to fit starts the liquid off its rest density. Weighting particles by the
//! part of their cell inside changes their mass, which the solver takes as uniform.
//!
//! The band suffices: a cell the surface cuts has its centre within half its diagonal
//! (0.87 spacing) of the surface, and only such cells make the centre-inside count differ
//! from V / spacing³, by at most their number on each side. A mesh whose triangles face
//! inconsistently (its signed volume is then not the volume the parity fills) is clamped to
//! what the band can give: the parity fill's inside points farther than a spacing from the
//! surface at the least, all of them and the band's outside points at the most.
//!
//! Everything is sequential and sorted by lattice index, so the points are the same bits at
//! any thread count, in the order x fastest, then y, then z.
//!
//! Any mesh a scene file can hold must fill without a panic, an abort or a runaway: the work
//! (one ray test per triangle and lattice row its bounding box covers, one distance test per
//! triangle and lattice point of its slab) and the number of points are counted before
//! anything is allocated for them, and a fill that would exceed its `FillLimits` is refused
//! with the count that did.

mod band;
mod crossings;

use std::cmp::Reverse;

use glam::{DVec3, Vec3};

use band::Key;
use crossings::Crossings;

/// Lattice indices are kept within ±2²² spacings of the origin. Within that range
/// `(i + 0.5) · spacing` is exact before its rounding, so consecutive points stay distinct and
/// ordered in single precision; beyond it a lattice of f32 positions is no lattice (a mesh
/// scaled by 1e30 once overflowed the row arithmetic here).
pub const LATTICE_INDEX_LIMIT: f32 = 4_194_304.0;

/// The most a fill may do: lattice points made, and ray tests (triangle × row) run, and as
/// many distance tests (triangle × lattice point near it). Each test that hits stores 16
/// bytes, so `max_row_tests` bounds the fill's working memory.
#[derive(Clone, Copy, Debug)]
pub struct FillLimits {
    pub max_points: u64,
    pub max_row_tests: u64,
}

impl FillLimits {
    /// No limit but the lattice's range: for meshes the program made itself (the demos).
    pub const NONE: FillLimits = FillLimits {
        max_points: u64::MAX,
        max_row_tests: u64::MAX,
    };
}

/// The points of spacing `spacing` that fill the closed mesh (see the module's documentation),
/// in deterministic order (x fastest). The lattice is anchored at the world origin, offset by
/// half a spacing, so the same mesh always gives the same points.
///
/// Rays along +x are cast once per (y, z) row; each triangle is tested only against the rows
/// its bounding box covers, and points between odd and even crossings are inside. Rays are
/// nudged by a tiny irrational offset so they never run exactly through a shared edge.
pub fn fill_closed_mesh(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    spacing: f32,
    limits: FillLimits,
) -> Result<Vec<Vec3>, String> {
    let fill = match Selection::decide(vertices, triangles, spacing, limits)? {
        Decided::Empty => return Ok(Vec::new()),
        Decided::Over(count) => return Err(too_many_points(count, limits.max_points)),
        Decided::Fill(fill) => fill,
    };
    let count = fill.count();
    if count > limits.max_points {
        return Err(too_many_points(count, limits.max_points));
    }
    let mut points = Vec::new();
    points
        .try_reserve_exact(count as usize)
        .map_err(|_| format!("no memory for {count} lattice points"))?;
    let at = |i: i32| fill.rows.lattice(i as i64);
    fill.for_each_point(|(k, j, i)| points.push(Vec3::new(at(i), at(j), at(k))));
    Ok(points)
}

/// The number of points `fill_closed_mesh` would make, without making them (only the
/// crossings and the points near the surface are stored); past `limits.max_points`, a number
/// over it that the fill cannot be below (found before the points near the surface are).
pub fn count_fill(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    spacing: f32,
    limits: FillLimits,
) -> Result<u64, String> {
    Ok(
        match Selection::decide(vertices, triangles, spacing, limits)? {
            Decided::Empty => 0,
            Decided::Over(count) => count,
            Decided::Fill(fill) => fill.count(),
        },
    )
}

fn too_many_points(count: u64, max: u64) -> String {
    format!("it would make {count} lattice points, more than the {max} allowed")
}

/// The fill, decided: the parity's inside points away from the surface, and which of the
/// points near it are taken.
struct Selection {
    rows: Crossings,
    /// Points within a spacing of the surface, sorted by key, and whether each is taken.
    band: Vec<(Key, bool)>,
    /// Inside points away from the surface.
    core: u64,
    taken: u64,
}

enum Decided {
    /// A mesh without triangles.
    Empty,
    /// More points than allowed: at least this many.
    Over(u64),
    Fill(Selection),
}

impl Selection {
    fn decide(
        vertices: &[Vec3],
        triangles: &[[u32; 3]],
        spacing: f32,
        limits: FillLimits,
    ) -> Result<Decided, String> {
        let max_tests = limits.max_row_tests;
        let Some(rows) = Crossings::gather(vertices, triangles, spacing, max_tests)? else {
            return Ok(Decided::Empty);
        };
        let (volume, centre) = volume_and_centre(vertices, triangles);
        let cells = volume.abs() / (spacing as f64).powi(3);
        // Saturates for a count beyond u64 (the cap refuses it).
        let target = cells.round() as u64;
        // The fill is never below both the target and the parity's count (it is the target,
        // or clamped between the parity's count without its band and with the whole band),
        // so a mesh over the cap is refused before its band is searched (a liquid grown ×200
        // would be 1.7e9 particles, its band 10⁷ points).
        let at_least = target.min(rows.count());
        if at_least > limits.max_points {
            return Ok(Decided::Over(at_least));
        }
        let near = band::near_surface(vertices, triangles, spacing, spacing, max_tests)?;
        let quantum = spacing / DEPTH_CLASSES;
        let inside: Vec<bool> = near
            .iter()
            .map(|&((k, j, i), _)| rows.inside(i as i64, j as i64, k as i64))
            .collect();
        // Signed depth in classes: a point on the surface (within half a class) is 0 from
        // either side, half in.
        let depths: Vec<i64> = near
            .iter()
            .zip(&inside)
            .map(|(&(_, distance), &inside)| {
                let depth = (distance / quantum).round() as i64;
                if inside {
                    depth
                } else {
                    -depth
                }
            })
            .collect();
        let band_inside = inside.iter().filter(|&&i| i).count() as u64;
        let core = rows.count().saturating_sub(band_inside);
        let taken = target.saturating_sub(core).min(near.len() as u64);
        let mut order: Vec<usize> = (0..near.len()).collect();
        order.sort_unstable_by(|&p, &q| {
            let rank = |n: usize| {
                let key = near[n].0;
                let from_centre = (lattice_point(key, spacing) - centre).length_squared();
                (Reverse(depths[n]), from_centre, dither(key), key)
            };
            let ((dp, cp, tp, kp), (dq, cq, tq, kq)) = (rank(p), rank(q));
            dp.cmp(&dq)
                .then(cp.total_cmp(&cq))
                .then(tp.total_cmp(&tq))
                .then(kp.cmp(&kq))
        });
        let mut band: Vec<(Key, bool)> = near.iter().map(|&(key, _)| (key, false)).collect();
        for &n in &order[..taken as usize] {
            band[n].1 = true;
        }
        Ok(Decided::Fill(Selection {
            rows,
            band,
            core,
            taken,
        }))
    }

    fn count(&self) -> u64 {
        self.core + self.taken
    }

    /// Calls `f` with each point's key in key order (x fastest): the parity's runs with the
    /// band's points replaced by the band's decisions.
    fn for_each_point(&self, mut f: impl FnMut(Key)) {
        let mut next = 0;
        let band = &self.band;
        self.rows.for_each_run(|j, k, first, last| {
            for i in first..=last {
                let key = (k as i32, j as i32, i as i32);
                while next < band.len() && band[next].0 < key {
                    if band[next].1 {
                        f(band[next].0);
                    }
                    next += 1;
                }
                if next < band.len() && band[next].0 == key {
                    if band[next].1 {
                        f(key);
                    }
                    next += 1;
                } else {
                    f(key);
                }
            }
        });
        for &(key, taken) in &band[next..] {
            if taken {
                f(key);
            }
        }
    }
}

/// Depths closer than a spacing over this count as equal: a face's layer, or faces a hair
/// apart (a 5 cm cube at r = 1.922 mm has its sides 0.004 of a spacing outside their layers
/// and its top 0.018), which are ranked alike, nearest the centre first.
const DEPTH_CLASSES: f32 = 8.0;

/// Lattice point `key`'s position, in f64.
fn lattice_point((k, j, i): Key, spacing: f32) -> DVec3 {
    DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * spacing as f64
}

/// The ordered dither's threshold of lattice point `(k, j, i)`, in [0, 1): the R₃ sequence
/// (Roberts 2018), whose steps are the inverse powers of the plastic number, the real root of
/// x³ = x + 1. Any plane of the lattice sees it as an evenly spread 2-D sequence.
fn dither((k, j, i): Key) -> f64 {
    const G: f64 = 1.324_717_957_244_746;
    let x = i as f64 / G + j as f64 / (G * G) + k as f64 / (G * G * G);
    x - x.floor()
}

/// The signed volume a closed mesh encloses and the centre of that volume (the bounding box's
/// centre for a mesh without volume), summed in f64 in triangle order.
fn volume_and_centre(vertices: &[Vec3], triangles: &[[u32; 3]]) -> (f64, DVec3) {
    let (volume, moment) = triangles.iter().fold((0.0, DVec3::ZERO), |(v, m), t| {
        let [a, b, c] = t.map(|i| vertices[i as usize].as_dvec3());
        // The tetrahedron (origin, a, b, c): six times its signed volume, and its centroid.
        let six = a.dot(b.cross(c));
        (v + six, m + six * (a + b + c) / 4.0)
    });
    let centre = if volume != 0.0 && (moment / volume).is_finite() {
        moment / volume
    } else {
        let (lo, hi) = crate::geometry::bounds(vertices);
        (lo.as_dvec3() + hi.as_dvec3()) / 2.0
    };
    (volume / 6.0, centre)
}
