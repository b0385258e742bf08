//! The gate's waiting screen: which workspace it reviews for, how to connect an agent, and
//! what became of the batches answered so far.

use super::Gate;
use crate::mcp::link::Arrival;
use crate::mcp::link::Reply;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// How many answered batches the screen lists.
const ANSWERED_SHOWN: usize = 8;

pub fn draw(frame: &mut Frame, gate: &Gate) {
    let p = &gate.palette;
    let root = gate.root.display().to_string();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(" patchdeck gate ", p.title),
            Span::styled(format!("  {root}"), p.header),
        ]),
        Line::default(),
        Line::from(Span::styled(
            "Waiting for a batch from a coding agent writing to this workspace.",
            p.text,
        )),
        Line::from(Span::styled(
            "Each one opens here for review; the agent's call waits until you commit or dismiss it, then hears what you decided, with your notes.",
            p.dim,
        )),
        Line::default(),
        Line::from(Span::styled("Connect an agent (its server started in this workspace):", p.text)),
        Line::from(Span::styled("  claude mcp add patchdeck -- patchdeck mcp", p.key)),
        Line::from(Span::styled(
            format!("  codex mcp add patchdeck -- patchdeck mcp --root {root}"),
            p.key,
        )),
        Line::from(Span::styled(
            "  or any MCP client: command `patchdeck`, arguments `mcp --root DIR` (docs/agents.md)",
            p.dim,
        )),
        Line::default(),
        Line::from(Span::styled(format!("Listening on {}", gate.socket.display()), p.dim)),
    ];
    if !gate.answered.is_empty() {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            format!("Answered: {} batch(es)", gate.answered.len()),
            p.text,
        )));
        for said in gate.answered.iter().take(ANSWERED_SHOWN) {
            lines.push(Line::from(Span::styled(format!("  {said}"), p.dim)));
        }
    }
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::styled(" q", p.key),
        Span::styled(" quit the gate (agents' writes are then refused, or follow their server's --unattended policy)", p.dim),
    ]));
    let area: Rect = frame.area();
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().border_style(p.border))
            .wrap(Wrap { trim: false }),
        area,
    );
}

/// A batch whose agent stopped waiting before its turn, in a line.
pub fn not_shown(arrival: &Arrival) -> String {
    format!(
        "{}: stopped waiting before its turn; not shown, nothing written",
        agent_name(&arrival.request.agent)
    )
}

/// An agent's name as the screen shows it: control characters visible, at most 40 characters.
pub fn agent_name(name: &str) -> String {
    let name = crate::lines::visible(name);
    match name.chars().count() > 40 {
        true => format!("{}…", name.chars().take(39).collect::<String>()),
        false => name.into_owned(),
    }
}

/// What became of a batch, in a line: `claude-code, "docs-and-save": 2 applied, 1 rejected`.
pub fn said(arrival: &Arrival, reply: &Reply) -> String {
    let agent = agent_name(&arrival.request.agent);
    match reply {
        Reply::Result { result, .. } => {
            let name = result["batchKey"]
                .as_str()
                .or(result["batchLabel"].as_str())
                .map(|n| format!(", \"{}\"", crate::lines::visible(n)))
                .unwrap_or_default();
            let summary = &result["summary"];
            let counted: Vec<String> = ["applied", "rejected", "notReviewed", "conflict"]
                .iter()
                .filter_map(|k| {
                    let n = summary[k].as_u64().filter(|&n| n > 0)?;
                    let word = match *k {
                        "notReviewed" => "left undecided",
                        other => other,
                    };
                    Some(format!("{n} {word}"))
                })
                .collect();
            format!("{agent}{name}: {}", counted.join(", "))
        }
        Reply::Refused { message } => format!("{agent}: not reviewed: {message}"),
        Reply::Queued { .. } | Reply::Reviewing => agent,
    }
}
