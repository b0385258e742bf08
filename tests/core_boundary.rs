//! The core stays free of the terminal: only `src/tui/` may name ratatui, crossterm or syntect.

use std::fs;
use std::path::{Path, PathBuf};

const TERMINAL_CRATES: &[&str] = &["ratatui", "crossterm", "syntect"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every line of `src/` outside `src/FOLDER/` that names one of `crates`, and whether a file
/// inside names `witness` (so that the check looks where that code really is).
fn named_outside(folder: &str, crates: &[&str], witness: &str) -> (Vec<String>, bool) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let inside = src.join(folder);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 20,
        "the source tree was found ({} files)",
        files.len()
    );
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&inside)) {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for name in crates {
                if line.contains(name) {
                    offenders.push(format!("{}:{}: names {name}", file.display(), n + 1));
                }
            }
        }
    }
    let witnessed = files
        .iter()
        .filter(|f| f.starts_with(&inside))
        .any(|f| fs::read_to_string(f).unwrap().contains(witness));
    (offenders, witnessed)
}

#[test]
fn only_the_tui_names_terminal_crates() {
    let (offenders, witnessed) = named_outside("tui", TERMINAL_CRATES, "ratatui");
    assert!(
        offenders.is_empty(),
        "terminal code outside src/tui:\n{}",
        offenders.join("\n")
    );
    assert!(
        witnessed,
        "the check looks where the terminal code really is"
    );
}

/// The async runtime and the protocol stay in the MCP server: only `src/mcp/` may name tokio,
/// rmcp or schemars.
#[test]
fn only_the_mcp_server_names_the_async_runtime() {
    let (offenders, witnessed) = named_outside("mcp", &["tokio", "rmcp", "schemars"], "rmcp::");
    assert!(
        offenders.is_empty(),
        "async runtime or protocol code outside src/mcp:\n{}",
        offenders.join("\n")
    );
    assert!(witnessed, "the check looks where the server really is");
}
