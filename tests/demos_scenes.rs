//! The built-in demo scenes: valid, at the paper's Table 1 particle counts and step counts,
//! closed meshes, liquid starting clear of the obstacles, and a fan that turns rigidly.

use std::f32::consts::TAU;
use std::path::Path;

use glam::{Mat3, Vec3};
use gloop::demos::{self, demo_counts, demo_scene, paper_figures, DEMO_NAMES};
use gloop::geometry;
use gloop::scene::{AdhesionMatrix, Motion, Role, Scene};

fn all_demos() -> Vec<(&'static str, Scene)> {
    DEMO_NAMES
        .iter()
        .map(|&name| (name, demo_scene(name).expect("every listed demo builds")))
        .collect()
}

#[test]
fn every_demo_validates_and_unknown_names_give_none() {
    assert_eq!(
        DEMO_NAMES,
        &["honey-drop", "paint-drops", "fan", "honey-pour"]
    );
    for (name, scene) in all_demos() {
        scene
            .validate()
            .unwrap_or_else(|e| panic!("demo {name} is invalid: {e}"));
    }
    assert!(demo_scene("teapot").is_none());
    assert!(demo_scene("").is_none());
}

/// The scene as Table 1 counts it: without the honey drop's plate, which the paper leaves out
/// (its ball hangs above a floor it does not simulate).
fn as_in_table_1(scene: &Scene) -> Scene {
    let mut scene = scene.clone();
    scene.objects.retain(|o| o.name != "plate");
    scene
}

#[test]
fn particle_counts_are_within_15_percent_of_table_1() {
    // Steele et al. 2004, Table 1 (liquid, object): the numbers the demos are sized for.
    let table_1 = [
        ("honey-drop", 9198, 3966),
        ("paint-drops", 6822, 1410),
        ("fan", 64296, 8786),
    ];
    for (name, liquid_target, object_target) in table_1 {
        let scene = demo_scene(name).unwrap();
        let (liquid, object) = demo_counts(&as_in_table_1(&scene));
        let (_, with_extras) = demo_counts(&scene);
        println!(
            "{name}: {liquid} liquid + {object} object particles \
             ({with_extras} with what Table 1 leaves out)"
        );
        for (what, got, want) in [
            ("liquid", liquid, liquid_target),
            ("object", object, object_target),
        ] {
            let off = (got as f64 - want as f64).abs() / want as f64;
            assert!(
                off <= 0.15,
                "{name}: {got} {what} particles, Table 1 has {want}"
            );
        }
        let cap = scene.settings.max_particles as usize;
        assert!(
            cap >= 2 * (liquid + with_extras),
            "{name}: cap {cap} is not comfortably above"
        );
        let paper = paper_figures(name).unwrap();
        assert_eq!(
            (paper.liquid_particles, paper.object_particles),
            (liquid_target, object_target)
        );
    }
}

#[test]
fn settings_follow_table_1_and_the_brief() {
    let steps = [("honey-drop", 4, 8), ("paint-drops", 4, 6), ("fan", 9, 3)];
    for (name, substeps, moves) in steps {
        let s = demo_scene(name).unwrap().settings;
        assert_eq!((s.substeps, s.moves), (substeps, moves), "{name}");
        assert_eq!(
            (s.frame_start, s.frame_end, s.fps),
            (1, 200, 24.0),
            "{name}"
        );
        assert_eq!(s.density_tolerance, 0.01, "{name}");
        assert_eq!(s.elastic_coefficient, 0.5, "{name}");
        assert_eq!(s.gravity, Vec3::new(0.0, 0.0, -9.81), "{name}");
    }
}

#[test]
fn demos_are_deterministic_and_round_trip_through_both_formats() {
    for (name, scene) in all_demos() {
        assert_eq!(
            scene,
            demo_scene(name).unwrap(),
            "{name} differs between two builds"
        );
        let origin = Path::new("demo");
        assert_eq!(
            Scene::from_binary(&scene.to_binary(), origin).unwrap(),
            scene
        );
        assert_eq!(Scene::from_json(&scene.to_json(), origin).unwrap(), scene);
    }
}

#[test]
fn every_mesh_is_closed() {
    for (name, scene) in all_demos() {
        // An emitter's mesh is its nozzle, a surface the liquid leaves through: open.
        let solids = scene
            .objects
            .iter()
            .filter(|o| !matches!(o.role, Role::Emitter { .. }));
        for o in solids {
            assert_eq!(geometry::open_edge_count(&o.mesh), 0, "{name}: {}", o.name);
            let volume = geometry::enclosed_volume(&o.mesh.vertices, &o.mesh.triangles);
            assert!(volume > 0.0, "{name}: {} faces inward", o.name);
        }
    }
}

/// World-space liquid particles and object particles of a scene at its first frame.
fn initial_particles(scene: &Scene) -> (Vec<Vec3>, Vec<Vec3>) {
    let r = scene.settings.particle_radius;
    let (mut liquid, mut object) = (Vec::new(), Vec::new());
    for o in &scene.objects {
        let world = geometry::world_vertices(&o.mesh, &o.motion, scene.settings.frame_start as f32);
        match o.role {
            Role::Liquid { .. } => liquid.extend(
                geometry::fill_closed_mesh(
                    &world,
                    &o.mesh.triangles,
                    2.0 * r,
                    geometry::FillLimits::NONE,
                )
                .unwrap(),
            ),
            Role::Obstacle { .. } | Role::RigidBody { .. } => object.extend(
                geometry::sample_surface(&world, &o.mesh.triangles, geometry::obstacle_spacing(r))
                    .iter()
                    .map(|s| s.position(&world, &o.mesh.triangles)),
            ),
            Role::Emitter { .. } => {}
        }
    }
    (liquid, object)
}

#[test]
fn liquid_starts_in_the_domain_above_and_clear_of_the_obstacles() {
    for (name, scene) in all_demos() {
        let (liquid, object) = initial_particles(&scene);
        let domain = scene.settings.domain;
        let r = scene.settings.particle_radius;
        assert!(
            liquid.iter().chain(&object).all(|p| domain.contains(*p)),
            "{name}"
        );
        let lowest_liquid = liquid.iter().map(|p| p.z).fold(f32::MAX, f32::min);
        let highest_object = object.iter().map(|p| p.z).fold(f32::MIN, f32::max);
        // At least 2 cm of free fall, and well inside the domain's sides so the liquid can
        // spread over the obstacle before anything is removed.
        assert!(
            lowest_liquid - highest_object >= 0.02,
            "{name}: liquid starts on the obstacle"
        );
        let (lo, hi) = geometry::bounds(&object);
        assert!(
            (lo - domain.min).min_element() > 20.0 * r,
            "{name}: obstacle near the domain side"
        );
        assert!(
            (domain.max - hi).min_element() > 20.0 * r,
            "{name}: obstacle near the domain side"
        );
    }
}

#[test]
fn the_honey_clings_to_the_ball_more_strongly_than_gravity_pulls_it() {
    // The paper's Figure 1 strings form because the ball's pull exceeds gravity.
    let scene = demo_scene("honey-drop").unwrap();
    let m = &scene.materials;
    let adhesion = AdhesionMatrix::from_materials(m).unwrap();
    let pull = adhesion.get(
        m.matrix_index("honey").unwrap(),
        m.matrix_index("steel").unwrap(),
    );
    let peak = (0..=80)
        .map(|k| pull.eval(k as f32 * 0.05))
        .fold(f32::MIN, f32::max);
    assert!(
        peak > scene.settings.gravity.length(),
        "peak pull {peak} m/s²"
    );
    // The ball is where the module says (the run test checks against it).
    let ball = scene.objects.iter().find(|o| o.name == "ball").unwrap();
    let world = geometry::world_vertices(&ball.mesh, &ball.motion, 1.0);
    for v in world {
        let d = v.distance(demos::honey_drop::BALL_CENTRE);
        assert!((d - demos::honey_drop::BALL_RADIUS).abs() < 1e-5);
    }
}

#[test]
fn three_miscible_paints_of_different_colours_fall_in_succession() {
    let scene = demo_scene("paint-drops").unwrap();
    let paints = &scene.materials.liquids;
    assert_eq!(paints.len(), 3);
    assert!(paints.iter().all(|p| p.miscible));
    for (i, a) in paints.iter().enumerate() {
        for b in &paints[i + 1..] {
            assert_ne!(a.name, b.name);
            let gap: f32 = (0..3).map(|k| (a.colour[k] - b.colour[k]).abs()).sum();
            assert!(gap > 0.3, "{} and {} look alike", a.name, b.name);
        }
    }
    // Each drop is its own liquid object, one above the other with a gap between them.
    let r = scene.settings.particle_radius;
    let mut drops: Vec<(f32, f32)> = scene
        .objects
        .iter()
        .filter(|o| matches!(o.role, Role::Liquid { .. }))
        .map(|o| {
            let world = geometry::world_vertices(&o.mesh, &o.motion, 1.0);
            let (lo, hi) = geometry::bounds(&world);
            (lo.z, hi.z)
        })
        .collect();
    assert_eq!(drops.len(), 3);
    drops.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in drops.windows(2) {
        assert!(w[1].0 - w[0].1 > 4.0 * r, "drops touch: {w:?}");
    }
    let materials: Vec<&str> = scene.objects.iter().map(|o| o.role.material()).collect();
    for p in paints {
        assert!(
            materials.contains(&p.name.as_str()),
            "{} is used by no drop",
            p.name
        );
    }
}

#[test]
fn the_fan_turns_rigidly_at_a_constant_rate_about_its_axis() {
    let scene = demo_scene("fan").unwrap();
    let fan = scene.objects.iter().find(|o| o.name == "fan").unwrap();
    let Motion::Rigid {
        first_frame,
        matrices,
    } = &fan.motion
    else {
        panic!("the fan must move rigidly, not {:?}", fan.motion);
    };
    assert_eq!(*first_frame, scene.settings.frame_start);
    assert_eq!(matrices.len(), scene.settings.frame_count() as usize);
    let step = TAU * demos::fan::REVOLUTIONS_PER_SECOND / scene.settings.fps;
    assert!((2.0..=4.0).contains(&demos::fan::REVOLUTIONS_PER_SECOND));
    let rotations: Vec<Mat3> = matrices.iter().map(|m| Mat3::from_mat4(*m)).collect();
    for (k, (m, rot)) in matrices.iter().zip(&rotations).enumerate() {
        // Orthonormal with determinant +1: a rotation, no scale or shear.
        let should_be_identity = rot.transpose() * *rot;
        assert!(
            should_be_identity.abs_diff_eq(Mat3::IDENTITY, 1e-5),
            "frame {k}"
        );
        assert!((rot.determinant() - 1.0).abs() < 1e-5, "frame {k}");
        // About the vertical axis through the fan's centre, which stays put.
        assert!(
            rot.z_axis.abs_diff_eq(Vec3::Z, 1e-5),
            "frame {k} tilts the axis"
        );
        assert!(m
            .w_axis
            .truncate()
            .abs_diff_eq(demos::fan::FAN_CENTRE, 1e-6));
        assert_eq!(m.row(3), glam::Vec4::W);
    }
    for (k, w) in rotations.windows(2).enumerate() {
        // The relative rotation from one frame to the next is the same turn about +z.
        let relative = w[1] * w[0].transpose();
        let angle = relative.x_axis.y.atan2(relative.x_axis.x);
        assert!(
            (angle - step).abs() < 1e-4,
            "frame {k}: turned {angle} rad, expected {step}"
        );
    }
    // A blade tip moves the way the matrices say: after 12 frames (half a second, one turn at
    // 2 rev/s) it is back where it started.
    let tip = Vec3::new(demos::fan::fan_shape().tip_radius, 0.0, 0.0);
    let per_turn = (scene.settings.fps / demos::fan::REVOLUTIONS_PER_SECOND).round() as usize;
    let a = matrices[0].transform_point3(tip);
    let b = matrices[per_turn].transform_point3(tip);
    let half = matrices[per_turn / 2].transform_point3(tip);
    assert!(a.distance(b) < 1e-5);
    assert!((a.distance(half) - 2.0 * tip.x).abs() < 1e-5);
}

#[test]
fn the_fans_blade_boxes_match_its_mesh() {
    // The run test checks liquid against `FanShape::contains`; it must describe the mesh.
    let shape = demos::fan::fan_shape();
    let mesh = shape.mesh();
    let (lo, hi) = geometry::bounds(&mesh.vertices);
    let centre_of = |t: &[u32; 3]| t.iter().map(|&i| mesh.vertices[i as usize]).sum::<Vec3>() / 3.0;
    for t in &mesh.triangles {
        let c = centre_of(t);
        let n = geometry::triangle_normal(&mesh.vertices, *t);
        // Just inside every face is solid, just outside is empty (unless another part is there).
        assert!(
            shape.contains(c - 1e-5 * n),
            "inside of face at {c} is not solid"
        );
    }
    assert!(!shape.contains(lo - Vec3::splat(1e-4)));
    assert!(!shape.contains(hi + Vec3::splat(1e-4)));
}
