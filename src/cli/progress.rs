//! Progress on standard error for work that takes more than a moment.
//!
//! Nothing is shown for the first [`QUIET_FOR`]; after that one line says what is happening and
//! for how long, redrawn in place, and is erased when the work ends. The caller decides whether
//! progress may be shown at all (never with `--json`, `--quiet`, or when standard error is not a
//! terminal); see `Ctx`.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long work may take before progress appears.
const QUIET_FOR: Duration = Duration::from_millis(400);
const TICK: Duration = Duration::from_millis(100);

/// A progress line that lives as long as this value.
pub struct Progress {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching; shows `what` on standard error once the work has taken a while.
    pub fn start(enabled: bool, what: &'static str) -> Progress {
        Progress::start_counted(enabled, what, None)
    }

    /// [`Progress::start`], also saying how many of the files `files` counts are done, once it
    /// knows how many there are.
    pub fn start_counted(
        enabled: bool,
        what: &'static str,
        files: Option<Arc<patchdeck::pipeline::Progress>>,
    ) -> Progress {
        if !enabled {
            return Progress {
                stop: None,
                thread: None,
            };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let mut wait = QUIET_FOR;
            let mut shown = false;
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(wait) {
                shown = true;
                let secs = start.elapsed().as_secs_f32();
                let counted = match files.as_deref().map(|f| f.get()) {
                    Some((done, total)) if total > 0 => format!(": {done} of {total} files"),
                    _ => String::new(),
                };
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2Kpatchdeck: {what}{counted}... {secs:.1}s");
                let _ = err.flush();
                wait = TICK;
            }
            if shown {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K");
                let _ = err.flush();
            }
        });
        Progress {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
