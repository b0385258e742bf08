//! The reviewer on the work tree (`patchdeck review --worktree`), the real binary in a
//! pseudo-terminal over a real git repository: one of the agent's changes kept, one undone,
//! one edited, committed to the bytes, and `undo` bringing the agent's version back; a file
//! the agent writes while the review is open is caught, and nothing is written over it.

use crate::common::reviewer::editor_script;
use crate::common::terminal::Terminal;
use crate::worktree::{numbered, write, Repo};
use std::fs;

/// A repository checkpointed on `c.txt` of 30 lines, then three lines of it changed by the
/// agent, far enough apart to be three changes.
fn three_edits() -> (Repo, String) {
    let repo = Repo::new(&[("c.txt", &numbered(30, "c"))]);
    assert_eq!(repo.run(&["checkpoint", "-q"]).status.code(), Some(0));
    let agent = numbered(30, "c")
        .replace("c 2\n", "c 2 by the agent\n")
        .replace("c 15\n", "c 15 by the agent\n")
        .replace("c 28\n", "c 28 by the agent\n");
    write(repo.path(), "c.txt", &agent);
    (repo, agent)
}

fn review(repo: &Repo, editor: &str) -> Terminal {
    Terminal::start(
        repo.home.path(),
        &[
            "review",
            "--worktree",
            "--root",
            repo.path().to_str().unwrap(),
        ],
        &[
            ("EDITOR", editor),
            ("NO_COLOR", "1"),
            ("GIT_CONFIG_NOSYSTEM", "1"),
        ],
    )
}

#[test]
fn the_reviewer_keeps_undoes_and_edits_the_agents_changes_and_undo_brings_them_back() {
    let (repo, agent) = three_edits();
    let editor = editor_script(
        repo.home.path(),
        "edit.sh",
        "sed -i 's/^+c 28 by the agent$/+c 28 as the person wants it/' \"$1\"",
    );
    let mut term = review(&repo, &editor);
    let first = term.wait_for("1/3");
    assert!(first.contains("c 2 by the agent"), "{first}");
    term.keys(&["a"]); // keep the first
    term.wait_for("2/3");
    term.keys(&["r"]); // undo the second
    term.wait_for("3/3");
    term.keys(&["e"]); // edit the third
    term.wait_for("kept as edited");
    term.keys(&["c"]);
    let summary = term.wait_for("Commit: all of these, or nothing");
    assert!(
        summary.contains("wrote c.txt: undid 1 of the agent's change(s), kept 1 as edited"),
        "{summary}"
    );
    term.keys(&["y"]);
    term.wait_for("Committed");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);

    let now = numbered(30, "c")
        .replace("c 2\n", "c 2 by the agent\n")
        .replace("c 28\n", "c 28 as the person wants it\n");
    assert_eq!(repo.read("c.txt"), now);
    let out = repo.run(&["undo"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        repo.read("c.txt"),
        agent,
        "undo brings the agent's version back"
    );
}

#[test]
fn a_file_the_agent_writes_during_the_review_is_caught_and_not_written_over() {
    let (repo, agent) = three_edits();
    let mut term = review(&repo, "true");
    term.wait_for("1/3");
    term.keys(&["r"]); // undo the first
    term.wait_for("2/3");
    // The agent is still at work.
    let later = agent.replace("c 20\n", "c 20 written meanwhile\n");
    fs::write(repo.path().join("c.txt"), &later).unwrap();
    term.keys(&["c"]);
    term.wait_for("Commit: all of these, or nothing");
    term.keys(&["y"]);
    let said = term.wait_for("A file changed on disk: nothing was written");
    assert!(said.contains("c.txt: it was edited since"), "{said}");
    assert_eq!(repo.read("c.txt"), later, "nothing was written over it");
    term.keys(&["n"]);
    term.wait_until("the question is gone", |s| {
        !s.contains("A file changed on disk")
    });
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    assert_eq!(repo.read("c.txt"), later);
}
