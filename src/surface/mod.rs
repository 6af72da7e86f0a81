//! Particles to a smooth, watertight triangle mesh per frame.
