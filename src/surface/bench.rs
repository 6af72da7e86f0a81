//! Meshing benchmark for `gloop bench` (to be filled).
