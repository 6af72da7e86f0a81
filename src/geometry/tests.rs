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
        max_row_tests: 2000,
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

/// Issue 35: meshes a scene file can hold but no lattice can: scaled by 1e30 (an index out of
/// bounds), one vertex at z = −9.2e18 ("capacity overflow"), a shear of 2³¹ (1.5 TB asked
/// for). Each is refused with a reason, before anything is allocated for it.
#[test]
fn fill_refuses_meshes_beyond_the_lattice() {
    let m = box_mesh(Vec3::splat(-0.06), Vec3::splat(0.06));
    let limits = FillLimits {
        max_points: 1_000_000,
        max_row_tests: 1_000_000,
    };
    let scaled: Vec<Vec3> = m.vertices.iter().map(|v| *v * 1e30).collect();
    let why = fill_closed_mesh(&scaled, &m.triangles, 0.02, limits).unwrap_err();
    assert!(why.contains("from the origin"), "{why}");
    let mut far = m.vertices.clone();
    far[0].z = -9.2e18;
    assert!(fill_closed_mesh(&far, &m.triangles, 0.02, limits).is_err());
    let shear = glam::Mat4::from_cols_array(&[
        1.0,
        0.0,
        0.0,
        0.0,
        2_147_483_648.0,
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ]);
    let sheared: Vec<Vec3> = m
        .vertices
        .iter()
        .map(|v| shear.transform_point3(*v))
        .collect();
    assert!(fill_closed_mesh(&sheared, &m.triangles, 0.02, limits).is_err());
    let mut nan = m.vertices.clone();
    nan[3].x = f32::NAN;
    assert!(fill_closed_mesh(&nan, &m.triangles, 0.02, limits).is_err());
    assert!(fill_closed_mesh(&m.vertices, &m.triangles, 0.0, limits).is_err());
}

/// The fill's own limits: too many points, too many ray tests, too many distance tests near
/// the surface; and its count is its length.
#[test]
fn fill_counts_before_it_fills() {
    let m = box_mesh(Vec3::ZERO, Vec3::new(1.0, 0.6, 0.4));
    let limits = |max_points, max_row_tests| FillLimits {
        max_points,
        max_row_tests,
    };
    assert_eq!(
        count_fill(&m.vertices, &m.triangles, 0.1, limits(1000, 2000)),
        Ok(240)
    );
    // Over the cap, the count it cannot be below, without searching the surface's band.
    let over = count_fill(&m.vertices, &m.triangles, 0.1, limits(100, 1000)).unwrap();
    assert!(over > 100, "{over}");
    let why = count_fill(&m.vertices, &m.triangles, 0.1, limits(1000, 1000)).unwrap_err();
    assert!(why.contains("1728 distance tests"), "{why}");
    let few_points = FillLimits {
        max_points: 239,
        max_row_tests: 2000,
    };
    let why = fill_closed_mesh(&m.vertices, &m.triangles, 0.1, few_points).unwrap_err();
    assert!(why.contains("240 lattice points"), "{why}");
    let few_tests = FillLimits {
        max_points: 1000,
        max_row_tests: 10,
    };
    let why = fill_closed_mesh(&m.vertices, &m.triangles, 0.1, few_tests).unwrap_err();
    assert!(why.contains("ray tests"), "{why}");
}

/// `sampling_cost` bounds what `sample_surface` keeps, on a box, a sliver and a finely split
/// square, and counts the candidates it tests.
#[test]
fn sampling_cost_bounds_the_samples() {
    let cube = box_mesh(Vec3::ZERO, Vec3::ONE);
    let sliver = TriMesh {
        vertices: vec![
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.5, 1e-4, 0.0),
        ],
        triangles: vec![[0, 1, 2]],
    };
    let mut fine = TriMesh::default();
    let n = 40;
    for j in 0..=n {
        for i in 0..=n {
            fine.vertices
                .push(Vec3::new(i as f32 / n as f32, j as f32 / n as f32, 0.0));
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = j * (n + 1) + i;
            fine.triangles.push([a, a + 1, a + n + 2]);
            fine.triangles.push([a, a + n + 2, a + n + 1]);
        }
    }
    for (mesh, spacing) in [(&cube, 0.1), (&cube, 0.013), (&sliver, 0.01), (&fine, 0.02)] {
        let kept = sample_surface(&mesh.vertices, &mesh.triangles, spacing).len() as u64;
        let cost = sampling_cost(&mesh.vertices, &mesh.triangles, spacing);
        assert!(kept <= cost.max_samples, "{kept} > {}", cost.max_samples);
        assert!(cost.max_samples <= cost.candidates);
        // Not so loose that it refuses what the old area estimate allowed twice over.
        if std::ptr::eq(mesh, &cube) {
            assert!(
                cost.max_samples < 3 * kept,
                "{} vs {kept}",
                cost.max_samples
            );
        }
    }
}
