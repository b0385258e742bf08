//! The Codex patch envelope: `*** Begin Patch` ... `*** End Patch` with `*** Add File: P`,
//! `*** Delete File: P` and `*** Update File: P` (optionally `*** Move to: Q`), whose `@@`
//! sections hold ` `/`-`/`+` lines, an optional anchor after `@@`, and `*** End of File`.
//!
//! Each `@@` section is one change. It is searched after its anchor line (and after the
//! previous section), through the shared matcher's tiers including Unicode punctuation.
//! Unlike Codex itself: a match must be unique there (several places are `ambiguous`), an
//! `Add File` over an existing file is a `file_exists` conflict, the file's own line endings
//! and final newline are kept, and nothing is written unless every accepted change applies.
//! A later `Update File` of a file an earlier operation added or updated is placed against the
//! result and joins its file patch.
//!
//! Markers padded with whitespace are read as Codex reads them, each with a note: between
//! operations (where only a header or the end can come), the first `*** Begin Patch`, and a
//! last line `*** End Patch` when no line ends the patch at column 0. Inside an `@@` section a
//! padded `*** ...` line is a context line, as in Codex.

use super::build::{create_all, delete_all, Builder, ChangeSpec, Loaded};
use super::chain::{self, Continuation};
use super::matcher::{find_lines, normalise_unicode, Doc, Miss, CODEX};
use crate::error::InputProblem;
use crate::formats::Files;
use crate::formats::OnDisk;
use crate::model::{FileAction, InputWarning, LineRange, LoadProblem};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;

pub const NAME: &str = "codex";

/// The envelope's first and last lines (at column 0, or padded: see the module's notes).
pub const BEGIN: &str = "*** Begin Patch";
pub const END: &str = "*** End Patch";

/// One `@@` section as written.
struct Section {
    at_line: usize,
    anchor: Option<String>,
    old: Vec<String>,
    new: Vec<String>,
    at_end: bool,
}

impl Section {
    /// An empty section whose `@@` line (or first line, without one) is the 1-based `at_line`.
    fn at(at_line: usize, anchor: Option<String>) -> Section {
        Section {
            at_line,
            anchor,
            old: Vec::new(),
            new: Vec::new(),
            at_end: false,
        }
    }
}

enum Op {
    Add {
        path: String,
        lines: Vec<String>,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        sections: Vec<Section>,
    },
}

pub fn load(
    text: &str,
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
    problems: &mut Vec<InputProblem>,
) {
    let ops = parse(text, problems, &mut loaded.warnings);
    if !problems.is_empty() {
        return;
    }
    let first = loaded.files.len();
    for op in ops {
        match op {
            Op::Add { path, lines, .. } => {
                let mut file = builder.file(&path, FileAction::Create);
                let mut content = lines.join("\n");
                if !lines.is_empty() {
                    content.push('\n');
                }
                builder.push(
                    &mut file,
                    create_all(content.as_bytes(), format!("add {path}")),
                );
                loaded.files.push(file);
            }
            Op::Delete { path } => {
                let mut file = builder.file(&path, FileAction::Delete);
                let spec = match tree.file(&path) {
                    OnDisk::File { bytes, snapshot } => {
                        builder.pin(&file, &snapshot);
                        delete_all(&bytes, format!("delete {path}"))
                    }
                    _ => ChangeSpec {
                        description: Some(format!("delete {path}")),
                        range: Some(LineRange { start: 1, count: 0 }),
                        expected: Some(TextLines::default()),
                        ..ChangeSpec::default()
                    },
                };
                builder.push(&mut file, spec);
                loaded.files.push(file);
            }
            Op::Update {
                path,
                move_to,
                sections,
            } => update(&path, move_to, &sections, tree, builder, loaded, first),
        }
    }
}

fn update(
    path: &str,
    move_to: Option<String>,
    sections: &[Section],
    tree: &dyn Files,
    builder: &mut Builder,
    loaded: &mut Loaded,
    first: usize,
) {
    let target = move_to.clone().unwrap_or_else(|| path.to_owned());
    let moved = target != path;
    if !moved {
        // A later update of a file an earlier operation changes: placed against its result.
        if let Some(k) = chain::continued(&loaded.files[first..], path).map(|k| first + k) {
            let file = &mut loaded.files[k];
            match Continuation::of(tree, file) {
                Ok(continuation) => {
                    let doc = Doc::from_bytes(&continuation.current);
                    let specs = place_sections(path, sections, Some(&doc));
                    continuation.extend(builder, file, specs);
                }
                Err(why) => {
                    let specs = place_sections(path, sections, None);
                    chain::refuse(builder, file, specs, &why);
                }
            }
            return;
        }
    }
    let mut file = builder.file(
        &target,
        if moved {
            FileAction::Create
        } else {
            FileAction::Modify
        },
    );
    if moved {
        file.copy_from = Some(path.to_owned());
        file.label = Some(format!("moved from {path}"));
    }
    let disk = tree.file(path);
    let bytes = match &disk {
        OnDisk::File { bytes, snapshot } => {
            if !moved {
                builder.pin(&file, snapshot);
            }
            Some(bytes.clone())
        }
        _ => None,
    };
    let doc = bytes.as_deref().map(|b| Doc::from_bytes(b));
    for spec in place_sections(path, sections, doc.as_ref()) {
        builder.push(&mut file, spec);
    }
    if sections.is_empty() && moved {
        builder.push(
            &mut file,
            ChangeSpec {
                description: Some(format!("move {path} to {target}")),
                range: Some(LineRange::after(0)),
                ..ChangeSpec::default()
            },
        );
    }
    loaded.files.push(file);
    if moved {
        let mut old = builder.file(path, FileAction::Delete);
        old.label = Some(format!("moved to {target}"));
        let spec = match &bytes {
            Some(bytes) => delete_all(bytes, format!("remove {path} (moved to {target})")),
            None => ChangeSpec {
                description: Some(format!("remove {path}")),
                range: Some(LineRange { start: 1, count: 0 }),
                expected: Some(TextLines::default()),
                ..ChangeSpec::default()
            },
        };
        builder.push(&mut old, spec);
        loaded.files.push(old);
    }
}

/// Places the `@@` sections of an update in the file (`None` when it cannot be read), each
/// after the previous one: one change per section.
fn place_sections(path: &str, sections: &[Section], doc: Option<&Doc>) -> Vec<ChangeSpec> {
    let mut out = Vec::new();
    let mut from = 0;
    for (k, section) in sections.iter().enumerate() {
        let description = Some(match &section.anchor {
            Some(anchor) => format!("@@ {anchor}"),
            None => format!("section {}", k + 1),
        });
        let Some(doc) = doc else {
            out.push(
                ChangeSpec::unplaced(
                    description,
                    LoadProblem::conflict(
                        ProblemKind::NotFound,
                        format!("{path} cannot be read, so there is nothing to update"),
                    ),
                )
                .writing(section.new.clone()),
            );
            continue;
        };
        // Sections come in file order: an anchor or lines that occur only before the previous
        // section are said to be there.
        let before = |found: bool, they: &str| {
            if found && from > 0 {
                format!(
                    " after line {from}, where the previous section ends; {they} only before it (sections must be in file order)"
                )
            } else {
                " in the file".to_owned()
            }
        };
        let mut window_start = from;
        if let Some(anchor) = &section.anchor {
            let wanted = normalise_unicode(anchor.trim());
            let is_anchor = |i: &usize| normalise_unicode(doc.lines[*i].0.trim()) == wanted;
            let hits: Vec<usize> = (from..doc.len()).filter(is_anchor).collect();
            match hits.as_slice() {
                [one] => window_start = one + 1,
                [] => {
                    let earlier = (0..from).any(|i| is_anchor(&i));
                    out.push(
                        ChangeSpec::unplaced(
                            description,
                            LoadProblem::conflict(
                                ProblemKind::NotFound,
                                format!(
                                    "anchor \"{anchor}\" (line {} of the patch) is not{}",
                                    section.at_line,
                                    before(earlier, "it occurs")
                                ),
                            ),
                        )
                        .writing(section.new.clone()),
                    );
                    continue;
                }
                many => {
                    let list: Vec<String> = many.iter().map(|i| (i + 1).to_string()).collect();
                    let mut problem = LoadProblem::conflict(
                        ProblemKind::Ambiguous,
                        format!(
                            "anchor \"{anchor}\" found {} times, at lines {}; it must occur once",
                            many.len(),
                            list.join(", ")
                        ),
                    );
                    problem.unplaced = Some(many.iter().map(|i| i + 1).collect());
                    out.push(
                        ChangeSpec::unplaced(description, problem).writing(section.new.clone()),
                    );
                    continue;
                }
            }
        }
        if section.old.is_empty() {
            // Pure addition: at the end of the file, or right after the anchor.
            let at = if section.anchor.is_some() {
                window_start
            } else {
                doc.len()
            };
            out.push(ChangeSpec {
                description,
                range: Some(LineRange::after(at)),
                new_lines: section.new.iter().collect(),
                ..ChangeSpec::default()
            });
            continue;
        }
        match find_lines(
            doc,
            &section.old,
            &section.new,
            CODEX,
            window_start..doc.len(),
            section.at_end,
        ) {
            Ok(found) => {
                from = found.range.end() - 1;
                out.push(ChangeSpec {
                    description,
                    range: Some(found.range),
                    expected: Some(found.expected),
                    new_lines: found.new_lines,
                    tier: found.tier,
                    ..ChangeSpec::default()
                });
            }
            Err(miss) => {
                let what = format!(
                    "the lines of the section at line {} of the patch",
                    section.at_line
                );
                let (kind, message) = match &miss {
                    Miss::NotFound if section.at_end => (
                        ProblemKind::NotFound,
                        format!("{what} are not at the end of the file (*** End of File)"),
                    ),
                    Miss::NotFound => {
                        let anywhere =
                            find_lines(doc, &section.old, &[], CODEX, 0..doc.len(), false);
                        let earlier = window_start > 0 && !matches!(anywhere, Err(Miss::NotFound));
                        (
                            ProblemKind::NotFound,
                            format!("{what} are not{}", before(earlier, "they occur")),
                        )
                    }
                    _ => miss.describe(&what),
                };
                out.push(
                    ChangeSpec::near(&miss, description, LoadProblem::conflict(kind, message))
                        .seeking(&miss, section.old.clone())
                        .writing(section.new.clone()),
                );
            }
        }
    }
    out
}

/// The operation headers, the only lines that can follow an operation besides the end.
const HEADERS: &[&str] = &["*** Add File: ", "*** Delete File: ", "*** Update File: "];

/// A marker line as read between operations, where only a header or the end can come: its
/// text without surrounding whitespace, which Codex allows there.
fn between_operations(line: &str) -> &str {
    let trimmed = line.trim();
    if trimmed == END || HEADERS.iter().any(|h| trimmed.starts_with(h)) {
        trimmed
    } else {
        line
    }
}

/// The note for a marker read although whitespace surrounds it.
fn padded(line: usize, raw: &str, why: &str) -> InputWarning {
    InputWarning {
        location: format!("line {line}"),
        message: format!(
            "\"{}\" is read as the marker \"{}\" although whitespace surrounds it ({why}; Codex allows the padding)",
            raw.escape_debug(),
            raw.trim()
        ),
    }
}

/// Where the envelope ends: the first `*** End Patch` at column 0, else a last line that is
/// `*** End Patch` padded with whitespace (the only line that can end the patch, which an
/// update's section would otherwise read as context), else nowhere.
fn envelope_end(lines: &[&str], warnings: &mut Vec<InputWarning>) -> Option<usize> {
    if let Some(at) = lines.iter().position(|l| l.trim_end() == END) {
        return Some(at);
    }
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    (lines[last].trim() == END).then(|| {
        warnings.push(padded(
            last + 1,
            lines[last],
            "the patch's last line, and no other line ends it",
        ));
        last
    })
}

/// Reads the operations of the envelope in `text`. Problems go to `problems` (the operations
/// are then not to be loaded), notes for padded markers to `warnings`.
fn parse(
    text: &str,
    problems: &mut Vec<InputProblem>,
    warnings: &mut Vec<InputWarning>,
) -> Vec<Op> {
    let all: Vec<&str> = text.lines().collect();
    let Some(begin) = envelope_begin(&all, problems, warnings) else {
        return Vec::new();
    };
    let end = envelope_end(&all[begin..], warnings).map(|at| begin + at);
    // The lines up to the end (the end itself excluded), so that an update's section stops
    // there whatever the end line looks like.
    let mut parser = Parser {
        lines: &all[..end.unwrap_or(all.len())],
        i: begin + 1,
        problems,
        warnings,
    };
    let ops = parser.operations();
    if end.is_none() {
        parser.problem(
            all.len().max(1),
            "the patch does not end with \"*** End Patch\"".into(),
        );
    }
    if ops.is_empty() {
        parser.problem(begin + 1, "the patch changes no file".into());
    }
    ops
}

/// Where the envelope begins: the first `*** Begin Patch` at column 0, else the first one
/// padded with whitespace (with a note), else nowhere (a problem).
fn envelope_begin(
    all: &[&str],
    problems: &mut Vec<InputProblem>,
    warnings: &mut Vec<InputWarning>,
) -> Option<usize> {
    if let Some(at) = all.iter().position(|l| l.trim_end() == BEGIN) {
        return Some(at);
    }
    match all.iter().position(|l| l.trim() == BEGIN) {
        Some(at) => {
            warnings.push(padded(at + 1, all[at], "the envelope's first marker"));
            Some(at)
        }
        None => {
            problems.push(InputProblem {
                location: "line 1".into(),
                message: "expected \"*** Begin Patch\"".into(),
            });
            None
        }
    }
}

/// Reading the operations of an envelope: its lines up to the end marker, the index of the
/// line being read, and where problems and notes go.
struct Parser<'t, 'p> {
    lines: &'p [&'t str],
    i: usize,
    problems: &'p mut Vec<InputProblem>,
    warnings: &'p mut Vec<InputWarning>,
}

impl<'t> Parser<'t, '_> {
    /// A problem at the 1-based input line `line`.
    fn problem(&mut self, line: usize, message: String) {
        self.problems.push(InputProblem {
            location: format!("line {line}"),
            message,
        })
    }

    /// Reads operations up to the end marker, each from its header line. A line between
    /// operations that is neither a header nor blank is a problem, and is skipped.
    fn operations(&mut self) -> Vec<Op> {
        let mut ops = Vec::new();
        while self.i < self.lines.len() {
            let raw = self.lines[self.i].trim_end_matches('\r');
            let line = between_operations(raw);
            let number = self.i + 1;
            if line != raw.trim_end() {
                self.warnings.push(padded(
                    number,
                    raw,
                    "between operations only a header or the end can come",
                ));
            }
            if line == END {
                break;
            }
            if let Some(path) = line.strip_prefix("*** Add File: ") {
                self.i += 1;
                ops.push(self.add_file(path));
                continue;
            }
            if let Some(path) = line.strip_prefix("*** Delete File: ") {
                ops.push(Op::Delete {
                    path: path.trim().to_owned(),
                });
                self.i += 1;
                continue;
            }
            if let Some(path) = line.strip_prefix("*** Update File: ") {
                self.i += 1;
                ops.push(self.update_file(path.trim().to_owned(), number));
                continue;
            }
            if !line.trim().is_empty() {
                self.problem(number, format!("expected \"*** Add File:\", \"*** Delete File:\", \"*** Update File:\" or \"*** End Patch\", found \"{line}\""));
            }
            self.i += 1;
        }
        ops
    }

    /// Reads the content of an `Add File` (its header read already), up to the next header.
    fn add_file(&mut self, path: &str) -> Op {
        let mut content = Vec::new();
        // Every line of an added file starts with '+': a header, padded or not, ends it.
        while self.i < self.lines.len()
            && between_operations(self.lines[self.i]).get(..4) != Some("*** ")
        {
            let line = self.lines[self.i];
            match line.strip_prefix('+') {
                Some(body) => content.push(body.trim_end_matches('\r').to_owned()),
                None => self.problem(
                    self.i + 1,
                    format!("in Add File {path}: every line must start with '+', found \"{line}\""),
                ),
            }
            self.i += 1;
        }
        Op::Add {
            path: path.trim().to_owned(),
            lines: content,
        }
    }

    /// Reads an `Update File` (its header, at the 1-based line `number`, read already): an
    /// optional `*** Move to:` line, then its `@@` sections.
    fn update_file(&mut self, path: String, number: usize) -> Op {
        let mut move_to = None;
        if let Some(to) = self
            .lines
            .get(self.i)
            .and_then(|l| l.strip_prefix("*** Move to: "))
        {
            move_to = Some(to.trim().to_owned());
            self.i += 1;
        }
        let sections = self.sections(&path);
        if sections.is_empty() && move_to.is_none() {
            self.problem(
                number,
                format!("Update File {path} has no change: expected \"@@\" sections"),
            );
        }
        Op::Update {
            path,
            move_to,
            sections,
        }
    }

    /// Reads the `@@` sections of the update of `path`, up to the next line that starts with
    /// `*** ` at column 0 (other than `*** End of File`, which marks the last section).
    fn sections(&mut self, path: &str) -> Vec<Section> {
        let mut sections: Vec<Section> = Vec::new();
        while self.i < self.lines.len() {
            let l = self.lines[self.i].trim_end_matches('\r');
            if l == "*** End of File" {
                match sections.last_mut() {
                    Some(s) => s.at_end = true,
                    None => {
                        self.problem(self.i + 1, "\"*** End of File\" before any change".into())
                    }
                }
                self.i += 1;
                continue;
            }
            if l.starts_with("*** ") {
                break;
            }
            if let Some(rest) = l.strip_prefix("@@") {
                let anchor = rest.trim();
                sections.push(Section::at(
                    self.i + 1,
                    (!anchor.is_empty()).then(|| anchor.to_owned()),
                ));
                self.i += 1;
                continue;
            }
            if sections.is_empty() {
                sections.push(Section::at(self.i + 1, None));
            }
            let section = sections.last_mut().expect("a section");
            match l.chars().next() {
                Some(' ') => {
                    section.old.push(l[1..].to_owned());
                    section.new.push(l[1..].to_owned());
                }
                None => {
                    section.old.push(String::new());
                    section.new.push(String::new());
                }
                Some('-') => section.old.push(l[1..].to_owned()),
                Some('+') => section.new.push(l[1..].to_owned()),
                Some(_) => self.problem(self.i + 1, format!("in Update File {path}: expected a line starting with ' ', '-', '+' or \"@@\", found \"{l}\"")),
            }
            self.i += 1;
        }
        sections
    }
}
