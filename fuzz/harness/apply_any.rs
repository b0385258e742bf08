//! The check `apply_any` makes of one input, shared by the fuzz target and by the replay of
//! its crashers in `cargo test` (`tests/fuzz_crashers.rs`): the first two bytes split the
//! input into the content of the workspace's files (`a.txt` and `src/a.txt` under `dir`,
//! which must hold a `src` folder) and a batch. Loading, verifying and planning must never
//! panic or hang; rejecting every change must plan no write; accepting every change must plan
//! only files of the batch.

use patchdeck::formats::{self, Input};
use patchdeck::review::Decisions;
use patchdeck::{plan, verify, workspace::Workspace};
use std::path::Path;

pub fn apply_any(dir: &Path, data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let split = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (file, batch) = data[2..].split_at(split);
    std::fs::write(dir.join("a.txt"), file).unwrap();
    std::fs::write(dir.join("src/a.txt"), file).unwrap();
    let workspace = Workspace::open(dir).unwrap();
    let Ok(batch) = formats::load(&Input::from_bytes("fuzz", batch.to_vec()), None, &workspace)
    else {
        return;
    };
    let verification = verify::verify(&batch, &workspace);
    let none = plan::plan(&batch, &verification, &Decisions::reject_all(&batch));
    assert!(
        none.writes.is_empty(),
        "rejecting everything writes nothing"
    );
    let all = plan::plan(&batch, &verification, &Decisions::accept_all(&batch));
    for write in &all.writes {
        assert!(batch.files.get(write.file).is_some());
    }
}
