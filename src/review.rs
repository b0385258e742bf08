//! Review decisions: what the person (or the command line) decided for each change.
//!
//! A [`Decisions`] maps change IDs to accept, reject or an edited replacement, and records the
//! explicit overrides a person allowed (writing a file whose SHA-256 differs, moving a change to
//! where its expected lines were found). The same structure is saved as a session by the
//! reviewer and read by `apply --decisions`. Selectors (`--only`, `--reject`) are resolved here.

use crate::error::{Error, Result};
use crate::model::{Batch, ChangeId, FilePatchId};
use crate::verify::Verification;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What was decided for one change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    #[default]
    Undecided,
    Accept,
    Reject,
    /// Accepted with these lines written instead of the change's own new lines.
    Edit(Vec<String>),
}

impl Decision {
    /// Whether the change will be written.
    pub fn is_selected(&self) -> bool {
        matches!(self, Decision::Accept | Decision::Edit(_))
    }
}

/// Every decision about a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decisions {
    /// Format version of a saved decisions file.
    #[serde(default = "current_version")]
    pub version: u32,
    /// SHA-256 of the batch input these decisions were made on.
    #[serde(default)]
    pub batch: String,
    #[serde(default)]
    pub decisions: BTreeMap<ChangeId, Decision>,
    /// Files whose SHA-256 mismatch the person chose to override.
    #[serde(default)]
    pub sha_overrides: BTreeSet<FilePatchId>,
    /// Changes to apply where their expected lines were found instead of where they say.
    #[serde(default)]
    pub relocate: BTreeSet<ChangeId>,
    /// Files with several hard links the person chose to write anyway (only this name gets the
    /// new content).
    #[serde(default)]
    pub hard_link_overrides: BTreeSet<FilePatchId>,
    /// For an edited change whose expected lines conflict: the lines at its range that the
    /// person saw and chose to replace. The plan checks these instead of the batch's expected
    /// lines, so the edit applies only while the file still holds exactly them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub replaces: BTreeMap<ChangeId, Vec<String>>,
    /// The decision of every change `decisions` does not name: undecided, except for the
    /// decisions of a whole batch (`apply` accepts every change), which list no change, so a
    /// batch of a million changes does not hold a million more IDs. Never saved: a session and
    /// a decisions file name each change they decide.
    #[serde(skip)]
    otherwise: Decision,
}

fn current_version() -> u32 {
    1
}

impl Decisions {
    /// Nothing decided yet, for a batch.
    pub fn undecided(batch: &Batch) -> Decisions {
        Decisions {
            version: 1,
            batch: batch.content_sha256.clone(),
            ..Decisions::default()
        }
    }

    /// Every change accepted: what `apply` does without options.
    pub fn accept_all(batch: &Batch) -> Decisions {
        Decisions::all(batch, Decision::Accept)
    }

    /// Every change rejected: a commit of it writes nothing.
    pub fn reject_all(batch: &Batch) -> Decisions {
        Decisions::all(batch, Decision::Reject)
    }

    fn all(batch: &Batch, decision: Decision) -> Decisions {
        Decisions {
            otherwise: decision,
            ..Decisions::undecided(batch)
        }
    }

    pub fn get(&self, id: &ChangeId) -> &Decision {
        self.decisions.get(id).unwrap_or(&self.otherwise)
    }

    pub fn set(&mut self, id: ChangeId, decision: Decision) {
        if decision == self.otherwise {
            self.decisions.remove(&id);
        } else {
            self.decisions.insert(id, decision);
        }
    }

    /// Allows every file's SHA mismatch (`--allow-sha-mismatch`).
    pub fn override_all_shas(&mut self, batch: &Batch) {
        self.sha_overrides
            .extend(batch.files.iter().map(|f| f.id.clone()));
    }

    /// Writes files with several hard links (`--allow-hard-links`).
    pub fn override_all_hard_links(&mut self, batch: &Batch) {
        self.hard_link_overrides
            .extend(batch.files.iter().map(|f| f.id.clone()));
    }

    /// Moves every change whose expected lines were found elsewhere (`--relocate`).
    pub fn relocate_all(&mut self, batch: &Batch) {
        self.relocate
            .extend(batch.changes().map(|(_, c)| c.id.clone()));
    }

    /// Reads a saved decisions file and checks that it speaks of this batch's changes.
    pub fn load(path: &str, batch: &Batch) -> Result<(Decisions, Vec<String>)> {
        // As large as a batch may be, no larger: a decisions file names at most every change.
        let limit = crate::formats::MAX_INPUT_BYTES as u64;
        let bytes = crate::bounded::read(std::path::Path::new(path), limit)
            .map_err(|e| Error::usage(format!("cannot read decisions file {path}: {e}")))?;
        let hint = || {
            Some(
                "a decisions file is written by the reviewer, or by hand as {\"decisions\": {\"CHANGE-ID\": \"accept\"}}"
                    .to_owned(),
            )
        };
        // Strictly first: a key written twice is an error, not "the last one wins".
        crate::json::parse_strict(&bytes).map_err(|problem| Error::Usage {
            message: format!(
                "{path}: {}: not a decisions file: {}",
                problem.location, problem.message
            ),
            hint: hint(),
        })?;
        let decisions: Decisions = serde_json::from_slice(&bytes).map_err(|e| Error::Usage {
            message: format!(
                "{path}:{}:{}: not a decisions file: {e}",
                e.line(),
                e.column()
            ),
            hint: hint(),
        })?;
        let broken: Vec<String> = decisions
            .decisions
            .iter()
            .filter_map(|(id, d)| match d {
                Decision::Edit(lines) => Some((id, lines)),
                _ => None,
            })
            .flat_map(|(id, lines)| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|(_, line)| !crate::lines::is_one_line(line))
                    .map(move |(i, _)| {
                        let at = crate::json::field_path("decisions", id.as_str());
                        crate::json::index_path(&crate::json::field_path(&at, "edit"), i)
                    })
            })
            .collect();
        if !broken.is_empty() {
            return Err(Error::Usage {
                message: format!(
                    "{path}: {}: each edited line must be one line without its line ending, found a line break inside",
                    broken.join(", ")
                ),
                hint: Some("split the text into one array entry per line".into()),
            });
        }
        let mut warnings = Vec::new();
        if !decisions.batch.is_empty() && decisions.batch != batch.content_sha256 {
            warnings.push(format!(
                "{path} was saved for a different version of this batch; its change IDs still match"
            ));
        }
        let unknown: Vec<&str> = decisions
            .decisions
            .keys()
            .chain(decisions.relocate.iter())
            .chain(decisions.replaces.keys())
            .filter(|id| batch.find_change(id).is_none())
            .map(ChangeId::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(Error::Usage {
                message: format!(
                    "{path} names change IDs that are not in this batch: {}",
                    unknown.join(", ")
                ),
                hint: Some("`patchdeck check --json INPUT` lists the batch's change IDs".into()),
            });
        }
        if let Some(id) = decisions
            .sha_overrides
            .iter()
            .chain(&decisions.hard_link_overrides)
            .find(|id| !batch.files.iter().any(|f| &f.id == *id))
        {
            return Err(Error::usage(format!(
                "{path} overrides a check of file patch {id}, which is not in this batch"
            )));
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
    verification
        .files
        .get(file)
        .and_then(|f| f.resolved.as_ref())
        .map_or_else(
            || batch.files[file].doc_path.clone(),
            |r| r.rel().display().to_string(),
        )
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
