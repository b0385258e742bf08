//! Review decisions: what the person (or the command line) decided for each change.
//!
//! A [`Decisions`] maps change IDs to accept, reject or an edited replacement, and records the
//! explicit overrides a person allowed (writing a file whose SHA-256 differs, moving a change to
//! where its expected lines were found). The same structure is saved as a session by the
//! reviewer and read by `apply --decisions`. Selectors (`--only`, `--reject`) are resolved here.

use crate::error::{Error, Result};
use crate::model::{Batch, ChangeId, FilePatchId};
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
        let mut decisions = Decisions::undecided(batch);
        for (_, change) in batch.changes() {
            decisions
                .decisions
                .insert(change.id.clone(), Decision::Accept);
        }
        decisions
    }

    pub fn get(&self, id: &ChangeId) -> &Decision {
        static UNDECIDED: Decision = Decision::Undecided;
        self.decisions.get(id).unwrap_or(&UNDECIDED)
    }

    pub fn set(&mut self, id: ChangeId, decision: Decision) {
        if decision == Decision::Undecided {
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
        let bytes = std::fs::read(path)
            .map_err(|e| Error::usage(format!("cannot read decisions file {path}: {e}")))?;
        let decisions: Decisions = serde_json::from_slice(&bytes).map_err(|e| Error::Usage {
            message: format!("{path}:{}:{}: not a decisions file: {e}", e.line(), e.column()),
            hint: Some(
                "a decisions file is written by the reviewer, or by hand as {\"decisions\": {\"CHANGE-ID\": \"accept\"}}"
                    .into(),
            ),
        })?;
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

/// Resolves a selector to the changes it names.
///
/// A selector is tried, in order, as: a changeId; a filePatchId (all its changes);
/// `FILEKEY/CHANGEKEY`; `PATH#N` (the N-th change of that file, from 1); a changeKey; a fileKey
/// or a docPath (all its changes). The first kind that matches wins. Naming nothing, or a
/// changeKey that several files use, is an error.
pub fn select(batch: &Batch, selector: &str) -> Result<Vec<ChangeId>> {
    let ids = |file: &crate::model::FilePatch| -> Vec<ChangeId> {
        file.changes.iter().map(|c| c.id.clone()).collect()
    };
    if let Some((_, change)) = batch.changes().find(|(_, c)| c.id.as_str() == selector) {
        return Ok(vec![change.id.clone()]);
    }
    if let Some(file) = batch.files.iter().find(|f| f.id.as_str() == selector) {
        return Ok(ids(file));
    }
    if let Some((file_key, change_key)) = selector.split_once('/') {
        let found: Vec<ChangeId> = batch
            .changes()
            .filter(|(f, c)| {
                f.key.as_deref() == Some(file_key) && c.key.as_deref() == Some(change_key)
            })
            .map(|(_, c)| c.id.clone())
            .collect();
        if !found.is_empty() {
            return Ok(found);
        }
    }
    if let Some((path, n)) = selector.rsplit_once('#') {
        if let Ok(n) = n.parse::<usize>() {
            if let Some(file) = batch
                .files
                .iter()
                .find(|f| f.doc_path == path || f.key.as_deref() == Some(path))
            {
                return match n.checked_sub(1).and_then(|i| file.changes.get(i)) {
                    Some(change) => Ok(vec![change.id.clone()]),
                    None => Err(Error::usage(format!(
                        "selector \"{selector}\": {path} has {} change(s), numbered from 1",
                        file.changes.len()
                    ))),
                };
            }
        }
    }
    let by_key: Vec<(&str, ChangeId)> = batch
        .changes()
        .filter(|(_, c)| c.key.as_deref() == Some(selector))
        .map(|(f, c)| (f.doc_path.as_str(), c.id.clone()))
        .collect();
    match by_key.len() {
        0 => {}
        1 => return Ok(vec![by_key[0].1.clone()]),
        _ => {
            let places: Vec<&str> = by_key.iter().map(|(p, _)| *p).collect();
            return Err(Error::Usage {
                message: format!(
                    "selector \"{selector}\" is a changeKey used in several files: {}",
                    places.join(", ")
                ),
                hint: Some("name one with FILEKEY/CHANGEKEY, PATH#N or its changeId".into()),
            });
        }
    }
    if let Some(file) = batch
        .files
        .iter()
        .find(|f| f.key.as_deref() == Some(selector) || f.doc_path == selector)
    {
        return Ok(ids(file));
    }
    Err(Error::Usage {
        message: format!("selector \"{selector}\" names no change in this batch"),
        hint: Some(
            "a selector is a changeId, changeKey, FILEKEY/CHANGEKEY, PATH#N, fileKey or docPath; `patchdeck check INPUT` lists them"
                .into(),
        ),
    })
}
