//! Reading a unified diff or git patch into [`DiffFile`] sections: headers, quoted paths,
//! hunks counted exactly as their headers announce, mail headers and junk between files.

use super::hunk_read::{self, read_hunk, trim_eol};
use super::names::{header_name, split_git_names, strip_path, strip_problem, unquote, HeaderName};
use super::plain::{name_plain_sections, StripGuess};
use super::{parts, DiffFile, Hunk};
use crate::error::InputProblem;
use crate::formats::Met;

/// Parses a diff. `first_line` is the input line the text starts at (for diffs inside another
/// input), `strip` the number of leading path components to remove (`-p N`; `None` for git's
/// default: 1, or 0 for a plain diff whose names have no `/`, see `plain::StripGuess`).
pub fn parse<'a>(
    text: &'a str,
    first_line: usize,
    strip: Option<usize>,
    problems: &mut Vec<InputProblem>,
) -> Vec<DiffFile<'a>> {
    parse_reading_ahead(text, first_line, strip, problems, None)
}

/// [`parse`], handing `ahead` the file each section changes as soon as its headers are read
/// (at its first hunk), so that the files are read while the rest of the diff is parsed.
///
/// A large diff is cut at its `diff --git` lines and its parts read on every core (see
/// `formats/unified/parts.rs`); the sections and problems are those of one pass.
pub fn parse_reading_ahead<'a>(
    text: &'a str,
    first_line: usize,
    strip: Option<usize>,
    problems: &mut Vec<InputProblem>,
    ahead: Option<Met<'_>>,
) -> Vec<DiffFile<'a>> {
    let parts = match text.len() >= parts::WORTH_CUTTING {
        true => crate::parallel::cores(),
        false => 1,
    };
    parse_in_parts(text, first_line, strip, problems, ahead, parts)
}

/// [`parse_reading_ahead`] in at most `parts` parts, whatever the diff's size.
pub(super) fn parse_in_parts<'a>(
    text: &'a str,
    first_line: usize,
    strip: Option<usize>,
    problems: &mut Vec<InputProblem>,
    ahead: Option<Met<'_>>,
    parts: usize,
) -> Vec<DiffFile<'a>> {
    let scanned = crate::parallel::map_into(parts::cut(text, parts), |part| {
        let mut raw = split_lines(part.text);
        let own = raw.len();
        if !part.next_line.is_empty() {
            raw.push(part.next_line);
        }
        let mut found = Vec::new();
        let files = scan(
            &raw[..],
            own,
            first_line + part.first_line,
            strip,
            &mut found,
            ahead,
        );
        (files, found)
    });
    let mut files: Vec<DiffFile<'a>> = Vec::new();
    for (part_files, part_problems) in scanned {
        files.extend(part_files);
        problems.extend(part_problems);
    }
    name_plain_sections(&mut files, strip, problems);
    check_sections(&files, first_line, problems);
    files
}

/// Reads the sections of the first `own` lines of `raw` (a line after them, when there is one,
/// is only looked at, as the start of the next part), `first_line` being the input line of
/// `raw[0]`.
fn scan<'a>(
    raw: &[&'a str],
    own: usize,
    first_line: usize,
    strip: Option<usize>,
    problems: &mut Vec<InputProblem>,
    ahead: Option<Met<'_>>,
) -> Vec<DiffFile<'a>> {
    let mut scanner = Scanner {
        raw,
        first_line,
        strip,
        problems: Problems {
            list: problems,
            first_line,
        },
        ahead,
        files: Vec::new(),
        subject: None,
        current: None,
        guess: StripGuess::new(strip),
    };
    let mut i = 0;
    while i < own {
        i = scanner.line(i);
    }
    if let Some(done) = scanner.current.take() {
        scanner.files.push(done);
    }
    scanner.files
}

/// Where the problems of a part go: each at its index in the part's lines, made the input
/// line by `first_line` (the input line of the part's first line).
struct Problems<'p> {
    list: &'p mut Vec<InputProblem>,
    first_line: usize,
}

impl Problems<'_> {
    /// A problem of the part's line at index `line`.
    fn at(&mut self, line: usize, message: String) {
        self.list.push(at_line(line + self.first_line, message))
    }
}

/// Reading the sections of a part of a diff, one line (or a header pair, or a hunk) at a
/// time: the sections read, the one being read, and the subject of the mail they are in.
struct Scanner<'a, 'r> {
    raw: &'r [&'a str],
    /// The input line of `raw[0]`.
    first_line: usize,
    /// `-p N`, when given.
    strip: Option<usize>,
    problems: Problems<'r>,
    ahead: Option<Met<'r>>,
    files: Vec<DiffFile<'a>>,
    subject: Option<String>,
    /// The file section being read (its `---`/`+++` headers seen when it has them).
    current: Option<DiffFile<'a>>,
    /// The strip of this part's plain sections so far, to name a file for reading ahead (the
    /// names are settled once every part is read, see [`name_plain_sections`]).
    guess: StripGuess,
}

impl<'a> Scanner<'a, '_> {
    /// Reads what starts at the line at index `i`; the index of the line after it.
    fn line(&mut self, i: usize) -> usize {
        let line = trim_eol(self.raw[i]);
        if let Some(rest) = line.strip_prefix("Subject: ") {
            self.subject = Some(clean_subject(rest));
            return i + 1;
        }
        if line.starts_with("From ") && line.len() > 45 && self.current.is_none() {
            self.subject = None;
        }
        if line.starts_with("diff --cc ") || line.starts_with("diff --combined ") {
            self.problems.at(
                i,
                "a combined diff of a merge commit (as `git show MERGE` prints it), which git apply refuses too: export the merge against one parent (`git show --first-parent MERGE` or `git diff PARENT MERGE`)".into(),
            );
            return i + 1;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            self.git_section(i, rest);
            return i + 1;
        }
        if line.starts_with("--- ")
            && i + 1 < self.raw.len()
            && trim_eol(self.raw[i + 1]).starts_with("+++ ")
        {
            self.names(i, line);
            return i + 2;
        }
        if self.current.is_some() {
            return self.in_section(i, line);
        }
        if super::is_hunk_header(line) {
            self.problems.at(
                i,
                "hunk without a file header: expected \"--- a/PATH\" and \"+++ b/PATH\" (or \"diff --git\") before it".into(),
            );
        }
        // Anything else is junk between files (commit messages, diffstats, signatures).
        i + 1
    }

    /// Ends the section being read, if any, and starts `file`.
    fn start(&mut self, file: DiffFile<'a>) {
        if let Some(done) = self.current.replace(file) {
            self.files.push(done);
        }
    }

    /// Starts the section a `diff --git` line at index `i` opens (`rest`: its two names).
    fn git_section(&mut self, i: usize, rest: &str) {
        let (old, new) = split_git_names(rest);
        let strip = self.strip.unwrap_or(1);
        let mut stripped = |name: Option<String>| {
            let name = name?;
            let path = strip_path(&name, strip);
            if path.is_none() {
                self.problems.at(i, strip_problem(&name, strip));
            }
            path
        };
        let (old_path, new_path) = (stripped(old), stripped(new));
        self.start(DiffFile {
            at_line: i + self.first_line,
            old_path,
            new_path,
            git_header: true,
            subject: self.subject.clone(),
            ..DiffFile::default()
        });
    }

    /// Reads the `---`/`+++` pair at index `i` (`line`: the `---` one): the names of the
    /// section a `diff --git` line opened, checked against the names it gave, or a new
    /// section of a plain diff, named for now as far as this part knows the strip.
    fn names(&mut self, i: usize, line: &str) {
        let old = header_name(&line[4..]);
        let new = header_name(&trim_eol(self.raw[i + 1])[4..]);
        let in_git_section = self
            .current
            .as_ref()
            .is_some_and(|f| f.git_header && f.hunks.is_empty());
        if !in_git_section {
            let mut file = DiffFile {
                at_line: i + self.first_line,
                subject: self.subject.clone(),
                ..DiffFile::default()
            };
            let _ = self.guess.name(&mut file, &old, &new);
            file.plain = Some(Box::new((old, new)));
            self.start(file);
            return;
        }
        let strip = self.strip.unwrap_or(1);
        let file = self.current.as_mut().expect("a section was started");
        let stripped = |n: &HeaderName| n.name.as_deref().map(|p| strip_path(p, strip));
        let (old_path, new_path) = (stripped(&old), stripped(&new));
        // A name -p cannot strip is said on the `diff --git` line already.
        if let (Some(None), _) | (_, Some(None)) = (&old_path, &new_path) {
            return;
        }
        let (old, new) = (old_path.flatten(), new_path.flatten());
        if let Some((side, message)) = inconsistent_names(file, old.clone(), new.clone()) {
            self.problems.at(i + side, message);
        }
        match old {
            None => file.created = true,
            Some(p) if !file.renamed && !file.copied => file.old_path = Some(p),
            Some(_) => {}
        }
        match new {
            None => file.deleted = true,
            Some(p) if !file.renamed && !file.copied => file.new_path = Some(p),
            Some(_) => {}
        }
        if file.created {
            file.old_path = None;
        }
        if file.deleted {
            file.new_path = None;
        }
    }

    /// Reads the line at index `i` inside the section being read: a git extended header
    /// (before its first hunk), a hunk, or junk (which ends the section for any later hunk);
    /// the index of the line after what it read.
    fn in_section(&mut self, i: usize, line: &str) -> usize {
        let file = self.current.as_mut().expect("a section is being read");
        if file.hunks.is_empty() {
            if let Some(header) = git_header(line, self.strip.unwrap_or(1)) {
                let problem =
                    header.and_then(|header| apply_git_header(file, header).map_or(Ok(()), Err));
                if let Err(message) = problem {
                    self.problems.at(i, message);
                }
                return i + 1;
            }
        }
        if super::is_hunk_header(line) {
            return self.hunk(i);
        }
        if file.hunks.is_empty() && (line.starts_with("--- ") || line.starts_with("+++ ")) {
            let (this, other) = match line.starts_with("---") {
                true => ("---", "+++"),
                false => ("+++", "---"),
            };
            self.problems.at(
                i,
                format!("a `{this}` line without its `{other}` line: a section names its old file on a `---` line and its new file on the `+++` line right after it; git apply refuses this too"),
            );
            return i + 1;
        }
        if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
            self.problems.at(
                i,
                "binary patch: patchdeck reviews text only; apply binary changes with git".into(),
            );
        }
        if !file.hunks.is_empty() && file.junk_after_hunk.is_none() {
            file.junk_after_hunk = Some((i + self.first_line, line.to_owned()));
        }
        i + 1
    }

    /// Reads the hunk whose header is at index `i` into the section being read, handing its
    /// file to `ahead` at the section's first hunk; the index of the line after the hunk. A
    /// hunk after junk, or one that cannot be read, is a problem, and only its header is read.
    fn hunk(&mut self, i: usize) -> usize {
        let file = self.current.as_mut().expect("a section is being read");
        if let Some((junk_line, junk)) = &file.junk_after_hunk {
            self.problems.at(
                i,
                format!(
                    "hunk after junk: line {junk_line} (\"{}\") is no part of the hunk before it (a hunk's lines start with ' ', '-', '+' or '\\' and are as many as its header counts), so this hunk has no file header; git apply refuses this too: fix the hunk's counts or remove the line",
                    junk.escape_debug()
                ),
            );
            return i + 1;
        }
        if let (Some(ahead), true, false, Some(old)) = (
            self.ahead,
            file.hunks.is_empty(),
            file.created,
            file.old_path.as_deref(),
        ) {
            ahead(old);
        }
        match read_hunk(self.raw, i, self.first_line) {
            Ok((hunk, next)) => {
                file.hunks.push(hunk);
                next
            }
            Err(message) => {
                self.problems.at(i, message);
                i + 1
            }
        }
    }
}

/// Applies a git extended header line to the section it is in (before the section's first
/// hunk); the problem it is, for a binary patch.
fn apply_git_header(file: &mut DiffFile, header: GitHeader) -> Option<String> {
    match header {
        GitHeader::CopyFrom(_) | GitHeader::RenameFrom(_) if file.created => {
            return Some(inconsistent_creation(file));
        }
        GitHeader::NewFile(_) if file.renamed || file.copied => {
            return Some(inconsistent_creation(file));
        }
        GitHeader::NewFile(mode) => {
            file.new_file_mode = Some(mode);
            file.created = true;
            file.old_path = None;
        }
        GitHeader::DeletedFile(mode) => {
            file.deleted = true;
            file.new_path = None;
            file.old_mode = Some(mode);
            file.old_mode_line = "deleted file mode";
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
        GitHeader::OldMode(m) => {
            file.old_mode = Some(m);
            file.old_mode_line = "old mode";
        }
        // `index A..B MODE`: the mode the file has, and keeps.
        GitHeader::Index(Some(m)) if file.old_mode.is_none() => {
            file.old_mode = Some(m);
            file.old_mode_line = "index …";
        }
        GitHeader::Binary => {
            return Some(format!(
                "binary patch for {}: patchdeck reviews text only; apply binary changes with git",
                file.new_path
                    .as_deref()
                    .or(file.old_path.as_deref())
                    .unwrap_or("a file")
            ));
        }
        GitHeader::Index(_) | GitHeader::Other => {}
    }
    None
}

/// The problem of a section that says both that it creates its file from nothing and that it
/// makes it from another (a rename or copy), as git apply refuses it.
fn inconsistent_creation(file: &DiffFile) -> String {
    format!(
        "inconsistent header: the section says both `new file mode` (a file made from nothing) and `{} from` (a file made from another){}; git apply refuses this too: keep the one that is true",
        if file.renamed { "rename" } else { "copy" },
        file.new_path.as_deref().map(|p| format!(" for {p}")).unwrap_or_default()
    )
}

/// The problems of whole sections, once every part is read: a section that names no file,
/// one without a hunk that does not say what it does, a diff without any section.
fn check_sections(files: &[DiffFile], first_line: usize, problems: &mut Vec<InputProblem>) {
    let problem = |problems: &mut Vec<InputProblem>, line: usize, message: String| {
        problems.push(at_line(line + first_line, message))
    };
    let hunk_problems = !problems.is_empty();
    for file in files {
        let said = |problems: &Vec<InputProblem>| {
            let here = format!("line {}", file.at_line);
            problems.iter().any(|p| p.location == here)
        };
        if file.old_path.is_none() && file.new_path.is_none() && !said(problems) {
            problem(
                problems,
                file.at_line - first_line,
                "cannot tell which file this section changes: expected \"--- a/PATH\" and \"+++ b/PATH\"".into(),
            );
        }
        // Without a `diff --git` line, a section says what it does only through its hunks: a
        // creation or deletion without one is refused, as git apply and GNU patch refuse it.
        let says_enough = file.git_header
            && (file.created
                || file.deleted
                || file.renamed
                || file.copied
                || file.mode_change.is_some());
        if !hunk_problems && file.hunks.is_empty() && !says_enough {
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
    for file in files {
        for hunk in &file.hunks {
            if let Some(message) = contradiction(file, hunk) {
                problems.push(at_line(hunk.at_line, message));
            }
        }
    }
    if files.is_empty() {
        problems.push(at_line(
            first_line,
            "no file in this diff: expected \"diff --git\" or \"---\"/\"+++\" headers followed by \"@@\" hunks".into(),
        ));
    }
}

/// What is wrong with a hunk of a section that creates its file and yet has old lines (it
/// depends on a file that is not there), or deletes it and yet keeps or adds lines, as git
/// apply refuses both; and with a new file's hunk whose counts are not its lines (a new file
/// cut short has nothing to be found by).
fn contradiction(file: &DiffFile, hunk: &Hunk) -> Option<String> {
    let name = file
        .new_path
        .as_deref()
        .or(file.old_path.as_deref())
        .unwrap_or("the file");
    // What said the file is absent on that side: a plain section's name there is not
    // `/dev/null` when its timestamp or marker said it.
    let how = |created: bool| {
        let side = file
            .plain
            .as_deref()
            .map(|(old, new)| if created { old } else { new });
        match (side, file.git_header, created) {
            (Some(side), _, _) if side.name.is_some() => {
                "its timestamp or marker says the file does not exist on that side"
            }
            (_, true, true) => "`new file mode` or `/dev/null`",
            (_, true, false) => "`deleted file mode` or `/dev/null`",
            _ => "`/dev/null`",
        }
    };
    if file.created && !hunk.old.is_empty() {
        return Some(format!(
            "the section creates {name} ({}), but hunk {} has old lines (context or removed): a new file cannot depend on old contents; git apply refuses this too",
            how(true),
            hunk.header
        ));
    }
    if file.deleted && !hunk.new.is_empty() {
        return Some(format!(
            "the section deletes {name} ({}), but hunk {} keeps or adds lines: a deleted file cannot still have contents; git apply refuses this too",
            how(false),
            hunk.header
        ));
    }
    if file.created && hunk.by_lines.is_some() && hunk_read::numbered(hunk.header) {
        return Some(format!(
            "hunk {} of new file {name} {}: a new file cut short would be written short; fix the counts",
            hunk.header,
            hunk.by_lines.as_deref().unwrap_or("")
        ));
    }
    None
}

/// A problem of the input line `line`.
fn at_line(line: usize, message: String) -> InputProblem {
    InputProblem {
        location: format!("line {line}"),
        message,
    }
}

/// What is wrong when the `---`/`+++` names of a `diff --git` section (stripped as its own
/// names are) are not the files its header names, as git apply checks them: the section names
/// its files once, and a different name there is no rename (that says `rename from`/`to`).
/// The line it is on (0 for `---`, 1 for `+++`) and the message.
fn inconsistent_names(
    file: &DiffFile,
    old: Option<String>,
    new: Option<String>,
) -> Option<(usize, String)> {
    let side = |which: &str, named: &Option<String>, header: &Option<String>, none: bool| {
        match (named, header) {
            (Some(named), Some(header)) if named != header => Some(format!(
                "inconsistent {which} filename: the `diff --git` section names \"{}\", this line \"{}\"; expected the same name (a rename says `rename from` and `rename to`)",
                header.escape_debug(),
                named.escape_debug()
            )),
            (Some(named), None) if none => Some(format!(
                "expected /dev/null as the {which} name of a file the section {}, found \"{}\"",
                if which == "old" { "creates" } else { "deletes" },
                named.escape_debug()
            )),
            _ => None,
        }
    };
    side("old", &old, &file.old_path, file.created)
        .map(|message| (0, message))
        .or_else(|| side("new", &new, &file.new_path, file.deleted).map(|message| (1, message)))
}

/// The lines of `text`, each with its `\n` (the last one without, when the text does not end
/// with one), in a vector sized once.
fn split_lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
    let mut start = 0;
    crate::newlines::each(bytes, |end| {
        lines.push(&text[start..=end]);
        start = end + 1;
    });
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
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
    NewFile(String),
    DeletedFile(String),
    RenameFrom(String),
    RenameTo(String),
    CopyFrom(String),
    CopyTo(String),
    NewMode(String),
    OldMode(String),
    Binary,
    /// `index A..B [MODE]`, with its mode when it has one.
    Index(Option<String>),
    Other,
}

/// A git extended header line. The names of `rename from/to` and `copy from/to` have no `a/`
/// or `b/` prefix, so `-p N` strips one component less from them, as git does.
/// `None` when the line is no extended header; an error for a name `-p` cannot strip.
fn git_header(line: &str, strip: usize) -> Option<Result<GitHeader, String>> {
    let name = |rest: &str| {
        let name = unquote(rest).unwrap_or_else(|| rest.to_owned());
        let strip = strip.saturating_sub(1);
        strip_path(&name, strip).ok_or_else(|| strip_problem(&name, strip))
    };
    Some(Ok(
        if let Some(mode) = line.strip_prefix("new file mode ") {
            GitHeader::NewFile(mode.trim().to_owned())
        } else if let Some(mode) = line.strip_prefix("deleted file mode ") {
            GitHeader::DeletedFile(mode.trim().to_owned())
        } else if let Some(rest) = line.strip_prefix("rename from ") {
            match name(rest) {
                Ok(name) => GitHeader::RenameFrom(name),
                Err(why) => return Some(Err(why)),
            }
        } else if let Some(rest) = line.strip_prefix("rename to ") {
            match name(rest) {
                Ok(name) => GitHeader::RenameTo(name),
                Err(why) => return Some(Err(why)),
            }
        } else if let Some(rest) = line.strip_prefix("copy from ") {
            match name(rest) {
                Ok(name) => GitHeader::CopyFrom(name),
                Err(why) => return Some(Err(why)),
            }
        } else if let Some(rest) = line.strip_prefix("copy to ") {
            match name(rest) {
                Ok(name) => GitHeader::CopyTo(name),
                Err(why) => return Some(Err(why)),
            }
        } else if let Some(rest) = line.strip_prefix("new mode ") {
            GitHeader::NewMode(rest.trim().to_owned())
        } else if let Some(rest) = line.strip_prefix("old mode ") {
            GitHeader::OldMode(rest.trim().to_owned())
        } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
            GitHeader::Binary
        } else if let Some(rest) = line.strip_prefix("index ") {
            GitHeader::Index(rest.split_whitespace().nth(1).map(str::to_owned))
        } else if line.starts_with("similarity index ") || line.starts_with("dissimilarity index ")
        {
            GitHeader::Other
        } else {
            return None;
        },
    ))
}
