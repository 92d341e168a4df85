//! The executable is linked at a fixed address (`-no-pie`), as Go links
//! its own by default: a position-independent payctl had 25,000 relative
//! relocations that the dynamic loader applied at every start, a third of
//! a `profile get`'s page faults (355 against 240), for a command that
//! lives a few milliseconds. Only the binary is linked so (the proc-macro
//! crates and the tests are not); the stack, the heap, the libraries and
//! every mapping are still placed at random.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
