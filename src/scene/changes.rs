//! What changed between two scenes, in an artist's words: "viscosity of 'honey' (on 'Cube')",
//! "the shape of 'Cube'", "'Spoon' added". A resume refused because the scene's hash changed
//! names these instead of two hashes (issue 43).
//!
//! The comparison walks both scenes' JSON forms, so every field is covered without a list to
//! keep in step with the structs; lists of named things (objects, liquids, solids) are matched
//! by name. What the hash leaves out is left out here too (`cache::hash::scene_hash`): the
//! bake's end frame and how a liquid renders.

use serde_json::Value;

use super::Scene;

/// At most this many changes are named; the rest are counted.
const NAMED: usize = 3;

/// The changes from `old` to `new` that a resume cannot bake through, most telling first
/// (objects, then materials, then settings); empty when the hash would not change.
pub fn changes(old: &Scene, new: &Scene) -> Vec<String> {
    let (old, new) = (comparable(old), comparable(new));
    let mut found = Vec::new();
    for (section, label) in [
        ("objects", Section::Objects),
        ("materials", Section::Materials(&new["objects"])),
        ("settings", Section::Settings),
    ] {
        diff(
            &old[section],
            &new[section],
            &mut Vec::new(),
            label,
            &mut found,
        );
    }
    // Anything outside the three sections (the format's version, say).
    for key in old_keys_and_new(&old, &new) {
        if !matches!(key.as_str(), "objects" | "materials" | "settings") && old[&key] != new[&key] {
            found.push(words(&key));
        }
    }
    found
}

/// `changes` as one phrase: "viscosity of 'honey', the shape of 'Cube' and 2 more".
pub fn summary(changes: &[String]) -> String {
    let named: Vec<&str> = changes.iter().take(NAMED).map(String::as_str).collect();
    let rest = changes.len().saturating_sub(NAMED);
    match (named.as_slice(), rest) {
        ([], _) => "nothing".to_string(),
        ([one], 0) => one.to_string(),
        (many, 0) => format!(
            "{} and {}",
            many[..many.len() - 1].join(", "),
            many[many.len() - 1]
        ),
        (many, rest) => format!("{} and {rest} more", many.join(", ")),
    }
}

/// The scene's JSON with what the hash ignores set to what a fresh scene has.
fn comparable(scene: &Scene) -> Value {
    serde_json::to_value(crate::cache::what_a_resume_keeps(scene)).expect("a scene serialises")
}

#[derive(Clone, Copy)]
enum Section<'a> {
    Objects,
    /// With the new scene's objects, to say which use a changed material.
    Materials(&'a Value),
    Settings,
}

/// Walks `old` and `new` together below `path`, pushing one phrase per difference found.
/// Lists whose items all have a "name" are compared item by item by name.
fn diff(
    old: &Value,
    new: &Value,
    path: &mut Vec<String>,
    section: Section<'_>,
    out: &mut Vec<String>,
) {
    if old == new {
        return;
    }
    if let (Some(old_named), Some(new_named)) = (named_items(old), named_items(new)) {
        for (name, item) in &old_named {
            match new_named.iter().find(|(n, _)| n == name) {
                Some((_, other)) => {
                    path.push(name.clone());
                    diff(item, other, path, section, out);
                    path.pop();
                }
                None => out.push(format!("'{name}' removed")),
            }
        }
        for (name, _) in &new_named {
            if !old_named.iter().any(|(n, _)| n == name) {
                out.push(format!("'{name}' added"));
            }
        }
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) if !is_leaf(path, section) => {
            let keys = old_keys_and_new(old, new);
            for key in keys {
                let null = Value::Null;
                path.push(key.clone());
                diff(
                    a.get(&key).unwrap_or(&null),
                    b.get(&key).unwrap_or(&null),
                    path,
                    section,
                    out,
                );
                path.pop();
            }
        }
        _ => out.push(phrase(path, section)),
    }
}

/// Fields compared as one whole: a mesh, a motion, a vector, a domain.
fn is_leaf(path: &[String], section: Section<'_>) -> bool {
    let last = path.last().map(String::as_str);
    match section {
        Section::Objects => matches!(last, Some("mesh" | "motion" | "initial_velocity")),
        Section::Settings => matches!(last, Some("domain" | "gravity")),
        Section::Materials(_) => false,
    }
}

/// The phrase for a change at `path` (names of objects and materials included).
fn phrase(path: &[String], section: Section<'_>) -> String {
    match section {
        // [object name, field, ...]
        Section::Objects => {
            let object = path.first().map(String::as_str).unwrap_or("?");
            let field = match &path[1.min(path.len())..] {
                [f] if f == "mesh" => "the shape".to_string(),
                [f] if f == "motion" => "the placement or animation".to_string(),
                [r, f] if r == "role" && f == "type" => "the type".to_string(),
                [r, f] if r == "role" && f == "material" => "the material".to_string(),
                [r, f] if r == "role" => words(f),
                [r, e, f] if r == "role" && e == "emission" => format!("emission {}", words(f)),
                other => other.iter().map(|s| words(s)).collect::<Vec<_>>().join(" "),
            };
            format!("{field} of '{object}'")
        }
        // [liquids|solids|adhesion_overrides, name?, field]
        Section::Materials(objects) => match path {
            [kind, name, field] if kind == "liquids" || kind == "solids" => {
                format!("{} of '{name}'{}", words(field), used_by(objects, name))
            }
            [kind, ..] if kind == "adhesion_overrides" => "the adhesion overrides".to_string(),
            other => other.iter().map(|s| words(s)).collect::<Vec<_>>().join(" "),
        },
        Section::Settings => match path {
            [field, ..] if field == "domain" => "the domain".to_string(),
            [field, ..] => words(field),
            [] => "the settings".to_string(),
        },
    }
}

/// " (on 'Cube', 'Nozzle')": the objects whose material is `material`, or "" if none.
fn used_by(objects: &Value, material: &str) -> String {
    let users: Vec<String> = named_items(objects)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, o)| o["role"]["material"].as_str() == Some(material))
        .map(|(name, _)| format!("'{name}'"))
        .collect();
    match users.len() {
        0 => String::new(),
        _ => format!(" (on {})", users.join(", ")),
    }
}

/// "particle_radius" → "particle radius".
fn words(field: &str) -> String {
    field.replace('_', " ")
}

/// `value`'s items as (name, item) when it is a list of objects that all have a name.
fn named_items(value: &Value) -> Option<Vec<(String, &Value)>> {
    value
        .as_array()?
        .iter()
        .map(|item| Some((item.get("name")?.as_str()?.to_string(), item)))
        .collect()
}

/// The keys of two JSON objects, the old one's first, each once.
fn old_keys_and_new(old: &Value, new: &Value) -> Vec<String> {
    let mut keys: Vec<String> = old
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    for key in new.as_object().into_iter().flat_map(|o| o.keys()) {
        if !keys.contains(key) {
            keys.push(key.clone());
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demos::honey_pour;
    use crate::scene::{Look, Role};

    #[test]
    fn the_same_scene_or_one_extended_or_recoloured_has_no_changes() {
        let scene = honey_pour::demo();
        let mut later = scene.clone();
        later.settings.frame_end += 100;
        later.materials.liquids[0].look = Look::Opaque;
        assert!(changes(&scene, &later).is_empty());
    }

    #[test]
    fn changes_name_the_field_and_the_object_or_material() {
        let scene = honey_pour::demo();
        let mut edited = scene.clone();
        edited.materials.liquids[0].viscosity *= 2.0;
        edited.settings.particle_radius *= 1.5;
        let liquid = edited.materials.liquids[0].name.clone();
        let nozzle = edited
            .objects
            .iter_mut()
            .find(|o| matches!(o.role, Role::Emitter { .. }))
            .unwrap();
        let nozzle_name = nozzle.name.clone();
        if let Role::Emitter { emission, .. } = &mut nozzle.role {
            emission.flow = emission.flow.map(|f| f * 2.0);
        }
        let found = changes(&scene, &edited);
        assert_eq!(
            found,
            vec![
                format!("emission flow of '{nozzle_name}'"),
                format!("viscosity of '{liquid}' (on '{nozzle_name}')"),
                "particle radius".to_string(),
            ]
        );
        assert_eq!(
            summary(&found),
            format!(
                "emission flow of '{nozzle_name}', viscosity of '{liquid}' (on '{nozzle_name}') \
                 and particle radius"
            )
        );
    }

    #[test]
    fn added_removed_and_reshaped_objects_are_named() {
        let scene = honey_pour::demo();
        assert!(
            scene.objects.len() >= 2,
            "the pour has a nozzle and a plate"
        );
        let mut edited = scene.clone();
        let reshaped = edited.objects[0].name.clone();
        edited.objects[0].mesh.vertices[0][0] += 0.01;
        let removed = edited.objects.pop().unwrap();
        let mut extra = edited.objects[0].clone();
        extra.name = "Spoon".into();
        edited.objects.push(extra);
        assert_eq!(
            changes(&scene, &edited),
            vec![
                format!("the shape of '{reshaped}'"),
                format!("'{}' removed", removed.name),
                "'Spoon' added".to_string(),
            ]
        );
        let five: Vec<String> = (0..5).map(|i| format!("c{i}")).collect();
        assert_eq!(summary(&five), "c0, c1, c2 and 2 more");
    }
}
