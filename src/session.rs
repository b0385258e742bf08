//! Review sessions: the decisions about a batch, saved as they are made so a review survives
//! quitting, a crash or a closed terminal.
//!
//! A session is a [`Decisions`] file under the workspace's `.patchdeck/sessions/`, named by the
//! SHA-256 of the batch input, so reopening the same batch finds it and a changed batch starts
//! over. It is sealed for this user and this workspace ([`crate::state`]): a session that came
//! with a cloned repository, an archive or a copy of another workspace is never resumed (the
//! reviewer says why, and the first decision replaces it). Past its seal line, the file is
//! exactly what `patchdeck apply --decisions FILE` reads. Every save is a new file renamed over
//! the old one, fsynced, so a session is always either the old or the new decisions, never
//! half of each, and never written through a link. This module does not decide anything itself.

use crate::fs::{Dir, Root};
use crate::model::Batch;
use crate::review::Decisions;
use crate::state::{self, seal::Purpose, State};
use crate::workspace::Workspace;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::state::SESSIONS_DIR;

/// Where one batch's decisions are saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    root: PathBuf,
    name: String,
    /// Where it is, for messages.
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
        let name = format!("{}.json", batch.content_sha256);
        Session {
            root: workspace.root().to_path_buf(),
            path: workspace.state_dir().join(SESSIONS_DIR).join(&name),
            name,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where `--fresh` keeps a copy of the session it starts over from.
    pub fn backup_path(&self) -> PathBuf {
        self.path.with_extension("json.bak")
    }

    /// The state folder and its sessions folder, made when `create` says so.
    fn folder(&self, create: bool) -> io::Result<Option<(State, Dir)>> {
        let root = Root::open(&self.root)?;
        let state = match create {
            true => State::ensure(&root)?,
            false => match State::open(&root)? {
                Some(state) => state,
                None => return Ok(None),
            },
        };
        Ok(state
            .folder(SESSIONS_DIR, create)?
            .map(|sessions| (state, sessions)))
    }

    /// The saved decisions for `batch`, or none decided when there is no usable session or
    /// `fresh` asks to start over. A session that is not this user's, made in this workspace,
    /// or that names changes the batch does not have, is not used (it says why), rather than
    /// half applied.
    pub fn resume(&self, batch: &Batch, fresh: bool) -> Resumed {
        let start = |warning| Resumed {
            decisions: Decisions::undecided(batch),
            restored: 0,
            warning,
            set_aside: None,
        };
        let not_used =
            |e: &dyn std::fmt::Display| start(Some(format!("saved session not used: {e}")));
        let (state, dir) = match self.folder(false) {
            Ok(Some(found)) => found,
            Ok(None) => return start(None),
            Err(e) => return not_used(&e),
        };
        let path = self.path.display().to_string();
        let name = self.name.as_ref();
        let decisions = state
            .read_sealed(&dir, name, Purpose::Session, Decisions::MOST_BYTES)
            .map_err(|e| match state::seal::as_foreign(&e) {
                Some(foreign) => format!("{foreign}; your first decision replaces it"),
                None => e.to_string(),
            });
        let decisions = match decisions {
            Ok(Some(record)) => {
                Decisions::parse(&path, &record.body, batch).map_err(|e| e.to_string())
            }
            Ok(None) => return start(None),
            Err(e) => Err(e),
        };
        if fresh {
            let held = decisions.map_or(0, |(d, _)| d.made_on(batch).decided().len());
            let backup = self.backup_path();
            let copy = OsString::from(format!("{}.bak", self.name));
            let kept = state::read(&dir, name, Decisions::MOST_BYTES).and_then(|bytes| {
                state::write_fresh(&dir, &copy, &bytes.unwrap_or_default(), true)
            });
            return match kept {
                Ok(()) => Resumed {
                    set_aside: Some((held, backup)),
                    ..start(None)
                },
                Err(e) => start(Some(format!(
                    "--fresh could not keep a copy of the saved session at {}: {e}; the session is overwritten at your first decision",
                    backup.display()
                ))),
            };
        }
        match decisions {
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
            Err(e) => not_used(&e),
        }
    }

    /// Saves the decisions, sealed, atomically, creating the state folder (which ignores
    /// itself in git) and the sessions folder when needed.
    pub fn save(&self, decisions: &Decisions) -> io::Result<()> {
        let (state, dir) = self.folder(true)?.expect("made");
        let mut json = serde_json::to_vec_pretty(decisions).expect("decisions always serialise");
        json.push(b'\n');
        state.write_sealed(&dir, self.name.as_ref(), Purpose::Session, &json, true)
    }

    /// Moves the session into the undo record of the commit its decisions made (`history_id`),
    /// where `patchdeck undo` finds it and puts it back; without a record, forgets it.
    pub fn keep_for_undo(&self, history_id: Option<&str>) -> io::Result<()> {
        let Some((state, dir)) = self.folder(false)? else {
            return Ok(());
        };
        if dir.stat(self.name.as_ref())?.is_none() {
            return Ok(());
        }
        let record = match history_id {
            Some(id) => state
                .folder(state::HISTORY_DIR, false)?
                .map(|history| state.folder_in(&history, id.as_ref(), false))
                .transpose()?
                .flatten(),
            None => None,
        };
        match record {
            Some(record) => {
                let kept = OsString::from(format!("{}{}", state::KEPT_SESSION, self.name));
                dir.rename(self.name.as_ref(), &record, &kept)?;
                record.sync()?;
                dir.sync()
            }
            None => dir.remove_file_if_exists(self.name.as_ref()),
        }
    }

    /// Forgets the session (after its decisions were committed).
    pub fn remove(&self) -> io::Result<()> {
        match self.folder(false)? {
            Some((_, dir)) => dir.remove_file_if_exists(self.name.as_ref()),
            None => Ok(()),
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
