//! Fitting styled text into columns: cutting a line to a window of columns with markers where
//! it goes on (horizontal scrolling), wrapping text at spaces, styling the changed words of a
//! line, marking search matches, and shortening a path from the left so its file name stays.
//! Widths are terminal columns, as ratatui counts them. Both the layout (which measures what it
//! lays out) and the drawing use these.

use super::highlight::Piece;
use ratatui::style::Style;
use ratatui::text::Span;
use std::ops::Range;

/// Marks a line that starts before the columns shown.
pub const STARTS_EARLIER: &str = "‹";
/// Marks a line that goes on after the columns shown.
pub const GOES_ON: &str = "›";

/// Columns a character takes on the terminal.
fn char_width(c: char) -> usize {
    let mut buffer = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buffer)).width()
}

/// The columns `skip..skip + width` of a line of spans. When the line starts before them, the
/// first column shown is `STARTS_EARLIER`; when it goes on after them, the last is
/// `GOES_ON`, both in `marker`. A wide character cut in two becomes spaces.
pub fn window_spans(
    spans: Vec<Span<'static>>,
    skip: usize,
    width: usize,
    marker: Style,
) -> Vec<Span<'static>> {
    let total: usize = spans.iter().map(Span::width).sum();
    if width == 0 {
        return Vec::new();
    }
    let earlier = skip > 0 && total > 0;
    let on = total > skip + width;
    let start = skip + usize::from(earlier);
    let end = (skip + width).saturating_sub(usize::from(on)).max(start);
    let mut out = Vec::with_capacity(spans.len() + 2);
    if earlier {
        out.push(Span::styled(STARTS_EARLIER, marker));
    }
    let mut col = 0;
    for span in spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = char_width(c);
            if col >= start && col < end && col + w <= end {
                text.push(c);
            } else if col < end && col + w > start {
                text.extend(std::iter::repeat_n(
                    ' ',
                    (col + w).min(end) - col.max(start),
                ));
            }
            col += w;
            if col > end {
                break;
            }
        }
        if !text.is_empty() {
            out.push(Span::styled(text, span.style));
        }
    }
    if on {
        out.push(Span::styled(GOES_ON, marker));
    }
    out
}

/// Pads spans with spaces to `width` columns.
pub fn pad_spans(mut spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    let used: usize = spans.iter().map(Span::width).sum();
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
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

/// Splits text into pieces of at most `width` characters, at spaces where it can; pieces after
/// the first are indented by two.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_hanging(text, width, "  ")
}

/// Splits text into pieces of at most `width` characters, at spaces where it can; pieces after
/// the first start with `indent`.
pub fn wrap_hanging(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let len = current.chars().count();
        if len == 0 {
            current.push_str(word);
        } else if len + 1 + word.chars().count() > width {
            pieces.push(std::mem::replace(&mut current, format!("{indent}{word}")));
        } else {
            current.push(' ');
            current.push_str(word);
        }
        while current.chars().count() > width {
            let head: String = current.chars().take(width).collect();
            let tail: String = current.chars().skip(width).collect();
            pieces.push(head);
            current = format!("{indent}{tail}");
        }
    }
    pieces.push(current);
    pieces
}

/// Byte ranges of `text` where `needle` (already lowercase) occurs, ignoring case.
fn match_ranges(text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    // Lowercasing keeps byte offsets only when it keeps every character's length.
    let lower = text.to_lowercase();
    let hay = if lower.len() == text.len() {
        lower
    } else {
        text.to_ascii_lowercase()
    };
    hay.match_indices(needle)
        .map(|(at, m)| at..at + m.len())
        .filter(|r| text.is_char_boundary(r.start) && text.is_char_boundary(r.end))
        .collect()
}

/// Marks every occurrence of `needle` (lowercase) across a line of spans with `style` over
/// their own.
pub fn highlight_matches(
    spans: Vec<Span<'static>>,
    needle: &str,
    style: Style,
) -> Vec<Span<'static>> {
    let whole: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let ranges = match_ranges(&whole, needle);
    if ranges.is_empty() {
        return spans;
    }
    let mut out = Vec::with_capacity(spans.len() + ranges.len() * 2);
    let mut at = 0;
    for span in spans {
        let end = at + span.content.len();
        let mut cut = at;
        while cut < end {
            let inside = ranges.iter().find(|r| r.start <= cut && cut < r.end);
            let next = match inside {
                Some(r) => r.end.min(end),
                None => ranges
                    .iter()
                    .map(|r| r.start)
                    .filter(|&s| s > cut)
                    .min()
                    .unwrap_or(end)
                    .min(end),
            };
            let part = span.content[cut - at..next - at].to_owned();
            let part_style = if inside.is_some() {
                span.style.patch(style)
            } else {
                span.style
            };
            out.push(Span::styled(part, part_style));
            cut = next;
        }
        at = end;
    }
    out
}

/// `text` in at most `width` columns, cut from the left with `…` so its end (a file name)
/// stays.
pub fn keep_end(text: &str, width: usize) -> String {
    let total: usize = text.chars().map(char_width).sum();
    if total <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 1; // the ellipsis
    for c in text.chars().rev() {
        let w = char_width(c);
        if used + w > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// `text` in at most `width` columns, cut at the end with `…`.
pub fn keep_start(text: &str, width: usize) -> String {
    let total: usize = text.chars().map(char_width).sum();
    if total <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 1;
    for c in text.chars() {
        let w = char_width(c);
        if used + w > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_window_marks_where_the_line_goes_on() {
        let line = || vec![Span::raw("json.dump(self.items, handle, indent=2)")];
        let marker = Style::default();
        assert_eq!(text(&window_spans(line(), 0, 12, marker)), "json.dump(s›");
        assert_eq!(text(&window_spans(line(), 22, 12, marker)), "‹andle, ind›");
        assert_eq!(text(&window_spans(line(), 30, 20, marker)), "‹ndent=2)");
        assert_eq!(text(&window_spans(line(), 0, 60, marker)), text(&line()));
        assert!(window_spans(vec![Span::raw("")], 5, 10, marker).is_empty());
    }

    #[test]
    fn matches_are_marked_across_spans_ignoring_case() {
        let spans = vec![Span::raw("Value"), Span::raw("Error here")];
        let style = Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let out = highlight_matches(spans, "valueerror", style);
        assert_eq!(text(&out), "ValueError here");
        assert_eq!(out[0].style, style);
        assert_eq!(out[1].content, "Error");
        assert_eq!(out[1].style, style);
        assert_eq!(out[2].style, Style::default());
    }

    #[test]
    fn paths_keep_their_end() {
        assert_eq!(keep_end("/a/long/path/batch.json", 12), "…/batch.json");
        assert_eq!(keep_end("short", 12), "short");
        assert_eq!(keep_start("a long description", 8), "a long …");
    }
}
