//! The integration tests, one binary: each file beside this one is a module of it, sharing the
//! helpers in `common/` (workspaces, the real binary, the corpus of real commits, the reviewer
//! in process and the real binary in a pseudo-terminal). One binary links once, where 25 took
//! most of a cold `cargo test`; `cargo test --test integration NAME` runs a module or a test.

mod common;

mod already_applied;
mod architecture;
mod batch_limits;
mod check_releases;
mod check_unnamed;
mod cli;
mod cli_help;
mod commit_atomicity;
mod commit_edges;
mod commit_last_moment;
mod commit_races;
mod commit_reshape;
mod commit_staging;
mod configuration;
mod core_boundary;
mod corpus;
mod demo;
mod dialect_edges;
mod dialects;
mod export;
mod false_claims;
mod feedback;
mod formats_aider_rules;
mod formats_codex_markers;
mod formats_corpus;
mod formats_crlf_finds;
mod formats_detect;
mod formats_json;
mod formats_matcher_property;
mod formats_model;
mod formats_readme;
mod formats_text;
mod formats_unified;
mod formats_unified_modes;
mod formats_unified_property;
mod formats_unified_strict;
mod fuzz_crashers;
mod generated_files;
mod git_integration;
mod git_stage_undo;
mod handback;
mod hashing;
mod hostile_input;
mod hostile_state;
mod key_remapping;
mod kill_random;
#[cfg(feature = "mcp")]
mod mcp;
mod output_flags;
mod overwrite;
mod place;
mod planted;
mod properties;
mod readme;
mod reapply;
mod relocation;
mod resolution_paths;
mod review_rules;
mod tui_conflicts;
mod tui_e2e;
mod tui_layout;
mod tui_loading;
mod tui_messages;
mod tui_render;
mod tui_search;
mod tui_state;
mod tui_summary;
mod tul002_rules;
mod undo;
mod verify_conflicts;
mod what_is_left;
