//! The real binary in a clean, chosen environment, for the tests of what it takes from around
//! it (the configuration file, colour variables, git), and what it printed, as text or JSON.

use super::samples;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The real binary with a clean, chosen environment: no config file unless `home` holds one,
/// no colour variables unless given.
pub fn run_in(dir: Option<&Path>, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_patchdeck"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// Output bytes as text, invalid UTF-8 replaced.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Standard output read as JSON, or a panic quoting it.
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&output.stdout)))
}

/// A sample batch's path, by its name under `sample-batches/`.
pub fn batch(name: &str) -> String {
    samples().join(name).display().to_string()
}
