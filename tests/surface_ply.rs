//! Surface PLY files: exact round trip, atomic write, clear errors naming the file.

use glam::Vec3;
use gloop::surface::{mesh_particles, read_surface_ply, write_surface_ply, SurfaceSettings};

fn sample_mesh() -> gloop::surface::SurfaceMesh {
    let particles: Vec<Vec3> = (0..27)
        .map(|i| Vec3::new((i % 3) as f32, (i / 3 % 3) as f32, (i / 9) as f32) * 0.02)
        .collect();
    let velocities = vec![Vec3::new(0.1, 0.2, -0.3); 27];
    let colours = vec![[0.2, 0.4, 0.6]; 27];
    mesh_particles(
        &particles,
        &velocities,
        &colours,
        0.01,
        &SurfaceSettings::default(),
    )
}

#[test]
fn surface_ply_round_trips_exactly_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("surface_00007.ply");
    let mesh = sample_mesh();
    assert!(!mesh.is_empty());
    write_surface_ply(&path, &mesh).unwrap();
    assert_eq!(read_surface_ply(&path).unwrap(), mesh);
    assert!(!dir.path().join("surface_00007.ply.tmp").exists());
    let bytes = std::fs::read(&path).unwrap();
    let header = String::from_utf8_lossy(&bytes[..400]);
    assert!(header.contains("format binary_little_endian 1.0"));
    assert!(header.contains("property list uchar uint vertex_indices"));
    // The empty mesh is a valid file too.
    write_surface_ply(&path, &Default::default()).unwrap();
    assert!(read_surface_ply(&path).unwrap().is_empty());
}

#[test]
fn truncated_or_garbage_ply_gives_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("surface_00003.ply");
    write_surface_ply(&path, &sample_mesh()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for cut in [bytes.len() - 5, bytes.len() / 2, 100, 10] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let message = read_surface_ply(&path).unwrap_err().to_string();
        assert!(message.contains("surface_00003.ply"), "{message}");
    }
    std::fs::write(&path, b"this is not a ply file\n").unwrap();
    let message = read_surface_ply(&path).unwrap_err().to_string();
    assert!(message.contains("surface_00003.ply"), "{message}");
    let missing = dir.path().join("nope.ply");
    assert!(read_surface_ply(&missing)
        .unwrap_err()
        .to_string()
        .contains("nope.ply"));
}
