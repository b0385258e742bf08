//! The reviewer's state and its `update`: what each [`Action`] does to it.
//!
//! [`App`] holds a [`Review`] (the batch, its decisions and their history, all in the core),
//! the cursor, and the overlay in front, if any; `update` is the only place state changes in
//! answer to a person. Work that needs the terminal (running the editor) comes back as an
//! [`Effect`] for the event loop. Deciding lives in `decide`, the commit in `commit_flow`,
//! search in `search`, placing in `place`, the load behind the first files in `loading`,
//! scrolling in `scroll`: each adds to `App`, and the state they keep in it (a [`Search`], a
//! [`Placing`], a [`Behind`]) is defined here, so this file names none of them. What a key
//! needs measured (a page, how far a pane scrolls) is asked of `layout`, as the drawing asks
//! it; drawing reads this state and never changes it.

use super::env::Env;
use super::highlight::Highlighter;
use super::keys::{self, Action, Key, Mode};
use super::saver::Saver;
use super::theme::Palette;
use super::words::Words;
use crate::commit::Committed;
use crate::lines::LineIndex;
use crate::loading::Loading;
use crate::model::FilePatch;
use crate::pipeline::LoadStage;
use crate::review::{At, ChangeView, Decision, Decisions, Review};
use crate::session::{Resumed, Session};
use crate::verify::Checked;
use crate::verify::FileCheck;
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::sync::Arc;

/// Choices made on the command line.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Commit is refused (the patch tool's restricted mode); no session is written either.
    pub read_only: bool,
    /// Where to write the JSON report after a commit.
    pub report: Option<PathBuf>,
    /// Stage the written files in git after a commit (the configuration's `stage`).
    pub stage: bool,
}

/// Everything a reviewer is opened with, built once by whoever opens it (`review`, `demo`,
/// the tests, the benchmarks).
pub struct ReviewerSetup {
    pub workspace: Workspace,
    pub checked: Checked,
    pub env: Env,
    pub palette: Palette,
    pub keymap: keys::KeyMap,
    pub config: Config,
    /// Where decisions are saved (none in read-only mode).
    pub session: Option<Session>,
    /// Start over instead of resuming the saved session.
    pub fresh: bool,
}

/// Something only the event loop can do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    Quit,
    /// Suspend the screen and run the editor on this buffer for the change at `pos`.
    RunEditor {
        pos: usize,
        buffer: String,
    },
}

/// How a message in the status line reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub tone: Tone,
    pub text: String,
}

/// What the last commit attempt did.
#[derive(Debug)]
pub enum Outcome {
    Written {
        committed: Box<Committed>,
        report: Option<Result<PathBuf, String>>,
    },
    Failed(String),
}

/// An edit that could not be used, kept so the person can edit it again.
#[derive(Clone, Debug)]
pub struct FailedEdit {
    pub pos: usize,
    pub buffer: String,
    pub reason: String,
}

/// The decisions a review of `checked` starts from: the ones saved in `session` (unless
/// `fresh`), else none.
pub(super) fn resume(session: Option<&Session>, checked: &Checked, fresh: bool) -> Resumed {
    match session {
        Some(session) => session.resume(&checked.batch, fresh),
        None => Resumed {
            decisions: Decisions::undecided(&checked.batch),
            restored: 0,
            warning: None,
            set_aside: None,
        },
    }
}

/// Which changes moving through the batch visits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    #[default]
    All,
    Undecided,
    OpenConflicts,
}

impl Filter {
    fn next(self) -> Filter {
        match self {
            Filter::All => Filter::Undecided,
            Filter::Undecided => Filter::OpenConflicts,
            Filter::OpenConflicts => Filter::All,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Filter::All => "every change",
            Filter::Undecided => "undecided changes",
            Filter::OpenConflicts => "open conflicts",
        }
    }
}

/// What is in front of the review and takes the keys, when something is.
#[derive(Debug)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    /// A search being typed (in the status line).
    Search,
    /// What a commit would write, before it does (its line counts filled in as they are
    /// made: see [`super::summary::Summary`]).
    CommitSummary(super::summary::Summary),
    /// What the last commit did ([`App::outcome`]).
    Committed {
        scroll: usize,
    },
    ConfirmQuit,
    EditFailed(FailedEdit),
    /// A commit stopped because this file changed on disk.
    Reload {
        what: String,
    },
    /// Choosing where a change goes.
    Place(Placing),
    /// Accepting every verified change, once the person says yes to how many.
    ConfirmAcceptVerified {
        count: usize,
    },
    /// Taking the proposal of the change at `pos` over the lines on disk, once the person has
    /// seen both sides.
    ConfirmTakeOver {
        pos: usize,
    },
    /// A note for the model being typed (in the status line).
    Note(super::note::Noting),
}

impl Overlay {
    /// How far the overlay's text is scrolled, for those that scroll.
    pub fn scroll_mut(&mut self) -> Option<&mut usize> {
        match self {
            Overlay::Help { scroll }
            | Overlay::CommitSummary(super::summary::Summary { scroll, .. })
            | Overlay::Committed { scroll } => Some(scroll),
            _ => None,
        }
    }

    /// How far the overlay's text is scrolled (0 for those that do not scroll).
    pub fn scroll(&self) -> usize {
        match self {
            Overlay::Help { scroll }
            | Overlay::CommitSummary(super::summary::Summary { scroll, .. })
            | Overlay::Committed { scroll } => *scroll,
            _ => 0,
        }
    }
}

/// The search: what is typed, the last one run and its matches (run by `search`).
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// What is being typed, while in search mode.
    pub input: String,
    /// The last search run.
    pub query: String,
    /// Positions (in batch order) of the changes that match `query`.
    pub matches: Vec<usize>,
    /// Where the search being typed started, and the search before it, to go back to on Esc.
    pub(super) origin: Option<Origin>,
}

/// The view and the search when `/` was pressed.
#[derive(Clone, Debug)]
pub(super) struct Origin {
    pub(super) pos: usize,
    pub(super) scroll: i64,
    pub(super) hscroll: Option<usize>,
    pub(super) query: String,
    pub(super) matches: Vec<usize>,
}

/// The placing under way (see `place`): the change, its candidate lines, which is shown, and
/// what is typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placing {
    pub at: At,
    pub candidates: Vec<usize>,
    pub shown: usize,
    /// A line being typed; it wins over the candidates while there is one.
    pub typed: String,
}

impl Placing {
    /// The line proposed now.
    pub fn line(&self) -> Option<usize> {
        match self.typed.parse() {
            Ok(line) => Some(line),
            Err(_) => self.candidates.get(self.shown).copied(),
        }
    }
}

/// What the reviewer keeps while the whole batch loads behind its first files (see
/// `loading`).
pub struct Behind {
    pub(super) loading: Loading,
    /// How many file sections the whole batch has.
    pub(super) of: usize,
    /// Keys typed that wait for the whole batch, in order.
    pub(super) held: Vec<Key>,
    /// Whether the saved session is set aside (`--fresh`), once the whole batch is there.
    pub(super) fresh: bool,
    /// The stage shown last, to redraw when it moves on.
    pub(super) shown: Option<LoadStage>,
}

/// The whole state of the reviewer.
pub struct App {
    pub workspace: Workspace,
    pub(super) review: Review,
    /// Every change's place, in batch order.
    pub flat: Vec<At>,
    /// Index into `flat` of the selected change.
    pub pos: usize,
    pub overlay: Option<Overlay>,
    pub whole_file: bool,
    /// Which changes moving visits.
    pub filter: Filter,
    /// Rows the main pane is scrolled from where it starts for the selected change.
    pub scroll: i64,
    /// Columns long lines are scrolled to the left; `None` until the person scrolls, which
    /// shows the selected change's first changed word (see `layout::main_pane::main_hscroll`).
    pub hscroll: Option<usize>,
    pub search: Search,
    pub message: Option<Message>,
    pub env: Env,
    pub palette: Palette,
    /// The key map in use (the built-in one unless the config file remaps actions).
    pub keymap: keys::KeyMap,
    pub highlighter: Highlighter,
    pub config: Config,
    pub(super) saver: Option<Saver>,
    /// Why the session could not be saved, while the last save failed.
    pub session_error: Option<String>,
    pub outcome: Option<Outcome>,
    /// Terminal size (columns, rows), for paging and mouse hits.
    pub size: (u16, u16),
    /// Decisions restored from a saved session at start.
    pub restored: usize,
    /// The whole batch, while it loads behind a first screen of its first files (see
    /// `super::loading`).
    pub(super) loading: Option<Behind>,
    /// The agent waiting for this review, when it came through `patchdeck gate`.
    pub caller: Option<super::caller::Caller>,
}

impl App {
    /// A reviewer over a verified batch, resuming its saved session unless asked to start
    /// over.
    pub fn new(setup: ReviewerSetup) -> App {
        let ReviewerSetup {
            workspace,
            checked,
            env,
            palette,
            keymap,
            config,
            session,
            fresh,
        } = setup;
        let highlighter = Highlighter::new(&palette);
        let mut resumed = resume(session.as_ref(), &checked, fresh);
        let review = Review::new(checked, std::mem::take(&mut resumed.decisions));
        let mut app = App {
            workspace,
            review,
            flat: Vec::new(),
            pos: 0,
            overlay: None,
            whole_file: false,
            filter: Filter::default(),
            scroll: 0,
            hscroll: None,
            search: Search::default(),
            message: None,
            env,
            palette,
            keymap,
            highlighter,
            config,
            saver: None,
            session_error: None,
            outcome: None,
            size: (120, 40),
            restored: 0,
            loading: None,
            caller: None,
        };
        app.resumed(session, resumed, true);
        app
    }

    /// Takes in a new review (the one it starts with, or the whole batch that took the place
    /// of its first files) with the session its decisions were resumed from: says what
    /// resuming found, and starts saving to `session`. `go_on`: the cursor goes to the first
    /// undecided change when decisions were restored.
    pub(super) fn resumed(&mut self, session: Option<Session>, resumed: Resumed, go_on: bool) {
        let Resumed {
            restored,
            warning,
            set_aside,
            ..
        } = resumed;
        self.flat = self.review.places().collect();
        self.restored = restored;
        self.saver = session.map(Saver::start);
        if let Some(warning) = warning {
            self.say(Tone::Warning, warning);
        } else if restored > 0 {
            self.say(
                Tone::Info,
                format!(
                    "resumed {restored} decision(s) from the saved session (--fresh starts over)"
                ),
            );
            if go_on {
                self.go(self.next_undecided_from(0).unwrap_or(0));
            }
        }
        if let Some((held, backup)) = set_aside {
            self.say(
                Tone::Warning,
                format!(
                    "--fresh: starting over; the {held} decision(s) saved before stay until your first decision, and a copy is kept in {}",
                    backup.display()
                ),
            );
        }
    }

    /// The review: the batch, its verification, the decisions and their history.
    pub fn review(&self) -> &Review {
        &self.review
    }

    pub(super) fn review_mut(&mut self) -> &mut Review {
        &mut self.review
    }

    pub fn decisions(&self) -> &Decisions {
        self.review.decisions()
    }

    /// The words of this reviewer, with its keys.
    pub fn words(&self) -> Words<'_> {
        Words::new(&self.keymap)
    }

    /// Which keys are live: the overlay's, or the review's.
    pub fn mode(&self) -> Mode {
        match &self.overlay {
            None => Mode::Browse,
            Some(Overlay::Help { .. }) => Mode::Help,
            Some(Overlay::Search) => Mode::Search,
            Some(Overlay::CommitSummary { .. }) => Mode::CommitSummary,
            Some(Overlay::Committed { .. }) => Mode::Committed,
            Some(Overlay::ConfirmQuit) => Mode::ConfirmQuit,
            Some(Overlay::EditFailed(_)) => Mode::EditFailed,
            Some(Overlay::Reload { .. }) => Mode::Reload,
            Some(Overlay::Place(_)) => Mode::Place,
            Some(Overlay::ConfirmAcceptVerified { .. }) => Mode::ConfirmAcceptVerified,
            Some(Overlay::ConfirmTakeOver { .. }) => Mode::ConfirmTakeOver,
            Some(Overlay::Note(_)) => Mode::Note,
        }
    }

    pub fn say(&mut self, tone: Tone, text: impl Into<String>) {
        self.message = Some(Message {
            tone,
            text: text.into(),
        });
    }

    /// The selected change's place, if the batch has any change.
    pub fn selected(&self) -> Option<At> {
        self.flat.get(self.pos).copied()
    }

    /// The file of the selected change (the first file when there is none).
    pub fn file_index(&self) -> usize {
        self.selected().map_or(0, |at| at.file)
    }

    pub fn file(&self, index: usize) -> (&FilePatch, &FileCheck) {
        (
            &self.review.batch().files[index],
            &self.review.verification().files[index],
        )
    }

    /// The change at `pos` with its file patch and verdicts.
    pub fn change(&self, pos: usize) -> ChangeView<'_> {
        self.review.change(self.flat[pos])
    }

    /// A file's path under the root (its docPath when it could not be resolved).
    pub fn file_path(&self, file: usize) -> String {
        self.review.change(At { file, change: 0 }).path()
    }

    /// The position in `flat` of a file's first change.
    pub fn first_of_file(&self, file: usize) -> Option<usize> {
        self.flat.iter().position(|at| at.file == file)
    }

    /// The position in `flat` of a change.
    pub fn pos_of(&self, at: At) -> usize {
        self.first_of_file(at.file)
            .map_or(0, |first| first + at.change)
    }

    /// The line index of a file's bytes on disk: the one verifying it made (shared with the
    /// background parser).
    pub fn line_index(&self, file: usize) -> Arc<LineIndex> {
        self.review.verification().files[file]
            .base()
            .map_or_else(Arc::default, |s| Arc::clone(s.line_index()))
    }

    /// Forgets everything read from the files (after they were read again).
    pub(super) fn forget_file_caches(&mut self) {
        self.highlighter.clear();
    }

    /// The session file, when decisions are being saved.
    pub fn session(&self) -> Option<&Session> {
        self.saver.as_ref().map(Saver::session)
    }

    pub(super) fn save_session(&mut self) {
        if let Some(saver) = &self.saver {
            saver.save(self.review.decisions());
        }
    }

    /// Waits until the session is on disk (before quitting, and in tests), and notes whether
    /// it is.
    pub fn flush_session(&mut self) {
        if let Some(saver) = &self.saver {
            saver.flush();
        }
        self.note_session_error();
    }

    /// Takes in what the saver last said: a failure is kept (and shown) until a save succeeds.
    fn note_session_error(&mut self) {
        let error = self.saver.as_ref().and_then(Saver::error);
        if error.is_some() && error != self.session_error {
            self.say(Tone::Error, error.clone().unwrap_or_default());
        }
        self.session_error = error;
    }

    /// What the status line says: the last message, or else a session that is not saved.
    pub fn status_text(&self) -> Option<(Tone, &str)> {
        match (&self.message, &self.session_error) {
            (Some(message), _) => Some((message.tone, message.text.as_str())),
            (None, Some(error)) => Some((Tone::Error, error.as_str())),
            (None, None) => None,
        }
    }

    /// Whether every decision is in the session file (after a flush); false in read-only mode
    /// or when the last save failed.
    pub fn session_saved(&self) -> bool {
        self.saver.is_some() && self.session_error.is_none()
    }

    /// Whether the change at `pos` was found a conflict: its own lines do not verify, or its
    /// file has a problem that blocks writing it (a SHA-256 mismatch, a file that already
    /// exists...). Whether it still is, is [`App::open_conflict`].
    pub fn conflicting(&self, pos: usize) -> bool {
        let view = self.change(pos);
        view.check.status != crate::verify::Status::Ok
            || view.file_check.problems.iter().any(|p| p.blocking)
    }

    /// Whether the change at `pos` is a conflict still open (the core's answer: not rejected,
    /// and not resolved). The header's count, `!`, the filter and the files pane all use it, so
    /// the count reaches 0 once every conflict is resolved.
    pub fn open_conflict(&self, pos: usize) -> bool {
        self.review.open_conflict(self.flat[pos])
    }

    /// Whether the batch is committed: decisions no longer change anything.
    pub fn committed(&self) -> bool {
        matches!(self.outcome, Some(Outcome::Written { .. }))
    }

    /// Handles a key: looks it up in the key map for the current mode and updates.
    pub fn key(&mut self, key: Key) -> Effect {
        if self.hold_while_loading(key) {
            return Effect::None;
        }
        if self.mode() == Mode::Search {
            if let Some(effect) = self.search_typing(key) {
                return effect;
            }
        }
        if let Some(effect) = self.note_typing(key) {
            return effect;
        }
        if let Some(effect) = self.place_typing(key) {
            return effect;
        }
        match self.keymap.lookup(self.mode(), key) {
            Some(action) => self.update(action),
            None => Effect::None,
        }
    }

    /// Does what an action asks in the current mode.
    pub fn update(&mut self, action: Action) -> Effect {
        if self.overlay.is_none() {
            self.message = None;
        }
        if self.scroll_overlay(action) {
            return Effect::None;
        }
        let effect = match self.overlay.take() {
            None => self.browse(action),
            Some(Overlay::Help { .. }) => Effect::None,
            Some(Overlay::Search) => self.search_action(action),
            Some(Overlay::CommitSummary(summary)) => self.summary_action(action, summary),
            Some(Overlay::Committed { .. }) => match action {
                Action::Quit => Effect::Quit,
                _ => Effect::None,
            },
            Some(Overlay::ConfirmQuit) => match action {
                Action::Confirm => Effect::Quit,
                _ => Effect::None,
            },
            Some(Overlay::EditFailed(failed)) => self.edit_failed_action(action, failed),
            Some(Overlay::Reload { what }) => self.reload_action(action, what),
            Some(Overlay::Place(placing)) => self.place_action(action, placing),
            Some(Overlay::Note(noting)) => self.note_action(action, noting),
            Some(Overlay::ConfirmTakeOver { pos }) => {
                if action == Action::Confirm {
                    self.take_over(pos);
                }
                Effect::None
            }
            Some(Overlay::ConfirmAcceptVerified { count }) => {
                if action == Action::Confirm {
                    let at = self.selected().unwrap_or_default();
                    let done = self.review.accept_verified(at);
                    self.save_session();
                    let text = match done == count {
                        true => format!("accepted {done} verified change(s)"),
                        false => format!(
                            "accepted {done} verified change(s) (not {count}: the batch changed)"
                        ),
                    };
                    self.say(Tone::Info, text);
                }
                Effect::None
            }
        };
        self.note_session_error();
        effect
    }

    fn browse(&mut self, action: Action) -> Effect {
        let decides = matches!(
            action,
            Action::Accept
                | Action::Reject
                | Action::Edit
                | Action::TakeOver
                | Action::RelocateAll
                | Action::Relocate
                | Action::Place
                | Action::AcceptVerified
                | Action::OverrideSha
                | Action::AcceptFile
                | Action::RejectFile
                | Action::Undo
                | Action::Redo
                | Action::Note
                | Action::BatchNote
        );
        if self.committed() && decides {
            let text = self.words().committed();
            self.say(Tone::Info, text);
            return Effect::None;
        }
        match action {
            Action::NextChange => self.step_to(|app, p| p > app.pos, false, ""),
            Action::PrevChange => self.step_to(|app, p| p < app.pos, true, ""),
            Action::NextFile => {
                let file = self.file_index();
                self.step_to(
                    |app, p| app.flat[p].file > file,
                    false,
                    "this is the last file",
                )
            }
            Action::PrevFile => {
                let file = self.file_index();
                let prev = (0..self.pos)
                    .rev()
                    .find(|&p| self.flat[p].file < file && self.shows(p));
                match prev {
                    // The first change of that file the filter shows.
                    Some(p) => {
                        let target = self.flat[p].file;
                        let first = (0..=p)
                            .find(|&q| self.flat[q].file == target && self.shows(q))
                            .unwrap_or(p);
                        self.go(first)
                    }
                    None => self.say(Tone::Info, "this is the first file"),
                }
            }
            Action::Filter => {
                self.filter = self.filter.next();
                if let Some(p) = self.shown_from(self.pos) {
                    self.go(p);
                }
                let text = format!(
                    "showing {} ({} shows {})",
                    self.filter.describe(),
                    self.words().key(Action::Filter),
                    self.filter.next().describe()
                );
                self.say(Tone::Info, text);
            }
            Action::AcceptVerified => {
                let count = self.review.verified_undecided();
                if count == 0 {
                    self.say(
                        Tone::Info,
                        "no undecided change verifies: nothing to accept",
                    );
                } else {
                    self.overlay = Some(Overlay::ConfirmAcceptVerified { count });
                }
            }
            Action::NextConflict => self.next_conflict(),
            Action::FirstChange => self.step_to(|_, _| true, false, ""),
            Action::LastChange => self.step_to(|_, _| true, true, ""),
            Action::PageDown => self.scroll_pages(1),
            Action::PageUp => self.scroll_pages(-1),
            Action::DiffTop => self.scroll_by(i64::MIN / 4),
            Action::DiffEnd => self.scroll_by(i64::MAX / 4),
            Action::ScrollRight => self.hscroll_by(1),
            Action::ScrollLeft => self.hscroll_by(-1),
            Action::Accept => self.accept(),
            Action::Reject => self.reject(),
            Action::AcceptFile => self.accept_file(),
            Action::RejectFile => self.reject_file(),
            Action::Relocate => self.relocate(),
            Action::RelocateAll => self.relocate_all(),
            Action::TakeOver => self.ask_take_over(),
            Action::Place => self.start_placing(),
            Action::OverrideSha => self.override_file(),
            Action::Undo => self.undo(),
            Action::Redo => self.redo(),
            Action::Edit => return self.start_edit(),
            Action::ToggleWholeFile => {
                self.whole_file = !self.whole_file;
                self.scroll = 0;
                self.hscroll = None;
            }
            Action::Search => self.start_search(),
            Action::SearchNext => self.search_step(true),
            Action::SearchPrev => self.search_step(false),
            Action::Help => self.overlay = Some(Overlay::Help { scroll: 0 }),
            Action::CommitSummary => self.open_summary(),
            Action::Note => self.start_note(false),
            Action::BatchNote => self.start_note(true),
            Action::Feedback => self.write_feedback(),
            Action::Export => self.write_export(),
            Action::Quit => return self.quit(),
            Action::Confirm | Action::Cancel | Action::EditAgain | Action::Discard => {}
        }
        Effect::None
    }

    /// Whether the filter shows the change at `pos`.
    pub fn shows(&self, pos: usize) -> bool {
        match self.filter {
            Filter::All => true,
            Filter::Undecided => !self.is_decided(pos),
            Filter::OpenConflicts => self.open_conflict(pos),
        }
    }

    /// Goes to the first change `wanted` picks that the filter shows, searching forward (or
    /// backward) through the batch; says `none` when there is none (or, under a filter, that
    /// it shows no more that way).
    fn step_to(&mut self, wanted: impl Fn(&App, usize) -> bool, backward: bool, none: &str) {
        let mut positions: Box<dyn Iterator<Item = usize>> = if backward {
            Box::new((0..self.flat.len()).rev())
        } else {
            Box::new(0..self.flat.len())
        };
        match positions.find(|&p| wanted(self, p) && self.shows(p)) {
            Some(p) => self.go(p),
            None if self.filter == Filter::All => {
                if !none.is_empty() {
                    self.say(Tone::Info, none.to_owned());
                }
            }
            None => {
                let text = format!("no more {} that way", self.filter.describe());
                self.say(Tone::Info, text);
            }
        }
    }

    /// The first change the filter shows from `pos` on, wrapping to the top.
    pub(super) fn shown_from(&self, pos: usize) -> Option<usize> {
        (pos..self.flat.len())
            .chain(0..pos.min(self.flat.len()))
            .find(|&p| self.shows(p))
    }

    /// Whether the change at `pos` is rejected.
    pub fn is_rejected(&self, pos: usize) -> bool {
        *self.decisions().get(&self.change(pos).change.id) == Decision::Reject
    }

    /// Selects the change at `pos` (clamped) and shows it from the top.
    pub fn go(&mut self, pos: usize) {
        if self.flat.is_empty() {
            return;
        }
        let pos = pos.min(self.flat.len() - 1);
        if pos != self.pos {
            self.scroll = 0;
            self.hscroll = None;
        }
        self.pos = pos;
    }

    fn next_conflict(&mut self) {
        let n = self.flat.len();
        let found = (1..=n)
            .map(|step| (self.pos + step) % n)
            .find(|&p| self.open_conflict(p));
        match found {
            Some(p) => self.go(p),
            None => self.say(
                Tone::Info,
                "no open conflict: every conflict is resolved or rejected",
            ),
        }
    }

    /// The first undecided change the filter shows at or after `from`, wrapping around.
    pub fn next_undecided_from(&self, from: usize) -> Option<usize> {
        let n = self.flat.len();
        (0..n).map(|step| (from + step) % n).find(|&p| {
            *self.decisions().get(&self.change(p).change.id) == Decision::Undecided && self.shows(p)
        })
    }

    /// How many changes have a decision.
    pub fn decided(&self) -> usize {
        self.decisions().decided().len()
    }

    /// Quits at once when nothing would be lost: no decision, a commit done, or every
    /// decision safely in the session file. Otherwise asks first.
    fn quit(&mut self) -> Effect {
        self.flush_session();
        // An agent's batch is answered when the reviewer goes: dismissing it is asked first.
        let nothing_lost = self.decided() == 0 || self.session_saved();
        if self.committed() || (nothing_lost && self.caller.is_none()) {
            return Effect::Quit;
        }
        self.overlay = Some(Overlay::ConfirmQuit);
        Effect::None
    }

    /// What the quit prompt says (its keys come from the key map, under it).
    pub fn quit_question(&self) -> String {
        if let Some(caller) = &self.caller {
            return caller.dismiss_question(self.decided());
        }
        let why = match &self.session_error {
            _ if self.config.read_only => "read-only: no session is saved".to_owned(),
            Some(error) => error.clone(),
            None => "no session is saved".to_owned(),
        };
        format!("Quit and lose {} decision(s)? ({why})", self.decided())
    }
}
