//! Any batch, in any format, applied in memory to arbitrary file bytes: the first two bytes
//! split the input into the content of the workspace's files and the batch. Loading,
//! verifying and planning must never panic or hang; rejecting every change must plan no
//! write; accepting every change of a batch that verifies must plan only files of the batch.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../harness/apply_any.rs"]
mod harness;

thread_local! {
    static DIR: tempfile::TempDir = {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        dir
    };
}

fuzz_target!(|data: &[u8]| {
    DIR.with(|dir| harness::apply_any(dir.path(), data));
});
