//! The `gloop` command line: bake scenes and demos, inspect caches, benchmark.

fn main() {
    eprintln!("gloop: not yet implemented");
    std::process::exit(1);
}
