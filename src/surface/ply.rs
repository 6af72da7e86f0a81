//! `surface_{frame:05}.ply`: binary little-endian PLY, element `vertex` (float x y z, uchar red
//! green blue as 8-bit sRGB, float vx vy vz) and element `face` (list uchar uint
//! vertex_indices, triangles counter-clockwise seen from outside). Written atomically; reading
//! checks everything and names the file in every error.
//!
//! Normals are not written: they are the area-weighted normals of the file's own triangles,
//! which the reader recomputes and Blender's smooth shading reproduces (corner-angle weights;
//! `examples/cache_size.rs` measures the difference), and they were a quarter of the file.
//! Caches written before (float colours and nx ny nz, 48 bytes a vertex against 27) read as
//! they did: their normals are used, float colours are linear.

use std::path::Path;

use glam::Vec3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Header, Property, PropertyAccess, PropertyAccessResult,
    PropertyDef, PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

use super::{smooth, srgb, SurfaceMesh};
use crate::atomic_file::write_atomically_with;
use crate::error::{GloopError, Result};

/// Every vertex property read, in `VertexRecord` order (the writer leaves out the normals).
const VERTEX_PROPERTIES: [&str; 12] = [
    "x", "y", "z", "nx", "ny", "nz", "red", "green", "blue", "vx", "vy", "vz",
];
const WRITTEN: [(&str, ScalarType); 9] = [
    ("x", ScalarType::Float),
    ("y", ScalarType::Float),
    ("z", ScalarType::Float),
    ("red", ScalarType::UChar),
    ("green", ScalarType::UChar),
    ("blue", ScalarType::UChar),
    ("vx", ScalarType::Float),
    ("vy", ScalarType::Float),
    ("vz", ScalarType::Float),
];
const NORMAL: usize = 3;
const COLOUR: usize = 6;

/// One vertex: the 12 values of `VERTEX_PROPERTIES` (colours linear), and whether the file had
/// normals.
#[derive(Clone, Copy, Default)]
struct VertexRecord {
    values: [f32; 12],
    has_normal: bool,
}

impl PropertyAccess for VertexRecord {
    fn new() -> Self {
        VertexRecord::default()
    }
    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        let Some(k) = VERTEX_PROPERTIES.iter().position(|&p| p == name) else {
            return PropertyAccessResult::Ignored;
        };
        let value = match property {
            // Integer colours are sRGB codes (this writer's and every PLY tool's convention).
            Property::UChar(code) if (COLOUR..COLOUR + 3).contains(&k) => srgb::decode(code),
            other => match other.to_f32_lossy() {
                Some(v) => v,
                None => return PropertyAccessResult::Ignored,
            },
        };
        self.values[k] = value;
        self.has_normal |= (NORMAL..NORMAL + 3).contains(&k);
        PropertyAccessResult::Set
    }
    fn get_float(&self, name: &str) -> Option<f32> {
        VERTEX_PROPERTIES
            .iter()
            .position(|&p| p == name)
            .map(|k| self.values[k])
    }
    fn get_uchar(&self, name: &str) -> Option<u8> {
        self.get_float(name).map(srgb::encode)
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
    for (name, scalar) in WRITTEN {
        vertex.properties.add(PropertyDef::new(
            name.to_string(),
            PropertyType::Scalar(scalar),
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
    if mesh.colours.len() != n || mesh.velocities.len() != n {
        return Err(GloopError::file(
            path,
            "surface mesh attribute arrays differ in length",
        ));
    }
    let vertices: Vec<VertexRecord> = (0..n)
        .map(|i| {
            let (p, c, v) = (mesh.positions[i], mesh.colours[i], mesh.velocities[i]);
            VertexRecord {
                values: [
                    p.x, p.y, p.z, 0.0, 0.0, 0.0, c[0], c[1], c[2], v.x, v.y, v.z,
                ],
                has_normal: false,
            }
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

/// Reads a surface PLY written by [`write_surface_ply`], today's or an older one (or any PLY
/// with at least x y z and triangle faces; missing colours and velocities read as zero, missing
/// normals are the triangles' area-weighted ones, as the mesher makes them). Errors name the
/// file.
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
    let v3 = |r: &VertexRecord, k: usize| Vec3::from_slice(&r.values[k..k + 3]);
    let positions: Vec<Vec3> = vertices.iter().map(|r| v3(r, 0)).collect();
    let normals = if vertices.first().is_some_and(|r| r.has_normal) {
        vertices.iter().map(|r| v3(r, NORMAL)).collect()
    } else {
        let adjacency = smooth::Adjacency::new(positions.len(), &triangles);
        smooth::vertex_normals(&positions, &triangles, &adjacency)
    };
    Ok(SurfaceMesh {
        positions,
        normals,
        colours: vertices
            .iter()
            .map(|r| [r.values[COLOUR], r.values[COLOUR + 1], r.values[COLOUR + 2]])
            .collect(),
        velocities: vertices.iter().map(|r| v3(r, 9)).collect(),
        triangles,
    })
}
