//! The `gloop` command line: bake scenes and demos, inspect caches, benchmark, validate.
//! Every failure prints `error: <message>` and exits non-zero; bad input never panics.

mod cli;

fn main() {
    end_quietly_on_closed_pipe();
    let code = cli::run();
    std::process::exit(code);
}

/// Rust starts programs with SIGPIPE ignored, so printing into a pipe whose reader has gone
/// (`gloop info DIR | head`) made `println!` panic. With the default restored the process
/// ends quietly, as Unix tools do; a bake cut off that way keeps its finished frames and
/// resumes like any killed bake.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: first thing in main, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_pipe() {}
