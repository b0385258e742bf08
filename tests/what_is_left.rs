//! What is left of a review is always in view: the header counts open conflicts apart from
//! resolved ones and reaches 0, `!` visits only the open ones, a filter narrows the list to
//! undecided changes or open conflicts, and every verified change is accepted at once after a
//! question that names how many.

use crate::common::reviewer::{open_demo, press, screen, select, selected_key};
use crate::common::sample_workspace;

fn header(app: &mut patchdeck::tui::app::App) -> String {
    screen(app, 160, 30).lines().nth(1).unwrap().to_owned()
}

#[test]
fn resolving_both_demo_conflicts_brings_the_count_to_zero_and_bang_visits_only_open_ones() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    assert!(
        header(&mut app).contains("⚠ 2 open conflict(s)"),
        "{}",
        header(&mut app)
    );
    press(&mut app, "!");
    assert_eq!(selected_key(&app), "clearer-error");
    press(&mut app, "m");
    let top = header(&mut app);
    assert!(top.contains("⚠ 1 open conflict(s) 1 resolved"), "{top}");
    // `!` skips the resolved one, wherever it starts from.
    select(&mut app, "log-load");
    press(&mut app, "!");
    assert_eq!(selected_key(&app), "debug-logs");
    press(&mut app, "!");
    assert_eq!(
        selected_key(&app),
        "debug-logs",
        "the only open conflict left"
    );
    press(&mut app, "o");
    let top = header(&mut app);
    assert!(top.contains("⚠ 0 open conflict(s) 2 resolved"), "{top}");
    select(&mut app, "log-load");
    press(&mut app, "!");
    assert_eq!(selected_key(&app), "log-load", "nothing left to visit");
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .contains("no open conflict"),
        "{:?}",
        app.message
    );
    // Undo reopens it: the count follows.
    press(&mut app, "u");
    assert!(header(&mut app).contains("⚠ 1 open conflict(s) 1 resolved"));
}

#[test]
fn the_filter_narrows_moving_to_undecided_changes_then_open_conflicts() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    press(&mut app, "g");
    press(&mut app, "a"); // log-load accepted
    press(&mut app, "f");
    assert!(header(&mut app).contains("[showing undecided changes]"));
    press(&mut app, "g");
    let mut seen = vec![selected_key(&app)];
    for _ in 0..12 {
        press(&mut app, "j");
        seen.push(selected_key(&app));
    }
    seen.dedup();
    assert!(!seen.contains(&"log-load".to_owned()), "{seen:?}");
    assert_eq!(
        seen.len(),
        8,
        "the eight undecided changes, each once: {seen:?}"
    );
    press(&mut app, "f");
    assert!(header(&mut app).contains("[showing open conflicts]"));
    let mut seen = vec![selected_key(&app)];
    for _ in 0..5 {
        press(&mut app, "j");
        seen.push(selected_key(&app));
        press(&mut app, "k");
        seen.push(selected_key(&app));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen, ["clearer-error", "debug-logs"]);
    press(&mut app, "f");
    assert!(!header(&mut app).contains("[showing"));
}

#[test]
fn accepting_every_verified_change_asks_with_the_count_and_leaves_conflicts_open() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    select(&mut app, "log-load");
    press(&mut app, "r");
    press(&mut app, "V");
    let shown = screen(&mut app, 120, 30);
    assert!(
        shown.contains("6 undecided change(s) verify as they are and would be accepted"),
        "{shown}"
    );
    press(&mut app, "n");
    assert!(header(&mut app).contains("1/9 decided"));
    press(&mut app, "V");
    press(&mut app, "y");
    let top = header(&mut app);
    assert!(top.contains("7/9 decided ✔ 6 ✎ 0 ✘ 1"), "{top}");
    assert!(top.contains("⚠ 2 open conflict(s)"), "{top}");
    assert_eq!(
        app.message.as_ref().unwrap().text,
        "accepted 6 verified change(s)"
    );
    // Once: nothing left to accept, and the key is no longer offered.
    press(&mut app, "V");
    assert!(app
        .message
        .as_ref()
        .unwrap()
        .text
        .contains("nothing to accept"));
    press(&mut app, "u");
    assert!(
        header(&mut app).contains("1/9 decided"),
        "one undo takes the whole step back"
    );
}

#[test]
fn the_filter_starts_from_where_the_person_is_and_deciding_keeps_to_it() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    select(&mut app, "drop-demo-add");
    press(&mut app, "ff"); // open conflicts: the next one on is debug-logs, not clearer-error
    assert_eq!(selected_key(&app), "debug-logs");
    press(&mut app, "ff"); // every change, then the undecided
    select(&mut app, "log-load");
    press(&mut app, "f"); // open conflicts again: from log-load, clearer-error is next
    assert_eq!(selected_key(&app), "clearer-error");
    press(&mut app, "m"); // resolved: on to the next open conflict, not to drop-demo-add
    assert_eq!(selected_key(&app), "debug-logs");
}

#[test]
fn the_last_file_says_so_and_undoing_v_comes_back_where_it_was() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    press(&mut app, "G");
    press(&mut app, "]");
    assert_eq!(app.message.as_ref().unwrap().text, "this is the last file");
    select(&mut app, "todo-crlf");
    press(&mut app, "Vy");
    press(&mut app, "g");
    press(&mut app, "u");
    assert_eq!(selected_key(&app), "todo-crlf");
}

#[test]
fn the_help_names_the_keys_of_placing_and_of_accepting_every_verified_change() {
    let ws = sample_workspace();
    let mut app = open_demo(ws.path());
    press(&mut app, "?");
    let mut text = String::new();
    for _ in 0..10 {
        text.push_str(&screen(&mut app, 120, 40));
        press(&mut app, " ");
    }
    assert!(
        text.contains("Placing a change (digits type a line)"),
        "{text}"
    );
    assert!(text.contains("Accepting every verified change"), "{text}");
}
