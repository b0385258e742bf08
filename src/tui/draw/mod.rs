//! Drawing: a pure function of the reviewer's state onto a frame.
//!
//! [`draw`] takes the screen's layout (`layout`: where each part goes, what the main pane and
//! the overlays show and how far they are scrolled), then draws the header, the files and
//! changes panes, the main pane, the status line and the footer, then any overlay of the
//! current mode. Nothing here measures for the keys or changes state; the only caches touched
//! (line indexes, parse states) are memos, and the one message sent asks the background
//! parser for the file shown (`highlight`).

mod lists;
mod main_pane;
mod offered;
mod overlays;
mod panel;

pub use offered::footer_spans;

use super::app::{App, Filter, Overlay, Tone};
use super::glyphs::Glyph;
use super::keys::Mode;
use super::layout::screen::areas_in;
use super::loading::LoadingStatus;
use super::text::keep_end;
use crate::pipeline::LoadStage;
use crate::review::{At, Review};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let areas = areas_in(app, frame.area());
    header(frame, app, areas.header);
    if areas.files.width > 0 {
        lists::files(frame, app, areas.files);
        lists::changes(frame, app, areas.changes);
    }
    main_pane::draw(frame, app, areas.main);
    status(frame, app, areas.status);
    footer(frame, app, areas.footer);
    overlays::draw(frame, app);
}

fn header(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let batch = &app.review().batch();
    let title = batch.label.as_deref().unwrap_or(batch.id.as_str());
    let mut first = vec![
        Span::styled(" patchdeck ", p.title),
        Span::styled(format!(" {title} "), p.header),
    ];
    if let Some(key) = &batch.key {
        first.push(Span::styled(format!(" [{key}]"), p.dim));
    }
    // The source is cut from the left when it does not fit, so its file name stays.
    let used: usize = first.iter().map(Span::width).sum();
    let lead = format!("  {} · ", batch.format);
    let room = (area.width as usize).saturating_sub(used + lead.chars().count());
    // An agent's batch names the agent instead (its source is the tool it called).
    match &app.caller {
        Some(caller) => first.push(Span::styled(
            // The agent's name first: what is cut is the end.
            format!(
                "{lead}{}",
                crate::tui::text::keep_start(&caller.header(), room)
            ),
            p.key,
        )),
        None => first.push(Span::styled(
            format!("{lead}{}", keep_end(&batch.source, room)),
            p.dim,
        )),
    }
    // While the whole batch loads behind its first files, how far it got; then its counts.
    let mut second = match app.loading_status() {
        Some(status) => vec![Span::styled(loading_line(status), p.text)],
        None => counts_line(app),
    };
    if let Some(caller) = app.caller.as_ref().filter(|c| c.gone()) {
        second.push(Span::styled(
            format!("  {} stopped waiting", caller.agent),
            p.warning,
        ));
    }
    if let Some(note) = app.decisions().batch_note() {
        let note = crate::lines::visible(note);
        second.push(Span::styled(format!("  note: {note}"), p.key));
    }
    if app.config.read_only {
        second.push(Span::styled("  READ-ONLY", p.warning));
    }
    if app.session_error.is_some() {
        second.push(Span::styled(
            format!("  {} SESSION NOT SAVED", Glyph::Invalid.symbol()),
            p.conflict,
        ));
    }
    frame.render_widget(
        Paragraph::new(vec![Line::from(first), Line::from(second)]),
        area,
    );
}

/// The header's second line once the whole batch is there: its counts, the filter, and its
/// input warnings.
fn counts_line(app: &App) -> Vec<Span<'static>> {
    let (p, batch) = (&app.palette, app.review().batch());
    let counts = Counts::of(app);
    let mut second = vec![
        Span::styled(
            format!(
                " {} file(s) · {} change(s) · {}/{} decided ",
                batch.files.len(),
                app.flat.len(),
                counts.decided,
                app.flat.len()
            ),
            p.text,
        ),
        Span::styled(
            format!("{} {} ", Glyph::Accepted.symbol(), counts.accepted),
            p.accepted,
        ),
        Span::styled(
            format!("{} {} ", Glyph::Edited.symbol(), counts.edited),
            p.edited,
        ),
        Span::styled(
            format!("{} {} ", Glyph::Rejected.symbol(), counts.rejected),
            p.rejected,
        ),
    ];
    let conflict_style = if counts.open > 0 { p.conflict } else { p.dim };
    second.push(Span::styled(
        format!(
            " {} {} open conflict(s) ",
            Glyph::Conflict.symbol(),
            counts.open
        ),
        conflict_style,
    ));
    if counts.resolved > 0 {
        second.push(Span::styled(
            format!("{} resolved ", counts.resolved),
            p.accepted,
        ));
    }
    if counts.applied > 0 {
        second.push(Span::styled(
            format!(
                " {} {} applied already ",
                Glyph::Applied.symbol(),
                counts.applied
            ),
            p.accepted,
        ));
    }
    if app.filter != Filter::All {
        second.push(Span::styled(
            format!(" [showing {}]", app.filter.describe()),
            p.key,
        ));
    }
    if !batch.warnings.is_empty() {
        second.push(Span::styled(
            format!(" {} input warning(s)", batch.warnings.len()),
            p.warning,
        ));
    }
    second
}

/// The header's second line while the whole batch loads behind the first files: how far it
/// got, and how many keys wait for it.
fn loading_line(status: LoadingStatus) -> String {
    let stage = match status.stage {
        LoadStage::Reading => "reading and placing",
        LoadStage::Verifying => "verifying",
        LoadStage::AskingGit => "asking git",
    };
    let held = match status.held {
        0 => String::new(),
        n => format!(" · {n} key(s) waiting for it"),
    };
    format!(
        " the first {} of {} file(s) · loading the whole batch: {stage}…{held} ",
        status.shown, status.of
    )
}

/// Totals shown in the header.
#[derive(Default)]
struct Counts {
    decided: usize,
    accepted: usize,
    edited: usize,
    rejected: usize,
    /// Conflicts still open.
    open: usize,
    /// Conflicts the person resolved (moved, placed, edited over, overridden).
    resolved: usize,
    /// Changes whose lines stand in the file already (a batch committed in part, say).
    applied: usize,
}

impl Counts {
    fn of(app: &App) -> Counts {
        use crate::review::Decision;
        let mut counts = Counts::default();
        for decision in app.decisions().decided().values() {
            counts.decided += 1;
            match decision {
                Decision::Accept => counts.accepted += 1,
                Decision::Edit(_) => counts.edited += 1,
                Decision::Reject => counts.rejected += 1,
                Decision::Undecided => counts.decided -= 1,
            }
        }
        for pos in 0..app.flat.len() {
            if app.change(pos).check.placed == crate::verify::Placed::Applied {
                counts.applied += 1;
            }
            if app.open_conflict(pos) {
                counts.open += 1;
            } else if app.conflicting(pos) && !app.is_rejected(pos) {
                counts.resolved += 1;
            }
        }
        counts
    }
}

fn status(frame: &mut Frame, app: &App, area: Rect) {
    let p = &app.palette;
    let line = if app.mode() == Mode::Search {
        Line::from(vec![
            Span::styled("/", p.key),
            Span::styled(app.search.input.clone(), p.text),
            Span::styled("▏", p.key),
            Span::styled("   Enter find · Esc cancel", p.dim),
        ])
    } else if let Some(Overlay::Note(noting)) = &app.overlay {
        let mut spans = vec![
            Span::styled(format!(" {}", app.note_prompt(noting)), p.key),
            Span::styled(crate::lines::visible(&noting.input).into_owned(), p.text),
            Span::styled("▏", p.key),
            Span::styled("   Enter keep · Esc cancel", p.dim),
        ];
        if let Some((_, text)) = app.status_text() {
            spans.push(Span::styled(format!("  {text}"), p.conflict));
        }
        Line::from(spans)
    } else if let Some(Overlay::Place(placing)) = &app.overlay {
        let mut spans = vec![Span::styled(
            format!(" {}", app.placing_text(placing)),
            p.key,
        )];
        if let Some((_, text)) = app.status_text() {
            spans.push(Span::styled(format!("  {text}"), p.conflict));
        }
        Line::from(spans)
    } else if app.mode() == Mode::CommitSummary {
        // The summary shows its own messages (a refusal, why it cannot commit).
        Line::default()
    } else if let Some((tone, text)) = app.status_text() {
        let (glyph, style) = match tone {
            Tone::Info => ("ℹ", p.text),
            Tone::Warning => (Glyph::Conflict.symbol(), p.warning),
            Tone::Error => (Glyph::Invalid.symbol(), p.conflict),
        };
        Line::from(Span::styled(format!(" {glyph} {text}"), style))
    } else {
        Line::default()
    };
    frame.render_widget(
        Paragraph::new(line).wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

/// How a change's operation and place read: `replace 12-14`; where it applies elsewhere as
/// decided (moved, placed), that place and the batch's: `replace 76 (was 74)`; for a change
/// the format could not place, `replace (not found)` or `replace (ambiguous: 191 places)`.
pub fn operation_label(review: &Review, at: At) -> String {
    let change = review.change(at).change;
    match change.unplaced() {
        Some([]) => "replace (not found)".to_owned(),
        Some(places) if review.decisions().placed_at(&change.id).is_none() => {
            if places.len() <= 3 {
                let list: Vec<String> = places.iter().map(usize::to_string).collect();
                format!("replace (ambiguous: lines {})", list.join(", "))
            } else {
                format!("replace (ambiguous: {} places)", places.len())
            }
        }
        _ => {
            let own = change.range;
            let decided = review.decided_at(at);
            let op = change.operation.as_str();
            match decided {
                Some(range) if range.start != own.start && own.start > 0 => {
                    format!("{op} {} (was {})", range.describe(), own.describe())
                }
                Some(range) => format!("{op} {}", range.describe()),
                None => format!("{op} {}", own.describe()),
            }
        }
    }
}

fn footer(frame: &mut Frame, app: &App, area: Rect) {
    let spans = footer_spans(app, area.width);
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(Style::default()),
        area,
    );
}
