//! Drawing: a pure function of the reviewer's state onto a frame.
//!
//! [`draw`] lays out the header, the files and changes panes, the main pane, the status line
//! and the footer, then any overlay of the current mode. [`areas`] computes the layout alone,
//! so the mouse handler finds what was clicked with the same numbers the drawing used. Nothing
//! here changes state; the only caches touched (line indexes, parse states) are memos, and
//! the one message sent asks the background parser for the file shown (`highlight`).

mod glyphs;
mod head;
mod lists;
mod main_pane;
mod overlays;
mod panel;
mod text;

pub use glyphs::{change_glyphs, decision_glyph, Glyph};
pub use lists::list_window;
pub use main_pane::{main_extent, main_hscroll};
pub use overlays::{overlay_scroll, Scroll};
pub use text::{highlight_matches, window_spans};

use super::app::{App, Filter, Overlay, Tone};
use super::keys::{Action, Mode};
use super::loading::LoadingStatus;
use crate::pipeline::LoadStage;
use crate::review::{At, Review};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

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
pub fn areas(size: Rect, file_count: usize, status_height: u16) -> Areas {
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

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let areas = app.areas_in(frame.area());
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
    first.push(Span::styled(
        format!("{lead}{}", text::keep_end(&batch.source, room)),
        p.dim,
    ));
    // While the whole batch loads behind its first files, how far it got; then its counts.
    let mut second = match app.loading_status() {
        Some(status) => vec![Span::styled(loading_line(status), p.text)],
        None => counts_line(app),
    };
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

/// Which actions do something right now in the current mode: the footer and the overlays' key
/// lines list only those. It asks the same questions the actions ask before they refuse, so a
/// key offered is a key that works. One is made per key line, and measures the main pane's
/// scrolling and an overlay's once for all its keys (an overlay's text is laid out to measure
/// it: the commit summary of a 2,000-file batch has 2,000 lines).
struct Availability<'a> {
    app: &'a App,
    hscroll: std::cell::OnceCell<(usize, usize)>,
    vscroll: std::cell::OnceCell<(usize, usize)>,
    overlay: std::cell::OnceCell<Option<overlays::Scroll>>,
}

impl<'a> Availability<'a> {
    fn new(app: &'a App) -> Self {
        Availability {
            app,
            hscroll: std::cell::OnceCell::new(),
            vscroll: std::cell::OnceCell::new(),
            overlay: std::cell::OnceCell::new(),
        }
    }

    fn allows(&self, action: Action) -> bool {
        let app = self.app;
        let review = app.review();
        let at = app.selected();
        let can = |test: &dyn Fn(crate::review::At) -> bool| at.is_some_and(test);
        match &app.overlay {
            Some(Overlay::CommitSummary(summary)) if action == Action::Confirm => {
                !app.config.read_only && !summary.plan.is_blocked()
            }
            Some(Overlay::Help { .. } | Overlay::CommitSummary(_) | Overlay::Committed { .. }) => {
                // Scrolling keys are offered only where there is more to see that way.
                let scroll = self
                    .overlay
                    .get_or_init(|| overlays::overlay_scroll(app))
                    .expect("a scrolling overlay");
                match scroll.after(action) {
                    Some(to) => to != scroll.now,
                    None => true,
                }
            }
            None => {
                let committed = app.committed();
                let decides = !committed;
                match action {
                    Action::Undo => decides && review.history().can_undo(),
                    Action::Redo => decides && review.history().can_redo(),
                    Action::SearchNext | Action::SearchPrev => !app.search.matches.is_empty(),
                    Action::Accept => decides && can(&|a| review.can_accept(a)),
                    Action::Reject => decides && at.is_some(),
                    Action::Edit => decides && can(&|a| review.edit_refusal(a).is_none()),
                    Action::Relocate => decides && can(&|a| review.relocate_refusal(a).is_none()),
                    Action::TakeOver => decides && can(&|a| review.take_over_refusal(a).is_none()),
                    Action::RelocateAll => {
                        decides
                            && review.places().any(|a| {
                                review.can_relocate(a)
                                    && *review.decisions().get(&review.change(a).change.id)
                                        == crate::review::Decision::Undecided
                            })
                    }
                    Action::OverrideSha => {
                        decides && can(&|a| review.override_refusal(a.file).is_none())
                    }
                    Action::AcceptFile => {
                        let file = app.file_index();
                        decides
                            && app
                                .flat
                                .iter()
                                .any(|&a| a.file == file && review.can_accept(a))
                    }
                    Action::RejectFile => decides && at.is_some(),
                    Action::Place => decides && can(&|a| review.placeable(a).is_some()),
                    Action::AcceptVerified => decides && review.verified_undecided() > 0,
                    Action::NextConflict => (0..app.flat.len()).any(|p| app.open_conflict(p)),
                    Action::CommitSummary => !committed && !app.config.read_only,
                    Action::Feedback | Action::Export => !app.config.read_only,
                    Action::PageDown | Action::DiffEnd => {
                        let (now, most) = *self.vscroll.get_or_init(|| app.vscroll());
                        now < most
                    }
                    Action::PageUp | Action::DiffTop => {
                        self.vscroll.get_or_init(|| app.vscroll()).0 > 0
                    }
                    Action::ScrollLeft | Action::ScrollRight => {
                        let (now, most) = *self.hscroll.get_or_init(|| {
                            let width = app.areas().main.width.saturating_sub(2);
                            let (now, most, _) = main_hscroll(app, width);
                            (now, most)
                        });
                        if action == Action::ScrollLeft {
                            now > 0
                        } else {
                            now < most
                        }
                    }
                    _ => true,
                }
            }
            _ => true,
        }
    }
}

/// The keys that apply now, from the key map, in its order of priority: each that fits is
/// shown, one that does not is skipped (a shorter one after it may still fit), and the way out
/// and the help always have their place, at the end.
pub fn footer_spans(app: &App, width: u16) -> Vec<Span<'static>> {
    let p = &app.palette;
    let mut spans = Vec::new();
    let mut used = 0usize;
    let kept: &[Action] = if app.mode() == Mode::Browse {
        &[Action::Quit, Action::Help]
    } else {
        &[]
    };
    let label = |action| {
        app.keymap
            .bindings(app.mode())
            .find(|b| b.action == action)
            .and_then(|b| Some((b.keys.first()?.label(), b.short)))
    };
    let kept: Vec<(String, &str)> = kept.iter().filter_map(|&a| label(a)).collect();
    let reserve: usize = kept
        .iter()
        .map(|(key, short)| key.chars().count() + short.chars().count() + 3)
        .sum();
    let availability = Availability::new(app);
    for binding in app.keymap.bindings(app.mode()) {
        if !availability.allows(binding.action)
            || (app.mode() == Mode::Browse && matches!(binding.action, Action::Quit | Action::Help))
        {
            continue;
        }
        let key = binding.keys[0].label();
        let len = key.chars().count() + binding.short.chars().count() + 3;
        if used + len + reserve > width as usize {
            continue;
        }
        used += len;
        spans.push(Span::styled(format!(" {key}"), p.key));
        spans.push(Span::styled(format!(" {} ", binding.short), p.dim));
    }
    for (key, short) in kept {
        spans.push(Span::styled(format!(" {key}"), p.key));
        spans.push(Span::styled(format!(" {short} "), p.dim));
    }
    spans
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
