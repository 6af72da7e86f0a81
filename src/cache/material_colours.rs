//! A particle file's colours stored once per material rather than once per particle.
//!
//! A particle's colour is its liquid's colour: the solver gives a particle its material's
//! colour when it is made and never changes it (miscible paints mix on the surface, where the
//! mesher averages the colours of neighbouring particles, not in the particles themselves). So
//! a frame's colours are nearly always a function of the material, and writing them per
//! particle spent 12 of a particle's 42 bytes on copies. When every particle of each material
//! in a frame has the same colour, bit for bit, the file leaves the `red green blue` properties
//! out and says each material's colour once, in a header comment:
//!
//! ```text
//! comment gloop material_colour 0 0.8 0.42 0.05
//! ```
//!
//! The numbers are Rust's shortest decimal for each f32, which parses back to the same bits
//! (checked when writing). Whenever that does not hold (particles of one material with
//! different colours, from a solver that mixes them or a file made elsewhere), the file keeps
//! the per-particle colours as before. The decision is taken from the data, frame by frame,
//! never from the scene, so no scene setting can make a file lose a colour.

use std::collections::BTreeMap;

const PREFIX: &str = "gloop material_colour ";

/// Each material's colour (linear RGB), in material order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialColours(BTreeMap<u16, [f32; 3]>);

impl MaterialColours {
    /// The colour each material's particles share, or `None` if some material's particles
    /// differ in any bit (or a colour would not survive the header's text, as a NaN might not).
    pub fn shared_by(material: &[u16], colour: &[[f32; 3]]) -> Option<MaterialColours> {
        let mut shared = BTreeMap::new();
        for (&m, c) in material.iter().zip(colour) {
            let first = shared.entry(m).or_insert(*c);
            if first.map(f32::to_bits) != c.map(f32::to_bits) {
                return None;
            }
        }
        let round_trips = shared
            .values()
            .flatten()
            .all(|v: &f32| v.to_string().parse::<f32>().map(f32::to_bits) == Ok(v.to_bits()));
        round_trips.then_some(MaterialColours(shared))
    }

    /// The header comments (without `comment `), one per material.
    pub fn comments(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(m, [r, g, b])| format!("{PREFIX}{m} {r} {g} {b}"))
            .collect()
    }

    /// The colours of a file's header comments (empty if it has none); a malformed colour
    /// comment, or two for one material, is an error saying which.
    pub fn from_comments<S: AsRef<str>>(comments: &[S]) -> Result<MaterialColours, String> {
        let mut colours = BTreeMap::new();
        for comment in comments {
            let Some(rest) = comment.as_ref().trim().strip_prefix(PREFIX) else {
                continue;
            };
            let bad = || format!("malformed comment 'gloop material_colour {rest}'");
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let [m, r, g, b] = fields[..] else {
                return Err(bad());
            };
            let m: u16 = m.parse().map_err(|_| bad())?;
            let mut colour = [0.0f32; 3];
            for (c, text) in colour.iter_mut().zip([r, g, b]) {
                *c = text.parse().map_err(|_| bad())?;
            }
            if colours.insert(m, colour).is_some() {
                return Err(format!("two colours for material {m}"));
            }
        }
        Ok(MaterialColours(colours))
    }

    /// The colour of `material`'s particles, if the file gives one.
    pub fn colour_of(&self, material: u16) -> Option<[f32; 3]> {
        self.0.get(&material).copied()
    }

    /// Every particle's colour from its material, flat (`r g b r g b …`), for the add-on;
    /// `Err(material)` names one without a colour. A table indexed by material, as playback
    /// reads tens of thousands of particles a frame.
    pub fn flat_colours_of(
        &self,
        material: impl ExactSizeIterator<Item = u16>,
    ) -> Result<Vec<f32>, u16> {
        let last = self.0.keys().next_back().map_or(0, |&m| m as usize + 1);
        let mut table = vec![None; last];
        for (&m, c) in &self.0 {
            table[m as usize] = Some(*c);
        }
        let mut flat = Vec::with_capacity(material.len() * 3);
        for m in material {
            let c = table.get(m as usize).copied().flatten().ok_or(m)?;
            flat.extend_from_slice(&c);
        }
        Ok(flat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_round_trip_through_comments_bit_for_bit() {
        let awkward = [
            [0.8, 0.42, 0.05],
            [1.0 / 3.0, f32::from_bits(1), -0.0],
            [f32::MAX, f32::MIN_POSITIVE, f32::INFINITY],
        ];
        let material = [2u16, 0, 7, 2, 0, 7];
        let colour = [awkward[0], awkward[1], awkward[2]].repeat(2);
        let shared = MaterialColours::shared_by(&material, &colour).unwrap();
        let back = MaterialColours::from_comments(&shared.comments()).unwrap();
        let flat = back.flat_colours_of(material.iter().copied()).unwrap();
        let expected: Vec<u32> = colour.iter().flatten().map(|v| v.to_bits()).collect();
        assert_eq!(
            flat.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expected
        );
        for (m, c) in material.iter().zip(&colour) {
            assert_eq!(
                back.colour_of(*m).unwrap().map(f32::to_bits),
                c.map(f32::to_bits)
            );
        }
        assert_eq!(back.flat_colours_of([0, 3].into_iter()), Err(3));
        assert_eq!(back.flat_colours_of([0, 9].into_iter()), Err(9)); // beyond the last
    }

    #[test]
    fn differing_colours_are_not_shared() {
        let c = [0.8f32, 0.42, 0.05];
        let mut d = c;
        d[1] = f32::from_bits(d[1].to_bits() + 1); // one bit off
        assert!(MaterialColours::shared_by(&[0, 0], &[c, d]).is_none());
        assert!(MaterialColours::shared_by(&[0, 1], &[c, d]).is_some());
        // "NaN" parses to the one NaN; one with a payload would not come back.
        let odd_nan = f32::from_bits(f32::NAN.to_bits() | 1);
        assert!(MaterialColours::shared_by(&[0], &[[odd_nan, 0.0, 0.0]]).is_none());
        assert!(MaterialColours::shared_by(&[0], &[[0.0, 0.0, -0.0]]).is_some());
        assert_eq!(
            MaterialColours::shared_by(&[], &[]),
            Some(MaterialColours::default())
        );
    }

    #[test]
    fn malformed_comments_are_errors() {
        for bad in [
            "gloop material_colour 0 0.8 0.4",
            "gloop material_colour 0 0.8 0.4 0.1 9",
            "gloop material_colour x 0.8 0.4 0.1",
            "gloop material_colour 70000 0.8 0.4 0.1",
            "gloop material_colour 0 0.8 red 0.1",
        ] {
            assert!(MaterialColours::from_comments(&[bad]).is_err(), "{bad}");
        }
        let twice = [
            "gloop material_colour 1 0 0 0",
            "gloop material_colour 1 1 1 1",
        ];
        assert!(MaterialColours::from_comments(&twice).is_err());
        let others = ["gloop frame 3", "made by hand"];
        assert_eq!(
            MaterialColours::from_comments(&others).unwrap(),
            MaterialColours::default()
        );
    }
}
