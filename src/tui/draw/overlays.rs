//! Overlays drawn over the review: help, the commit summary, what a commit did, and the
//! prompts (quit, an edit that cannot apply, a file changed on disk). Their key lines come
//! from the key map, like the footer's.

use super::glyphs::Glyph;
use crate::plan::WriteKind;
use crate::tui::app::{App, Outcome, Overlay};
use crate::tui::keys::{self, Action, Mode};
use ratatui::buffer::CellWidth;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    match &app.overlay {
        Some(Overlay::Help { scroll }) => help_overlay(app).draw(frame, app, area, *scroll),
        Some(Overlay::CommitSummary { scroll, .. }) => {
            summary_overlay(app).draw(frame, app, area, *scroll)
        }
        Some(Overlay::Committed { scroll }) => {
            committed_overlay(app).draw(frame, app, area, *scroll)
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
        None | Some(Overlay::Search) | Some(Overlay::Place(_)) => {}
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

/// The keys of a mode that apply now, from the key map (scrolling only when there is more to
/// see), for an overlay's bottom border.
fn keys_line(app: &App, mode: Mode) -> Line<'static> {
    let p = &app.palette;
    let mut spans = Vec::new();
    let availability = super::Availability::new(app);
    for binding in app.keymap.bindings(mode) {
        if !availability.allows(binding.action) {
            continue;
        }
        spans.push(Span::styled(
            format!(" {}", keys::keys_label(binding)),
            p.key,
        ));
        spans.push(Span::styled(format!(" {} ", binding.short), p.dim));
    }
    Line::from(spans)
}

/// An overlay's box: its text, wrapped, and the keys of its mode on the bottom border, where
/// scrolling cannot hide them.
struct Panel {
    title: String,
    lines: Vec<Line<'static>>,
    /// Widest the box may be.
    max_width: u16,
    mode: Mode,
}

impl Panel {
    fn block(&self, app: &App) -> Block<'static> {
        let p = &app.palette;
        Block::bordered()
            .border_style(p.title)
            .title(Span::styled(format!(" {} ", self.title), p.title))
            .title_bottom(keys_line(app, self.mode))
    }

    /// Where the box goes on a screen of `area`, and the rows each of its lines takes there.
    fn place(&self, area: Rect) -> Placed {
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

    /// Draws the box scrolled `scroll` rows down. Only the lines the box shows are wrapped
    /// and drawn: a commit summary of 2,000 files costs a frame what one screen of it does.
    fn draw(&self, frame: &mut Frame, app: &App, area: Rect, scroll: usize) {
        let placed = self.place(area);
        frame.render_widget(Clear, placed.rect);
        let (shown, within) = placed.window(scroll);
        let paragraph = Paragraph::new(self.lines[shown].to_vec())
            .block(self.block(app))
            .style(app.palette.text)
            .wrap(Wrap { trim: false })
            .scroll((within, 0));
        frame.render_widget(paragraph, placed.rect);
    }
}

/// A box placed on the screen.
struct Placed {
    rect: Rect,
    /// Rows of text that do not fit: how far the box can scroll.
    hidden: usize,
    /// The rows each line takes, wrapped at the width inside the borders.
    rows: Vec<usize>,
}

impl Placed {
    /// The lines a box scrolled `scroll` rows down shows, and how many rows of the first of
    /// them are above the box (a long line wraps into several).
    fn window(&self, scroll: usize) -> (std::ops::Range<usize>, u16) {
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

fn screen(app: &App) -> Rect {
    Rect::new(0, 0, app.size.0, app.size.1)
}

/// Widest the help is.
const HELP_WIDTH: u16 = 100;
/// Columns before a key's description: two of margin, the keys, a space.
const HELP_KEYS: usize = 18;

fn help_overlay(app: &App) -> Panel {
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
            for (row, text) in super::head::wrap_hanging(binding.help, room, "")
                .into_iter()
                .enumerate()
            {
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

fn summary_overlay(app: &App) -> Panel {
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
fn committed_overlay(app: &App) -> Panel {
    let p = &app.palette;
    let mut lines = Vec::new();
    let title = match &app.outcome {
        Some(Outcome::Written { committed, report }) => {
            lines.push(Line::from(Span::styled(
                crate::pipeline::describe_totals(&committed.written),
                p.title,
            )));
            if !committed.written.is_empty() {
                lines.push(Line::from(Span::styled(
                    crate::pipeline::describe_undo(committed),
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
        Some(Overlay::CommitSummary { .. }) => summary_overlay(app),
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

fn prompt(frame: &mut Frame, app: &App, area: Rect, title: &str, text: Vec<String>) {
    let lines: Vec<Line<'static>> = text
        .into_iter()
        .map(|t| Line::from(Span::styled(t, Style::default())))
        .collect();
    Panel {
        title: title.into(),
        lines,
        max_width: area.width.saturating_sub(4).min(90),
        mode: app.mode(),
    }
    .draw(frame, app, area, 0);
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
    use ratatui::widgets::Widget;

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
