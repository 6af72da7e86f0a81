//! Surface PLY files: round trip (exact but for 8-bit colours), older caches still read, atomic
//! write, clear errors naming the file.

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
fn surface_ply_round_trips_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("surface_00007.ply");
    let mesh = sample_mesh();
    assert!(!mesh.is_empty());
    write_surface_ply(&path, &mesh).unwrap();
    let back = read_surface_ply(&path).unwrap();
    // Normals are not stored: the reader's, from the triangles, are the mesher's bits.
    assert_eq!(back.positions, mesh.positions);
    assert_eq!(back.triangles, mesh.triangles);
    assert_eq!(back.velocities, mesh.velocities);
    assert_eq!(back.normals, mesh.normals);
    // Colours are 8-bit sRGB: within 1% of 0.2, 0.4, 0.6.
    for c in &back.colours {
        for (got, want) in c.iter().zip([0.2, 0.4, 0.6]) {
            assert!((got - want).abs() < 0.01 * want, "{c:?}");
        }
    }
    assert!(!dir.path().join("surface_00007.ply.tmp").exists());
    let bytes = std::fs::read(&path).unwrap();
    let header = String::from_utf8_lossy(&bytes[..400]);
    assert!(header.contains("format binary_little_endian 1.0"));
    assert!(header.contains("property list uchar uint vertex_indices"));
    assert!(header.contains("property uchar red") && !header.contains("property float nx"));
    // 27 bytes a vertex (three floats, three bytes, three floats), 13 a triangle.
    let payload = 27 * mesh.positions.len() + 13 * mesh.triangles.len();
    assert!(bytes.len() - payload < 400, "{} bytes", bytes.len());
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

/// A surface file as Gloop wrote them before issue 33: twelve floats a vertex (position, normal,
/// linear colour, velocity).
fn write_old_format(
    path: &std::path::Path,
    positions: &[Vec3],
    normals: &[Vec3],
    triangles: &[[u32; 3]],
) {
    let mut bytes = format!(
        "ply\nformat binary_little_endian 1.0\ncomment gloop surface\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n\
         property float nx\nproperty float ny\nproperty float nz\n\
         property float red\nproperty float green\nproperty float blue\n\
         property float vx\nproperty float vy\nproperty float vz\n\
         element face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        positions.len(),
        triangles.len()
    )
    .into_bytes();
    for (p, n) in positions.iter().zip(normals) {
        for v in p
            .to_array()
            .into_iter()
            .chain(n.to_array())
            .chain([0.05, 0.5, 0.9, 1.0, 2.0, 3.0])
        {
            bytes.extend(v.to_le_bytes());
        }
    }
    for t in triangles {
        bytes.push(3);
        for v in t {
            bytes.extend(v.to_le_bytes());
        }
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn caches_written_before_issue_33_read_as_they_did() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("surface_00001.ply");
    let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    // Normals that are not the triangles' own, to see that the file's are used.
    let normals = vec![Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_X];
    let triangles = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    write_old_format(&path, &positions, &normals, &triangles);
    let mesh = read_surface_ply(&path).unwrap();
    assert_eq!(mesh.positions, positions);
    assert_eq!(mesh.normals, normals);
    assert_eq!(mesh.triangles, triangles);
    assert_eq!(mesh.colours, vec![[0.05, 0.5, 0.9]; 4]);
    assert_eq!(mesh.velocities, vec![Vec3::new(1.0, 2.0, 3.0); 4]);
}
