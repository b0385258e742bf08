//! `patchdeck recover`: roll back or finish a commit that was interrupted.

use super::output::{self, print, said};
use super::Ctx;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::pipeline;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct RecoverArgs {
    #[command(flatten)]
    pub workspace: super::RootArg,
    /// Print what was done as one JSON object: {"recovered", "finished", "restored", "removed"} [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: RecoverArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = super::open_quietly(ctx, &args.workspace.root, pipeline::Access::Write)?;
    if !ctx.quiet {
        for warning in &opened.warnings {
            output::eprintln(format!("patchdeck: warning: {warning}"));
        }
    }
    if args.json {
        let paths = |list: &[PathBuf]| -> Vec<String> {
            list.iter().map(|p| p.display().to_string()).collect()
        };
        let body = match &opened.recovered {
            Some(r) => serde_json::json!({
                "recovered": true,
                "finished": r.finished,
                "restored": paths(&r.restored),
                "removed": paths(&r.removed),
                "leftAlone": paths(&r.left_alone),
                "kept": paths(&r.kept),
                "warnings": opened.warnings,
            }),
            None => serde_json::json!({
                "recovered": false, "finished": false, "restored": [], "removed": [],
                "warnings": opened.warnings,
            }),
        };
        said(DONE, print(format!("{:#}\n", body)));
        return Ok(exit::OK);
    }
    if ctx.quiet {
        return Ok(exit::OK);
    }
    let text = match &opened.recovered {
        Some(recovery) => patchdeck::report::say::describe_recovery(recovery),
        None => format!(
            "nothing to recover: no interrupted commit under {}",
            opened.workspace.root().display()
        ),
    };
    // Recovery has acted on the files by now: failing to say so is not a failed recovery.
    said(DONE, print(text + "\n"));
    Ok(exit::OK)
}

const DONE: &str = "recovery is done";
