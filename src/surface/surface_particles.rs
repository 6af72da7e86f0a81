//! The paper's surface particles (to be filled).
