//! The workspace answers what the formats may ask of it ([`Files`]): it resolves and reads
//! each file, reads a batch's files ahead while it is parsed, and, in a workspace that lets
//! files go, has the threads that place a diff's hunks read each file once.

use super::{ReadAhead, Resolved, Workspace};
use crate::formats::{Files, Met, OnDisk, Source};
use crate::fs::read_file;

impl Files for Workspace {
    fn file(&self, doc_path: &str) -> OnDisk {
        match self.resolve(doc_path) {
            Ok(Resolved::File { rel, .. }) => match self.read(&rel) {
                Ok(snapshot) => OnDisk::File {
                    bytes: snapshot.bytes().clone(),
                    snapshot,
                },
                Err(_) => OnDisk::Unusable,
            },
            Ok(Resolved::Missing { .. }) => OnDisk::Missing,
            Err(_) => OnDisk::Unusable,
        }
    }

    fn source(&self, doc_path: &str) -> Option<Source<'_>> {
        if self.releases().is_none() {
            return match self.file(doc_path) {
                OnDisk::File { snapshot, .. } => Some(Source::Read(snapshot)),
                _ => None,
            };
        }
        // Read by the thread that places the hunks, and let go: a file that cannot be read is
        // placed in as a missing one would be, and verification says why.
        match self.resolve(doc_path) {
            Ok(Resolved::File { rel, .. }) => {
                let root = self.beneath();
                Some(Source::Later(Box::new(move || read_file(root, &rel).ok())))
            }
            _ => None,
        }
    }

    fn named(&self, base: &str, limit: usize) -> Vec<String> {
        Workspace::named(self, base, limit)
    }

    fn expect(&self, doc_paths: &mut dyn Iterator<Item = &str>) {
        self.prefetch(doc_paths);
    }

    fn reading_ahead(&self, hash: bool, parse: &mut dyn FnMut(Met<'_>)) {
        // A workspace that releases files reads none ahead of a diff: the threads placing its
        // hunks read each file, and let it go. A batch that names its files' hashes (`hash`)
        // is read ahead all the same, to hash them while it is parsed.
        if self.releases().is_some() && !hash {
            return parse(&|_| {});
        }
        self.read_ahead_with(hash, |ahead: &ReadAhead| parse(&|path| ahead.want(path)));
    }
}
