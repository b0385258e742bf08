//! The lines above a change's diff: its description, the file's facts, and every conflict in
//! full. A SHA mismatch shows both hashes; an expected-line conflict shows expected and actual
//! lines side by side (above each other when narrow) with the differing characters marked, and
//! where the expected lines were found instead.
//!
//! The head is laid out here rather than drawn: its wrapped lines are rows the main pane
//! scrolls through, so scrolling measures the head that is drawn.

use super::screen::page;
use crate::preview::char_spans;
use crate::problem::ProblemKind;
use crate::review::ChangeView;
use crate::review::Decision;
use crate::review::Way;
use crate::tui::app::App;
use crate::tui::glyphs::Glyph;
use crate::tui::keys::Action;
use crate::tui::text::{pad_spans, styled_text, window_spans, wrap};
use crate::tui::words::Asked;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Rows of main pane from which the head says everything it can.
const ROOMY_PAGE: usize = 16;

/// The lines above the diff: description, file facts, and every conflict in full. Expected and
/// actual lines are shown from column `hscroll` on, as the diff is.
pub fn head_lines(app: &App, width: u16, hscroll: usize) -> Vec<Line<'static>> {
    let p = &app.palette;
    let ChangeView {
        file,
        change,
        file_check,
        check,
    } = app.change(app.pos);
    let mut out = Vec::new();
    if let Some(description) = &change.description {
        out.push(Line::from(Span::styled(description.clone(), p.text)));
    }
    // The person's note for the model, under what the model said of the change.
    if let Some(note) = app.decisions().note_on(&change.id) {
        let note = crate::lines::visible(note);
        out.push(Line::from(Span::styled(
            format!("your note for the model: {note}"),
            p.key,
        )));
    }
    // On a short screen the diff needs the rows more than the file's label, which the files
    // list shows anyway.
    if let Some(label) = file.label.as_ref().filter(|_| page(app) >= ROOMY_PAGE) {
        out.push(Line::from(Span::styled(format!("file: {label}"), p.dim)));
    }
    for problem in &file_check.problems {
        if problem.kind == ProblemKind::ShaMismatch {
            sha_lines(app, &mut out, width);
        } else {
            let glyph = if problem.blocking {
                Glyph::Invalid
            } else {
                Glyph::Note
            };
            out.push(Line::from(Span::styled(
                format!("{} {}: {}", glyph.symbol(), problem.kind, problem.message),
                if problem.blocking {
                    p.conflict
                } else {
                    p.warning
                },
            )));
            if problem.kind == ProblemKind::FileExists {
                let key = app.words().key(Action::OverrideSha);
                let text = if app.review().overridden(app.file_index()) {
                    format!(
                        "  {} it will be written over the file that is there ({key} undoes); the diff is against that file",
                        Glyph::Accepted.symbol()
                    )
                } else {
                    format!(
                        "  the diff below is against the file that is there; {key} writes over it, which the batch never showed"
                    )
                };
                out.push(Line::from(Span::styled(text, p.warning)));
            }
        }
    }
    // What the commit makes of it, asked of the rule it applies: a conflict resolved (moved,
    // placed, edited or taken over the lines on disk) is said so, not shown as open.
    let resolved =
        check.status != crate::verify::Status::Ok && app.review().resolved(app.flat[app.pos]);
    for problem in &check.problems {
        let (glyph, style, label) = match (problem.blocking, resolved) {
            (true, false) => (Glyph::Conflict, p.conflict, "CONFLICT"),
            (true, true) => (Glyph::Accepted, p.warning, "resolved"),
            (false, _) => (Glyph::Note, p.warning, "note"),
        };
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
            mismatch_lines(app, &mut out, mismatch, width, hscroll);
        }
        if let Some(at) = problem.found_at {
            let words = app.words();
            let text = if app.decisions().relocated(&change.id) {
                format!(
                    "{} moved to line {at}, where the expected lines are ({} undoes)",
                    Glyph::Relocated.symbol(),
                    words.key(Action::Relocate)
                )
            } else {
                format!(
                    "  {}; {} edits it over the lines at {}",
                    words.way(Way::Relocate { to: at }),
                    words.key(Action::Edit),
                    change.range.start
                )
            };
            out.push(Line::from(Span::styled(text, p.warning)));
        }
    }
    if app.decisions().edited_over(&change.id).is_some() {
        let edited = matches!(app.decisions().get(&change.id), Decision::Edit(_));
        let text = match (resolved, edited) {
            (true, true) => "edited over the lines on disk: the conflict is resolved by your edit",
            (true, false) => {
                "its proposal is taken over the lines on disk: the conflict is resolved"
            }
            (false, _) => {
                "written over lines you saw at its place, which are no longer there: still a conflict"
            }
        };
        out.push(Line::from(Span::styled(
            format!("{} {text}", Glyph::Edited.symbol()),
            p.edited,
        )));
    } else if matches!(app.decisions().get(&change.id), Decision::Edit(_)) {
        out.push(Line::from(Span::styled(
            format!(
                "{} edited: the diff shows the lines you wrote",
                Glyph::Edited.symbol()
            ),
            p.edited,
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

fn sha_lines(app: &App, out: &mut Vec<Line<'static>>, width: u16) {
    let p = &app.palette;
    let (file, check) = app.file(app.file_index());
    out.push(Line::from(Span::styled(
        format!(
            "{} SHA-256 MISMATCH: this file changed since the batch was written",
            Glyph::Conflict.symbol()
        ),
        p.conflict,
    )));
    let expected = file.expected_sha256.clone().unwrap_or_default();
    let actual = check.actual_sha256().unwrap_or("").to_owned();
    let one_line = width >= 11 + 64;
    for (label, hash, style) in [
        ("  expected ", expected, p.text),
        ("  on disk  ", actual, p.differs),
    ] {
        if one_line {
            out.push(Line::from(vec![
                Span::styled(label, p.dim),
                Span::styled(hash, style),
            ]));
        } else {
            out.push(Line::from(Span::styled(label, p.dim)));
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
    let words = app.words();
    let key = words.key(Action::OverrideSha);
    let refusal = app.review().override_refusal(app.file_index());
    let (text, style) = if app.decisions().sha_overridden(&file.id) {
        (
            format!(
                "  {} overridden: it will be written anyway ({key} undoes)",
                Glyph::Accepted.symbol()
            ),
            p.warning,
        )
    } else if let Some(refusal) = refusal {
        // Every change that would still block the file, with the key that resolves it.
        (
            format!(
                "  {}; then {key} overrides the mismatch",
                words.refusal(Asked::Override, &refusal, app.review())
            ),
            p.dim,
        )
    } else {
        (
            format!("  every change verifies or is resolved: {key} overrides the mismatch"),
            p.warning,
        )
    };
    out.push(Line::from(Span::styled(text, style)));
}

/// How expected and actual lines are laid out at `width`.
struct MismatchLayout {
    /// The indentation both sides share, not shown.
    indent: usize,
    expected: Vec<String>,
    actual: Vec<String>,
    side_by_side: bool,
    /// Columns of one side, side by side.
    column: usize,
    /// Columns of text a line shows: (expected, actual).
    text_widths: (usize, usize),
}

/// Columns before the text of a stacked expected or actual line (` expected │ `).
const STACKED_LABEL: usize = 12;

fn mismatch_layout(m: &crate::verify::LineMismatch, width: u16) -> MismatchLayout {
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
    // A blank or whitespace-only line is shown as such, never as nothing.
    let cut = |l: &String| match l.trim().is_empty() {
        true if l.is_empty() => "⏎ (blank line)".to_owned(),
        true => format!(
            "{} (whitespace only)",
            l.replace(' ', "·").replace('\t', "→")
        ),
        false => l.get(indent..).unwrap_or("").replace('\t', "    "),
    };
    let expected: Vec<String> = m.expected.iter().map(cut).collect();
    let actual: Vec<String> = m.actual.iter().map(cut).collect();
    let width = width as usize;
    let column = width.saturating_sub(3) / 2;
    let longest = expected
        .iter()
        .chain(&actual)
        .map(|l| Span::raw(l.as_str()).width())
        .max()
        .unwrap_or(0);
    let side_by_side = longest < column;
    let text_widths = if side_by_side {
        (column.saturating_sub(1), width.saturating_sub(column + 3))
    } else {
        let w = width.saturating_sub(STACKED_LABEL);
        (w, w)
    };
    MismatchLayout {
        indent,
        expected,
        actual,
        side_by_side,
        column,
        text_widths,
    }
}

/// How many columns the selected change's expected or actual lines go past what they show.
pub fn mismatch_overflow(app: &App, width: u16) -> usize {
    let ChangeView { check, .. } = app.change(app.pos);
    check
        .problems
        .iter()
        .filter_map(|p| p.mismatch.as_ref())
        .map(|m| {
            let layout = mismatch_layout(m, width);
            let over = |lines: &[String], shown: usize| {
                lines
                    .iter()
                    .map(|l| {
                        Span::raw(l.as_str())
                            .width()
                            .saturating_sub(shown.saturating_sub(1))
                    })
                    .max()
                    .unwrap_or(0)
            };
            over(&layout.expected, layout.text_widths.0)
                .max(over(&layout.actual, layout.text_widths.1))
        })
        .max()
        .unwrap_or(0)
}

fn mismatch_lines(
    app: &App,
    out: &mut Vec<Line<'static>>,
    m: &crate::verify::LineMismatch,
    width: u16,
    hscroll: usize,
) {
    let p = &app.palette;
    let rows = m.expected.len().max(m.actual.len());
    let layout = mismatch_layout(m, width);
    let column = layout.column;
    let indent = layout.indent;
    if indent > 0 && page(app) >= ROOMY_PAGE {
        out.push(Line::from(Span::styled(
            format!("  (the {indent} spaces of indentation both sides share are not shown)"),
            p.dim,
        )));
    }
    let label = format!("on disk at line {}", m.at);
    if layout.side_by_side {
        out.push(Line::from(vec![
            Span::styled(pad(" expected (batch)", column), p.title),
            Span::styled(" │ ", p.border),
            Span::styled(label.clone(), p.title),
        ]));
    }
    let marker = p.key;
    for i in 0..rows {
        let expected = layout.expected.get(i).map_or("", String::as_str);
        let actual = layout.actual.get(i).map(String::as_str);
        let (left_spans, right_spans) = char_spans(expected, actual.unwrap_or(""));
        let left = styled_text(
            &[(Style::default(), expected.to_owned())],
            &left_spans,
            p.removed,
            p.differs,
        );
        let right = match actual {
            Some(actual) => styled_text(
                &[(Style::default(), actual.to_owned())],
                &right_spans,
                p.added,
                p.differs,
            ),
            None => vec![Span::styled("(end of file)", p.differs)],
        };
        let (left_width, right_width) = layout.text_widths;
        let right_skip = if actual.is_some() { hscroll } else { 0 };
        if layout.side_by_side {
            let mut spans = vec![Span::styled(" ", p.dim)];
            spans.extend(pad_spans(
                window_spans(left, hscroll, left_width, marker),
                left_width,
            ));
            spans.push(Span::styled(" │ ", p.border));
            spans.extend(window_spans(right, right_skip, right_width, marker));
            out.push(Line::from(spans));
        } else {
            let mut spans = vec![Span::styled(" expected │ ", p.dim)];
            spans.extend(window_spans(left, hscroll, left_width, marker));
            out.push(Line::from(spans));
            let mut spans = vec![Span::styled(
                format!(" {:<8} │ ", format!("line {}", m.at + i)),
                p.dim,
            )];
            spans.extend(window_spans(right, right_skip, right_width, marker));
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
