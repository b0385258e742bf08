//! A large batch loaded behind the reviewer's first screen.
//!
//! Loading and verifying a 2,000-file diff takes a few hundred milliseconds, and most of it is
//! reading files the first screen does not show. So the reviewer opens on the batch's first
//! file patches, cut out ([`cut_first`]: a git diff at a section, a TUL-002 batch after a
//! file patch; see [`formats::first_files`]) and loaded and verified alone, while
//! [`Loading`] loads the whole batch on a thread of its own, through the same
//! [`pipeline::load_telling`] every command uses. Once the whole batch is there it takes the
//! first files' place.
//!
//! The first files are only shown. Their batch is not the batch: nothing after the cut is
//! checked yet (a later section may join one of their file patches, or fail to parse, and
//! then the batch is refused as any command refuses it), and their changes' IDs are not the
//! batch's (a diff's are left unnamed, a TUL-002 batch's derived from the cut). So nothing is
//! decided, saved or committed on them: the reviewer holds every key but looking until the
//! whole batch is loaded.

use crate::error::{Error, Result};
use crate::formats::{self, Input, LoadOptions};
use crate::pipeline::{self, LoadStage};
use crate::verify::Checked;
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;

/// How many file patches the first screen is loaded with: more than a files pane shows on a
/// tall terminal, few enough to read and verify in a few milliseconds.
pub const FIRST_FILES: usize = 64;

/// A batch's first file patches, loaded and verified alone.
pub struct FirstFiles {
    pub checked: Checked,
    /// How many file sections the whole input has.
    pub of: usize,
}

/// The first [`FIRST_FILES`] file patches of an input, cut out of it, not loaded yet.
pub struct FirstCut {
    input: Input,
    format: &'static str,
    of: usize,
}

/// The first [`FIRST_FILES`] file patches of `input`, cut out of it, when it has more and its
/// format can be cut (a git diff, a TUL-002 batch); `None` otherwise.
pub fn cut_first(input: &Input, options: &LoadOptions) -> Option<FirstCut> {
    let (input, format, of) = formats::first_files(input, options, FIRST_FILES)?;
    Some(FirstCut { input, format, of })
}

impl FirstCut {
    /// The first file patches, loaded and verified; `None` when they do not load (the whole
    /// batch then says why). They are loaded without change IDs and without asking git, which
    /// the whole batch does.
    pub fn load(&self, workspace: &Workspace, options: &LoadOptions) -> Option<FirstFiles> {
        let options = LoadOptions {
            format: Some(self.format.to_owned()),
            change_ids: false,
            ..options.clone()
        };
        let batch = formats::load_with(&self.input, workspace, &options).ok()?;
        let verification = crate::verify::verify(&batch, workspace);
        Some(FirstFiles {
            checked: Checked {
                batch,
                verification,
            },
            of: self.of,
        })
    }
}

/// The whole batch, loaded on another thread over a workspace of its own.
pub struct Loaded {
    pub workspace: Workspace,
    pub checked: Checked,
}

/// A whole batch being loaded on a thread of its own.
pub struct Loading {
    receiver: Receiver<Result<Loaded>>,
    stage: Arc<AtomicU8>,
}

impl Loading {
    /// Starts loading `input` over the workspace at `root` (opened anew on the loading
    /// thread: a workspace's caches are its own thread's).
    pub fn start(root: PathBuf, input: Input, options: LoadOptions) -> Loading {
        let (loading, sender) = Loading::pending();
        let stage = Arc::clone(&loading.stage);
        std::thread::spawn(move || {
            let loaded = load(&root, &input, &options, &stage);
            // The reviewer may have quit meanwhile: then nobody is listening.
            let _ = sender.send(loaded);
        });
        loading
    }

    /// A load whose result is sent on the returned sender (for tests, which decide when it
    /// arrives).
    pub fn pending() -> (Loading, Sender<Result<Loaded>>) {
        let (sender, receiver) = mpsc::channel();
        let loading = Loading {
            receiver,
            stage: Arc::new(AtomicU8::new(LoadStage::Reading as u8)),
        };
        (loading, sender)
    }

    /// The whole batch or why it could not be loaded, once it is there; `None` while it is
    /// still loading.
    pub fn try_take(&self) -> Option<Result<Loaded>> {
        match self.receiver.try_recv() {
            Ok(loaded) => Some(loaded),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(stopped())),
        }
    }

    /// Waits for the whole batch.
    pub fn wait(self) -> Result<Loaded> {
        self.receiver.recv().unwrap_or_else(|_| Err(stopped()))
    }

    /// How far the load got.
    pub fn stage(&self) -> LoadStage {
        match self.stage.load(Ordering::Relaxed) {
            s if s == LoadStage::Verifying as u8 => LoadStage::Verifying,
            s if s == LoadStage::AskingGit as u8 => LoadStage::AskingGit,
            _ => LoadStage::Reading,
        }
    }
}

/// What a load that ended without an answer (its thread panicked) says.
fn stopped() -> Error {
    Error::io(
        "loading the batch",
        std::io::Error::other("the loading thread stopped without an answer"),
    )
}

fn load(
    root: &std::path::Path,
    input: &Input,
    options: &LoadOptions,
    stage: &AtomicU8,
) -> Result<Loaded> {
    if let Some(failpoint) = crate::failpoint::from_env() {
        failpoint
            .hit(crate::failpoint::Step::Load)
            .map_err(|e| Error::io("loading the batch", e))?;
    }
    let workspace = Workspace::open(root).map_err(|e| Error::Root {
        root: root.to_path_buf(),
        message: e.to_string(),
    })?;
    let checked = pipeline::load_telling(&workspace, input, options, |reached| {
        stage.store(reached as u8, Ordering::Relaxed)
    })?;
    Ok(Loaded { workspace, checked })
}
