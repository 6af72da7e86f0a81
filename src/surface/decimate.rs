//! Decimation of the smoothed surface: quadric-error edge collapses (Garland & Heckbert 1997,
//! as implemented by meshoptimizer) down to a distance bound tied to the particle radius.
//!
//! Why: marching cubes at half a radius puts ~40 triangles on every particle of the surface,
//! most of them on coats and puddles that are flat at that scale. Collapsing edges while the
//! quadric error stays below a fraction of r removes most triangles there and keeps them on
//! threads and drops, whose curvature makes every collapse costly.
//!
//! The surface is cut into cubes of `Bounds::chunk` (by triangle centroid), each decimated
//! alone, in parallel, with the vertices it shares with other cubes locked, so the cubes still
//! fit together; the results are joined in cube order, so the output is the same bits at any
//! thread count (meshoptimizer itself is serial and deterministic). A second pass with the
//! cubes offset by half a cube decimates the seams the first had to keep. Each pass keeps within
//! half the distance bound of its input, so the whole is within the bound (the Hausdorff
//! distance obeys the triangle inequality).
//!
//! Every cube's result is checked, because meshoptimizer's guarantees are not ours:
//! - it rejects collapses that flip triangles but does not check the link condition, so where
//!   a thread or a neck is a few triangles across a collapse can pinch the surface into an
//!   edge of four triangles. A cube whose open or doubled edges are not exactly those it had
//!   gets the vertices around the new ones locked and is decimated again, with a growing
//!   locked zone; two cubes that each join the same two seam vertices are put back as they were;
//! - its error is a quadric (distance to the planes of the removed triangles), which can
//!   underestimate the real distance on thin, curved parts: where a sample (vertex or
//!   centroid) of the cube before or after is farther than the bound from the other, the
//!   vertices around it are locked and the cube decimated again;
//! - it rejects a collapse that turns a triangle by more than ~75°, but a triangle can turn
//!   further over several collapses: on the honey-drop film (frame 150) two of 0.26 and 0.6 r²
//!   ended up facing into the liquid, and the one in view rendered as a dark dot (a ray
//!   entering the honey there meets a back face, so Cycles refracts and absorbs along that
//!   path as if leaving it). A triangle that faces against the surface it was cut from
//!   (against the sum of its corners' normals on the undecimated surface) gets the vertices
//!   around it locked, and the cube is decimated again;
//! - a needle (three corners nearly in a line, its plane steep to a curved surface) has a
//!   corner of almost 180°, and renderers weigh a vertex's triangles by their angle there: one
//!   needle turned a vertex's shading normal 31° on honey-drop frame 50, a pale fleck in the
//!   render. A vertex whose shading normal turns more than [`MAX_SHADING_TURN_DEGREES`] from the
//!   surface's (and more than it was) gets the vertices near it locked (within r / 2 at first:
//!   wider zones kept 3.4 times the triangles), and the cube is decimated again. The volume
//!   restoration after decimation stands a few needles up again (4 vertices of 30,000 on the
//!   honey-drop film, tests/surface_decimation_film.rs).
//!
//! A cube that does not pass within [`ATTEMPTS`] is kept as it was. Vertices where the colour
//! changes (paints meeting) are kept. The marching-cubes surface itself is not always closed
//! (on the honey-drop demo, a few edges of four triangles where the liquid folds onto itself):
//! its defects stay as they were, nothing new is opened. Specks that smoothing shrank to a
//! point are dropped first.

use glam::Vec3;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::hausdorff::far_samples;

/// Decimation attempts per cube before it is kept as it was.
const ATTEMPTS: usize = 4;

/// Connected pieces smaller than this fraction of the distance bound are dropped (see
/// [`without_collapsed_pieces`]).
const COLLAPSED: f32 = 0.05;

/// The change of a colour channel (linear, 0 to 1) between neighbouring vertices above which
/// both are kept.
const COLOUR_STEP: f32 = 0.02;

/// How far decimation may go, in world units.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// meshoptimizer's absolute error limit (0 = no decimation).
    pub max_error: f32,
    /// The sampled symmetric Hausdorff distance a decimated part may be from what it was.
    pub max_distance: f32,
    /// Around a new defect, the vertices this close are locked on the next attempt (doubling).
    pub lock_radius: f32,
    /// Side of the cubes the surface is decimated in.
    pub chunk: f32,
}

/// A decimated mesh: the kept vertices (their indices in the mesh decimated, in order) and the
/// triangles over them (indices into `kept`).
pub struct Decimated {
    pub kept: Vec<u32>,
    pub triangles: Vec<[u32; 3]>,
}

/// Decimates the surface within `bounds` (see the module's notes); `normals` (its vertex
/// normals) and `colours` per vertex, and the vertices with `keep` set are kept.
pub fn decimate(
    positions: &[Vec3],
    normals: &[Vec3],
    colours: &[[f32; 3]],
    triangles: &[[u32; 3]],
    keep: &[bool],
    bounds: &Bounds,
) -> Decimated {
    let mut kept = without_collapsed_pieces(positions, triangles, COLLAPSED * bounds.max_distance);
    if bounds.max_error > 0.0 {
        // Two passes, the second's cubes offset by half a cube, so the seams the first had to
        // keep are decimated by the second. Each pass keeps within half the distance bound of
        // what it was given, so the result is within the bound of the marching-cubes surface
        // (the Hausdorff distance obeys the triangle inequality).
        let half = Bounds {
            max_distance: bounds.max_distance / 2.0,
            ..*bounds
        };
        let keep: Vec<u32> = (0..positions.len() as u32)
            .filter(|&v| keep.get(v as usize).copied().unwrap_or(false))
            .collect();
        for offset in [0.0, 0.5 * bounds.chunk] {
            kept = simplify_in_chunks(positions, normals, colours, &kept, &keep, &half, offset);
        }
    }

    // Keep the vertices still used, numbered in their original order.
    let mut new_index = vec![u32::MAX; positions.len()];
    for &v in kept.iter().flatten() {
        new_index[v as usize] = 0;
    }
    let mut out = Decimated {
        kept: vec![],
        triangles: vec![],
    };
    for (v, n) in new_index.iter_mut().enumerate() {
        if *n == 0 {
            *n = out.kept.len() as u32;
            out.kept.push(v as u32);
        }
    }
    out.triangles = kept
        .into_iter()
        .map(|t| t.map(|v| new_index[v as usize]))
        .collect();
    out
}

/// The triangles cut into cubes (by centroid, the grid shifted by `offset`), each decimated with
/// the vertices it shares with another cube and those in `keep` (sorted) locked, joined in cube
/// order; a cube that does not pass is kept as it was. `normals` are the undecimated surface's
/// vertex normals, which no decimated triangle may face against.
fn simplify_in_chunks(
    positions: &[Vec3],
    normals: &[Vec3],
    colours: &[[f32; 3]],
    triangles: &[[u32; 3]],
    keep: &[u32],
    bounds: &Bounds,
    offset: f32,
) -> Vec<[u32; 3]> {
    let cube = |t: &[u32; 3]| {
        let centroid = t.iter().map(|&v| positions[v as usize]).sum::<Vec3>() / 3.0;
        let [x, y, z] = ((centroid + offset) / bounds.chunk)
            .floor()
            .as_ivec3()
            .to_array();
        (z, y, x)
    };
    let mut keyed: Vec<((i32, i32, i32), [u32; 3])> =
        triangles.iter().map(|t| (cube(t), *t)).collect();
    keyed.sort_by_key(|k| k.0);
    let chunks: Vec<Vec<[u32; 3]>> = keyed
        .chunk_by(|a, b| a.0 == b.0)
        .map(|c| c.iter().map(|k| k.1).collect())
        .collect();
    // Vertices used by more than one cube: locked, so neighbouring cubes still meet.
    let mut owner: FxHashMap<u32, usize> = FxHashMap::default();
    let mut shared: Vec<u32> = keep.to_vec();
    for (c, chunk) in chunks.iter().enumerate() {
        for &v in chunk.iter().flatten() {
            if *owner.entry(v).or_insert(c) != c {
                shared.push(v);
            }
        }
    }
    shared.sort_unstable();
    shared.dedup();
    let mut results: Vec<Vec<[u32; 3]>> = chunks
        .par_iter()
        .map(|chunk| {
            simplify_part(positions, normals, colours, chunk, &shared, bounds)
                .unwrap_or_else(|| chunk.clone())
        })
        .collect();
    // Each cube kept its cut, but two neighbours can each join the same two cut vertices by a
    // new edge, which together is an edge of four triangles. A cube with a vertex on such an
    // edge is put back as it was (its cut is as it was, so it fits its neighbours), until the
    // whole has no open or doubled edge it did not have.
    let open_before = unpaired_edges(triangles);
    loop {
        let joined = results.concat();
        let mut new: Vec<u32> = unpaired_edges(&joined)
            .into_iter()
            .filter(|e| open_before.binary_search(e).is_err())
            .flat_map(|(a, b)| [a, b])
            .collect();
        new.sort_unstable();
        let mut reverted = false;
        for (result, chunk) in results.iter_mut().zip(&chunks) {
            let touches = result
                .iter()
                .flatten()
                .any(|v| new.binary_search(v).is_ok());
            if touches && result != chunk {
                result.clone_from(chunk);
                reverted = true;
            }
        }
        if !reverted {
            return joined;
        }
    }
}

/// A cube's triangles simplified by meshoptimizer (vertices only removed, never moved: a kept
/// vertex stays on the smoothed surface), `locked` (sorted) kept, or `None` if no attempt
/// passed the checks.
fn simplify_part(
    positions: &[Vec3],
    normals: &[Vec3],
    colours: &[[f32; 3]],
    triangles: &[[u32; 3]],
    locked: &[u32],
    bounds: &Bounds,
) -> Option<Vec<[u32; 3]>> {
    // The part's vertices, renumbered densely in increasing order (so meshoptimizer sees a
    // small vertex buffer and the numbering does not depend on the rest of the mesh).
    let mut used: Vec<u32> = triangles.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let local = |v: u32| used.binary_search(&v).expect("a used vertex") as u32;
    let indices: Vec<u32> = triangles.iter().flatten().map(|&v| local(v)).collect();
    let before = indices_as_triangles(&indices);
    let xyz: Vec<Vec3> = used.iter().map(|&v| positions[v as usize]).collect();
    let flat: Vec<[f32; 3]> = xyz.iter().map(|p| p.to_array()).collect();
    let adapter = meshopt::VertexDataAdapter::new(meshopt::typed_to_bytes(&flat), 12, 0)
        .expect("a tightly packed position buffer");
    let mut lock: Vec<bool> = used
        .iter()
        .map(|v| locked.binary_search(v).is_ok())
        .collect();
    let open_before = unpaired_edges(&before);
    // The cube's own triangles, each as it is wound, starting at its smallest vertex.
    let mut before_sorted: Vec<[u32; 3]> = before.iter().map(canonical).collect();
    before_sorted.sort_unstable();
    let mut radius = bounds.lock_radius;
    let mut needle_radius = bounds.lock_radius / 4.0;
    // Where paints meet, the vertices that carry the blend stay: a vertex whose colour differs
    // from a neighbour's by more than COLOUR_STEP in a channel is locked.
    for t in &before {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            let (ca, cb) = (
                colours[used[a as usize] as usize],
                colours[used[b as usize] as usize],
            );
            if (0..3).any(|k| (ca[k] - cb[k]).abs() > COLOUR_STEP) {
                lock[a as usize] = true;
                lock[b as usize] = true;
            }
        }
    }
    // Edges that were open before (a cube's cut, or a defect of marching cubes) stay as they
    // were: their own vertices are locked, nothing around them.
    for &(a, b) in &open_before {
        lock[a as usize] = true;
        lock[b as usize] = true;
    }
    for _ in 0..ATTEMPTS {
        let simplified = meshopt::simplify_with_locks(
            &indices,
            &adapter,
            &lock,
            0,
            bounds.max_error,
            meshopt::SimplifyOptions::ErrorAbsolute,
            None,
        );
        let out = indices_as_triangles(&simplified);
        let open_after = unpaired_edges(&out);
        if open_after != open_before || out.is_empty() {
            let new: Vec<u32> = open_after
                .iter()
                .filter(|e| open_before.binary_search(e).is_err())
                .flat_map(|&(a, b)| [a, b])
                .collect();
            lock_near(&xyz, &new, radius, &mut lock);
            radius *= 2.0;
            continue;
        }
        let limit = bounds.max_distance;
        let mut far = far_samples((&xyz, &before), (&xyz, &out), limit);
        far.extend(far_samples((&xyz, &out), (&xyz, &before), limit));
        if !far.is_empty() {
            // Only where it went too far: the rest keeps its decimation.
            lock_near_points(&xyz, &far, radius, &mut lock);
            radius *= 2.0;
            continue;
        }
        // Only the triangles decimation made are judged: smoothing folds a few of marching
        // cubes' tiniest triangles (hundredths of r²), and those would fail every attempt.
        let turned: Vec<u32> = out
            .iter()
            .filter(|t| !is_among(t, &before_sorted))
            .filter(|t| faces_against(&xyz, t, |v| normals[used[v as usize] as usize]))
            .flatten()
            .copied()
            .collect();
        if !turned.is_empty() {
            lock_near(&xyz, &turned, radius, &mut lock);
            radius *= 2.0;
            continue;
        }
        let shaded_away =
            shading_turned(&xyz, &before, &out, |v| normals[used[v as usize] as usize]);
        if !shaded_away.is_empty() {
            // A needle is a few collapses' doing: locking the vertex's neighbours (r / 2, not
            // the 2 r the other checks lock) keeps the rest of the cube's decimation, which a
            // zone of 2 r and more round each such vertex did not (on the honey-drop film it
            // kept 3.4 times the triangles).
            lock_near(&xyz, &shaded_away, needle_radius, &mut lock);
            needle_radius *= 2.0;
            continue;
        }
        return Some(out.iter().map(|t| t.map(|v| used[v as usize])).collect());
    }
    None
}

/// The triangles without the connected pieces that fit in a box of side `size`: smoothing
/// can shrink a speck of a few triangles to a point. Such a piece cannot be seen, but its
/// triangles are degenerate, meshoptimizer merges its coincident vertices away, and its samples
/// would then read as surface the decimation lost.
fn without_collapsed_pieces(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    size: f32,
) -> Vec<[u32; 3]> {
    let mut parent: Vec<u32> = (0..positions.len() as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for t in triangles {
        let a = root(&mut parent, t[0]);
        for &v in &t[1..] {
            let b = root(&mut parent, v);
            parent[b as usize] = a;
        }
    }
    let mut lo = vec![Vec3::INFINITY; positions.len()];
    let mut hi = vec![Vec3::NEG_INFINITY; positions.len()];
    for v in triangles.iter().flatten() {
        let piece = root(&mut parent, *v) as usize;
        lo[piece] = lo[piece].min(positions[*v as usize]);
        hi[piece] = hi[piece].max(positions[*v as usize]);
    }
    triangles
        .iter()
        .filter(|t| {
            let piece = root(&mut parent, t[0]) as usize;
            (hi[piece] - lo[piece]).max_element() > size
        })
        .copied()
        .collect()
}

/// A triangle rotated to start at its smallest vertex (the same triangle, wound the same way).
fn canonical(t: &[u32; 3]) -> [u32; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// Whether `t` is one of the `sorted` canonical triangles (see [`canonical`]).
fn is_among(t: &[u32; 3], sorted: &[[u32; 3]]) -> bool {
    sorted.binary_search(&canonical(t)).is_ok()
}

/// A triangle's height below which, as a fraction of its longest side, it counts as a line: its
/// normal is then rounding noise, and it covers no area a ray could meet.
const SLIVER: f32 = 1e-3;

/// Whether the triangle `t` (over `positions`) faces against the surface it was cut from: its
/// normal against the sum of its corners' undecimated normals (`normal_of`). Slivers (see
/// [`SLIVER`]) have no orientation to judge.
fn faces_against(positions: &[Vec3], t: &[u32; 3], normal_of: impl Fn(u32) -> Vec3) -> bool {
    let [a, b, c] = t.map(|v| positions[v as usize]);
    if super::quality::is_sliver(a, b, c, SLIVER) {
        return false;
    }
    (b - a)
        .cross(c - a)
        .dot(t.iter().map(|&v| normal_of(v)).sum::<Vec3>())
        < 0.0
}

/// How far (degrees) decimation may turn the normal a vertex is shaded with from the smoothed
/// surface's normal there. On honey-drop frame 50 a vertex turned 31° by a needle (see
/// [`super::quality::shading_normals`]) rendered as a pale fleck 4 pixels across in the look
/// book's shot.
pub const MAX_SHADING_TURN_DEGREES: f32 = 20.0;

/// The vertices (of `after`, over `positions`) whose shading normal decimation turned from the
/// surface's `normal_of` by more than [`MAX_SHADING_TURN_DEGREES`], and further than `before`
/// (the cube undecimated) had it: marching cubes' own tiny folds are not decimation's doing.
/// A vertex at the cube's edge is shaded here by its triangles in the cube alone, before and
/// after alike.
fn shading_turned(
    positions: &[Vec3],
    before: &[[u32; 3]],
    after: &[[u32; 3]],
    normal_of: impl Fn(u32) -> Vec3,
) -> Vec<u32> {
    let limit = MAX_SHADING_TURN_DEGREES.to_radians().cos();
    let was = super::quality::shading_normals(positions, before);
    let now = super::quality::shading_normals(positions, after);
    (0..positions.len() as u32)
        .filter(|&v| {
            let (was, now) = (was[v as usize], now[v as usize]);
            let surface = normal_of(v).normalize_or_zero();
            now != Vec3::ZERO
                && surface != Vec3::ZERO
                && now.dot(surface) < limit
                && now.dot(surface) < was.dot(surface)
        })
        .collect()
}

fn indices_as_triangles(indices: &[u32]) -> Vec<[u32; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect()
}

/// Locks every vertex within `radius` of one of the `centres` (vertex indices).
fn lock_near(xyz: &[Vec3], centres: &[u32], radius: f32, locked: &mut [bool]) {
    let points: Vec<Vec3> = centres.iter().map(|&c| xyz[c as usize]).collect();
    lock_near_points(xyz, &points, radius, locked);
}

/// Locks every vertex within `radius` of one of the `points`.
fn lock_near_points(xyz: &[Vec3], points: &[Vec3], radius: f32, locked: &mut [bool]) {
    if points.is_empty() {
        return;
    }
    let key = |p: Vec3| (p / radius).floor().as_ivec3().to_array();
    let mut cells: FxHashMap<[i32; 3], Vec<Vec3>> = FxHashMap::default();
    for &c in points {
        cells.entry(key(c)).or_default().push(c);
    }
    for (p, lock) in xyz.iter().zip(locked.iter_mut()) {
        let [x, y, z] = key(*p);
        let near = (0..27).any(|k| {
            let cell = [x + k % 3 - 1, y + k / 3 % 3 - 1, z + k / 9 - 1];
            cells.get(&cell).is_some_and(|list| {
                list.iter()
                    .any(|c| c.distance_squared(*p) <= radius * radius)
            })
        });
        *lock |= near;
    }
}

/// The directed edges that are used twice or whose reverse is missing (sorted, without
/// repeats): none iff the triangles close up into edge-manifold, consistently wound surfaces.
fn unpaired_edges(triangles: &[[u32; 3]]) -> Vec<(u32, u32)> {
    let mut directed: Vec<(u32, u32)> = triangles
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .collect();
    directed.sort_unstable();
    let mut bad: Vec<(u32, u32)> = directed
        .iter()
        .enumerate()
        .filter(|&(k, &(a, b))| {
            (k > 0 && directed[k - 1] == (a, b))
                || directed.get(k + 1) == Some(&(a, b))
                || directed.binary_search(&(b, a)).is_err()
        })
        .map(|(_, &e)| e)
        .collect();
    bad.dedup();
    bad
}

/// The vertices of [`unpaired_edges`] (sorted, without repeats).
#[cfg(test)]
fn unpaired_edge_vertices(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut v: Vec<u32> = unpaired_edges(triangles)
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
fn is_closed_oriented(triangles: &[[u32; 3]]) -> bool {
    !triangles.is_empty() && unpaired_edges(triangles).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(max_error: f32) -> Bounds {
        Bounds {
            max_error,
            max_distance: 0.01,
            lock_radius: 0.3,
            // Larger than the test shapes: decimated whole, as the mesher's cubes of 16 r
            // decimate a drop.
            chunk: 4.0,
        }
    }

    /// `decimate` of a whole shape (no locked vertices) at `max_error`, with the normals the
    /// mesher would pass.
    fn decimate_whole(
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        colours: &[[f32; 3]],
        max_error: f32,
    ) -> Decimated {
        let normals = normals(positions, triangles);
        decimate(
            positions,
            &normals,
            colours,
            triangles,
            &[],
            &bounds(max_error),
        )
    }

    /// Area-weighted vertex normals, as the mesher passes them.
    fn normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
        let mut normals = vec![Vec3::ZERO; positions.len()];
        for t in triangles {
            let [a, b, c] = t.map(|v| positions[v as usize]);
            for &v in t {
                normals[v as usize] += (b - a).cross(c - a);
            }
        }
        normals.iter().map(|n| n.normalize_or_zero()).collect()
    }

    #[test]
    fn a_triangle_turned_against_its_corners_normals_is_found_and_a_sliver_is_not() {
        let positions = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(2.0, 1e-4, 0.0)];
        let up = |_| Vec3::Z;
        assert!(!faces_against(&positions, &[0, 1, 2], up));
        assert!(faces_against(&positions, &[0, 2, 1], up));
        // Tilted by 80° from the surface it is still facing out; by 100°, against it.
        let tilt = |degrees: f32| {
            let a = degrees.to_radians();
            move |_| Vec3::new(0.0, a.sin(), a.cos())
        };
        assert!(!faces_against(&positions, &[0, 1, 2], tilt(80.0)));
        assert!(faces_against(&positions, &[0, 1, 2], tilt(100.0)));
        // Three corners nearly on a line: a sliver, whatever its winding.
        assert!(!faces_against(&positions, &[0, 3, 1], up));
        assert!(!faces_against(&positions, &[0, 1, 3], up));
    }

    /// A closed box of `n`×`n` squares per face (two triangles each), side 1, wound outwards.
    fn flat_box(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        boxes(n, &[[0, 0, 0]])
    }

    /// Such boxes at the given offsets (in sides), sharing the vertices where they touch.
    fn boxes(n: u32, offsets: &[[u32; 3]]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut positions = vec![];
        let mut triangles = vec![];
        let mut index = std::collections::HashMap::new();
        let mut vertex = |p: [u32; 3], positions: &mut Vec<Vec3>| {
            *index.entry(p).or_insert_with(|| {
                positions.push(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / n as f32);
                positions.len() as u32 - 1
            })
        };
        for (offset, axis) in offsets.iter().flat_map(|o| (0..3).map(move |a| (o, a))) {
            for side in [0, n] {
                for i in 0..n {
                    for j in 0..n {
                        let corner = |di: u32, dj: u32| {
                            let mut p = [0; 3];
                            p[axis] = side;
                            p[(axis + 1) % 3] = i + di;
                            p[(axis + 2) % 3] = j + dj;
                            std::array::from_fn(|a| p[a] + offset[a] * n)
                        };
                        let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
                            .map(|p| vertex(p, &mut positions));
                        let (a, b) = if side == n {
                            ([0, 1, 2], [0, 2, 3])
                        } else {
                            ([0, 2, 1], [0, 3, 2])
                        };
                        triangles.push(a.map(|k| q[k]));
                        triangles.push(b.map(|k| q[k]));
                    }
                }
            }
        }
        (positions, triangles)
    }

    #[test]
    fn flat_faces_lose_most_triangles_and_stay_closed() {
        let (positions, triangles) = flat_box(16);
        assert!(is_closed_oriented(&triangles));
        let grey = vec![[0.5; 3]; positions.len()];
        let out = decimate_whole(&positions, &triangles, &grey, 1e-3);
        assert!(is_closed_oriented(&out.triangles));
        assert!(
            out.triangles.len() * 20 < triangles.len(),
            "{}",
            out.triangles.len()
        );
        // The corners are kept: no vertex is moved, and the box's extent is whole.
        let max = out
            .kept
            .iter()
            .fold(Vec3::ZERO, |m, &v| m.max(positions[v as usize]));
        assert_eq!(max, Vec3::ONE);
    }

    #[test]
    fn a_surface_that_was_not_closed_is_decimated_around_its_defect() {
        // Two boxes touching along an edge: its 8 segments have four triangles each.
        let (positions, triangles) = boxes(8, &[[0, 0, 0], [1, 1, 0]]);
        let open = unpaired_edge_vertices(&triangles);
        assert_eq!(open.len(), 9);
        let grey = vec![[0.5; 3]; positions.len()];
        let out = decimate_whole(&positions, &triangles, &grey, 1e-3);
        assert!(
            out.triangles.len() * 4 < triangles.len(),
            "{}",
            out.triangles.len()
        );
        // The defect is still there as it was, and nothing else is open.
        let open_after: Vec<Vec3> = unpaired_edge_vertices(&out.triangles)
            .iter()
            .map(|&v| positions[out.kept[v as usize] as usize])
            .collect();
        let open_before: Vec<Vec3> = open.iter().map(|&v| positions[v as usize]).collect();
        assert_eq!(open_after, open_before);
    }

    #[test]
    fn zero_error_and_separate_regions_are_kept_apart() {
        let (mut positions, triangles) = flat_box(4);
        let n = positions.len() as u32;
        positions.extend(positions.clone().iter().map(|p| *p + Vec3::X * 3.0));
        let mut all = triangles.clone();
        all.extend(triangles.iter().map(|t| t.map(|v| v + n)));
        let grey = vec![[0.5; 3]; positions.len()];
        let same = decimate_whole(&positions, &all, &grey, 0.0);
        assert_eq!(same.triangles, all);
        let out = decimate_whole(&positions, &all, &grey, 1e-3);
        assert!(is_closed_oriented(&out.triangles));
        assert_eq!(
            crate::surface::quality::components(out.kept.len(), &out.triangles),
            2
        );
        assert!(out.kept.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn vertices_that_carry_a_colour_change_are_kept() {
        // A flat box, red below x = 0.5 and blue above: the face decimates but the blend stays.
        let (positions, triangles) = flat_box(16);
        let colours: Vec<[f32; 3]> = positions
            .iter()
            .map(|p| {
                let t = ((p.x - 0.5) * 8.0).clamp(-1.0, 1.0) * 0.5 + 0.5;
                [1.0 - t, 0.0, t]
            })
            .collect();
        let grey = vec![[0.5; 3]; positions.len()];
        let plain = decimate_whole(&positions, &triangles, &grey, 1e-3);
        let painted = decimate_whole(&positions, &triangles, &colours, 1e-3);
        assert!(is_closed_oriented(&painted.triangles));
        let blending = |out: &Decimated| {
            out.kept
                .iter()
                .filter(|&&v| (0.4..0.6).contains(&positions[v as usize].x))
                .count()
        };
        assert!(
            blending(&painted) > 2 * blending(&plain) + 8,
            "{} vertices in the blend, {} without colours",
            blending(&painted),
            blending(&plain)
        );
    }

    #[test]
    fn open_or_miswound_triangles_are_not_closed() {
        let (_, mut triangles) = flat_box(2);
        assert!(is_closed_oriented(&triangles));
        triangles[0].swap(1, 2);
        assert!(!is_closed_oriented(&triangles));
        triangles.remove(0);
        assert!(!is_closed_oriented(&triangles));
    }
}
