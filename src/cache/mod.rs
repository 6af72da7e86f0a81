//! The bake cache folder: the contract between the bake, the surface mesher and the Blender
//! add-on (see TEAM_BRIEF.md, "Cache folder layout").
//!
//! ```text
//! particles_00001.ply   liquid particles of frame 1 (binary little-endian PLY)
//! surface_00001.ply     the surface mesh of frame 1 (written by the mesher)
//! manifest.json         what was baked with which settings; last complete frame; size and
//!                       hash of every finished frame file (see [`check`])
//! scene.gloop           the baked scene (binary scene format)
//! status.json           live progress of a running bake
//! cancel                created by anyone who wants the running bake to stop
//! gloop.lock            who is baking or meshing into the folder right now (see [`lock`])
//! gloop.mesh-*.lock     each `gloop mesh` meshing some frames of it (see [`meshing_lock`])
//! manifest.lock         held while a mesher updates the manifest (see [`Manifest::update`])
//! replaced_bake/        the bake an --overwrite is replacing, until the new one finishes
//!                       (put back if it fails; see `bake/set_aside.rs`)
//! ```
//!
//! Every file is written under `<name>.tmp` and renamed into place ([`crate::atomic_file`]),
//! so a reader never sees half a file.

mod body_comments;
pub mod check;
mod file_record;
mod frame_line;
mod hash;
pub mod lock;
mod manifest;
mod material_colours;
pub mod meshing_lock;
mod particles;
mod paths;
mod process;
mod status;

pub use file_record::{FileRecord, FrameFiles, FrameRecords};
pub use frame_line::FrameLine;
pub use hash::{scene_hash, what_a_resume_keeps};
pub use lock::{lock_holder, CacheLock, LockHolder};
pub use manifest::{LiquidInfo, Manifest, CACHE_FORMAT_VERSION, MANIFEST_LOCK};
pub use material_colours::MaterialColours;
pub use meshing_lock::MeshingLock;
pub use particles::{
    check_particles_length, read_particles, read_particles_header, write_particles,
    ParticleFileInfo,
};
pub use paths::CacheDir;
pub use status::{BakeState, Status};
