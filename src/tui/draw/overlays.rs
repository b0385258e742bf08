//! Overlays drawn over the review: help, the commit summary, what a commit did, and the
//! prompts (quit, an edit that cannot apply, a file changed on disk). The ones that scroll are
//! laid out in `layout::overlays`; each is drawn as a box (`panel`) whose key line comes from
//! the key map, like the footer's.

use super::panel;
use crate::tui::app::{App, Overlay};
use crate::tui::layout::overlays::{committed_overlay, help_overlay, summary_overlay};
use crate::tui::layout::panel::Panel;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    match &app.overlay {
        Some(Overlay::Help { scroll }) => panel::draw(frame, app, &help_overlay(app), area, *scroll),
        Some(Overlay::CommitSummary(summary)) => {
            panel::draw(frame, app, &summary_overlay(app), area, summary.scroll)
        }
        Some(Overlay::Committed { scroll }) => {
            panel::draw(frame, app, &committed_overlay(app), area, *scroll)
        }
        Some(Overlay::ConfirmAcceptVerified { count }) => prompt(
            frame,
            app,
            area,
            "Accept every verified change?",
            vec![format!(
                "{count} undecided change(s) verify as they are and would be accepted; conflicts, invalid changes and your decisions stay as they are."
            )],
        ),
        Some(Overlay::ConfirmTakeOver { pos }) => prompt(
            frame,
            app,
            area,
            "Write the proposal over the lines on disk?",
            app.take_over_question(*pos),
        ),
        Some(Overlay::ConfirmQuit) => {
            prompt(frame, app, area, "Quit?", vec![app.quit_question()])
        }
        Some(Overlay::EditFailed(failed)) => prompt(
            frame,
            app,
            area,
            "The edit cannot apply",
            vec![failed.reason.clone()],
        ),
        Some(Overlay::Reload { what }) => prompt(
            frame,
            app,
            area,
            "A file changed on disk: nothing was written",
            vec![
                what.clone(),
                "Reload verifies the batch again and keeps every decision whose change can still be written as decided."
                    .into(),
            ],
        ),
        // Typing a search or placing a change happens in the status line, over the review.
        None | Some(Overlay::Search) | Some(Overlay::Place(_)) | Some(Overlay::Note(_)) => {}
    }
}

fn prompt(frame: &mut Frame, app: &App, area: Rect, title: &str, text: Vec<String>) {
    let lines: Vec<Line<'static>> = text
        .into_iter()
        .map(|t| Line::from(Span::styled(t, Style::default())))
        .collect();
    let panel = Panel {
        title: title.into(),
        lines,
        max_width: area.width.saturating_sub(4).min(90),
        mode: app.mode(),
    };
    panel::draw(frame, app, &panel, area, 0);
}
