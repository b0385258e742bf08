//! The invariants `docs/architecture.md` states, held to the source: the core's modules form
//! layers with no circle between them, the parsers never reach the disk, the review never names
//! the pipeline, every write under the root goes through the path-safe layer, what differs by
//! platform is in one module, and functions stay short enough to hold at once.

mod source;

use source::{File, Graph};
use std::collections::BTreeSet;

/// The layers of the core, lowest first: a module may use any module of its own layer or a
/// lower one. The clients (`tui`, `mcp`, `cli`) and the crate root stand above them all.
const LAYERS: &[&[&str]] = &[
    // Leaves: text, numbers and words with no knowledge of batches.
    &[
        "bounded",
        "checksum",
        "error",
        "failpoint",
        "generated",
        "line_diff",
        "lines",
        "locate",
        "newlines",
        "parallel",
        "problem",
        "sha256",
        "text_lines",
    ],
    // The path-safe file system, and patchdeck's own state folder on it.
    &["fs", "state"],
    // The one model of a batch, and the splicing of new lines into a file.
    &["model", "content", "json", "splice"],
    // The parsers.
    &["formats"],
    // Files under the root: resolving docPaths, reading ahead.
    &["workspace"],
    // Checking a batch against the files.
    &["verify"],
    // Decisions and the rules of what may be decided.
    &["review"],
    // New contents in memory.
    &["plan"],
    // Writing them, all or none; git beside it.
    &["commit", "git"],
    // What is said about a batch, and what is kept of a review.
    &[
        "report",
        "feedback",
        "export",
        "preview",
        "session",
        "diff_writer",
        "config",
    ],
    // The calls the clients make.
    &["pipeline", "loading", "worktree"],
];

/// The modules of the clients, above every layer, the crate roots, and the build script (a
/// program of its own that Cargo runs before the crate is compiled).
const CLIENTS: &[&str] = &["tui", "mcp", "cli", "main.rs", "lib.rs", "build.rs"];

fn top(rel: &str) -> &str {
    rel.split('/').next().unwrap().trim_end_matches(".rs")
}

fn is_core(rel: &str) -> bool {
    !CLIENTS.contains(&top(rel)) && !CLIENTS.contains(&rel)
}

fn layer(rel: &str) -> usize {
    let name = top(rel);
    LAYERS
        .iter()
        .position(|layer| layer.contains(&name))
        .unwrap_or_else(|| {
            panic!("src/{rel}: its module {name} is in no layer of tests/architecture.rs")
        })
}

fn core_files() -> Vec<File> {
    let files = source::files();
    assert!(
        files.len() > 50,
        "the source tree was found ({} files)",
        files.len()
    );
    files
}

#[test]
fn every_core_module_has_a_layer() {
    for file in core_files().iter().filter(|f| is_core(&f.rel)) {
        layer(&file.rel);
    }
}

#[test]
fn no_import_circle_ties_two_core_modules() {
    let files = core_files();
    let graph = Graph::of(&files);
    let circles = graph.circles(is_core);
    let said: Vec<String> = circles
        .iter()
        .map(|group| {
            let mut lines = Vec::new();
            for from in group {
                for (to, line) in &graph.edges[from] {
                    if group.contains(to) {
                        lines.push(format!("  src/{from}:{line} -> {to}"));
                    }
                }
            }
            format!("{} files:\n{}", group.len(), lines.join("\n"))
        })
        .collect();
    assert!(
        said.is_empty(),
        "import circles in the core:\n{}",
        said.join("\n")
    );
}

#[test]
fn at_most_three_imports_run_up_a_layer() {
    let files = core_files();
    let graph = Graph::of(&files);
    let mut up = Vec::new();
    for (from, targets) in graph.edges.iter().filter(|(f, _)| is_core(f)) {
        for (to, line) in targets {
            if is_core(to) && layer(to) > layer(from) {
                up.push(format!("src/{from}:{line} -> {to}"));
            }
        }
    }
    assert!(
        up.len() <= 3,
        "{} imports run up a layer:\n{}",
        up.len(),
        up.join("\n")
    );
}

/// Names that reach the disk: a parser is handed its input and asks the workspace through a
/// trait, never these.
const DISK: &[&str] = &[
    "std::fs",
    "File::",
    "OpenOptions",
    "crate::workspace",
    "crate::fs::beneath",
    "crate::fs::read",
    "crate::fs::Root",
    "crate::fs::Dir",
    "crate::fs::read_",
    "read_dir",
    "stdin",
    "libc::",
];

/// Whether `name` stands in `line` as a name of its own (not the end of a longer one, as
/// `File::` ends `DiffFile::`).
fn names(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Every line of the core files `keep` keeps that names one of `list`, as `src/FILE:LINE: NAME`.
fn lines_naming(keep: impl Fn(&File) -> bool, list: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for file in core_files().iter().filter(|f| is_core(&f.rel) && keep(f)) {
        for (n, line) in file.code.lines().enumerate() {
            for name in list.iter().filter(|name| names(line, name)) {
                found.push(format!("src/{}:{}: {name}", file.rel, n + 1));
            }
        }
    }
    found
}

#[test]
fn parsers_never_open_files() {
    let found = lines_naming(|f| f.rel.starts_with("formats/"), DISK);
    assert!(
        found.is_empty(),
        "parsers that reach the disk:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_review_never_names_the_pipeline() {
    let files = core_files();
    let mut found = Vec::new();
    for file in files.iter().filter(|f| f.rel.starts_with("review/")) {
        for (path, line) in source::named_paths(file) {
            if path.first().map(String::as_str) == Some("pipeline") {
                found.push(format!("src/{}:{line}", file.rel));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the review names the pipeline:\n{}",
        found.join("\n")
    );
}

/// Calls that change the file system. Under the root, only `src/fs/` makes them: every other
/// module writes through its folders, walked from the root without following a link. Two files
/// are written outside any workspace by path: the seal key in the user's own state folder
/// (`state/seal.rs`), as a file of the user's, and the copy of git's index a checkpoint makes
/// in a private temporary folder of its own (`git/worktree.rs`).
const WRITES: &[&str] = &[
    "fs::write",
    "fs::rename",
    "fs::remove_file",
    "fs::remove_dir",
    "fs::create_dir",
    "fs::hard_link",
    "fs::copy",
    "fs::set_permissions",
    "File::create",
    "OpenOptions",
    "libc::renameat",
    "libc::unlinkat",
    "libc::linkat",
    "libc::mkdirat",
    "libc::openat",
    "libc::open(",
];

#[test]
fn every_write_goes_through_the_path_safe_layer() {
    let by_path =
        |rel: &str| rel.starts_with("fs/") || rel == "state/seal.rs" || rel == "git/worktree.rs";
    let found = lines_naming(|f| !by_path(&f.rel), WRITES);
    assert!(
        found.is_empty(),
        "writes outside src/fs/:\n{}",
        found.join("\n")
    );
}

/// What differs by platform, named outside `src/fs/platform.rs`: a `cfg` on the operating
/// system, or a sync that is not the platform's (std's `sync_all` on macOS fails where
/// `F_FULLFSYNC` is not supported, instead of falling back to `fsync`).
const PLATFORM: &[&str] = &[
    "target_os",
    "sync_all(",
    "sync_data(",
    "libc::fsync(",
    "libc::fdatasync(",
    "libc::fcntl(",
];

#[test]
fn platform_calls_are_made_in_the_platform_module() {
    let found = lines_naming(|f| f.rel != "fs/platform.rs", PLATFORM);
    assert!(
        found.is_empty(),
        "platform calls outside src/fs/platform.rs:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_function_is_longer_than_150_lines() {
    let mut long = Vec::new();
    for file in core_files() {
        for (name, line, length) in source::function_lengths(&file) {
            if length > 150 {
                long.push(format!(
                    "src/{}:{line}: {name} has {length} lines",
                    file.rel
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions past 150 lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_graph_sees_the_imports_it_must() {
    // The reading itself is checked, so that the tests above cannot pass by seeing nothing.
    let files = core_files();
    let graph = Graph::of(&files);
    let edges_of =
        |rel: &str| -> BTreeSet<&str> { graph.edges[rel].keys().map(String::as_str).collect() };
    assert!(
        edges_of("plan/file.rs").contains("review/mod.rs")
            && edges_of("plan/file.rs").contains("review/rules.rs")
    );
    assert!(edges_of("commit/mod.rs").contains("plan/mod.rs"));
    let fake = source::File {
        rel: "a/b.rs".into(),
        module: vec!["a".into(), "b".into()],
        code: source::blank_comments_and_literals(
            "use super::{c::D, e};\nuse crate::x::{y, z::{W, V as U}};\nfn f() { crate::q::r(); let s = \"crate::no\"; }\n",
        ),
        text: String::new(),
    };
    let named: BTreeSet<String> = source::named_paths(&fake)
        .into_iter()
        .map(|(p, _)| p.join("::"))
        .collect();
    assert!(!named.iter().any(|p| p.contains("no")), "{named:?}");
    for want in ["a::c::D", "a::e", "x::y", "x::z::W", "x::z::V", "q::r"] {
        assert!(named.contains(want), "{want} in {named:?}");
    }
    let blanked = source::blank_comments_and_literals("let s = \"crate::no\"; // crate::no\n'x'");
    assert!(!blanked.contains("crate"), "{blanked}");
}
