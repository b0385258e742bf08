//! Which keys are offered now: the footer's, and an overlay's on its bottom border. Only the
//! actions that do something right now in the current mode are listed, as the layout measures
//! what is left to scroll.

use crate::tui::app::{App, Overlay};
use crate::tui::keys::{keys_label, Action, Mode};
use crate::tui::layout::main_pane::{main_hscroll, vscroll};
use crate::tui::layout::overlays::{overlay_scroll, Scroll};
use crate::tui::layout::screen::areas;
use ratatui::text::{Line, Span};

/// Which actions do something right now in the current mode: the footer and the overlays' key
/// lines list only those. It asks the same questions the actions ask before they refuse, so a
/// key offered is a key that works. One is made per key line, and measures the main pane's
/// scrolling and an overlay's once for all its keys (an overlay's text is laid out to measure
/// it: the commit summary of a 2,000-file batch has 2,000 lines).
struct Availability<'a> {
    app: &'a App,
    hscroll: std::cell::OnceCell<(usize, usize)>,
    vscroll: std::cell::OnceCell<(usize, usize)>,
    overlay: std::cell::OnceCell<Option<Scroll>>,
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
                    .get_or_init(|| overlay_scroll(app))
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
                        let (now, most) = *self.vscroll.get_or_init(|| vscroll(app));
                        now < most
                    }
                    Action::PageUp | Action::DiffTop => {
                        self.vscroll.get_or_init(|| vscroll(app)).0 > 0
                    }
                    Action::ScrollLeft | Action::ScrollRight => {
                        let (now, most) = *self.hscroll.get_or_init(|| {
                            let width = areas(app).main.width.saturating_sub(2);
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

/// The keys of a mode that apply now, from the key map (scrolling only when there is more to
/// see), for an overlay's bottom border.
pub fn keys_line(app: &App, mode: Mode) -> Line<'static> {
    let p = &app.palette;
    let mut spans = Vec::new();
    let availability = Availability::new(app);
    for binding in app.keymap.bindings(mode) {
        if !availability.allows(binding.action) {
            continue;
        }
        spans.push(Span::styled(format!(" {}", keys_label(binding)), p.key));
        spans.push(Span::styled(format!(" {} ", binding.short), p.dim));
    }
    Line::from(spans)
}
