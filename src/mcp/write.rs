//! A write call's batch through the core, as the command line takes one: loaded and verified
//! as `patchdeck check` loads it, decided by the unattended policy, planned and committed as
//! `patchdeck apply` commits, and answered with the TUL-002 response ([`super::response`]).
//!
//! Nothing here judges a change: what verifies is what the review's
//! [`Review::accept_verified`] accepts (the reviewer's own "accept every change that
//! verifies"), what is written is what the plan of those decisions writes, and each change's
//! outcome is what the report says of it.

use super::link::{self, Found, Link};
use super::response::{self, WriteResult};
use super::Settings;
use crate::commit::CommitOptions;
use crate::error::Error;
use crate::formats::{Input, LoadOptions};
use crate::pipeline::{self, Access};
use crate::report::say;
use crate::review::{At, Decisions, Review};
use crate::verify::Checked;
use std::time::Duration;

/// How long a write waits for another patchdeck's lock on the workspace (as the command line).
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// What a write does while no reviewer is waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unattended {
    /// Write nothing; say that no reviewer is waiting.
    #[default]
    Refuse,
    /// Write every change that verifies, atomically; return the rest as conflicts.
    Verified,
}

impl Unattended {
    /// Every policy's name, as `--unattended` takes it.
    pub const NAMES: [&'static str; 2] = ["refuse", "verified"];

    pub fn parse(name: &str) -> Option<Unattended> {
        match name {
            "refuse" => Some(Unattended::Refuse),
            "verified" => Some(Unattended::Verified),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Unattended::Refuse => "refuse",
            Unattended::Verified => "verified",
        }
    }
}

/// A batch as a tool call brings it.
pub struct Submitted {
    /// What the batch is called in messages about it (the tool that brought it).
    pub source: &'static str,
    pub text: String,
    /// The format to read it as; detected when none.
    pub format: Option<String>,
}

/// Where a write goes: to the person's reviewer, or decided here by the unattended policy.
pub enum Route {
    /// A gate waits for this workspace (at `root`, as resolved): the batch, which loads, goes
    /// to it.
    Gate {
        link: Link,
        root: String,
        submitted: Submitted,
    },
    /// No gate waits: decided (and perhaps written) by the policy.
    Unattended(Box<WriteResult>),
}

/// Sends a write where it goes: to the workspace's gate when one waits (once the batch is
/// known to load: a batch that cannot be read never reaches a person, and fails here with
/// `check`'s messages), else through [`write`], with a warning naming where no gate was
/// found. A gate that cannot be trusted (another user's) is an error: nothing is written.
pub fn route(settings: &Settings, submitted: Submitted) -> Result<Route, Error> {
    let opened = pipeline::open(&settings.root, Access::Read, LOCK_WAIT)?;
    let root = opened.workspace.root().to_path_buf();
    let found = link::connect(&root).map_err(|cause| Error::Io {
        what: format!("reaching patchdeck gate for {}", root.display()),
        cause,
    })?;
    let link = match found {
        Found::Gate(link) => link,
        Found::None { socket, why } => {
            drop(opened);
            let mut result = write(settings, submitted)?;
            result.warnings.push(match why {
                None => format!(
                    "no patchdeck gate listens for {} (looked at {})",
                    root.display(),
                    socket.display()
                ),
                Some(why) => format!("no patchdeck gate can listen for {}: {why}", root.display()),
            });
            return Ok(Route::Unattended(Box::new(result)));
        }
    };
    let input = Input::from_bytes(submitted.source, submitted.text.clone());
    pipeline::load_with(
        &opened.workspace,
        &input,
        &load_options(settings, &submitted),
    )?;
    Ok(Route::Gate {
        link,
        root: root.display().to_string(),
        submitted,
    })
}

/// How a submitted batch is loaded, here and by the gate.
pub fn load_options(settings: &Settings, submitted: &Submitted) -> LoadOptions {
    LoadOptions {
        format: submitted.format.clone(),
        max_tokens: settings.max_tokens,
        ..LoadOptions::default()
    }
}

/// Loads, verifies, decides and (under [`Unattended::Verified`]) commits a submitted batch.
/// An error is a batch that cannot be read (with every problem located, as `check` says it)
/// or a commit that failed and was rolled back.
pub fn write(settings: &Settings, submitted: Submitted) -> Result<WriteResult, Error> {
    let access = match settings.unattended {
        Unattended::Refuse => Access::Read,
        Unattended::Verified => Access::Write,
    };
    let opened = pipeline::open(&settings.root, access, LOCK_WAIT)?;
    let options = load_options(settings, &submitted);
    let input = Input::from_bytes(submitted.source, submitted.text);
    let checked = pipeline::load_with(&opened.workspace, &input, &options)?;
    let (checked, decisions) = decide(checked, settings.unattended);
    let plan = checked.plan(&decisions);
    let applied = match settings.unattended {
        Unattended::Verified if !plan.is_blocked() => {
            let options = CommitOptions {
                label: say::batch_name(&checked.batch),
                ..CommitOptions::default()
            };
            Some(pipeline::apply(
                &opened.workspace,
                &plan,
                &options,
                settings.stage,
            )?)
        }
        _ => None,
    };
    // What `check` and `apply` say on standard error, the model hears in the result: the
    // batch's own warnings (an unknown field...), an interrupted commit left waiting, and
    // what the commit could not do (stage a file, keep an owner).
    let mut warnings: Vec<String> = (checked.batch.warnings.iter())
        .map(|w| format!("{}: {}", w.location, w.message))
        .collect();
    warnings.extend(opened.warnings);
    warnings.extend(opened.interrupted.as_deref().map(say::describe_interrupted));
    warnings.extend(applied.iter().flat_map(|a| a.warnings.iter().cloned()));
    Ok(response::build(
        &settings.root,
        response::Decider::Policy(settings.unattended),
        &response::Written {
            checked: &checked,
            decisions: &decisions,
            plan: &plan,
            committed: applied.as_ref().map(|a| &a.committed),
        },
        warnings,
    ))
}

/// The decisions a policy makes with no person to ask: none, or every change that verifies.
fn decide(checked: Checked, unattended: Unattended) -> (Checked, Decisions) {
    let undecided = Decisions::undecided(&checked.batch);
    match unattended {
        Unattended::Refuse => (checked, undecided),
        Unattended::Verified => {
            let mut review = Review::new(checked, undecided);
            review.accept_verified(At::default());
            review.into_parts()
        }
    }
}
