//! The main pane: the selected change as a diff with context from the file on disk, or the
//! whole file with all its changes in place, under the conflicts that concern it.
//!
//! Conflicts come first and cannot be missed: a SHA mismatch shows both hashes, an
//! expected-line conflict shows expected and actual lines side by side with the differing
//! characters marked and where the expected lines were found instead. Only the rows on screen
//! are built and highlighted.

use super::glyphs::{change_glyphs, Glyph};
use super::head::{head_lines, mismatch_overflow};
use super::text::{highlight_matches, window_spans};
use crate::preview::{change_rows, FileLayout, Placed, Row, RowKind, CONTEXT};
use crate::problem::ProblemKind;
use crate::review::At;
use crate::review::ChangeView;
use crate::review::Decision;
use crate::tui::app::App;
use crate::tui::highlight::{Piece, Source};
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
    /// How many lines of `head` are `head_lines` (notes about the rows follow them).
    head_own: usize,
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

/// The new lines of the change at `ci` of the selected file: an edit's, or its own.
fn new_lines_of(app: &App, c: &crate::model::Change) -> Vec<String> {
    match app.decisions().get(&c.id) {
        Decision::Edit(lines) => lines.to_vec(),
        _ => c.new_lines.to_vec(),
    }
}

/// Where change `ci` of file `fi` is shown: where it applies as decided (the core's answer),
/// and for the only change of a file the batch creates where a file exists, over that whole
/// file, so the diff is against what is on disk.
fn placed_range(app: &App, fi: usize, ci: usize) -> crate::model::LineRange {
    let (file, file_check) = app.file(fi);
    let over_existing = file_check.action == crate::model::FileAction::Create
        && file_check.snapshot.is_some()
        && file.changes.len() == 1;
    if over_existing {
        return crate::model::LineRange {
            start: 1,
            count: app.line_index(fi).len(),
        };
    }
    let at = At {
        file: fi,
        change: ci,
    };
    // While the change is being placed, it is shown where it would go.
    if let Some(line) = app.placing(at).and_then(|p| p.line()) {
        let range = file.changes[ci].range;
        let start = match file.changes[ci].operation {
            crate::model::Operation::Insert => line + 1,
            _ => line.max(1),
        };
        return crate::model::LineRange { start, ..range };
    }
    app.review().shown_at(at)
}

/// What the main pane shows, with expected and actual lines from their first column (the
/// number of head lines does not depend on horizontal scrolling).
fn content(app: &App, width: u16) -> Option<Content> {
    let At {
        file: fi,
        change: ci,
    } = app.selected()?;
    let ChangeView {
        file,
        change,
        file_check,
        check,
    } = app.change(app.pos);
    let bytes = file_check.base_bytes();
    let index = app.line_index(fi);
    let mut head = head_lines(app, width, 0);
    let head_own = head.len();
    if app.whole_file {
        // A change the format could not place has no place in the file to show it at.
        let mut placed: Vec<Placed> = (0..file.changes.len())
            .filter(|&i| file.changes[i].unplaced().is_none())
            .map(|i| Placed {
                change: i,
                range: placed_range(app, fi, i),
                new_lines: new_lines_of(app, &file.changes[i]),
            })
            .collect();
        placed.sort_by_key(|p| (p.range.start, p.range.count > 0, p.change));
        let layout = FileLayout::new(bytes, &index, &placed);
        let anchor = layout
            .change_row(ci)
            .map_or(0, |r| head.len() + r.saturating_sub(CONTEXT));
        return Some(Content {
            head,
            head_own,
            rows: Rows::File(layout),
            anchor,
        });
    }
    if change.unplaced().is_some() {
        head.push(Line::from(Span::styled(
            "  It would write (where is not known):",
            app.palette.dim,
        )));
        let rows = new_lines_of(app, change)
            .into_iter()
            .map(|text| Row {
                kind: RowKind::Added,
                old: None,
                new: None,
                text,
                emphasis: Vec::new(),
                change: Some(ci),
            })
            .collect();
        return Some(Content {
            head,
            head_own,
            rows: Rows::Change(rows),
            anchor: 0,
        });
    }
    if check.status == Status::Invalid
        && check
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::OutOfRange)
    {
        head.push(Line::from(Span::styled(
            "  (the change's lines are past the end of the file: there is no diff to show)",
            app.palette.dim,
        )));
    }
    let rows = change_rows(
        bytes,
        &index,
        placed_range(app, fi, ci),
        &new_lines_of(app, change),
        CONTEXT,
    );
    Some(Content {
        head,
        head_own,
        rows: Rows::Change(rows),
        anchor: 0,
    })
}

/// Columns of a row before its text: marker, both line numbers, sign.
fn row_prefix_width(number_width: usize) -> usize {
    1 + number_width + 1 + number_width + 1 + 2
}

fn number_width(app: &App) -> usize {
    let At { file: fi, .. } = app.selected().unwrap_or_default();
    let ChangeView { change, .. } = app.change(app.pos);
    (app.line_index(fi).len() + change.new_lines.len() + 1)
        .to_string()
        .len()
        .max(3)
}

/// Columns a row's text takes on screen (tabs show as four spaces).
fn text_columns(text: &str) -> usize {
    Span::raw(text.replace('\t', "    ")).width()
}

/// Which lines of the content are on screen: (first line, first row, row count).
fn window(app: &App, content: &Content, height: usize) -> (usize, usize, usize) {
    let total = content.head.len() + content.rows.len();
    let max_first = total.saturating_sub(height);
    let first = (content.anchor as i64 + app.scroll).clamp(0, max_first as i64) as usize;
    let head_shown = content.head.len().saturating_sub(first).min(height);
    let row_first = first.saturating_sub(content.head.len());
    let row_count = (height - head_shown).min(content.rows.len().saturating_sub(row_first));
    (first, row_first, row_count)
}

fn visible_rows(app: &App, content: &Content, row_first: usize, row_count: usize) -> Vec<Row> {
    let At { file: fi, .. } = app.selected().unwrap_or_default();
    let index = app.line_index(fi);
    let bytes = app.file(fi).1.base_bytes();
    match &content.rows {
        Rows::Change(rows) => rows[row_first..row_first + row_count].to_vec(),
        Rows::File(layout) => (row_first..row_first + row_count)
            .filter_map(|i| layout.row(bytes, &index, i))
            .collect(),
    }
}

/// Horizontal scrolling of the main pane, `width` columns wide: (columns scrolled now, the
/// most it can scroll, columns of text a row shows). Until the person scrolls, the view starts
/// where the selected change's first changed word is visible.
pub fn main_hscroll(app: &App, width: u16) -> (usize, usize, usize) {
    match content(app, width) {
        Some(content) => hscroll_of(app, &content, width),
        None => (0, 0, 0),
    }
}

/// [`main_hscroll`] for content already built (its head's width does not matter).
fn hscroll_of(app: &App, content: &Content, width: u16) -> (usize, usize, usize) {
    let text_width = (width as usize).saturating_sub(row_prefix_width(number_width(app)));
    let height = app.page();
    let (_, row_first, row_count) = window(app, content, height);
    let rows = visible_rows(app, content, row_first, row_count);
    let longest_row = rows
        .iter()
        .map(|r| text_columns(&r.text))
        .max()
        .unwrap_or(0);
    let most = longest_row
        .saturating_sub(text_width.saturating_sub(1))
        .max(mismatch_overflow(app, width));
    let now = app
        .hscroll
        .unwrap_or_else(|| first_change_column(app, content, text_width))
        .min(most);
    (now, most, text_width)
}

/// Columns of the first changed word that must show before the view moves sideways for it.
const SHOWN_OF_CHANGE: usize = 12;

/// Where to start showing the selected change so its first changed word is in view.
fn first_change_column(app: &App, content: &Content, text_width: usize) -> usize {
    let Some(At {
        file: fi,
        change: ci,
    }) = app.selected()
    else {
        return 0;
    };
    let ChangeView {
        change, file_check, ..
    } = app.change(app.pos);
    if change.unplaced().is_some() {
        return 0;
    }
    let own;
    let rows = match &content.rows {
        Rows::Change(rows) => rows,
        Rows::File(_) => {
            own = change_rows(
                file_check.base_bytes(),
                &app.line_index(fi),
                placed_range(app, fi, ci),
                &new_lines_of(app, change),
                0,
            );
            &own
        }
    };
    // The columns of every changed word: when they do not all fit, start a little before the
    // first of them, far enough right for the last one to show when they fit together.
    let spans = rows
        .iter()
        .filter(|r| r.kind != RowKind::Context)
        .flat_map(|r| {
            r.emphasis.iter().map(|span| {
                (
                    text_columns(r.text.get(..span.start).unwrap_or("")),
                    text_columns(r.text.get(..span.end).unwrap_or("")),
                )
            })
        });
    let Some((first, last)) = spans.fold(None, |acc: Option<(usize, usize)>, (s, e)| {
        Some(acc.map_or((s, e), |(a, b)| (a.min(s), b.max(e))))
    }) else {
        return 0;
    };
    // One column is kept for the marker that a line goes on. The start of a line (its
    // indentation, the `def` it belongs to) is worth more than the end of a change: the view
    // moves only when the first changed word would not show a few columns of itself.
    if last < text_width || first + SHOWN_OF_CHANGE <= text_width {
        return 0;
    }
    let start = first.saturating_sub(text_width / 4);
    if last + 1 > start + text_width {
        (last + 1 - text_width).min(first.saturating_sub(1))
    } else {
        start
    }
}

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let inner_width = area.width.saturating_sub(2);
    let height = area.height.saturating_sub(2) as usize;
    let Some(mut content) = content(app, inner_width) else {
        frame.render_widget(
            Paragraph::new("This batch has no changes.").block(Block::bordered()),
            area,
        );
        return;
    };
    let (hscroll, _, text_width) = hscroll_of(app, &content, inner_width);
    if hscroll > 0 {
        // Expected and actual lines scroll with the diff; the head has as many lines.
        let notes = content.head.split_off(content.head_own);
        content.head = head_lines(app, inner_width, hscroll);
        content.head.extend(notes);
    }
    let At {
        file: fi,
        change: ci,
    } = app.selected().expect("content exists");
    let ChangeView {
        file,
        change,
        file_check,
        ..
    } = app.change(app.pos);
    let (first, row_first, row_count) = window(app, &content, height);
    let total = content.head.len() + content.rows.len();
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    lines.extend(content.head.iter().skip(first).take(height).cloned());
    let rows = visible_rows(app, &content, row_first, row_count);
    let path = app.file_path(fi);
    let source = Source {
        file: fi,
        path: &path,
        bytes: &file_check.base_shared(),
        index: &app.line_index(fi),
    };
    let pieces = app.highlighter.rows(p, &source, &rows);
    let view = RowView {
        number_width: number_width(app),
        selected: ci,
        hscroll,
        text_width,
        needle: app.search_needle(),
    };
    for (row, pieces) in rows.iter().zip(pieces) {
        lines.push(row_line(app, row, &pieces, &view));
    }
    let (decision, status) = change_glyphs(app.review(), app.flat[app.pos]);
    let mut title = Vec::new();
    if status != Glyph::Ok {
        title.push(Span::styled(
            format!(" {} {} ", status.symbol(), status.word()),
            status.style(p),
        ));
    }
    title.push(Span::styled(
        format!(" {} {} ", decision.symbol(), decision.word()),
        decision.style(p),
    ));
    // The title fits the border: the path keeps its end (cut on the left with `…`), then what
    // the change does is cut at its end with `…`, never mid-number without a mark.
    let place = format!(
        " · {}/{} {} · ",
        ci + 1,
        file.changes.len(),
        change.key.clone().unwrap_or_else(|| format!("#{}", ci + 1))
    );
    let operation = super::operation_label(
        app.review(),
        crate::review::At {
            file: fi,
            change: ci,
        },
    );
    let room = (inner_width as usize).saturating_sub(title.iter().map(Span::width).sum::<usize>());
    let width = |text: &str| text.chars().count();
    // " {path}{place}{operation} ": the path gives way first, then what the change does.
    let others = width(&place) + width(&operation) + 2;
    let path = match width(&path) + others > room {
        true => super::text::keep_end(&path, room.saturating_sub(others).max(12)),
        false => path.clone(),
    };
    let left = room.saturating_sub(width(&path) + width(&place) + 2);
    let operation = super::text::keep_start(&operation, left.max(6));
    title.push(Span::styled(format!(" {path}{place}{operation} "), p.title));
    if app.whole_file {
        title.push(Span::styled(" whole file ", p.dim));
    }
    let border = if app.open_conflict(app.pos) {
        p.conflict
    } else {
        p.border
    };
    let mut block = Block::bordered()
        .border_style(border)
        .title(Line::from(title));
    // Where the view is in a diff longer than the pane, as a pager says it.
    if total > height && height > 0 {
        let last = (first + height).min(total);
        let percent = last * 100 / total;
        block = block.title_bottom(
            Line::from(Span::styled(
                format!(" rows {}-{last} of {total} · {percent}% ", first + 1),
                p.dim,
            ))
            .right_aligned(),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// How rows are drawn on this screen.
struct RowView {
    number_width: usize,
    /// The selected change's index in its file.
    selected: usize,
    hscroll: usize,
    text_width: usize,
    /// The search to mark, lowercase.
    needle: Option<String>,
}

/// One diff row: line numbers, sign, and the text with syntax colours and changed words, cut to
/// the columns shown. In the whole-file view, a change that does not verify carries its
/// conflict glyph and style, so no conflict hides among the file's lines.
fn row_line(app: &App, row: &Row, pieces: &[Piece], view: &RowView) -> Line<'static> {
    let p = &app.palette;
    let width = view.number_width;
    let number = |n: Option<usize>| n.map_or_else(|| " ".repeat(width), |n| format!("{n:>width$}"));
    let file = app.file_index();
    let rejected = row.change.is_some_and(|c| {
        let id = &app.review().batch().files[file].changes[c].id;
        *app.decisions().get(id) == Decision::Reject
    });
    let (sign, base, emphasis) = match row.kind {
        RowKind::Context => (" ", Style::default(), Style::default()),
        RowKind::Removed => ("-", p.removed, p.removed_emphasis),
        RowKind::Added => ("+", p.added, p.added_emphasis),
    };
    let (base, emphasis) = if rejected {
        (p.dim, p.dim)
    } else {
        (base, emphasis)
    };
    let status = row
        .change
        .filter(|_| app.whole_file)
        .map(|c| change_glyphs(app.review(), crate::review::At { file, change: c }));
    let conflict = matches!(status, Some((_, Glyph::Conflict | Glyph::Invalid)));
    let marker = match (row.change, status) {
        (Some(c), Some(_)) if c == view.selected => {
            Span::styled("▌", if conflict { p.conflict } else { p.key })
        }
        (Some(_), Some((_, glyph @ (Glyph::Conflict | Glyph::Invalid)))) => {
            Span::styled(glyph.symbol(), p.conflict)
        }
        (Some(_), Some((decision, _))) => Span::styled(decision.symbol(), decision.style(p)),
        _ => Span::raw(" "),
    };
    let numbers = if conflict { p.conflict } else { p.line_number };
    let mut spans = vec![
        marker,
        Span::styled(format!("{} {} ", number(row.old), number(row.new)), numbers),
        Span::styled(format!("{sign} "), base.patch(p.key).patch(base)),
    ];
    let mut text = styled_text(pieces, &row.emphasis, p.text.patch(base), emphasis);
    if let Some(needle) = &view.needle {
        text = highlight_matches(text, needle, p.search_match);
    }
    spans.extend(window_spans(
        text,
        view.hscroll,
        view.text_width,
        base.patch(p.key),
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
