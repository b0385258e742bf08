//! Fault injection: named points where a test makes the commit (or the reviewer's load and
//! count) fail or die.
//!
//! A failpoint spec is `STEP[:N][=ACTION]`, or several joined by commas (each counted on its
//! own): at the N-th time (from 1; any time when omitted) the commit reaches STEP, ACTION
//! happens: `error` (the default) returns an I/O error, `enospc`
//! and `eacces` return those errors, `kill` kills the process with SIGKILL as a crash would,
//! `stop` stops it (SIGSTOP) until a test that raced it sends SIGCONT, and `sleep` makes that
//! step take a second and a half (the process's other threads go on).
//! Steps: `journal`, `mkdir`, `stage`, `sync`, `prepare` (the journal written again with the
//! staged contents' checksums), `rename`, `check` (each file exchanged, before
//! what came out is checked, on a checking thread), `mark`, `cleanup`, `forget` (an
//! undo's, between restoring the files and forgetting their record), `recover` (each file
//! recovery rolls back; armed from the environment by [`from_env`]), `load` (the
//! reviewer's load of a large batch behind its first screen, before it starts; armed from the
//! environment too, see `crate::loading`) and `count` (each step of the reviewer's commit
//! summary counting its lines; from the environment, see `crate::tui::summary`). The CLI
//! honours `PATCHDECK_FAILPOINT` only in debug builds or with the `failpoints` feature.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Error,
    NoSpace,
    Denied,
    Kill,
    Stop,
    Sleep,
}

/// Armed failpoints: one, or several points of one test (say, stop before the first rename,
/// and sleep at the first check).
#[derive(Debug)]
pub struct Failpoint {
    points: Vec<Point>,
}

/// One armed point.
#[derive(Debug)]
struct Point {
    step: Step,
    nth: Option<usize>,
    action: Action,
    seen: AtomicUsize,
}

/// The steps a commit passes through, in order, then recovery's, the reviewer's load and its
/// commit summary's counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Journal,
    Mkdir,
    Stage,
    Sync,
    Prepare,
    Rename,
    Check,
    Mark,
    Cleanup,
    Forget,
    Recover,
    Load,
    Count,
}

impl Step {
    /// Every step, in order.
    pub const ALL: [Step; 13] = [
        Step::Journal,
        Step::Mkdir,
        Step::Stage,
        Step::Sync,
        Step::Prepare,
        Step::Rename,
        Step::Check,
        Step::Mark,
        Step::Cleanup,
        Step::Forget,
        Step::Recover,
        Step::Load,
        Step::Count,
    ];

    /// The step's name in a failpoint spec.
    pub fn name(self) -> &'static str {
        match self {
            Step::Journal => "journal",
            Step::Mkdir => "mkdir",
            Step::Stage => "stage",
            Step::Sync => "sync",
            Step::Prepare => "prepare",
            Step::Rename => "rename",
            Step::Check => "check",
            Step::Mark => "mark",
            Step::Cleanup => "cleanup",
            Step::Forget => "forget",
            Step::Recover => "recover",
            Step::Load => "load",
            Step::Count => "count",
        }
    }

    /// What the step is doing, for a message saying where a commit failed.
    pub fn doing(self) -> &'static str {
        match self {
            Step::Journal => "writing the journal",
            Step::Mkdir => "creating a folder",
            Step::Stage => "staging the new content",
            Step::Prepare => "recording the staged contents in the journal",
            Step::Sync => "syncing a folder to disk",
            Step::Rename | Step::Check => "moving the new content into place",
            Step::Mark => "marking the journal committed",
            Step::Cleanup | Step::Forget => "cleaning up",
            Step::Recover => "rolling back",
            Step::Load => "loading the batch",
            Step::Count => "counting the summary's lines",
        }
    }
}

/// The failpoint `PATCHDECK_FAILPOINT` arms, in debug builds and with the `failpoints`
/// feature, for the steps no command passes one to (recovery runs before any command's
/// options exist); `None` otherwise, or when the spec does not parse.
pub fn from_env() -> Option<Failpoint> {
    if !cfg!(any(debug_assertions, feature = "failpoints")) {
        return None;
    }
    Failpoint::parse(&std::env::var("PATCHDECK_FAILPOINT").ok()?).ok()
}

impl Failpoint {
    /// Parses `STEP[:N][=ACTION]`, or several joined by commas.
    pub fn parse(spec: &str) -> Result<Failpoint, String> {
        let points = spec
            .split(',')
            .map(Point::parse)
            .collect::<Result<_, _>>()?;
        Ok(Failpoint { points })
    }

    /// Called at each step; fails or dies when this is an armed point.
    pub fn hit(&self, step: Step) -> io::Result<()> {
        self.points.iter().try_for_each(|point| point.hit(step))
    }
}

impl Point {
    fn parse(spec: &str) -> Result<Point, String> {
        let (point, action) = match spec.split_once('=') {
            Some((p, a)) => (p, a),
            None => (spec, "error"),
        };
        let action = match action {
            "error" => Action::Error,
            "enospc" => Action::NoSpace,
            "eacces" => Action::Denied,
            "kill" => Action::Kill,
            "stop" => Action::Stop,
            "sleep" => Action::Sleep,
            other => {
                return Err(format!(
                "unknown failpoint action \"{other}\" (error, enospc, eacces, kill, stop, sleep)"
            ))
            }
        };
        let (step, nth) = match point.split_once(':') {
            Some((s, n)) => (
                s,
                Some(
                    n.parse::<usize>()
                        .map_err(|_| format!("bad failpoint count \"{n}\""))?,
                ),
            ),
            None => (point, None),
        };
        let Some(step) = Step::ALL.into_iter().find(|s| s.name() == step) else {
            let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
            return Err(format!(
                "unknown failpoint step \"{step}\" ({})",
                names.join(", ")
            ));
        };
        Ok(Point {
            step,
            nth,
            action,
            seen: AtomicUsize::new(0),
        })
    }

    fn hit(&self, step: Step) -> io::Result<()> {
        if step != self.step {
            return Ok(());
        }
        let seen = self.seen.fetch_add(1, Ordering::SeqCst) + 1;
        if self.nth.is_some_and(|n| n != seen) {
            return Ok(());
        }
        match self.action {
            Action::Kill => {
                // SAFETY: sending a signal to our own process has no memory-safety concerns.
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
                unreachable!("SIGKILL cannot be caught")
            }
            Action::Stop => {
                // Sent to this thread (`raise`), not to the process: it is then this thread
                // that takes the stop, at once, before it runs another step. Sent to the
                // process, another thread could take it while this one went on.
                // SAFETY: as above; the process goes on when it is sent SIGCONT.
                unsafe {
                    libc::raise(libc::SIGSTOP);
                }
                Ok(())
            }
            Action::Sleep => {
                std::thread::sleep(std::time::Duration::from_millis(1500));
                Ok(())
            }
            Action::Error => Err(io::Error::other(format!(
                "injected failure at {}",
                step.name()
            ))),
            Action::NoSpace => Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Action::Denied => Err(io::Error::from_raw_os_error(libc::EACCES)),
        }
    }
}

/// The time commit IDs are made from, in nanoseconds since 1970 (the low 64 bits). In debug
/// builds and with the `failpoints` feature, `PATCHDECK_CLOCK_SKEW_SECS` moves it, so that a
/// test can set the clock back between two commits.
pub fn now_nanos() -> u64 {
    let now = std::time::SystemTime::now();
    let skew: i64 = if cfg!(any(debug_assertions, feature = "failpoints")) {
        std::env::var("PATCHDECK_CLOCK_SKEW_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    } else {
        0
    };
    let moved = if skew < 0 {
        now.checked_sub(std::time::Duration::from_secs(skew.unsigned_abs()))
    } else {
        now.checked_add(std::time::Duration::from_secs(skew as u64))
    };
    moved
        .unwrap_or(now)
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Whether to act as a file system without an atomic exchange or a rename that never replaces
/// ([`crate::fs::platform`]: some network and FUSE file systems): `PATCHDECK_NO_RENAME2=1`
/// (named after Linux's `renameat2`), in debug builds and with the `failpoints` feature, so
/// that the tests run the commit's fallback too.
pub fn without_rename2() -> bool {
    static WITHOUT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WITHOUT.get_or_init(|| {
        cfg!(any(debug_assertions, feature = "failpoints"))
            && std::env::var_os("PATCHDECK_NO_RENAME2").is_some_and(|v| v == "1")
    })
}

/// Hits the failpoint if one is armed.
pub fn hit(failpoint: Option<&Failpoint>, step: Step) -> io::Result<()> {
    failpoint.map_or(Ok(()), |f| f.hit(step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_on_the_nth_hit_of_its_step_only() {
        let f = Failpoint::parse("rename:2").unwrap();
        assert!(f.hit(Step::Stage).is_ok());
        assert!(f.hit(Step::Rename).is_ok());
        assert!(f.hit(Step::Rename).is_err());
        assert!(f.hit(Step::Rename).is_ok());
    }

    #[test]
    fn several_points_are_each_counted_on_their_own() {
        let f = Failpoint::parse("rename:2,check:1=eacces").unwrap();
        assert!(f.hit(Step::Rename).is_ok());
        assert_eq!(
            f.hit(Step::Check).unwrap_err().raw_os_error(),
            Some(libc::EACCES)
        );
        assert!(f.hit(Step::Check).is_ok());
        assert!(f.hit(Step::Rename).is_err());
        assert!(Failpoint::parse("rename:1,nowhere").is_err());
    }

    #[test]
    fn rejects_unknown_steps_and_actions() {
        assert!(Failpoint::parse("nowhere").is_err());
        assert!(Failpoint::parse("stage=explode").is_err());
        let f = Failpoint::parse("stage=enospc").unwrap();
        assert_eq!(
            f.hit(Step::Stage).unwrap_err().raw_os_error(),
            Some(libc::ENOSPC)
        );
    }
}
