//! A write handed to the person's reviewer (`patchdeck gate`) and waited for: the call stays
//! open while they decide, kept alive with MCP progress notifications (when the client asked
//! for them with a progress token) that say where the batch is, and ends with what the gate
//! answers, or, past `--wait`, with where the batch was when the call stopped waiting.

use super::link::{Link, Reply, Request};
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::io;
use std::time::{Duration, Instant};

/// How often a waiting call tells the client it is alive.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Where the batch is, as the gate last said.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Handed,
    Queued { ahead: usize },
    Reviewing,
}

impl Where {
    fn words(self) -> String {
        match self {
            Where::Handed | Where::Queued { ahead: 0 } => "arrived in patchdeck gate".to_owned(),
            Where::Queued { ahead } => {
                format!("waiting in patchdeck gate behind {ahead} other batch(es)")
            }
            Where::Reviewing => "a person is reviewing it in patchdeck gate".to_owned(),
        }
    }
}

/// Hands `request` to the gate at the other end of `link` and waits for its answer, at most
/// `wait` when there is a bound.
pub async fn through(
    link: Link,
    request: Request,
    context: RequestContext<RoleServer>,
    wait: Option<Duration>,
) -> CallToolResult {
    let agent = request.agent.clone();
    let submitted = blocking(move || {
        let mut link = link;
        link.submit(&request).map(|()| link)
    });
    let mut link = match submitted.await {
        Ok(link) => link,
        Err(e) => {
            return failed(format!(
                "patchdeck gate did not take the batch ({e}): nothing was written"
            ))
        }
    };
    let started = Instant::now();
    let token = context.meta.get_progress_token();
    let mut at = Where::Handed;
    let mut told = 0u32;
    loop {
        let left = wait.map(|w| w.saturating_sub(started.elapsed()));
        if left == Some(Duration::ZERO) {
            return still_waiting(&agent, at, wait.unwrap_or_default());
        }
        let deadline = Instant::now() + left.map_or(PROGRESS_EVERY, |l| l.min(PROGRESS_EVERY));
        let heard = blocking(move || {
            let reply = link.next(deadline);
            Ok((link, reply))
        });
        let reply;
        (link, reply) = tokio::select! {
            _ = context.ct.cancelled() => return failed(cancelled(at)),
            heard = heard => match heard {
                Ok(heard) => heard,
                Err(e) => return failed(format!("the tool call: {e}")),
            },
        };
        match reply {
            Ok(Some(Reply::Result { text, result })) => return super::answer_json(text, result),
            Ok(Some(Reply::Refused { message })) => return failed(message),
            Ok(Some(Reply::Queued { ahead })) => at = Where::Queued { ahead },
            Ok(Some(Reply::Reviewing)) => at = Where::Reviewing,
            Ok(None) => {}
            Err(e) => return failed(broken(&e, at)),
        }
        if let Some(token) = &token {
            told += 1;
            let progress =
                ProgressNotificationParam::new(token.clone(), f64::from(told)).with_message(
                    format!("{} ({} s)", at.words(), started.elapsed().as_secs()),
                );
            // A client that no longer listens does not stop the wait: the gate still answers.
            let _ = context.peer.notify_progress(progress).await;
        }
    }
}

/// Runs blocking work with the link on tokio's blocking threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(io::Error::other(e.to_string())))
}

/// The answer past `--wait`, by where the batch was.
fn still_waiting(agent: &str, at: Where, wait: Duration) -> CallToolResult {
    let seconds = wait.as_secs();
    failed(match at {
        Where::Reviewing => format!(
            "Still under review: a person has had the batch in patchdeck gate for up to {seconds} s \
             (this server waits at most that long, --wait). Nothing is known to be written yet: \
             they may still commit part of it, and {agent} will not hear what they decide. Read \
             the files again (workspace_read_file) before writing to them, or ask the person \
             what they decided."
        ),
        _ => format!(
            "Not reviewed in time: the batch was still waiting in patchdeck gate after \
             {seconds} s (this server waits at most that long, --wait), and nothing of it is \
             known to be written. Should the person open it after this, they see that no one \
             waits for it. Read the files again (workspace_read_file) before writing to them, \
             or call again later."
        ),
    })
}

/// What a cancelled call says, by where the batch was.
fn cancelled(at: Where) -> String {
    match at {
        Where::Reviewing => "The call was cancelled by the client; the batch stays with the person in patchdeck gate, who sees that no one waits for it.".to_owned(),
        _ => "The call was cancelled by the client before the batch was reviewed: it will not be shown, and nothing of it was written.".to_owned(),
    }
}

/// What a gate that hung up, or said what is no reply, leaves the agent to know.
fn broken(error: &io::Error, at: Where) -> String {
    let what = match error.kind() {
        io::ErrorKind::UnexpectedEof => "patchdeck gate went away before it answered".to_owned(),
        _ => format!("patchdeck gate answered what this server cannot read ({error}); run the same patchdeck for both"),
    };
    match at {
        Where::Reviewing => format!(
            "{what}. The person had the batch in review: if they committed, `patchdeck undo` takes it back. Read the files again before writing to them."
        ),
        _ => format!("{what}, before anyone reviewed the batch: nothing of it was written."),
    }
}

fn failed(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}
