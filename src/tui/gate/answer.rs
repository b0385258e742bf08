//! One agent's batch in front of the person: loaded as the server loaded it, reviewed in the
//! reviewer (the same one `patchdeck review` opens), and answered with the TUL-002 response
//! built from what the review decided and what its commit wrote.

use super::Gate;
use crate::commit::Committed;
use crate::formats::Input;
use crate::mcp::link::Arrival;
use crate::mcp::link::Reply;
use crate::mcp::response::{self, Decider, Written};
use crate::mcp::{load_options, Settings, Submitted, Unattended};
use crate::pipeline::{self, Access};
use crate::tui::app::{App, Config, Outcome, ReviewerSetup, Tone};
use crate::tui::caller::Caller;
use ratatui::DefaultTerminal;
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// How long opening the workspace waits for another patchdeck's lock (as the command line).
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Reviews `arrival` on `terminal`; the reply for its agent.
pub fn review(terminal: &mut DefaultTerminal, gate: &Gate, arrival: &Arrival) -> io::Result<Reply> {
    let request = &arrival.request;
    let refused = |error: crate::error::Error| {
        let mut message = format!("patchdeck gate could not open the batch: {error}");
        if let Some(hint) = error.hint() {
            message.push_str(&format!("\nhint: {hint}"));
        }
        Ok(Reply::Refused { message })
    };
    let opened = match pipeline::open(&gate.root, Access::Write, LOCK_WAIT) {
        Ok(opened) => opened,
        Err(error) => return refused(error),
    };
    let submitted = Submitted {
        source: tool_name(&request.tool),
        text: request.text.clone(),
        format: request.format.clone(),
    };
    let settings = Settings {
        root: gate.root.clone(),
        unattended: Unattended::Refuse,
        stage: gate.stage,
        max_tokens: gate.max_tokens,
        wait: None,
    };
    let options = load_options(&settings, &submitted);
    let input = Input::from_bytes(submitted.source, submitted.text);
    let checked = match pipeline::load_with(&opened.workspace, &input, &options) {
        Ok(checked) => checked,
        Err(error) => return refused(error),
    };
    let mut warnings: Vec<String> = (checked.batch.warnings.iter())
        .map(|w| format!("{}: {}", w.location, w.message))
        .collect();
    warnings.extend(opened.warnings.iter().cloned());
    let mut app = App::new(ReviewerSetup {
        workspace: opened.workspace,
        checked,
        env: gate.env.clone(),
        palette: gate.palette.clone(),
        keymap: gate.keymap.clone(),
        config: Config {
            read_only: false,
            report: None,
            stage: gate.stage,
        },
        session: None,
        fresh: true,
    });
    app.caller = Some(Caller {
        agent: super::screen::agent_name(&request.agent),
        tool: tool_name(&request.tool).to_owned(),
        waiting: Arc::clone(&gate.waiting),
        gone: Arc::clone(&arrival.gone),
    });
    if !opened.warnings.is_empty() {
        app.say(Tone::Warning, opened.warnings.join("; "));
    }
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    terminal.clear()?;
    if let Some(error) = crate::tui::event_loop(terminal, &mut app)? {
        return refused(error);
    }
    Ok(answer(&gate.root, app, warnings))
}

/// The reply once the reviewer is gone: what was decided, and what the commit wrote if the
/// person committed.
fn answer(root: &std::path::Path, app: App, mut warnings: Vec<String>) -> Reply {
    let (review, outcome) = app.finish();
    let (checked, decisions) = review.into_parts();
    let plan = checked.plan(&decisions);
    let committed: Option<&Committed> = match &outcome {
        Some(Outcome::Written { committed, .. }) => Some(committed),
        _ => None,
    };
    if let Some(Outcome::Failed(why)) = &outcome {
        warnings.push(format!(
            "the person's commit failed and was rolled back: {why}"
        ));
    }
    let result = response::build(
        root,
        Decider::Reviewer,
        &Written {
            checked: &checked,
            decisions: &decisions,
            plan: &plan,
            committed,
        },
        warnings,
    );
    Reply::Result {
        text: result.to_text(),
        result: serde_json::to_value(&result).expect("a result serialises"),
    }
}

/// The tool's name as the core names a batch's source (one of the server's tools; any other
/// name is said as the server's).
fn tool_name(tool: &str) -> &'static str {
    match tool {
        "workspace_write_patch" => "workspace_write_patch",
        "apply_patch" => "apply_patch",
        "submit_patch" => "submit_patch",
        _ => "patchdeck mcp",
    }
}
