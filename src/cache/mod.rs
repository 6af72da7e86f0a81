//! The bake cache: per-frame particle (and surface) PLY files and the manifest.
