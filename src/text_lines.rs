//! A change's lines of text (expected or new): the format's own strings, or spans of a text
//! they share.
//!
//! A unified diff's lines are spans of the diff itself, which its changes share: a hunk side
//! is two allocations (its spans and their box), however many lines it has, and none when it
//! is one line, where a string per line would be one each (a 2,000-file diff has about 560,000
//! lines). A TUL-002 batch's lines are spans of the batch in the same way, wherever the JSON
//! string has no escape (the reader borrows it from the input). Lines that come one by one
//! otherwise (an escaped JSON string, a located find) are the strings the format read, taken
//! as they are.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeSeq, Serializer};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Lines without their endings: the format's own strings, or spans of a text they share.
#[derive(Clone)]
pub struct TextLines(Repr);

#[derive(Clone)]
enum Repr {
    /// Lines that came one by one (a JSON array, a located find): a string each, as the
    /// format read them, so that a change of one line costs what its string does.
    Owned(Vec<String>),
    /// Spans of a shared text (a unified diff's hunks, cut from the diff): the spans and their
    /// box, none per line. Boxed, so that a `TextLines` is no larger than a `Vec`.
    Shared(Box<Shared>),
    /// One line of a shared text (a hunk side or a JSON array of one line, the most common
    /// kind): no allocation at all.
    One(Arc<String>, [(u32, u32); 1]),
}

/// What the lines are read from: strings, or spans of a text.
enum View<'a> {
    Owned(&'a [String]),
    Spans(&'a str, &'a [(u32, u32)]),
}

#[derive(Clone)]
struct Shared {
    text: Arc<String>,
    /// Byte range of each line in `text`.
    spans: Vec<(u32, u32)>,
}

impl Default for TextLines {
    fn default() -> TextLines {
        TextLines(Repr::Owned(Vec::new()))
    }
}

impl TextLines {
    /// The lines at `spans` of `text` (each a range of byte offsets on character boundaries,
    /// as a diff's lines are cut), sharing `text`.
    pub fn of_shared(
        text: &Arc<String>,
        spans: impl IntoIterator<Item = Range<usize>>,
    ) -> TextLines {
        let spans: Vec<(u32, u32)> = spans
            .into_iter()
            .map(|span| {
                assert!(text.get(span.clone()).is_some(), "a span inside the text");
                (offset(span.start), offset(span.end))
            })
            .collect();
        TextLines::of_spans(text, spans)
    }

    /// The lines at `spans` of `text`, checked already.
    fn of_spans(text: &Arc<String>, spans: Vec<(u32, u32)>) -> TextLines {
        match spans[..] {
            [] => TextLines::default(),
            [one] => TextLines(Repr::One(Arc::clone(text), [one])),
            _ => TextLines(Repr::Shared(Box::new(Shared {
                text: Arc::clone(text),
                spans,
            }))),
        }
    }

    /// The lines `lines`, sharing `text` where each is a slice of it (as the strings a JSON
    /// reader borrows from its input are), else copied as strings.
    pub fn of_slices_of(text: Option<&Arc<String>>, lines: &[&str]) -> TextLines {
        // By address: a string that lies inside `text` is a slice of it (two strings alive
        // at once cannot overlap otherwise), so `text[start..end]` is that very string.
        let span_in = |text: &str, line: &str| {
            let start = (line.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let end = start + line.len();
            text.get(start..end).map(|_| (offset(start), offset(end)))
        };
        match (text, lines) {
            // One line, the most common: no list of spans to build first.
            (Some(text), [line]) => {
                if let Some(span) = span_in(text, line) {
                    return TextLines(Repr::One(Arc::clone(text), [span]));
                }
            }
            (Some(text), _) => {
                let spans: Option<Vec<(u32, u32)>> =
                    lines.iter().map(|line| span_in(text, line)).collect();
                if let Some(spans) = spans {
                    return TextLines::of_spans(text, spans);
                }
            }
            (None, _) => {}
        }
        lines.iter().copied().collect()
    }

    fn view(&self) -> View<'_> {
        match &self.0 {
            Repr::Owned(lines) => View::Owned(lines),
            Repr::Shared(shared) => View::Spans(&shared.text, &shared.spans),
            Repr::One(text, span) => View::Spans(text, span),
        }
    }

    pub fn len(&self) -> usize {
        match self.view() {
            View::Owned(lines) => lines.len(),
            View::Spans(_, spans) => spans.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        match self.view() {
            View::Owned(lines) => lines.get(index).map(String::as_str),
            View::Spans(text, spans) => spans
                .get(index)
                .map(|&(start, end)| &text[start as usize..end as usize]),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match self.view() {
            View::Owned(lines) => Iter::Owned(lines.iter()),
            View::Spans(text, spans) => Iter::Shared {
                text,
                spans: spans.iter(),
            },
        }
    }

    /// The lines of `range` (sharing the text, when it is shared).
    pub fn slice(&self, range: Range<usize>) -> TextLines {
        match &self.0 {
            Repr::Owned(lines) => TextLines(Repr::Owned(lines[range].to_vec())),
            Repr::Shared(shared) => TextLines::of_spans(&shared.text, shared.spans[range].to_vec()),
            Repr::One(text, span) => TextLines::of_spans(text, span[range].to_vec()),
        }
    }

    /// The lines joined by `separator`.
    pub fn join(&self, separator: &str) -> String {
        let mut out = String::new();
        for (i, line) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            out.push_str(line);
        }
        out
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }

    /// These lines with `lines` after them.
    pub fn extend(&mut self, lines: &TextLines) {
        let mut all = std::mem::take(self).into_vec();
        all.extend(lines.iter().map(str::to_owned));
        *self = TextLines(Repr::Owned(all));
    }

    /// The lines as strings (taken as they are when they are strings already).
    fn into_vec(self) -> Vec<String> {
        match self.0 {
            Repr::Owned(lines) => lines,
            Repr::Shared(_) | Repr::One(..) => self.to_vec(),
        }
    }
}

/// A byte offset as a span holds it: inputs are at most 64 MiB, so every offset fits.
fn offset(at: usize) -> u32 {
    u32::try_from(at).expect("inputs are far under 4 GiB")
}

/// The lines of a [`TextLines`], in order.
#[derive(Clone)]
pub enum Iter<'a> {
    Owned(std::slice::Iter<'a, String>),
    Shared {
        text: &'a str,
        spans: std::slice::Iter<'a, (u32, u32)>,
    },
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Iter::Owned(lines) => lines.next().map(String::as_str),
            Iter::Shared { text, spans } => {
                let text: &'a str = text;
                spans
                    .next()
                    .map(|&(start, end)| &text[start as usize..end as usize])
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Owned(lines) => lines.size_hint(),
            Iter::Shared { spans, .. } => spans.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Owned(lines) => lines.next_back().map(String::as_str),
            Iter::Shared { text, spans } => {
                let text: &str = text;
                spans
                    .next_back()
                    .map(|&(start, end)| &text[start as usize..end as usize])
            }
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a TextLines {
    type Item = &'a str;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Lines given one by one are kept as strings (a `String` taken as it is).
impl<S: Into<String>> FromIterator<S> for TextLines {
    fn from_iter<I: IntoIterator<Item = S>>(lines: I) -> TextLines {
        TextLines(Repr::Owned(lines.into_iter().map(Into::into).collect()))
    }
}

impl From<Vec<String>> for TextLines {
    fn from(lines: Vec<String>) -> TextLines {
        TextLines(Repr::Owned(lines))
    }
}

impl From<&[String]> for TextLines {
    fn from(lines: &[String]) -> TextLines {
        TextLines(Repr::Owned(lines.to_vec()))
    }
}

impl std::ops::Index<usize> for TextLines {
    type Output = str;

    fn index(&self, index: usize) -> &str {
        self.get(index).expect("a line inside the list")
    }
}

impl PartialEq for TextLines {
    fn eq(&self, other: &TextLines) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for TextLines {}

impl<S: AsRef<str>> PartialEq<[S]> for TextLines {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for TextLines {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for TextLines {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl fmt::Debug for TextLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// As a list of strings, as `Vec<String>` was.
impl Serialize for TextLines {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for line in self {
            seq.serialize_element(line)?;
        }
        seq.end()
    }
}

/// From a list of strings, as `Vec<String>` was.
impl<'de> Deserialize<'de> for TextLines {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TextLines, D::Error> {
        Vec::<String>::deserialize(deserializer).map(TextLines::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_copied_lines_read_the_same() {
        let text = Arc::new(String::from("a\nbc\n\nd"));
        let shared = TextLines::of_shared(&text, [0..1, 2..4, 5..5, 6..7]);
        let copied: TextLines = ["a", "bc", "", "d"].into_iter().collect();
        assert_eq!(shared, copied);
        assert_eq!(shared, ["a", "bc", "", "d"]);
        assert_eq!(
            (shared.len(), shared.get(0), shared.get(3)),
            (4, Some("a"), Some("d"))
        );
        assert_eq!(&shared[1], "bc");
        assert_eq!(
            shared.iter().rev().collect::<Vec<_>>(),
            ["d", "", "bc", "a"]
        );
        assert_eq!(shared.slice(1..3), ["bc", ""]);
        assert_eq!(shared.join("|"), "a|bc||d");
        assert_eq!(
            serde_json::to_string(&shared).unwrap(),
            r#"["a","bc","","d"]"#
        );
        assert_eq!(format!("{shared:?}"), r#"["a", "bc", "", "d"]"#);
        assert!(TextLines::default().is_empty());
    }

    #[test]
    fn one_shared_line_reads_as_any_other() {
        let text = Arc::new(String::from("ab\ncd"));
        let one = TextLines::of_shared(&text, std::iter::once(3..5));
        assert!(matches!(one.0, Repr::One(..)));
        assert_eq!(one, ["cd"]);
        assert_eq!((one.len(), one.get(0), one.get(1)), (1, Some("cd"), None));
        assert_eq!(one.iter().rev().collect::<Vec<_>>(), ["cd"]);
        assert_eq!(one.slice(0..1), ["cd"]);
        assert!(one.slice(1..1).is_empty());
        assert_eq!(one.join("|"), "cd");
        let mut extended = one.clone();
        extended.extend(&TextLines::of_shared(&text, std::iter::once(0..2)));
        assert_eq!(extended, ["cd", "ab"]);
        // A slice of several lines down to one is one line again.
        let two = TextLines::of_shared(&text, [0..2, 3..5]);
        assert!(matches!(two.slice(1..2).0, Repr::One(..)));
    }

    #[test]
    fn slices_of_the_text_are_shared_and_others_copied() {
        let text = Arc::new(String::from("héllo\nworld"));
        let (hello, world) = (&text[0..6], &text[7..12]);
        let shared = TextLines::of_slices_of(Some(&text), &[world, hello]);
        assert_eq!(shared, ["world", "héllo"]);
        assert!(matches!(shared.0, Repr::Shared(_)));
        assert!(matches!(
            TextLines::of_slices_of(Some(&text), &[hello]).0,
            Repr::One(..)
        ));
        // One string from elsewhere, and every line is copied; so without the text.
        let elsewhere = String::from("world");
        let copied = TextLines::of_slices_of(Some(&text), &[hello, &elsewhere]);
        assert_eq!(copied, ["héllo", "world"]);
        assert!(matches!(copied.0, Repr::Owned(_)));
        assert!(matches!(
            TextLines::of_slices_of(None, &[hello]).0,
            Repr::Owned(_)
        ));
        // An empty line at the very end of the text is still a span of it.
        let end = &text[12..];
        let at_end = TextLines::of_slices_of(Some(&text), &[end]);
        assert_eq!(at_end, [""]);
        assert!(matches!(at_end.0, Repr::One(..)));
    }
}
