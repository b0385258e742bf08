//! Review decisions: what the person (or the command line) decided for each change, as data.
//!
//! A [`Decisions`] maps change IDs to accept, reject or an edited replacement, and records the
//! explicit overrides a person allowed (writing a file whose SHA-256 differs, moving a change to
//! where its expected lines were found). The same structure is saved as a session by the
//! reviewer and read by `apply --decisions`. Anyone may read it; only the `review` module
//! changes it (a [`super::Review`], the command line's selection, a loaded file), so the rules
//! of what may be decided hold for every client.

use crate::error::{Error, Result};
use crate::model::{Batch, ChangeId, FilePatchId, Stance};
use crate::text_lines::TextLines;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What was decided for one change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    #[default]
    Undecided,
    Accept,
    Reject,
    /// Accepted with these lines written instead of the change's own new lines.
    Edit(TextLines),
}

impl Decision {
    /// Whether the person said yes to the change (accepted it, or edited it). Whether that
    /// writes it depends on the batch's [`Stance`]: ask [`Decisions::writes`].
    pub fn is_accepted(&self) -> bool {
        matches!(self, Decision::Accept | Decision::Edit(_))
    }

    /// Whether a change of a batch of this stance is written when so decided: an accepted
    /// (or edited) proposal, an edit that stands rejected (its reversal written) or edited.
    pub fn writes(&self, stance: Stance) -> bool {
        match self {
            Decision::Edit(_) => true,
            Decision::Accept => stance.writes_accepted(),
            Decision::Reject => !stance.writes_accepted(),
            Decision::Undecided => false,
        }
    }
}

/// Every decision about a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decisions {
    /// Format version of a saved decisions file.
    #[serde(default = "current_version")]
    pub(super) version: u32,
    /// SHA-256 of the batch input these decisions were made on.
    #[serde(default)]
    pub(super) batch: String,
    /// Looked up for every change by every plan and summary: hashed (a lookup in a sorted map
    /// of 4,000 IDs compares a dozen of them), and saved in the IDs' order.
    #[serde(default, serialize_with = "in_order")]
    pub(super) decisions: HashMap<ChangeId, Decision>,
    /// Files whose SHA-256 mismatch the person chose to override.
    #[serde(default)]
    pub(super) sha_overrides: BTreeSet<FilePatchId>,
    /// Changes to apply where their expected lines were found instead of where they say.
    #[serde(default)]
    pub(super) relocate: BTreeSet<ChangeId>,
    /// Files with several hard links the person chose to write anyway (only this name gets the
    /// new content).
    #[serde(default)]
    pub(super) hard_link_overrides: BTreeSet<FilePatchId>,
    /// Changes the person placed at a line of their choosing (`"placements": {ID: LINE}`): the
    /// first line a replacement or deletion replaces, the line an insertion goes after (0 for
    /// the top). A replacement's expected lines must stand there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) placements: BTreeMap<ChangeId, usize>,
    /// Files the batch creates where a file exists, which the person chose to write over.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub(super) overwrites: BTreeSet<FilePatchId>,
    /// For an edited change whose expected lines conflict: the lines at its range that the
    /// person saw and chose to replace. The plan checks these instead of the batch's expected
    /// lines, so the edit applies only while the file still holds exactly them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) replaces: BTreeMap<ChangeId, Vec<String>>,
    /// What the person said of a change, for the model that wrote it (why it was rejected,
    /// most often): one line, sent with the change's outcome and in the feedback.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) notes: BTreeMap<ChangeId, String>,
    /// What the person said of the whole batch, for the model that wrote it: one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) note: Option<String>,
    /// The decision of every change `decisions` does not name: undecided, except for the
    /// decisions of a whole batch (`apply` accepts every change), which list no change, so a
    /// batch of a million changes does not hold a million more IDs. Never saved: a session and
    /// a decisions file name each change they decide.
    #[serde(skip)]
    otherwise: Decision,
    /// The stance of the batch these decisions are about, which says which decision writes a
    /// change: taken from the batch whenever decisions are made or read for one, never saved.
    #[serde(skip)]
    pub(super) stance: Stance,
}

/// A map saved with its keys in order, as a sorted map would be.
fn in_order<S: serde::Serializer, K: Ord + Serialize, V: Serialize>(
    map: &HashMap<K, V>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_map(map.iter().collect::<BTreeMap<_, _>>())
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
            stance: batch.stance,
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

    /// Only the changes `ids` accepted, every other undecided (`show` shows one change alone).
    pub fn accepting(batch: &Batch, ids: impl IntoIterator<Item = ChangeId>) -> Decisions {
        let mut decisions = Decisions::undecided(batch);
        for id in ids {
            decisions.set(id, Decision::Accept);
        }
        decisions
    }

    fn all(batch: &Batch, decision: Decision) -> Decisions {
        Decisions {
            otherwise: decision,
            ..Decisions::undecided(batch)
        }
    }

    /// These decisions, as made on `batch` (a session saved for an earlier version of it
    /// whose change IDs all still match).
    pub fn made_on(mut self, batch: &Batch) -> Decisions {
        self.batch = batch.content_sha256.clone();
        self.stance = batch.stance;
        self
    }

    /// The stance of the batch these decisions are about.
    pub fn stance(&self) -> Stance {
        self.stance
    }

    /// Whether a commit writes change `id` (see [`Decision::writes`]).
    pub fn writes(&self, id: &ChangeId) -> bool {
        self.get(id).writes(self.stance)
    }

    /// SHA-256 of the batch input these decisions were made on.
    pub fn batch_sha256(&self) -> &str {
        &self.batch
    }

    /// The changes decided one by one (a whole-batch decision lists none).
    pub fn decided(&self) -> &HashMap<ChangeId, Decision> {
        &self.decisions
    }

    /// The file patches written although their SHA-256 differs.
    pub fn sha_overrides(&self) -> &BTreeSet<FilePatchId> {
        &self.sha_overrides
    }

    /// The changes applied where their expected lines were found.
    pub fn relocations(&self) -> &BTreeSet<ChangeId> {
        &self.relocate
    }

    /// The edited changes that replace lines on disk other than their expected lines, with
    /// those lines.
    pub fn edits_over(&self) -> &BTreeMap<ChangeId, Vec<String>> {
        &self.replaces
    }

    /// Whether the person allowed writing file patch `id` although its SHA-256 differs.
    pub fn sha_overridden(&self, id: &FilePatchId) -> bool {
        self.sha_overrides.contains(id)
    }

    /// Whether the person allowed writing file patch `id` although it has other hard links.
    pub fn hard_link_overridden(&self, id: &FilePatchId) -> bool {
        self.hard_link_overrides.contains(id)
    }

    /// Whether the person allowed writing file patch `id`, which creates a file, over the file
    /// that exists there.
    pub fn overwrite_allowed(&self, id: &FilePatchId) -> bool {
        self.overwrites.contains(id)
    }

    /// The line the person placed change `id` at, if they did (see the field's meaning).
    pub fn placed_at(&self, id: &ChangeId) -> Option<usize> {
        self.placements.get(id).copied()
    }

    /// Every placement the person made.
    pub fn placements(&self) -> &BTreeMap<ChangeId, usize> {
        &self.placements
    }

    /// Whether change `id` is to be applied where its expected lines were found.
    pub fn relocated(&self, id: &ChangeId) -> bool {
        self.relocate.contains(id)
    }

    /// For an edited change whose expected lines conflict, the lines on disk it replaces.
    pub fn edited_over(&self, id: &ChangeId) -> Option<&[String]> {
        self.replaces.get(id).map(Vec::as_slice)
    }

    /// The person's note on a change, if they wrote one.
    pub fn note_on(&self, id: &ChangeId) -> Option<&str> {
        self.notes.get(id).map(String::as_str)
    }

    /// Every change's note, in the IDs' order.
    pub fn notes(&self) -> &BTreeMap<ChangeId, String> {
        &self.notes
    }

    /// The person's note on the whole batch, if they wrote one.
    pub fn batch_note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    pub fn get(&self, id: &ChangeId) -> &Decision {
        self.decisions.get(id).unwrap_or(&self.otherwise)
    }

    pub(super) fn set(&mut self, id: ChangeId, decision: Decision) {
        if decision == self.otherwise {
            self.decisions.remove(&id);
        } else {
            self.decisions.insert(id, decision);
        }
    }

    /// Allows every file's SHA mismatch (`--allow-sha-mismatch`).
    pub(super) fn override_all_shas(&mut self, batch: &Batch) {
        self.sha_overrides
            .extend(batch.files.iter().map(|f| f.id.clone()));
    }

    /// Writes files with several hard links (`--allow-hard-links`).
    pub(super) fn override_all_hard_links(&mut self, batch: &Batch) {
        self.hard_link_overrides
            .extend(batch.files.iter().map(|f| f.id.clone()));
    }

    /// Writes every created file over the one that exists (`--allow-overwrite`).
    pub(super) fn override_all_overwrites(&mut self, batch: &Batch) {
        self.overwrites
            .extend(batch.files.iter().map(|f| f.id.clone()));
    }

    /// Moves every change whose expected lines were found elsewhere (`--relocate`).
    pub(super) fn relocate_all(&mut self, batch: &Batch) {
        self.relocate
            .extend(batch.changes().map(|(_, c)| c.id.clone()));
    }

    /// The most a decisions file may hold: as large as a batch may be (it names at most every
    /// change), and a seal line.
    pub const MOST_BYTES: u64 = crate::formats::MAX_INPUT_BYTES as u64 + 16_384;

    /// Reads a saved decisions file and checks that it speaks of this batch's changes. A
    /// review session's file is one: named by a person, it is read whether or not its seal
    /// opens (the seal is what lets the reviewer resume it on its own).
    pub fn load(path: &str, batch: &Batch) -> Result<(Decisions, Vec<String>)> {
        let bytes = crate::bounded::read(std::path::Path::new(path), Self::MOST_BYTES).map_err(
            |cause| Error::ReadInput {
                source: format!("decisions file {path}"),
                cause,
            },
        )?;
        Self::parse(path, crate::state::seal::unsealed(&bytes), batch)
    }

    /// [`Decisions::load`] of the bytes of a decisions file, `path` naming it in errors.
    pub fn parse(path: &str, bytes: &[u8], batch: &Batch) -> Result<(Decisions, Vec<String>)> {
        let hint = || {
            Some(
                "a decisions file is written by the reviewer, or by hand as {\"decisions\": {\"CHANGE-ID\": \"accept\"}}"
                    .to_owned(),
            )
        };
        // Strictly first: a key written twice is an error, not "the last one wins".
        crate::json::parse_strict(bytes).map_err(|problem| Error::Usage {
            message: format!(
                "{path}: {}: not a decisions file: {}",
                problem.location, problem.message
            ),
            hint: hint(),
        })?;
        let mut decisions: Decisions = serde_json::from_slice(bytes).map_err(|e| Error::Usage {
            message: format!(
                "{path}:{}:{}: not a decisions file: {e}",
                e.line(),
                e.column()
            ),
            hint: hint(),
        })?;
        // In the IDs' order, as the file is saved, so each error reads the same every time.
        let mut decided: Vec<(&ChangeId, &Decision)> = decisions.decisions.iter().collect();
        decided.sort_unstable_by_key(|&(id, _)| id);
        let broken: Vec<String> = decided
            .iter()
            .filter_map(|&(id, d)| match d {
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
        decisions.stance = batch.stance;
        let long = (decisions.notes.iter())
            .map(|(id, note)| (crate::json::field_path("notes", id.as_str()), note))
            .chain(
                decisions
                    .note
                    .as_ref()
                    .map(|note| ("note".to_owned(), note)),
            )
            .find(|(_, note)| note_refusal(note).is_some());
        if let Some((at, note)) = long {
            return Err(Error::Usage {
                message: format!("{path}: {at}: {}", note_refusal(note).expect("found above")),
                hint: Some("a note is one line for the model: why, in a sentence".into()),
            });
        }
        let mut warnings = Vec::new();
        if !decisions.batch.is_empty() && decisions.batch != batch.content_sha256 {
            warnings.push(format!(
                "{path} was saved for a different version of this batch; its change IDs still match"
            ));
        }
        let unknown: Vec<&str> = decided
            .iter()
            .map(|&(id, _)| id)
            .chain(decisions.relocate.iter())
            .chain(decisions.placements.keys())
            .chain(decisions.replaces.keys())
            .chain(decisions.notes.keys())
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
            .chain(&decisions.overwrites)
            .find(|id| !batch.files.iter().any(|f| &f.id == *id))
        {
            return Err(Error::usage(format!(
                "{path} overrides a check of file patch {id}, which is not in this batch"
            )));
        }
        Ok((decisions, warnings))
    }
}

/// The most characters a note holds: a line, not a letter.
pub const NOTE_MOST_CHARS: usize = 1_000;

/// Why `note` cannot be a note, when it cannot: a line break in it, or more than
/// [`NOTE_MOST_CHARS`] characters.
pub fn note_refusal(note: &str) -> Option<String> {
    if note.contains(['\n', '\r']) {
        return Some("a note is one line, found a line break inside".to_owned());
    }
    let chars = note.chars().count();
    (chars > NOTE_MOST_CHARS)
        .then(|| format!("a note holds at most {NOTE_MOST_CHARS} characters, found {chars}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_saved_in_the_order_of_their_ids() {
        let mut decisions = Decisions::default();
        let ids: Vec<String> = (0..200)
            .map(|i| format!("chg-{:04x}", (i * 7919) % 200))
            .collect();
        for id in &ids {
            decisions.set(ChangeId(id.clone()), Decision::Accept);
        }
        let saved = serde_json::to_string(&decisions).unwrap();
        let mut sorted = ids.clone();
        sorted.sort();
        let at: Vec<usize> = sorted
            .iter()
            .map(|id| saved.find(id.as_str()).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{saved}");
        // Read back, it is the same decisions.
        let read: Decisions = serde_json::from_str(&saved).unwrap();
        assert_eq!(read, decisions);
    }
}
