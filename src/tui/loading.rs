//! The reviewer while a large batch loads behind its first screen (see [`crate::loading`]).
//!
//! The first screen shows the batch's first files, and the person may look through them: move
//! between their changes and files, scroll, open the help, quit. Every other key (deciding,
//! searching, committing, or moving past the last file shown) is held, in the order typed, and
//! replayed on the whole batch once it is there; from the first key held on, every key but
//! `Ctrl-c` is held, and the mouse ignored, so none overtakes another. When the whole batch
//! arrives it takes the first files' place: the cursor stays on the change it was on (found
//! by what it is), the saved session is resumed, and the held keys are handed to the event
//! loop, which replays them until one opens a question (a confirmation, the commit summary,
//! the editor): the keys after it were not typed for it, and are dropped, saying so. They are
//! all dropped when the session has something to say first, or when the change they were
//! typed on is not in the whole batch as it was shown. A batch that cannot be loaded ends the reviewer with
//! the error any command would give.

use super::app::{resume, App, Behind, Effect, ReviewerSetup, Tone};
use super::keys::{Action, Key, Mode};
use crate::error::Error;
#[cfg(doc)]
use crate::loading::FirstFiles;
use crate::loading::{Loaded, Loading};
use crate::pipeline::LoadStage;
use crate::review::{At, Review};
use crate::session::Session;

/// What the header says while the whole batch loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadingStatus {
    /// File patches shown.
    pub shown: usize,
    /// File sections in the whole batch.
    pub of: usize,
    pub stage: LoadStage,
    /// Keys waiting for the whole batch.
    pub held: usize,
}

/// What the whole batch's arrival did.
#[derive(Debug)]
pub enum Arrived {
    /// It took the first files' place; these keys were held for it, to be replayed in order.
    Loaded(Vec<Key>),
    /// It could not be loaded: the reviewer ends with this error.
    Failed(Error),
}

impl App {
    /// A reviewer over the first files of a batch ([`FirstFiles`]: `setup.checked` is theirs,
    /// and `of` says how many the batch has) while `loading` loads the whole of it.
    /// `setup.session` is not used: the session is the whole batch's, found once it is loaded
    /// (none in read-only mode).
    pub fn behind(setup: ReviewerSetup, of: usize, loading: Loading) -> App {
        let fresh = setup.fresh;
        let mut app = App::new(ReviewerSetup {
            session: None,
            fresh: false,
            ..setup
        });
        app.loading = Some(Behind {
            loading,
            of,
            held: Vec::new(),
            fresh,
            shown: None,
        });
        app
    }

    /// What the header says while the whole batch loads; `None` once it is there.
    pub fn loading_status(&self) -> Option<LoadingStatus> {
        self.loading.as_ref().map(|behind| LoadingStatus {
            shown: self.review().batch().files.len(),
            of: behind.of,
            stage: behind.loading.stage(),
            held: behind.held.len(),
        })
    }

    /// Whether the whole batch is still loading.
    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Whether the load moved on to a stage the screen does not show yet (so it is redrawn).
    pub fn loading_moved_on(&mut self) -> bool {
        match &mut self.loading {
            Some(behind) => {
                let stage = Some(behind.loading.stage());
                std::mem::replace(&mut behind.shown, stage) != stage
            }
            None => false,
        }
    }

    /// Holds `key` for the whole batch unless it only looks through the first files; false
    /// when it is not held (or nothing is loading), for the key map to handle it now.
    pub(super) fn hold_while_loading(&mut self, key: Key) -> bool {
        let Some(behind) = &self.loading else {
            return false;
        };
        // Ctrl-c never waits (the keys held are dropped with the reviewer). `q` waits behind
        // held keys: it may be a letter of a search typed ahead.
        let interrupts = key == Key::Ctrl('c') && self.mode() == Mode::Browse;
        if interrupts || (behind.held.is_empty() && self.only_looks(key)) {
            return false;
        }
        let behind = self.loading.as_mut().expect("loading");
        behind.held.push(key);
        let held = behind.held.len();
        self.say(
            Tone::Info,
            format!(
                "{held} key(s) wait for the rest of the batch, which is loading; they are done in order once it is there"
            ),
        );
        true
    }

    /// Whether `key` only looks through the first files as they are shown: moving within
    /// them, scrolling, the help, quitting.
    fn only_looks(&self, key: Key) -> bool {
        let Some(action) = self.keymap.lookup(self.mode(), key) else {
            return true;
        };
        if self.mode() != Mode::Browse {
            // Only the help opens while loading: any key closes it or scrolls it.
            return self.mode() == Mode::Help;
        }
        let last = self.flat.len().saturating_sub(1);
        let last_file = self.flat.last().map_or(0, |at| at.file);
        match action {
            Action::NextChange => self.pos < last,
            Action::NextFile => self.file_index() < last_file,
            Action::PrevChange
            | Action::PrevFile
            | Action::FirstChange
            | Action::PageDown
            | Action::PageUp
            | Action::DiffTop
            | Action::DiffEnd
            | Action::ScrollLeft
            | Action::ScrollRight
            | Action::ToggleWholeFile
            | Action::Help
            | Action::Quit => true,
            _ => false,
        }
    }

    /// Takes the whole batch in if it has arrived; `None` while it is still loading.
    pub fn poll_loading(&mut self) -> Option<Arrived> {
        let arrived = self.loading.as_ref()?.loading.try_take()?;
        let behind = self.loading.take().expect("loading");
        Some(match arrived {
            Ok(loaded) => {
                let held = behind.held;
                let Taken { quiet, found } = self.take_whole(loaded, behind.fresh, held.is_empty());
                if held.is_empty() || (quiet && found) {
                    return Some(Arrived::Loaded(held));
                }
                let why = match found {
                    // What the session said is for the person to read before anything is done.
                    true => "so that you read this first",
                    false => "the change they were typed on is not in the whole batch as it was shown (a later part of the batch changed it)",
                };
                let said = self.message.take().map(|m| format!("{}; ", m.text));
                self.say(
                    Tone::Warning,
                    format!(
                        "{}the {} key(s) typed while the batch loaded were not done: {why}",
                        said.unwrap_or_default(),
                        held.len()
                    ),
                );
                Arrived::Loaded(Vec::new())
            }
            Err(error) => Arrived::Failed(error),
        })
    }

    /// Replays the keys held for the whole batch, in order, until one opens a question (a
    /// confirmation, the commit summary, a place to choose) or asks the loop for something
    /// (the editor): the keys after it were not typed for it, and are dropped. Returns what
    /// the last key replayed asks of the loop, and how many keys were dropped, for
    /// [`App::say_dropped`] once the loop has done it (the editor says what it did first).
    pub fn replay(&mut self, held: Vec<Key>) -> (Effect, usize) {
        let mut keys = held.into_iter();
        while let Some(key) = keys.next() {
            let effect = self.key(key);
            // A search being typed, or the help, asks nothing.
            let asks = !matches!(self.mode(), Mode::Browse | Mode::Search | Mode::Help);
            if effect != Effect::None || asks {
                return (effect, keys.len());
            }
        }
        (Effect::None, 0)
    }

    /// Says that `dropped` keys held for the whole batch were not done, after what the
    /// status line says already.
    pub fn say_dropped(&mut self, dropped: usize) {
        if dropped == 0 {
            return;
        }
        let said = self.message.take().map(|m| format!("{}; ", m.text));
        let text = format!(
            "{}{dropped} more key(s) typed while the batch loaded were not done: the reviewer asks first",
            said.unwrap_or_default()
        );
        self.say(Tone::Warning, text);
    }

    /// Whether keys wait for the whole batch (the mouse waits too, then: it is ignored).
    pub fn holds_keys(&self) -> bool {
        self.loading.as_ref().is_some_and(|b| !b.held.is_empty())
    }

    /// Puts the whole batch in the first files' place, on the change the cursor was on, found
    /// by what it is (its file's path, its lines and what it writes), not by its place: a
    /// later section of a diff can join a file shown and add changes before it. When keys
    /// were held, the cursor stays on that change even when decisions are resumed: they were
    /// typed for it.
    fn take_whole(&mut self, loaded: Loaded, fresh: bool, none_held: bool) -> Taken {
        let Loaded { workspace, checked } = loaded;
        let was = self.selected().map(|at| {
            let view = self.review().change(at);
            (view.file.doc_path.clone(), view.change.clone())
        });
        let moved = self.pos > 0;
        let session =
            (!self.config.read_only).then(|| Session::for_batch(&workspace, &checked.batch));
        let mut resumed = resume(session.as_ref(), &checked, fresh);
        let quiet = resumed.warning.is_none() && resumed.set_aside.is_none();
        self.workspace = workspace;
        *self.review_mut() = Review::new(checked, std::mem::take(&mut resumed.decisions));
        self.forget_file_caches();
        self.resumed(session, resumed, !moved && none_held);
        let at = was.and_then(|(path, change)| {
            let files = &self.review().batch().files;
            let file = files.iter().position(|f| f.doc_path == path)?;
            let same = |c: &crate::model::Change| {
                c.operation == change.operation
                    && c.range == change.range
                    && c.expected == change.expected
                    && c.new_lines == change.new_lines
            };
            let index = files[file].changes.iter().position(same)?;
            Some(self.pos_of(At {
                file,
                change: index,
            }))
        });
        if moved || !none_held {
            match at {
                Some(pos) => self.pos = pos,
                None => self.go(0),
            }
        }
        Taken {
            quiet,
            found: at.is_some(),
        }
    }
}

/// What putting the whole batch in place found.
struct Taken {
    /// Resuming the session has nothing to say the person must read first (a session not
    /// used, one set aside by `--fresh`).
    quiet: bool,
    /// The change the cursor was on is in the whole batch, as it was.
    found: bool,
}
