//! Reads the cache's PLY files into flat little-endian arrays for Blender's `foreach_set`.
//!
//! Playback must show a 300k-triangle frame in well under 40 ms, so the usual path decodes the
//! payload straight from the file bytes: ply-rs-bw parses the header (and every malformed
//! header case), then each element is walked with the record layout the header describes.
//! ASCII and big-endian files, which Gloop never writes but other tools might, go through
//! ply-rs-bw's generic reader instead.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::Path;

use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{
    DefaultElement, ElementDef, Encoding, Header, Property, PropertyType, ScalarType,
};

use crate::error::{GloopError, Result};

/// One element of a PLY file. Elements with fixed-size binary records are decoded on demand,
/// straight from the file bytes (no per-property copies); others are decoded into columns.
#[derive(Default)]
pub struct ElementData {
    pub count: usize,
    /// Every scalar property as f32, for elements that are not `fixed` (the cache only holds
    /// floats and small integers).
    columns: HashMap<String, Vec<f32>>,
    fixed: Option<FixedRecords>,
    /// Triangles from the element's list property (polygons fan-triangulated), as vertex
    /// indices.
    pub triangles: Vec<[u32; 3]>,
}

/// Where an element's fixed-size records sit in the file bytes.
struct FixedRecords {
    start: usize,
    stride: usize,
    /// (name, type, byte offset in the record)
    properties: Vec<(String, ScalarType, usize)>,
}

impl FixedRecords {
    fn property(&self, name: &str) -> Option<(&ScalarType, usize)> {
        self.properties
            .iter()
            .find(|p| p.0 == name)
            .map(|p| (&p.1, p.2))
    }
}

pub struct PlyData {
    /// The whole file; returned to the reading thread's pool on drop.
    bytes: Vec<u8>,
    pub elements: HashMap<String, ElementData>,
    pub comments: Vec<String>,
}

impl PlyData {
    pub fn element(&self, name: &str) -> Option<&ElementData> {
        self.elements.get(name)
    }

    pub fn has(&self, element: &ElementData, name: &str) -> bool {
        match &element.fixed {
            Some(f) => f.property(name).is_some(),
            None => element.columns.contains_key(name),
        }
    }

    /// The type a property is stored as (`None` if absent or if the element was decoded into
    /// columns, as ASCII and big-endian files are).
    pub fn scalar_type(&self, element: &ElementData, name: &str) -> Option<ScalarType> {
        element
            .fixed
            .as_ref()
            .and_then(|f| f.property(name))
            .map(|(t, _)| t.clone())
    }

    /// One scalar property as f32 per element, if present.
    pub fn column(&self, element: &ElementData, name: &str) -> Option<Vec<f32>> {
        let Some(fixed) = &element.fixed else {
            return element.columns.get(name).cloned();
        };
        let (t, offset) = fixed.property(name)?;
        Some(
            self.records(element, fixed)
                .map(|r| scalar_at(t, r, offset) as f32)
                .collect(),
        )
    }

    /// Three properties interleaved (`x y z x y z …`), if all are present. Float properties
    /// of fixed records are copied in one pass over the file bytes.
    pub fn triples(&self, element: &ElementData, names: [&str; 3]) -> Option<Vec<f32>> {
        let Some(fixed) = &element.fixed else {
            let [a, b, c] = names.map(|n| element.columns.get(n));
            let (a, b, c) = (a?, b?, c?);
            return Some((0..a.len()).flat_map(|i| [a[i], b[i], c[i]]).collect());
        };
        let props = names.map(|n| fixed.property(n));
        let [(ta, oa), (tb, ob), (tc, oc)] = [props[0]?, props[1]?, props[2]?];
        let mut out = Vec::with_capacity(element.count * 3);
        if [ta, tb, tc].iter().all(|t| **t == ScalarType::Float) {
            let f = |r: &[u8], o: usize| f32::from_le_bytes(r[o..o + 4].try_into().unwrap());
            for r in self.records(element, fixed) {
                out.extend_from_slice(&[f(r, oa), f(r, ob), f(r, oc)]);
            }
        } else {
            for r in self.records(element, fixed) {
                out.extend_from_slice(&[
                    scalar_at(ta, r, oa) as f32,
                    scalar_at(tb, r, ob) as f32,
                    scalar_at(tc, r, oc) as f32,
                ]);
            }
        }
        Some(out)
    }

    fn records<'a>(
        &'a self,
        element: &ElementData,
        fixed: &FixedRecords,
    ) -> std::slice::ChunksExact<'a, u8> {
        let len = fixed.stride * element.count;
        self.bytes[fixed.start..fixed.start + len].chunks_exact(fixed.stride.max(1))
    }
}

thread_local! {
    /// The last file buffer of this thread, reused so that reading frame after frame does not
    /// fault in fresh pages for every file (that was a large share of the read time).
    static FILE_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for PlyData {
    fn drop(&mut self) {
        let bytes = std::mem::take(&mut self.bytes);
        FILE_BUFFER.with(|b| *b.borrow_mut() = bytes);
    }
}

/// Reads a PLY file; errors name the file and say what is wrong with it.
pub fn read_ply(path: &Path) -> Result<PlyData> {
    let mut bytes = FILE_BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    bytes.clear();
    let mut file = std::fs::File::open(path).map_err(|e| GloopError::io(path, e))?;
    file.read_to_end(&mut bytes)
        .map_err(|e| GloopError::io(path, e))?;
    parse_ply(bytes).map_err(|message| GloopError::file(path, message))
}

pub fn parse_ply(bytes: Vec<u8>) -> std::result::Result<PlyData, String> {
    let parser = Parser::<DefaultElement>::new();
    let mut reader = Reader::new(Cursor::new(&bytes[..]));
    let header = parser
        .read_header(&mut reader)
        .map_err(|e| format!("not a valid PLY file: {e}"))?;
    let payload_start = reader.get_ref().position() as usize;
    check_counts_against_size(&header, bytes.len().saturating_sub(payload_start))?;
    let elements = match header.encoding {
        Encoding::BinaryLittleEndian => decode_little_endian(&header, &bytes, payload_start)?,
        _ => decode_generic(&parser, &header, &mut reader)?,
    };
    Ok(PlyData {
        comments: header.comments.clone(),
        elements,
        bytes,
    })
}

/// The header's counts must be backed by the file: every record takes at least a byte per
/// property (ASCII: a digit; binary: the scalar or the list's count), so a header claiming
/// more records than the payload can hold is refused before any is read. An element without
/// properties takes no bytes at all, so its count is refused outright (an "element face
/// 4000000000" with none made the generic reader build four billion empty records).
fn check_counts_against_size(header: &Header, payload: usize) -> std::result::Result<(), String> {
    let binary = header.encoding != Encoding::Ascii;
    let mut needed = 0usize;
    for (name, def) in &header.elements {
        if def.properties.is_empty() && def.count > 0 {
            return Err(format!(
                "element '{name}' has {} records but no properties",
                def.count
            ));
        }
        let record: usize = def
            .properties
            .values()
            .map(|p| match (&p.data_type, binary) {
                (PropertyType::Scalar(t), true) => scalar_size(t),
                (PropertyType::List(count, _), true) => scalar_size(count),
                (_, false) => 1,
            })
            .sum();
        needed = def
            .count
            .checked_mul(record)
            .and_then(|n| n.checked_add(needed))
            .ok_or_else(|| truncated(name))?;
        if needed > payload {
            return Err(truncated(name));
        }
    }
    Ok(())
}

fn scalar_size(t: &ScalarType) -> usize {
    match t {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}

/// Reads one little-endian scalar at `at` as f64 (exact for every PLY type but large u/int,
/// which the cache only uses for indices, read separately).
fn scalar_at(t: &ScalarType, b: &[u8], at: usize) -> f64 {
    let arr = |n: usize| &b[at..at + n];
    match t {
        ScalarType::Char => b[at] as i8 as f64,
        ScalarType::UChar => b[at] as f64,
        ScalarType::Short => i16::from_le_bytes(arr(2).try_into().unwrap()) as f64,
        ScalarType::UShort => u16::from_le_bytes(arr(2).try_into().unwrap()) as f64,
        ScalarType::Int => i32::from_le_bytes(arr(4).try_into().unwrap()) as f64,
        ScalarType::UInt => u32::from_le_bytes(arr(4).try_into().unwrap()) as f64,
        ScalarType::Float => f32::from_le_bytes(arr(4).try_into().unwrap()) as f64,
        ScalarType::Double => f64::from_le_bytes(arr(8).try_into().unwrap()),
    }
}

fn index_at(t: &ScalarType, b: &[u8], at: usize) -> std::result::Result<u32, String> {
    let v = scalar_at(t, b, at);
    if v < 0.0 || v > u32::MAX as f64 || v.fract() != 0.0 {
        return Err(format!("face index {v} is not a valid vertex index"));
    }
    Ok(v as u32)
}

fn truncated(element: &str) -> String {
    format!("the file is truncated (in element '{element}')")
}

fn decode_little_endian(
    header: &Header,
    payload: &[u8],
    payload_start: usize,
) -> std::result::Result<HashMap<String, ElementData>, String> {
    let mut at = payload_start;
    let mut out = HashMap::new();
    for (name, def) in &header.elements {
        let props: Vec<_> = def.properties.values().collect();
        let data = if props
            .iter()
            .all(|p| matches!(p.data_type, PropertyType::Scalar(_)))
        {
            decode_fixed_records(def, payload, &mut at)?
        } else if let [only] = props[..] {
            match &only.data_type {
                PropertyType::List(ScalarType::UChar, ScalarType::UInt | ScalarType::Int) => {
                    decode_index_lists(def, payload, &mut at)?
                }
                _ => decode_records_with_lists(def, payload, &mut at)?,
            }
        } else {
            decode_records_with_lists(def, payload, &mut at)?
        };
        out.insert(name.clone(), data);
    }
    Ok(out)
}

/// Elements whose properties are all scalars have fixed-size records: one bounds check now,
/// decoding later and only of the properties asked for.
fn decode_fixed_records(
    def: &ElementDef,
    payload: &[u8],
    at: &mut usize,
) -> std::result::Result<ElementData, String> {
    let mut properties = Vec::new();
    let mut stride = 0usize;
    for p in def.properties.values() {
        let PropertyType::Scalar(t) = &p.data_type else {
            unreachable!()
        };
        properties.push((p.name.clone(), t.clone(), stride));
        stride += scalar_size(t);
    }
    let len = stride
        .checked_mul(def.count)
        .ok_or_else(|| truncated(&def.name))?;
    if at.checked_add(len).is_none_or(|end| payload.len() < end) {
        return Err(truncated(&def.name));
    }
    let fixed = FixedRecords {
        start: *at,
        stride,
        properties,
    };
    *at += len;
    Ok(ElementData {
        count: def.count,
        fixed: Some(fixed),
        ..Default::default()
    })
}

/// The cache's face element (`list uchar uint vertex_indices`, nearly always triangles):
/// a tight loop, as it is most of a surface file.
fn decode_index_lists(
    def: &ElementDef,
    b: &[u8],
    at: &mut usize,
) -> std::result::Result<ElementData, String> {
    // The header's count is not trusted with an allocation: each polygon takes at least 13
    // bytes, so the bytes left bound how many can follow (a header claiming 4e9 faces once
    // asked for 48 GB before reading one).
    let remaining = b.len().saturating_sub(*at);
    let mut triangles = Vec::with_capacity(def.count.min(remaining / 13));
    let mut polygon = Vec::new();
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    for _ in 0..def.count {
        let Some(&n) = b.get(*at) else {
            return Err(truncated(&def.name));
        };
        let n = n as usize;
        if b.len() < *at + 1 + 4 * n {
            return Err(truncated(&def.name));
        }
        let first = *at + 1;
        if n == 3 {
            triangles.push([u32_at(first), u32_at(first + 4), u32_at(first + 8)]);
        } else {
            polygon.clear();
            polygon.extend((0..n).map(|k| u32_at(first + 4 * k)));
            fan_triangulate(&polygon, &mut triangles);
        }
        *at = first + 4 * n;
    }
    Ok(ElementData {
        count: def.count,
        triangles,
        ..Default::default()
    })
}

/// Elements with lists (faces): walk record by record.
fn decode_records_with_lists(
    def: &ElementDef,
    b: &[u8],
    at: &mut usize,
) -> std::result::Result<ElementData, String> {
    let mut data = ElementData {
        count: def.count,
        ..Default::default()
    };
    let mut polygon = Vec::new();
    let need = |at: usize, n: usize| {
        if b.len() < at + n {
            Err(truncated(&def.name))
        } else {
            Ok(())
        }
    };
    for _ in 0..def.count {
        let mut first_list = true;
        for p in def.properties.values() {
            match &p.data_type {
                PropertyType::Scalar(t) => {
                    let n = scalar_size(t);
                    need(*at, n)?;
                    let v = scalar_at(t, b, *at) as f32;
                    data.columns.entry(p.name.clone()).or_default().push(v);
                    *at += n;
                }
                PropertyType::List(count_type, item_type) => {
                    let cn = scalar_size(count_type);
                    need(*at, cn)?;
                    let count = scalar_at(count_type, b, *at) as usize;
                    *at += cn;
                    let n = scalar_size(item_type);
                    need(*at, count * n)?;
                    if first_list {
                        polygon.clear();
                        for k in 0..count {
                            polygon.push(index_at(item_type, b, *at + k * n)?);
                        }
                        fan_triangulate(&polygon, &mut data.triangles);
                        first_list = false;
                    }
                    *at += count * n;
                }
            }
        }
    }
    Ok(data)
}

fn fan_triangulate(polygon: &[u32], out: &mut Vec<[u32; 3]>) {
    for k in 1..polygon.len().saturating_sub(1) {
        out.push([polygon[0], polygon[k], polygon[k + 1]]);
    }
}

/// ASCII and big-endian payloads: ply-rs-bw's generic element reader.
fn decode_generic(
    parser: &Parser<DefaultElement>,
    header: &Header,
    reader: &mut Reader<Cursor<&[u8]>>,
) -> std::result::Result<HashMap<String, ElementData>, String> {
    let payload = parser
        .read_payload(reader, header)
        .map_err(|e| format!("cannot read PLY payload: {e}"))?;
    let mut out = HashMap::new();
    for (name, rows) in payload {
        let mut data = ElementData {
            count: rows.len(),
            ..Default::default()
        };
        let mut polygon = Vec::new();
        for row in &rows {
            let mut first_list = true;
            for (key, value) in row {
                if let Some(v) = property_scalar(value) {
                    data.columns.entry(key.clone()).or_default().push(v as f32);
                } else if first_list {
                    polygon.clear();
                    for v in property_list(value) {
                        if v < 0.0 || v.fract() != 0.0 {
                            return Err(format!("face index {v} is not a valid vertex index"));
                        }
                        polygon.push(v as u32);
                    }
                    fan_triangulate(&polygon, &mut data.triangles);
                    first_list = false;
                }
            }
        }
        out.insert(name, data);
    }
    Ok(out)
}

fn property_scalar(p: &Property) -> Option<f64> {
    Some(match p {
        Property::Char(v) => *v as f64,
        Property::UChar(v) => *v as f64,
        Property::Short(v) => *v as f64,
        Property::UShort(v) => *v as f64,
        Property::Int(v) => *v as f64,
        Property::UInt(v) => *v as f64,
        Property::Float(v) => *v as f64,
        Property::Double(v) => *v,
        _ => return None,
    })
}

fn property_list(p: &Property) -> Vec<f64> {
    match p {
        Property::ListChar(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListUChar(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListShort(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListUShort(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListInt(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListUInt(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListFloat(v) => v.iter().map(|&x| x as f64).collect(),
        Property::ListDouble(v) => v.to_vec(),
        _ => Vec::new(),
    }
}
