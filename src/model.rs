//! The one batch model every input format is turned into.
//!
//! A [`Batch`] holds [`FilePatch`]es, each holding [`Change`]s that replace a range of whole
//! lines of the current file with new lines. Verification, review, planning, the commit, the
//! report and the reviewer UI all work on this model only; nothing downstream knows which format
//! a batch came from beyond the [`Batch::format`] label it shows. This module owns the types and
//! the deterministic ID scheme; it does not read files or parse input.

use crate::lines::Eol;
pub use crate::lines::LineRange;
use crate::problem::ProblemKind;
#[cfg(test)]
use crate::sha256::hex;
use crate::sha256::{prefixed_hex, Sha256};
pub use crate::sha256::{sha256_hex, EMPTY_SHA256};
use crate::text_lines::TextLines;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    };
}

id_type!(
    /// Canonical ID of a batch: the input's `batchId`, or derived from the input's bytes.
    BatchId
);
id_type!(
    /// Canonical ID of a file patch: the input's `filePatchId`, or derived from its position.
    FilePatchId
);
id_type!(
    /// Canonical ID of one change: the input's `changeId`, or derived from content and position;
    /// empty ([`ChangeId::unnamed`]) in a batch loaded without change IDs.
    ChangeId
);

impl ChangeId {
    /// The ID of a change loaded without change IDs ([`IdDeriver::unnamed`]): empty,
    /// as every change's is until it is derived.
    pub fn unnamed() -> ChangeId {
        ChangeId(String::new())
    }
}

/// A whole batch of file patches, as loaded from one input.
#[derive(Clone, Debug)]
pub struct Batch {
    pub id: BatchId,
    pub key: Option<String>,
    pub label: Option<String>,
    /// The input format's name (`tul002`, ...), shown to the reviewer and reported.
    pub format: String,
    /// Where the batch was read from (a path, or `-` for standard input).
    pub source: String,
    /// SHA-256 of the input's bytes: the key under which review sessions are saved.
    pub content_sha256: String,
    pub files: Vec<FilePatch>,
    /// Things in the input that were accepted but deserve a look (unknown fields, ...).
    pub warnings: Vec<InputWarning>,
    /// Whether the changes are proposals to write, or undo work that stands on disk already.
    pub stance: Stance,
}

/// What a batch's changes are, and so what a decision about one of them does.
///
/// Every change replaces lines of a file as it is on disk with its new lines; the stance says
/// which decision writes it. A batch read from an input proposes its changes: accepting one
/// writes it. A batch made from the work tree (`--worktree`) is the reverse of the edits that
/// stand in the files since a base (a checkpoint, `HEAD`): each change puts the base's lines
/// back over one edit. A person decides about the edit, not its reversal, so accepting
/// *keeps* the edit (writes nothing), rejecting *undoes* it (writes the change), and an edit
/// writes the edited lines in the edit's place. Nothing undecided is written in either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stance {
    /// Changes to write: an accepted change is written.
    #[default]
    Proposed,
    /// The reversal of edits on disk: a rejected change is written (the edit undone).
    Standing,
}

impl Stance {
    /// Whether a change of this stance is written when it is accepted (`true`) or when it is
    /// rejected (`false`); an edit is always written.
    pub fn writes_accepted(self) -> bool {
        self == Stance::Proposed
    }

    /// Whether a batch's changes are proposals (the stance of every batch read from an input).
    pub fn is_proposed(&self) -> bool {
        *self == Stance::Proposed
    }
}

/// A non-fatal remark about the input, with the JSON path or line it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputWarning {
    pub location: String,
    pub message: String,
}

/// What a file patch does to its file as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    Modify,
    Create,
    Delete,
}

impl FileAction {
    pub fn as_str(self) -> &'static str {
        match self {
            FileAction::Modify => "modify",
            FileAction::Create => "create",
            FileAction::Delete => "delete",
        }
    }
}

/// The changes to one file.
#[derive(Clone, Debug)]
pub struct FilePatch {
    pub id: FilePatchId,
    pub key: Option<String>,
    /// The file's identity as the input names it (AGN-007: lowercase, opaque), relative to the
    /// workspace root.
    pub doc_path: String,
    pub label: Option<String>,
    pub action: FileAction,
    /// Lowercase hex SHA-256 of the file the author planned against, when the format has one.
    pub expected_sha256: Option<String>,
    pub changes: Vec<Change>,
    /// For a file created as a copy of another (the new side of a rename): the docPath whose
    /// content the changes apply to. The new file is that content with the selected changes.
    pub copy_from: Option<String>,
    /// A creation at a path whose file the batch also removes (a swap of two files, a chain
    /// of renames that reuses a name, a deletion and a creation of one path): the file there
    /// is expected, and the creation replaces it, in the same atomic commit. It is never a
    /// `file_exists` conflict; a missing file is a `missing_file` one.
    pub replaces: bool,
    /// The line ending new lines take when the file has none to go by (a creation); `None`
    /// means LF.
    pub new_file_eol: Option<Eol>,
    /// The permissions the written file takes, when the input says (a diff's
    /// `new file mode 100755` or `new mode 100644`); `None` keeps the file's own, or a new
    /// file's default.
    pub mode: Option<FileMode>,
    /// Problems the format found while loading (a file named twice, ...), reported by verify.
    pub load_problems: Vec<LoadProblem>,
}

/// The permissions of a regular file, as git records them: executable or not. patchdeck writes
/// regular files only; git's modes for links and submodules are refused where they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    Regular,
    Executable,
}

impl FileMode {
    /// git's number for it.
    pub fn as_git(self) -> &'static str {
        match self {
            FileMode::Regular => "100644",
            FileMode::Executable => "100755",
        }
    }
}

/// The line-level operation a change performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Insert,
    Replace,
    Delete,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Insert => "insert",
            Operation::Replace => "replace",
            Operation::Delete => "delete",
        }
    }
}

/// How a change found the lines it replaces, when it found them by text. Every tier other than
/// `Exact` is reported to the reviewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MatchTier {
    #[default]
    Exact,
    Eol,
    TrailingWs,
    Indent,
    BlankEdges,
    Unicode,
    /// A unified-diff hunk whose context was found at another line than its header says.
    Offset,
}

/// One change: replace the lines of `range` in the current file with `new_lines`.
#[derive(Clone, Debug)]
pub struct Change {
    pub id: ChangeId,
    pub key: Option<String>,
    pub description: Option<String>,
    pub operation: Operation,
    pub range: LineRange,
    /// The lines the author expects at `range`, without line endings, when the format says.
    pub expected: Option<TextLines>,
    /// The lines to write, without line endings.
    pub new_lines: TextLines,
    /// How the lines were located, for formats that locate them by text.
    pub match_tier: MatchTier,
    /// When this change's new lines end the file: whether the file then ends with a newline.
    /// `None` keeps the file's own choice.
    pub eof_newline: Option<bool>,
    /// The ending of each new line, when the format says (a unified diff's lines carry their
    /// own); `None` writes new lines with the file's ending.
    pub new_eols: Option<Vec<Eol>>,
    /// Problems the format found while locating the change (text not found, found several
    /// times, ...). Verify reports them; a change with a blocking one cannot be applied.
    pub load_problems: Vec<LoadProblem>,
}

/// A problem a format found at load time that belongs to a file or a change rather than to the
/// input's syntax: the reviewer sees it as a conflict (or a note) on that file or change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadProblem {
    /// The report's problem kind: `not_found`, `ambiguous`, ...
    pub kind: ProblemKind,
    pub message: String,
    /// False for notes that do not stop a commit.
    pub blocking: bool,
    /// Set when the format could not place the change at all (its text occurs nowhere, or at
    /// several places): the change's range is then only a stand-in. Holds the first line of
    /// each place the text occurs (empty when it occurs nowhere).
    pub unplaced: Option<Vec<usize>>,
}

impl LoadProblem {
    pub fn conflict(kind: ProblemKind, message: impl Into<String>) -> LoadProblem {
        LoadProblem {
            kind,
            message: message.into(),
            blocking: true,
            unplaced: None,
        }
    }

    pub fn note(kind: ProblemKind, message: impl Into<String>) -> LoadProblem {
        LoadProblem {
            blocking: false,
            ..LoadProblem::conflict(kind, message)
        }
    }
}

impl Change {
    /// When the format could not place this change (see [`LoadProblem::unplaced`]): the first
    /// line of each place its text occurs, which is empty when it occurs nowhere.
    pub fn unplaced(&self) -> Option<&[usize]> {
        self.load_problems
            .iter()
            .find_map(|p| p.unplaced.as_deref())
    }
}

impl Batch {
    /// Total number of changes in the batch.
    pub fn change_count(&self) -> usize {
        self.files.iter().map(|f| f.changes.len()).sum()
    }

    /// The file patch and change with this ID.
    pub fn find_change(&self, id: &ChangeId) -> Option<(&FilePatch, &Change)> {
        self.files.iter().find_map(|file| {
            file.changes
                .iter()
                .find(|change| &change.id == id)
                .map(|change| (file, change))
        })
    }

    /// Every change with the file it belongs to, in batch order.
    pub fn changes(&self) -> impl Iterator<Item = (&FilePatch, &Change)> {
        self.files
            .iter()
            .flat_map(|file| file.changes.iter().map(move |change| (file, change)))
    }
}

impl FilePatch {
    /// The name a person knows this file patch by: its key when it has one, else its docPath.
    pub fn display_name(&self) -> &str {
        self.key.as_deref().unwrap_or(&self.doc_path)
    }
}

/// 128 bits drawn at random once per process, as hex: what [`IdDeriver::unnamed`] derives file
/// patch IDs from. The standard library's hash keys are drawn from the operating system's
/// random source.
fn process_seed() -> &'static str {
    static SEED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SEED.get_or_init(drawn_seed)
}

/// 128 bits drawn now, as hex.
fn drawn_seed() -> String {
    use std::hash::{BuildHasher, RandomState};
    let keys = RandomState::new();
    let bits = [keys.hash_one(0_u8), keys.hash_one(1_u8)];
    format!("unnamed-{:016x}{:016x}", bits[0], bits[1])
}

/// Hex digits of a derived file patch or change ID: 64 bits, so that among the 1,000,000
/// changes a batch may hold two share an ID with a chance of about 3 in 100 million (40 bits
/// gave about 36%).
pub const ID_HEX_DIGITS: usize = 16;

/// Derives stable IDs for inputs that carry none: the same input bytes give the same IDs
/// (except [`IdDeriver::unnamed`]'s file patch IDs, drawn anew by each process).
pub struct IdDeriver {
    batch_seed: String,
    /// What file patch IDs are derived from: the input's SHA-256, or for
    /// [`IdDeriver::unnamed`] a value drawn at random once per process.
    file_seed: String,
    /// The fingerprint of every change ID as far as the seed: each ID continues a copy of it
    /// instead of hashing the seed again (one SHA-256 block less per change).
    seeded: Sha256,
    /// Whether changes get their IDs (not for [`IdDeriver::unnamed`]).
    names_changes: bool,
}

impl IdDeriver {
    /// Seeds the IDs from the input's bytes.
    pub fn new(input: &[u8]) -> IdDeriver {
        IdDeriver::seeded(sha256_hex(input))
    }

    /// Seeds the IDs from the SHA-256 of the input's bytes (lowercase hex), computed already.
    pub fn seeded(input_sha256: String) -> IdDeriver {
        let mut seed = Fingerprint::new();
        seed.text(&input_sha256);
        seed.state.update(&seed.framed);
        IdDeriver {
            seeded: seed.state,
            file_seed: input_sha256.clone(),
            batch_seed: input_sha256,
            names_changes: true,
        }
    }

    /// IDs for a load whose answer names nothing (`check -q` answers with its exit status
    /// alone), derived from no hash of the input: every change's is left empty
    /// ([`ChangeId::unnamed`]; a change's ID is the SHA-256 of all its lines, the largest
    /// hashing a check of a diff does), the batch's ID and its `content_sha256` are empty,
    /// and each file patch's ID is derived from its place and docPath, so that the files of
    /// one load still have IDs of their own, and from a value drawn at random once per
    /// process. Seeded from nothing, the IDs would be the same for every input, and an input
    /// could give one of its file patches the ID another would get (a TUL-002 block of a chat
    /// answer names its own `filePatchId`), which the loader would take for that other file.
    pub fn unnamed() -> IdDeriver {
        IdDeriver {
            names_changes: false,
            file_seed: process_seed().to_owned(),
            ..IdDeriver::seeded(String::new())
        }
    }

    /// Whether changes get their IDs.
    pub fn names_changes(&self) -> bool {
        self.names_changes
    }

    /// The batch's ID: empty for [`IdDeriver::unnamed`].
    pub fn batch_id(&self) -> BatchId {
        match self.batch_seed.get(..12) {
            Some(seed) => BatchId(format!("batch-{seed}")),
            None => BatchId(String::new()),
        }
    }

    /// The SHA-256 of the input the IDs are seeded from (the batch's `content_sha256`), so
    /// that a large input is hashed once.
    pub fn input_sha256(&self) -> &str {
        &self.batch_seed
    }

    /// The ID of the file patch at `index` naming `doc_path`.
    pub fn file_id(&self, index: usize, doc_path: &str) -> FilePatchId {
        let digest =
            Sha256::digest(format!("{}\0file\0{index}\0{doc_path}", self.file_seed).as_bytes());
        FilePatchId(prefixed_hex("file-", &digest[..ID_HEX_DIGITS / 2]))
    }

    /// The ID of the change at `index` of file patch `file`, whose content is summarised by
    /// `content` (any stable rendering of its fields).
    pub fn change_id(&self, file: &FilePatchId, index: usize, content: &str) -> ChangeId {
        self.change_id_with(file, index, |f| {
            f.text(content);
        })
    }

    /// As [`IdDeriver::change_id`], with the content fed field by field: a format whose
    /// changes depend on the files on disk (a whole-file bundle split into hunks) gives a
    /// change another ID when it is another change, even from the same input bytes. Fields are
    /// hashed as they are, each framed by its length; nothing is formatted (a batch of 35,000
    /// changes derives 35,000 IDs).
    pub fn change_id_with(
        &self,
        file: &FilePatchId,
        index: usize,
        content: impl FnOnce(&mut Fingerprint),
    ) -> ChangeId {
        if !self.names_changes {
            return ChangeId::unnamed();
        }
        let mut fingerprint = Fingerprint {
            state: self.seeded.clone(),
            framed: FRAMED.take(),
        };
        fingerprint.text(file.as_str()).text("change").number(index);
        content(&mut fingerprint);
        let Fingerprint {
            mut state,
            mut framed,
        } = fingerprint;
        state.update(&framed);
        framed.clear();
        FRAMED.set(framed);
        ChangeId(prefixed_hex("chg-", &state.finalize()[..ID_HEX_DIGITS / 2]))
    }
}

thread_local! {
    /// Each thread's framing buffer ([`Fingerprint`]), kept from one change ID to the next: a
    /// batch of 35,000 changes would otherwise allocate and grow 35,000 of them.
    static FRAMED: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The content a derived change ID is computed from, fed field by field. Short fields are
/// framed into a buffer that is hashed when it fills (and at the end): a change of many short
/// lines is a few SHA-256 passes, not a call per line. A field of `Fingerprint::FRAMED` bytes
/// or more is hashed where it is, so the buffer stays under twice that (a minified file's
/// one long line is not copied). The digest is the same either way.
pub struct Fingerprint {
    state: Sha256,
    framed: Vec<u8>,
}

impl Fingerprint {
    /// How many framed bytes are kept before they are hashed.
    const FRAMED: usize = 64 << 10;

    fn new() -> Fingerprint {
        Fingerprint {
            state: Sha256::new(),
            framed: Vec::new(),
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        if bytes.len() >= Self::FRAMED {
            self.state.update(&self.framed);
            self.framed.clear();
            self.state.update(bytes);
            return;
        }
        self.framed.extend_from_slice(bytes);
        if self.framed.len() >= Self::FRAMED {
            self.state.update(&self.framed);
            self.framed.clear();
        }
    }

    pub fn text(&mut self, text: &str) -> &mut Fingerprint {
        self.number(text.len());
        self.feed(text.as_bytes());
        self
    }

    pub fn number(&mut self, n: usize) -> &mut Fingerprint {
        self.feed(&(n as u64).to_le_bytes());
        self
    }

    /// Lines, or their absence (which differs from no lines).
    pub fn lines(&mut self, lines: Option<&TextLines>) -> &mut Fingerprint {
        match lines {
            None => self.number(usize::MAX),
            Some(lines) => {
                self.number(lines.len());
                for line in lines {
                    self.text(line);
                }
                self
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change larger than the fingerprint's buffer (a whole file deleted, say) is hashed in
    /// parts, to the digest of its framed fields as one stream: the ID earlier builds gave.
    #[test]
    fn a_change_id_is_the_hash_of_its_framed_fields_however_large() {
        let ids = IdDeriver::new(b"input");
        let file = FilePatchId("file-1".into());
        let lines: TextLines = (0..20_000).map(|i| format!("line {i}")).collect();
        let id = ids.change_id_with(&file, 3, |f| {
            f.text("delete").lines(Some(&lines)).lines(None);
        });
        let mut framed = Vec::new();
        let text = |out: &mut Vec<u8>, t: &str| {
            out.extend((t.len() as u64).to_le_bytes());
            out.extend(t.as_bytes());
        };
        text(&mut framed, &sha256_hex(b"input"));
        text(&mut framed, "file-1");
        text(&mut framed, "change");
        framed.extend(3u64.to_le_bytes());
        text(&mut framed, "delete");
        framed.extend((lines.len() as u64).to_le_bytes());
        for line in &lines {
            text(&mut framed, line);
        }
        framed.extend(u64::MAX.to_le_bytes());
        assert!(framed.len() > Fingerprint::FRAMED * 3);
        let digest = Sha256::digest(&framed);
        assert_eq!(id.0, format!("chg-{}", hex(&digest[..ID_HEX_DIGITS / 2])));
    }

    /// A field of the buffer's size or more (a minified file's one line) is hashed where it
    /// is, to the same ID, and the buffer each thread keeps stays small.
    #[test]
    fn a_change_id_hashes_a_long_field_in_place_to_the_same_id() {
        let ids = IdDeriver::new(b"input");
        let file = FilePatchId("file-1".into());
        let sizes = [
            0,
            7,
            Fingerprint::FRAMED - 1,
            Fingerprint::FRAMED,
            1 << 20,
            9,
        ];
        let fields: Vec<String> = sizes.iter().map(|&n| "x".repeat(n)).collect();
        let id = ids.change_id_with(&file, 0, |f| {
            for field in &fields {
                f.text(field);
            }
        });
        let mut framed = Vec::new();
        for text in [sha256_hex(b"input").as_str(), "file-1", "change"] {
            framed.extend((text.len() as u64).to_le_bytes());
            framed.extend(text.as_bytes());
        }
        framed.extend(0u64.to_le_bytes());
        for field in &fields {
            framed.extend((field.len() as u64).to_le_bytes());
            framed.extend(field.as_bytes());
        }
        let digest = Sha256::digest(&framed);
        assert_eq!(id.0, format!("chg-{}", hex(&digest[..ID_HEX_DIGITS / 2])));
        let kept = FRAMED.take();
        assert!(kept.is_empty() && kept.capacity() < 2 * Fingerprint::FRAMED);
    }

    #[test]
    fn empty_sha_constant_is_the_hash_of_nothing() {
        assert_eq!(sha256_hex(b""), EMPTY_SHA256);
    }

    #[test]
    fn ranges_overlap_only_when_they_share_lines_or_an_insertion_point() {
        let a = LineRange::inclusive(10, 12);
        assert!(a.overlaps(LineRange::inclusive(11, 11)));
        assert!(a.overlaps(LineRange::inclusive(12, 20)));
        assert!(!a.overlaps(LineRange::inclusive(13, 20)));
        // Insertion after line 9 goes before line 10: it touches nothing.
        assert!(!a.overlaps(LineRange::after(9)));
        // Insertion after line 10 lands inside the replaced range.
        assert!(a.overlaps(LineRange::after(10)));
        assert!(LineRange::after(3).overlaps(LineRange::after(3)));
        assert!(!LineRange::after(3).overlaps(LineRange::after(4)));
    }

    #[test]
    fn derived_ids_are_deterministic_and_distinct() {
        let a = IdDeriver::new(b"input");
        let b = IdDeriver::new(b"input");
        assert_eq!(a.batch_id(), b.batch_id());
        let f0 = a.file_id(0, "x");
        assert_eq!(f0, b.file_id(0, "x"));
        assert_ne!(f0, a.file_id(1, "x"));
        assert_ne!(a.change_id(&f0, 0, "c"), a.change_id(&f0, 1, "c"));
        assert_eq!(a.change_id(&f0, 3, "x"), b.change_id(&f0, 3, "x"));
        assert_ne!(a.change_id(&f0, 3, "x"), a.change_id(&f0, 3, "y"));
        // Fields are framed by their lengths: moving a byte from one to the next is another ID.
        let split = |one: &str, two: &str| {
            a.change_id_with(&f0, 0, |f| {
                f.text(one).text(two);
            })
        };
        assert_ne!(split("ab", "c"), split("a", "bc"));
        let lines = |l: Option<&TextLines>| {
            a.change_id_with(&f0, 0, |f| {
                f.lines(l);
            })
        };
        assert_ne!(lines(None), lines(Some(&TextLines::default())));
        assert_eq!(a.change_id(&f0, 0, "c").as_str().len(), "chg-".len() + 16);
        assert_eq!(f0.as_str().len(), "file-".len() + 16);
        assert_ne!(IdDeriver::new(b"other").batch_id(), a.batch_id());
    }

    #[test]
    fn unnamed_ids_name_no_change_and_hash_no_input_but_keep_files_apart() {
        let named = IdDeriver::new(b"input");
        let unnamed = IdDeriver::unnamed();
        assert!(named.names_changes() && !unnamed.names_changes());
        assert_eq!(unnamed.batch_id().as_str(), "");
        assert_eq!(unnamed.input_sha256(), "");
        let file = unnamed.file_id(0, "x");
        assert_ne!(unnamed.file_id(1, "x"), file, "each file has its own ID");
        assert_ne!(unnamed.file_id(0, "y"), file);
        assert_eq!(
            IdDeriver::unnamed().file_id(0, "x"),
            file,
            "and the same in every load of one process"
        );
        // Not an ID an input could name beforehand: not one seeded from nothing, nor one
        // seeded from a SHA-256.
        assert_ne!(IdDeriver::seeded(String::new()).file_id(0, "x"), file);
        assert_ne!(named.file_id(0, "x"), file);
        // Drawn at random: two draws differ (by chance, one time in 2^128), and the process's
        // seed is one such draw.
        let (one, two) = (drawn_seed(), drawn_seed());
        assert_ne!(one, two);
        assert_eq!(process_seed().len(), one.len());
        assert!(process_seed().starts_with("unnamed-") && process_seed() != one);
        assert_eq!(unnamed.change_id(&file, 0, "c"), ChangeId::unnamed());
        assert_eq!(
            unnamed.change_id_with(&file, 1, |_| panic!("nothing is hashed")),
            ChangeId::unnamed()
        );
        assert!(!named.change_id(&file, 0, "c").as_str().is_empty());
    }
}
