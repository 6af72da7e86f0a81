//! Particle files: one binary little-endian PLY per frame, element `vertex` with
//! `float x y z, float vx vy vz, ushort material, float density_step` (30 bytes a particle)
//! and the comment lines `gloop frame N` and, per material, `gloop material_colour M R G B`:
//! every particle has its material's colour ([`super::material_colours`]). A frame whose
//! particles of one material differ in colour keeps `float red green blue` per particle, after
//! `material` (42 bytes), as every file did before colours were stored per material; such
//! files read as they always did. Written and parsed with ply-rs-bw; floats are stored bit for
//! bit.
//!
//! `density_step` is the solver's state beyond what a renderer needs: the density
//! correction's summed steps, which the next frame's first substep starts from
//! (`sim::density`'s carry). A resumed bake reads it back and continues bit-identically.
//! Files without it (written before it existed, or by other tools) are read with none.
//!
//! Rigid bodies' states ride in the header as comments (`body_comments`).

use std::io::{BufReader, Read};
use std::path::Path;

use glam::Vec3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Header, Ply, PropertyAccess, PropertyDef, PropertyType,
    ScalarType,
};
use ply_rs_bw::writer::Writer;

use super::material_colours::MaterialColours;
use crate::atomic_file::write_atomically_with;
use crate::error::{GloopError, Result};
use crate::sim::{BodyState, LiquidParticles};

/// The vertex properties in file order, with their types, of a file with every optional
/// column: the per-particle colour (`COLOUR`) and the solver's carried state (`CARRIED`).
const PROPERTIES: [(&str, ScalarType); 11] = [
    ("x", ScalarType::Float),
    ("y", ScalarType::Float),
    ("z", ScalarType::Float),
    ("vx", ScalarType::Float),
    ("vy", ScalarType::Float),
    ("vz", ScalarType::Float),
    ("material", ScalarType::UShort),
    ("red", ScalarType::Float),
    ("green", ScalarType::Float),
    ("blue", ScalarType::Float),
    ("density_step", ScalarType::Float),
];
const COLOUR: [&str; 3] = ["red", "green", "blue"];
const CARRIED: &str = "density_step";

/// Which optional columns a file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Colours per particle; without them, per material in the header.
    colours: bool,
    /// The density correction's carried steps (files written before they were stored lack
    /// them).
    carried: bool,
}

impl Layout {
    /// What this build writes: colours per particle only where a material's particles differ.
    fn written(colours_per_material: bool) -> Layout {
        Layout {
            colours: !colours_per_material,
            carried: true,
        }
    }

    /// The layouts a file may have: today's two and the one before the carried steps.
    const READABLE: [Layout; 3] = [
        Layout {
            colours: false,
            carried: true,
        },
        Layout {
            colours: true,
            carried: true,
        },
        Layout {
            colours: true,
            carried: false,
        },
    ];

    fn properties(self) -> impl Iterator<Item = (&'static str, ScalarType)> {
        PROPERTIES.into_iter().filter(move |(name, _)| {
            (self.colours || !COLOUR.contains(name)) && (self.carried || *name != CARRIED)
        })
    }

    /// Bytes per particle in the payload.
    fn record_bytes(self) -> u64 {
        self.properties()
            .map(|(_, t)| if t == ScalarType::UShort { 2 } else { 4 })
            .sum()
    }
}

/// One particle as ply-rs-bw sees it.
#[derive(Clone, Copy, Default)]
struct Record {
    p: [f32; 3],
    v: [f32; 3],
    material: u16,
    colour: [f32; 3],
    density_step: f32,
}

impl PropertyAccess for Record {
    fn new() -> Self {
        Record::default()
    }
    fn set_float(&mut self, name: &str, value: f32) -> ply_rs_bw::ply::PropertyAccessResult {
        match name {
            "x" => self.p[0] = value,
            "y" => self.p[1] = value,
            "z" => self.p[2] = value,
            "vx" => self.v[0] = value,
            "vy" => self.v[1] = value,
            "vz" => self.v[2] = value,
            "red" => self.colour[0] = value,
            "green" => self.colour[1] = value,
            "blue" => self.colour[2] = value,
            "density_step" => self.density_step = value,
            _ => return ply_rs_bw::ply::PropertyAccessResult::Ignored,
        }
        ply_rs_bw::ply::PropertyAccessResult::Set
    }
    fn set_ushort(&mut self, name: &str, value: u16) -> ply_rs_bw::ply::PropertyAccessResult {
        if name == "material" {
            self.material = value;
            return ply_rs_bw::ply::PropertyAccessResult::Set;
        }
        ply_rs_bw::ply::PropertyAccessResult::Ignored
    }
    fn get_float(&self, name: &str) -> Option<f32> {
        Some(match name {
            "x" => self.p[0],
            "y" => self.p[1],
            "z" => self.p[2],
            "vx" => self.v[0],
            "vy" => self.v[1],
            "vz" => self.v[2],
            "red" => self.colour[0],
            "green" => self.colour[1],
            "blue" => self.colour[2],
            "density_step" => self.density_step,
            _ => return None,
        })
    }
    fn get_ushort(&self, name: &str) -> Option<u16> {
        (name == "material").then_some(self.material)
    }
}

/// A header for `count` particles in `layout`, with the materials' colours if the layout has
/// none per particle.
fn header(frame: i32, count: usize, layout: Layout, colours: Option<&MaterialColours>) -> Header {
    let mut header = Header::new();
    header.encoding = Encoding::BinaryLittleEndian;
    header.comments.push(format!("gloop frame {frame}"));
    // (The rigid bodies' comments, `body_comments`, follow the colours' in `write_particles`.)
    header
        .comments
        .extend(colours.map(MaterialColours::comments).unwrap_or_default());
    let mut vertex = ElementDef::new("vertex".to_string());
    vertex.count = count;
    for (name, scalar) in layout.properties() {
        vertex.properties.add(PropertyDef::new(
            name.to_string(),
            PropertyType::Scalar(scalar),
        ));
    }
    header.elements.add(vertex);
    header
}

/// Writes the particles of `frame` to `path` (atomically: `<path>.tmp`, then rename).
pub fn write_particles(path: &Path, frame: i32, particles: &LiquidParticles) -> Result<()> {
    let n = particles.len();
    if particles.velocity.len() != n || particles.material.len() != n || particles.colour.len() != n
    {
        return Err(GloopError::file(
            path,
            "particle arrays have different lengths; refusing to write an inconsistent frame",
        ));
    }
    let records: Vec<Record> = (0..n)
        .map(|i| Record {
            p: particles.position[i].to_array(),
            v: particles.velocity[i].to_array(),
            material: particles.material[i],
            colour: particles.colour[i],
            density_step: particles.density_steps.get(i).copied().unwrap_or(0.0),
        })
        .collect();
    let shared = MaterialColours::shared_by(&particles.material, &particles.colour);
    let mut ply = Ply::<Record>::new();
    ply.header = header(frame, n, Layout::written(shared.is_some()), shared.as_ref());
    ply.header
        .comments
        .extend(super::body_comments::comments(&particles.bodies));
    ply.payload.insert("vertex".to_string(), records);
    write_atomically_with(path, |w| {
        Writer::<Record>::new()
            .write_ply(w, &mut ply)
            .map(|_| ())
            .map_err(|e| std::io::Error::other(e.to_string()))
    })
}

/// What a particle file's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParticleFileInfo {
    /// From the `gloop frame N` comment, if present.
    pub frame: Option<i32>,
    pub particles: usize,
    layout: Layout,
}

/// Reads and checks the header: binary little-endian, one `vertex` element with exactly the
/// properties of one of the `Layout::READABLE`, and the materials' colours if the layout has
/// none per particle. Leaves `reader` at the start of the payload.
fn read_checked_header<R: std::io::BufRead>(
    path: &Path,
    reader: &mut Reader<R>,
) -> Result<(ParticleFileInfo, MaterialColours, Vec<BodyState>)> {
    let bad = |why: String| GloopError::file(path, format!("not a Gloop particle file: {why}"));
    let header = Parser::<Record>::new()
        .read_header(reader)
        .map_err(|e| bad(format!("bad PLY header ({e})")))?;
    if header.encoding != Encoding::BinaryLittleEndian {
        return Err(bad("expected binary_little_endian encoding".into()));
    }
    let vertex = match (header.elements.len(), header.elements.get("vertex")) {
        (1, Some(vertex)) => vertex,
        _ => return Err(bad("expected exactly one element, 'vertex'".into())),
    };
    let found: Vec<(&str, &PropertyType)> = vertex
        .properties
        .values()
        .map(|p| (p.name.as_str(), &p.data_type))
        .collect();
    let layout = Layout::READABLE.into_iter().find(|layout| {
        found.len() == layout.properties().count()
            && found
                .iter()
                .zip(layout.properties())
                .all(|(a, b)| a.0 == b.0 && *a.1 == PropertyType::Scalar(b.1))
    });
    let Some(layout) = layout else {
        return Err(bad(format!(
            "vertex properties are {:?}, expected {:?} (red, green and blue may be left out, \
             density_step too in older files)",
            found.iter().map(|p| p.0).collect::<Vec<_>>(),
            PROPERTIES.iter().map(|p| p.0).collect::<Vec<_>>()
        )));
    };
    let colours = MaterialColours::from_comments(&header.comments).map_err(bad)?;
    let bodies = super::body_comments::from_comments(&header.comments).map_err(bad)?;
    let frame = header
        .comments
        .iter()
        .find_map(|c| c.strip_prefix("gloop frame ")?.trim().parse().ok());
    let info = ParticleFileInfo {
        frame,
        particles: vertex.count,
        layout,
    };
    Ok((info, colours, bodies))
}

/// Reads only the header of a particle file (cheap: for `gloop info` and resume checks).
pub fn read_particles_header(path: &Path) -> Result<ParticleFileInfo> {
    let file = std::fs::File::open(path).map_err(|e| GloopError::io(path, e))?;
    read_checked_header(path, &mut Reader::new(BufReader::new(file))).map(|(info, _, _)| info)
}

/// Checks that a particle file is as long as its header says, reading only the header: the
/// check for a file the manifest has no record of (see `cache::check`). Catches a file cut
/// short, emptied or padded; not one whose payload was changed in place.
pub fn check_particles_length(path: &Path) -> Result<ParticleFileInfo> {
    // Our headers are a few hundred bytes; one much longer is not ours.
    const HEADER_MAX: u64 = 64 * 1024;
    let file = std::fs::File::open(path).map_err(|e| GloopError::io(path, e))?;
    let length = file.metadata().map_err(|e| GloopError::io(path, e))?.len();
    let mut head = Vec::new();
    file.take(HEADER_MAX)
        .read_to_end(&mut head)
        .map_err(|e| GloopError::io(path, e))?;
    let mut reader = Reader::new(std::io::Cursor::new(head.as_slice()));
    let (info, _, _) = read_checked_header(path, &mut reader)?;
    check_payload_length(path, info, length - reader.get_ref().position())?;
    Ok(info)
}

/// The payload (what follows the header) must hold exactly the announced particles.
fn check_payload_length(path: &Path, info: ParticleFileInfo, payload: u64) -> Result<()> {
    let expected = (info.particles as u64).saturating_mul(info.layout.record_bytes());
    if payload != expected {
        let why = if payload < expected {
            "truncated"
        } else {
            "corrupt"
        };
        return Err(GloopError::file(
            path,
            format!(
                "particle file is {why}: the header announces {} particles ({expected} bytes) \
                 but {payload} bytes follow it",
                info.particles
            ),
        ));
    }
    Ok(())
}

/// Reads a particle file written by [`write_particles`]. A truncated, padded or otherwise
/// damaged file is an error naming the file.
pub fn read_particles(path: &Path) -> Result<LiquidParticles> {
    let bytes = std::fs::read(path).map_err(|e| GloopError::io(path, e))?;
    let mut reader = Reader::new(std::io::Cursor::new(bytes.as_slice()));
    let (info, colours, bodies) = read_checked_header(path, &mut reader)?;
    // Check the payload size first: it gives a clear message for the commonest damage (a copy
    // or download cut short) and keeps a corrupt count from driving a huge allocation.
    let header_len = reader.get_ref().position();
    check_payload_length(path, info, bytes.len() as u64 - header_len)?;
    let records = read_payload(path, &mut reader, info)?;
    let mut particles = LiquidParticles::default();
    for r in &records {
        let colour = match info.layout.colours {
            true => r.colour,
            false => colours.colour_of(r.material).ok_or_else(|| {
                GloopError::file(
                    path,
                    format!(
                        "particle file gives no colour for material {} (no 'gloop \
                         material_colour {}' comment)",
                        r.material, r.material
                    ),
                )
            })?,
        };
        particles.push(
            Vec3::from_array(r.p),
            Vec3::from_array(r.v),
            r.material,
            colour,
        );
    }
    // All zero (a first frame, a file without them) is no carry at all, as in the solver
    // before its first correction: a bake resumed there continues bit-identically.
    if records.iter().any(|r| r.density_step != 0.0) {
        particles.density_steps = records.iter().map(|r| r.density_step).collect();
    }
    particles.bodies = bodies;
    Ok(particles)
}

fn read_payload<R: std::io::BufRead + Read>(
    path: &Path,
    reader: &mut Reader<R>,
    info: ParticleFileInfo,
) -> Result<Vec<Record>> {
    let header = header(0, info.particles, info.layout, None);
    let element = &header.elements["vertex"];
    Parser::<Record>::new()
        .read_payload_for_element(reader, element, &header)
        .map_err(|e| GloopError::file(path, format!("cannot read particle data: {e}")))
}
