//! The seal a checkpoint commit carries: an HMAC, under this user's key, of its ref's name,
//! its tree and its parent, for this repository (its top-level folder's device and inode, so
//! that a repository moved within its file system keeps its checkpoints and a copy does not),
//! as a last message line `patchdeck-seal: HEX`. A checkpoint ref is input from a stranger until its
//! seal opens: one that came with a clone or was written by another user or for another
//! repository is not a base a review starts from, and is never pruned.

use crate::fs::beneath::Root;
use crate::state::seal::{Binding, Key, Purpose};
use std::io;
use std::path::Path;

/// The line a sealed checkpoint's message ends with, before the tag.
const TRAILER: &str = "patchdeck-seal: ";

/// What is sealed of a checkpoint: the ref it is kept under, its tree and its first parent.
fn body(name: &str, tree: &str, parent: Option<&str>) -> Vec<u8> {
    format!(
        "ref {name}\ntree {tree}\nparent {}\n",
        parent.unwrap_or("-")
    )
    .into_bytes()
}

fn binding(top: &Path) -> io::Result<Binding> {
    Binding::of_folder(&Root::open(top)?)
}

/// The message of the checkpoint `name` of `tree` on `parent` in the repository whose
/// top-level folder is `top`, sealed.
pub fn message(top: &Path, name: &str, tree: &str, parent: Option<&str>) -> io::Result<String> {
    let body = body(name, tree, parent);
    let tag = Key::mine()?.tag(Purpose::Checkpoint, &binding(top)?, &body);
    Ok(format!("patchdeck checkpoint\n\n{TRAILER}{tag}\n"))
}

/// Checks checkpoints' seals for one repository.
pub struct Checker {
    key: &'static Key,
    binding: Binding,
}

impl Checker {
    /// The checker for the repository whose top-level folder is `top`; `None` when this user
    /// has no key or the folder cannot be opened (then no checkpoint is this user's).
    pub fn of(top: &Path) -> Option<Checker> {
        Some(Checker {
            key: Key::mine().ok()?,
            binding: binding(top).ok()?,
        })
    }

    /// Whether the commit of `tree` on `parent` (its first), with `message`, kept as `name`,
    /// is a checkpoint this user made in this repository under that name.
    pub fn opens(&self, name: &str, tree: &str, parent: Option<&str>, message: &str) -> bool {
        let Some(tag) = message.lines().last().and_then(|l| l.strip_prefix(TRAILER)) else {
            return false;
        };
        self.key.tag_opens(
            Purpose::Checkpoint,
            &self.binding,
            &body(name, tree, parent),
            tag,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_opens_for_its_name_tree_parent_and_repository_only() {
        let top = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let (name, tree) = (
            "refs/patchdeck/checkpoints/1",
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        );
        let sealed = message(top.path(), name, tree, Some("abc")).unwrap();
        let here = Checker::of(top.path()).unwrap();
        assert!(here.opens(name, tree, Some("abc"), &sealed));
        assert!(
            !here.opens("refs/patchdeck/checkpoints/2", tree, Some("abc"), &sealed),
            "another name"
        );
        assert!(
            !here.opens(name, tree, Some("abd"), &sealed),
            "another parent"
        );
        assert!(!here.opens(name, tree, None, &sealed), "no parent");
        let other_tree = "0000000000000000000000000000000000000000";
        assert!(
            !here.opens(name, other_tree, Some("abc"), &sealed),
            "another tree"
        );
        let there = Checker::of(other.path()).unwrap();
        assert!(
            !there.opens(name, tree, Some("abc"), &sealed),
            "another repository"
        );
        assert!(
            !here.opens(name, tree, Some("abc"), "patchdeck checkpoint\n"),
            "no seal"
        );
        // The same folder under another name (moved) keeps its checkpoints.
        let moved = top.path().with_extension("moved");
        std::fs::rename(top.path(), &moved).unwrap();
        assert!(Checker::of(&moved)
            .unwrap()
            .opens(name, tree, Some("abc"), &sealed));
        std::fs::rename(&moved, top.path()).unwrap();
    }
}
