//! Mesh edges of a triangle list, in the form Blender stores them (`.edge_verts` and
//! `.corner_edge`).
//!
//! Blender's `Mesh.update()` derives edges itself when a mesh has none, which was the largest
//! share of showing a 300k-triangle frame (~90 ms of ~150 ms on the loaded 2-core machine).
//! Computing them here, while the file is read on the prefetch thread with the GIL released,
//! takes that work off Blender's main thread.

/// Edges as `[low vertex, high vertex]`, and for every corner (triangle `t`, corner `k` at
/// index `3t + k`) the edge from that corner's vertex to the next corner's vertex.
pub struct Edges {
    pub edges: Vec<[i32; 2]>,
    pub corner_edges: Vec<i32>,
}

/// Deterministic (edges are numbered by their low vertex, then first appearance) and linear:
/// corners are bucketed by their edge's low vertex, and each small bucket is deduplicated by
/// a scan, so no hashing or sorting of the whole list is needed.
pub fn triangle_edges(triangles: &[[u32; 3]], vertex_count: usize) -> Edges {
    // Each corner's edge as (low, high) vertex, in corner order.
    let ends = || {
        triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .map(|(a, b)| (a.min(b), a.max(b)))
    };
    let corner_count = triangles.len() * 3;
    let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let Scratch {
        start,
        fill,
        bucket,
    } = &mut scratch;
    // Bucket start per low vertex (counting sort).
    start.clear();
    start.resize(vertex_count + 1, 0);
    for (lo, _) in ends() {
        start[lo as usize + 1] += 1;
    }
    for v in 0..vertex_count {
        start[v + 1] += start[v];
    }
    // (high vertex, corner) per bucket, so the scan below reads memory in order.
    fill.clear();
    fill.extend_from_slice(start);
    bucket.clear();
    bucket.resize(corner_count, (0, 0));
    for (c, (lo, hi)) in ends().enumerate() {
        bucket[fill[lo as usize] as usize] = (hi, c as u32);
        fill[lo as usize] += 1;
    }
    let mut edges: Vec<[i32; 2]> = Vec::with_capacity(corner_count / 2 + 1);
    let mut corner_edges = vec![0i32; corner_count];
    let mut seen: Vec<(u32, i32)> = Vec::new(); // (high vertex, edge id) within one bucket
    for lo in 0..vertex_count {
        seen.clear();
        for &(hi, c) in &bucket[start[lo] as usize..start[lo + 1] as usize] {
            let id = match seen.iter().find(|(h, _)| *h == hi) {
                Some(&(_, id)) => id,
                None => {
                    let id = edges.len() as i32;
                    edges.push([lo as i32, hi as i32]);
                    seen.push((hi, id));
                    id
                }
            };
            corner_edges[c as usize] = id;
        }
    }
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    Edges {
        edges,
        corner_edges,
    }
}

/// Working arrays kept per thread between calls: reading frame after frame then reuses their
/// pages instead of faulting in fresh ones (a large share of the cost at 300k triangles).
#[derive(Default)]
struct Scratch {
    start: Vec<u32>,
    fill: Vec<u32>,
    bucket: Vec<(u32, u32)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}
