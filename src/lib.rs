//! patchdeck's core: from a batch of model-written patches to an atomic commit.
//!
//! The path of a batch: [`formats`] parses an input into the one [`model`]; [`workspace`]
//! resolves each file under the root; [`verify`] checks SHA-256 and expected lines and records
//! what it finds as data, each [`problem`] of a kind; [`review`] holds the decisions and the
//! rules of what may be decided; [`plan`] computes every new file in memory; [`commit`] writes
//! them all or none; [`report`] and [`diff_writer`] say what happened. [`pipeline`] strings
//! these together for the two clients, the CLI and the reviewer; [`preview`] and [`session`]
//! give the reviewer its diffs and saved decisions as plain data. Only `tui`, the reviewer
//! itself, draws on a terminal, and it is behind the `tui` feature: the core builds without
//! any terminal crate. `mcp`, the server coding agents write through, is the third client, behind
//! the `mcp` feature: the core builds without an async runtime. [`config`] merges the user's file and environment once; [`git`] asks git
//! which target files have uncommitted changes and stages what was written.
//!
//! [`feedback`] tells the model that wrote a batch what failed and what is really there, and
//! [`export`] gives a batch as decided, rebased on the files now: the command line and the
//! reviewer ask both of a checked batch and its decisions.

pub mod bounded;
pub mod checksum;
pub mod commit;
pub mod config;
pub mod content;
pub mod diff_writer;
pub mod error;
pub mod export;
pub mod failpoint;
pub mod feedback;
pub mod formats;
pub mod fs;
pub mod generated;
pub mod git;
pub mod json;
pub mod line_diff;
pub mod lines;
pub mod loading;
pub mod locate;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
pub mod newlines;
pub mod parallel;
pub mod pipeline;
pub mod plan;
pub mod preview;
pub mod problem;
pub mod report;
pub mod review;
pub mod session;
pub mod sha256;
pub mod splice;
pub mod state;
pub mod text_lines;
#[cfg(feature = "tui")]
pub mod tui;
pub mod verify;
pub mod workspace;
pub mod worktree;
