//! What a format may ask of the files its batch patches. A parser never opens a file: it is
//! handed its input, asks this trait for the files its changes are located in, and reports each
//! path it meets so that the workspace can read it meanwhile (as ripgrep's searcher is fed by
//! its caller). The workspace implements it (`crate::workspace`), deciding what is read ahead,
//! what is kept and what is let go.

use crate::fs::Snapshot;
use std::sync::Arc;

/// A file of the workspace as a format that locates text reads it at load time.
pub enum OnDisk {
    File {
        bytes: Arc<Vec<u8>>,
        /// The file as read: its SHA-256 is computed only if a format pins the file by it.
        snapshot: Snapshot,
    },
    Missing,
    /// The path cannot be used (outside the root, a link, ...): verify reports why.
    Unusable,
}

/// A file to place hunks in on any thread: read already (and kept by the workspace), or to be
/// read there once, and let go.
pub enum Source<'a> {
    Read(Snapshot),
    Later(Box<dyn FnOnce() -> Option<Snapshot> + Send + 'a>),
}

impl Source<'_> {
    /// The file's snapshot, reading it now if it is not read yet (`None` when it cannot be).
    pub fn snapshot(self) -> Option<Snapshot> {
        match self {
            Source::Read(snapshot) => Some(snapshot),
            Source::Later(read) => read(),
        }
    }
}

/// Called with each path a parser meets, as it meets it.
pub type Met<'a> = &'a (dyn Fn(&str) + Sync);

/// The files of the workspace, as the formats may ask for them.
pub trait Files {
    /// The file a docPath names, as it is now.
    fn file(&self, doc_path: &str) -> OnDisk;

    /// The file a docPath names, for a thread to place hunks in; `None` when the path does not
    /// lead to a regular file (the loop then places them as [`Files::file`] finds it).
    fn source(&self, doc_path: &str) -> Option<Source<'_>>;

    /// The root-relative paths of up to `limit` regular files whose last name is `base`,
    /// shallowest first, for a message that names them: a rare question, asked of a path that
    /// names no file. The walk never follows a link, skips `.git`, `.patchdeck`, `target` and
    /// `node_modules` (not what git ignores), and stops after 20,000 names, so in a larger
    /// workspace a file may go unnamed.
    fn named(&self, base: &str, limit: usize) -> Vec<String>;

    /// These files will be asked for: read them ahead where that is worth it.
    fn expect(&self, doc_paths: &mut dyn Iterator<Item = &str>);

    /// Runs `parse` with a callback for each path it meets, whose file may be read (and, with
    /// `hash`, hashed) meanwhile.
    fn reading_ahead(&self, hash: bool, parse: &mut dyn FnMut(Met<'_>));
}

/// [`Files::reading_ahead`] of a parse that returns what it parsed.
pub fn parsed_reading_ahead<T>(
    files: &dyn Files,
    hash: bool,
    parse: impl FnOnce(Met<'_>) -> T,
) -> T {
    let mut parse = Some(parse);
    let mut parsed = None;
    files.reading_ahead(hash, &mut |met| {
        if let Some(parse) = parse.take() {
            parsed = Some(parse(met));
        }
    });
    parsed.expect("reading_ahead runs the parse")
}
