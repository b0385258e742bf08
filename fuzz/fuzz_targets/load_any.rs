//! Any bytes as a batch input, format detected: parsing must never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchdeck::formats::{self, Input};
use patchdeck::workspace::Workspace;
thread_local! {
    static WS: (tempfile::TempDir, Workspace) = {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    };
}

fuzz_target!(|data: &[u8]| {
    WS.with(|(_, ws)| {
        let _ = formats::load(&Input::from_bytes("fuzz", data.to_vec()), None, ws);
    });
});
