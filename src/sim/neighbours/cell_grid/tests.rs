use super::*;

fn brute(points: &[Vec3], space: &Space, radius: f32) -> Vec<Vec<u32>> {
    (0..points.len())
        .map(|i| {
            (0..points.len() as u32)
                .filter(|&j| {
                    j as usize != i && space.delta(points[j as usize], points[i]).length() < radius
                })
                .collect()
        })
        .collect()
}

pub(super) fn scattered(n: usize, size: f32) -> Vec<Vec3> {
    // A deterministic low-discrepancy scatter.
    (0..n)
        .map(|i| {
            let f = i as f32;
            Vec3::new(
                (f * 0.618_034).fract(),
                (f * 0.754_877 + 0.1).fract(),
                (f * 0.569_840 + 0.3).fract(),
            ) * size
        })
        .collect()
}

/// Builds the grid of `pts` at `radius` and checks every finite particle's list against
/// brute force; returns the grid.
fn check_lists_against_brute_force(pts: &[Vec3], space: Space, radius: f32) -> CellGrid {
    let grid = CellGrid::build(pts, radius, space);
    let lists = grid.neighbour_lists(pts, pts, radius, true);
    let expect = brute(pts, &space, radius);
    for (i, e) in expect
        .iter()
        .enumerate()
        .filter(|(i, _)| pts[*i].is_finite())
    {
        let mut got = lists.of(i).to_vec();
        got.sort_unstable();
        assert_eq!(got, *e, "particle {i}");
    }
    grid
}

#[test]
fn grid_lists_match_brute_force() {
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    check_lists_against_brute_force(&scattered(700, 1.0), space, 0.15);
}

/// Crowded cells: rows of three cells hold several of the search's 16-point blocks and a
/// remainder, in open and periodic domains alike.
#[test]
fn crowded_cells_match_brute_force() {
    let points = scattered(4000, 1.0);
    let open = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    check_lists_against_brute_force(&points, open, 0.2);
    let periodic = Space::from_parts(Vec3::ZERO, Vec3::ONE, [true, false, true]);
    check_lists_against_brute_force(&points, periodic, 0.2);
}

/// Particles standing on each other (distance 0) list each other, never themselves: the
/// search finds every query at distance 0 and takes out the one with the query's own index.
#[test]
fn particles_at_one_place_list_each_other_but_not_themselves() {
    let mut points = scattered(300, 1.0);
    let twins: Vec<Vec3> = points[..40].to_vec();
    points.extend(twins);
    points.extend([points[7]; 3]);
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    check_lists_against_brute_force(&points, space, 0.2);
}

/// A grid built both ways from the same points (the keys' box origin is negative).
fn both_ways(pts: &[Vec3], cell: f32, space: Space) -> (CellGrid, CellGrid) {
    let mut dense = CellGrid::build(&[], cell, space);
    let mut sparse = CellGrid::build(&[], cell, space);
    let keys: Vec<IVec3> = pts.iter().map(|p| dense.key(*p)).collect();
    let lo = keys.iter().fold(IVec3::MAX, |a, k| a.min(*k));
    let hi = keys.iter().fold(IVec3::MIN, |a, k| a.max(*k));
    dense.bucket_dense(&keys, lo, hi - lo + IVec3::ONE);
    sparse.bucket_sparse(keys);
    (dense, sparse)
}

#[test]
fn dense_and_sparse_bucketing_agree() {
    let pts: Vec<Vec3> = scattered(700, 1.0)
        .into_iter()
        .map(|p| p - Vec3::splat(0.5))
        .collect();
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    let (dense, sparse) = both_ways(&pts, 0.15, space);
    assert!(matches!(dense.lookup, CellLookup::Dense { .. }));
    assert!(matches!(sparse.lookup, CellLookup::Sparse(_)));
    assert_eq!(dense.order, sparse.order);
    assert_eq!(dense.cells, sparse.cells);
    for z in -6..=6 {
        for y in -6..=6 {
            for x in -6..=6 {
                let k = IVec3::new(x, y, z);
                assert_eq!(dense.lookup.find(k), sparse.lookup.find(k), "cell {k}");
            }
        }
    }
}

#[test]
fn far_apart_clusters_use_sparse_cells_and_match_brute_force() {
    // Two clusters 1 km apart: their box would need billions of dense cells.
    let mut pts = scattered(300, 1.0);
    pts.extend(scattered(300, 1.0).iter().map(|p| *p + Vec3::splat(1000.0)));
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    let grid = check_lists_against_brute_force(&pts, space, 0.2);
    assert!(matches!(grid.lookup, CellLookup::Sparse(_)));
}

#[test]
fn a_particle_at_infinity_leaves_the_others_lists_intact() {
    // The solver reports non-finite particles as an error after the substep; until then
    // the grid must neither overflow nor lose the finite particles' neighbours.
    let mut pts = scattered(200, 1.0);
    pts.push(Vec3::new(f32::INFINITY, 0.0, f32::NEG_INFINITY));
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    check_lists_against_brute_force(&pts, space, 0.2);
}

#[test]
fn periodic_lists_match_brute_force() {
    let pts = scattered(500, 1.0);
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [true, true, false]);
    check_lists_against_brute_force(&pts, space, 0.2);
}

/// The liquid is numbered block by block at every frame's start and its lists built on the
/// grid renumbered to match: they must be the lists a fresh grid of the renumbered points
/// gives, and each block's run must hold the points of one block of 2 × 2 × 2 cells.
#[test]
fn a_grid_renumbered_by_blocks_lists_as_a_fresh_grid_of_the_renumbered_points() {
    let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
    let (points, radius) = (scattered(900, 1.0), 0.12);
    let grid = CellGrid::build(&points, radius, space);
    let (order, blocks) = grid.block_order();
    let mut sorted_order = order.clone();
    sorted_order.sort_unstable();
    assert_eq!(sorted_order, (0..points.len() as u32).collect::<Vec<_>>());
    let renumbered: Vec<Vec3> = order.iter().map(|&i| points[i as usize]).collect();
    let lists = grid
        .renumbered_by(&order)
        .neighbour_lists(&renumbered, &renumbered, radius, true);
    let fresh = CellGrid::build(&renumbered, radius, space).neighbour_lists(
        &renumbered,
        &renumbered,
        radius,
        true,
    );
    for i in 0..points.len() {
        assert_eq!(lists.of(i).to_vec(), fresh.of(i).to_vec(), "point {i}");
    }
    assert_eq!(
        (blocks[0], *blocks.last().unwrap()),
        (0, points.len() as u32)
    );
    let block_of = |x: Vec3| (x / radius).floor().as_ivec3().div_euclid(IVec3::splat(2));
    for run in blocks.windows(2) {
        assert!(run[0] < run[1], "an empty run");
        let first = block_of(renumbered[run[0] as usize]);
        for x in &renumbered[run[0] as usize..run[1] as usize] {
            assert_eq!(block_of(*x), first);
        }
    }
    // Runs of different blocks: as many runs as occupied blocks.
    let mut occupied: Vec<IVec3> = points.iter().map(|&x| block_of(x)).collect();
    occupied.sort_unstable_by_key(|b| (b.z, b.y, b.x));
    occupied.dedup();
    assert_eq!(blocks.len() - 1, occupied.len());
}
