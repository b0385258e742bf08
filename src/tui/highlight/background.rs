//! Parsing files from their first line off the input path, so that a line deep in a file is
//! coloured exactly as if the whole file above it had been read.
//!
//! One thread takes the files the reviewer shows, the most recently shown first, and parses
//! each from the top, publishing the exact parse state every [`CHECKPOINT_EVERY`] lines in
//! [`Checkpoints`]. It runs at a lower scheduling priority than the input path, stops between
//! two lines when the reviewer drops it, and never touches the screen: the reviewer reads the
//! checkpoints when it draws. It does not decide what is drawn meanwhile (see `highlight`).

use super::{advance, fresh_state, State, CHECKPOINT_EVERY};
use crate::lines::LineIndex;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use syntect::highlighting::{Highlighter as Styler, Theme};
use syntect::parsing::{SyntaxReference, SyntaxSet};

/// Exact parse states of the files parsed so far: for file `f`, index `k` holds the state
/// before line `k * CHECKPOINT_EVERY + 1`.
#[derive(Default)]
pub struct Checkpoints {
    files: Mutex<HashMap<usize, Vec<State>>>,
}

impl Checkpoints {
    /// The exact state before line `k * CHECKPOINT_EVERY + 1` of `file`, once it is known.
    pub fn get(&self, file: usize, k: usize) -> Option<State> {
        let files = self.files.lock().expect("no panic holds this lock");
        files.get(&file).and_then(|states| states.get(k)).cloned()
    }

    /// How many checkpoints of `file` are known.
    pub fn count(&self, file: usize) -> usize {
        let files = self.files.lock().expect("no panic holds this lock");
        files.get(&file).map_or(0, Vec::len)
    }

    fn push(&self, file: usize, state: State) {
        let mut files = self.files.lock().expect("no panic holds this lock");
        files.entry(file).or_default().push(state);
    }
}

/// A file to parse: its bytes as read, their line index and its syntax.
pub struct Job {
    pub file: usize,
    pub bytes: Arc<Vec<u8>>,
    pub index: Arc<LineIndex>,
    pub syntax: &'static SyntaxReference,
}

/// Jobs sent and not yet finished or dropped, so a test or the bench can wait for the thread
/// to have nothing left to do.
#[derive(Default)]
struct Pending {
    count: Mutex<usize>,
    changed: Condvar,
}

impl Pending {
    fn add(&self, n: isize) {
        let mut count = self.count.lock().expect("no panic holds this lock");
        *count = count.saturating_add_signed(n);
        self.changed.notify_all();
    }
}

/// The parsing thread and what it publishes.
pub struct Background {
    pub checkpoints: Arc<Checkpoints>,
    tx: Option<Sender<Job>>,
    stop: Arc<AtomicBool>,
    pending: Arc<Pending>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    pub fn start(syntaxes: &'static SyntaxSet, theme: Theme) -> Background {
        let (tx, rx) = mpsc::channel();
        let checkpoints = Arc::new(Checkpoints::default());
        let stop = Arc::new(AtomicBool::new(false));
        let pending = Arc::new(Pending::default());
        let thread = {
            let worker = Worker {
                syntaxes,
                checkpoints: Arc::clone(&checkpoints),
                stop: Arc::clone(&stop),
                pending: Arc::clone(&pending),
            };
            std::thread::Builder::new()
                .name("patchdeck-parse".into())
                .spawn(move || worker.run(&rx, &theme))
                .ok()
        };
        Background {
            checkpoints,
            tx: Some(tx),
            stop,
            pending,
            thread,
        }
    }

    /// Asks for `job`'s file to be parsed before any other.
    pub fn request(&self, job: Job) {
        if let Some(tx) = &self.tx {
            self.pending.add(1);
            if tx.send(job).is_err() {
                self.pending.add(-1);
            }
        }
    }

    /// Waits until every file asked for is parsed to its end.
    pub fn settle(&self) {
        let mut count = self.pending.count.lock().expect("no panic holds this lock");
        while *count > 0 && self.thread.as_ref().is_some_and(|t| !t.is_finished()) {
            count = self
                .pending
                .changed
                .wait(count)
                .expect("no panic holds this lock");
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.tx = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A file being parsed: the state before line `next`.
struct Progress {
    job: Job,
    next: usize,
    state: State,
}

struct Worker {
    syntaxes: &'static SyntaxSet,
    checkpoints: Arc<Checkpoints>,
    stop: Arc<AtomicBool>,
    pending: Arc<Pending>,
}

impl Worker {
    fn run(self, rx: &Receiver<Job>, theme: &Theme) {
        lower_priority();
        let styler = Styler::new(theme);
        // The last one is parsed first: the file shown most recently.
        let mut jobs: Vec<Progress> = Vec::new();
        let mut done: HashSet<usize> = HashSet::new();
        loop {
            if jobs.is_empty() {
                match rx.recv() {
                    Ok(job) => self.take(job, &mut jobs, &done, &styler),
                    Err(_) => return,
                }
            }
            while let Ok(job) = rx.try_recv() {
                self.take(job, &mut jobs, &done, &styler);
            }
            let Some(progress) = jobs.last_mut() else {
                continue;
            };
            if !self.parse_stretch(progress, &styler) {
                return;
            }
            if progress.next > progress.job.index.len() {
                done.insert(progress.job.file);
                jobs.pop();
                self.pending.add(-1);
            }
        }
    }

    /// Puts `job` first, unless its file is parsed already or under way (then it moves first).
    fn take(&self, job: Job, jobs: &mut Vec<Progress>, done: &HashSet<usize>, styler: &Styler) {
        if done.contains(&job.file) {
            self.pending.add(-1);
            return;
        }
        if let Some(at) = jobs.iter().position(|p| p.job.file == job.file) {
            let progress = jobs.remove(at);
            jobs.push(progress);
            self.pending.add(-1);
            return;
        }
        let state = fresh_state(job.syntax, styler);
        self.checkpoints.push(job.file, state.clone());
        jobs.push(Progress {
            job,
            next: 1,
            state,
        });
    }

    /// Parses up to the next checkpoint and publishes it; false when asked to stop.
    fn parse_stretch(&self, progress: &mut Progress, styler: &Styler) -> bool {
        let Progress { job, next, state } = progress;
        let last = job.index.len();
        while *next <= last {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            advance(
                self.syntaxes,
                styler,
                state,
                job.index.line(&job.bytes, *next),
            );
            *next += 1;
            if (*next - 1) % CHECKPOINT_EVERY == 0 {
                if *next <= last {
                    self.checkpoints.push(job.file, state.clone());
                }
                break;
            }
        }
        true
    }
}

/// Lets the input path win the processor: this thread only works ahead.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's own id only changes its scheduling niceness.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}
