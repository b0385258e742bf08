//! Helpers every format uses to build the batch model: IDs, changes, whole-file diffs, reading
//! the file a change is located in. Nothing here knows any format's syntax.

use crate::formats::Input;
use crate::fs::Snapshot;
use crate::lines::{Eol, Lines};
use crate::model::{
    Change, ChangeId, FileAction, FilePatch, FilePatchId, IdDeriver, InputWarning, LineRange,
    LoadProblem, MatchTier, Operation,
};
use crate::problem::ProblemKind;
use crate::text_lines::TextLines;
use similar::group_diff_ops;
use std::sync::OnceLock;

/// Lines of context a whole-file diff keeps around each hunk (as `git diff` does).
pub const CONTEXT: usize = 3;

/// What a format produced: file patches, warnings, and a label when it has one.
#[derive(Default)]
pub struct Loaded {
    pub files: Vec<FilePatch>,
    pub warnings: Vec<InputWarning>,
    pub label: Option<String>,
}

/// Builds file patches and changes with deterministic IDs derived from the input's bytes (for
/// a load that names nothing, from a value drawn once per process: [`IdDeriver::unnamed`]).
pub struct Builder<'a> {
    input: &'a Input,
    /// Seeded from the input's SHA-256 when the first ID is derived (until then, while a diff
    /// is parsed, another core may still be computing it), or unnamed.
    ids: OnceLock<IdDeriver>,
    /// Whether changes get their IDs (else [`IdDeriver::unnamed`]).
    change_ids: bool,
    next_file: usize,
    /// Files pinned to the snapshot their changes were made against (see [`Builder::pin`]),
    /// by their ID and docPath.
    pins: Vec<(FilePatchId, String, Snapshot)>,
}

/// One change before it gets its ID.
#[derive(Clone, Debug, Default)]
pub struct ChangeSpec {
    pub description: Option<String>,
    pub key: Option<String>,
    pub range: Option<LineRange>,
    pub expected: Option<TextLines>,
    pub new_lines: TextLines,
    pub tier: MatchTier,
    pub eof_newline: Option<bool>,
    pub new_eols: Option<Vec<Eol>>,
    pub problems: Vec<LoadProblem>,
}

impl ChangeSpec {
    /// [`ChangeSpec::unplaced`], shown at the first place an ambiguous find occurs, and
    /// recording every place it occurs.
    pub fn near(
        miss: &super::matcher::Miss,
        description: Option<String>,
        mut problem: LoadProblem,
    ) -> ChangeSpec {
        if let super::matcher::Miss::Ambiguous(lines, _) = miss {
            problem.unplaced = Some(lines.clone());
        }
        let mut spec = ChangeSpec::unplaced(description, problem);
        if let super::matcher::Miss::Ambiguous(lines, _) = miss {
            if let Some(first) = lines.first() {
                spec.range = Some(LineRange::after(first - 1));
            }
        }
        spec
    }

    /// The whole lines its find looked for (an Aider block's, a Codex section's), as its
    /// expected lines, when they stand exactly at several places (`miss`): the person may then
    /// place it at one of them, and the commit checks those lines there, as it checks any
    /// change's. (Found only with a tolerance, they do not stand as written anywhere, and a
    /// find of text within lines has no lines of its own: neither is offered a place.)
    pub fn seeking(
        mut self,
        miss: &super::matcher::Miss,
        sought: impl Into<TextLines>,
    ) -> ChangeSpec {
        if let super::matcher::Miss::Ambiguous(places, MatchTier::Exact) = miss {
            let sought: TextLines = sought.into();
            // Shown at the first place, replacing the lines it looked for there.
            if let Some(&first) = places.first() {
                self.range = Some(LineRange {
                    start: first,
                    count: sought.len(),
                });
            }
            self.expected = Some(sought);
        }
        self
    }

    /// The lines it would write, for a change that could not be placed (shown to the reviewer;
    /// never written, since the change has no place).
    pub fn writing(mut self, new_lines: impl Into<TextLines>) -> ChangeSpec {
        self.new_lines = new_lines.into();
        self
    }

    /// A change that could not be placed: it carries its problem, which verify reports, marked
    /// as unplaced (the range is a stand-in).
    pub fn unplaced(description: Option<String>, mut problem: LoadProblem) -> ChangeSpec {
        problem.unplaced.get_or_insert_with(Vec::new);
        ChangeSpec {
            description,
            range: Some(LineRange::after(0)),
            problems: vec![problem],
            ..ChangeSpec::default()
        }
    }
}

impl<'a> Builder<'a> {
    /// A builder for `input`'s batch; `change_ids` says whether its changes get their IDs
    /// (see [`super::LoadOptions::change_ids`]).
    pub fn new(input: &'a Input, change_ids: bool) -> Builder<'a> {
        Builder {
            input,
            ids: OnceLock::new(),
            change_ids,
            next_file: 0,
            pins: Vec::new(),
        }
    }

    /// Pins `file` to the snapshot its changes were made against: the snapshot's SHA-256
    /// becomes the file's `expected_sha256` once the batch is read ([`Builder::hash_pins`]), so
    /// that verify refuses the file if it changes meanwhile. The pinned files are hashed
    /// together, on every core, rather than one after another as a format reads them.
    pub fn pin(&mut self, file: &FilePatch, snapshot: &Snapshot) {
        self.pins
            .push((file.id.clone(), file.doc_path.clone(), snapshot.clone()));
    }

    /// Gives every file pinned with [`Builder::pin`] its `expected_sha256`. A file is found
    /// by its ID and its docPath both: a file patch some block of the input names with an ID
    /// of its own (a TUL-002 block of a chat answer) cannot take another's pin unless it also
    /// names the same file, which the plan refuses anyway (two file patches of one batch
    /// writing one file).
    pub fn hash_pins(&mut self, files: &mut [FilePatch]) {
        let pins = std::mem::take(&mut self.pins);
        if pins.is_empty() {
            return;
        }
        let hashes = crate::parallel::map(&pins, |(_, _, snapshot)| snapshot.sha256().to_owned());
        let by_id: std::collections::HashMap<(&FilePatchId, &str), String> = pins
            .iter()
            .map(|(id, doc_path, _)| (id, doc_path.as_str()))
            .zip(hashes)
            .collect();
        for file in files {
            if let Some(sha256) = by_id.get(&(&file.id, file.doc_path.as_str())) {
                file.expected_sha256 = Some(sha256.clone());
            }
        }
    }

    fn ids(&self) -> &IdDeriver {
        self.ids.get_or_init(|| match self.change_ids {
            true => IdDeriver::seeded(self.input.sha256().to_owned()),
            false => IdDeriver::unnamed(),
        })
    }

    pub fn batch_id(&self) -> crate::model::BatchId {
        self.ids().batch_id()
    }

    /// The SHA-256 of the input, as the IDs were seeded with it.
    pub fn input_sha256(&self) -> &str {
        self.ids().input_sha256()
    }

    /// A new, empty file patch.
    pub fn file(&mut self, doc_path: &str, action: FileAction) -> FilePatch {
        let id = self.ids().file_id(self.next_file, doc_path);
        self.next_file += 1;
        FilePatch {
            id,
            key: None,
            doc_path: doc_path.to_owned(),
            label: None,
            action,
            expected_sha256: None,
            changes: Vec::new(),
            copy_from: None,
            replaces: false,
            new_file_eol: None,
            mode: None,
            load_problems: Vec::new(),
        }
    }

    /// Adds a change to a file patch, deriving its ID from its content and position. A change
    /// found with a tolerant tier gets a note saying so, for the report and the reviewer.
    pub fn push(&self, file: &mut FilePatch, mut spec: ChangeSpec) {
        if !matches!(spec.tier, MatchTier::Exact | MatchTier::Offset) {
            spec.problems.push(LoadProblem::note(
                ProblemKind::TolerantMatch,
                format!(
                    "found only with tolerance \"{}\" ({}); the file's own text is kept for unchanged lines",
                    super::matcher::tier_name(spec.tier),
                    tier_meaning(spec.tier)
                ),
            ));
        }
        let range = spec.range.unwrap_or(LineRange::after(0));
        let operation = if range.count == 0 {
            Operation::Insert
        } else if spec.new_lines.is_empty() {
            Operation::Delete
        } else {
            Operation::Replace
        };
        file.changes.push(Change {
            // Derived with the others, on every core, once the batch is read: see
            // [`Builder::derive_change_ids`].
            id: ChangeId::unnamed(),
            key: spec.key,
            description: spec.description,
            operation,
            range,
            expected: spec.expected,
            new_lines: spec.new_lines,
            match_tier: spec.tier,
            eof_newline: spec.eof_newline,
            new_eols: spec.new_eols,
            load_problems: spec.problems,
        });
    }
}

impl Builder<'_> {
    /// Gives every change [`Builder::push`] added its ID, derived from its file patch's ID, its
    /// place in it and its content (SHA-256 of the fields, each framed by its length). The
    /// hashing reads every line of the batch, so it runs on every core, after the batch is
    /// read; a change's fields and place do not change after it is pushed (a file patch that
    /// takes a later section is emptied and given its changes again). A change that already
    /// has its ID keeps it: a rename or copy that starts from an earlier file patch's changes
    /// derives theirs first, and its copies keep them.
    pub fn derive_change_ids(&self, files: &mut [FilePatch]) {
        if !self.ids().names_changes() {
            return;
        }
        crate::parallel::map_into(files.iter_mut().collect(), |file| {
            let file_id = &file.id;
            for (index, change) in file.changes.iter_mut().enumerate() {
                if change.id.0.is_empty() {
                    change.id = self.change_id(file_id, index, change);
                }
            }
        });
    }

    fn change_id(&self, file: &FilePatchId, index: usize, change: &Change) -> ChangeId {
        self.ids().change_id_with(file, index, |f| {
            f.text(change.operation.as_str())
                .number(change.range.start)
                .number(change.range.count)
                .lines(change.expected.as_ref())
                .lines(Some(&change.new_lines))
                .text(change.description.as_deref().unwrap_or(""))
                .number(usize::from(change.description.is_some()));
        })
    }
}

fn tier_meaning(tier: MatchTier) -> &'static str {
    match tier {
        MatchTier::Eol => "the patch's line endings differ from the file's",
        MatchTier::TrailingWs => "trailing whitespace differs",
        MatchTier::Indent => "indented differently; the new text was re-indented by the same shift",
        MatchTier::BlankEdges => "blank first or last lines of the find were dropped",
        MatchTier::Unicode => "Unicode punctuation was read as ASCII",
        MatchTier::Exact | MatchTier::Offset => "exact",
    }
}

/// The text of a file as lines without endings, and whether it ends with a newline.
pub fn text_lines(bytes: &[u8]) -> (TextLines, bool) {
    let lines = Lines::split(bytes);
    let texts = lines.iter().map(|l| l.text_str()).collect();
    (texts, !lines.missing_final_newline())
}

/// The ending a new file's content uses (its first line ending), for `new_file_eol`.
pub fn content_eol(bytes: &[u8]) -> Option<Eol> {
    let lines = Lines::split(bytes);
    (!lines.is_empty()).then(|| lines.dominant_eol())
}

/// The changes that turn `old` into `new`, one per hunk of their line diff (with
/// [`CONTEXT`] lines of context inside each change, so that verify checks them). Line
/// endings are the file's business: lines are compared by text, and a gained or lost final
/// newline is a change of the last line.
pub fn diff_changes(old: &[u8], new: &[u8]) -> Vec<ChangeSpec> {
    let (old_lines, old_nl) = text_lines(old);
    let (new_lines, new_nl) = text_lines(new);
    let key = |lines: &TextLines, nl: bool| -> Vec<(String, bool)> {
        let n = lines.len();
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| (l.to_owned(), i + 1 == n && !nl))
            .collect()
    };
    let a = key(&old_lines, old_nl);
    let b = key(&new_lines, new_nl);
    let ops = crate::line_diff::diff_ops(&a, &b);
    let mut out = Vec::new();
    for group in group_diff_ops(ops, CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let (mut added, mut removed) = (0, 0);
        for op in &group {
            if op.tag() != similar::DiffTag::Equal {
                added += op.new_range().len();
                removed += op.old_range().len();
            }
        }
        let reaches_end = old_range.end == old_lines.len();
        out.push(ChangeSpec {
            description: Some(describe_hunk(
                old_range.start + 1,
                old_range.len(),
                added,
                removed,
            )),
            range: Some(LineRange {
                start: old_range.start + 1,
                count: old_range.len(),
            }),
            expected: (!old_range.is_empty()).then(|| old_lines.slice(old_range.clone())),
            new_lines: new_lines.slice(new_range),
            eof_newline: (reaches_end && old_nl != new_nl).then_some(new_nl),
            ..ChangeSpec::default()
        });
    }
    out
}

/// `lines 4-12: 3 removed, 5 added` (context included in the range).
fn describe_hunk(start: usize, len: usize, added: usize, removed: usize) -> String {
    let at = match len {
        0 => format!("after line {}", start - 1),
        1 => format!("line {start}"),
        _ => format!("lines {}-{}", start, start + len - 1),
    };
    format!("{at}: {removed} removed, {added} added")
}

/// The change that deletes every line of a file (a file deletion is one change).
pub fn delete_all(bytes: &[u8], description: String) -> ChangeSpec {
    let (lines, _) = text_lines(bytes);
    ChangeSpec {
        description: Some(description),
        range: Some(LineRange {
            start: 1,
            count: lines.len(),
        }),
        expected: Some(lines),
        ..ChangeSpec::default()
    }
}

/// The change that writes every line of a new file.
pub fn create_all(content: &[u8], description: String) -> ChangeSpec {
    let (lines, nl) = text_lines(content);
    ChangeSpec {
        description: Some(description),
        range: Some(LineRange::after(0)),
        new_lines: lines,
        eof_newline: Some(nl),
        ..ChangeSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::Stamp;

    #[test]
    fn a_pin_goes_to_its_own_file_not_to_one_that_shares_its_id() {
        let input = Input::from_bytes("answer.md", "unused");
        let mut builder = Builder::new(&input, false);
        let pinned = builder.file("a.txt", FileAction::Modify);
        let stamp = Stamp {
            size: 6,
            mtime_sec: 0,
            mtime_nsec: 0,
            mode: 0o100644,
            dev: 0,
            ino: 0,
            nlink: 1,
            uid: 0,
            gid: 0,
        };
        builder.pin(&pinned, &Snapshot::new(b"alpha\n".to_vec(), stamp));
        // Another block of the input names its own file patch with the pinned one's ID.
        let mut foreign = builder.file("b.txt", FileAction::Modify);
        foreign.id = pinned.id.clone();
        let mut files = vec![pinned, foreign];
        builder.hash_pins(&mut files);
        assert_eq!(
            files[0].expected_sha256.as_deref(),
            Some(crate::sha256::sha256_hex(b"alpha\n").as_str())
        );
        assert_eq!(files[1].expected_sha256, None, "b.txt took a.txt's pin");
    }
}
