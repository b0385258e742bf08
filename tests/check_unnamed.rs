//! `check -q` answers with its exit status alone, so it loads a batch without IDs
//! (`LoadOptions::change_ids`): neither the SHA-256 of every change's lines nor the input's is
//! computed. Nothing else may differ: on every batch of every format we have (the sample
//! batches, and every real commit of the corpus in each of its formats, on its base, drift and
//! stale workspaces), the changes, the verification and what blocks the commit are exactly
//! those of a named load, each file patch still has an ID of its own, and the command's exit
//! status is the one `check` gives.

use crate::common::{corpus, each_sample_batch, patchdeck};
use patchdeck::formats::{Input, LoadOptions};
use patchdeck::model::Batch;
use patchdeck::pipeline;
use patchdeck::review::Decisions;
use patchdeck::verify::Checked;
use patchdeck::workspace::{Release, Workspace};
use std::path::Path;
use std::process::Output;

/// `batch` loaded and checked in `root` as `check` loads it, with or without change IDs, and
/// whether the input was hashed.
fn load(root: &Path, batch: &Path, change_ids: bool) -> Result<(Checked, bool), String> {
    let workspace = Workspace::open(root).unwrap();
    workspace.release_files(Release {
        sha256: false,
        commit: false,
    });
    let input = Input::read(batch.to_str().unwrap()).map_err(|e| e.to_string())?;
    let options = LoadOptions {
        max_tokens: None,
        change_ids,
        ..LoadOptions::default()
    };
    let checked = pipeline::load_with(&workspace, &input, &options).map_err(|e| e.to_string())?;
    Ok((checked, input.is_hashed()))
}

/// Every field of every change but its ID.
fn changes_without_ids(batch: &Batch) -> Vec<String> {
    batch
        .files
        .iter()
        .flat_map(|file| &file.changes)
        .map(|change| {
            let mut change = change.clone();
            change.id = patchdeck::model::ChangeId::unnamed();
            format!("{change:?}")
        })
        .collect()
}

/// What blocks a commit of every change, with the change IDs taken out of it (a blocker of an
/// unnamed change names no ID) and each file patch's ID put as its place (an unnamed load's
/// file IDs are not derived from the input).
fn blockers(checked: &Checked) -> Vec<String> {
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    let files = &checked.batch.files;
    plan.blockers
        .iter()
        .map(|b| {
            let id = b.change.as_ref().map_or("", |id| id.as_str());
            let unnamed = |text: &str| {
                let mut text = match id {
                    "" => text.to_owned(),
                    id => text.replace(id, ""),
                };
                for (at, file) in files.iter().enumerate() {
                    text = text.replace(file.id.as_str(), &format!("<file patch {at}>"));
                }
                text
            };
            format!(
                "{:?} file {} of a change {} {:?} {} / {} / {:?} {}",
                b.kind,
                b.file,
                b.change.is_some(),
                b.status,
                unnamed(&b.message),
                unnamed(&b.cli_hint),
                b.remedy,
                b.restates_problem
            )
        })
        .collect()
}

/// Loads `batch` with and without change IDs and says what differs.
fn same_answer(root: &Path, batch: &Path) {
    let named = load(root, batch, true);
    let unnamed = load(root, batch, false);
    let (named, (unnamed, hashed)) = match (named, unnamed) {
        (Ok((named, _)), Ok(unnamed)) => (named, unnamed),
        (Err(a), Err(b)) => return assert_eq!(a, b, "{}: errors differ", batch.display()),
        (named, unnamed) => panic!(
            "{}: a named load gave {:?}, an unnamed one {:?}",
            batch.display(),
            named.err(),
            unnamed.err()
        ),
    };
    let shown = batch.display();
    // The work is skipped: a change has no ID unless its format names it as it is read
    // (TUL-002, which checks its changes' IDs against the ones the batch gives).
    let tul002 = unnamed.batch.format == "tul002";
    for change in unnamed.batch.files.iter().flat_map(|f| &f.changes) {
        assert_eq!(
            change.id.as_str().is_empty(),
            !tul002,
            "{shown}: {change:?}"
        );
    }
    // Nor is the input hashed, outside TUL-002: the batch has no ID and no content hash, and
    // its file patches keep IDs of their own (a batch keys its files by them).
    assert_eq!(unnamed.batch.id.as_str().is_empty(), !tul002, "{shown}");
    assert_eq!(unnamed.batch.content_sha256.is_empty(), !tul002, "{shown}");
    // Only a JSON object may be TUL-002, whose contract needs the hash: it is hashed beside
    // the format's detection, in case. Any other input is not hashed at all.
    let json = std::fs::read(batch)
        .unwrap()
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        == Some(&b'{');
    assert!(!tul002 || hashed, "{shown}: TUL-002 needs its input's hash");
    assert!(json || !hashed, "{shown}: the input was hashed");
    if tul002 {
        assert_eq!(unnamed.batch.id, named.batch.id, "{shown}");
        assert_eq!(
            unnamed.batch.content_sha256, named.batch.content_sha256,
            "{shown}"
        );
    }
    let ids: std::collections::BTreeSet<_> = unnamed.batch.files.iter().map(|f| &f.id).collect();
    assert_eq!(
        ids.len(),
        unnamed.batch.files.len(),
        "{shown}: file IDs repeat"
    );
    assert_eq!(
        changes_without_ids(&unnamed.batch),
        changes_without_ids(&named.batch),
        "{shown}: the changes differ"
    );
    assert_eq!(
        format!("{:?}", unnamed.verification),
        format!("{:?}", named.verification),
        "{shown}: the verifications differ"
    );
    assert_eq!(
        blockers(&unnamed),
        blockers(&named),
        "{shown}: what blocks the commit differs"
    );
}

/// `patchdeck check` of `batch` in `root`, then `patchdeck check -q`.
fn check_loud_and_quiet(root: &Path, batch: &Path) -> (Output, Output) {
    let run = |quiet: bool| {
        let mut args = vec!["check", "--root", root.to_str().unwrap()];
        if quiet {
            args.push("-q");
        }
        args.push(batch.to_str().unwrap());
        patchdeck(&args)
    };
    (run(false), run(true))
}

#[test]
fn every_sample_batch_checks_the_same_without_change_ids() {
    each_sample_batch(same_answer);
}

#[test]
fn every_real_commit_checks_the_same_without_change_ids_in_every_format() {
    corpus::each_batch(same_answer);
}

#[test]
fn check_quiet_exits_as_check_does_on_every_sample_batch() {
    let mut statuses = std::collections::BTreeSet::new();
    each_sample_batch(|root, path| {
        let (loud, quiet) = check_loud_and_quiet(root, path);
        assert_eq!(
            quiet.status.code(),
            loud.status.code(),
            "{}: check -q and check exit differently",
            path.display()
        );
        assert!(quiet.stdout.is_empty(), "{}", path.display());
        statuses.insert(quiet.status.code());
    });
    // The samples hold clean batches, conflicts and invalid input: each exit status is seen.
    assert!(statuses.len() >= 3, "exit statuses seen: {statuses:?}");
}

/// A chat answer's TUL-002 block names its own `filePatchId`. Were an unnamed load's file IDs
/// seeded from nothing, an answer could give one the ID its structured block's file gets, and
/// the loader would take that file's pinned SHA-256 for the other: `check -q` would then find
/// a conflict `check` does not. The IDs such an answer could aim at (seeded from nothing, or
/// by the named scheme from nothing) are tried; each must leave `check -q` answering as
/// `check` does.
#[test]
fn a_chat_answer_cannot_name_its_way_onto_an_unnamed_file_id() {
    use crate::common::{sha, workspace_with};
    use patchdeck::model::IdDeriver;
    let a = b"alpha\nbeta\n";
    let b = b"one\ntwo\n";
    let ws = workspace_with(&[("a.txt", a), ("b.txt", b)]);
    let aimed = [
        IdDeriver::seeded(String::new()).file_id(0, "a.txt"),
        IdDeriver::seeded(String::new()).file_id(1, "b.txt"),
        IdDeriver::new(b"").file_id(0, "a.txt"),
    ];
    for id in aimed {
        let answer = format!(
            r#"The structured fix:

```json
{{"root": ".", "patches": [{{"path": "a.txt", "replacements": [{{"find": "beta", "replace": "BETA"}}]}}]}}
```

And the line batch:

```json
{{"files": [{{"filePatchId": "{id}", "docPath": "b.txt", "originalSha256": "{sha}", "changes": [{{"operation": "replace", "startLine": 2, "endLine": 2, "expectedOriginalLines": ["two"], "newLines": ["TWO"]}}]}}]}}
```
"#,
            sha = sha(b)
        );
        let path = ws.path().join("answer.md");
        std::fs::write(&path, answer).unwrap();
        let (loud, quiet) = check_loud_and_quiet(ws.path(), &path);
        assert_eq!(
            loud.status.code(),
            Some(0),
            "the answer is clean: {}",
            String::from_utf8_lossy(&loud.stdout)
        );
        assert_eq!(quiet.status.code(), Some(0), "check -q with {id} aimed at");
    }
}
