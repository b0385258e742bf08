//! The main pane: the selected change as a diff with context from the file on disk, or the
//! whole file with all its changes in place, under the conflicts that concern it.
//!
//! Conflicts come first and cannot be missed: a SHA mismatch shows both hashes, an
//! expected-line conflict shows expected and actual lines side by side with the differing
//! characters marked and where the expected lines were found instead. Only the rows on screen
//! are built and highlighted.

use super::glyphs::{change_glyphs, decision_glyph, Glyph};
use super::head::head_lines;
use crate::preview::{change_rows, FileLayout, Placed, Row, RowKind, CONTEXT};
use crate::review::Decision;
use crate::tui::app::App;
use crate::tui::highlight::Piece;
use crate::verify::Status;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;
use std::ops::Range;

/// The rows under the head: one change's, or the whole file's.
enum Rows {
    Change(Vec<Row>),
    File(FileLayout),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::Change(rows) => rows.len(),
            Rows::File(layout) => layout.len(),
        }
    }
}

struct Content {
    head: Vec<Line<'static>>,
    rows: Rows,
    /// The line shown first when not scrolled.
    anchor: usize,
}

/// (anchor, total lines) of the main pane's content, for scrolling.
pub fn main_extent(app: &App, width: u16) -> (usize, usize) {
    match content(app, width) {
        Some(c) => (c.anchor, c.head.len() + c.rows.len()),
        None => (0, 0),
    }
}

fn content(app: &App, width: u16) -> Option<Content> {
    let (fi, ci) = app.selected()?;
    let (file, change, file_check, check) = app.change(app.pos);
    let bytes = file_check.base_bytes();
    let index = app.line_index(fi);
    let mut head = head_lines(app, width);
    let new_lines = |c: &crate::model::Change| match app.decisions.get(&c.id) {
        Decision::Edit(lines) => lines.clone(),
        _ => c.new_lines.clone(),
    };
    let placed_range = |ci: usize| {
        let c = &file.changes[ci];
        let mut range = c.range;
        if app.decisions.relocate.contains(&c.id) {
            if let Some(at) = file_check.changes[ci].found_at() {
                range.start = at;
            }
        }
        range
    };
    if app.whole_file {
        let mut placed: Vec<Placed> = (0..file.changes.len())
            .map(|i| Placed {
                change: i,
                range: placed_range(i),
                new_lines: new_lines(&file.changes[i]),
            })
            .collect();
        placed.sort_by_key(|p| (p.range.start, p.range.count > 0, p.change));
        let layout = FileLayout::new(bytes, &index, &placed);
        let anchor = layout
            .change_row(ci)
            .map_or(0, |r| head.len() + r.saturating_sub(CONTEXT));
        return Some(Content {
            head,
            rows: Rows::File(layout),
            anchor,
        });
    }
    if check.status == Status::Invalid && check.problems.iter().any(|p| p.kind == "out_of_range") {
        head.push(Line::from(Span::styled(
            "  (the change's lines are past the end of the file: there is no diff to show)",
            app.palette.get("dim"),
        )));
    }
    let rows = change_rows(bytes, &index, placed_range(ci), &new_lines(change), CONTEXT);
    Some(Content {
        head,
        rows: Rows::Change(rows),
        anchor: 0,
    })
}

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let inner_width = area.width.saturating_sub(2);
    let height = area.height.saturating_sub(2) as usize;
    let Some(content) = content(app, inner_width) else {
        frame.render_widget(
            Paragraph::new("This batch has no changes.").block(Block::bordered()),
            area,
        );
        return;
    };
    let (fi, ci) = app.selected().expect("content exists");
    let (file, change, file_check, check) = app.change(app.pos);
    let total = content.head.len() + content.rows.len();
    let max_first = total.saturating_sub(height);
    let first = (content.anchor as i64 + app.scroll).clamp(0, max_first as i64) as usize;
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    lines.extend(content.head.iter().skip(first).take(height).cloned());
    let row_first = first.saturating_sub(content.head.len());
    let row_count = height
        .saturating_sub(lines.len())
        .min(content.rows.len().saturating_sub(row_first));
    let index = app.line_index(fi);
    let bytes = file_check.base_bytes();
    let rows: Vec<Row> = match &content.rows {
        Rows::Change(rows) => rows[row_first..row_first + row_count].to_vec(),
        Rows::File(layout) => (row_first..row_first + row_count)
            .filter_map(|i| layout.row(bytes, &index, i))
            .collect(),
    };
    let path = file_check
        .resolved
        .as_ref()
        .map_or_else(|| file.doc_path.clone(), |r| r.rel().display().to_string());
    let old_line = |n: usize| index.line(bytes, n).to_owned();
    let pieces = app
        .highlighter
        .rows(p, fi, &path, &old_line, index.len(), &rows);
    let number_width = (index.len() + change.new_lines.len() + 1)
        .to_string()
        .len()
        .max(3);
    for (row, pieces) in rows.iter().zip(pieces) {
        lines.push(row_line(app, row, &pieces, number_width, ci));
    }
    let (decision, status) = change_glyphs(&app.decisions, &change.id, change.match_tier, check);
    let mut title = Vec::new();
    if status != Glyph::Ok {
        title.push(Span::styled(
            format!(" {} {} ", status.symbol(), status.word()),
            p.get(status.style_name()),
        ));
    }
    title.push(Span::styled(
        format!(" {} {} ", decision.symbol(), decision.word()),
        p.get(decision.style_name()),
    ));
    title.push(Span::styled(
        format!(
            " {path} · {}/{} {} · {} {} ",
            ci + 1,
            file.changes.len(),
            change.key.as_deref().unwrap_or(change.id.as_str()),
            change.operation.as_str(),
            change.range.describe()
        ),
        p.get("title"),
    ));
    if app.whole_file {
        title.push(Span::styled(" whole file ", p.get("dim")));
    }
    let border = if app.conflicting(app.pos) {
        p.get("conflict")
    } else {
        p.get("border")
    };
    let block = Block::bordered()
        .border_style(border)
        .title(Line::from(title));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// One diff row: line numbers, sign, and the text with syntax colours and changed words.
fn row_line(
    app: &App,
    row: &Row,
    pieces: &[Piece],
    width: usize,
    selected: usize,
) -> Line<'static> {
    let p = &app.palette;
    let number = |n: Option<usize>| n.map_or_else(|| " ".repeat(width), |n| format!("{n:>width$}"));
    let rejected = row.change.is_some_and(|c| {
        let id = &app.checked.batch.files[app.file_index()].changes[c].id;
        *app.decisions.get(id) == Decision::Reject
    });
    let (sign, base, emphasis) = match row.kind {
        RowKind::Context => (" ", Style::default(), Style::default()),
        RowKind::Removed => ("-", p.get("removed"), p.get("removed_emphasis")),
        RowKind::Added => ("+", p.get("added"), p.get("added_emphasis")),
    };
    let (base, emphasis) = if rejected {
        (p.get("dim"), p.get("dim"))
    } else {
        (base, emphasis)
    };
    let marker = match row.change {
        Some(c) if app.whole_file && c == selected => Span::styled("▌", p.get("key")),
        Some(c) if app.whole_file => {
            let id = &app.checked.batch.files[app.file_index()].changes[c].id;
            let glyph = decision_glyph(app.decisions.get(id));
            Span::styled(glyph.symbol(), p.get(glyph.style_name()))
        }
        _ => Span::raw(" "),
    };
    let mut spans = vec![
        marker,
        Span::styled(
            format!("{} {} ", number(row.old), number(row.new)),
            p.get("line_number"),
        ),
        Span::styled(format!("{sign} "), base.patch(p.get("key")).patch(base)),
    ];
    spans.extend(styled_text(
        pieces,
        &row.emphasis,
        p.get("text").patch(base),
        emphasis,
    ));
    Line::from(spans).style(base)
}

/// Splits syntax pieces at the emphasised byte ranges and styles each part; tabs become spaces.
pub fn styled_text(
    pieces: &[Piece],
    emphasis: &[Range<usize>],
    base: Style,
    emphasised: Style,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = 0;
    for (style, text) in pieces {
        let end = at + text.len();
        let mut cut = at;
        while cut < end {
            let inside = emphasis.iter().find(|r| r.start <= cut && cut < r.end);
            let next = match inside {
                Some(r) => r.end.min(end),
                None => emphasis
                    .iter()
                    .filter(|r| r.start > cut)
                    .map(|r| r.start)
                    .min()
                    .unwrap_or(end)
                    .min(end),
            };
            let part = text.get(cut - at..next - at).unwrap_or("");
            let mut part_style = base.patch(*style);
            if inside.is_some() {
                part_style = part_style.patch(emphasised);
            }
            spans.push(Span::styled(part.replace('\t', "    "), part_style));
            cut = next;
        }
        at = end;
    }
    spans
}
