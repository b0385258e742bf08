//! `patchdeck checkpoint`: record the work tree as it is now, so that `--worktree` later shows
//! only what changed since.

use super::{output, Ctx};
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::git::worktree::{not_a_work_tree, Repo, KEPT};

#[derive(Args, Debug)]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub workspace: super::RootArg,
    /// Print the checkpoint as one JSON object: {"ref", "commit", "made", "pruned"} [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CheckpointArgs, ctx: &Ctx) -> Result<i32, Error> {
    let repo =
        Repo::open(&args.workspace.root).map_err(|_| not_a_work_tree(&args.workspace.root))?;
    let checkpoint = repo.checkpoint()?;
    if let Some(warning) = repo.checkpoints().warning() {
        output::eprintln(format!("patchdeck: warning: {warning}"));
    }
    let commit = repo.resolve(&checkpoint.name).unwrap_or_default();
    if ctx.quiet {
        return Ok(exit::OK);
    }
    if args.json {
        output::println(
            serde_json::json!({
                "ref": checkpoint.name,
                "commit": commit,
                "made": checkpoint.made,
                "pruned": checkpoint.pruned,
            })
            .to_string(),
        )?;
        return Ok(exit::OK);
    }
    let short = &commit[..commit.len().min(12)];
    let text = match checkpoint.made {
        true => format!(
            "checkpoint {} ({short}): the work tree as it is now",
            checkpoint.name
        ),
        false => format!(
            "checkpoint {} ({short}) already records the work tree as it is now",
            checkpoint.name
        ),
    };
    output::println(text)?;
    if checkpoint.pruned > 0 {
        output::println(format!(
            "removed {} older checkpoint(s): the last {KEPT} are kept",
            checkpoint.pruned
        ))?;
    }
    Ok(exit::OK)
}
