//! Overlays drawn over the review: help, the commit summary, what a commit did, and the
//! prompts (quit, an edit that cannot apply, a file changed on disk). Their key lines come
//! from the key map, like the footer's.

use super::glyphs::Glyph;
use crate::plan::WriteKind;
use crate::tui::app::{App, Outcome};
use crate::tui::keys::{self, Mode};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    match app.mode {
        Mode::Help => help(frame, app, area),
        Mode::CommitSummary => summary(frame, app, area),
        Mode::Committed => committed(frame, app, area),
        Mode::ConfirmQuit => prompt(frame, app, area, "Quit?", vec![app.quit_question()]),
        Mode::EditFailed => {
            let reason = app
                .failed_edit
                .as_ref()
                .map_or(String::new(), |f| f.reason.clone());
            prompt(frame, app, area, "The edit cannot apply", vec![reason])
        }
        Mode::Reload => {
            let what = app.changed_on_disk.clone().unwrap_or_default();
            prompt(
                frame,
                app,
                area,
                "A file changed on disk: nothing was written",
                vec![
                    what,
                    "Reload verifies the batch again and keeps every decision whose change still verifies."
                        .into(),
                ],
            )
        }
        Mode::Browse | Mode::Search => {}
    }
}

/// A box of `width` x `height` in the middle of `area` (clamped to it).
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

fn keys_line(app: &App, mode: Mode) -> Line<'static> {
    let p = &app.palette;
    let mut spans = Vec::new();
    for binding in app.keymap.bindings(mode) {
        spans.push(Span::styled(
            format!(" {}", keys::keys_label(binding)),
            p.get("key"),
        ));
        spans.push(Span::styled(format!(" {} ", binding.short), p.get("dim")));
    }
    Line::from(spans)
}

fn boxed(
    frame: &mut Frame,
    app: &App,
    area: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    scroll: u16,
) {
    let p = &app.palette;
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(p.get("title"))
        .title(Span::styled(format!(" {title} "), p.get("title")));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .style(p.get("text"))
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        area,
    );
}

fn help(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let mut lines = Vec::new();
    let modes = [
        Mode::Browse,
        Mode::Search,
        Mode::CommitSummary,
        Mode::Committed,
        Mode::ConfirmQuit,
        Mode::EditFailed,
        Mode::Reload,
    ];
    for mode in modes {
        lines.push(Line::from(Span::styled(
            keys::mode_title(mode),
            p.get("title"),
        )));
        for binding in app.keymap.bindings(mode) {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<14}", keys::keys_label(binding)), p.get("key")),
                Span::styled(binding.help, p.get("text")),
            ]));
        }
    }
    lines.push(Line::from(Span::styled("Glyphs", p.get("title"))));
    let glyphs = [
        Glyph::Undecided,
        Glyph::Accepted,
        Glyph::Rejected,
        Glyph::Edited,
        Glyph::Conflict,
        Glyph::Invalid,
        Glyph::Relocated,
        Glyph::Tolerant,
    ];
    let mut spans = vec![Span::raw("  ")];
    for glyph in glyphs {
        spans.push(Span::styled(glyph.symbol(), p.get(glyph.style_name())));
        spans.push(Span::styled(format!(" {}  ", glyph.word()), p.get("text")));
    }
    lines.push(Line::from(spans));
    lines.push(Line::from(Span::styled(
        "  mouse: wheel scrolls, a click selects a file or change",
        p.get("dim"),
    )));
    let rect = centered(area, 84, lines.len() as u16 + 2);
    let hidden = (lines.len() as u16 + 2).saturating_sub(rect.height);
    let scroll = (app.help_scroll as u16).min(hidden);
    let title = if hidden > 0 {
        "Keys (j/k scroll, ? or Esc closes)"
    } else {
        "Keys (? or Esc closes)"
    };
    boxed(frame, app, rect, title, lines, scroll);
}

fn summary(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let mut lines: Vec<Line<'static>> = app
        .summary_lines()
        .into_iter()
        .map(|l| {
            let style = if l.warn {
                p.get("warning")
            } else {
                p.get("text")
            };
            let glyph = if l.warn {
                Glyph::Conflict.symbol()
            } else {
                " "
            };
            Line::from(Span::styled(format!("{glyph} {}", l.text), style))
        })
        .collect();
    lines.push(Line::default());
    if app.config.read_only {
        lines.push(Line::from(Span::styled(
            crate::tui::commit_flow::READ_ONLY_REFUSAL,
            p.get("conflict"),
        )));
    }
    if let Some(message) = &app.message {
        lines.push(Line::from(Span::styled(
            message.text.clone(),
            p.get("conflict"),
        )));
    }
    lines.push(keys_line(app, Mode::CommitSummary));
    let rect = centered(
        area,
        area.width.saturating_sub(4).min(110),
        lines.len() as u16 + 4,
    );
    boxed(
        frame,
        app,
        rect,
        "Commit: all of these, or nothing",
        lines,
        app.summary_scroll as u16,
    );
}

fn committed(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let mut lines = Vec::new();
    let title = match &app.outcome {
        Some(Outcome::Written { committed, report }) => {
            for written in &committed.written {
                let verb = match written.kind {
                    WriteKind::Modify => "wrote  ",
                    WriteKind::Create => "created",
                    WriteKind::Delete => "deleted",
                };
                let mut spans = vec![
                    Span::styled(
                        format!("{} {verb} ", Glyph::Accepted.symbol()),
                        p.get("accepted"),
                    ),
                    Span::styled(written.rel.display().to_string(), p.get("text")),
                ];
                if let Some(sha) = &written.sha256 {
                    spans.push(Span::styled(format!("  sha256 {sha}"), p.get("dim")));
                }
                lines.push(Line::from(spans));
            }
            if committed.written.is_empty() {
                lines.push(Line::from(
                    "nothing to write: every accepted change leaves its file as it is",
                ));
            }
            match report {
                Some(Ok(path)) => {
                    lines.push(Line::from(format!("report written to {}", path.display())))
                }
                Some(Err(e)) => lines.push(Line::from(Span::styled(e.clone(), p.get("conflict")))),
                None => {}
            }
            "Committed"
        }
        Some(Outcome::Failed(reason)) => {
            lines.push(Line::from(Span::styled(
                format!("{} nothing was written: {reason}", Glyph::Invalid.symbol()),
                p.get("conflict"),
            )));
            "Commit failed"
        }
        None => "",
    };
    lines.push(Line::default());
    lines.push(keys_line(app, Mode::Committed));
    let rect = centered(
        area,
        area.width.saturating_sub(4).min(120),
        lines.len() as u16 + 4,
    );
    boxed(frame, app, rect, title, lines, 0);
}

fn prompt(frame: &mut Frame, app: &App, area: Rect, title: &str, text: Vec<String>) {
    let mut lines: Vec<Line<'static>> = text
        .into_iter()
        .map(|t| Line::from(Span::styled(t, Style::default())))
        .collect();
    lines.push(Line::default());
    lines.push(keys_line(app, app.mode));
    let rect = centered(
        area,
        area.width.saturating_sub(4).min(90),
        lines.len() as u16 + 4,
    );
    boxed(frame, app, rect, title, lines, 0);
}
