//! The overlays that scroll, laid out: the help, the commit summary and what a commit did, as
//! boxes of lines (`panel`), and how far each scrolls on the current screen. A scrolling key
//! asks [`overlay_scroll`] where it goes; the drawing draws the same boxes (`draw::overlays`).

use super::panel::Panel;
use crate::plan::WriteKind;
use crate::tui::app::{App, Outcome, Overlay};
use crate::tui::glyphs::Glyph;
use crate::tui::keys::{self, Action, Mode};
use crate::tui::text::wrap_hanging;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The whole screen, at the terminal size: where the overlays are centred.
fn screen(app: &App) -> Rect {
    Rect::new(0, 0, app.size.0, app.size.1)
}

/// Widest the help is.
const HELP_WIDTH: u16 = 100;
/// Columns before a key's description: two of margin, the keys, a space.
const HELP_KEYS: usize = 18;

/// The help: the glyphs, then every mode's keys from the key map.
pub fn help_overlay(app: &App) -> Panel {
    let p = &app.palette;
    let mut lines = Vec::new();
    // The legend first, where it is found without scrolling.
    lines.push(Line::from(Span::styled("Glyphs", p.title)));
    let glyphs = [
        Glyph::Undecided,
        Glyph::Accepted,
        Glyph::Rejected,
        Glyph::Edited,
        Glyph::Conflict,
        Glyph::Invalid,
        Glyph::Relocated,
        Glyph::Tolerant,
        Glyph::Note,
        Glyph::Applied,
    ];
    for row in glyphs.chunks(4) {
        let mut spans = vec![Span::raw("  ")];
        for glyph in row {
            spans.push(Span::styled(glyph.symbol(), glyph.style(p)));
            spans.push(Span::styled(format!(" {:<15}", glyph.word()), p.text));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(Span::styled(
        "  mouse: wheel scrolls, a click selects a file or change",
        p.dim,
    )));
    let modes = [
        Mode::Browse,
        Mode::Search,
        Mode::Place,
        Mode::ConfirmAcceptVerified,
        Mode::ConfirmTakeOver,
        Mode::CommitSummary,
        Mode::Committed,
        Mode::ConfirmQuit,
        Mode::EditFailed,
        Mode::Reload,
    ];
    // Descriptions wrap under themselves, not under the keys.
    let inner = (app.size.0.min(HELP_WIDTH) as usize).saturating_sub(2);
    let room = inner.saturating_sub(HELP_KEYS).max(20);
    for mode in modes {
        lines.push(Line::from(Span::styled(keys::mode_title(mode), p.title)));
        for binding in app.keymap.bindings(mode) {
            let keys = format!("  {:<15} ", keys::keys_label(binding));
            for (row, text) in wrap_hanging(binding.help, room, "").into_iter().enumerate() {
                let lead = if row == 0 {
                    keys.clone()
                } else {
                    " ".repeat(HELP_KEYS)
                };
                lines.push(Line::from(vec![
                    Span::styled(lead, p.key),
                    Span::styled(text, p.text),
                ]));
            }
        }
    }
    Panel {
        title: "Keys".into(),
        lines,
        max_width: HELP_WIDTH,
        mode: Mode::Help,
    }
}

/// What a commit would write (`summary`), and why it cannot, when it cannot.
pub fn summary_overlay(app: &App) -> Panel {
    let p = &app.palette;
    let mut lines: Vec<Line<'static>> = app
        .summary_lines()
        .iter()
        .map(|l| {
            let style = if l.warn { p.warning } else { p.text };
            let glyph = if l.warn {
                Glyph::Conflict.symbol()
            } else {
                " "
            };
            Line::from(Span::styled(format!("{glyph} {}", l.text), style))
        })
        .collect();
    let refusal = crate::tui::commit_flow::READ_ONLY_REFUSAL;
    if app.config.read_only {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(refusal, p.conflict)));
    }
    if let Some(message) = app.message.as_ref().filter(|m| m.text != refusal) {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(message.text.clone(), p.conflict)));
    }
    Panel {
        title: "Commit: all of these, or nothing".into(),
        lines,
        max_width: app.size.0.saturating_sub(4).min(110),
        mode: Mode::CommitSummary,
    }
}

/// What the last commit did: the totals and how to take it back first, then every file.
pub fn committed_overlay(app: &App) -> Panel {
    let p = &app.palette;
    let mut lines = Vec::new();
    let title = match &app.outcome {
        Some(Outcome::Written { committed, report }) => {
            lines.push(Line::from(Span::styled(
                crate::report::say::describe_totals(&committed.written),
                p.title,
            )));
            if !committed.written.is_empty() {
                lines.push(Line::from(Span::styled(
                    crate::report::say::describe_undo(committed),
                    p.dim,
                )));
            }
            for written in &committed.written {
                let verb = match written.kind {
                    WriteKind::Modify => "wrote  ",
                    WriteKind::Create => "created",
                    WriteKind::Delete => "deleted",
                };
                let mut spans = vec![
                    Span::styled(format!("{} {verb} ", Glyph::Accepted.symbol()), p.accepted),
                    Span::styled(written.rel.display().to_string(), p.text),
                ];
                if let Some(sha) = &written.sha256 {
                    spans.push(Span::styled(format!("  sha256 {sha}"), p.dim));
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
                Some(Err(e)) => lines.push(Line::from(Span::styled(e.clone(), p.conflict))),
                None => {}
            }
            "Committed"
        }
        Some(Outcome::Failed(reason)) => {
            lines.push(Line::from(Span::styled(
                format!("{} nothing was written: {reason}", Glyph::Invalid.symbol()),
                p.conflict,
            )));
            "Commit failed"
        }
        None => "",
    };
    Panel {
        title: title.into(),
        lines,
        max_width: app.size.0.saturating_sub(4).min(120),
        mode: Mode::Committed,
    }
}

/// How an overlay's text is scrolled, and how far it can be on the current screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scroll {
    pub now: usize,
    /// The furthest it scrolls: 0 when the text fits.
    pub most: usize,
    /// Rows of text shown at once.
    pub page: usize,
}

impl Scroll {
    /// Where `action` scrolls to, when it is a scrolling action: a line, a page, or either
    /// end, as a pager does.
    pub fn after(self, action: Action) -> Option<usize> {
        let to = match action {
            Action::NextChange => self.now + 1,
            Action::PrevChange => self.now.saturating_sub(1),
            Action::PageDown => self.now + self.page,
            Action::PageUp => self.now.saturating_sub(self.page),
            Action::FirstChange => 0,
            Action::LastChange => self.most,
            _ => return None,
        };
        Some(to.min(self.most))
    }
}

/// The scrolling of the overlay in front, when it is one that scrolls (the help, the commit
/// summary, what a commit did).
pub fn overlay_scroll(app: &App) -> Option<Scroll> {
    let panel = match &app.overlay {
        Some(Overlay::Help { .. }) => help_overlay(app),
        Some(Overlay::CommitSummary(_)) => summary_overlay(app),
        Some(Overlay::Committed { .. }) => committed_overlay(app),
        _ => return None,
    };
    let placed = panel.place(screen(app));
    let most = placed.hidden;
    Some(Scroll {
        now: app.overlay.as_ref().map_or(0, Overlay::scroll).min(most),
        most,
        page: (placed.rect.height as usize).saturating_sub(2).max(1),
    })
}
