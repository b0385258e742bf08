//! Searching in the reviewer (`/`): the selection moves as the query is typed, `Esc` goes back
//! where it started, `n` goes on with the search before, and `Enter` on nothing typed runs the
//! last search again. (Its other tests, what it finds and when it wraps, are in `tui_state.rs`.)

use crate::common::reviewer::{message, open, press, selected_key, Open};
use crate::common::sample_workspace;
use patchdeck::tui::keys::Key;

#[test]
fn search_runs_as_it_is_typed_and_esc_goes_back() {
    let ws = sample_workspace();
    let mut app = open(ws.path(), Open::default());
    assert_eq!(selected_key(&app), "log-load");
    press(&mut app, "/valueerror");
    app.key(Key::Enter);
    assert_eq!(selected_key(&app), "validate-name");
    assert!(message(&app).contains("match 1 of 2"), "{}", message(&app));
    // A second search, typed: it moves before Enter, from where it started.
    press(&mut app, "/quiet");
    assert_eq!(selected_key(&app), "quiet-pip", "found before Enter");
    assert!(
        message(&app).contains("/quiet: match 1 of 1"),
        "{}",
        message(&app)
    );
    app.key(Key::Esc);
    assert_eq!(
        selected_key(&app),
        "validate-name",
        "Esc goes back where it started"
    );
    // ... with the search before it: n goes on with ValueError.
    press(&mut app, "n");
    assert_eq!(selected_key(&app), "clearer-error");
    // Enter on nothing typed runs the last search again, as vim does.
    press(&mut app, "/");
    app.key(Key::Enter);
    assert_eq!(
        selected_key(&app),
        "validate-name",
        "wrapped to the first match"
    );
}
