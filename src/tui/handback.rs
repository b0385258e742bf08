//! Handing a batch back from the reviewer: `F` writes the feedback for the model that wrote it
//! (what failed and what is really on disk, as `patchdeck feedback` prints it) and `X` writes
//! the batch as decided, rebased on the files as they are (as `patchdeck export` prints it).
//! Both go to files under the workspace's state folder, named by the batch, and the status
//! line says where. Each is a new file renamed into place ([`crate::state::write_fresh`]):
//! whatever stands at its name (a link a clone planted, say) is replaced, never written through.

use super::app::{App, Tone};
use crate::fs::Root;
use crate::state::State;
use crate::{export, feedback};
use std::path::PathBuf;

/// Folder under the state folder for what the reviewer hands back.
const HANDBACK_DIR: &str = "handback";

impl App {
    /// `F`: writes the feedback on the batch in view, as decided so far.
    pub(super) fn write_feedback(&mut self) {
        if self.refused_read_only("patchdeck feedback") {
            return;
        }
        let message = feedback::message(self.review().checked(), self.review().decisions());
        let failed = message.summary.failed;
        match self.hand_back("feedback.md", message.to_markdown().as_bytes()) {
            Ok(path) => {
                let what = match failed {
                    0 => "no change failed; the feedback says so".to_owned(),
                    n => format!("feedback on {n} failed change(s)"),
                };
                self.say(Tone::Info, format!("{what}: written to {}", path.display()));
            }
            Err(e) => self.say(
                Tone::Error,
                format!(
                    "could not write the feedback under {}: {e}",
                    self.workspace.state_dir().display()
                ),
            ),
        }
    }

    /// `X`: writes the batch as decided, rebased on the files as they are now (TUL-002), or
    /// says why it cannot be.
    pub(super) fn write_export(&mut self) {
        if self.refused_read_only("patchdeck export") {
            return;
        }
        let exported = export::export(
            self.review().checked(),
            self.review().decisions(),
            export::Format::Tul002,
        );
        let exported = match exported {
            Ok(exported) => exported,
            Err(refusal) => {
                let mut text = format!("nothing exported: {refusal}");
                if let Some(hint) = refusal.hint() {
                    text.push_str(&format!(" ({hint})"));
                }
                self.say(Tone::Error, text);
                return;
            }
        };
        match self.hand_back("export.json", &exported.bytes) {
            Ok(path) => self.say(
                Tone::Info,
                format!(
                    "exported {} change(s) in {} file(s) as decided: {} (`patchdeck apply` it as is)",
                    exported.changes,
                    exported.files,
                    path.display()
                ),
            ),
            Err(e) => self.say(
                Tone::Error,
                format!("could not write the export under {}: {e}", self.workspace.state_dir().display()),
            ),
        }
    }

    /// Read-only writes nothing, not even here: says so, and which command prints it instead.
    fn refused_read_only(&mut self, command: &str) -> bool {
        if self.config.read_only {
            let text = format!("read-only: nothing is written; `{command} INPUT` prints it");
            self.say(Tone::Error, text);
        }
        self.config.read_only
    }

    /// Writes a file handed back for this batch, its folder made:
    /// `.patchdeck/handback/<batch>-<name>`; where it went.
    fn hand_back(&self, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let sha = &self.review().batch().content_sha256;
        let name = format!("{}-{name}", &sha[..sha.len().min(12)]);
        let root = Root::open(self.workspace.root())?;
        let state = State::ensure(&root)?;
        let dir = state.folder(HANDBACK_DIR, true)?.expect("made");
        crate::state::write_fresh(&dir, name.as_ref(), bytes, true)?;
        Ok(self.workspace.root().join(dir.rel()).join(name))
    }
}
