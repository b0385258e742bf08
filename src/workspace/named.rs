//! Files found by their last name, for a message naming the files a bare name may have meant
//! (`src/app.py` for an `app.py` that does not exist). A walk of the workspace, bounded: never
//! on a batch's normal path, only when a name leads nowhere.

use super::Workspace;
use crate::fs::path::STATE_DIR;
use crate::fs::Kind;
use std::collections::VecDeque;
use std::path::Path;

/// Folders a search by name does not enter: git's, patchdeck's, and the usual build output
/// and dependencies (what git ignores is not read).
const SKIPPED: &[&str] = &[".git", STATE_DIR, "target", "node_modules"];

/// How many names a search by name looks at before it stops.
const NAMES_WALKED: usize = 20_000;

impl Workspace {
    /// The root-relative paths of up to `limit` regular files named `base`, shallowest first
    /// (and by name within a folder). The walk opens each folder from the root without
    /// following a link, does not enter `.git`, `.patchdeck`, `target` or `node_modules`,
    /// skips names that are not UTF-8, and stops after 20,000 names.
    pub fn named(&self, base: &str, limit: usize) -> Vec<String> {
        let mut found = Vec::new();
        let mut walked = 0;
        let mut folders: VecDeque<String> = VecDeque::from([String::new()]);
        while let Some(rel) = folders.pop_front() {
            let Ok(dir) = self.beneath().dir(Path::new(&rel)) else {
                continue;
            };
            for name in dir.list().unwrap_or_default() {
                walked += 1;
                if walked > NAMES_WALKED || found.len() >= limit {
                    return found;
                }
                let Some(text) = name.to_str() else {
                    continue;
                };
                let path = match rel.is_empty() {
                    true => text.to_owned(),
                    false => format!("{rel}/{text}"),
                };
                match dir.stat(&name) {
                    Ok(Some(stat)) if stat.kind == Kind::Dir && !SKIPPED.contains(&text) => {
                        folders.push_back(path)
                    }
                    Ok(Some(stat)) if stat.kind == Kind::File && text == base => found.push(path),
                    _ => {}
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn files_are_named_shallowest_first_skipping_build_and_state_folders() {
        let dir = tempfile::tempdir().unwrap();
        for rel in [
            "b/deep/app.py",
            "a/app.py",
            "target/app.py",
            "node_modules/x/app.py",
            ".git/app.py",
            "a/app.pyc",
        ] {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, b"x\n").unwrap();
        }
        fs::create_dir_all(dir.path().join("c/app.py")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("link")).unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        assert_eq!(workspace.named("app.py", 5), ["a/app.py", "b/deep/app.py"]);
        assert_eq!(workspace.named("app.py", 1), ["a/app.py"]);
        assert!(workspace.named("none.py", 5).is_empty());
    }
}
