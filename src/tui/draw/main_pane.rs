//! Drawing the main pane: the selected change as a diff with context from the file on disk, or
//! the whole file with all its changes in place, under the conflicts that concern it, from
//! what the layout measured (`layout::main_pane`): the rows on screen, with line numbers,
//! signs, syntax colours and changed words, in a border whose title says what the change is.
//!
//! Conflicts come first and cannot be missed: a SHA mismatch shows both hashes, an
//! expected-line conflict shows expected and actual lines side by side with the differing
//! characters marked and where the expected lines were found instead. Only the rows on screen
//! are built and highlighted.

use crate::preview::{Row, RowKind};
use crate::review::At;
use crate::review::ChangeView;
use crate::review::Decision;
use crate::tui::app::App;
use crate::tui::glyphs::{change_glyphs, Glyph};
use crate::tui::highlight::{Piece, Source};
use crate::tui::layout::head::head_lines;
use crate::tui::layout::main_pane::{content, hscroll_of, number_width, visible_rows, window};
use crate::tui::text::{highlight_matches, keep_end, keep_start, styled_text, window_spans};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

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
    let total = content.total();
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
        format!(
            " {} {} ",
            decision.symbol(),
            decision.word_for(app.review().batch().stance)
        ),
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
        true => keep_end(&path, room.saturating_sub(others).max(12)),
        false => path.clone(),
    };
    let left = room.saturating_sub(width(&path) + width(&place) + 2);
    let operation = keep_start(&operation, left.max(6));
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
