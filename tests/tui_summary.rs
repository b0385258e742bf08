//! The commit summary of a large batch: it opens on the counts that fit in a key's time and
//! fills in the rest between keys; a commit confirmed before every count is made writes the
//! same bytes as one confirmed after. In process, step by step, and in the real binary, with
//! the `count` failpoint making each step of counting take long.

use crate::common::reviewer::{open_input, press};
use crate::common::sha;
use crate::common::terminal::Terminal;
use patchdeck::tui::app::{App, Outcome, Overlay};
use patchdeck::tui::keys::Mode;
use patchdeck::tui::summary::{Summary, STEP};
use std::path::Path;
use std::time::Duration;

/// Files in the batch: more than three steps of counting.
const FILES: usize = 200;

/// The original of file `i`: a few lines, the second of which the batch replaces.
fn original(i: usize) -> String {
    format!("head {i}\nold {i}\ntail {i}\n")
}

/// What file `i` becomes: its second line replaced by `1 + i % 3` new lines, so that files
/// count differently.
fn new_lines(i: usize) -> Vec<String> {
    (0..=i % 3).map(|n| format!("new {i}.{n}")).collect()
}

/// What the batch makes of file `i`.
fn written(i: usize) -> String {
    let new: String = new_lines(i).iter().map(|l| format!("{l}\n")).collect();
    format!("head {i}\n{new}tail {i}\n")
}

fn name(i: usize) -> String {
    format!("src/f{i:03}.txt")
}

/// A workspace of [`FILES`] files under `root` and a TUL-002 batch over them.
fn workspace_and_batch(root: &Path) -> Vec<u8> {
    let mut files = Vec::new();
    for i in 0..FILES {
        let path = root.join(name(i));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, original(i)).unwrap();
        files.push(serde_json::json!({
            "docPath": name(i),
            "originalSha256": sha(original(i).as_bytes()),
            "changes": [{"operation": "replace", "startLine": 2, "endLine": 2,
                         "expectedOriginalLines": [format!("old {i}")],
                         "newLines": new_lines(i)}],
        }));
    }
    serde_json::json!({ "files": files })
        .to_string()
        .into_bytes()
}

/// The reviewer on the batch with every change accepted.
fn accepted(root: &Path) -> App {
    let batch = workspace_and_batch(root);
    let mut app = open_input(root, "many.json", &batch);
    press(&mut app, "Vy");
    assert_eq!(
        app.review().decisions().decided().len(),
        FILES,
        "every change accepted"
    );
    app
}

/// The summary's line for file `i`, counted.
fn counted_line(i: usize) -> String {
    format!(
        "write  {}  1 of 1 change(s)  +{} -1",
        name(i),
        new_lines(i).len()
    )
}

fn texts(summary: &Summary) -> Vec<String> {
    summary.lines.iter().map(|l| l.text.clone()).collect()
}

#[test]
fn a_large_summary_opens_on_its_first_counts_and_counts_the_rest_in_steps() {
    let dir = tempfile::tempdir().unwrap();
    let app = accepted(dir.path());
    // Opening counts one step: the first 64 writes.
    let mut summary = Summary::open(app.review(), &app.words());
    let lines = texts(&summary);
    assert_eq!(
        lines[0],
        format!(
            "{FILES} file(s) to write: {FILES} modified  {FILES} change(s)  counting lines: 64 of {FILES} file(s)"
        )
    );
    for i in 0..FILES {
        let expected = match i < 64 {
            true => counted_line(i),
            false => format!("write  {}  1 of 1 change(s)", name(i)),
        };
        assert_eq!(lines[1 + i], expected, "file {i}");
    }
    assert!(summary.counting());
    let mut steps = 1;
    while summary.counting() {
        summary.count_more(app.review(), Duration::ZERO);
        steps += 1;
    }
    assert_eq!(steps, FILES.div_ceil(64), "one step of 64 writes at a time");
    // Counted in steps, it says what a summary counted at once says.
    let mut whole = Summary::open(app.review(), &app.words());
    whole.count_more(app.review(), Duration::MAX);
    assert!(!whole.counting(), "counted at once, given the time");
    assert_eq!(texts(&summary), texts(&whole));
    let added: usize = (0..FILES).map(|i| new_lines(i).len()).sum();
    assert_eq!(
        texts(&whole)[0],
        format!("{FILES} file(s) to write: {FILES} modified  {FILES} change(s)  +{added} -{FILES}")
    );
    for i in 0..FILES {
        assert_eq!(texts(&whole)[1 + i], counted_line(i), "file {i}");
    }
}

#[test]
fn keys_act_on_a_summary_still_counting_and_the_loop_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = accepted(dir.path());
    let summary = Summary::open(app.review(), &app.words());
    app.overlay = Some(Overlay::CommitSummary(summary));
    assert!(app.summary_counting());
    press(&mut app, "jj");
    assert_eq!(app.mode(), Mode::CommitSummary);
    assert_eq!(
        app.overlay.as_ref().unwrap().scroll(),
        2,
        "it scrolls as it counts"
    );
    while app.summary_counting() {
        app.count_summary(Duration::ZERO);
    }
    assert_eq!(
        app.overlay.as_ref().unwrap().scroll(),
        2,
        "counting keeps the place"
    );
    assert_eq!(
        app.summary_lines()[1 + FILES - 1].text,
        counted_line(FILES - 1)
    );
    // Closed, nothing is left counting.
    press(&mut app, "n");
    assert!(!app.summary_counting());
    assert_eq!(app.mode(), Mode::Browse);
}

#[test]
fn a_commit_confirmed_while_the_summary_counts_writes_every_accepted_change() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = accepted(dir.path());
    let summary = Summary::open(app.review(), &app.words());
    assert!(summary.counting());
    app.overlay = Some(Overlay::CommitSummary(summary));
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Committed);
    assert!(app.committed());
    for i in 0..FILES {
        let on_disk = std::fs::read_to_string(dir.path().join(name(i))).unwrap();
        assert_eq!(on_disk, written(i), "file {i}");
    }
}

/// The real binary on the batch, with `failpoint` armed.
fn real_reviewer(home: &Path, root: &Path, failpoint: &str) -> Terminal {
    let path = home.join("many.json");
    std::fs::write(&path, workspace_and_batch(root)).unwrap();
    Terminal::review_armed(home, root, &path, failpoint)
}

#[test]
fn the_real_reviewer_shows_the_summary_at_once_and_fills_in_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // The summary opens on one group of writes counted; the next, the first between keys,
    // stops the process until the test has read the screen.
    let mut term = real_reviewer(home.path(), dir.path(), "count:2=stop");
    accept_every_change(&mut term);
    term.keys(&["c"]);
    term.while_stopped(|term| {
        let opened = term.wait_for(&format!("counting lines: 64 of {FILES} file(s)"));
        assert!(opened.contains(&counted_line(0)), "{opened}");
    });
    let added: usize = (0..FILES).map(|i| new_lines(i).len()).sum();
    let whole = term.wait_for(&format!("change(s)  +{added} -{FILES}"));
    assert!(!whole.contains("counting lines"), "{whole}");
    term.keys(&["G"]);
    term.wait_for(&counted_line(FILES - 1));
    term.keys(&["n", "q"]);
    assert_eq!(term.wait_exit().0, 0);
    let untouched = std::fs::read_to_string(dir.path().join(name(0))).unwrap();
    assert_eq!(untouched, original(0));
}

#[test]
fn the_real_reviewer_commits_when_told_to_before_the_counts_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // The first group of writes counted between keys stops the process, and the next would
    // kill it: `y`, typed while it is stopped, is read as soon as that step is done, before
    // another group is counted.
    let mut term = real_reviewer(home.path(), dir.path(), "count:2=stop,count:3=kill");
    accept_every_change(&mut term);
    term.keys(&["c"]);
    term.while_stopped(|term| {
        term.wait_for(&format!("counting lines: 64 of {FILES} file(s)"));
        term.keys(&["y"]);
        term.wait_typed_arrived();
        // Stopped for longer than a step may take, the step ends with that group.
        std::thread::sleep(2 * STEP);
    });
    let done = term.wait_for("Committed");
    assert!(
        done.contains(&format!("wrote {FILES} file(s): {FILES} modified")),
        "{done}"
    );
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    let last = std::fs::read_to_string(dir.path().join(name(FILES - 1))).unwrap();
    assert_eq!(last, written(FILES - 1));
}

/// Accepts every change in the real reviewer, once it shows the batch.
fn accept_every_change(term: &mut Terminal) {
    term.wait_for(&format!("0/{FILES} decided"));
    term.keys(&["V"]);
    term.wait_for("undecided change(s) verify");
    term.keys(&["y"]);
    term.wait_for(&format!("{FILES}/{FILES} decided"));
}

/// A TUL-002 batch of one replacement per file, over files written under `root`: each
/// `(name, text, line, expected, new)`.
fn small_batch(root: &Path, files: &[(&str, &str, usize, &str, &str)]) -> Vec<u8> {
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|&(name, text, line, expected, new)| {
            std::fs::write(root.join(name), text).unwrap();
            serde_json::json!({
                "docPath": name,
                "originalSha256": sha(text.as_bytes()),
                "changes": [{"operation": "replace", "startLine": line, "endLine": line,
                             "expectedOriginalLines": [expected], "newLines": [new]}],
            })
        })
        .collect();
    serde_json::json!({ "files": files })
        .to_string()
        .into_bytes()
}

#[test]
fn a_write_that_changes_nothing_is_left_out_though_its_file_changed_since_the_review_began() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // `a.txt`'s change puts back the very line it replaces; `b.txt`'s changes it.
    let batch = small_batch(
        root,
        &[
            ("a.txt", "a1\na2\n", 2, "a2", "a2"),
            ("b.txt", "b1\nb2\n", 2, "b2", "B2"),
        ],
    );
    let mut app = open_input(root, "batch.json", &batch);
    press(&mut app, "Vy");
    press(&mut app, "c");
    assert_eq!(app.mode(), Mode::CommitSummary);
    // Another program edits `a.txt`: the commit has nothing to write there, so it writes
    // `b.txt` and leaves `a.txt` as that program left it.
    std::fs::write(root.join("a.txt"), "a1\na2 edited elsewhere\n").unwrap();
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Committed, "{:?}", app.message);
    assert_eq!(
        std::fs::read_to_string(root.join("b.txt")).unwrap(),
        "b1\nB2\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "a1\na2 edited elsewhere\n"
    );
}

#[test]
fn an_edit_over_the_lines_on_disk_that_keeps_them_writes_nothing_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // The change expects `cX` where the file has `c2`: a conflict, edited over the lines on
    // disk into those same lines.
    let batch = small_batch(root, &[("c.txt", "c1\nc2\n", 2, "cX", "cN")]);
    let mut app = open_input(root, "batch.json", &batch);
    app.finish_edit(0, Ok("-c2\n+c2\n".to_owned()));
    assert!(app
        .review()
        .decisions()
        .edited_over(&app.change(0).change.id)
        .is_some());
    press(&mut app, "c");
    press(&mut app, "y");
    assert_eq!(app.mode(), Mode::Committed);
    match &app.outcome {
        Some(Outcome::Written { committed, .. }) => {
            assert!(committed.written.is_empty(), "{:?}", committed.written)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(root.join("c.txt")).unwrap(),
        "c1\nc2\n"
    );
    let entries: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["c.txt"], "not even patchdeck's folder is made");
}
