//! One error type for the library, the CLI and the Python module. Every message names the
//! object, field or file that is wrong, so an artist can act on it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum GloopError {
    /// The scene is well-formed but describes something we cannot simulate.
    #[error("invalid scene: {0}")]
    InvalidScene(String),
    /// A file could not be read or parsed.
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The bake was cancelled; every frame finished before the cancel is kept.
    #[error("bake cancelled")]
    Cancelled,
    #[error("{0}")]
    Other(String),
}

impl GloopError {
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        GloopError::File {
            path: path.into(),
            message: message.into(),
        }
    }
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        GloopError::Io {
            path: path.into(),
            source,
        }
    }
    pub fn scene(message: impl Into<String>) -> Self {
        GloopError::InvalidScene(message.into())
    }
}

pub type Result<T, E = GloopError> = std::result::Result<T, E>;
