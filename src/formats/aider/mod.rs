//! Aider's SEARCH/REPLACE blocks: the file's path on the line before, then
//! `<<<<<<< SEARCH`, the lines to find, `=======`, the lines to put there, `>>>>>>> REPLACE`,
//! each marker at column 0; fenced or not. The path line must look like one (in backticks, a
//! word with a `/` or a `.`, or an existing file's name); a block after prose (`Then:`) or
//! right after another block uses the previous block's path (`parse.rs`).
//!
//! An empty SEARCH creates the file (over an existing file, a `file_exists` conflict). The
//! SEARCH lines must occur once in the file, through the shared matcher's tolerant tiers (Aider
//! itself tolerates whitespace too, but takes the first match); the blocks of one file are all
//! placed against its content on disk and must not overlap. A SEARCH not found as written
//! whose `...` lines elide lines of the file is read by Aider's rule, with a note
//! (`elision.rs`). A path that names no file, where files of that base name exist elsewhere in
//! the workspace, is a conflict naming them: patchdeck does not take a file by its base name.

mod elision;
mod parse;

use super::build::{create_all, Builder, ChangeSpec, Loaded};
use super::matcher::{find_lines, Doc, Miss, TOLERANT};
use super::structured::preview;
use crate::error::InputProblem;
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::model::{FileAction, FilePatch, LineRange, LoadProblem};
use crate::problem::ProblemKind;

pub const NAME: &str = "aider";

/// A block's three marker lines, each at column 0.
pub const SEARCH: &str = "<<<<<<< SEARCH";
pub const DIVIDER: &str = "=======";
pub const REPLACE: &str = ">>>>>>> REPLACE";

/// How many files of a missing path's base name a conflict lists.
const NAMESAKES_SHOWN: usize = 5;

struct Block {
    path: String,
    at_line: usize,
    search: Vec<String>,
    replace: Vec<String>,
}

pub fn load(
    text: &str,
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
    problems: &mut Vec<InputProblem>,
) {
    let is_file = |name: &str| matches!(tree.file(name), OnDisk::File { .. });
    let blocks = parse::parse(text, &is_file, problems);
    if !problems.is_empty() {
        return;
    }
    // Blocks grouped by path, in order of first appearance.
    let mut paths: Vec<String> = Vec::new();
    for b in &blocks {
        if !paths.contains(&b.path) {
            paths.push(b.path.clone());
        }
    }
    for path in paths {
        let mine: Vec<&Block> = blocks.iter().filter(|b| b.path == path).collect();
        let file = match mine.iter().any(|b| b.search.is_empty()) {
            true => created(builder, &path, &mine),
            false => modified(tree, builder, &path, &mine),
        };
        loaded.files.push(file);
    }
}

/// The file an empty SEARCH creates; it takes no other block.
fn created(builder: &mut Builder, path: &str, mine: &[&Block]) -> FilePatch {
    let mut file = builder.file(path, FileAction::Create);
    for b in mine {
        let mut content = b.replace.join("\n");
        content.push('\n');
        let mut spec = create_all(
            content.as_bytes(),
            format!("create {path} (block at line {})", b.at_line),
        );
        if !b.search.is_empty() || mine.len() > 1 {
            spec.problems.push(LoadProblem::conflict(
                ProblemKind::Overlap,
                "a file created by an empty SEARCH cannot take other blocks in the same answer",
            ));
        }
        builder.push(&mut file, spec);
    }
    file
}

/// The file the blocks of `path` change, each block placed against its content on disk.
fn modified(tree: &dyn Files, builder: &mut Builder, path: &str, mine: &[&Block]) -> FilePatch {
    let mut file = builder.file(path, FileAction::Modify);
    let bytes = match tree.file(path) {
        OnDisk::File { bytes, snapshot } => {
            builder.pin(&file, &snapshot);
            Some(bytes)
        }
        OnDisk::Missing => {
            file.load_problems.extend(named_elsewhere(tree, path));
            None
        }
        OnDisk::Unusable => None,
    };
    let doc = Doc::from_bytes(bytes.as_deref().map_or(&[][..], |b| &b[..]));
    let mut placed: Vec<LineRange> = Vec::new();
    for b in mine {
        let description = Some(format!(
            "block at line {}: \"{}\"",
            b.at_line,
            preview(&b.search.join("\n"))
        ));
        if bytes.is_none() {
            let problem = LoadProblem::conflict(
                ProblemKind::NotFound,
                format!("{path} cannot be read; only an empty SEARCH creates a file"),
            );
            let spec = ChangeSpec::unplaced(description, problem).writing(b.replace.clone());
            builder.push(&mut file, spec);
            continue;
        }
        let (mut spec, range) = place(&doc, b, description);
        if let Some(range) = range {
            if let Some(other) = placed.iter().find(|r| r.overlaps(range)) {
                spec.problems.push(LoadProblem::conflict(
                    ProblemKind::Overlap,
                    format!(
                        "its SEARCH lines {} overlap another block's (lines {})",
                        range.describe(),
                        other.describe()
                    ),
                ));
            }
            placed.push(range);
        }
        builder.push(&mut file, spec);
    }
    file
}

/// One block's change: its SEARCH lines found as written (through the tolerant tiers), else,
/// when they elide lines with `...`, found piece by piece; with the range it was placed at.
fn place(doc: &Doc, b: &Block, description: Option<String>) -> (ChangeSpec, Option<LineRange>) {
    let what = format!("the SEARCH lines of the block at line {}", b.at_line);
    match find_lines(doc, &b.search, &b.replace, TOLERANT, 0..doc.len(), false) {
        Ok(found) => {
            let range = found.range;
            let spec = ChangeSpec {
                description,
                range: Some(found.range),
                expected: Some(found.expected),
                new_lines: found.new_lines,
                tier: found.tier,
                ..ChangeSpec::default()
            };
            (spec, Some(range))
        }
        Err(Miss::NotFound) if elision::elides(&b.search) => {
            elision::place(doc, &b.search, &b.replace, &what, description)
        }
        Err(miss) => {
            let (kind, message) = miss.describe(&what);
            let spec = ChangeSpec::near(&miss, description, LoadProblem::conflict(kind, message))
                .seeking(&miss, b.search.clone())
                .writing(b.replace.clone());
            (spec, None)
        }
    }
}

/// The conflict of a path that names no file, given as a bare name (`app.py`) that files
/// elsewhere in the workspace bear (`src/app.py`): patchdeck does not take one of them, but
/// names them. Asked only of a missing file.
fn named_elsewhere(tree: &dyn Files, path: &str) -> Option<LoadProblem> {
    if path.contains('/') {
        return None;
    }
    let mut namesakes = tree.named(path, NAMESAKES_SHOWN + 1);
    let more = namesakes.len() > NAMESAKES_SHOWN;
    namesakes.truncate(NAMESAKES_SHOWN);
    let which = match namesakes.as_slice() {
        [] => return None,
        [one] => format!("{one} is the one file named {path} in the workspace: name it"),
        many => format!(
            "{}{} files in the workspace are named {path} ({}{}): name one",
            if more { "more than " } else { "" },
            many.len(),
            many.join(", "),
            if more { ", ..." } else { "" }
        ),
    };
    Some(LoadProblem::conflict(
        ProblemKind::MissingFile,
        format!("{path} does not exist; {which} by its path from the root (patchdeck does not take a file by its base name)"),
    ))
}
