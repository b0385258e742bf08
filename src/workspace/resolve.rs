//! Where a docPath leads: the exact path first, walked from the root one folder at a time
//! without following a link (the walk the commit makes, [`crate::fs::beneath`]); otherwise
//! the one file whose path matches ignoring case and Unicode normalisation; two such files is
//! an error, never a guess.

use super::{Resolved, Workspace};
use crate::fs::path::{fold, PathProblem, RepoPath};
use crate::fs::{Dir, Kind, Stat};
use crate::problem::ProblemKind;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many folders the workspace keeps open for its walks; past it, it starts again. A
/// batch's files come folder by folder, so a few suffice; the read-ahead holds its own, and
/// together they keep far below the usual limit of 1,024 descriptors.
const OPEN_FOLDERS: usize = 32;

/// What the exact path holds.
enum Exact {
    File,
    NotFile(&'static str),
    Missing,
}

impl Workspace {
    /// Resolves a docPath to a file, or to where it would be created.
    pub fn resolve(&self, doc_path: &str) -> Result<Resolved, PathProblem> {
        if let Some(known) = self.resolved.borrow().get(doc_path) {
            return known.clone();
        }
        let resolved = self.resolve_afresh(doc_path);
        self.resolved
            .borrow_mut()
            .insert(doc_path.to_owned(), resolved.clone());
        resolved
    }

    fn resolve_afresh(&self, doc_path: &str) -> Result<Resolved, PathProblem> {
        let (rel, components) = RepoPath::parse(doc_path)?;
        match self.walk_exact(&rel, &components)? {
            Exact::File => {
                return Ok(Resolved::File {
                    rel,
                    by_case: false,
                })
            }
            Exact::NotFile(what) => {
                return Err(PathProblem::new(
                    ProblemKind::NotAFile,
                    format!("{} is {what}, not a regular file", rel.display()),
                ))
            }
            Exact::Missing => {}
        }
        // Then every spelling that matches ignoring case and Unicode normalisation.
        let mut found = Vec::new();
        self.search_case_insensitive(RepoPath::root(), &components, &mut found)?;
        match found.len() {
            0 => Ok(Resolved::Missing {
                rel: self.creation_path(&components)?,
            }),
            1 => Ok(Resolved::File {
                rel: found.pop().expect("one match"),
                by_case: true,
            }),
            _ => {
                found.sort();
                let names: Vec<String> = found.iter().map(|p| p.to_string()).collect();
                Err(PathProblem::new(
                    ProblemKind::AmbiguousPath,
                    format!(
                        "docPath \"{doc_path}\" matches {} files that differ only in case or Unicode normalisation: {}",
                        names.len(),
                        names.join(", ")
                    ),
                ))
            }
        }
    }

    /// Walks the exact path: its folders, then what its last name is.
    fn walk_exact(&self, rel: &RepoPath, components: &[&str]) -> Result<Exact, PathProblem> {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let Some(folder) = self.folder(parent)? else {
            return Ok(Exact::Missing);
        };
        let name = components.last().expect("a checked path has a name");
        Ok(match folder.stat(OsStr::new(name)) {
            Ok(Some(Stat {
                kind: Kind::File, ..
            })) => Exact::File,
            Ok(Some(Stat {
                kind: Kind::Symlink,
                ..
            })) => return Err(self.symlink_problem(rel)),
            Ok(Some(stat)) => Exact::NotFile(describe_mode(stat.stamp.mode)),
            Ok(None) | Err(_) => Exact::Missing,
        })
    }

    /// The folder `rel`, opened from its parent without following a link (kept open for the
    /// next walk); `None` when it, or a folder above it, does not exist.
    pub(super) fn folder(&self, rel: &Path) -> Result<Option<Arc<Dir>>, PathProblem> {
        if let Some(dir) = self.folders.borrow().get(rel) {
            return Ok(Some(dir.clone()));
        }
        let dir = match (rel.parent(), rel.file_name()) {
            (Some(parent), Some(name)) => {
                let Some(parent_dir) = self.folder(parent)? else {
                    return Ok(None);
                };
                match parent_dir.stat(name) {
                    Ok(Some(Stat {
                        kind: Kind::Dir, ..
                    })) => {}
                    Ok(Some(Stat {
                        kind: Kind::Symlink,
                        ..
                    })) => return Err(self.symlink_problem(rel)),
                    Ok(Some(_)) => {
                        return Err(PathProblem::new(
                            ProblemKind::NotAFile,
                            format!("{} is a file where a folder is expected", rel.display()),
                        ))
                    }
                    Ok(None) | Err(_) => return Ok(None),
                }
                match parent_dir.subdir(name) {
                    Ok(dir) => dir,
                    Err(_) => return Ok(None),
                }
            }
            _ => match self.beneath.top() {
                Ok(dir) => dir,
                Err(_) => return Ok(None),
            },
        };
        let dir = Arc::new(dir);
        let mut folders = self.folders.borrow_mut();
        if folders.len() >= OPEN_FOLDERS {
            folders.clear();
        }
        folders.insert(rel.to_path_buf(), dir.clone());
        Ok(Some(dir))
    }

    /// What `lstat` says of `name` in the folder `rel`, if both are there.
    fn stat_in(&self, rel: &Path, name: &OsStr) -> Result<Option<Stat>, PathProblem> {
        Ok(match self.folder(rel)? {
            Some(dir) => dir.stat(name).ok().flatten(),
            None => None,
        })
    }

    /// The problem of the link at `rel`: one whose target is outside the root (the root as
    /// the file system resolves it), or any other link, which patchdeck never follows either.
    fn symlink_problem(&self, rel: &Path) -> PathProblem {
        let abs = self.abs(rel);
        let to = fs::read_link(&abs)
            .map(|t| format!(" to {}", t.display()))
            .unwrap_or_default();
        let root = fs::canonicalize(self.root()).unwrap_or_else(|_| self.root().to_path_buf());
        let (kind, what) = match fs::canonicalize(&abs) {
            Ok(target) if !target.starts_with(&root) => (
                ProblemKind::PathOutsideRoot,
                "that leads outside the workspace root",
            ),
            Ok(_) => (
                ProblemKind::Symlink,
                "inside the workspace; patchdeck does not read or write through links",
            ),
            // A dangling link: where it points, read without the file system.
            Err(_) => match fs::read_link(&abs).map(|t| lexically_inside(&abs, &t, &root)) {
                Ok(true) => (
                    ProblemKind::Symlink,
                    "whose target does not exist; patchdeck does not read or write through links",
                ),
                _ => (
                    ProblemKind::PathOutsideRoot,
                    "that leads outside the workspace root",
                ),
            },
        };
        PathProblem::new(
            kind,
            format!("{} is a symbolic link{to} {what}", rel.display()),
        )
    }

    fn search_case_insensitive(
        &self,
        rel: RepoPath,
        components: &[&str],
        found: &mut Vec<RepoPath>,
    ) -> Result<(), PathProblem> {
        let Some((first, rest)) = components.split_first() else {
            return Ok(());
        };
        let wanted = fold(first);
        for name in self.listing(&rel)? {
            let Some(name) = same_name(&name, &wanted, &rel)? else {
                continue;
            };
            let Some(stat) = self.stat_in(&rel, OsStr::new(name))? else {
                continue;
            };
            let child = rel.join(name)?;
            match stat.kind {
                Kind::Symlink => return Err(self.symlink_problem(&child)),
                Kind::File if rest.is_empty() => found.push(child),
                Kind::Dir if !rest.is_empty() => {
                    self.search_case_insensitive(child, rest, found)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Where a missing file would go: existing parent folders keep their on-disk spelling when
    /// exactly one matches; the rest of the path is used as written.
    fn creation_path(&self, components: &[&str]) -> Result<RepoPath, PathProblem> {
        let is_dir = |rel: &RepoPath, name: &str| {
            self.stat_in(rel, OsStr::new(name))
                .map(|stat| stat.is_some_and(|s| s.kind == Kind::Dir))
        };
        let mut rel = RepoPath::root();
        let (last, folders) = components.split_last().expect("a checked path has a name");
        for (i, component) in folders.iter().enumerate() {
            if is_dir(&rel, component)? {
                rel = rel.join(component)?;
                continue;
            }
            let wanted = fold(component);
            let mut matches = Vec::new();
            for name in self.listing(&rel)? {
                if let Some(name) = same_name(&name, &wanted, &rel)? {
                    if is_dir(&rel, name)? {
                        matches.push(name.to_owned());
                    }
                }
            }
            match matches.as_slice() {
                [] => {
                    for rest in &components[i..] {
                        rel = rel.join(rest)?;
                    }
                    return Ok(rel);
                }
                [one] => rel = rel.join(one)?,
                _ => return Err(ambiguous_folder(component, &rel)),
            }
        }
        rel.join(last)
    }

    /// The names in the folder `rel`, sorted (none when it cannot be listed).
    fn listing(&self, rel: &Path) -> Result<Vec<OsString>, PathProblem> {
        if let Some(names) = self.listings.borrow().get(rel) {
            return Ok(names.clone());
        }
        let names = match self.folder(rel)? {
            Some(dir) => dir.list().unwrap_or_default(),
            None => Vec::new(),
        };
        self.listings
            .borrow_mut()
            .insert(rel.to_path_buf(), names.clone());
        Ok(names)
    }
}

fn ambiguous_folder(component: &str, under: &Path) -> PathProblem {
    PathProblem::new(
        ProblemKind::AmbiguousPath,
        format!(
            "folder \"{component}\" matches several folders that differ only in case or Unicode normalisation under {}",
            shown(under).display()
        ),
    )
}

/// A folder as a message names it: `.` for the root.
fn shown(folder: &Path) -> &Path {
    if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    }
}

/// The name on disk, when it matches `wanted` (folded by [`fold`]) ignoring case and Unicode
/// normalisation. A name that is not UTF-8 is never matched: when it would read as `wanted`
/// with its bad bytes replaced by U+FFFD, that is an error naming its bytes, not a guess (and
/// not a file `apply` could journal).
fn same_name<'n>(
    name: &'n OsString,
    wanted: &str,
    folder: &Path,
) -> Result<Option<&'n str>, PathProblem> {
    if let Some(name) = name.to_str() {
        return Ok((fold(name) == wanted).then_some(name));
    }
    if fold(&name.to_string_lossy()) == wanted {
        let bytes = name.as_encoded_bytes().escape_ascii().to_string();
        return Err(PathProblem::new(
            ProblemKind::NotUtf8Name,
            format!(
                "{} holds \"{bytes}\", whose name is not UTF-8; a docPath cannot name it exactly, and patchdeck does not guess",
                shown(folder).display()
            ),
        ));
    }
    Ok(None)
}

/// What a file of this mode is, in words, when it is not a regular file.
fn describe_mode(mode: u32) -> &'static str {
    // `mode_t` is 16 bits on macOS, 32 on Linux.
    #[allow(clippy::unnecessary_cast)]
    let kind = (mode & libc::S_IFMT as u32) as libc::mode_t;
    match kind {
        libc::S_IFDIR => "a folder",
        libc::S_IFIFO => "a FIFO",
        libc::S_IFSOCK => "a socket",
        libc::S_IFBLK | libc::S_IFCHR => "a device",
        _ => "not a regular file",
    }
}

/// Whether the target `to` of the link at `link` stays inside `root`, by its components alone
/// (the link's folder joined with a relative target, `..` taken back).
fn lexically_inside(link: &Path, to: &Path, root: &Path) -> bool {
    use std::path::Component;
    let base = match to.is_absolute() {
        true => PathBuf::new(),
        false => {
            fs::canonicalize(link.parent().unwrap_or(root)).unwrap_or_else(|_| root.to_path_buf())
        }
    };
    let mut at = base;
    for part in to.components() {
        match part {
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir => {}
            other => at.push(other),
        }
    }
    at.starts_with(root)
}
