//! Unified diffs and git patches: parsing them, and placing each hunk in the file as
//! `git apply` does.
//!
//! Reads `diff --git` sections and plain `---`/`+++` diffs, several files, new and deleted
//! files, renames and copies, quoted paths with C escapes, paths with spaces (git ends them
//! with a tab), `\ No newline at end of file`, CRLF content, junk between files, and
//! `git format-patch` mails (several in one mbox; the subject describes the files, the `-- `
//! signature is ignored). `-p N` strips path components (1 by default, as `git apply`).
//!
//! Each hunk becomes one change covering its context and removed lines, described by its
//! header's function context. Placing it follows `git apply`: lines are compared with their
//! endings; a hunk starting at line 1 must match at the top and a hunk without trailing
//! context at the end of the file; it applies at its stated line, else at the one other place
//! its lines occur exactly (an offset, reported as a note). Unlike `git apply`, which takes
//! the nearest of several places, several places are a conflict. Binary patches are refused.

use super::build::{delete_all, read_doc, Builder, ChangeSpec, Loaded, OnDisk};
use crate::error::InputProblem;
use crate::lines::{Eol, Lines};
use crate::model::{FileAction, LineRange, LoadProblem, MatchTier};
use crate::workspace::Workspace;

pub const NAME: &str = "unified";

/// Whether text looks like a unified diff or a git patch.
pub fn detect(text: &str) -> bool {
    let mut previous_minus = false;
    for line in text.lines() {
        if line.starts_with("diff --git ") {
            return true;
        }
        if previous_minus && line.starts_with("+++ ") {
            return true;
        }
        previous_minus = line.starts_with("--- ");
    }
    false
}

/// One line of a hunk: its text without ending, and its ending in the patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HunkLine {
    pub text: String,
    pub eol: Eol,
}

#[derive(Clone, Debug)]
pub struct Hunk {
    /// 1-based line of the hunk header in the input.
    pub at_line: usize,
    pub header: String,
    pub section: String,
    pub old_start: usize,
    pub old_count: usize,
    pub new_start: usize,
    pub new_count: usize,
    pub old: Vec<HunkLine>,
    pub new: Vec<HunkLine>,
    pub leading_context: usize,
    pub trailing_context: usize,
}

/// One file's section of a diff.
#[derive(Clone, Debug, Default)]
pub struct DiffFile {
    pub at_line: usize,
    /// Paths after stripping; `None` for `/dev/null`.
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub created: bool,
    pub deleted: bool,
    pub renamed: bool,
    pub copied: bool,
    pub mode_change: Option<String>,
    pub hunks: Vec<Hunk>,
    /// The subject of the mail it came in, when it came in one.
    pub subject: Option<String>,
}

/// Parses a diff. `first_line` is the input line the text starts at (for diffs inside another
/// input), `strip` the number of leading path components to remove.
pub fn parse(
    text: &str,
    first_line: usize,
    strip: usize,
    problems: &mut Vec<InputProblem>,
) -> Vec<DiffFile> {
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let mut files: Vec<DiffFile> = Vec::new();
    let mut subject: Option<String> = None;
    let mut i = 0;
    let problem = |problems: &mut Vec<InputProblem>, line: usize, message: String| {
        problems.push(InputProblem {
            location: format!("line {}", line + first_line),
            message,
        });
    };
    // The file section being read, and whether its ---/+++ headers were seen.
    let mut current: Option<DiffFile> = None;
    while i < raw.len() {
        let line = trim_eol(raw[i]);
        let number = i + 1;
        if let Some(rest) = line.strip_prefix("Subject: ") {
            subject = Some(clean_subject(rest));
            i += 1;
            continue;
        }
        if line.starts_with("From ") && line.len() > 45 && current.is_none() {
            subject = None;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            if let Some(done) = current.take() {
                files.push(done);
            }
            let (old, new) = split_git_names(rest);
            current = Some(DiffFile {
                at_line: number + first_line - 1,
                old_path: old.map(|p| strip_path(&p, strip)),
                new_path: new.map(|p| strip_path(&p, strip)),
                subject: subject.clone(),
                ..DiffFile::default()
            });
            i += 1;
            continue;
        }
        if line.starts_with("--- ") && i + 1 < raw.len() && trim_eol(raw[i + 1]).starts_with("+++ ")
        {
            let old = header_name(&line[4..]);
            let new = header_name(&trim_eol(raw[i + 1])[4..]);
            let in_git_section = current.as_ref().is_some_and(|f| f.hunks.is_empty());
            if !in_git_section {
                if let Some(done) = current.take() {
                    files.push(done);
                }
                current = Some(DiffFile {
                    at_line: number + first_line - 1,
                    subject: subject.clone(),
                    ..DiffFile::default()
                });
            }
            let file = current.as_mut().expect("a section was started");
            match old {
                None => file.created = true,
                Some(p) if !file.renamed && !file.copied => {
                    file.old_path = Some(strip_path(&p, strip))
                }
                Some(_) => {}
            }
            match new {
                None => file.deleted = true,
                Some(p) if !file.renamed && !file.copied => {
                    file.new_path = Some(strip_path(&p, strip))
                }
                Some(_) => {}
            }
            if file.created {
                file.old_path = None;
            }
            if file.deleted {
                file.new_path = None;
            }
            i += 2;
            continue;
        }
        if let Some(file) = current.as_mut() {
            if file.hunks.is_empty() {
                if let Some(header) = git_header(line) {
                    match header {
                        GitHeader::NewFile => {
                            file.created = true;
                            file.old_path = None;
                        }
                        GitHeader::DeletedFile => {
                            file.deleted = true;
                            file.new_path = None;
                        }
                        GitHeader::RenameFrom(p) => {
                            file.renamed = true;
                            file.old_path = Some(p);
                        }
                        GitHeader::RenameTo(p) => {
                            file.renamed = true;
                            file.new_path = Some(p);
                        }
                        GitHeader::CopyFrom(p) => {
                            file.copied = true;
                            file.old_path = Some(p);
                        }
                        GitHeader::CopyTo(p) => {
                            file.copied = true;
                            file.new_path = Some(p);
                        }
                        GitHeader::NewMode(m) => file.mode_change = Some(m),
                        GitHeader::Binary => {
                            problem(
                                problems,
                                i,
                                format!(
                                    "binary patch for {}: patchdeck reviews text only; apply binary changes with git",
                                    file.new_path.as_deref().or(file.old_path.as_deref()).unwrap_or("a file")
                                ),
                            );
                        }
                        GitHeader::Other => {}
                    }
                    i += 1;
                    continue;
                }
            }
            if line.starts_with("@@ ") {
                match read_hunk(&raw, i, first_line) {
                    Ok((hunk, next)) => {
                        file.hunks.push(hunk);
                        i = next;
                    }
                    Err(message) => {
                        problem(problems, i, message);
                        i += 1;
                    }
                }
                continue;
            }
            if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
                problem(
                    problems,
                    i,
                    "binary patch: patchdeck reviews text only; apply binary changes with git"
                        .into(),
                );
            }
        } else if line.starts_with("@@ ") {
            problem(
                problems,
                i,
                "hunk without a file header: expected \"--- a/PATH\" and \"+++ b/PATH\" (or \"diff --git\") before it".into(),
            );
        }
        // Anything else is junk between files (commit messages, diffstats, signatures).
        i += 1;
    }
    if let Some(done) = current.take() {
        files.push(done);
    }
    let hunk_problems = !problems.is_empty();
    for file in &files {
        if file.old_path.is_none() && file.new_path.is_none() {
            problem(
                problems,
                file.at_line - first_line,
                "cannot tell which file this section changes: expected \"--- a/PATH\" and \"+++ b/PATH\"".into(),
            );
        }
        if !hunk_problems
            && file.hunks.is_empty()
            && !file.created
            && !file.deleted
            && !file.renamed
            && !file.copied
            && file.mode_change.is_none()
        {
            problem(
                problems,
                file.at_line - first_line,
                format!(
                    "no hunk for {}: expected \"@@ -LINE,COUNT +LINE,COUNT @@\" lines",
                    file.new_path
                        .as_deref()
                        .or(file.old_path.as_deref())
                        .unwrap_or("the file")
                ),
            );
        }
    }
    if files.is_empty() {
        problems.push(InputProblem {
            location: format!("line {first_line}"),
            message: "no file in this diff: expected \"diff --git\" or \"---\"/\"+++\" headers followed by \"@@\" hunks".into(),
        });
    }
    files
}

fn trim_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

fn clean_subject(subject: &str) -> String {
    let s = subject.trim();
    match s.strip_prefix('[') {
        Some(rest) if rest.contains(']') && s[..s.find(']').unwrap_or(0)].contains("PATCH") => {
            rest[rest.find(']').unwrap_or(0) + 1..].trim().to_owned()
        }
        _ => s.to_owned(),
    }
}

enum GitHeader {
    NewFile,
    DeletedFile,
    RenameFrom(String),
    RenameTo(String),
    CopyFrom(String),
    CopyTo(String),
    NewMode(String),
    Binary,
    Other,
}

fn git_header(line: &str) -> Option<GitHeader> {
    let name = |rest: &str| unquote(rest).unwrap_or_else(|| rest.to_owned());
    Some(if line.starts_with("new file mode ") {
        GitHeader::NewFile
    } else if line.starts_with("deleted file mode ") {
        GitHeader::DeletedFile
    } else if let Some(rest) = line.strip_prefix("rename from ") {
        GitHeader::RenameFrom(name(rest))
    } else if let Some(rest) = line.strip_prefix("rename to ") {
        GitHeader::RenameTo(name(rest))
    } else if let Some(rest) = line.strip_prefix("copy from ") {
        GitHeader::CopyFrom(name(rest))
    } else if let Some(rest) = line.strip_prefix("copy to ") {
        GitHeader::CopyTo(name(rest))
    } else if let Some(rest) = line.strip_prefix("new mode ") {
        GitHeader::NewMode(rest.trim().to_owned())
    } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
        GitHeader::Binary
    } else if line.starts_with("old mode ")
        || line.starts_with("index ")
        || line.starts_with("similarity index ")
        || line.starts_with("dissimilarity index ")
    {
        GitHeader::Other
    } else {
        return None;
    })
}

/// The name on a `---`/`+++` line: quoted, or up to a tab; `None` for `/dev/null`.
fn header_name(rest: &str) -> Option<String> {
    let name = if rest.starts_with('"') {
        unquote_prefix(rest).map(|(n, _)| n)
    } else {
        None
    }
    .unwrap_or_else(|| {
        rest.split('\t')
            .next()
            .unwrap_or(rest)
            .trim_end()
            .to_owned()
    });
    (name != "/dev/null").then_some(name)
}

/// The two names of a `diff --git` line (before stripping). Unquoted names may hold spaces:
/// the split is where the two names agree after their first component, as git does.
fn split_git_names(rest: &str) -> (Option<String>, Option<String>) {
    if rest.starts_with('"') {
        if let Some((a, after)) = unquote_prefix(rest) {
            let b = after.trim_start();
            let b = unquote(b).unwrap_or_else(|| b.to_owned());
            return (Some(a), Some(b));
        }
    }
    if let Some(pos) = rest.find(" \"") {
        if let Some(b) = unquote(&rest[pos + 1..]) {
            return (Some(rest[..pos].to_owned()), Some(b));
        }
    }
    let tail = |s: &str| s.split_once('/').map(|(_, t)| t.to_owned());
    for (pos, _) in rest.match_indices(' ') {
        let (a, b) = (&rest[..pos], &rest[pos + 1..]);
        if tail(a).is_some() && tail(a) == tail(b) {
            return (Some(a.to_owned()), Some(b.to_owned()));
        }
    }
    (None, None)
}

/// Removes `strip` leading components, as `-p` does.
fn strip_path(path: &str, strip: usize) -> String {
    let mut rest = path;
    for _ in 0..strip {
        match rest.find('/') {
            Some(at) => rest = rest[at + 1..].trim_start_matches('/'),
            None => break,
        }
    }
    rest.to_owned()
}

fn unquote(text: &str) -> Option<String> {
    unquote_prefix(text).map(|(s, _)| s)
}

/// Reads a C-quoted string at the start of `text`: the string and what follows it.
fn unquote_prefix(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut bytes = Vec::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                return Some((
                    String::from_utf8_lossy(&bytes).into_owned(),
                    &body[at + 1..],
                ))
            }
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => bytes.push(b'\n'),
                    't' => bytes.push(b'\t'),
                    'r' => bytes.push(b'\r'),
                    'a' => bytes.push(7),
                    'b' => bytes.push(8),
                    'f' => bytes.push(12),
                    'v' => bytes.push(11),
                    '0'..='7' => {
                        let mut value = e.to_digit(8)?;
                        for _ in 0..2 {
                            let (_, d) = chars.next()?;
                            value = value * 8 + d.to_digit(8)?;
                        }
                        bytes.push(value as u8);
                    }
                    other => {
                        let mut buf = [0; 4];
                        bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            other => {
                let mut buf = [0; 4];
                bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    None
}

/// Parses `@@ -a,b +c,d @@ section` and reads exactly the lines it announces.
fn read_hunk(raw: &[&str], at: usize, first_line: usize) -> Result<(Hunk, usize), String> {
    let header = trim_eol(raw[at]);
    let bad = || {
        format!("malformed hunk header \"{header}\": expected \"@@ -LINE,COUNT +LINE,COUNT @@\"")
    };
    let inner = header.strip_prefix("@@ -").ok_or_else(bad)?;
    let (ranges, section) = inner.split_once(" @@").ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((s, c)) => Some((s.parse().ok()?, c.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old).ok_or_else(bad)?;
    let (new_start, new_count) = range(new).ok_or_else(bad)?;
    let mut hunk = Hunk {
        at_line: at + first_line,
        header: header.to_owned(),
        section: section.trim().to_owned(),
        old_start,
        old_count,
        new_start,
        new_count,
        old: Vec::new(),
        new: Vec::new(),
        leading_context: 0,
        trailing_context: 0,
    };
    let mut i = at + 1;
    let mut seen_change = false;
    let mut last_tag = b' ';
    while hunk.old.len() < old_count
        || hunk.new.len() < new_count
        || i < raw.len() && raw[i].starts_with('\\')
    {
        let Some(line) = raw.get(i) else {
            return Err(format!(
                "hunk {header} ends early: expected {old_count} old and {new_count} new lines, found {} and {} before the end of the input",
                hunk.old.len(),
                hunk.new.len()
            ));
        };
        let (tag, body) = match line.as_bytes().first() {
            Some(b'\n') | Some(b'\r') => (b' ', *line),
            Some(&t) => (t, &line[1..]),
            None => (b' ', ""),
        };
        let eol = if body.ends_with("\r\n") {
            Eol::CrLf
        } else if body.ends_with('\n') {
            Eol::Lf
        } else {
            Eol::None
        };
        let text = body
            .strip_suffix('\n')
            .map(|b| b.strip_suffix('\r').unwrap_or(b))
            .unwrap_or(body)
            .to_owned();
        let entry = HunkLine { text, eol };
        let full = |side: &Vec<HunkLine>, count: usize| side.len() >= count;
        match tag {
            b' ' if !full(&hunk.old, old_count) && !full(&hunk.new, new_count) => {
                hunk.old.push(entry.clone());
                hunk.new.push(entry);
                if seen_change {
                    hunk.trailing_context += 1;
                } else {
                    hunk.leading_context += 1;
                }
            }
            b'-' if !full(&hunk.old, old_count) => {
                hunk.old.push(entry);
                seen_change = true;
                hunk.trailing_context = 0;
            }
            b'+' if !full(&hunk.new, new_count) => {
                hunk.new.push(entry);
                seen_change = true;
                hunk.trailing_context = 0;
            }
            b'\\' => {
                // "\ No newline at end of file": the previous line has no ending.
                if last_tag != b'+' {
                    if let Some(l) = hunk.old.last_mut() {
                        l.eol = Eol::None;
                    }
                }
                if last_tag != b'-' {
                    if let Some(l) = hunk.new.last_mut() {
                        l.eol = Eol::None;
                    }
                }
            }
            _ => {
                return Err(format!(
                    "hunk {header} ends early at line {}: expected {old_count} old and {new_count} new lines, found {} and {} (a line must start with ' ', '-' or '+')",
                    i + first_line,
                    hunk.old.len(),
                    hunk.new.len()
                ))
            }
        }
        if tag != b'\\' {
            last_tag = tag;
        }
        i += 1;
    }
    Ok((hunk, i))
}

/// Turns parsed sections into file patches, placing every hunk in the file it changes.
pub fn build(
    files: Vec<DiffFile>,
    workspace: &Workspace,
    builder: &mut Builder,
    loaded: &mut Loaded,
) {
    for section in files {
        let description = section.subject.clone();
        if loaded.label.is_none() {
            loaded.label = description.clone();
        }
        if let Some(mode) = &section.mode_change {
            loaded.warnings.push(crate::model::InputWarning {
                location: format!("line {}", section.at_line),
                message: format!(
                    "mode change to {mode} for {} is ignored: patchdeck changes contents only",
                    section.new_path.as_deref().unwrap_or("a file")
                ),
            });
        }
        if section.created {
            let Some(path) = section.new_path.clone() else {
                continue;
            };
            let mut file = builder.file(&path, FileAction::Create);
            file.label = description.clone();
            let new: Vec<HunkLine> = section.hunks.iter().flat_map(|h| h.new.clone()).collect();
            file.new_file_eol = new.first().map(|l| l.eol).filter(|e| *e != Eol::None);
            builder.push(
                &mut file,
                ChangeSpec {
                    description: Some(format!("new file {path}")),
                    range: Some(LineRange::after(0)),
                    new_lines: new.iter().map(|l| l.text.clone()).collect(),
                    new_eols: Some(new.iter().map(|l| l.eol).collect()),
                    eof_newline: Some(new.last().is_none_or(|l| l.eol != Eol::None)),
                    ..ChangeSpec::default()
                },
            );
            loaded.files.push(file);
            continue;
        }
        let Some(old_path) = section.old_path.clone() else {
            continue;
        };
        let disk = read_doc(workspace, &old_path);
        if section.deleted {
            let mut file = builder.file(&old_path, FileAction::Delete);
            file.label = description.clone();
            let old: Vec<HunkLine> = section.hunks.iter().flat_map(|h| h.old.clone()).collect();
            let mut spec = ChangeSpec {
                description: Some(format!("delete {old_path}")),
                range: Some(LineRange {
                    start: 1,
                    count: old.len(),
                }),
                expected: Some(old.iter().map(|l| l.text.clone()).collect()),
                ..ChangeSpec::default()
            };
            if let OnDisk::File { bytes, .. } = &disk {
                let lines = Lines::split(bytes);
                let same = lines.len() == old.len()
                    && lines
                        .all()
                        .iter()
                        .zip(&old)
                        .all(|(a, b)| a.text == b.text.as_bytes() && a.eol == b.eol);
                if !same {
                    spec = delete_all(bytes, format!("delete {old_path}"));
                    spec.problems.push(LoadProblem::conflict(
                        "expected_mismatch",
                        format!("{old_path} is not the content the deletion expects (it has {} lines, the patch removes {}); git apply refuses this too", lines.len(), old.len()),
                    ));
                }
            }
            builder.push(&mut file, spec);
            loaded.files.push(file);
            continue;
        }
        let new_path = section.new_path.clone().unwrap_or_else(|| old_path.clone());
        let moves = (section.renamed || section.copied) && new_path != old_path;
        let mut file = builder.file(
            &new_path,
            if moves {
                FileAction::Create
            } else {
                FileAction::Modify
            },
        );
        file.label = description.clone();
        if moves {
            file.copy_from = Some(old_path.clone());
            let how = if section.renamed { "renamed" } else { "copied" };
            file.label = Some(match &description {
                Some(subject) => format!("{subject} ({how} from {old_path})"),
                None => format!("{how} from {old_path}"),
            });
        }
        let bytes = match &disk {
            OnDisk::File { bytes, .. } => Some(bytes.as_slice()),
            _ => None,
        };
        let lines = bytes.map(Lines::split);
        for hunk in &section.hunks {
            builder.push(&mut file, place_hunk(hunk, lines.as_ref()));
        }
        if moves && section.hunks.is_empty() {
            builder.push(
                &mut file,
                ChangeSpec {
                    description: Some(format!(
                        "{} {old_path} as {new_path}",
                        if section.renamed { "rename" } else { "copy" }
                    )),
                    range: Some(LineRange::after(0)),
                    ..ChangeSpec::default()
                },
            );
        }
        loaded.files.push(file);
        if moves && section.renamed {
            let mut old = builder.file(&old_path, FileAction::Delete);
            old.label = Some(format!("renamed to {new_path}"));
            let spec = match bytes {
                Some(bytes) => {
                    delete_all(bytes, format!("remove {old_path} (renamed to {new_path})"))
                }
                None => ChangeSpec {
                    description: Some(format!("remove {old_path} (renamed to {new_path})")),
                    range: Some(LineRange { start: 1, count: 0 }),
                    expected: Some(Vec::new()),
                    ..ChangeSpec::default()
                },
            };
            builder.push(&mut old, spec);
            loaded.files.push(old);
        }
    }
}

/// Places a hunk in the file's lines as `git apply` would (without fuzz).
fn place_hunk(hunk: &Hunk, lines: Option<&Lines<'_>>) -> ChangeSpec {
    let description = if hunk.section.is_empty() {
        hunk.header.clone()
    } else {
        hunk.section.clone()
    };
    let old_texts: Vec<String> = hunk.old.iter().map(|l| l.text.clone()).collect();
    let new_texts: Vec<String> = hunk.new.iter().map(|l| l.text.clone()).collect();
    // Where the hunk says it applies (0-based index of its first old line).
    let stated = if hunk.old_count == 0 {
        hunk.old_start
    } else {
        hunk.old_start.saturating_sub(1)
    };
    let mut spec = ChangeSpec {
        description: Some(description),
        key: None,
        range: Some(LineRange {
            start: stated + 1,
            count: hunk.old.len(),
        }),
        expected: (!hunk.old.is_empty()).then(|| old_texts.clone()),
        new_lines: new_texts,
        new_eols: Some(hunk.new.iter().map(|l| l.eol).collect()),
        ..ChangeSpec::default()
    };
    let Some(lines) = lines else {
        // A missing or unusable file: verify reports it.
        return spec;
    };
    let all = lines.all();
    let matches_at = |at: usize| -> bool {
        at + hunk.old.len() <= all.len()
            && all[at..at + hunk.old.len()]
                .iter()
                .zip(&hunk.old)
                .all(|(f, p)| f.text == p.text.as_bytes() && f.eol == p.eol)
    };
    let match_beginning = hunk.old_start <= 1;
    let match_end = hunk.trailing_context == 0;
    let allowed = |at: usize| -> bool {
        (!match_beginning || at == 0) && (!match_end || at + hunk.old.len() == all.len())
    };
    let at = if matches_at(stated) && allowed(stated) {
        Some(stated)
    } else {
        let places: Vec<usize> = (0..=all.len().saturating_sub(hunk.old.len()))
            .filter(|&at| matches_at(at) && allowed(at))
            .collect();
        match places.as_slice() {
            [one] => Some(*one),
            [] => {
                let why = if match_end && !hunk.old.is_empty() && (0..all.len()).any(matches_at) {
                    "; a hunk without trailing context must match at the end of the file (as git apply requires)"
                } else if match_beginning && (0..all.len()).any(matches_at) {
                    "; a hunk starting at line 1 must match at the top of the file (as git apply requires)"
                } else if hunk.old.iter().any(|l| l.eol == Eol::Lf)
                    && all.iter().any(|l| l.eol == Eol::CrLf)
                    || hunk.old.iter().any(|l| l.eol == Eol::CrLf)
                        && all.iter().any(|l| l.eol == Eol::Lf)
                {
                    "; the line endings differ (LF against CRLF), and git apply compares them too"
                } else {
                    ""
                };
                spec.problems.push(LoadProblem::conflict(
                    "not_found",
                    format!(
                        "hunk {}: its context and removed lines are not at line {} nor anywhere else in the file{why}",
                        hunk.header,
                        stated + 1
                    ),
                ));
                None
            }
            many => {
                let list: Vec<String> = many.iter().map(|a| (a + 1).to_string()).collect();
                spec.problems.push(LoadProblem::conflict(
                    "ambiguous",
                    format!(
                        "hunk {}: not at line {}; its lines occur {} times, at lines {} (git apply would take the nearest; patchdeck does not guess)",
                        hunk.header,
                        stated + 1,
                        many.len(),
                        list.join(", ")
                    ),
                ));
                None
            }
        }
    };
    let Some(at) = at else { return spec };
    spec.range = Some(LineRange {
        start: at + 1,
        count: hunk.old.len(),
    });
    if at != stated {
        spec.tier = MatchTier::Offset;
        let offset = at as i64 - stated as i64;
        spec.problems.push(LoadProblem::note(
            "offset",
            format!(
                "hunk {} applies at line {} instead of line {} (offset {offset:+} lines)",
                hunk.header,
                at + 1,
                stated + 1
            ),
        ));
    }
    if at + hunk.old.len() == all.len() {
        if let Some(last) = hunk.new.last() {
            spec.eof_newline = Some(last.eol != Eol::None);
        }
    }
    spec
}
