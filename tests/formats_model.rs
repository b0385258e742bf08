//! The model extensions formats rely on, at the library level: load-time problems become
//! verification problems, a copy reads its source, gained and lost final newlines and given
//! line endings are written, and two file patches never write one file.

use patchdeck::lines::Eol;
use patchdeck::model::{
    Batch, BatchId, Change, ChangeId, FileAction, FilePatch, FilePatchId, LineRange, LoadProblem,
    MatchTier, Operation,
};
use patchdeck::plan::{plan, WriteKind};
use patchdeck::problem::ProblemKind;
use patchdeck::review::Decisions;
use patchdeck::splice::{splice, Splice};
use patchdeck::verify::{verify, Status};
use patchdeck::workspace::Workspace;

fn change(id: &str, range: LineRange, expected: Option<&[&str]>, new: &[&str]) -> Change {
    Change {
        id: ChangeId(id.into()),
        key: None,
        description: None,
        operation: if range.count == 0 {
            Operation::Insert
        } else {
            Operation::Replace
        },
        range,
        expected: expected.map(|e| e.iter().map(|s| s.to_string()).collect()),
        new_lines: new.iter().map(|s| s.to_string()).collect(),
        match_tier: MatchTier::Exact,
        eof_newline: None,
        new_eols: None,
        load_problems: Vec::new(),
    }
}

fn file(id: &str, doc_path: &str, action: FileAction, changes: Vec<Change>) -> FilePatch {
    FilePatch {
        id: FilePatchId(id.into()),
        key: None,
        doc_path: doc_path.into(),
        label: None,
        action,
        expected_sha256: None,
        changes,
        copy_from: None,
        replaces: false,
        new_file_eol: None,
        mode: None,
        load_problems: Vec::new(),
    }
}

fn batch(files: Vec<FilePatch>) -> Batch {
    Batch {
        id: BatchId("b".into()),
        key: None,
        label: None,
        format: "test".into(),
        source: "-".into(),
        content_sha256: String::new(),
        files,
        warnings: Vec::new(),
        stance: Default::default(),
    }
}

#[test]
fn a_blocking_load_problem_is_a_conflict_and_a_note_is_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let mut placed_nowhere = change("c1", LineRange::after(0), None, &[]);
    placed_nowhere
        .load_problems
        .push(LoadProblem::conflict(ProblemKind::Ambiguous, "found twice"));
    let mut noted = change("c2", LineRange::inclusive(2, 2), Some(&["two"]), &["TWO"]);
    noted
        .load_problems
        .push(LoadProblem::note(ProblemKind::Offset, "moved by 1"));
    let b = batch(vec![file(
        "f",
        "a.txt",
        FileAction::Modify,
        vec![placed_nowhere, noted],
    )]);
    let v = verify(&b, &Workspace::open(dir.path()).unwrap());
    assert_eq!(v.files[0].changes[0].status, Status::Conflict);
    assert_eq!(
        v.files[0].changes[0].problems[0].kind,
        ProblemKind::Ambiguous
    );
    assert_eq!(v.files[0].changes[1].status, Status::Ok);
    assert!(!v.files[0].changes[1].problems[0].blocking);
    // Rejecting the unplaced change lets the other one through.
    let others = b.changes().map(|(_, c)| c.id.clone());
    let d = Decisions::accepting(&b, others.filter(|id| id.as_str() != "c1"));
    let p = plan(&b, &v, &d);
    assert!(!p.is_blocked(), "{:?}", p.blockers);
    assert_eq!(p.writes[0].after, b"one\nTWO\n");
}

#[test]
fn a_copy_reads_its_source_and_a_missing_source_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("src.txt"), "a\nb\n").unwrap();
    let mut copy = file(
        "f",
        "dst.txt",
        FileAction::Create,
        vec![change(
            "c",
            LineRange::inclusive(2, 2),
            Some(&["b"]),
            &["B"],
        )],
    );
    copy.copy_from = Some("src.txt".into());
    let mut orphan = file(
        "g",
        "other.txt",
        FileAction::Create,
        vec![change("d", LineRange::after(0), None, &[])],
    );
    orphan.copy_from = Some("nowhere.txt".into());
    let b = batch(vec![copy, orphan]);
    let v = verify(&b, &Workspace::open(dir.path()).unwrap());
    assert_eq!(v.files[0].status, Status::Ok);
    assert_eq!(v.files[1].problems[0].kind, ProblemKind::MissingFile);
    let others = b.changes().map(|(_, c)| c.id.clone());
    let d = Decisions::accepting(&b, others.filter(|id| id.as_str() != "d"));
    let p = plan(&b, &v, &d);
    assert_eq!(p.writes[0].kind, WriteKind::Create);
    assert!(
        p.writes[0].before.is_none(),
        "the commit checks the target does not exist"
    );
    assert_eq!(p.writes[0].after, b"a\nB\n");
}

#[test]
fn two_file_patches_writing_one_file_block_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let b = batch(vec![
        file(
            "f1",
            "a.txt",
            FileAction::Modify,
            vec![change(
                "c1",
                LineRange::inclusive(1, 1),
                Some(&["x"]),
                &["y"],
            )],
        ),
        file(
            "f2",
            "A.txt",
            FileAction::Modify,
            vec![change(
                "c2",
                LineRange::inclusive(1, 1),
                Some(&["x"]),
                &["z"],
            )],
        ),
    ]);
    let v = verify(&b, &Workspace::open(dir.path()).unwrap());
    let p = plan(&b, &v, &Decisions::accept_all(&b));
    assert!(p.is_blocked());
    assert!(
        p.blockers[0].message.contains("file patches 1 and 2"),
        "{:?}",
        p.blockers
    );
}

#[test]
fn overlapping_changes_block_the_plan_without_talk_of_a_relocation_that_did_not_happen() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\ny\nz\n").unwrap();
    let b = batch(vec![file(
        "f1",
        "a.txt",
        FileAction::Modify,
        vec![
            change(
                "c1",
                LineRange::inclusive(1, 2),
                Some(&["x", "y"]),
                &["X", "y"],
            ),
            change(
                "c2",
                LineRange::inclusive(2, 3),
                Some(&["y", "z"]),
                &["y", "Z"],
            ),
        ],
    )]);
    let v = verify(&b, &Workspace::open(dir.path()).unwrap());
    let p = plan(&b, &v, &Decisions::accept_all(&b));
    assert_eq!(
        p.blockers[0].message,
        "a.txt: change c2 (lines 2-3) overlaps change c1 (lines 1-2)"
    );
}

#[test]
fn splices_gain_or_lose_the_final_newline_and_keep_given_endings() {
    let lines = |v: &[&str]| {
        v.iter()
            .copied()
            .collect::<patchdeck::text_lines::TextLines>()
    };
    let b = lines(&["b"]);
    let gain = Splice {
        final_newline: Some(true),
        ..Splice::new(LineRange::inclusive(2, 2), &b)
    };
    assert_eq!(splice(b"a\nb", &[gain]), b"a\nb\n");
    let lose = Splice {
        final_newline: Some(false),
        ..Splice::new(LineRange::inclusive(2, 2), &b)
    };
    assert_eq!(splice(b"a\nb\n", &[lose]), b"a\nb");
    let new = lines(&["x", "y"]);
    let eols = [Eol::CrLf, Eol::Lf];
    let given = Splice {
        new_eols: Some(&eols),
        ..Splice::new(LineRange::inclusive(1, 1), &new)
    };
    assert_eq!(splice(b"a\nb\n", &[given]), b"x\r\ny\nb\n");
    // Unchanged context lines at the edges keep their own endings in a mixed file.
    let ctx = lines(&["a", "B", "c"]);
    assert_eq!(
        splice(
            b"a\r\nb\nc\r\n",
            &[Splice::new(LineRange::inclusive(1, 3), &ctx)]
        ),
        b"a\r\nB\r\nc\r\n"
    );
}

/// A batch's `content_sha256` is the SHA-256 of its input's bytes, whichever format read it
/// (the derived IDs are seeded with the same hash, which is computed once).
#[test]
fn content_sha256_is_the_hash_of_the_input_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(dir.path()).unwrap();
    for sample in [
        "clean.json",
        "unified-clean.patch",
        "edits-clean.json",
        "aider-clean.md",
    ] {
        let path = format!("{}/sample-batches/{sample}", env!("CARGO_MANIFEST_DIR"));
        let input = patchdeck::formats::Input::read(&path).unwrap();
        let batch = patchdeck::formats::load(&input, None, &workspace).unwrap();
        assert_eq!(
            batch.content_sha256,
            patchdeck::model::sha256_hex(input.bytes()),
            "{sample}"
        );
    }
}

/// Derived IDs are what saved decisions name (a session, `apply --decisions FILE`), so a
/// batch read again, by this build or a later one, gets the IDs it got before. These are the
/// IDs patchdeck gave the sample batches when the IDs began to be derived on every core, after
/// the batch is read, instead of one by one as each change was read: the first and last change
/// of each, in every format that derives them.
#[test]
fn derived_ids_are_the_ids_earlier_builds_gave() {
    let root = format!("{}/sample-batches/workspace", env!("CARGO_MANIFEST_DIR"));
    let workspace = Workspace::open(std::path::Path::new(&root)).unwrap();
    for (sample, count, first, last) in [
        (
            "unified-clean.patch",
            6,
            "chg-038de08436f41c15",
            "chg-c7e378d6cfa2f8e0",
        ),
        (
            "codex-clean.patch",
            5,
            "chg-a47e3eadd14ed1e1",
            "chg-95ca82c44f122a9f",
        ),
        (
            "edits-clean.json",
            5,
            "chg-9348ccb185ed3098",
            "chg-3b19d4b3b479cfd2",
        ),
        (
            "aider-clean.md",
            3,
            "chg-a127e9608d6f3caf",
            "chg-20bf4798d22b5a30",
        ),
        (
            "clean.json",
            9,
            "chg-cfd5f4758b193496",
            "chg-3a4c9c72f3d5d117",
        ),
        (
            "structured-clean.json",
            4,
            "chg-073af6e9db5999c0",
            "chg-17b7428ba4639923",
        ),
        (
            "bundle-clean.json",
            4,
            "chg-63d902386f26b53b",
            "chg-4d52c7d128850144",
        ),
        (
            "markdown-clean.md",
            2,
            "chg-1126c536fe8a4c48",
            "chg-07961ded67c7defb",
        ),
    ] {
        let path = format!("{}/sample-batches/{sample}", env!("CARGO_MANIFEST_DIR"));
        let input = patchdeck::formats::Input::read(&path).unwrap();
        let batch = patchdeck::formats::load(&input, None, &workspace).unwrap();
        let ids: Vec<&str> = batch
            .files
            .iter()
            .flat_map(|f| f.changes.iter().map(|c| c.id.as_str()))
            .collect();
        assert_eq!(
            (ids.len(), ids[0], ids[ids.len() - 1]),
            (count, first, last),
            "{sample}"
        );
    }
}

/// A copy of a file whose earlier section does not apply starts from that section's changes,
/// which it cannot compose with its own: they keep the IDs they have in the earlier file patch
/// (as earlier builds gave them), and only the copy's own hunk gets an ID of its own.
#[test]
fn a_copy_that_cannot_compose_keeps_the_earlier_change_ids() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let diff = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n\
diff --git a/a.txt b/b.txt\nsimilarity index 90%\ncopy from a.txt\ncopy to b.txt\n--- a/a.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+3\n";
    let workspace = Workspace::open(dir.path()).unwrap();
    let input = patchdeck::formats::Input::from_bytes("d.diff", diff.as_bytes().to_vec());
    let batch = patchdeck::formats::load(&input, None, &workspace).unwrap();
    let ids: Vec<(&str, Vec<&str>)> = batch
        .files
        .iter()
        .map(|f| {
            (
                f.doc_path.as_str(),
                f.changes.iter().map(|c| c.id.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("a.txt", vec!["chg-5adcad3dd7883a52"]),
            (
                "b.txt",
                vec!["chg-5adcad3dd7883a52", "chg-04b7160336ce8ae5"]
            ),
        ]
    );
}
