//! Every input a fuzzer ever crashed patchdeck with (`tests/fuzz_crashers/`, named
//! `TARGET-what-it-found`), replayed the way its target ran it: loading (and, for
//! `apply_any`, verifying and planning against files holding the crasher's bytes) must answer
//! with a batch or an error, never a panic.

use crate::common;

#[path = "../fuzz/harness/apply_any.rs"]
mod harness;

use patchdeck::formats::NAMES;
use std::fs;
use std::path::Path;

#[test]
fn no_recorded_crasher_panics_any_more() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_crashers");
    let mut replayed = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(&path).unwrap();
        if name.starts_with("load_any-") {
            let _ = common::load_bytes(&bytes, None);
        } else if name.starts_with("load_forced-") {
            let Some((&pick, rest)) = bytes.split_first() else {
                continue;
            };
            let _ = common::load_bytes(rest, Some(NAMES[pick as usize % NAMES.len()]));
        } else if name.starts_with("apply_any-") {
            apply_any(&bytes);
        } else {
            panic!("{name}: crasher files are named after their fuzz target");
        }
        // Every format, forced, must refuse it cleanly too.
        for format in NAMES {
            let _ = common::load_bytes(&bytes, Some(format));
        }
        replayed += 1;
    }
    assert!(replayed > 0, "no crasher in {}", dir.display());
}

/// As `fuzz/fuzz_targets/apply_any.rs` runs it, in a fresh folder.
fn apply_any(data: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    harness::apply_any(dir.path(), data);
}
