//! The fuzzer's inputs: base scenes made small enough to step quickly, and their mutated
//! variants, JSON text or binary bytes, each a pure function of (seed, case number).

use std::sync::OnceLock;

use glam::{Mat4, Vec3};
use serde_json::Value;

use super::Rng;
use crate::demos;
use crate::scene::{presets, Domain, Emission, Materials, Motion, Role, Scene, SceneObject};

/// The particle cap every case runs under (memory bound per case): the base scenes make at
/// most a fifth of it.
pub const FUZZ_CAP: u64 = 20_000;

/// One variant: what was mutated, and the file it makes.
pub struct CaseInput {
    pub label: String,
    pub json: bool,
    pub bytes: Vec<u8>,
}

struct Base {
    name: String,
    json: Value,
    binary: Vec<u8>,
}

/// The demo scenes (coarsened to a few hundred particles, four frames) and a small scene with
/// one object of each role.
pub fn base_scenes() -> Vec<(String, Scene)> {
    let mut scenes: Vec<(String, Scene)> = demos::DEMO_NAMES
        .iter()
        .map(|name| {
            let scene = demos::demo_scene(name).expect("a demo name");
            (name.to_string(), coarsen(scene))
        })
        .collect();
    scenes.push(("small".into(), small_scene()));
    scenes
}

fn bases() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        base_scenes()
            .into_iter()
            .map(|(name, scene)| Base {
                name,
                json: serde_json::to_value(&scene).expect("a scene serializes"),
                binary: scene.to_binary(),
            })
            .collect()
    })
}

/// A demo at a radius coarse enough for about 600 particles, over four frames, its motions
/// cut to the poses those frames use.
fn coarsen(mut scene: Scene) -> Scene {
    let s = &mut scene.settings;
    s.frame_end = s.frame_start + 3;
    s.max_particles = FUZZ_CAP;
    let keep = 8;
    for object in &mut scene.objects {
        match &mut object.motion {
            Motion::Rigid { matrices, .. } => matrices.truncate(keep),
            Motion::Deforming { positions, .. } => positions.truncate(keep),
            Motion::Static { .. } => {}
        }
    }
    for _ in 0..40 {
        let (liquid, object) = demos::demo_counts(&scene);
        if liquid + object <= 600 && scene.validate().is_ok() {
            break;
        }
        scene.settings.particle_radius *= 1.25;
    }
    scene
}

/// A 1 cm honey cube over a plate, beside a small emitter: r = 1 mm, a few hundred particles.
fn small_scene() -> Scene {
    let materials = Materials {
        liquids: vec![presets::liquid("honey", 1400.0, 10.0, [0.8, 0.5, 0.1])],
        solids: vec![presets::solid("plate", 0.5, 4.0)],
        adhesion_overrides: vec![],
    };
    let cube = demos::shapes::box_mesh(Vec3::splat(0.005));
    let plate = demos::shapes::box_mesh(Vec3::new(0.03, 0.03, 0.002));
    let nozzle = demos::shapes::box_mesh(Vec3::splat(0.002));
    let at = |x: f32, y: f32, z: f32| Motion::Static {
        matrix: Mat4::from_translation(Vec3::new(x, y, z)),
    };
    let objects = vec![
        SceneObject {
            name: "Cube".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::ZERO,
            },
            mesh: cube,
            motion: at(0.0, 0.0, 0.01),
        },
        SceneObject {
            name: "Plate".into(),
            role: Role::Obstacle {
                material: "plate".into(),
            },
            mesh: plate,
            motion: Motion::Rigid {
                first_frame: 1,
                matrices: vec![Mat4::IDENTITY, Mat4::from_translation(Vec3::Z * 0.001)],
            },
        },
        SceneObject {
            name: "Nozzle".into(),
            role: Role::Emitter {
                material: "honey".into(),
                emission: Emission {
                    flow: Some(1e-6),
                    speed: Some(0.2),
                    rate: None,
                    frame_start: 1,
                    frame_end: 3,
                },
            },
            mesh: nozzle,
            motion: at(0.015, 0.0, 0.02),
        },
    ];
    let settings = crate::scene::Settings {
        frame_start: 1,
        frame_end: 4,
        particle_radius: 0.001,
        max_particles: FUZZ_CAP,
        domain: Domain {
            min: Vec3::splat(-0.05),
            max: Vec3::splat(0.05),
            periodic: [false; 3],
        },
        ..Default::default()
    };
    Scene::new(settings, materials, objects)
}

/// Case `index` of the run seeded `seed`.
pub fn case_input(seed: u64, index: u64) -> CaseInput {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407));
    let bases = bases();
    let base = rng.pick(bases);
    let mut label = base.name.clone();
    let json = rng.chance(0.5);
    if json {
        let mut value = base.json.clone();
        for _ in 0..1 + rng.below(4) {
            label += &format!(" {}", mutate_value(&mut value, &mut rng));
        }
        let mut text = serde_json::to_string(&value).expect("a value serializes");
        if rng.chance(0.1) {
            label += " text-bytes";
            let mut bytes = text.into_bytes();
            mutate_bytes(&mut bytes, 0, &mut rng);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        return CaseInput {
            label: format!("json {label}"),
            json: true,
            bytes: text.into_bytes(),
        };
    }
    // Binary: a structural mutation carried through the binary form, then raw bytes
    // (which reach what JSON cannot: NaN, infinities, lengths and tags).
    let mut bytes = base.binary.clone();
    if rng.chance(0.5) {
        let mut value = base.json.clone();
        label += &format!(" {}", mutate_value(&mut value, &mut rng));
        if let Ok(scene) = serde_json::from_value::<Scene>(value) {
            bytes = scene.to_binary();
        }
    }
    for _ in 0..rng.below(4) {
        label += &format!(" {}", mutate_bytes(&mut bytes, 12, &mut rng));
    }
    CaseInput {
        label: format!("binary {label}"),
        json: false,
        bytes,
    }
}

/// Numbers that break things: zeros, signs, the ends of f32 and of the integer types.
const SPECIAL_FLOATS: [f64; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-45,
    1e-20,
    1e-7,
    1e7,
    1e20,
    1e30,
    -1e30,
    3.4e38,
    1e39,
    -1e39,
    2147483648.0,
    -2147483649.0,
    4294967296.0,
    9.2e18,
    -9.2e18,
    1e300,
    20.0,
];
const SPECIAL_INTEGERS: [i64; 10] = [
    0,
    -1,
    1,
    2147483647,
    -2147483648,
    4294967295,
    4294967296,
    i64::MAX,
    i64::MIN,
    1_048_575,
];

/// One structural mutation of a JSON value; returns its name for the case's label.
fn mutate_value(root: &mut Value, rng: &mut Rng) -> String {
    let path = random_path(root, rng);
    let node = root.pointer_mut(&path).expect("a path just walked");
    match rng.below(8) {
        0 | 1 => {
            *node = if rng.chance(0.5) {
                Value::from(*rng.pick(&SPECIAL_FLOATS))
            } else {
                Value::from(*rng.pick(&SPECIAL_INTEGERS))
            };
            format!("special@{path}")
        }
        2 => {
            if let Some(x) = node.as_f64() {
                let factor = *rng.pick(&[-1.0, 10.0, 0.1, 1e6, 1e-6, 60.0, 1e30]);
                *node = Value::from(x * factor);
            }
            format!("scale@{path}")
        }
        3 => {
            drop_or_duplicate(root, &path, rng);
            format!("drop-dup@{path}")
        }
        4 => {
            *node = rng
                .pick(&[
                    Value::Null,
                    Value::from("x"),
                    Value::Array(vec![]),
                    Value::Object(Default::default()),
                    Value::Bool(true),
                ])
                .clone();
            format!("retype@{path}")
        }
        5 => scale_matrices(root, rng),
        6 => {
            if let Value::Array(items) = node {
                if !items.is_empty() {
                    let item = items[rng.below(items.len())].clone();
                    let copies = *rng.pick(&[1, 2, 16, 200]);
                    items.extend(std::iter::repeat_n(item, copies));
                }
            }
            format!("repeat@{path}")
        }
        _ => {
            let settings = root.pointer_mut("/settings").and_then(Value::as_object_mut);
            if let Some(settings) = settings.filter(|s| !s.is_empty()) {
                let keys: Vec<String> = settings.keys().cloned().collect();
                let key = rng.pick(&keys).clone();
                settings.insert(key.clone(), Value::from(*rng.pick(&SPECIAL_FLOATS)));
                return format!("setting:{key}");
            }
            "none".into()
        }
    }
}

/// A random node, found by walking down from the root (stopping early now and then, so
/// containers are mutated as well as leaves), as a JSON pointer.
fn random_path(root: &Value, rng: &mut Rng) -> String {
    let mut path = String::new();
    let mut node = root;
    loop {
        if !path.is_empty() && rng.chance(0.12) {
            return path;
        }
        match node {
            Value::Object(map) if !map.is_empty() => {
                let key = map.keys().nth(rng.below(map.len())).expect("in range");
                path += &format!("/{}", key.replace('~', "~0").replace('/', "~1"));
                node = &map[key];
            }
            Value::Array(items) if !items.is_empty() => {
                let k = rng.below(items.len());
                path += &format!("/{k}");
                node = &items[k];
            }
            _ => return path,
        }
    }
}

/// Removes the node at `path` from its parent, or duplicates it within its parent array.
fn drop_or_duplicate(root: &mut Value, path: &str, rng: &mut Rng) {
    let Some(split) = path.rfind('/') else {
        return;
    };
    let (parent, last) = (&path[..split], &path[split + 1..]);
    let duplicate = rng.chance(0.5);
    match root.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&last.replace("~1", "/").replace("~0", "~"));
        }
        Some(Value::Array(items)) => {
            if let Ok(k) = last.parse::<usize>() {
                if duplicate {
                    let item = items[k].clone();
                    items.insert(k, item);
                } else {
                    items.remove(k);
                }
            }
        }
        _ => {}
    }
}

/// Scales or shears an object's motion matrices, or gives a static object a rigid motion that
/// grows it at the second frame (a pose other than the first).
fn scale_matrices(root: &mut Value, rng: &mut Rng) -> String {
    let Some(objects) = root.pointer_mut("/objects").and_then(Value::as_array_mut) else {
        return "no-objects".into();
    };
    if objects.is_empty() {
        return "no-objects".into();
    }
    let k = rng.below(objects.len());
    let factor = *rng.pick(&[20.0f32, 60.0, 1e30, -1.0, 0.0, 1e-20, 2147483648.0]);
    let object = &mut objects[k];
    if rng.chance(0.3) {
        let first = object
            .pointer("/motion/static/matrix")
            .and_then(|m| serde_json::from_value::<Mat4>(m.clone()).ok())
            .unwrap_or(Mat4::IDENTITY);
        let grown = first * Mat4::from_scale(Vec3::splat(factor));
        let motion = Motion::Rigid {
            first_frame: *rng.pick(&[0, 1, 2, -2147483648]),
            matrices: vec![first, grown],
        };
        if let Some(fields) = object.as_object_mut() {
            let motion = serde_json::to_value(motion).expect("a motion serializes");
            fields.insert("motion".into(), motion);
        }
        return format!("grow-at-frame-2:{k}x{factor}");
    }
    let shear = rng.chance(0.5);
    let scale = |m: &mut Value| {
        if let Some(elements) = m.as_array_mut() {
            for (i, e) in elements.iter_mut().enumerate() {
                let column_part = i % 4 < 3 && i < 12;
                let hit = if shear { i == 4 || i == 9 } else { column_part };
                if let (true, Some(x)) = (hit, e.as_f64()) {
                    *e = Value::from(if shear {
                        factor as f64
                    } else {
                        x * factor as f64
                    });
                }
            }
        }
    };
    if let Some(m) = object.pointer_mut("/motion/static/matrix") {
        scale(m);
    } else if let Some(Value::Array(ms)) = object.pointer_mut("/motion/rigid/matrices") {
        ms.iter_mut().for_each(scale);
    }
    format!("{}:{k}x{factor}", if shear { "shear" } else { "scale" })
}

/// One byte-level mutation at or after `from`; returns its name for the case's label.
fn mutate_bytes(bytes: &mut Vec<u8>, from: usize, rng: &mut Rng) -> String {
    if bytes.len() <= from {
        bytes.push(rng.next_u64() as u8);
        return "grow".into();
    }
    let at = from + rng.below(bytes.len() - from);
    match rng.below(6) {
        0 => {
            let special = *rng.pick(&[
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                1e30,
                -1e30,
                1e-45,
                0.0,
                -1.0,
                f32::MAX,
                2147483648.0,
            ]);
            for (i, b) in special.to_le_bytes().into_iter().enumerate() {
                if let Some(slot) = bytes.get_mut(at + i) {
                    *slot = b;
                }
            }
            format!("f32@{at}")
        }
        1 => {
            bytes[at] = rng.next_u64() as u8;
            format!("byte@{at}")
        }
        2 => {
            bytes.truncate(at);
            format!("truncate@{at}")
        }
        3 => {
            let n = 1 + rng.below(8);
            let insert: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            bytes.splice(at..at, insert);
            format!("insert@{at}")
        }
        4 => {
            let len = (1 + rng.below(64)).min(bytes.len() - at);
            let chunk = bytes[at..at + len].to_vec();
            let to = from + rng.below(bytes.len() - from);
            bytes.splice(to..to, chunk);
            format!("dup@{at}")
        }
        _ => {
            // A varint near u32::MAX or u64::MAX: a length, count or integer gone huge.
            const VARINTS: [&[u8]; 3] = [
                &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
                &[0xFF; 10],
                &[0x80, 0x80, 0x80, 0x80, 0x08],
            ];
            let varint = *rng.pick(&VARINTS);
            let end = (at + varint.len()).min(bytes.len());
            bytes.splice(at..end, varint.iter().copied());
            format!("varint@{at}")
        }
    }
}
