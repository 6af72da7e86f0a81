//! Particle files and the manifest: exact round trips, and damaged files rejected with an
//! error naming the file.

use glam::Vec3;
use gloop::cache::{
    read_particles, read_particles_header, write_particles, CacheDir, Manifest, Status,
};
use gloop::sim::LiquidParticles;

mod bake_support;

/// Particles whose floats exercise every corner of f32: signs, zero, subnormals, extremes.
fn awkward_particles() -> LiquidParticles {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.5e-3,
        f32::MIN_POSITIVE,
        f32::from_bits(1), // smallest subnormal
        f32::MAX,
        f32::MIN,
        std::f32::consts::PI,
        1.0 / 3.0,
    ];
    let mut particles = LiquidParticles::default();
    for i in 0..500usize {
        let f = |k: usize| specials[(i * 7 + k * 3) % specials.len()] * (1.0 + i as f32 * 1e-3);
        particles.push(
            Vec3::new(f(0), f(1), f(2)),
            Vec3::new(f(3), f(4), f(5)),
            (i % 3) as u16 * 21845, // 0, 21845, 43690: spans the ushort range
            [f(6), f(7), f(8)],
        );
        particles.density_steps.push(f(9));
    }
    particles
}

fn bits(p: &LiquidParticles) -> Vec<u32> {
    let mut out = Vec::new();
    for i in 0..p.len() {
        out.extend(p.position[i].to_array().map(f32::to_bits));
        out.extend(p.velocity[i].to_array().map(f32::to_bits));
        out.push(p.material[i] as u32);
        out.extend(p.colour[i].map(f32::to_bits));
        // No carry reads as zeros.
        out.push(p.density_steps.get(i).map_or(0, |s| s.to_bits()));
    }
    out
}

#[test]
fn particle_file_round_trips_bit_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = CacheDir::new(dir.path()).particles(42);
    let particles = awkward_particles();
    write_particles(&path, 42, &particles).unwrap();
    let back = read_particles(&path).unwrap();
    assert_eq!(back.len(), 500);
    assert_eq!(bits(&back), bits(&particles));
    let header = read_particles_header(&path).unwrap();
    assert_eq!(header.frame, Some(42));
    assert_eq!(header.particles, 500);
    // The layout other tools rely on: binary little endian; colours that differ within a
    // material are kept per particle, 42 bytes each.
    let bytes = std::fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&bytes[..320]);
    assert!(text.starts_with("ply\nformat binary_little_endian 1.0\ncomment gloop frame 42\n"));
    assert!(text.contains("property ushort material\nproperty float red\n"));
    assert!(text.contains("property float blue\nproperty float density_step\nend_header\n"));
    let header_len = text.find("end_header\n").unwrap() + "end_header\n".len();
    assert_eq!(bytes.len() - header_len, 500 * 42);
    // No temporary file is left behind.
    assert!(!dir.path().join("particles_00042.ply.tmp").exists());
}

/// Honey-like particles: three materials, each particle its material's colour (as the solver
/// makes them), awkward positions, velocities and carried steps.
fn particles_of_three_liquids() -> LiquidParticles {
    let colours = [
        [0.8f32, 0.42, 0.05],
        [1.0 / 3.0, 0.0, -0.0],
        [0.1, 0.2, 0.3],
    ];
    let mut particles = awkward_particles();
    particles.material = (0..particles.len()).map(|i| [4, 0, 9][i % 3]).collect();
    particles.colour = (0..particles.len()).map(|i| colours[i % 3]).collect();
    particles
}

fn split_header(bytes: &[u8]) -> (String, &[u8]) {
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .unwrap()
        + 11;
    (
        String::from_utf8_lossy(&bytes[..end]).into_owned(),
        &bytes[end..],
    )
}

/// Colours shared by each material's particles are written once per material (30 bytes a
/// particle instead of 42) and read back bit for bit.
#[test]
fn colours_shared_per_material_are_stored_once_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00008.ply");
    let particles = particles_of_three_liquids();
    write_particles(&path, 8, &particles).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let (header, payload) = split_header(&bytes);
    assert!(!header.contains("property float red"), "{header}");
    assert!(
        header.contains(
            "comment gloop material_colour 0 0.33333334 0 -0\n\
             comment gloop material_colour 4 0.8 0.42 0.05\n\
             comment gloop material_colour 9 0.1 0.2 0.3\n"
        ),
        "{header}"
    );
    assert!(header.contains("property ushort material\nproperty float density_step\nend_header"));
    assert_eq!(payload.len(), 500 * 30);
    assert_eq!(bits(&read_particles(&path).unwrap()), bits(&particles));
    assert_eq!(read_particles_header(&path).unwrap().particles, 500);

    // One particle a bit off its material's colour keeps every colour per particle.
    let mut mixed = particles.clone();
    mixed.colour[250][2] = f32::from_bits(mixed.colour[250][2].to_bits() + 1);
    write_particles(&path, 8, &mixed).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(split_header(&bytes).1.len(), 500 * 42);
    assert!(!split_header(&bytes).0.contains("material_colour"));
    assert_eq!(bits(&read_particles(&path).unwrap()), bits(&mixed));
}

/// A file storing colours per material that lacks one material's colour, or garbles one, is
/// refused, naming the file.
#[test]
fn a_missing_or_garbled_material_colour_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00009.ply");
    write_particles(&path, 9, &particles_of_three_liquids()).unwrap();
    let good = std::fs::read(&path).unwrap();
    let (header, payload) = split_header(&good);
    for (what, from, to, message) in [
        (
            "missing",
            "comment gloop material_colour 9 0.1 0.2 0.3\n",
            "",
            "no colour for material 9",
        ),
        (
            "garbled",
            "material_colour 9 0.1 0.2 0.3",
            "material_colour 9 0.1 0.2",
            "malformed",
        ),
    ] {
        let mut bytes = header.replace(from, to).into_bytes();
        bytes.extend_from_slice(payload);
        std::fs::write(&path, &bytes).unwrap();
        let err = read_particles(&path).unwrap_err().to_string();
        assert!(err.contains("particles_00009.ply"), "{what}: {err}");
        assert!(err.contains(message), "{what}: {err}");
    }
}

/// A particle file written before colours were stored per material (frame 2 of the honey-pour
/// demo, 416 particles at 42 bytes) still reads; written again it takes 30 bytes a particle
/// and reads back the same particles, bit for bit.
#[test]
fn particle_files_of_older_caches_read_and_rewrite_to_the_same_particles() {
    let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/particles_42_bytes_honey_pour_00002.ply");
    let particles = read_particles(&old).unwrap();
    assert_eq!(particles.len(), 416);
    assert!(!particles.density_steps.is_empty());
    assert_eq!(
        split_header(&std::fs::read(&old).unwrap()).1.len(),
        416 * 42
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00002.ply");
    write_particles(&path, 2, &particles).unwrap();
    assert_eq!(
        split_header(&std::fs::read(&path).unwrap()).1.len(),
        416 * 30
    );
    assert_eq!(bits(&read_particles(&path).unwrap()), bits(&particles));
}

/// Files without the solver's carried state (written before it was stored, or by other tools
/// such as the add-on's tests) still read, with no carry, and so do frames whose carry is
/// zero: both start a resumed bake as the solver starts a fresh one.
#[test]
fn particle_files_without_density_steps_read_with_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00005.ply");
    let particles = awkward_particles();
    write_particles(&path, 5, &particles).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let header_len = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .unwrap()
        + 11;
    let header =
        String::from_utf8_lossy(&bytes[..header_len]).replace("property float density_step\n", "");
    let mut legacy = header.into_bytes();
    for record in bytes[header_len..].chunks(42) {
        legacy.extend_from_slice(&record[..38]);
    }
    std::fs::write(&path, &legacy).unwrap();
    let back = read_particles(&path).unwrap();
    assert!(back.density_steps.is_empty());
    let mut without = particles.clone();
    without.density_steps = vec![0.0; without.len()];
    assert_eq!(bits(&back), bits(&without));

    write_particles(&path, 5, &without).unwrap();
    assert!(read_particles(&path).unwrap().density_steps.is_empty());
}

#[test]
fn empty_frame_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00001.ply");
    write_particles(&path, 1, &LiquidParticles::default()).unwrap();
    assert!(read_particles(&path).unwrap().is_empty());
}

#[test]
fn truncated_particle_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00007.ply");
    write_particles(&path, 7, &awkward_particles()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for cut in [
        bytes.len() - 1,
        bytes.len() - 42 * 10,
        bytes.len() / 2,
        40,
        0,
    ] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = read_particles(&path).unwrap_err().to_string();
        assert!(
            err.contains("particles_00007.ply"),
            "cut at {cut}: error does not name the file: {err}"
        );
    }
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    let err = read_particles(&path).unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");
}

#[test]
fn corrupt_particle_files_are_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("particles_00003.ply");
    write_particles(&path, 3, &awkward_particles()).unwrap();
    let good = std::fs::read(&path).unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();

    // Trailing garbage.
    let mut padded = good.clone();
    padded.extend_from_slice(b"junk");
    // An ASCII PLY with the right properties is still not ours.
    let ascii = text(&good[..320]).replace("binary_little_endian", "ascii");
    let ascii = ascii[..ascii.find("end_header\n").unwrap() + 11].to_string() + "0 0 0\n";
    // A property renamed.
    let renamed = text(&good).replace("property float vx", "property float qx");
    // A count far beyond the data.
    let huge = text(&good).replace("element vertex 500", "element vertex 4000000000");
    for (what, bytes) in [
        ("padded", padded),
        ("ascii", ascii.into_bytes()),
        ("renamed", renamed.into_bytes()),
        ("huge count", huge.into_bytes()),
        ("not ply", b"hello world\n".to_vec()),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let err = read_particles(&path).unwrap_err().to_string();
        assert!(err.contains("particles_00003.ply"), "{what}: {err}");
    }
    let missing = dir.path().join("particles_00099.ply");
    let err = read_particles(&missing).unwrap_err().to_string();
    assert!(err.contains("particles_00099.ply"), "{err}");
}

#[test]
fn manifest_and_status_round_trip_and_refuse_newer_formats() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(dir.path());
    let scene = bake_support::tiny_scene(5);
    let mut manifest = Manifest::for_scene(&scene);
    manifest.last_complete_frame = Some(3);
    manifest.write(&cache.manifest()).unwrap();
    let back = Manifest::read(&cache.manifest()).unwrap();
    assert_eq!(back, manifest);
    assert_eq!(back.liquids[0].name, "honey");
    assert_eq!((back.frame_start, back.frame_end), (1, 5));

    let json = std::fs::read_to_string(cache.manifest()).unwrap();
    std::fs::write(
        cache.manifest(),
        json.replace("\"format_version\": 1", "\"format_version\": 9"),
    )
    .unwrap();
    let err = Manifest::read(&cache.manifest()).unwrap_err().to_string();
    assert!(
        err.contains("manifest.json") && err.contains("newer"),
        "{err}"
    );

    let status = Status {
        state: gloop::cache::BakeState::Cancelled,
        frame: 4,
        frames_done: 4,
        frames_total: 5,
        liquid_particles: 216,
        object_particles: 900,
        elapsed_s: 1.5,
        eta_s: None,
        error: None,
        capped_frames: 2,
        worst_compression: 0.05,
        substeps: Some(12),
        substeps_set_by: Some("speed".into()),
        substeps_capped_frames: 1,
        last_frame_stats: None,
    };
    status.write(&cache.status()).unwrap();
    let text = std::fs::read_to_string(cache.status()).unwrap();
    assert!(text.contains("\"state\": \"cancelled\""), "{text}");
    assert_eq!(Status::read(&cache.status()).unwrap(), status);
    // A status from before the pass-cap figures reads as a bake that never hit the cap.
    let older: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut older = older.as_object().unwrap().clone();
    older.remove("capped_frames");
    older.remove("worst_compression");
    older.remove("substeps");
    older.remove("substeps_capped_frames");
    std::fs::write(cache.status(), serde_json::to_string(&older).unwrap()).unwrap();
    let read = Status::read(&cache.status()).unwrap();
    assert_eq!((read.capped_frames, read.worst_compression), (0, 0.0));
    assert_eq!((read.substeps, read.substeps_capped_frames), (None, 0));
}

#[test]
fn scene_hash_ignores_frame_end_only() {
    let a = bake_support::tiny_scene(5);
    let b = bake_support::tiny_scene(50);
    assert_eq!(gloop::cache::scene_hash(&a), gloop::cache::scene_hash(&b));
    let mut c = a.clone();
    c.settings.substeps += 1;
    assert_ne!(gloop::cache::scene_hash(&a), gloop::cache::scene_hash(&c));
    let mut d = a.clone();
    d.settings.frame_start = 2;
    assert_ne!(gloop::cache::scene_hash(&a), gloop::cache::scene_hash(&d));
}
