//! `patchdeck demo --dir`: a folder that exists and holds no demo is refused, saying which
//! folders the flag takes, with no OS error. (The demo opened and reopened in a
//! pseudo-terminal is in `tui_e2e.rs`.)

use crate::common::{patchdeck, stderr};
use std::fs;

#[test]
fn demo_dir_reopens_a_demo_and_refuses_a_folder_that_is_not_one() {
    let home = tempfile::tempdir().unwrap();
    let other = home.path().join("other");
    fs::create_dir(&other).unwrap();
    let out = patchdeck(&["demo", "--dir", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("exists and holds no demo"), "{said}");
    assert!(
        said.contains("one a demo was unpacked into before (it is reopened)"),
        "{said}"
    );
    assert!(!said.contains("os error"), "{said}");
}
