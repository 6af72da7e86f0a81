//! `surface_{frame:05}.ply`: binary little-endian PLY, element `vertex` (float x y z, nx ny nz,
//! red green blue, vx vy vz) and element `face` (list uchar uint vertex_indices, triangles
//! counter-clockwise seen from outside). Written atomically; reading checks everything and names
//! the file in every error.

use std::path::Path;

use glam::Vec3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Header, Property, PropertyAccess, PropertyAccessResult,
    PropertyDef, PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

use super::SurfaceMesh;
use crate::atomic_file::write_atomically_with;
use crate::error::{GloopError, Result};

const VERTEX_PROPERTIES: [&str; 12] = [
    "x", "y", "z", "nx", "ny", "nz", "red", "green", "blue", "vx", "vy", "vz",
];

/// One vertex record in file order (the 12 floats of `VERTEX_PROPERTIES`).
#[derive(Clone, Copy, Default)]
struct VertexRecord([f32; 12]);

impl PropertyAccess for VertexRecord {
    fn new() -> Self {
        VertexRecord::default()
    }
    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        match (
            VERTEX_PROPERTIES.iter().position(|&p| p == name),
            property.to_f32_lossy(),
        ) {
            (Some(k), Some(v)) => {
                self.0[k] = v;
                PropertyAccessResult::Set
            }
            _ => PropertyAccessResult::Ignored,
        }
    }
    fn get_float(&self, name: &str) -> Option<f32> {
        VERTEX_PROPERTIES
            .iter()
            .position(|&p| p == name)
            .map(|k| self.0[k])
    }
}

#[derive(Clone, Default)]
struct FaceRecord(Vec<u32>);

impl PropertyAccess for FaceRecord {
    fn new() -> Self {
        FaceRecord::default()
    }
    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        if name != "vertex_indices" && name != "vertex_index" {
            return PropertyAccessResult::Ignored;
        }
        match property.to_u32_list() {
            Some(list) => {
                self.0 = list;
                PropertyAccessResult::Set
            }
            None => PropertyAccessResult::Ignored,
        }
    }
    fn get_list_uint(&self, name: &str) -> Option<&[u32]> {
        (name == "vertex_indices").then_some(&self.0[..])
    }
}

fn header(mesh: &SurfaceMesh) -> Header {
    let mut header = Header::new();
    header.encoding = Encoding::BinaryLittleEndian;
    header.comments.push("gloop surface".to_string());
    let mut vertex = ElementDef::new("vertex".to_string());
    for name in VERTEX_PROPERTIES {
        vertex.properties.add(PropertyDef::new(
            name.to_string(),
            PropertyType::Scalar(ScalarType::Float),
        ));
    }
    vertex.count = mesh.positions.len();
    header.elements.add(vertex);
    let mut face = ElementDef::new("face".to_string());
    face.properties.add(PropertyDef::new(
        "vertex_indices".to_string(),
        PropertyType::List(ScalarType::UChar, ScalarType::UInt),
    ));
    face.count = mesh.triangles.len();
    header.elements.add(face);
    header
}

/// Writes `mesh` to `path` (through a temporary file and a rename).
pub fn write_surface_ply(path: &Path, mesh: &SurfaceMesh) -> Result<()> {
    let n = mesh.positions.len();
    if mesh.normals.len() != n || mesh.colours.len() != n || mesh.velocities.len() != n {
        return Err(GloopError::file(
            path,
            "surface mesh attribute arrays differ in length",
        ));
    }
    let vertices: Vec<VertexRecord> = (0..n)
        .map(|i| {
            let (p, nrm, c, v) = (
                mesh.positions[i],
                mesh.normals[i],
                mesh.colours[i],
                mesh.velocities[i],
            );
            VertexRecord([
                p.x, p.y, p.z, nrm.x, nrm.y, nrm.z, c[0], c[1], c[2], v.x, v.y, v.z,
            ])
        })
        .collect();
    let faces: Vec<FaceRecord> = mesh
        .triangles
        .iter()
        .map(|t| FaceRecord(t.to_vec()))
        .collect();
    let header = header(mesh);
    write_atomically_with(path, |w| {
        let to_io = |e: std::io::Error| e;
        Writer::<VertexRecord>::new()
            .write_header(w, &header)
            .map_err(to_io)?;
        let vertex_def = &header.elements["vertex"];
        Writer::<VertexRecord>::new()
            .write_payload_of_element(w, &vertices, vertex_def, &header)
            .map_err(to_io)?;
        Writer::<FaceRecord>::new()
            .write_payload_of_element(w, &faces, &header.elements["face"], &header)
            .map_err(to_io)?;
        Ok(())
    })
}

/// Reads a surface PLY written by [`write_surface_ply`] (or any PLY with at least x y z and
/// triangle faces; missing attributes read as zero). Errors name the file.
pub fn read_surface_ply(path: &Path) -> Result<SurfaceMesh> {
    let bad = |message: String| GloopError::file(path, message);
    let file = std::fs::File::open(path).map_err(|e| GloopError::io(path, e))?;
    let mut reader = Reader::new(std::io::BufReader::new(file));
    let vertex_parser = Parser::<VertexRecord>::new();
    let face_parser = Parser::<FaceRecord>::new();
    let header = vertex_parser
        .read_header(&mut reader)
        .map_err(|e| bad(format!("not a readable PLY header ({e})")))?;
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    for (name, element) in &header.elements {
        let truncated = |e: ply_rs_bw::parser::ParseError| {
            bad(format!(
                "truncated or corrupt '{name}' data ({e}); the file is incomplete"
            ))
        };
        match name.as_str() {
            "vertex" => {
                vertices = vertex_parser
                    .read_payload_for_element(&mut reader, element, &header)
                    .map_err(truncated)?
            }
            "face" => {
                faces = face_parser
                    .read_payload_for_element(&mut reader, element, &header)
                    .map_err(truncated)?
            }
            other => return Err(bad(format!("unexpected element '{other}'"))),
        }
    }
    let n = vertices.len();
    let mut triangles = Vec::with_capacity(faces.len());
    for (f, face) in faces.iter().enumerate() {
        match face.0[..] {
            [a, b, c] if (a as usize) < n && (b as usize) < n && (c as usize) < n => {
                triangles.push([a, b, c])
            }
            [_, _, _] => return Err(bad(format!("face {f} refers to a vertex beyond {n}"))),
            _ => return Err(bad(format!("face {f} is not a triangle"))),
        }
    }
    let v3 = |r: &VertexRecord, k: usize| Vec3::new(r.0[k], r.0[k + 1], r.0[k + 2]);
    Ok(SurfaceMesh {
        positions: vertices.iter().map(|r| v3(r, 0)).collect(),
        normals: vertices.iter().map(|r| v3(r, 3)).collect(),
        colours: vertices.iter().map(|r| [r.0[6], r.0[7], r.0[8]]).collect(),
        velocities: vertices.iter().map(|r| v3(r, 9)).collect(),
        triangles,
    })
}
