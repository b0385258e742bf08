//! The one lexical check of paths under the workspace root, and [`RepoPath`], a path that
//! passed it.
//!
//! A docPath is checked here once, without touching the disk: not empty, relative, no `..`,
//! `.` or empty component, no control character, within Linux's limits, and never naming
//! `.git` or patchdeck's own [`STATE_DIR`] on any file system a workspace may be checked out on
//! (after git's `is_ntfs_dotgit` and `is_hfs_dotgit`). What passes is a [`RepoPath`]; the
//! folders of [`super::beneath`] walk only plain names ([`plain_names`]).

use crate::problem::ProblemKind;
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::ops::Deref;
use std::path::{Component, Path, PathBuf};

/// Name of the folder under the root where patchdeck keeps its lock, journal and sessions.
pub const STATE_DIR: &str = ".patchdeck";

/// Why a docPath cannot be used. `kind` is the report's problem kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathProblem {
    pub kind: ProblemKind,
    pub message: String,
}

impl PathProblem {
    pub fn new(kind: ProblemKind, message: impl Into<String>) -> PathProblem {
        PathProblem {
            kind,
            message: message.into(),
        }
    }
}

/// A path under the workspace root that passed the lexical check: relative, made of plain
/// UTF-8 names, none of them `.git` or [`STATE_DIR`] to any file system. Every file a batch
/// reads or writes is named by one; it derefs to the [`Path`] under the root.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoPath(PathBuf);

impl RepoPath {
    /// Checks a docPath (or a path as patchdeck wrote it in its own records) and gives it as a
    /// path under the root, with its components.
    pub fn parse(doc_path: &str) -> Result<(RepoPath, Vec<&str>), PathProblem> {
        let components = check(doc_path)?;
        Ok((RepoPath(components.iter().collect()), components))
    }

    /// [`RepoPath::parse`] of a path read back from a record: one that is not UTF-8 or does
    /// not pass is an error naming it.
    pub fn from_record(path: &Path) -> io::Result<RepoPath> {
        let text = path.to_str().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not a UTF-8 path", path.display()),
            )
        })?;
        RepoPath::parse(text)
            .map(|(path, _)| path)
            .map_err(|problem| io::Error::new(io::ErrorKind::InvalidData, problem.message))
    }

    /// This path with one more name under it, as it stands in a folder listing (a name that
    /// would not pass the check is refused).
    pub fn join(&self, name: &str) -> Result<RepoPath, PathProblem> {
        let mut whole = self.0.to_str().unwrap_or_default().to_owned();
        if !whole.is_empty() {
            whole.push('/');
        }
        whole.push_str(name);
        RepoPath::parse(&whole).map(|(path, _)| path)
    }

    /// The root itself: the empty path, which only folder walks start from.
    pub fn root() -> RepoPath {
        RepoPath(PathBuf::new())
    }

    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The path as text (always UTF-8), with `/` between names.
    pub fn as_str(&self) -> &str {
        self.0.to_str().expect("a RepoPath is UTF-8")
    }
}

impl Deref for RepoPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for RepoPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl std::borrow::Borrow<Path> for RepoPath {
    fn borrow(&self) -> &Path {
        &self.0
    }
}

impl serde::Serialize for RepoPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Read back from patchdeck's own records only through the lexical check: a path that would
/// not pass is an error, never a path to act on.
impl<'de> serde::Deserialize<'de> for RepoPath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RepoPath, D::Error> {
        let text = String::deserialize(deserializer)?;
        RepoPath::parse(&text)
            .map(|(path, _)| path)
            .map_err(|problem| serde::de::Error::custom(problem.message))
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The plain names of a root-relative path; anything else is refused.
pub fn plain_names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    rel.components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a plain path beneath the root", rel.display()),
            )),
        })
        .collect()
}

/// A name as patchdeck identifies files: Unicode NFC, then lowercase, so that `café` typed
/// precomposed and `café` typed with a combining accent (as macOS writes names) are one name.
/// An ASCII name (nearly every one) is its own NFC form, and lowercases byte by byte.
pub fn fold(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect::<String>().to_lowercase()
}

/// Code points HFS+ ignores in names, so that `.g\u{200c}it` is `.git` there (git's
/// `next_hfs_char`).
const HFS_IGNORED: &[char] = &[
    '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
    '\u{202e}', '\u{206a}', '\u{206b}', '\u{206c}', '\u{206d}', '\u{206e}', '\u{206f}', '\u{feff}',
];

/// Whether a path component is `name` to some file system a workspace may be checked out on,
/// after git's `is_ntfs_dotgit` and `is_hfs_dotgit`: in any case; on NTFS, with trailing
/// spaces and dots dropped, before an alternate data stream (`:stream`), and with `\\` as a
/// separator; on HFS+, with the code points it ignores removed.
fn names_like(component: &str, name: &str) -> bool {
    let ntfs_name = |part: &str| {
        let part = part.split(':').next().unwrap_or_default();
        part.trim_end_matches([' ', '.']).eq_ignore_ascii_case(name)
    };
    component.split('\\').any(|part| {
        // Every code point HFS+ ignores is outside ASCII: an ASCII part (nearly every one)
        // is compared as it is, without a copy.
        if part.is_ascii() {
            return ntfs_name(part);
        }
        let part: String = part.chars().filter(|c| !HFS_IGNORED.contains(c)).collect();
        ntfs_name(&part)
    })
}

/// Whether a path component is `.git` to git on some file system: [`names_like`], or its
/// NTFS short name `git~1`.
fn is_dotgit(component: &str) -> bool {
    names_like(component, ".git") || names_like(component, "git~1")
}

/// The one lexical check of a docPath, without touching the disk: its components, or why it
/// cannot name a file under the root.
fn check(doc_path: &str) -> Result<Vec<&str>, PathProblem> {
    let outside = |why: &str| {
        PathProblem::new(
            ProblemKind::PathOutsideRoot,
            format!("docPath \"{doc_path}\" {why}; paths must stay under the workspace root"),
        )
    };
    let invalid = |why: &str| {
        PathProblem::new(
            ProblemKind::InvalidPath,
            format!("docPath \"{}\" {why}", doc_path.escape_debug()),
        )
    };
    if doc_path.is_empty() {
        return Err(invalid("is empty"));
    }
    if doc_path.chars().any(|c| c.is_control()) {
        return Err(invalid("contains a control character"));
    }
    let bytes = doc_path.as_bytes();
    if doc_path.starts_with('/') || doc_path.starts_with('\\') {
        return Err(outside("is absolute"));
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(outside("starts with a drive letter"));
    }
    // Linux's limits (PATH_MAX, NAME_MAX): a longer path cannot be opened at all, and would
    // otherwise read as a missing file.
    if bytes.len() >= 4096 {
        return Err(PathProblem::new(
            ProblemKind::PathTooLong,
            format!(
                "docPath of {} bytes is longer than a path may be (4,095 bytes): \"{}…\"",
                bytes.len(),
                doc_path.chars().take(60).collect::<String>().escape_debug()
            ),
        ));
    }
    let components: Vec<&str> = doc_path.split('/').collect();
    if let Some(long) = components.iter().find(|c| c.len() > 255) {
        return Err(PathProblem::new(
            ProblemKind::PathTooLong,
            format!(
                "docPath \"{}…\" has a name of {} bytes, longer than a file name may be (255 bytes)",
                doc_path.chars().take(60).collect::<String>().escape_debug(),
                long.len()
            ),
        ));
    }
    for (i, component) in components.iter().enumerate() {
        match *component {
            ".." => return Err(outside("climbs out with \"..\"")),
            "" if i + 1 == components.len() => {
                return Err(invalid("ends with \"/\"; it must name a file"))
            }
            "" => return Err(invalid("has an empty component (\"//\")")),
            "." => return Err(invalid("has a \".\" component")),
            c if is_dotgit(c) => {
                return Err(PathProblem::new(
                    ProblemKind::ProtectedPath,
                    format!(
                        "docPath \"{}\" is inside .git (\"{}\" is .git to git, or on Windows or macOS); patchdeck never writes there",
                        doc_path.escape_debug(),
                        c.escape_debug()
                    ),
                ))
            }
            // At any depth: a batch could plant sub/.patchdeck/journal for a later --root sub.
            c if names_like(c, STATE_DIR) => {
                return Err(PathProblem::new(
                    ProblemKind::ProtectedPath,
                    format!(
                        "docPath \"{}\" is inside {STATE_DIR} (\"{}\"), patchdeck's own state",
                        doc_path.escape_debug(),
                        c.escape_debug()
                    ),
                ))
            }
            _ => {}
        }
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general fold: NFC, then Unicode lowercase.
    fn fold_by_unicode(name: &str) -> String {
        use unicode_normalization::UnicodeNormalization;
        name.nfc().collect::<String>().to_lowercase()
    }

    /// Every one- and two-character ASCII name, and some longer ones.
    fn ascii_names() -> Vec<String> {
        let chars: Vec<char> = (0u8..128).map(char::from).collect();
        let mut names: Vec<String> = chars.iter().map(|c| c.to_string()).collect();
        for a in &chars {
            for b in &chars {
                names.push(format!("{a}{b}"));
            }
        }
        names.extend(
            [
                ".GIT",
                "Git~1",
                ".git. . ",
                ".git:stream",
                "a\\.Git",
                ".PatchDeck.",
                "Src/Main.RS",
            ]
            .map(str::to_owned),
        );
        names
    }

    #[test]
    fn an_ascii_name_folds_as_unicode_would_fold_it() {
        for name in ascii_names() {
            assert_eq!(fold(&name), fold_by_unicode(&name), "{name:?}");
        }
        // Outside ASCII, the general fold: composed, then lowercased.
        assert_eq!(fold("Cafe\u{301}.TXT"), "caf\u{e9}.txt");
        assert_eq!(fold("\u{c9}T\u{c9}"), "\u{e9}t\u{e9}");
    }

    #[test]
    fn an_ascii_component_names_git_exactly_when_its_filtered_copy_does() {
        let by_copy = |component: &str, name: &str| {
            component.split('\\').any(|part| {
                let part: String = part.chars().filter(|c| !HFS_IGNORED.contains(c)).collect();
                let part = part.split(':').next().unwrap_or_default();
                part.trim_end_matches([' ', '.']).eq_ignore_ascii_case(name)
            })
        };
        let mut matched = 0;
        for component in ascii_names() {
            for name in [".git", "git~1", STATE_DIR] {
                let like = names_like(&component, name);
                assert_eq!(like, by_copy(&component, name), "{component:?} as {name:?}");
                matched += usize::from(like);
            }
        }
        assert!(matched >= 5, "the names cover matches too, found {matched}");
        // Outside ASCII, the code points HFS+ ignores are still dropped.
        assert!(is_dotgit(".g\u{200c}IT"));
        assert!(!is_dotgit(".g\u{e9}it"));
    }

    #[test]
    fn a_repo_path_is_what_the_check_lets_through() {
        let (path, names) = RepoPath::parse("src/main.rs").unwrap();
        assert_eq!(path.as_path(), Path::new("src/main.rs"));
        assert_eq!(names, ["src", "main.rs"]);
        assert_eq!(path.join("x").unwrap().as_str(), "src/main.rs/x");
        assert!(path.join("..").is_err());
        assert!(RepoPath::root().join(".git").is_err());
        for bad in [
            "",
            "/etc/passwd",
            "a/../b",
            "a//b",
            "./a",
            ".git/config",
            ".patchdeck/journal",
        ] {
            assert!(RepoPath::parse(bad).is_err(), "{bad:?}");
            assert!(RepoPath::from_record(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert!(plain_names(Path::new("a/../b")).is_err());
        assert_eq!(plain_names(Path::new(".patchdeck/x")).unwrap().len(), 2);
    }
}
