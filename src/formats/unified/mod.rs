//! Unified diffs and git patches: parsing them, and placing each hunk in the file as
//! `git apply` does.
//!
//! Reads `diff --git` sections and plain `---`/`+++` diffs, several files, new and deleted
//! files, renames and copies, quoted paths with C escapes, paths with spaces (git ends them
//! with a tab), `\ No newline at end of file`, CRLF content, junk between files, and
//! `git format-patch` mails (several in one mbox; the subject describes the files, the `-- `
//! signature is ignored). `-p N` strips path components (1 by default, as `git apply`).
//! As git apply does, it refuses a hunk after junk (a line of no hunk between two hunks), an
//! empty hunk, `---`/`+++` names other than the files the `diff --git` line names, and a
//! creation or deletion without a hunk unless a `diff --git` section says it.
//!
//! Each hunk becomes one change covering its context and removed lines, described by its
//! header's function context. Placing it follows `git apply`: lines are compared with their
//! endings; a hunk starting at line 1 must match at the top and a hunk without trailing
//! context at the end of the file; it applies at its stated line, else at the one other place
//! its lines occur exactly (an offset, reported as a note). Unlike `git apply`, which takes
//! the nearest of several places, several places are a conflict. Binary patches are refused.
//! A section for a file an earlier section changes (a later mail of an mbox) is placed against
//! the file as the earlier one leaves it and joins its file patch (see `formats::chain`).

mod hunk_read;
mod hunks;
mod mode;
mod names;
pub(crate) use names::unquote;
mod parse;
mod parts;
mod place;
mod plain;
mod seek;

pub use parse::{parse, parse_reading_ahead};
pub use place::build;

use crate::lines::Eol;

pub const NAME: &str = "unified";

/// How many bytes of a diff hold its first `sections` `diff --git` sections, when it has more
/// (see `parts::first_sections`): a diff cut there reads as the whole one does, as far as it
/// goes.
pub fn first_sections_len(text: &str, sections: usize) -> Option<usize> {
    parts::first_sections(text, sections)
}

/// How many `diff --git` sections a diff has.
pub fn sections(text: &str) -> usize {
    let at_start = usize::from(text.starts_with("diff --git "));
    at_start + memchr::memmem::find_iter(text.as_bytes(), b"\ndiff --git ").count()
}

/// Whether text holds a unified diff or a git patch: a header somewhere at column 0 (see
/// [`is_header`]).
pub fn detect(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len()).any(|i| is_header(lines[i], || lines[i + 1..].iter().take(2).collect()))
}

/// Whether a line starts a file's section of a diff at column 0: `diff --git` (or a merge's
/// combined `diff --cc`), or `--- ` when the next two lines (from `next`, asked for only then)
/// are `+++ ` and a hunk header.
pub fn is_header<S: AsRef<str>>(line: &str, next: impl FnOnce() -> Vec<S>) -> bool {
    if line.starts_with("diff --git ")
        || line.starts_with("diff --cc ")
        || line.starts_with("diff --combined ")
    {
        return true;
    }
    if !line.starts_with("--- ") {
        return false;
    }
    let next = next();
    matches!(next.as_slice(), [plus, hunk] if plus.as_ref().starts_with("+++ ") && is_hunk_header(hunk.as_ref()))
}

/// Whether a line opens a hunk: `@@ -1,2 +1,3 @@`, or a hunk without numbers (`@@ ... @@`,
/// `@@ @@`, `@@`).
pub fn is_hunk_header(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    line == "@@" || line.starts_with("@@ ")
}

/// One line of a hunk: its text without ending, borrowed from the diff, and its ending in
/// the patch. Nothing of a hunk is copied out of the diff: its change holds its lines as
/// spans of the same diff (see `place` and `TextLines`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HunkLine<'a> {
    pub text: &'a str,
    pub eol: Eol,
}

#[derive(Clone, Debug)]
pub struct Hunk<'a> {
    /// 1-based line of the hunk header in the input.
    pub at_line: usize,
    pub header: &'a str,
    pub section: &'a str,
    pub old_start: usize,
    pub old_count: usize,
    pub new_start: usize,
    pub new_count: usize,
    pub old: Vec<HunkLine<'a>>,
    pub new: Vec<HunkLine<'a>>,
    pub leading_context: usize,
    pub trailing_context: usize,
    /// Why the hunk is found by its lines rather than placed at its header's line: it has no
    /// line numbers (`@@ ... @@`, as Aider and other model tools write hunks), or its counts
    /// are not the lines it has. `None` for a hunk read as git reads it.
    pub by_lines: Option<String>,
}

/// One file's section of a diff, borrowing its hunks' lines from the diff's text.
#[derive(Clone, Debug, Default)]
pub struct DiffFile<'a> {
    pub at_line: usize,
    /// Paths after stripping; `None` for `/dev/null`.
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub created: bool,
    pub deleted: bool,
    pub renamed: bool,
    pub copied: bool,
    /// The modes of `old mode` / `new mode` lines, as written. The old mode is also read
    /// from `deleted file mode` and from an `index` line's mode; `old_mode_line` says which.
    pub old_mode: Option<String>,
    pub old_mode_line: &'static str,
    pub mode_change: Option<String>,
    /// The mode of a `new file mode` line, as written.
    pub new_file_mode: Option<String>,
    /// Whether the section opened with a `diff --git` line (which names its files, and may
    /// create or delete a file without any hunk).
    pub git_header: bool,
    /// The first line after a hunk that is no part of it (a 1-based input line, and its
    /// text): junk that ends the section, as git reads it.
    pub junk_after_hunk: Option<(usize, String)>,
    pub hunks: Vec<Hunk<'a>>,
    /// The subject of the mail it came in, when it came in one.
    pub subject: Option<String>,
    /// A plain section's `---` and `+++` names as written (see `plain`).
    pub plain: Option<Box<(names::HeaderName, names::HeaderName)>>,
    /// A plain section's name as written, when git's default `-p1` stripped it.
    pub unstripped: Option<String>,
    /// How the section was read where a rule of git's or a tolerance chose (a guessed `-p0`,
    /// a name cut at a tab): notes on its file patch.
    pub notes: Vec<String>,
}
