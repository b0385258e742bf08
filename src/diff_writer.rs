//! Writing a plan as a git-style unified diff that `git apply` accepts.
//!
//! Each planned write becomes one `diff --git` section with creation and deletion headers as
//! git writes them, hunks with three lines of context, and `\ No newline at end of file`
//! markers. Lines are compared with their endings, so CRLF content and a gained or lost final
//! newline appear exactly. Applying the output with `git apply` gives the same bytes as the
//! commit writes; a test holds this.

use crate::plan::{FileWrite, Plan, WriteKind};
use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};
use std::io::{self, Write};

/// Lines of context around each change.
pub const CONTEXT: usize = 3;

/// Writes every write of a plan as a git diff.
pub fn write_plan(plan: &Plan, out: &mut impl Write) -> io::Result<()> {
    for write in &plan.writes {
        write_file(write, out)?;
    }
    Ok(())
}

/// Writes one planned write as a git diff section (nothing when its content is unchanged).
pub fn write_file(write: &FileWrite, out: &mut impl Write) -> io::Result<()> {
    let old: &[u8] = write.before.as_ref().map_or(&[], |b| &b.bytes);
    let new: &[u8] = &write.after;
    if write.kind == WriteKind::Modify && old == new {
        return Ok(());
    }
    let path = write.rel.to_string_lossy();
    let a = quote(&format!("a/{path}"));
    let b = quote(&format!("b/{path}"));
    writeln!(out, "diff --git {a} {b}")?;
    let mode = write.before.as_ref().map_or(0o100644, |b| b.stamp.mode);
    let git_mode = if mode & 0o111 != 0 {
        "100755"
    } else {
        "100644"
    };
    match write.kind {
        WriteKind::Create => writeln!(out, "new file mode {git_mode}")?,
        WriteKind::Delete => writeln!(out, "deleted file mode {git_mode}")?,
        WriteKind::Modify => {}
    }
    if old.is_empty() && new.is_empty() {
        return Ok(());
    }
    let from = if write.kind == WriteKind::Create {
        "/dev/null".to_owned()
    } else {
        a
    };
    let to = if write.kind == WriteKind::Delete {
        "/dev/null".to_owned()
    } else {
        b
    };
    writeln!(out, "--- {from}")?;
    writeln!(out, "+++ {to}")?;
    write_hunks(old, new, CONTEXT, out)
}

/// Writes the hunks that turn `old` into `new`.
pub fn write_hunks(old: &[u8], new: &[u8], context: usize, out: &mut impl Write) -> io::Result<()> {
    let old_lines = raw_lines(old);
    let new_lines = raw_lines(new);
    let ops = diff_ops(&old_lines, &new_lines);
    for group in group_diff_ops(ops, context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_start = first.old_range().start;
        let old_len = last.old_range().end - old_start;
        let new_start = first.new_range().start;
        let new_len = last.new_range().end - new_start;
        writeln!(
            out,
            "@@ -{} +{} @@",
            hunk_range(old_start, old_len),
            hunk_range(new_start, new_len)
        )?;
        for op in &group {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    emit(out, b' ', &old_lines[old_index..old_index + len])?
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => emit(out, b'-', &old_lines[old_index..old_index + old_len])?,
                DiffOp::Insert {
                    new_index, new_len, ..
                } => emit(out, b'+', &new_lines[new_index..new_index + new_len])?,
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    emit(out, b'-', &old_lines[old_index..old_index + old_len])?;
                    emit(out, b'+', &new_lines[new_index..new_index + new_len])?;
                }
            }
        }
    }
    Ok(())
}

/// similar's Myers diff of two line slices, with every op's positions recomputed from the ops
/// before it. similar 2.7 can report a deletion at the wrong position in the new side (a
/// `Delete { new_index: 1 }` before an `Equal { new_index: 0 }`), which made hunk headers that
/// `git apply` refuses; the op kinds and lengths are right, so the positions are rebuilt.
pub fn diff_ops<T: std::hash::Hash + Eq + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let (mut o, mut n) = (0, 0);
    capture_diff_slices(Algorithm::Myers, old, new)
        .into_iter()
        .map(|op| {
            let fixed = match op {
                DiffOp::Equal { len, .. } => DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                },
                DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                    old_index: o,
                    old_len,
                    new_index: n,
                },
                DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                    old_index: o,
                    new_index: n,
                    new_len,
                },
                DiffOp::Replace {
                    old_len, new_len, ..
                } => DiffOp::Replace {
                    old_index: o,
                    old_len,
                    new_index: n,
                    new_len,
                },
            };
            o += fixed.old_range().len();
            n += fixed.new_range().len();
            fixed
        })
        .collect()
}

/// Each line with its ending, as raw bytes (a byte order mark stays part of the first line,
/// as git sees it).
fn raw_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// Git's hunk range: `start` alone for one line, `start,len` otherwise, where an empty range
/// names the line before it.
fn hunk_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

fn emit(out: &mut impl Write, tag: u8, lines: &[&[u8]]) -> io::Result<()> {
    for line in lines {
        out.write_all(&[tag])?;
        out.write_all(line)?;
        if !line.ends_with(b"\n") {
            out.write_all(b"\n\\ No newline at end of file\n")?;
        }
    }
    Ok(())
}

/// Quotes a path as git does when it holds characters a plain header cannot carry.
fn quote(path: &str) -> String {
    if !path
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\')
    {
        return path.to_owned();
    }
    let mut out = String::from("\"");
    for byte in path.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunks(old: &str, new: &str) -> String {
        let mut out = Vec::new();
        write_hunks(old.as_bytes(), new.as_bytes(), 3, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_single_line_change_has_git_style_header() {
        assert_eq!(
            hunks("a\nb\nc\n", "a\nB\nc\n"),
            "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
    }

    #[test]
    fn a_gained_final_newline_is_shown() {
        assert_eq!(
            hunks("a\nb", "a\nb\nc"),
            "@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn insertion_into_empty_content_names_line_zero() {
        assert_eq!(hunks("", "x\n"), "@@ -0,0 +1 @@\n+x\n");
    }

    #[test]
    fn hunk_headers_count_from_the_ops_not_from_similars_delete_position() {
        // similar 2.7 reports this deletion at new line 1, before the equal line at 0.
        assert_eq!(
            hunks("a\nc\n", "c\nc\nb\nb\nb"),
            "@@ -1,2 +1,5 @@\n-a\n c\n+c\n+b\n+b\n+b\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn special_paths_are_quoted() {
        assert_eq!(quote("a/b c"), "a/b c");
        assert_eq!(quote("a/t\tb"), "\"a/t\\tb\"");
        assert_eq!(quote("a/\"q\""), "\"a/\\\"q\\\"\"");
    }
}
