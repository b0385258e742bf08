//! The reviewer's words for what the core decided or refused, and for the ways out of a
//! conflict, built from the key map in effect: with `move = "M"` configured, every hint says
//! `M`, never the default `m`. Every sentence that names a key is made here.

use super::keys::{Action, KeyMap, Mode};
use crate::review::rules::Stuck;
use crate::review::{At, FileOverride, Refusal, Review, Way};

/// Words for one key map.
pub struct Words<'a> {
    keymap: &'a KeyMap,
}

/// What was asked, for a refusal's first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Accept,
    Edit,
    TakeOver,
    Relocate,
    Override,
    Place,
}

impl<'a> Words<'a> {
    pub fn new(keymap: &'a KeyMap) -> Words<'a> {
        Words { keymap }
    }

    /// The key of a reviewing action, as the footer names it (`?` when it has none).
    pub fn key(&self, action: Action) -> String {
        self.keymap
            .key_for(Mode::Browse, action)
            .map_or_else(|| "?".to_owned(), |k| k.label())
    }

    /// A way out of a conflict, as a hint: `e edits it over the lines on disk`.
    pub fn way(&self, way: Way) -> String {
        match way {
            Way::Edit => format!("{} edits it over the lines on disk", self.key(Action::Edit)),
            Way::TakeOver => format!(
                "{} writes its proposal as it is over them",
                self.key(Action::TakeOver)
            ),
            Way::Relocate { to } => format!(
                "{} moves it to line {to}, where its expected lines are",
                self.key(Action::Relocate)
            ),
            Way::Place { candidates } => match candidates {
                0 => format!(
                    "{} places it at the line you type",
                    self.key(Action::Place)
                ),
                n => format!(
                    "{} places it at one of the {n} places its expected lines stand, or a line you type",
                    self.key(Action::Place)
                ),
            },
            Way::Reject => format!("{} rejects it", self.key(Action::Reject)),
        }
    }

    /// The ways out, short, for a list: `e edits, m moves it to line 19, r rejects`.
    fn ways_short(&self, ways: &[Way]) -> String {
        let words: Vec<String> = ways
            .iter()
            .map(|way| match way {
                Way::Edit => format!("{} edits", self.key(Action::Edit)),
                Way::TakeOver => format!("{} takes its proposal", self.key(Action::TakeOver)),
                Way::Relocate { to } => {
                    format!("{} moves it to line {to}", self.key(Action::Relocate))
                }
                Way::Place { .. } => format!("{} places", self.key(Action::Place)),
                Way::Reject => format!("{} rejects", self.key(Action::Reject)),
            })
            .collect();
        words.join(", ")
    }

    /// A refusal in a sentence, with the keys that lead out of it.
    pub fn refusal(&self, asked: Asked, refusal: &Refusal, review: &Review) -> String {
        let verb = match asked {
            Asked::Accept => "accept",
            Asked::Edit => "edit",
            Asked::TakeOver => "take its proposal",
            Asked::Relocate => "move",
            Asked::Override => "override",
            Asked::Place => "place",
        };
        let reject = self.way(Way::Reject);
        match refusal {
            Refusal::FileBlocked { message, .. } => format!("cannot {verb}: {message}"),
            Refusal::Unplaced { places } => {
                format!("cannot {verb}: {}; {reject}", unplaced_reason(places))
            }
            Refusal::Invalid { why } => {
                format!("cannot {verb}: the change is invalid ({why}); {reject}")
            }
            Refusal::Conflict { ways } => {
                let (last, first) = ways.split_last().expect("rejecting is always a way");
                let first: Vec<String> = first.iter().map(|w| self.way(*w)).collect();
                let mut text = "conflict: this change cannot simply be accepted".to_owned();
                if !first.is_empty() {
                    text.push_str(&format!("; {}", first.join(", ")));
                }
                text.push_str(&format!(" (or {})", self.way(*last)));
                text
            }
            Refusal::Deletion => {
                "a file deletion is accepted or rejected as a whole; it has no lines to edit"
                    .to_owned()
            }
            Refusal::NotInFile => {
                format!("cannot edit: the change's lines are not in the file; {reject}")
            }
            Refusal::NoPlace { why } => format!(
                "{} moves a conflict to the one place its expected lines stand where the evidence supports it; this one has none ({why})",
                self.key(Action::Relocate)
            ),
            Refusal::NothingToTake => format!(
                "{} writes a conflict's proposal over the lines on disk at its place; this change is not such a conflict (or is resolved already)",
                self.key(Action::TakeOver)
            ),
            Refusal::NotThere { line } => format!(
                "cannot place it at line {line}: the lines it replaces do not stand there (or the file is shorter); {}",
                self.way(Way::Edit)
            ),
            Refusal::CannotPlace => format!(
                "cannot place it: it has no lines to look for; {}",
                self.way(Way::Reject)
            ),
            Refusal::NothingToOverride => format!(
                "{} overrides a SHA-256 mismatch, or writes over a file where the batch creates one; this file has neither",
                self.key(Action::OverrideSha)
            ),
            Refusal::Unresolved { changes } => {
                let each: Vec<String> = changes
                    .iter()
                    .map(|blocking| {
                        format!(
                            "{} ({}: {})",
                            change_name(review, blocking.at),
                            stuck_reason(blocking.stuck),
                            self.ways_short(&blocking.ways)
                        )
                    })
                    .collect();
                format!(
                    "cannot override: {} change(s) of this file would still not be written: {}",
                    changes.len(),
                    each.join("; ")
                )
            }
        }
    }

    /// What a batch already committed answers any decision.
    pub fn committed(&self) -> String {
        format!(
            "this batch is committed: decisions no longer change anything; {} quits (open the batch again to review the files as they are now)",
            self.key(Action::Quit)
        )
    }

    /// Said when every change is decided.
    pub fn all_decided(&self) -> String {
        format!(
            "every change is decided: {} shows what will be written",
            self.key(Action::CommitSummary)
        )
    }

    /// Said after accepting a change of a file that needs an override not made yet.
    pub fn accepted_before_override(&self, kind: FileOverride) -> String {
        let key = self.key(Action::OverrideSha);
        match kind {
            FileOverride::Sha => format!(
                "accepted, but this file's SHA-256 differs from the batch's: {key} overrides it, or the commit will stop"
            ),
            FileOverride::Overwrite => format!(
                "accepted, but a file exists where this one is created: {key} writes over it, or the commit will stop"
            ),
            FileOverride::HardLink => format!(
                "accepted, but this file has other hard links, which would keep the old content: {key} writes it anyway, or the commit will stop"
            ),
        }
    }

    /// Said when an edit saved the lines the change writes already (a conflict's is asked
    /// about instead: taking its proposal over the lines on disk).
    pub fn edit_unchanged(&self) -> String {
        "nothing changed: the edit is cancelled and the change is as it was".to_owned()
    }
}

/// The name a person knows a change by: `src/app.py#2 "log-load"`.
pub fn change_name(review: &Review, at: At) -> String {
    let view = review.change(at);
    let mut name = format!("{}#{}", view.path(), at.change + 1);
    if let Some(key) = &view.change.key {
        name.push_str(&format!(" \"{key}\""));
    }
    name
}

/// Why a change that could not be placed has no place: `found 191 times (at lines 12, 40, 77
/// and 188 more)`. At most the first few lines are named, so the diff is never pushed off.
pub fn unplaced_reason(places: &[usize]) -> String {
    const NAMED: usize = 3;
    if places.is_empty() {
        return "the lines this change replaces were not found in the file, so it has no place to apply".to_owned();
    }
    let named: Vec<String> = places.iter().take(NAMED).map(usize::to_string).collect();
    let more = places.len().saturating_sub(NAMED);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "the lines this change replaces occur {} times (at lines {}{rest}), so its place is ambiguous",
        places.len(),
        named.join(", ")
    )
}

fn stuck_reason(stuck: Stuck) -> &'static str {
    match stuck {
        Stuck::Unresolved {
            status: crate::verify::Status::Invalid,
            ..
        } => "invalid",
        Stuck::Unresolved { .. } => "its lines do not verify",
        Stuck::UnverifiedUnderOverride => {
            "an insertion: nothing confirms its place in a changed file"
        }
    }
}
