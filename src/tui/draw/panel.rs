//! Drawing an overlay's box (`layout::panel`): its border and title, the keys of its mode on
//! the bottom border, where scrolling cannot hide them, and only the lines the box shows,
//! wrapped.

use super::offered::keys_line;
use crate::tui::app::App;
use crate::tui::layout::panel::Panel;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

fn block(panel: &Panel, app: &App) -> Block<'static> {
    let p = &app.palette;
    Block::bordered()
        .border_style(p.title)
        .title(Span::styled(format!(" {} ", panel.title), p.title))
        .title_bottom(keys_line(app, panel.mode))
}

/// Draws the box scrolled `scroll` rows down. Only the lines the box shows are wrapped and
/// drawn: a commit summary of 2,000 files costs a frame what one screen of it does.
pub fn draw(frame: &mut Frame, app: &App, panel: &Panel, area: Rect, scroll: usize) {
    let placed = panel.place(area);
    frame.render_widget(Clear, placed.rect);
    let (shown, within) = placed.window(scroll);
    let paragraph = Paragraph::new(panel.lines[shown].to_vec())
        .block(block(panel, app))
        .style(app.palette.text)
        .wrap(Wrap { trim: false })
        .scroll((within, 0));
    frame.render_widget(paragraph, placed.rect);
}
