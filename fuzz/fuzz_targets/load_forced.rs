//! Any bytes parsed as each format in turn (the first byte picks it): every parser must refuse
//! bad input with an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchdeck::formats::{self, Input, NAMES};
use patchdeck::workspace::Workspace;
thread_local! {
    static WS: (tempfile::TempDir, Workspace) = {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\r\nbeta\r\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    };
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let name = NAMES[pick as usize % NAMES.len()];
    WS.with(|(_, ws)| {
        let _ = formats::load(&Input::from_bytes("fuzz", rest.to_vec()), Some(name), ws);
    });
});
