//! `check -q` answers with its exit status alone, so it loads a batch without change IDs
//! (`LoadOptions::change_ids`): the SHA-256 of every change's lines is not computed. Nothing
//! else may differ: on every batch of every format we have (the sample batches, and every real
//! commit of the corpus in each of its formats, on its base, drift and stale workspaces), the
//! changes, the verification and what blocks the commit are exactly those of a named load, and
//! the command's exit status is the one `check` gives.

use crate::common::{corpus, each_sample_batch, patchdeck};
use patchdeck::formats::{Input, LoadOptions};
use patchdeck::model::Batch;
use patchdeck::pipeline::{self, Checked};
use patchdeck::review::Decisions;
use patchdeck::workspace::{Release, Workspace};
use std::path::Path;

/// `batch` loaded and checked in `root` as `check` loads it, with or without change IDs.
fn load(root: &Path, batch: &Path, change_ids: bool) -> Result<Checked, String> {
    let workspace = Workspace::open(root).unwrap();
    workspace.release_files(Release { sha256: false });
    let input = Input::read(batch.to_str().unwrap()).map_err(|e| e.to_string())?;
    let options = LoadOptions {
        max_tokens: None,
        change_ids,
        ..LoadOptions::default()
    };
    pipeline::load_with(&workspace, &input, &options).map_err(|e| e.to_string())
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
/// unnamed change names no ID).
fn blockers(checked: &Checked) -> Vec<String> {
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    plan.blockers
        .iter()
        .map(|b| {
            let id = b.change.as_ref().map_or("", |id| id.as_str());
            let unnamed = |text: &str| match id {
                "" => text.to_owned(),
                id => text.replace(id, ""),
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
    let (named, unnamed) = match (named, unnamed) {
        (Ok(named), Ok(unnamed)) => (named, unnamed),
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
        let run = |quiet: bool| {
            let mut args = vec!["check", "--root", root.to_str().unwrap()];
            if quiet {
                args.push("-q");
            }
            args.push(path.to_str().unwrap());
            patchdeck(&args)
        };
        let (loud, quiet) = (run(false), run(true));
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
