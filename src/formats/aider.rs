//! Aider's SEARCH/REPLACE blocks: the file's path on the line before, then
//! `<<<<<<< SEARCH`, the lines to find, `=======`, the lines to put there, `>>>>>>> REPLACE`,
//! each marker at column 0; fenced or not. The path line must look like one (in backticks, a
//! word with a `/` or a `.`, or an existing file's name); a block after prose (`Then:`) or
//! right after another block uses the previous block's path.
//!
//! An empty SEARCH creates the file (over an existing file, a `file_exists` conflict). The
//! SEARCH lines must occur once in the file, through the shared matcher's tolerant tiers (Aider
//! itself tolerates whitespace too, but takes the first match); the blocks of one file are all
//! placed against its content on disk and must not overlap.

use super::build::{create_all, Builder, ChangeSpec, Loaded};
use super::matcher::{find_lines, Doc, TOLERANT};
use super::structured::preview;
use crate::error::InputProblem;
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::model::{FileAction, LineRange, LoadProblem};
use crate::problem::ProblemKind;

pub const NAME: &str = "aider";

/// A block's three marker lines, each at column 0.
pub const SEARCH: &str = "<<<<<<< SEARCH";
pub const DIVIDER: &str = "=======";
pub const REPLACE: &str = ">>>>>>> REPLACE";

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
    let blocks = parse(text, &is_file, problems);
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
        let disk = tree.file(&path);
        if mine.iter().any(|b| b.search.is_empty()) {
            let mut file = builder.file(&path, FileAction::Create);
            for b in &mine {
                let mut content = b.replace.join("\n");
                content.push('\n');
                let mut spec = create_all(
                    content.as_bytes(),
                    format!("create {path} (block at line {})", b.at_line),
                );
                if !b.search.is_empty() || mine.len() > 1 {
                    spec.problems.push(LoadProblem::conflict(ProblemKind::Overlap, "a file created by an empty SEARCH cannot take other blocks in the same answer"));
                }
                builder.push(&mut file, spec);
            }
            loaded.files.push(file);
            continue;
        }
        let mut file = builder.file(&path, FileAction::Modify);
        let bytes = match disk {
            OnDisk::File { bytes, snapshot } => {
                builder.pin(&file, &snapshot);
                Some(bytes)
            }
            _ => None,
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
                builder.push(
                    &mut file,
                    ChangeSpec::unplaced(
                        description,
                        LoadProblem::conflict(
                            ProblemKind::NotFound,
                            format!("{path} cannot be read; only an empty SEARCH creates a file"),
                        ),
                    )
                    .writing(b.replace.clone()),
                );
                continue;
            }
            match find_lines(&doc, &b.search, &b.replace, TOLERANT, 0..doc.len(), false) {
                Ok(found) => {
                    let mut spec = ChangeSpec {
                        description,
                        range: Some(found.range),
                        expected: Some(found.expected),
                        new_lines: found.new_lines,
                        tier: found.tier,
                        ..ChangeSpec::default()
                    };
                    if let Some(other) = placed.iter().find(|r| r.overlaps(found.range)) {
                        spec.problems.push(LoadProblem::conflict(
                            ProblemKind::Overlap,
                            format!(
                                "its SEARCH lines {} overlap another block's (lines {})",
                                found.range.describe(),
                                other.describe()
                            ),
                        ));
                    }
                    placed.push(found.range);
                    builder.push(&mut file, spec);
                }
                Err(miss) => {
                    let (kind, message) = miss.describe(&format!(
                        "the SEARCH lines of the block at line {}",
                        b.at_line
                    ));
                    builder.push(
                        &mut file,
                        ChangeSpec::near(&miss, description, LoadProblem::conflict(kind, message))
                            .seeking(&miss, b.search.clone())
                            .writing(b.replace.clone()),
                    );
                }
            }
        }
        loaded.files.push(file);
    }
}

/// What the line before a block says about its path.
enum PathLine {
    /// A path: in backticks, one word with a `/` or a `.` in it, or an existing file's name.
    Path(String),
    /// Prose (`Then:`), or nothing: the block takes the previous block's path. The text of the
    /// prose line, for the error when there is no previous block.
    Inherit(Option<String>),
}

/// The path a block names on the line before it: the nearest non-blank line that is not a
/// fence, without decoration (`**`, `#`, backticks, a trailing colon).
fn path_before(lines: &[&str], at: usize, is_file: &dyn Fn(&str) -> bool) -> PathLine {
    let mut k = at;
    while k > 0 {
        k -= 1;
        let l = lines[k].trim();
        if l.is_empty() || l.starts_with("```") || l.starts_with("~~~") {
            continue;
        }
        if lines[k].trim_end() == REPLACE {
            return PathLine::Inherit(None);
        }
        let bare = l.trim_matches(['*', '#', ' ']).trim_end_matches(':').trim();
        if let Some(inner) = bare.strip_prefix('`').and_then(|b| b.strip_suffix('`')) {
            if !inner.trim().is_empty() && !inner.contains('`') {
                return PathLine::Path(inner.trim().to_owned());
            }
        }
        let clean = bare.trim_matches(['*', '`', ':', '#', ' ']).trim();
        let one_word = !clean.is_empty() && !clean.contains(char::is_whitespace);
        let looks_like_a_path =
            one_word && (clean.contains('/') || clean.trim_end_matches('.').contains('.'));
        if looks_like_a_path || !clean.is_empty() && is_file(clean) {
            return PathLine::Path(clean.to_owned());
        }
        return PathLine::Inherit(Some(l.to_owned()));
    }
    PathLine::Inherit(None)
}

/// Reads the blocks; `is_file` says whether a name is an existing file (a path line need not
/// look like a path then).
fn parse(
    text: &str,
    is_file: &dyn Fn(&str) -> bool,
    problems: &mut Vec<InputProblem>,
) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut out: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != SEARCH {
            i += 1;
            continue;
        }
        let at_line = i + 1;
        let (path, prose) = match path_before(&lines, i, is_file) {
            PathLine::Path(path) => (Some(path), None),
            PathLine::Inherit(prose) => (out.last().map(|b| b.path.clone()), prose),
        };
        let Some(path) = path else {
            let before = match prose {
                Some(line) => format!("the line before it (\"{line}\") is not a path"),
                None => "there is no path on the line before it".into(),
            };
            problems.push(InputProblem {
                location: format!("line {at_line}"),
                message: format!("SEARCH block without a file path: {before}, and no earlier block names one; expected the path (with a / or a ., an existing file's name, or a name in backticks) on the line before the block"),
            });
            i += 1;
            continue;
        };
        let mut search = Vec::new();
        let mut replace = Vec::new();
        let mut k = i + 1;
        while k < lines.len() && lines[k].trim_end() != DIVIDER {
            search.push(lines[k].to_owned());
            k += 1;
        }
        if k == lines.len() {
            problems.push(InputProblem {
                location: format!("line {at_line}"),
                message: format!("SEARCH block for {path} has no \"{DIVIDER}\" line"),
            });
            break;
        }
        k += 1;
        while k < lines.len() && lines[k].trim_end() != REPLACE {
            replace.push(lines[k].to_owned());
            k += 1;
        }
        if k == lines.len() {
            problems.push(InputProblem {
                location: format!("line {at_line}"),
                message: format!("SEARCH block for {path} does not end with \"{REPLACE}\""),
            });
            break;
        }
        out.push(Block {
            path,
            at_line,
            search,
            replace,
        });
        i = k + 1;
    }
    if out.is_empty() && problems.is_empty() {
        problems.push(InputProblem {
            location: "line 1".into(),
            message: format!("no \"{SEARCH}\" block found"),
        });
    }
    out
}
