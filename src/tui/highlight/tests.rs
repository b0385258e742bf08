//! The highlighter against a parse of the whole file from its top: what a frame parses is
//! bounded, a row the background has not reached is painted provisionally and says so, and
//! the repaint is exact.

use super::*;
use crate::tui::env::ColorDepth;

impl Highlighter {
    /// Keeps the background from starting on what is asked of it until [`release`].
    fn hold(&self) {
        *self.held.borrow_mut() = Some(Vec::new());
    }

    fn release(&self) {
        let held = self.held.borrow_mut().take().unwrap_or_default();
        let background = self.background.borrow();
        for job in held {
            background.as_ref().expect("started").request(job);
        }
    }

    /// Lines parsed on the input path since the last call.
    fn take_parsed(&self) -> usize {
        self.parsed.replace(0)
    }
}

/// A Rust file of `lines` lines with a block comment from line `comment.start` to the line
/// before `comment.end`.
fn commented_file(lines: usize, comment: std::ops::Range<usize>) -> Vec<u8> {
    let mut text = String::new();
    for n in 1..=lines {
        let line = match n {
            n if n == comment.start => "/*".to_owned(),
            n if n + 1 == comment.end => "*/".to_owned(),
            n if comment.contains(&n) => format!("    let inside_{n} = the_comment({n});"),
            n => format!("fn item_{n}() -> u64 {{ {n} }}"),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.into_bytes()
}

fn context_rows(bytes: &[u8], index: &LineIndex, lines: std::ops::Range<usize>) -> Vec<Row> {
    lines
        .map(|n| Row {
            kind: RowKind::Context,
            old: Some(n),
            new: Some(n),
            text: index.line(bytes, n).to_owned(),
            emphasis: Vec::new(),
            change: None,
        })
        .collect()
}

/// The pieces of `rows` after parsing the whole file above them, line by line.
fn from_the_top(
    palette: &Palette,
    bytes: &[u8],
    index: &LineIndex,
    rows: &[Row],
) -> Vec<Vec<Piece>> {
    let syntaxes = bundled_syntaxes();
    let theme = ThemeSet::load_defaults()
        .themes
        .remove(palette.syntax.as_deref().unwrap())
        .unwrap();
    let styler = Styler::new(&theme);
    let syntax = syntaxes.find_syntax_by_extension("rs").unwrap();
    let mut state = fresh_state(syntax, &styler);
    for n in 1..rows[0].old.unwrap() {
        advance(syntaxes, &styler, &mut state, index.line(bytes, n));
    }
    rows.iter()
        .map(|row| highlight_line(syntaxes, &styler, palette, &mut state, &row.text))
        .collect()
}

fn palette() -> Palette {
    Palette::load("dark", ColorDepth::TrueColor).unwrap()
}

#[test]
fn a_row_deep_in_a_comment_is_painted_provisionally_then_exactly_from_the_top() {
    let palette = palette();
    // The comment closes on line 2,451, in the middle of the rows shown.
    let bytes = Arc::new(commented_file(3_000, 1..2_452));
    let index = Arc::new(LineIndex::of(&bytes));
    let source = Source {
        file: 0,
        path: "deep.rs",
        bytes: &bytes,
        index: &index,
    };
    let rows = context_rows(&bytes, &index, 2_447..2_457);
    let exact = from_the_top(&palette, &bytes, &index, &rows);
    let highlighter = Highlighter::new(&palette);
    highlighter.hold();

    let first = highlighter.rows(&palette, &source, &rows);
    assert!(
        highlighter.waiting(),
        "the background has not reached line 2,447"
    );
    assert!(!highlighter.repaint_due());
    assert!(highlighter.take_parsed() <= CHECKPOINT_EVERY + MIN_LEAD);
    assert_ne!(
        first, exact,
        "a fresh parse near line 2,447 cannot know the comment"
    );
    // A redraw before the background arrives costs no parsing and still waits.
    assert_eq!(highlighter.rows(&palette, &source, &rows), first);
    assert_eq!(highlighter.take_parsed(), 0);
    assert!(highlighter.waiting());

    highlighter.release();
    highlighter.settle();
    assert!(highlighter.repaint_due());
    let repainted = highlighter.rows(&palette, &source, &rows);
    assert_eq!(repainted, exact);
    assert!(!highlighter.waiting());
    assert!(highlighter.take_parsed() < CHECKPOINT_EVERY);
}

#[test]
fn rows_near_the_top_are_exact_at_once() {
    let palette = palette();
    let bytes = Arc::new(commented_file(400, 1..300));
    let index = Arc::new(LineIndex::of(&bytes));
    let source = Source {
        file: 3,
        path: "top.rs",
        bytes: &bytes,
        index: &index,
    };
    let highlighter = Highlighter::new(&palette);
    highlighter.hold();
    // Within the first checkpoint's stretch plus the lead, the parse starts at line 1.
    let rows = context_rows(&bytes, &index, 110..118);
    let pieces = highlighter.rows(&palette, &source, &rows);
    assert!(!highlighter.waiting());
    assert_eq!(pieces, from_the_top(&palette, &bytes, &index, &rows));
}

#[test]
fn a_later_frame_in_a_provisional_stretch_continues_from_the_state_left_there() {
    let palette = palette();
    // A comment opens in the stretch from line 2,501 and runs past line 2,650.
    let bytes = Arc::new(commented_file(3_000, 2_590..2_700));
    let index = Arc::new(LineIndex::of(&bytes));
    let source = Source {
        file: 1,
        path: "code.rs",
        bytes: &bytes,
        index: &index,
    };
    let highlighter = Highlighter::new(&palette);
    highlighter.hold();
    // Line 2,610 is close to the checkpoint at 2,601, so its parse starts at 2,501 and leaves
    // a state at 2,601 that has seen the comment open.
    let near = context_rows(&bytes, &index, 2_610..2_618);
    highlighter.rows(&palette, &source, &near);
    highlighter.take_parsed();
    let below = context_rows(&bytes, &index, 2_650..2_658);
    let pieces = highlighter.rows(&palette, &source, &below);
    assert!(highlighter.take_parsed() < CHECKPOINT_EVERY);
    assert!(highlighter.waiting());
    assert_eq!(pieces, from_the_top(&palette, &bytes, &index, &below));
}

#[test]
fn without_a_syntax_theme_rows_are_plain_and_nothing_waits() {
    let palette = Palette::load("dark", ColorDepth::None).unwrap();
    let bytes = Arc::new(commented_file(3_000, 1..2_990));
    let index = Arc::new(LineIndex::of(&bytes));
    let source = Source {
        file: 0,
        path: "deep.rs",
        bytes: &bytes,
        index: &index,
    };
    let rows = context_rows(&bytes, &index, 2_447..2_450);
    let highlighter = Highlighter::new(&palette);
    let pieces = highlighter.rows(&palette, &source, &rows);
    assert!(!highlighter.waiting());
    assert!(pieces
        .iter()
        .all(|p| p.len() == 1 && p[0].0 == Style::default()));
}

/// The rows of replacing line `at` of `index` with `new`, with three lines of context.
fn hunk_rows(bytes: &[u8], index: &LineIndex, at: usize, new: &str) -> Vec<Row> {
    let mut rows = context_rows(bytes, index, at - 3..at);
    let mut removed = context_rows(bytes, index, at..at + 1);
    removed[0].kind = RowKind::Removed;
    rows.append(&mut removed);
    rows.push(Row {
        kind: RowKind::Added,
        old: None,
        new: Some(at),
        text: new.to_owned(),
        emphasis: Vec::new(),
        change: Some(0),
    });
    rows.extend(context_rows(bytes, index, at + 1..at + 4));
    rows
}

#[test]
fn a_change_parses_the_file_above_it_once_and_the_next_change_from_where_it_left() {
    let palette = palette();
    let bytes = Arc::new(commented_file(100, 20..30));
    let index = Arc::new(LineIndex::of(&bytes));
    let source = Source {
        file: 2,
        path: "small.rs",
        bytes: &bytes,
        index: &index,
    };
    let highlighter = Highlighter::new(&palette);
    highlighter.hold();
    let rows = hunk_rows(&bytes, &index, 50, "fn renamed() -> u64 { 0 }");
    let pieces = highlighter.rows(&palette, &source, &rows);
    // Lines 1 to 46 once; the context after the added line goes on from line 51's state.
    assert_eq!(highlighter.take_parsed(), 46);
    assert_eq!(
        pieces[..4],
        from_the_top(&palette, &bytes, &index, &rows[..4])[..]
    );
    let after = context_rows(&bytes, &index, 51..54);
    assert_eq!(
        pieces[5..],
        from_the_top(&palette, &bytes, &index, &after)[..]
    );

    // The next change, at line 60: from the state before line 54 that the frame left.
    let next = hunk_rows(&bytes, &index, 60, "fn renamed_too() -> u64 { 1 }");
    let pieces = highlighter.rows(&palette, &source, &next);
    assert_eq!(highlighter.take_parsed(), 3);
    assert_eq!(
        pieces[..4],
        from_the_top(&palette, &bytes, &index, &next[..4])[..]
    );
    assert!(!highlighter.waiting());
}
