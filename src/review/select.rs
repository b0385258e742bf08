//! Selecting changes by name, as the command line does: the selectors `--only` and `--reject`
//! take (a changeId, changeKey, `FILEKEY/CHANGEKEY`, `PATH#N`, fileKey, filePatchId or path),
//! and the decisions a [`Selection`] of flags describes for a batch.

use super::decisions::{Decision, Decisions};
use crate::error::{Error, Result};
use crate::model::{Batch, ChangeId};
use crate::verify::Checked;
use crate::verify::Verification;
use std::collections::BTreeSet;

/// Which changes to write and which overrides to allow, as the command line's flags say it.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Selectors whose changes are not applied.
    pub reject: Vec<String>,
    /// Selectors of the only changes applied (with a decisions file: only those it accepts).
    pub only: Vec<String>,
    /// A decisions file to apply (undecided changes in it are not applied); without one,
    /// every change is accepted.
    pub decisions: Option<String>,
    pub relocate: bool,
    pub allow_sha_mismatch: bool,
    pub allow_hard_links: bool,
    pub allow_overwrite: bool,
}

impl Selection {
    /// The decisions these flags describe for a verified batch, and the warnings reading a
    /// decisions file gave.
    ///
    /// `--only` narrows: a change it does not name is rejected, and a change it names keeps
    /// the decision it has (accepted without `--decisions`; as the file says with it).
    /// `--reject` rejects what it names, over anything else. A `--only` selector that ends up
    /// applying nothing contradicts the rest and is an error naming what rejected its changes.
    pub fn decisions(&self, checked: &Checked) -> Result<(Decisions, Vec<String>)> {
        let batch = &checked.batch;
        let select = |selector: &str| select(batch, &checked.verification, selector);
        let (mut decisions, warnings) = match &self.decisions {
            Some(path) => Decisions::load(path, batch)?,
            None => (Decisions::accept_all(batch), Vec::new()),
        };
        let only: Vec<(&str, Vec<ChangeId>)> = self
            .only
            .iter()
            .map(|sel| select(sel).map(|ids| (sel.as_str(), ids)))
            .collect::<Result<_>>()?;
        let reject: Vec<(&str, Vec<ChangeId>)> = self
            .reject
            .iter()
            .map(|sel| select(sel).map(|ids| (sel.as_str(), ids)))
            .collect::<Result<_>>()?;
        if !only.is_empty() {
            let keep: BTreeSet<&ChangeId> = only.iter().flat_map(|(_, ids)| ids).collect();
            for (_, change) in batch.changes() {
                if !keep.contains(&change.id) {
                    decisions.set(change.id.clone(), Decision::Reject);
                }
            }
        }
        let from_file = decisions.clone();
        for (_, ids) in &reject {
            for id in ids {
                decisions.set(id.clone(), Decision::Reject);
            }
        }
        for (selector, ids) in &only {
            if ids.iter().any(|id| decisions.get(id).is_accepted()) {
                continue;
            }
            let mut why = Vec::new();
            let rejecting: Vec<String> = reject
                .iter()
                .filter(|(_, r)| r.iter().any(|id| ids.contains(id)))
                .map(|(sel, _)| format!("--reject \"{sel}\""))
                .collect();
            if !rejecting.is_empty() {
                why.push(format!("{} rejects it", rejecting.join(" and ")));
            }
            if let Some(path) = &self.decisions {
                let undecided = ids
                    .iter()
                    .any(|id| *from_file.get(id) == Decision::Undecided);
                let rejected = ids.iter().any(|id| *from_file.get(id) == Decision::Reject);
                let said = match (undecided, rejected) {
                    (true, true) => "rejects or leaves undecided",
                    (true, false) => "leaves undecided",
                    _ => "rejects",
                };
                if undecided || rejected {
                    why.push(format!("{path} {said} every change it names"));
                }
            }
            return Err(Error::Usage {
                message: format!(
                    "--only \"{selector}\" selects nothing to apply: {}",
                    why.join(", and ")
                ),
                hint: Some(
                    "with --decisions, --only applies only what the file accepts; accept the changes there, or drop the selector that rejects them"
                        .into(),
                ),
            });
        }
        if self.relocate {
            decisions.relocate_all(batch);
        }
        if self.allow_sha_mismatch {
            decisions.override_all_shas(batch);
        }
        if self.allow_hard_links {
            decisions.override_all_hard_links(batch);
        }
        if self.allow_overwrite {
            decisions.override_all_overwrites(batch);
        }
        Ok((decisions, warnings))
    }
}

/// What one kind of selector names: a whole file patch, or some changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    File(usize),
    Changes(Vec<(usize, usize)>),
}

impl Target {
    /// The (file, change) indexes named, in batch order.
    fn places(&self, batch: &Batch) -> Vec<(usize, usize)> {
        match self {
            Target::File(f) => (0..batch.files[*f].changes.len())
                .map(|c| (*f, c))
                .collect(),
            Target::Changes(places) => places.clone(),
        }
    }
}

/// The path a file patch is known by: its resolved path when verification found one.
fn shown_path<'a>(batch: &'a Batch, verification: &'a Verification, file: usize) -> String {
    match verification.files.get(file) {
        Some(check) => check.display_path(&batch.files[file]),
        None => batch.files[file].doc_path.clone(),
    }
}

/// Whether `name` names file patch `file` by path: its docPath, or the path it resolved to,
/// either one in any case (patchdeck prints the resolved path, `src/Utils.py`, for the
/// lowercase docPath `src/utils.py`).
fn names_path(batch: &Batch, verification: &Verification, file: usize, name: &str) -> bool {
    let lower = name.to_lowercase();
    batch.files[file].doc_path.to_lowercase() == lower
        || verification
            .files
            .get(file)
            .and_then(|f| f.resolved.as_ref())
            .is_some_and(|r| r.rel().to_string_lossy().to_lowercase() == lower)
}

/// How a selector reads: every kind of name it matches, with what it names there.
#[derive(Debug, Default)]
pub struct Readings {
    /// Each kind that names exactly one thing (a file patch, or changes).
    pub found: Vec<(&'static str, Target)>,
    /// Each kind that names several things: `changeKey "x" names notes.txt#1, notes.txt#3`.
    pub ambiguous: Vec<String>,
    /// `PATH#N` past the file's last change.
    pub out_of_range: Vec<String>,
}

/// Reads a selector every way it can be read. A selector may read several ways (a changeKey
/// that is also a fileKey); [`select`] requires them to agree.
pub fn readings(batch: &Batch, verification: &Verification, selector: &str) -> Readings {
    let mut readings = Readings::default();
    let mut kinds: Vec<(&'static str, Vec<Target>)> = Vec::new();
    let files = 0..batch.files.len();
    let changes_where = |keep: &dyn Fn(usize, usize) -> bool| -> Vec<Target> {
        batch
            .files
            .iter()
            .enumerate()
            .flat_map(|(f, file)| (0..file.changes.len()).map(move |c| (f, c)))
            .filter(|&(f, c)| keep(f, c))
            .map(|p| Target::Changes(vec![p]))
            .collect()
    };
    kinds.push((
        "changeId",
        changes_where(&|f, c| batch.files[f].changes[c].id.as_str() == selector),
    ));
    kinds.push((
        "filePatchId",
        files
            .clone()
            .filter(|&f| batch.files[f].id.as_str() == selector)
            .map(Target::File)
            .collect(),
    ));
    if let Some((file_key, change_key)) = selector.split_once('/') {
        kinds.push((
            "FILEKEY/CHANGEKEY",
            changes_where(&|f, c| {
                batch.files[f].key.as_deref() == Some(file_key)
                    && batch.files[f].changes[c].key.as_deref() == Some(change_key)
            }),
        ));
    }
    if let Some((path, n)) = selector.rsplit_once('#') {
        if let Ok(n) = n.parse::<usize>() {
            let mut targets = Vec::new();
            for f in files.clone().filter(|&f| {
                batch.files[f].key.as_deref() == Some(path)
                    || names_path(batch, verification, f, path)
            }) {
                match n
                    .checked_sub(1)
                    .filter(|&c| c < batch.files[f].changes.len())
                {
                    Some(c) => targets.push(Target::Changes(vec![(f, c)])),
                    None => readings.out_of_range.push(format!(
                        "{} has {} change(s), numbered from 1",
                        shown_path(batch, verification, f),
                        batch.files[f].changes.len()
                    )),
                }
            }
            kinds.push(("PATH#N", targets));
        }
    }
    kinds.push((
        "changeKey",
        changes_where(&|f, c| batch.files[f].changes[c].key.as_deref() == Some(selector)),
    ));
    kinds.push((
        "fileKey",
        files
            .clone()
            .filter(|&f| batch.files[f].key.as_deref() == Some(selector))
            .map(Target::File)
            .collect(),
    ));
    kinds.push((
        "path",
        files
            .filter(|&f| names_path(batch, verification, f, selector))
            .map(Target::File)
            .collect(),
    ));
    for (kind, mut targets) in kinds {
        match targets.len() {
            0 => {}
            1 => readings.found.push((kind, targets.pop().expect("one"))),
            n => {
                let names: Vec<String> = targets
                    .iter()
                    .map(|t| match t {
                        Target::File(f) => format!(
                            "{} ({})",
                            shown_path(batch, verification, *f),
                            batch.files[*f].id
                        ),
                        Target::Changes(places) => places_named(batch, verification, places),
                    })
                    .collect();
                let what = match targets[0] {
                    Target::File(_) => "file patches",
                    Target::Changes(_) => "changes",
                };
                readings.ambiguous.push(format!(
                    "as a {kind} it names {n} {what}: {}",
                    names.join(", ")
                ));
            }
        }
    }
    readings
}

/// `src/app.py#1, src/app.py#3`.
fn places_named(batch: &Batch, verification: &Verification, places: &[(usize, usize)]) -> String {
    places
        .iter()
        .map(|&(f, c)| format!("{}#{}", shown_path(batch, verification, f), c + 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves a selector to the changes it names.
///
/// A selector is a changeId; a filePatchId (all its changes); `FILEKEY/CHANGEKEY`; `PATH#N`
/// (the N-th change, from 1, of the file with that fileKey, docPath or resolved path); a
/// changeKey; a fileKey; or a docPath or resolved path (all the file's changes). Paths match
/// in any case. A selector that names nothing, that names several things of one kind (a
/// changeKey used twice), or that reads as two kinds naming different changes, is an error.
pub fn select(batch: &Batch, verification: &Verification, selector: &str) -> Result<Vec<ChangeId>> {
    let readings = readings(batch, verification, selector);
    if !readings.ambiguous.is_empty() {
        return Err(Error::Usage {
            message: format!(
                "selector \"{selector}\" is ambiguous: {}",
                readings.ambiguous.join("; ")
            ),
            hint: Some(
                "name one change by its changeId or PATH#N, a file by its filePatchId".into(),
            ),
        });
    }
    let Some((_, first)) = readings.found.first() else {
        if !readings.out_of_range.is_empty() {
            return Err(Error::usage(format!(
                "selector \"{selector}\": {}",
                readings.out_of_range.join("; ")
            )));
        }
        return Err(Error::Usage {
            message: format!("selector \"{selector}\" names no change in this batch"),
            hint: Some(
                "a selector is a changeId, changeKey, FILEKEY/CHANGEKEY, PATH#N, fileKey, filePatchId or path; `patchdeck check INPUT` lists them"
                    .into(),
            ),
        });
    };
    let places = first.places(batch);
    let differs = readings
        .found
        .iter()
        .any(|(_, t)| t.places(batch) != places);
    let disagree: Vec<String> = if differs {
        readings
            .found
            .iter()
            .map(|(kind, t)| {
                format!(
                    "as a {kind}, {}",
                    places_named(batch, verification, &t.places(batch))
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    if disagree.len() > 1 {
        return Err(Error::Usage {
            message: format!(
                "selector \"{selector}\" names different changes depending on how it is read: {}",
                disagree.join("; ")
            ),
            hint: Some("name the changes by changeId or PATH#N instead".into()),
        });
    }
    Ok(places
        .into_iter()
        .map(|(f, c)| batch.files[f].changes[c].id.clone())
        .collect())
}
