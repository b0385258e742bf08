//! The glyphs that carry state without colour, so the screen reads under `NO_COLOR` and on a
//! monochrome terminal: every decision and every conflict has its own character.

use crate::model::MatchTier;
use crate::review::{Decision, Decisions};
use crate::tui::theme::Styles;
use crate::verify::{ChangeCheck, Status};
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
            Glyph::Relocated | Glyph::Tolerant => styles.warning,
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
            Glyph::Relocated => "moved",
            Glyph::Tolerant => "tolerant match",
            Glyph::Ok => "verified",
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

/// The decision glyph and the verification glyph of a change.
pub fn change_glyphs(
    decisions: &Decisions,
    id: &crate::model::ChangeId,
    tier: MatchTier,
    check: &ChangeCheck,
) -> (Glyph, Glyph) {
    let decision = decision_glyph(decisions.get(id));
    let status = match check.status {
        Status::Conflict if decisions.relocated(id) => Glyph::Relocated,
        Status::Conflict => Glyph::Conflict,
        Status::Invalid => Glyph::Invalid,
        Status::Ok if tier != MatchTier::Exact => Glyph::Tolerant,
        Status::Ok => Glyph::Ok,
    };
    (decision, status)
}
