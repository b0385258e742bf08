//! `patchdeck feedback`: what failed in a batch and what is really there, as a message for the
//! model that wrote it (Markdown), or as JSON for an agent. Writes nothing.

use super::apply::SelectArgs;
use super::{open, output, BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::feedback;

#[derive(Args, Debug)]
pub struct FeedbackArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the feedback as one JSON object [default: Markdown]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: FeedbackArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = open(ctx, &args.batch.root, patchdeck::pipeline::Access::Read)?;
    let checked = super::load_without_notes(ctx, &opened.workspace, &args.batch)?;
    let decisions = args.select.decisions(&checked)?;
    let feedback = feedback::message(&checked, &decisions);
    if ctx.quiet {
        return Ok(exit::OK);
    }
    if args.json {
        output::println(feedback.to_json())?;
    } else {
        output::print(feedback.to_markdown())?;
    }
    Ok(exit::OK)
}
