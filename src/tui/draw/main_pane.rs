//! The main pane: the selected change as a diff with context from the file on disk, or the
//! whole file with all its changes in place, under the conflicts that concern it.
//!
//! Conflicts come first and cannot be missed: a SHA mismatch shows both hashes, an
//! expected-line conflict shows expected and actual lines side by side with the differing
//! characters marked and where the expected lines were found instead. Only the rows on screen
//! are built and highlighted.

use super::glyphs::{change_glyphs, decision_glyph, Glyph};
use crate::preview::{change_rows, char_spans, FileLayout, Placed, Row, RowKind, CONTEXT};
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
    let border = if check.status != Status::Ok || file_check.sha_mismatch() {
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

/// The lines above the diff: description, file facts, and every conflict in full.
fn head_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let p = &app.palette;
    let (file, change, file_check, check) = app.change(app.pos);
    let mut out = Vec::new();
    if let Some(description) = &change.description {
        out.push(Line::from(Span::styled(description.clone(), p.get("text"))));
    }
    if let Some(label) = &file.label {
        out.push(Line::from(Span::styled(
            format!("file: {label}"),
            p.get("dim"),
        )));
    }
    if let Some(marker) = crate::preview::generated_marker(file_check.base_bytes()) {
        out.push(Line::from(Span::styled(
            format!(
                "{} this file looks generated (\"{marker}\"): edits to it may be overwritten",
                Glyph::Conflict.symbol()
            ),
            p.get("warning"),
        )));
    }
    for problem in &file_check.problems {
        if problem.kind == "sha_mismatch" {
            sha_lines(app, &mut out, width);
        } else {
            let glyph = if problem.blocking {
                Glyph::Invalid
            } else {
                Glyph::Tolerant
            };
            out.push(Line::from(Span::styled(
                format!("{} {}: {}", glyph.symbol(), problem.kind, problem.message),
                p.get(if problem.blocking {
                    "conflict"
                } else {
                    "warning"
                }),
            )));
        }
    }
    for problem in &check.problems {
        let glyph = if problem.blocking {
            Glyph::Conflict
        } else {
            Glyph::Tolerant
        };
        let style = if problem.blocking {
            p.get("conflict")
        } else {
            p.get("warning")
        };
        let label = if problem.blocking { "CONFLICT" } else { "note" };
        out.push(Line::from(Span::styled(
            format!(
                "{} {label} {}: {}",
                glyph.symbol(),
                problem.kind,
                problem.message
            ),
            style,
        )));
        if let Some(mismatch) = &problem.mismatch {
            mismatch_lines(app, &mut out, mismatch, width);
        }
        if let Some(at) = problem.found_at {
            let text = if app.decisions.relocate.contains(&change.id) {
                format!(
                    "{} moved to line {at}, where the expected lines are (m undoes)",
                    Glyph::Relocated.symbol()
                )
            } else {
                format!(
                    "  m moves the change to line {at}; e edits it over the lines at {}",
                    change.range.start
                )
            };
            out.push(Line::from(Span::styled(text, p.get("warning"))));
        }
    }
    if change.match_tier != crate::model::MatchTier::Exact {
        out.push(Line::from(Span::styled(
            format!(
                "{} found with a tolerant match: {:?}",
                Glyph::Tolerant.symbol(),
                change.match_tier
            ),
            p.get("warning"),
        )));
    }
    if app.decisions.replaces.contains_key(&change.id) {
        out.push(Line::from(Span::styled(
            format!(
                "{} edited over the lines on disk: the conflict is resolved by your edit",
                Glyph::Edited.symbol()
            ),
            p.get("edited"),
        )));
    } else if matches!(app.decisions.get(&change.id), Decision::Edit(_)) {
        out.push(Line::from(Span::styled(
            format!(
                "{} edited: the diff shows the lines you wrote",
                Glyph::Edited.symbol()
            ),
            p.get("edited"),
        )));
    }
    out.push(Line::default());
    wrap_lines(out, width as usize)
}

/// Wraps lines of one span at spaces to `width` columns; other lines are kept as they are.
fn wrap_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.spans.len() != 1 || line.width() <= width || width < 10 {
            out.push(line);
            continue;
        }
        let style = line.spans[0].style;
        for piece in wrap(&line.spans[0].content, width) {
            out.push(Line::from(Span::styled(piece, style)));
        }
    }
    out
}

/// Splits text into pieces of at most `width` characters, at spaces where it can; pieces after
/// the first are indented by two.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let len = current.chars().count();
        if len == 0 {
            current.push_str(word);
        } else if len + 1 + word.chars().count() > width {
            pieces.push(std::mem::replace(&mut current, format!("  {word}")));
        } else {
            current.push(' ');
            current.push_str(word);
        }
        while current.chars().count() > width {
            let head: String = current.chars().take(width).collect();
            let tail: String = current.chars().skip(width).collect();
            pieces.push(head);
            current = format!("  {tail}");
        }
    }
    pieces.push(current);
    pieces
}

fn sha_lines(app: &App, out: &mut Vec<Line<'static>>, width: u16) {
    let p = &app.palette;
    let (file, check) = app.file(app.file_index());
    out.push(Line::from(Span::styled(
        format!(
            "{} SHA-256 MISMATCH: this file changed since the batch was written",
            Glyph::Conflict.symbol()
        ),
        p.get("conflict"),
    )));
    let expected = file.expected_sha256.clone().unwrap_or_default();
    let actual = check.actual_sha256().unwrap_or("").to_owned();
    let one_line = width >= 11 + 64;
    for (label, hash, style) in [
        ("  expected ", expected, p.get("text")),
        ("  on disk  ", actual, p.get("differs")),
    ] {
        if one_line {
            out.push(Line::from(vec![
                Span::styled(label, p.get("dim")),
                Span::styled(hash, style),
            ]));
        } else {
            out.push(Line::from(Span::styled(label, p.get("dim"))));
            let chunk = if width >= 68 { 64 } else { 32 };
            for part in hash.as_bytes().chunks(chunk) {
                let part = String::from_utf8_lossy(part).into_owned();
                out.push(Line::from(vec![
                    Span::raw("    "),
                    Span::styled(part, style),
                ]));
            }
        }
    }
    let all_verify = check.changes.iter().all(|c| c.status == Status::Ok);
    let (text, style) = if app.decisions.sha_overrides.contains(&file.id) {
        (
            format!(
                "  {} overridden: it will be written anyway (o undoes)",
                Glyph::Accepted.symbol()
            ),
            p.get("warning"),
        )
    } else if all_verify {
        (
            "  every change still verifies: o overrides the mismatch for this file".to_owned(),
            p.get("warning"),
        )
    } else {
        (
            "  not every change verifies, so the mismatch cannot be overridden".to_owned(),
            p.get("dim"),
        )
    };
    out.push(Line::from(Span::styled(text, style)));
}

fn mismatch_lines(
    app: &App,
    out: &mut Vec<Line<'static>>,
    m: &crate::verify::LineMismatch,
    width: u16,
) {
    let p = &app.palette;
    let rows = m.expected.len().max(m.actual.len());
    // Indentation both sides share is not shown, so code fits side by side; any difference in
    // indentation still shows, and is marked.
    let indent = m
        .expected
        .iter()
        .chain(&m.actual)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let cut = |l: &str| l.get(indent..).unwrap_or("").to_owned();
    let expected_lines: Vec<String> = m.expected.iter().map(|l| cut(l)).collect();
    let actual_lines: Vec<String> = m.actual.iter().map(|l| cut(l)).collect();
    let column = (width as usize).saturating_sub(3) / 2;
    let longest = expected_lines
        .iter()
        .chain(&actual_lines)
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let side_by_side = longest < column;
    if indent > 0 {
        out.push(Line::from(Span::styled(
            format!("  (the {indent} spaces of indentation both sides share are not shown)"),
            p.get("dim"),
        )));
    }
    let label = format!("on disk at line {}", m.at);
    if side_by_side {
        out.push(Line::from(vec![
            Span::styled(pad(" expected (batch)", column), p.get("title")),
            Span::styled(" │ ", p.get("border")),
            Span::styled(label.clone(), p.get("title")),
        ]));
    }
    for i in 0..rows {
        let expected = expected_lines.get(i).map_or("", String::as_str);
        let actual = actual_lines.get(i).map(String::as_str);
        let (left_spans, right_spans) = char_spans(expected, actual.unwrap_or(""));
        let left = styled_text(
            &[(Style::default(), expected.to_owned())],
            &left_spans,
            p.get("removed"),
            p.get("differs"),
        );
        let right = match actual {
            Some(actual) => styled_text(
                &[(Style::default(), actual.to_owned())],
                &right_spans,
                p.get("added"),
                p.get("differs"),
            ),
            None => vec![Span::styled("(end of file)", p.get("differs"))],
        };
        if side_by_side {
            let mut spans = vec![Span::styled(" ", p.get("dim"))];
            spans.extend(fit(left, column.saturating_sub(1)));
            spans.push(Span::styled(" │ ", p.get("border")));
            spans.extend(right);
            out.push(Line::from(spans));
        } else {
            let mut spans = vec![Span::styled(" expected │ ", p.get("dim"))];
            spans.extend(left);
            out.push(Line::from(spans));
            let mut spans = vec![Span::styled(
                format!(" {:<8} │ ", format!("line {}", m.at + i)),
                p.get("dim"),
            )];
            spans.extend(right);
            out.push(Line::from(spans));
        }
    }
}

fn pad(text: &str, width: usize) -> String {
    let mut out: String = text.chars().take(width).collect();
    let len = out.chars().count();
    out.extend(std::iter::repeat_n(' ', width - len));
    out
}

/// Cuts or pads spans to exactly `width` characters.
fn fit(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        if used >= width {
            break;
        }
        let text: String = span.content.chars().take(width - used).collect();
        used += text.chars().count();
        out.push(Span::styled(text, span.style));
    }
    if used < width {
        out.push(Span::raw(" ".repeat(width - used)));
    }
    out
}
