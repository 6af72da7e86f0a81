//! Neighbour search: a grid of occupied cells (only cells holding particles exist) and
//! compressed neighbour lists. Everything is built in parallel with ordered collects, so the
//! lists, and hence the simulation, do not depend on the thread count.
//!
//! - `space`: minimum-image differences in a domain with periodic axes;
//! - `cell_grid`: particles bucketed by cell, and the search for each one's neighbours;
//! - `list`: the compressed per-particle lists the search yields, and their edits.

mod cell_grid;
mod list;
mod space;

pub use cell_grid::CellGrid;
pub(crate) use list::{each_neighbour, with_indices};
pub use list::{NeighbourList, Row};
pub use space::Space;
