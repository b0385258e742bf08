//! Any batch, in any format, applied in memory to arbitrary file bytes: the first two bytes
//! split the input into the content of the workspace's files and the batch. Loading,
//! verifying and planning must never panic or hang; rejecting every change must plan no
//! write; accepting every change of a batch that verifies must plan only files of the batch.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchdeck::formats::{self, Input};
use patchdeck::review::Decisions;
use patchdeck::{plan, verify, workspace::Workspace};

thread_local! {
    static DIR: tempfile::TempDir = {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        dir
    };
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let split = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (file, batch) = data[2..].split_at(split);
    DIR.with(|dir| {
        std::fs::write(dir.path().join("a.txt"), file).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), file).unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let Ok(batch) = formats::load(&Input::from_bytes("fuzz", batch.to_vec()), None, &workspace)
        else {
            return;
        };
        let verification = verify::verify(&batch, &workspace);
        let mut rejected = Decisions::undecided(&batch);
        for (_, change) in batch.changes() {
            rejected.set(change.id.clone(), patchdeck::review::Decision::Reject);
        }
        let none = plan::plan(&batch, &verification, &rejected);
        assert!(none.writes.is_empty(), "rejecting everything writes nothing");
        let all = plan::plan(&batch, &verification, &Decisions::accept_all(&batch));
        for write in &all.writes {
            assert!(batch.files.get(write.file).is_some());
        }
    });
});
