//! Reading Aider's blocks: the marker lines, each block's SEARCH and REPLACE lines, and the path
//! each block names on the line before it (or takes from the block before). Nothing here looks
//! at a file's content; whether a name is an existing file is asked of the caller.

use super::{Block, DIVIDER, REPLACE, SEARCH};
use crate::error::InputProblem;

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
pub(super) fn parse(
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
