//! The main pane's content, measured: the head (see `head`) and the rows under it (the selected
//! change as a diff with context from the file on disk, or the whole file with all its
//! changes in place), where it starts, which of its lines are on screen, and how far it
//! scrolls either way. Scrolling asks these on a key and the drawing on a frame, so both see
//! the same numbers. Only the rows on screen are built.

use super::head::{head_lines, mismatch_overflow};
use super::screen::{areas, page};
use crate::model::Stance;
use crate::preview::{change_rows_over, FileLayout, Placed, Row, RowKind, CONTEXT};
use crate::problem::ProblemKind;
use crate::review::At;
use crate::review::ChangeView;
use crate::review::Decision;
use crate::tui::app::App;
use crate::verify::Status;
use ratatui::text::{Line, Span};

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

/// What the main pane shows: the head, then the rows.
pub struct Content {
    pub head: Vec<Line<'static>>,
    /// How many lines of `head` are `head_lines` (notes about the rows follow them).
    pub head_own: usize,
    rows: Rows,
    /// The line shown first when not scrolled.
    anchor: usize,
}

impl Content {
    /// Lines of the head and rows together.
    pub fn total(&self) -> usize {
        self.head.len() + self.rows.len()
    }
}

/// (anchor, total lines) of the main pane's content, for scrolling.
pub fn main_extent(app: &App, width: u16) -> (usize, usize) {
    match content(app, width) {
        Some(c) => (c.anchor, c.head.len() + c.rows.len()),
        None => (0, 0),
    }
}

/// The new lines of change `ci` of file `fi` as a person reads it: what it writes as
/// decided, or for a change that stands on disk (`--worktree`), what is kept.
fn new_lines_of(app: &App, fi: usize, ci: usize) -> Vec<String> {
    let c = &app.file(fi).0.changes[ci];
    match (app.review().batch().stance, app.decisions().get(&c.id)) {
        (_, Decision::Edit(lines)) => lines.to_vec(),
        (Stance::Standing, _) => app.review().kept_or_written(At {
            file: fi,
            change: ci,
        }),
        (Stance::Proposed, _) => c.new_lines.to_vec(),
    }
}

/// The lines a change is read as removing when not the file's own: for a change that stands
/// on disk, the base's (which undoing it writes back).
fn old_lines_of(app: &App, fi: usize, ci: usize) -> Option<Vec<String>> {
    (app.review().batch().stance == Stance::Standing)
        .then(|| app.file(fi).0.changes[ci].new_lines.to_vec())
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
pub fn content(app: &App, width: u16) -> Option<Content> {
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
                new_lines: new_lines_of(app, fi, i),
                old_lines: old_lines_of(app, fi, i),
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
        let rows = new_lines_of(app, fi, ci)
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
    let rows = change_rows_over(
        bytes,
        &index,
        placed_range(app, fi, ci),
        old_lines_of(app, fi, ci).as_deref(),
        &new_lines_of(app, fi, ci),
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

pub fn number_width(app: &App) -> usize {
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
pub fn window(app: &App, content: &Content, height: usize) -> (usize, usize, usize) {
    let total = content.head.len() + content.rows.len();
    let max_first = total.saturating_sub(height);
    let first = (content.anchor as i64 + app.scroll).clamp(0, max_first as i64) as usize;
    let head_shown = content.head.len().saturating_sub(first).min(height);
    let row_first = first.saturating_sub(content.head.len());
    let row_count = (height - head_shown).min(content.rows.len().saturating_sub(row_first));
    (first, row_first, row_count)
}

pub fn visible_rows(app: &App, content: &Content, row_first: usize, row_count: usize) -> Vec<Row> {
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
pub fn hscroll_of(app: &App, content: &Content, width: u16) -> (usize, usize, usize) {
    let text_width = (width as usize).saturating_sub(row_prefix_width(number_width(app)));
    let height = page(app);
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
            own = change_rows_over(
                file_check.base_bytes(),
                &app.line_index(fi),
                placed_range(app, fi, ci),
                old_lines_of(app, fi, ci).as_deref(),
                &new_lines_of(app, fi, ci),
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

/// The main pane's first row now, and the furthest down it can start.
pub fn vscroll(app: &App) -> (usize, usize) {
    let width = areas(app).main.width.saturating_sub(2);
    let (anchor, total) = main_extent(app, width);
    let most = total.saturating_sub(page(app)).max(anchor);
    (
        (anchor as i64 + app.scroll).clamp(0, most as i64) as usize,
        most,
    )
}
