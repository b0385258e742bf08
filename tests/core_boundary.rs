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

#[test]
fn only_the_tui_names_terminal_crates() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tui = src.join("tui");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 20,
        "the source tree was found ({} files)",
        files.len()
    );
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&tui)) {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for name in TERMINAL_CRATES {
                if line.contains(name) {
                    offenders.push(format!("{}:{}: names {name}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "terminal code outside src/tui:\n{}",
        offenders.join("\n")
    );
    let tui_names_them = files
        .iter()
        .filter(|f| f.starts_with(&tui))
        .any(|f| fs::read_to_string(f).unwrap().contains("ratatui"));
    assert!(
        tui_names_them,
        "the check looks where the terminal code really is"
    );
}

/// The async runtime and the protocol stay in the MCP server: `src/mcp/` (and the command
/// line's `mcp` subcommand, which starts it) may name tokio, rmcp or schemars; the core never.
#[test]
fn only_the_mcp_server_names_the_async_runtime() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let server = src.join("mcp");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&server)) {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for name in ["tokio", "rmcp", "schemars"] {
                if line.contains(&format!("{name}::")) || line.contains(&format!("use {name}")) {
                    offenders.push(format!("{}:{}: names {name}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "async runtime or protocol code outside src/mcp:\n{}",
        offenders.join("\n")
    );
    let server_names_them = files
        .iter()
        .filter(|f| f.starts_with(&server))
        .any(|f| fs::read_to_string(f).unwrap().contains("rmcp::"));
    assert!(
        server_names_them,
        "the check looks where the server really is"
    );
}
