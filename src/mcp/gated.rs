//! A write handed to the person's reviewer (`patchdeck gate`) and waited for: the call stays
//! open while they decide, kept alive with MCP progress notifications (when the client asked
//! for them with a progress token) that say where the batch is, and ends with what the gate
//! answers, or, past `--wait`, with "still under review".

use super::link::{Link, Reply, Request};
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::time::{Duration, Instant};

/// How often a waiting call tells the client it is alive.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Hands `request` to the gate at the other end of `link` and waits for its answer, at most
/// `wait` when there is a bound.
pub async fn through(
    mut link: Link,
    request: Request,
    context: RequestContext<RoleServer>,
    wait: Option<Duration>,
) -> CallToolResult {
    let agent = request.agent.clone();
    let submitted = tokio::task::spawn_blocking(move || link.submit(&request).map(|()| link)).await;
    let mut link = match submitted {
        Ok(Ok(link)) => link,
        Ok(Err(e)) => {
            return failed(format!(
            "the reviewer (patchdeck gate) could not be handed the batch: {e}; nothing was written"
        ))
        }
        Err(e) => return failed(format!("the tool call: {e}")),
    };
    let started = Instant::now();
    let token = context.meta.get_progress_token();
    let mut where_it_is = "handed to the reviewer (patchdeck gate)".to_owned();
    let mut told = 0u32;
    loop {
        let left = wait.map(|w| w.saturating_sub(started.elapsed()));
        if left == Some(Duration::ZERO) {
            return still_under_review(&agent, wait.unwrap_or_default());
        }
        if context.ct.is_cancelled() {
            return failed("the call was cancelled by the client; the batch stays with the reviewer, who sees that no one waits for it".to_owned());
        }
        let step = left.map_or(PROGRESS_EVERY, |left| left.min(PROGRESS_EVERY));
        let heard = tokio::task::spawn_blocking(move || {
            let reply = link.next(step);
            (link, reply)
        })
        .await;
        let reply;
        (link, reply) = match heard {
            Ok(heard) => heard,
            Err(e) => return failed(format!("the tool call: {e}")),
        };
        match reply {
            Ok(Some(Reply::Result { text, result })) => return super::answer_json(text, result),
            Ok(Some(Reply::Refused { message })) => return failed(message),
            Ok(Some(Reply::Queued { ahead: 0 })) => {
                where_it_is = "arrived in patchdeck gate".to_owned();
            }
            Ok(Some(Reply::Queued { ahead })) => {
                where_it_is = format!("waiting in patchdeck gate behind {ahead} other batch(es)");
            }
            Ok(Some(Reply::Reviewing)) => {
                where_it_is = "a person is reviewing it in patchdeck gate".to_owned();
            }
            Ok(None) => {}
            Err(e) => return failed(format!(
                "the reviewer (patchdeck gate) went away before it answered ({e}). If they had committed, `patchdeck undo` can take it back; read the files again before writing to them."
            )),
        }
        if let Some(token) = &token {
            told += 1;
            let progress = ProgressNotificationParam::new(token.clone(), f64::from(told))
                .with_message(format!("{where_it_is} ({} s)", started.elapsed().as_secs()));
            // A client that no longer listens does not stop the wait: the gate still answers.
            let _ = context.peer.notify_progress(progress).await;
        }
    }
}

/// The answer past `--wait`: the batch stays with the person.
fn still_under_review(agent: &str, wait: Duration) -> CallToolResult {
    failed(format!(
        "Still under review: a person has had the batch in patchdeck gate for {} s (this \
         server waits at most that long, --wait). Nothing is known to be written yet: they may \
         still commit part of it, and {agent} will not hear what they decide. Read the files \
         again (workspace_read_file) before writing to them, or ask the person what they \
         decided.",
        wait.as_secs()
    ))
}

fn failed(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}
