//! The `gloop` command line: bake scenes and demos, inspect caches, benchmark, validate.
//! Every failure prints `error: <message>` and exits non-zero; bad input never panics.

mod cli;

fn main() {
    let code = cli::run();
    std::process::exit(code);
}
