//! Every input a fuzzer ever crashed patchdeck with (`tests/fuzz_crashers/`, named
//! `TARGET-what-it-found`), replayed the way its target ran it: loading (and, for
//! `apply_any`, verifying and planning against files holding the crasher's bytes) must answer
//! with a batch or an error, never a panic.

mod common;

use patchdeck::formats::{self, Input, NAMES};
use patchdeck::review::{Decision, Decisions};
use patchdeck::workspace::Workspace;
use patchdeck::{plan, verify};
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

/// As `fuzz/fuzz_targets/apply_any.rs`: two bytes split the input into file content (written
/// to `a.txt` and `src/a.txt`) and a batch, which is loaded, verified and planned both ways.
fn apply_any(data: &[u8]) {
    let split = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (file, batch) = data[2..].split_at(split);
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("a.txt"), file).unwrap();
    fs::write(dir.path().join("src/a.txt"), file).unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    let Ok(batch) = formats::load(&Input::from_bytes("fuzz", batch.to_vec()), None, &workspace)
    else {
        return;
    };
    let verification = verify::verify(&batch, &workspace);
    let mut rejected = Decisions::undecided(&batch);
    for (_, change) in batch.changes() {
        rejected.set(change.id.clone(), Decision::Reject);
    }
    assert!(plan::plan(&batch, &verification, &rejected)
        .writes
        .is_empty());
    let _ = plan::plan(&batch, &verification, &Decisions::accept_all(&batch));
}
