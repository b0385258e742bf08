//! The glyphs that carry state without colour, so the screen reads under `NO_COLOR` and on a
//! monochrome terminal: every decision and every conflict has its own character.

use crate::model::{MatchTier, Stance};
use crate::review::{At, Decision, Review};
use crate::tui::theme::Styles;
use crate::verify::{Placed, Status};
use ratatui::style::Style;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Glyph {
    Undecided,
    Accepted,
    Rejected,
    Edited,
    Conflict,
    Invalid,
    Relocated,
    Tolerant,
    /// A note: something to know that blocks nothing.
    Note,
    /// Applied already: its lines stand in the file.
    Applied,
    Ok,
}

impl Glyph {
    pub fn symbol(self) -> &'static str {
        match self {
            Glyph::Undecided => "·",
            Glyph::Accepted => "✔",
            Glyph::Rejected => "✘",
            Glyph::Edited => "✎",
            Glyph::Conflict => "⚠",
            Glyph::Invalid => "✖",
            Glyph::Relocated => "↷",
            Glyph::Tolerant => "≈",
            Glyph::Note => "ℹ",
            Glyph::Applied => "≡",
            Glyph::Ok => " ",
        }
    }

    /// The style this glyph is drawn in.
    pub fn style(self, styles: &Styles) -> Style {
        match self {
            Glyph::Undecided => styles.undecided,
            Glyph::Accepted => styles.accepted,
            Glyph::Rejected => styles.rejected,
            Glyph::Edited => styles.edited,
            Glyph::Conflict | Glyph::Invalid => styles.conflict,
            Glyph::Relocated | Glyph::Tolerant | Glyph::Note => styles.warning,
            Glyph::Applied => styles.accepted,
            Glyph::Ok => styles.text,
        }
    }

    /// A word for the same state, for titles and help.
    pub fn word(self) -> &'static str {
        match self {
            Glyph::Undecided => "undecided",
            Glyph::Accepted => "accepted",
            Glyph::Rejected => "rejected",
            Glyph::Edited => "edited",
            Glyph::Conflict => "conflict",
            Glyph::Invalid => "invalid",
            Glyph::Relocated => "resolved",
            Glyph::Tolerant => "tolerant match",
            Glyph::Note => "note",
            Glyph::Applied => "applied already",
            Glyph::Ok => "verified",
        }
    }
}

impl Glyph {
    /// [`Glyph::word`] for a change of a batch of `stance`: of the work tree's changes
    /// (`--worktree`), an accepted one is kept, a rejected one undone, an undecided one left
    /// as the agent wrote it until decided.
    pub fn word_for(self, stance: Stance) -> &'static str {
        match (stance, self) {
            (Stance::Standing, Glyph::Accepted) => "kept",
            (Stance::Standing, Glyph::Rejected) => "undone",
            (Stance::Standing, Glyph::Edited) => "kept as edited",
            _ => self.word(),
        }
    }
}

pub fn decision_glyph(decision: &Decision) -> Glyph {
    match decision {
        Decision::Undecided => Glyph::Undecided,
        Decision::Accept => Glyph::Accepted,
        Decision::Reject => Glyph::Rejected,
        Decision::Edit(_) => Glyph::Edited,
    }
}

/// The decision glyph and the state glyph of change `at`, the state as the commit sees it
/// (the review's rules): applied already; an open conflict (its own lines, or its file's
/// SHA-256 or state, not overridden); a conflict resolved (moved, placed, or written over the
/// lines on disk); a tolerant match. A rejected conflict is no longer open: it shows its
/// rejection alone.
pub fn change_glyphs(review: &Review, at: At) -> (Glyph, Glyph) {
    let view = review.change(at);
    let decision = decision_glyph(review.decisions().get(&view.change.id));
    let status = if view.check.placed == Placed::Applied {
        Glyph::Applied
    } else if review.open_conflict(at) {
        match view.check.status {
            Status::Invalid => Glyph::Invalid,
            _ => Glyph::Conflict,
        }
    } else if view.check.status != Status::Ok {
        match review.decisions().get(&view.change.id) {
            Decision::Reject | Decision::Undecided => Glyph::Ok,
            _ => Glyph::Relocated,
        }
    } else if view.change.match_tier != MatchTier::Exact {
        Glyph::Tolerant
    } else {
        Glyph::Ok
    };
    (decision, status)
}
