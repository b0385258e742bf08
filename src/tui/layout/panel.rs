//! An overlay's box, measured: its lines wrapped inside a border, centred on the screen, and
//! scrolled by rows. Every line's rows are counted without wrapping it when it fits, and only
//! the lines the box shows are drawn (`draw::panel`), so a box of 2,000 lines costs a frame
//! what one screen of it does; scrolling asks the same numbers on a key.

use crate::tui::keys::Mode;
use ratatui::buffer::CellWidth;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

/// An overlay's box: its text, wrapped, and the keys of its mode on the bottom border, where
/// scrolling cannot hide them.
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line<'static>>,
    /// Widest the box may be.
    pub max_width: u16,
    pub mode: Mode,
}

impl Panel {
    /// Where the box goes on a screen of `area`, and the rows each of its lines takes there.
    pub fn place(&self, area: Rect) -> Placed {
        let width = self.max_width.min(area.width);
        // The text wraps inside the borders, two columns narrower than the box.
        let rows: Vec<usize> = self
            .lines
            .iter()
            .map(|line| rows(line, width.saturating_sub(2)))
            .collect();
        let needed = rows.iter().sum::<usize>() + 2;
        let rect = centered(area, width, needed.min(u16::MAX as usize) as u16);
        Placed {
            rect,
            hidden: needed.saturating_sub(rect.height as usize),
            rows,
        }
    }
}

/// A box placed on the screen.
pub struct Placed {
    pub rect: Rect,
    /// Rows of text that do not fit: how far the box can scroll.
    pub hidden: usize,
    /// The rows each line takes, wrapped at the width inside the borders.
    rows: Vec<usize>,
}

impl Placed {
    /// The lines a box scrolled `scroll` rows down shows, and how many rows of the first of
    /// them are above the box (a long line wraps into several).
    pub fn window(&self, scroll: usize) -> (std::ops::Range<usize>, u16) {
        let mut above = scroll.min(self.hidden);
        let mut first = 0;
        while first < self.rows.len() && self.rows[first] <= above {
            above -= self.rows[first];
            first += 1;
        }
        let height = self.rect.height.saturating_sub(2) as usize;
        let (mut end, mut filled) = (first, 0);
        while end < self.rows.len() && filled < above + height {
            filled += self.rows[end];
            end += 1;
        }
        // `above` is less than one line's rows: a line of more than 65,535 rows is cut short.
        (first..end, above.min(u16::MAX as usize) as u16)
    }
}

/// The rows `line` takes wrapped at `width`, as ratatui's word wrapping lays it out: one for
/// a line that fits, as nearly every line does, without laying it out.
fn rows(line: &Line<'_>, width: u16) -> usize {
    if width > 0 && cells(line) <= width as usize {
        return 1;
    }
    Paragraph::new(line.clone())
        .wrap(Wrap { trim: false })
        .line_count(width)
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

/// The columns `line` takes, counted as ratatui's wrapping counts them: each grapheme's
/// width, control characters left out. (`Line::width` measures the whole text, which for some
/// pairs of characters, such as the Arabic lam-alef, is less.) A span of plain ASCII is
/// counted byte by byte.
fn cells(line: &Line<'_>) -> usize {
    line.spans
        .iter()
        .map(|span| {
            if span.content.is_ascii() {
                span.content
                    .bytes()
                    .filter(|b| !b.is_ascii_control())
                    .count()
            } else {
                span.styled_graphemes(Style::default())
                    .map(|g| usize::from(g.symbol.cell_width()))
                    .sum()
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::Buffer;
    use ratatui::text::Span;
    use ratatui::widgets::{Block, Widget};

    /// Lines of every kind wrapping meets: empty, fitting exactly, one word longer than the
    /// box, wide characters, runs of spaces, several spans.
    fn lines(seed: u64, count: usize) -> Vec<Line<'static>> {
        let mut state = seed;
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % below
        };
        let words = [
            "write",
            "src/pkg12/mod1234.rs",
            "+12",
            "-3",
            "",
            "   ",
            "表示",
            "—",
            "لالا",
            "tab\tand\r\nbreak",
            "x",
            "a_rather_long_identifier_that_will_not_fit_anywhere_narrow",
        ];
        (0..count)
            .map(|_| {
                let spans: Vec<Span<'static>> = (0..next(4))
                    .map(|_| {
                        let text: Vec<&str> =
                            (0..next(9)).map(|_| words[next(12) as usize]).collect();
                        Span::raw(text.join(" "))
                    })
                    .collect();
                Line::from(spans)
            })
            .collect()
    }

    #[test]
    fn rows_of_each_line_add_up_to_ratatuis_count() {
        for seed in 0..40 {
            let lines = lines(seed, 30);
            for width in [0, 1, 2, 5, 9, 20, 33, 60, 118] {
                let each: usize = lines.iter().map(|l| rows(l, width)).sum();
                let whole = Paragraph::new(lines.clone())
                    .wrap(Wrap { trim: false })
                    .line_count(width);
                assert_eq!(each, whole, "seed {seed}, width {width}");
            }
        }
    }

    /// What a box shows scrolled `scroll` rows down: the whole text wrapped and scrolled, as
    /// ratatui draws it.
    fn drawn_whole(lines: &[Line<'static>], rect: Rect, scroll: u16) -> Buffer {
        let mut buffer = Buffer::empty(rect);
        Paragraph::new(lines.to_vec())
            .block(Block::bordered())
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .render(rect, &mut buffer);
        buffer
    }

    #[test]
    fn a_window_draws_what_the_whole_text_scrolled_draws() {
        for seed in 0..8 {
            let lines = lines(seed, 40);
            for (width, height) in [(12, 6), (30, 10), (60, 4), (118, 40)] {
                let panel = Panel {
                    title: String::new(),
                    lines: lines.clone(),
                    max_width: width,
                    mode: Mode::CommitSummary,
                };
                let placed = panel.place(Rect::new(0, 0, width, height));
                for scroll in 0..=placed.hidden + 2 {
                    let (shown, within) = placed.window(scroll);
                    let mut buffer = Buffer::empty(placed.rect);
                    Paragraph::new(lines[shown].to_vec())
                        .block(Block::bordered())
                        .wrap(Wrap { trim: false })
                        .scroll((within, 0))
                        .render(placed.rect, &mut buffer);
                    let whole = scroll.min(placed.hidden) as u16;
                    assert_eq!(
                        buffer,
                        drawn_whole(&lines, placed.rect, whole),
                        "seed {seed}, {width}x{height}, scroll {scroll}"
                    );
                }
            }
        }
    }
}
