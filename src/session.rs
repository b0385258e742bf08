//! Review sessions: the decisions about a batch, saved as they are made so a review survives
//! quitting, a crash or a closed terminal.
//!
//! A session is a [`Decisions`] file under the workspace's `.patchdeck/sessions/`, named by the
//! SHA-256 of the batch input, so reopening the same batch finds it and a changed batch starts
//! over. The file is exactly what `patchdeck apply --decisions FILE` reads. Every save is atomic
//! (a temporary file beside it, fsynced, renamed over it), so a session is always either the old
//! or the new decisions, never half of each. This module does not decide anything itself.

use crate::model::Batch;
use crate::review::Decisions;
use crate::workspace::Workspace;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Folder under the state folder that holds the sessions.
pub const SESSIONS_DIR: &str = "sessions";

/// Where one batch's decisions are saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    path: PathBuf,
}

/// What opening a session found.
#[derive(Debug)]
pub struct Resumed {
    pub decisions: Decisions,
    /// How many decisions were restored from disk (0 for a fresh start).
    pub restored: usize,
    /// Why a saved session could not be used, when it could not.
    pub warning: Option<String>,
    /// A session set aside by `fresh`: how many decisions it holds and the copy kept of it.
    /// The session itself is left as it is until the first decision is saved over it.
    pub set_aside: Option<(usize, PathBuf)>,
}

impl Session {
    /// The session of `batch` in `workspace`.
    pub fn for_batch(workspace: &Workspace, batch: &Batch) -> Session {
        Session {
            path: workspace
                .state_dir()
                .join(SESSIONS_DIR)
                .join(format!("{}.json", batch.content_sha256)),
        }
    }

    /// A session at an explicit path (for tests and tools).
    pub fn at(path: impl Into<PathBuf>) -> Session {
        Session { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The saved decisions for `batch`, or none decided when there is no usable session or
    /// `fresh` asks to start over. A session that names changes the batch does not have is
    /// not used (it says why), rather than half applied.
    pub fn resume(&self, batch: &Batch, fresh: bool) -> Resumed {
        let start = |warning| Resumed {
            decisions: Decisions::undecided(batch),
            restored: 0,
            warning,
            set_aside: None,
        };
        if !self.path.exists() {
            return start(None);
        }
        let path = self.path.display().to_string();
        if fresh {
            let held =
                Decisions::load(&path, batch).map_or(0, |(d, _)| d.made_on(batch).decided().len());
            let backup = self.backup_path();
            return match fs::copy(&self.path, &backup) {
                Ok(_) => Resumed {
                    set_aside: Some((held, backup)),
                    ..start(None)
                },
                Err(e) => start(Some(format!(
                    "--fresh could not keep a copy of the saved session at {}: {e}; the session is overwritten at your first decision",
                    backup.display()
                ))),
            };
        }
        match Decisions::load(&path, batch) {
            Ok((decisions, _)) => {
                let decisions = decisions.made_on(batch);
                let restored = decisions.decided().len();
                Resumed {
                    decisions,
                    restored,
                    warning: None,
                    set_aside: None,
                }
            }
            Err(e) => start(Some(format!("saved session not used: {e}"))),
        }
    }

    /// Where `--fresh` keeps a copy of the session it starts over from.
    pub fn backup_path(&self) -> PathBuf {
        self.path.with_extension("json.bak")
    }

    /// Saves the decisions atomically, creating the state folder (which ignores itself in git)
    /// and the sessions folder when needed.
    pub fn save(&self, decisions: &Decisions) -> io::Result<()> {
        let dir = self.path.parent().expect("a session path has a folder");
        let state_dir = dir.parent().expect("sessions sit in the state folder");
        crate::workspace::ensure_state_subdir(state_dir, SESSIONS_DIR)?;
        let json = serde_json::to_vec_pretty(decisions).expect("decisions always serialise");
        let name = self
            .path
            .file_name()
            .expect("a session path names a file")
            .to_string_lossy();
        let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let written = (|| {
            let mut file = File::create(&temp)?;
            file.write_all(&json)?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            fs::rename(&temp, &self.path)?;
            File::open(dir)?.sync_all()
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }

    /// Forgets the session (after its decisions were committed).
    pub fn remove(&self) -> io::Result<()> {
        match fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, Input};
    use crate::model::ChangeId;

    fn batch(dir: &Path) -> (Workspace, Batch) {
        let workspace = Workspace::open(dir).unwrap();
        let json = br#"{"batchKey": "k", "files": [{"docPath": "a.txt",
            "originalSha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "changes": [
            {"changeKey": "one", "operation": "insert", "afterLine": 0, "newLines": ["x"]}]}]}"#;
        let batch =
            formats::load(&Input::from_bytes("b.json", &json[..]), None, &workspace).unwrap();
        (workspace, batch)
    }

    #[test]
    fn saved_decisions_resume_and_fresh_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let (workspace, batch) = batch(dir.path());
        let session = Session::for_batch(&workspace, &batch);
        assert!(session
            .path()
            .ends_with(format!("sessions/{}.json", batch.content_sha256)));
        let id: ChangeId = batch.files[0].changes[0].id.clone();
        // As a file a person could write: one edited change.
        let decisions: Decisions = serde_json::from_value(serde_json::json!({
            "batch": batch.content_sha256,
            "decisions": {id.as_str(): {"edit": ["y"]}}
        }))
        .unwrap();
        session.save(&decisions).unwrap();
        assert!(workspace.state_dir().join(".gitignore").exists());

        let resumed = session.resume(&batch, false);
        assert_eq!(resumed.restored, 1);
        assert_eq!(resumed.decisions, decisions);
        assert_eq!(session.resume(&batch, true).restored, 0);

        session.remove().unwrap();
        assert_eq!(session.resume(&batch, false).restored, 0);
    }

    #[test]
    fn a_session_naming_unknown_changes_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let (workspace, batch) = batch(dir.path());
        let session = Session::for_batch(&workspace, &batch);
        let decisions = Decisions::accepting(&batch, [ChangeId("chg-nowhere".into())]);
        session.save(&decisions).unwrap();
        let resumed = session.resume(&batch, false);
        assert_eq!(resumed.restored, 0);
        assert!(resumed.warning.unwrap().contains("chg-nowhere"));
    }
}
