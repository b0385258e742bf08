//! Sets `cfg(sha256_ring)` on the targets where Cargo.toml builds `ring` (Linux on x86-64 and
//! AArch64: its `[target]` table names the same ones, and the two change together), so that
//! `src/sha256.rs` uses `ring` under one short name. Where one said `ring` and the other did
//! not, the crate would not build there, or would build `ring` for nothing.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(sha256_ring)");
    println!("cargo::rerun-if-changed=src/build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && matches!(arch.as_str(), "x86_64" | "aarch64") {
        println!("cargo::rustc-cfg=sha256_ring");
    }
}
