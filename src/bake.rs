//! The bake: frame loop, cache writing, resume and cancel.
