//! The separate pieces of a liquid's surface, and how many particles each holds: a poured
//! rope should be one piece (with the pile it lands in), plus only real drops, never specks
//! around single particles that left it.

use glam::{IVec3, Vec3};
use rustc_hash::FxHashMap;

use crate::surface::quality::component_labels;
use crate::surface::SurfaceMesh;

/// One connected piece of a surface mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    pub triangles: usize,
    /// The volume it encloses, signed: negative for an inward-facing shell (a void inside the
    /// liquid), positive for a body of liquid.
    pub volume: f64,
    /// Particles nearer to this piece's vertices than to any other piece's.
    pub particles: usize,
}

impl Piece {
    /// A closed shell facing inwards: a void inside the liquid, not a body of its own.
    pub fn is_void(&self) -> bool {
        self.volume < 0.0
    }
}

/// The mesh's connected pieces (over shared vertices), largest first by particles then by
/// triangles. Each particle is counted in the piece of its nearest mesh vertex.
pub fn pieces(mesh: &SurfaceMesh, positions: &[Vec3]) -> Vec<Piece> {
    labelled_pieces(mesh, positions).0
}

/// [`pieces`], and the piece (an index into them) of each particle, `None` for a particle
/// that is not finite or when the mesh is empty.
pub fn labelled_pieces(mesh: &SurfaceMesh, positions: &[Vec3]) -> (Vec<Piece>, Vec<Option<usize>>) {
    let n = mesh.positions.len();
    let label = component_labels(n, &mesh.triangles);
    let mut index: FxHashMap<usize, usize> = FxHashMap::default();
    let mut found: Vec<Piece> = Vec::new();
    let mut piece_of_vertex = vec![usize::MAX; n];
    for t in &mesh.triangles {
        let root = label[t[0] as usize];
        let k = *index.entry(root).or_insert_with(|| {
            found.push(Piece {
                triangles: 0,
                volume: 0.0,
                particles: 0,
            });
            found.len() - 1
        });
        found[k].triangles += 1;
        let [a, b, c] = t.map(|v| mesh.positions[v as usize].as_dvec3());
        found[k].volume += a.dot(b.cross(c)) / 6.0;
        for &v in t {
            piece_of_vertex[v as usize] = k;
        }
    }
    let mut of_particle = vec![None; positions.len()];
    if !found.is_empty() {
        let nearest = NearestVertex::new(mesh, &piece_of_vertex);
        for (i, x) in positions.iter().enumerate().filter(|(_, x)| x.is_finite()) {
            if let Some(k) = nearest.piece(*x) {
                found[k].particles += 1;
                of_particle[i] = Some(k);
            }
        }
    }
    // Largest first; ties in the order the pieces were met, so the labels are deterministic.
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by(|&a, &b| {
        (found[b].particles, found[b].triangles).cmp(&(found[a].particles, found[a].triangles))
    });
    let mut rank = vec![0; found.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old] = new;
    }
    let sorted = order.iter().map(|&k| found[k]).collect();
    let labels = of_particle
        .into_iter()
        .map(|k| k.map(|k| rank[k]))
        .collect();
    (sorted, labels)
}

/// The mesh without its voids' shells (pieces of negative volume): the outer surface alone.
/// Vertices are kept as they are; only triangles are dropped.
pub fn without_voids(mesh: &SurfaceMesh) -> SurfaceMesh {
    let label = component_labels(mesh.positions.len(), &mesh.triangles);
    let mut volume: FxHashMap<usize, f64> = FxHashMap::default();
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|v| mesh.positions[v as usize].as_dvec3());
        *volume.entry(label[t[0] as usize]).or_default() += a.dot(b.cross(c)) / 6.0;
    }
    SurfaceMesh {
        triangles: mesh
            .triangles
            .iter()
            .copied()
            .filter(|t| volume[&label[t[0] as usize]] >= 0.0)
            .collect(),
        ..mesh.clone()
    }
}

/// The nearest used mesh vertex to a point, through a grid of cells searched in growing
/// shells.
struct NearestVertex<'a> {
    mesh: &'a SurfaceMesh,
    piece_of_vertex: &'a [usize],
    cell: f32,
    grid: FxHashMap<IVec3, Vec<u32>>,
}

impl<'a> NearestVertex<'a> {
    fn new(mesh: &'a SurfaceMesh, piece_of_vertex: &'a [usize]) -> Self {
        let (lo, hi) = mesh
            .positions
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let extent = (hi - lo).max_element().max(1e-9);
        let cell = extent / (mesh.positions.len() as f32).cbrt().max(1.0);
        let mut grid: FxHashMap<IVec3, Vec<u32>> = FxHashMap::default();
        for (v, p) in mesh.positions.iter().enumerate() {
            if piece_of_vertex[v] != usize::MAX {
                grid.entry((*p / cell).floor().as_ivec3())
                    .or_default()
                    .push(v as u32);
            }
        }
        NearestVertex {
            mesh,
            piece_of_vertex,
            cell,
            grid,
        }
    }

    fn piece(&self, x: Vec3) -> Option<usize> {
        let c = (x / self.cell).floor().as_ivec3();
        let mut best: Option<(f32, u32)> = None;
        for shell in 0..64i32 {
            for dz in -shell..=shell {
                for dy in -shell..=shell {
                    for dx in -shell..=shell {
                        if dx.abs().max(dy.abs()).max(dz.abs()) != shell {
                            continue;
                        }
                        let Some(vs) = self.grid.get(&(c + IVec3::new(dx, dy, dz))) else {
                            continue;
                        };
                        for &v in vs {
                            let d = self.mesh.positions[v as usize].distance_squared(x);
                            if best.is_none_or(|(b, w)| (d, v) < (b, w)) {
                                best = Some((d, v));
                            }
                        }
                    }
                }
            }
            // Any vertex beyond this shell is at least `shell` cells away.
            if let Some((d, _)) = best {
                if d.sqrt() <= shell as f32 * self.cell {
                    break;
                }
            }
        }
        best.map(|(_, v)| self.piece_of_vertex[v as usize])
    }
}

/// Points in cubic cells, for nearest-neighbour questions about particles.
pub struct PointGrid {
    cell: f32,
    grid: FxHashMap<IVec3, Vec<u32>>,
}

impl PointGrid {
    pub fn new(points: &[Vec3], cell: f32) -> Self {
        let mut grid: FxHashMap<IVec3, Vec<u32>> = FxHashMap::default();
        for (i, p) in points.iter().enumerate().filter(|(_, p)| p.is_finite()) {
            grid.entry((*p / cell).floor().as_ivec3())
                .or_default()
                .push(i as u32);
        }
        PointGrid { cell, grid }
    }

    /// The distance from point `i` to the nearest other point within `reach`, if any.
    pub fn nearest_other(&self, points: &[Vec3], i: usize, reach: f32) -> Option<f32> {
        let x = points[i];
        let c = (x / self.cell).floor().as_ivec3();
        let span = (reach / self.cell).ceil() as i32;
        let mut best = reach * reach;
        let mut found = false;
        for dz in -span..=span {
            for dy in -span..=span {
                for dx in -span..=span {
                    let Some(members) = self.grid.get(&(c + IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for &j in members {
                        let d = points[j as usize].distance_squared(x);
                        if j as usize != i && d <= best {
                            best = d;
                            found = true;
                        }
                    }
                }
            }
        }
        found.then(|| best.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::{mesh_particles, SurfaceSettings};

    #[test]
    fn a_blob_and_a_lone_particle_are_two_pieces() {
        let r = 0.001;
        let mut x = Vec::new();
        for k in 0..4 {
            for j in 0..4 {
                for i in 0..4 {
                    x.push(Vec3::new(i as f32, j as f32, k as f32) * 2.0 * r);
                }
            }
        }
        x.push(Vec3::new(30.0 * r, 0.0, 0.0));
        let mesh = mesh_particles(&x, &[], &[], r, &SurfaceSettings::default());
        let p = pieces(&mesh, &x);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].particles, 64);
        assert_eq!(p[1].particles, 1);
    }
}
