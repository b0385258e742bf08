//! `patchdeck feedback`: what failed in a batch and what is really there, as a message for the
//! model that wrote it (Markdown), or as JSON for an agent. Writes nothing. `--last` prints the
//! feedback kept with the last commit of a work tree review: what the person undid, and why.

use super::apply::SelectArgs;
use super::{open, output, BatchArgs, Ctx};
use clap::Args;
use patchdeck::commit::history::KeptFeedback;
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
    /// Print the feedback kept with the last commit of a work tree review (`review --worktree`, `apply --worktree`): what was undone, the person's notes, the lines put back [default: off]
    #[arg(long, conflicts_with_all = ["input", "worktree"])]
    pub last: bool,
}

pub fn run(args: FeedbackArgs, ctx: &Ctx) -> Result<i32, Error> {
    if args.last {
        return last(&args, ctx);
    }
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

/// `--last`: the feedback the last commit kept, as it was when it was made.
fn last(args: &FeedbackArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = open(ctx, &args.batch.root, patchdeck::pipeline::Access::Read)?;
    let root = patchdeck::fs::beneath::Root::open(opened.workspace.root())
        .map_err(|e| Error::io("opening the workspace", e))?;
    let (kept, warning) = patchdeck::commit::history::last_feedback(&root, args.json)
        .map_err(|e| Error::io("reading the last commit's feedback", e))?;
    if let Some(warning) = warning {
        output::eprintln(format!("patchdeck: warning: {warning}"));
    }
    let mut text = match kept {
        Some(KeptFeedback {
            text: Some(text),
            label,
        }) => {
            // Which commit it is, for whoever would send the same message twice.
            if !ctx.quiet {
                output::eprintln(format!(
                    "patchdeck: the feedback kept with the last commit, \"{label}\""
                ));
            }
            text
        }
        Some(KeptFeedback { label, text: None }) => {
            return Err(Error::Usage {
                message: format!("the last commit (\"{label}\") kept no feedback"),
                hint: Some("feedback is kept with a commit of the work tree's changes (`review --worktree`, `apply --worktree`); for a batch, run `patchdeck feedback` on it".into()),
            })
        }
        None => {
            return Err(Error::Usage {
                message: "there is no commit to take feedback from".into(),
                hint: Some("after `patchdeck review --worktree` commits, `feedback --last` says what was undone".into()),
            })
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !ctx.quiet {
        output::print(text)?;
    }
    Ok(exit::OK)
}
