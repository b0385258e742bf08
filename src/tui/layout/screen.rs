//! Where each part of the screen is: the header, the files and changes panes, the main pane,
//! the status line and the footer; how many rows of content the main pane shows; which rows of
//! a list show. Plain arithmetic, asked on every key (paging, scrolling, mouse hits) as well as
//! on every frame, so the mouse finds what was clicked with the numbers the drawing used.

use crate::tui::app::App;
use crate::tui::keys::Mode;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};

/// Where each part of the screen is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub files: Rect,
    pub changes: Rect,
    pub main: Rect,
    pub status: Rect,
    pub footer: Rect,
}

/// Below this many columns, the screen is the diff alone.
pub const COMPACT_WIDTH: u16 = 80;

/// The layout of a screen of `size` for a batch of `file_count` files, with a status line of
/// `status_height` rows. Plain arithmetic rather than a constraint solver: the event loop asks
/// for it on every key (paging, scrolling, mouse hits), and it must cost nothing.
pub fn split(size: Rect, file_count: usize, status_height: u16) -> Areas {
    let mut rest = size.height;
    let mut take = |rows: u16| {
        let rows = rows.min(rest);
        rest -= rows;
        rows
    };
    let header_height = take(2);
    let footer_height = take(1);
    let status_height = take(status_height);
    let body_height = rest;
    let row = |y: u16, height: u16| Rect::new(size.x, y, size.width, height);
    let header = row(size.y, header_height);
    let body = row(size.y + header_height, body_height);
    let status = row(body.bottom(), status_height);
    let footer = row(status.bottom(), footer_height);
    // The lists take two fifths of a wide screen; on a narrow one they give the diff at least
    // 60 columns, down to 18 columns of their own; below 80 columns they give way to the diff
    // (the title names the file and change, j/k and [/] still move).
    let left_width = if body.width < COMPACT_WIDTH {
        0
    } else {
        (body.width * 2 / 5)
            .min(body.width.saturating_sub(60))
            .max(18.min(body.width))
    };
    let files_height = (file_count.min(u16::MAX as usize - 2) as u16 + 2)
        .clamp(3, (body.height / 2).max(3))
        .min(body.height);
    let files = Rect::new(body.x, body.y, left_width, files_height);
    let changes = Rect::new(
        body.x,
        body.y + files_height,
        left_width,
        body.height - files_height,
    );
    let main = Rect::new(
        body.x + left_width,
        body.y,
        body.width - left_width,
        body.height,
    );
    Areas {
        header,
        files,
        changes,
        main,
        status,
        footer,
    }
}

/// Where each part of the screen is, at the current terminal size.
pub fn areas(app: &App) -> Areas {
    areas_in(app, Rect::new(0, 0, app.size.0, app.size.1))
}

/// Where each part of a screen of `screen` is: the status line takes up to three rows when
/// the message needs them.
pub fn areas_in(app: &App, screen: Rect) -> Areas {
    let rows = match app.status_text() {
        // As the status line wraps it: a glyph, then the text.
        Some((_, text)) if app.mode() != Mode::CommitSummary => {
            Paragraph::new(format!(" ✖ {text}"))
                .wrap(Wrap { trim: false })
                .line_count(screen.width)
                .clamp(1, 3)
        }
        _ => 1,
    };
    split(screen, app.review().batch().files.len(), rows as u16)
}

/// Rows of content the main pane shows at once.
pub fn page(app: &App) -> usize {
    (areas(app).main.height as usize).saturating_sub(2).max(1)
}

/// The first row shown of a list of `len` rows in `height` rows, keeping `selected` visible
/// and, when it can, in the middle.
pub fn list_window(len: usize, selected: usize, height: usize) -> usize {
    if len <= height || height == 0 {
        return 0;
    }
    selected.saturating_sub(height / 2).min(len - height)
}
