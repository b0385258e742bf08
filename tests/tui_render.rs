//! The reviewer drawn on a fixed-size `TestBackend`: snapshots hold the text, and explicit
//! asserts check the styles that carry meaning (a conflict must look like one, decisions show
//! glyphs, the footer lists only keys that apply).

use crate::common::reviewer::{open, open_demo, press, select, Open};
use crate::common::sample_workspace;
use patchdeck::tui::app::App;
use patchdeck::tui::draw::draw;
use patchdeck::tui::env::ColorDepth;
use patchdeck::tui::keys::Action;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn render(app: &mut App, width: u16, height: u16) -> (String, Buffer) {
    app.size = (width, height);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, app)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let mut text = String::new();
    for y in 0..height {
        let line: String = (0..width)
            .map(|x| buffer[(x, y)].symbol().to_owned())
            .collect();
        text.push_str(line.trim_end());
        text.push('\n');
    }
    (text, buffer)
}

/// Where `needle` starts on screen.
fn find(buffer: &Buffer, text: &str, needle: &str) -> (u16, u16) {
    for (y, line) in text.lines().enumerate() {
        if let Some(byte) = line.find(needle) {
            let x = line[..byte].chars().count();
            let _ = buffer;
            return (x as u16, y as u16);
        }
    }
    panic!("{needle:?} is not on screen:\n{text}");
}

fn mono(root: &std::path::Path) -> App {
    open(
        root,
        Open {
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    )
}

#[test]
fn first_screen() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    let (text, _) = render(&mut app, 100, 30);
    insta::assert_snapshot!("first_screen_100x30", text);
    let (text, _) = render(&mut app, 80, 24);
    insta::assert_snapshot!("first_screen_80x24", text);
}

#[test]
fn expected_line_conflict_shows_expected_and_actual_and_where_found() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    select(&mut app, "clearer-error");
    let (text, _) = render(&mut app, 160, 32);
    insta::assert_snapshot!("expected_line_conflict_side_by_side", text);
    assert!(text.contains("on disk at line 32"));
    assert!(text.contains("line 30 (-2 lines)"), "{text}");
    // Too narrow for side by side: expected above actual.
    let (text, _) = render(&mut app, 100, 32);
    insta::assert_snapshot!("expected_line_conflict_stacked", text);
    assert!(text.contains(" expected │"), "{text}");
    assert!(text.contains(" line 32  │"), "{text}");
}

#[test]
fn sha_mismatch_shows_both_hashes() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    select(&mut app, "debug-logs");
    let (text, _) = render(&mut app, 120, 30);
    insta::assert_snapshot!("sha_mismatch", text);
    assert!(text.contains("fd3ff2eb8d98d520afd1d015af9f11bd6b77098b5826250bc654bfa3b15fd63a"));
}

#[test]
fn whole_file_view_shows_every_change_in_place() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    press(&mut app, "aj");
    press(&mut app, "w");
    let (text, _) = render(&mut app, 100, 40);
    insta::assert_snapshot!("whole_file", text);
}

#[test]
fn commit_summary_and_help() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    press(&mut app, "ar");
    select(&mut app, "debug-logs");
    press(&mut app, "ac");
    let (text, _) = render(&mut app, 100, 30);
    insta::assert_snapshot!("commit_summary", text);
    press(&mut app, "n?");
    let (text, _) = render(&mut app, 100, 50);
    insta::assert_snapshot!("help", text);
}

#[test]
fn a_conflict_looks_like_one_in_colour() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    select(&mut app, "clearer-error");
    let (text, buffer) = render(&mut app, 160, 32);
    let conflict_bg = Color::Rgb(0xa0, 0x1c, 0x1c);
    let (x, y) = find(&buffer, &text, "CONFLICT");
    let cell = &buffer[(x, y)];
    assert_eq!(
        cell.bg, conflict_bg,
        "the conflict line has the conflict background"
    );
    assert!(cell.modifier.contains(Modifier::BOLD));
    // The main pane's border turns into the conflict colour too.
    let (x, y) = find(&buffer, &text, "⚠ conflict");
    assert_eq!(buffer[(x, y)].bg, conflict_bg);
    // Differing characters of expected vs actual are marked; equal ones are not.
    let (x, y) = find(&buffer, &text, "expected (batch)");
    let row = y + 1;
    let marked = (x..x + 50)
        .filter(|&x| buffer[(x, row)].modifier.contains(Modifier::UNDERLINED))
        .count();
    assert!(
        marked > 0 && marked < 50,
        "some but not all characters are marked ({marked})"
    );
}

#[test]
fn without_colour_conflicts_and_decisions_still_read() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    press(&mut app, "ar");
    let (text, buffer) = render(&mut app, 100, 30);
    for y in 0..30 {
        for x in 0..100 {
            let cell = &buffer[(x, y)];
            assert!(
                matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
                "NO_COLOR draws no colour, but ({x},{y}) has {:?}/{:?}",
                cell.fg,
                cell.bg
            );
        }
    }
    let (x, y) = find(&buffer, &text, "✔  log-load");
    assert_eq!(buffer[(x, y)].symbol(), "✔");
    assert!(text.contains("✘  validate-name"), "{text}");
    assert!(text.contains("·⚠ clearer-error"), "{text}");
    // The selected conflict's status is reversed, so it stands out without colour.
    let (x, y) = find(&buffer, &text, "⚠ conflict");
    assert!(buffer[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_footer_lists_only_keys_that_apply_now() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    let (text, _) = render(&mut app, 160, 30);
    let footer = text.lines().last().unwrap().to_owned();
    assert!(
        footer.contains("a accept") && footer.contains("? help"),
        "{footer}"
    );
    assert!(
        !footer.contains("m move"),
        "nothing to move on a clean change: {footer}"
    );
    assert!(!footer.contains("u undo"), "nothing to undo yet: {footer}");
    select(&mut app, "clearer-error");
    press(&mut app, "r");
    select(&mut app, "clearer-error");
    let (text, _) = render(&mut app, 160, 30);
    let footer = text.lines().last().unwrap().to_owned();
    assert!(
        footer.contains("m move") && footer.contains("u undo"),
        "{footer}"
    );
    assert!(
        !footer.contains("a accept"),
        "a conflict cannot simply be accepted: {footer}"
    );
    // At 80 columns the keys that matter most stay, the rest give way.
    let (text, _) = render(&mut app, 80, 24);
    let footer = text.lines().last().unwrap().to_owned();
    assert!(
        footer.contains("c commit") && footer.contains("u undo") && footer.contains("? help"),
        "{footer}"
    );
    // An override is offered only where it would be taken.
    select(&mut app, "debug-logs");
    let (text, _) = render(&mut app, 160, 30);
    assert!(text.lines().last().unwrap().contains("o override"));
    let mut app = open(
        ws.path(),
        Open {
            batch: "moved-line.json",
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    );
    let (text, _) = render(&mut app, 160, 30);
    assert!(
        !text.lines().last().unwrap().contains("o override"),
        "{text}"
    );
    press(&mut app, "m");
    let (text, _) = render(&mut app, 160, 30);
    assert!(
        text.lines().last().unwrap().contains("o override"),
        "{text}"
    );
}

#[test]
fn the_lists_give_way_on_a_narrow_screen_and_use_a_wide_one() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    let (text, _) = render(&mut app, 80, 24);
    let row = text.lines().nth(3).unwrap();
    assert_eq!(
        row.find("││").map(|b| row[..b].chars().count()),
        Some(19),
        "{row}"
    );
    let (text, _) = render(&mut app, 200, 30);
    assert!(
        text.contains("log-load replace 19  Log through the module logger instead of printing."),
        "{text}"
    );
}

#[test]
fn overlays_are_as_tall_as_their_wrapped_text() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    select(&mut app, "debug-logs");
    press(&mut app, "ac"); // a stale SHA: a long blocker that wraps
    let (text, _) = render(&mut app, 140, 45);
    assert!(
        text.contains("overrides it)"),
        "the blocker's last line:\n{text}"
    );
    assert!(text.contains("n/Esc back"), "the keys:\n{text}");
    press(&mut app, "n");
    // The help at 80x24 scrolls to its very last line, and no further.
    app.size = (80, 24);
    press(&mut app, "?");
    for _ in 0..200 {
        press(&mut app, "j");
    }
    // The help's last line is the last key of its last section.
    let last_row = |text: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let bottom = lines.iter().position(|l| l.starts_with('└')).unwrap();
        lines[bottom - 1].to_owned()
    };
    let (text, _) = render(&mut app, 80, 24);
    assert!(
        last_row(&text).contains("n/Esc           back to the review"),
        "{text}"
    );
    assert!(text.contains("verify again against the files"), "{text}");
    press(&mut app, "k");
    let (text, _) = render(&mut app, 80, 24);
    assert!(
        last_row(&text).contains("verify again against the files"),
        "one key scrolls back:\n{text}"
    );
}

#[test]
fn read_only_says_so_once_and_offers_no_commit() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            read_only: true,
            session: false,
            colors: ColorDepth::None,
            ..Open::default()
        },
    );
    press(&mut app, "acy");
    let (text, _) = render(&mut app, 120, 40);
    assert_eq!(text.matches("nothing can be written").count(), 1, "{text}");
    assert!(
        !text.contains("Restricted mode"),
        "words from elsewhere: {text}"
    );
    assert!(!text.contains("y commit"), "{text}");
    assert!(
        !text.contains("c commit"),
        "the footer offers no commit: {text}"
    );
}

#[test]
fn the_selected_row_reads_in_high_contrast() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            theme: "high-contrast",
            session: false,
            ..Open::default()
        },
    );
    let (text, buffer) = render(&mut app, 120, 30);
    let black = Color::Rgb(0, 0, 0);
    let cyan = Color::Rgb(0, 0xff, 0xff);
    for needle in ["▸·  log-load", "log-load replace", "▸⚠ src/app.py"] {
        let (fg, bg, _) = style_at(&buffer, &text, needle);
        assert_eq!((fg, bg), (black, cyan), "{needle}");
    }
}

#[test]
fn the_files_pane_shows_each_files_label_dimmed() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    let (text, buffer) = render(&mut app, 140, 30);
    let (fg, _, _) = style_at(&buffer, &text, "Helpers: tolerate spaces");
    assert_eq!(fg, Color::Rgb(0x65, 0x73, 0x7e), "the theme's dim colour");
}

#[test]
fn the_header_keeps_the_end_of_the_source() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "../sample-batches/structured-conflicting.json",
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    );
    let (text, _) = render(&mut app, 70, 24);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains(" · …") && first.ends_with("-conflicting.json"),
        "cut from the left: {first}"
    );
}

/// The style of the cell where `needle` starts.
fn style_at(buffer: &Buffer, text: &str, needle: &str) -> (Color, Color, Modifier) {
    let (x, y) = find(buffer, text, needle);
    let cell = &buffer[(x, y)];
    (cell.fg, cell.bg, cell.modifier)
}

/// The footer line of a rendered screen.
fn footer(text: &str) -> String {
    text.lines().last().unwrap().to_owned()
}

#[test]
fn a_long_line_starts_at_its_change_and_scrolls_with_markers() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "structured-conflicting.json",
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    );
    press(&mut app, "G"); // replacement 3 adds ", indent=2" at the end of a long line
    let (text, _) = render(&mut app, 80, 24);
    // The start of its changed words shows, so the view keeps the lines' starts (the `def`
    // they belong to) and marks what goes on.
    assert!(text.contains("      def save(self):"), "{text}");
    assert!(
        text.contains("json.dump(self.items, handle, inde›"),
        "{text}"
    );
    assert!(!text.contains("‹"), "{text}");
    assert!(footer(&text).contains("→ scroll"), "{}", footer(&text));
    app.update(Action::ScrollRight);
    let (text, _) = render(&mut app, 80, 24);
    assert!(
        text.contains("indent=2)"),
        "the rest of the change:\n{text}"
    );
    assert!(text.contains("‹"), "the lines start earlier:\n{text}");
    assert!(footer(&text).contains("← scroll"), "{}", footer(&text));
    app.update(Action::ScrollLeft);
    let (text, _) = render(&mut app, 80, 24);
    assert!(
        text.contains("handle, inde›"),
        "cut, and marked so:\n{text}"
    );
    assert!(!text.contains("‹"), "{text}");
    assert!(!footer(&text).contains("← scroll"), "{}", footer(&text));
    // Expected and actual lines of a conflict scroll too.
    let mut app = mono(ws.path());
    select(&mut app, "clearer-error");
    let (text, _) = render(&mut app, 64, 30);
    let expected = text.lines().find(|l| l.contains(" expected │")).unwrap();
    assert!(
        expected.contains("raise ValueError(\"not enough \" + name)") && !expected.contains('‹'),
        "below 80 columns the diff has the screen, and the line fits: {expected}"
    );
    let (text, _) = render(&mut app, 44, 30);
    let expected = text.lines().find(|l| l.contains(" expected │")).unwrap();
    assert!(
        expected.ends_with("›│") && !expected.contains("‹"),
        "{expected}"
    );
    app.update(Action::ScrollRight);
    app.update(Action::ScrollRight);
    let (text, _) = render(&mut app, 44, 30);
    let expected = text.lines().find(|l| l.contains(" expected │")).unwrap();
    assert!(
        expected.contains("‹") && expected.contains("+ name)"),
        "{expected}"
    );
}

#[test]
fn changes_that_could_not_be_placed_say_so_and_show_what_they_would_write() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "structured-conflicting.json",
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    );
    press(&mut app, "j");
    let (text, _) = render(&mut app, 140, 30);
    assert!(
        text.contains("#1 replace (ambiguous: lines 22, 27)"),
        "{text}"
    );
    assert!(text.contains("#2 replace (not found)"), "{text}");
    assert!(!text.contains("insert after"), "{text}");
    let added = text
        .lines()
        .find_map(|l| {
            l.split_once("││")
                .map(|(_, main)| main)
                .filter(|main| main.contains("+ def reset(self):"))
        })
        .unwrap_or_else(|| panic!("the replacement is shown:\n{text}"));
    assert!(
        !added.chars().any(|c| c.is_ascii_digit()),
        "no line numbers for a change without a place: {added}"
    );
    assert!(!footer(&text).contains("a accept") && !footer(&text).contains("e edit"));
}

#[test]
fn the_whole_file_view_marks_conflicting_changes() {
    let ws = sample_workspace();
    let mut app = mono(ws.path());
    press(&mut app, "w"); // log-load selected; clearer-error is further down
    let (text, buffer) = render(&mut app, 120, 50);
    let (x, y) = find(&buffer, &text, "raise ValueError(f\"not enough");
    let row: String = text.lines().nth(y as usize).unwrap().to_owned();
    let main_x = row
        .find("││")
        .map(|b| row[..b].chars().count() as u16 + 1)
        .unwrap();
    let marker = &buffer[(main_x + 1, y)];
    assert_eq!(marker.symbol(), "⚠", "{row}");
    assert!(
        marker.modifier.contains(Modifier::REVERSED),
        "the conflict style"
    );
    let number = &buffer[(main_x + 4, y)];
    assert!(number.modifier.contains(Modifier::REVERSED), "{row}");
    let _ = x;
}

#[test]
fn search_matches_are_marked() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    press(&mut app, "/valueerror");
    app.key(patchdeck::tui::keys::Key::Enter);
    let (text, buffer) = render(&mut app, 140, 30);
    let (fg, bg, _) = style_at(&buffer, &text, "ValueError(\"item name");
    assert_eq!(
        (fg, bg),
        (Color::Rgb(0x2b, 0x30, 0x3b), Color::Rgb(0xeb, 0xcb, 0x8b)),
        "the theme's search_match"
    );
}

#[test]
fn a_tolerant_match_is_named_once() {
    let ws = sample_workspace();
    let mut app = open(
        ws.path(),
        Open {
            batch: "edits-clean.json",
            colors: ColorDepth::None,
            session: false,
            ..Open::default()
        },
    );
    let pos = (0..app.flat.len())
        .find(|&p| app.change(p).change.match_tier != patchdeck::model::MatchTier::Exact)
        .expect("a tolerant match in the sample");
    app.go(pos);
    let (text, _) = render(&mut app, 160, 40);
    assert_eq!(text.matches("tolerance \"").count(), 1, "{text}");
    assert!(!text.contains("tolerant match:"), "{text}");
}
