//! Who waits for a review, when an agent sent the batch through `patchdeck gate`: the agent's
//! name, how many batches wait behind this one, and whether the agent still listens. The
//! header says all three, and quitting says what the agent will hear: the gate answers it
//! with what the review decided once the reviewer is gone.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The agent waiting for this review.
#[derive(Clone, Debug, Default)]
pub struct Caller {
    /// The agent, as its MCP client names itself.
    pub agent: String,
    /// The tool it called.
    pub tool: String,
    /// Batches waiting behind this one (kept by the gate).
    pub waiting: Arc<AtomicUsize>,
    /// Set when the agent stopped waiting (its call timed out, or it went away): it will not
    /// hear what is decided.
    pub gone: Arc<AtomicBool>,
}

impl Caller {
    /// The header's words: `from claude-code (workspace_write_patch) · 2 more waiting`.
    pub fn header(&self) -> String {
        let mut text = format!("from {} ({})", self.agent, self.tool);
        let waiting = self.waiting.load(Ordering::Relaxed);
        if waiting > 0 {
            text.push_str(&format!(" · {waiting} more waiting"));
        }
        text
    }

    /// Whether the agent stopped waiting.
    pub fn gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }

    /// What quitting without a commit asks, with `decided` decisions made.
    pub fn dismiss_question(&self, decided: usize) -> String {
        match self.gone() {
            true => format!(
                "Dismiss this batch and its {decided} decision(s)? Nothing is written; {} stopped waiting and hears nothing.",
                self.agent
            ),
            false => format!(
                "Dismiss this batch? Nothing is written; {} hears your {decided} decision(s) and notes.",
                self.agent
            ),
        }
    }
}
