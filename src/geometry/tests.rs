use super::*;

#[test]
fn box_is_closed_with_the_right_volume_and_area() {
    let m = box_mesh(Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(open_edge_count(&m), 0);
    assert!((enclosed_volume(&m.vertices, &m.triangles) - 6.0).abs() < 1e-5);
    assert!((surface_area(&m.vertices, &m.triangles) - 22.0).abs() < 1e-5);
    let mut open = m.clone();
    open.triangles.pop();
    assert_eq!(open_edge_count(&open), 3);
}

#[test]
fn box_fill_gives_the_lattice_count() {
    // A 10 × 6 × 4 cell box of spacing 0.1 aligned with the lattice holds exactly 240 points.
    let m = box_mesh(Vec3::ZERO, Vec3::new(1.0, 0.6, 0.4));
    let limits = FillLimits {
        max_points: 1000,
        max_row_tests: 1000,
    };
    let pts = fill_closed_mesh(&m.vertices, &m.triangles, 0.1, limits).unwrap();
    assert_eq!(pts.len(), 240);
    assert!(pts
        .iter()
        .all(|p| p.cmpgt(Vec3::ZERO).all() && p.cmplt(Vec3::new(1.0, 0.6, 0.4)).all()));
}

#[test]
fn surface_samples_are_spaced_and_cover() {
    let m = box_mesh(Vec3::ZERO, Vec3::ONE);
    let spacing = 0.1;
    let s = sample_surface(&m.vertices, &m.triangles, spacing);
    let pts: Vec<Vec3> = s
        .iter()
        .map(|x| x.position(&m.vertices, &m.triangles))
        .collect();
    for (i, p) in pts.iter().enumerate() {
        for q in &pts[i + 1..] {
            assert!(p.distance(*q) >= 0.85 * spacing * 0.999);
        }
    }
    // Every point of a face grid is within ~spacing of a sample.
    for a in 0..=20 {
        for b in 0..=20 {
            let p = Vec3::new(a as f32 / 20.0, b as f32 / 20.0, 0.0);
            let d = pts.iter().map(|q| q.distance(p)).fold(f32::MAX, f32::min);
            assert!(d <= spacing, "gap {d} at {p}");
        }
    }
}
