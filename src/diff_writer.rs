//! Writing a plan as a git-style unified diff that `git apply` accepts.
//!
//! Each planned write becomes one `diff --git` section with creation, deletion and mode
//! headers as git writes them, hunks with three lines of context, and `\ No newline at end of file`
//! markers. Lines are compared with their endings, so CRLF content and a gained or lost final
//! newline appear exactly. Applying the output with `git apply` gives the same bytes as the
//! commit writes; a test holds this.

use crate::line_diff::{diff_lines, Shared};
use crate::plan::{FileWrite, Plan, WriteKind};
use similar::{group_diff_ops, DiffOp};
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
    let old: &[u8] = write.before.as_ref().map_or(&[], |b| b.bytes());
    let after = write.after.bytes();
    let new: &[u8] = &after;
    let git_mode = |executable: bool| if executable { "100755" } else { "100644" };
    let was_executable = write
        .before
        .as_ref()
        .is_some_and(|b| b.stamp.mode & 0o111 != 0);
    // The batch's mode when it gives one (a created file's, a `new mode`), else the file's.
    let executable = write.executable.unwrap_or(was_executable);
    let mode_changes = write.kind == WriteKind::Modify && executable != was_executable;
    if write.kind == WriteKind::Modify && old == new && !mode_changes {
        return Ok(());
    }
    let path = write.rel.to_string_lossy();
    let a = quote(&format!("a/{path}"));
    let b = quote(&format!("b/{path}"));
    writeln!(out, "diff --git {a} {b}")?;
    match write.kind {
        WriteKind::Create => writeln!(out, "new file mode {}", git_mode(executable))?,
        WriteKind::Delete => writeln!(out, "deleted file mode {}", git_mode(was_executable))?,
        WriteKind::Modify if mode_changes => {
            writeln!(out, "old mode {}", git_mode(was_executable))?;
            writeln!(out, "new mode {}", git_mode(executable))?;
        }
        WriteKind::Modify => {}
    }
    if old == new {
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
    write_hunks(old, new, &write.after.shared_with(old), CONTEXT, out)
}

/// Writes the hunks that turn `old` into `new`, comparing only the lines outside the runs
/// `shared` says the two have in common (a new content's runs of its file,
/// [`crate::content::Content::shared_with`]; none for two unrelated texts).
pub fn write_hunks(
    old: &[u8],
    new: &[u8],
    shared: &[Shared],
    context: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let diff = diff_lines(old, new, shared);
    let (old_lines, new_lines) = (&diff.old, &diff.new);
    for group in group_diff_ops(diff.ops, context) {
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
        write_hunks(old.as_bytes(), new.as_bytes(), &[], 3, &mut out).unwrap();
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

    /// A planned write of `run.sh` (regular, 0644), as the commit gets it.
    fn write_of(
        before: &[u8],
        after: &[u8],
        kind: WriteKind,
        executable: Option<bool>,
    ) -> FileWrite {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        std::fs::write(&path, before).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let snapshot = crate::fs::read_snapshot(&path).unwrap();
        FileWrite {
            file: 0,
            rel: crate::fs::RepoPath::parse("run.sh").unwrap().0,
            kind,
            before: (kind != WriteKind::Create).then_some(snapshot),
            after: crate::content::Content::owned(after.to_vec()),
            changes: Vec::new(),
            ranges: Vec::new(),
            mode: None,
            owner: None,
            executable,
            may_be_unchanged: false,
        }
    }

    fn diff(write: &FileWrite) -> String {
        let mut out = Vec::new();
        write_file(write, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_mode_the_batch_gives_is_written_as_git_writes_it() {
        let same = write_of(b"echo\n", b"echo\n", WriteKind::Modify, Some(true));
        assert_eq!(
            diff(&same),
            "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        );
        let edited = write_of(b"echo\n", b"echo hi\n", WriteKind::Modify, Some(true));
        assert!(diff(&edited).starts_with(
            "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@"
        ));
        let created = write_of(b"", b"echo\n", WriteKind::Create, Some(true));
        assert!(diff(&created).starts_with("diff --git a/run.sh b/run.sh\nnew file mode 100755\n"));
        // A mode the file has already, or none given: nothing to say.
        assert_eq!(
            diff(&write_of(
                b"echo\n",
                b"echo\n",
                WriteKind::Modify,
                Some(false)
            )),
            ""
        );
        assert_eq!(
            diff(&write_of(b"echo\n", b"echo\n", WriteKind::Modify, None)),
            ""
        );
    }

    #[test]
    fn special_paths_are_quoted() {
        assert_eq!(quote("a/b c"), "a/b c");
        assert_eq!(quote("a/t\tb"), "\"a/t\\tb\"");
        assert_eq!(quote("a/\"q\""), "\"a/\\\"q\\\"\"");
    }
}
