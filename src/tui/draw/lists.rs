//! The files pane and the changes pane: one row per file or change, in the batch's order, with
//! glyphs for decisions and conflicts. Only the rows that fit are built, so a 2,000-file batch
//! costs one screen of rows.

use crate::model::FileAction;
use crate::preview::generated_marker;
use crate::review::Decision;
use crate::tui::app::App;
use crate::tui::glyphs::{change_glyphs, Glyph};
use crate::tui::layout::screen::list_window;
use crate::tui::text::{highlight_matches, keep_end, keep_start};
use crate::verify::Status;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

fn block<'a>(app: &App, title: String, focused: bool) -> Block<'a> {
    let p = &app.palette;
    Block::bordered()
        .border_style(if focused { p.title } else { p.border })
        .title(Span::styled(title, p.title))
}

/// Per-file counts of decisions and conflicts, as glyphs.
fn file_summary(app: &App, file: usize) -> Vec<Span<'static>> {
    let p = &app.palette;
    let (patch, check) = app.file(file);
    let mut counts = [0usize; 5]; // accepted, edited, rejected, undecided, conflicts
    let first = app.first_of_file(file).unwrap_or(0);
    for (ci, change) in patch.changes.iter().enumerate() {
        match app.decisions().get(&change.id) {
            Decision::Accept => counts[0] += 1,
            Decision::Edit(_) => counts[1] += 1,
            Decision::Reject => counts[2] += 1,
            Decision::Undecided => counts[3] += 1,
        }
        if app.open_conflict(first + ci) {
            counts[4] += 1;
        }
    }
    let glyphs = [
        Glyph::Accepted,
        Glyph::Edited,
        Glyph::Rejected,
        Glyph::Undecided,
        Glyph::Conflict,
    ];
    let mut spans = Vec::new();
    for (glyph, count) in glyphs.iter().zip(counts) {
        if count > 0 {
            spans.push(Span::styled(
                format!(" {}{count}", glyph.symbol()),
                glyph.style(p),
            ));
        }
    }
    if check.sha_mismatch() {
        let text = if app.decisions().sha_overridden(&patch.id) {
            " sha≠ overridden"
        } else {
            " sha≠"
        };
        spans.push(Span::styled(text, p.conflict));
    }
    // A work tree's change undoes an edit: its file's action is the undoing's, so the file
    // the agent made is deleted by it, and the file it deleted made.
    let standing = app.review().batch().stance == crate::model::Stance::Standing;
    match (check.action, standing) {
        (FileAction::Create, false) => spans.push(Span::styled(" new", p.dim)),
        (FileAction::Delete, false) => spans.push(Span::styled(" delete", p.warning)),
        (FileAction::Delete, true) => spans.push(Span::styled(" new", p.dim)),
        (FileAction::Create, true) => spans.push(Span::styled(" deleted", p.warning)),
        (FileAction::Modify, _) => {}
    }
    if generated_marker(check).is_some() {
        spans.push(Span::styled(" generated", p.warning));
    }
    spans
}

/// A row of a list, done: when selected, the selection's colours go over every span, so its
/// text, glyphs and marker read on the selection's background whatever their own colours are;
/// then the search's matches are marked over that.
fn row(
    app: &App,
    spans: Vec<Span<'static>>,
    selected: bool,
    needle: Option<&str>,
) -> Line<'static> {
    let p = &app.palette;
    let selection = p.selection;
    let spans: Vec<Span<'static>> = if selected {
        spans
            .into_iter()
            .map(|span| {
                let style = span.style.patch(selection);
                span.style(style)
            })
            .collect()
    } else {
        spans
    };
    let spans = match needle {
        Some(needle) => highlight_matches(spans, needle, p.search_match),
        None => spans,
    };
    let line = Line::from(spans);
    if selected {
        line.style(selection)
    } else {
        line
    }
}

/// The files the list shows: every one, or under a filter those with a change it shows (and
/// the selected one, where the cursor is).
fn shown_files(app: &App) -> Vec<usize> {
    let files = app.review().batch().files.len();
    if app.filter == crate::tui::app::Filter::All {
        return (0..files).collect();
    }
    let selected = app.file_index();
    (0..files)
        .filter(|&f| {
            f == selected
                || app.first_of_file(f).is_some_and(|start| {
                    (start..start + app.file(f).0.changes.len()).any(|p| app.shows(p))
                })
        })
        .collect()
}

pub fn files(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let files = &app.review().batch().files;
    let shown = shown_files(app);
    let selected_file = app.file_index();
    let selected = shown.iter().position(|&f| f == selected_file).unwrap_or(0);
    let height = area.height.saturating_sub(2) as usize;
    let inner_width = area.width.saturating_sub(2) as usize;
    let first = list_window(shown.len(), selected, height);
    let needle = app.search_needle();
    let is_dirty = |check: &crate::verify::FileCheck| {
        check
            .problems
            .iter()
            .any(|p| p.kind == crate::problem::ProblemKind::UncommittedChanges)
    };
    let any_dirty = app.review().verification().files.iter().any(is_dirty);
    let mut lines = Vec::with_capacity(height);
    for &index in &shown[first..(first + height).min(shown.len())] {
        let (patch, check) = app.file(index);
        let path = app.file_path(index);
        // The same definition of a conflict as the header's count and `!`; a file with no
        // changes is a conflict when it does not verify.
        let conflicted = match app.first_of_file(index) {
            Some(start) => (start..start + patch.changes.len()).any(|p| app.open_conflict(p)),
            None => check.status != Status::Ok,
        };
        // Uncommitted local changes in git, marked as git and lazygit mark them.
        let dirty = is_dirty(check);
        let (mark, mark_style) = if conflicted {
            (Glyph::Conflict.symbol(), p.conflict)
        } else {
            (" ", p.text)
        };
        let mut spans = vec![
            Span::styled(if index == selected_file { "▸" } else { " " }, p.key),
            Span::styled(mark, mark_style),
        ];
        // A column of its own, so a conflict never hides the person's uncommitted work (the
        // very file an override would write over); there only when some file has any.
        if any_dirty {
            spans.push(Span::styled(if dirty { "M" } else { " " }, p.warning));
        }
        spans.push(Span::styled(" ", p.text));
        // A path too long for the row keeps its end (the file's name), cut on the left with
        // `…`, so the counts beside it stay.
        let summary = file_summary(app, index);
        let used: usize = spans.iter().map(Span::width).sum();
        let counts: usize = summary.iter().map(Span::width).sum();
        let room = inner_width.saturating_sub(used + counts).max(8);
        spans.push(Span::styled(keep_end(&path, room), p.text));
        let searched = spans.len();
        spans.extend(summary);
        // The file's label, dimmed, where there is room for a useful part of it.
        if let Some(label) = &patch.label {
            let used: usize = spans.iter().map(Span::width).sum();
            let room = inner_width.saturating_sub(used + 2);
            if room >= 8 {
                spans.push(Span::styled(
                    format!("  {}", keep_start(label, room)),
                    p.dim,
                ));
            }
        }
        // Only the path is searched.
        let rest = spans.split_off(searched);
        let mut line = row(app, spans, index == selected_file, needle.as_deref());
        let rest = row(app, rest, index == selected_file, None);
        line.spans.extend(rest.spans);
        lines.push(line);
    }
    let title = match app.filter {
        crate::tui::app::Filter::All => format!(" Files {}/{} ", selected_file + 1, files.len()),
        filter => format!(
            " Files {} of {} with {} ",
            shown.len(),
            files.len(),
            filter.describe()
        ),
    };
    frame.render_widget(Paragraph::new(lines).block(block(app, title, false)), area);
}

pub fn changes(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let file = app.file_index();
    let Some(first_pos) = app.first_of_file(file) else {
        frame.render_widget(
            Paragraph::new("no changes").block(block(app, " Changes ".into(), false)),
            area,
        );
        return;
    };
    let (patch, _) = app.file(file);
    let selected_change = app.pos - first_pos;
    // Under a filter, the changes it shows (and the selected one, where the cursor is).
    let shown: Vec<usize> = (0..patch.changes.len())
        .filter(|&ci| ci == selected_change || app.shows(first_pos + ci))
        .collect();
    let selected = shown
        .iter()
        .position(|&ci| ci == selected_change)
        .unwrap_or(0);
    let height = area.height.saturating_sub(2) as usize;
    let needle = app.search_needle();
    let first = list_window(shown.len(), selected, height);
    let mut lines = Vec::with_capacity(height);
    for &ci in &shown[first..(first + height).min(shown.len())] {
        let change = &patch.changes[ci];
        let (decision, status) =
            change_glyphs(app.review(), crate::review::At { file, change: ci });
        let name = change.key.clone().unwrap_or_else(|| format!("#{}", ci + 1));
        let mut spans = vec![
            Span::styled(if ci == selected_change { "▸" } else { " " }, p.key),
            Span::styled(decision.symbol(), decision.style(p)),
            Span::styled(status.symbol(), status.style(p)),
            Span::styled(format!(" {name}"), p.text),
            Span::styled(
                format!(
                    " {}",
                    super::operation_label(app.review(), crate::review::At { file, change: ci })
                ),
                p.dim,
            ),
            Span::styled(
                format!("  {}", change.description.as_deref().unwrap_or("")),
                p.text,
            ),
        ];
        // The person's note for the model, after what the model said of the change.
        if let Some(note) = app.decisions().note_on(&change.id) {
            let note = crate::lines::visible(note);
            spans.push(Span::styled(format!("  note: {note}"), p.key));
        }
        lines.push(row(app, spans, ci == selected_change, needle.as_deref()));
    }
    let title = match app.filter {
        crate::tui::app::Filter::All => format!(
            " Changes {}/{} · {} ",
            selected_change + 1,
            patch.changes.len(),
            patch.display_name()
        ),
        filter => format!(
            " Changes {} of {} · {} · {} ",
            shown.len(),
            patch.changes.len(),
            filter.describe(),
            patch.display_name()
        ),
    };
    frame.render_widget(
        Paragraph::new(lines)
            .style(Style::default())
            .block(block(app, title, true)),
        area,
    );
}
