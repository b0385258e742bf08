//! A TUL-002 batch applied to arbitrary file bytes, in memory: split the input into file bytes
//! and batch JSON, verify each change against the bytes, splice the ones that verify, and diff
//! the result. Nothing may panic; rejecting everything must give the original bytes back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use patchdeck::formats::tul002;
use patchdeck::json::Walker;
use patchdeck::lines::Lines;
use patchdeck::splice::{splice, Splice};
use patchdeck::diff_writer::write_hunks;
use patchdeck::verify::{verify_change, Status};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let split = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
    let (file, batch) = data[2..].split_at(split);
    assert_eq!(splice(file, &[]), file, "splicing nothing changes nothing");
    let mut walker = Walker::default();
    let Some(parsed) = tul002::parse(batch, &mut walker) else { return };
    let lines = Lines::split(file);
    for patch in &parsed.files {
        let splices: Vec<Splice> = patch
            .changes
            .iter()
            .filter(|c| verify_change(c, &lines, false, true).status == Status::Ok)
            .map(|c| Splice::new(c.range, &c.new_lines))
            .collect();
        let out = splice(file, &splices);
        let mut diff = Vec::new();
        write_hunks(file, &out, 3, &mut diff).unwrap();
        if splices.is_empty() {
            assert_eq!(out, file);
        }
    }
});
