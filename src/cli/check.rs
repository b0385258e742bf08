//! `patchdeck check`: verify a batch and report, writing nothing.

use super::{open, output, paint, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::Error;
use patchdeck::report::{Interrupted, Report};
use patchdeck::review::Decisions;
use patchdeck::workspace::Release;

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Print the report as one JSON object [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CheckArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = open(ctx, &args.batch.root, patchdeck::pipeline::Access::Read)?;
    // Nothing is planned or written from what `check` reads, so no file is kept once checked:
    // only the JSON report's `actualSha256` needs something of it afterwards.
    opened.workspace.release_files(Release {
        sha256: args.json && !ctx.quiet,
    });
    let checked = super::load(ctx, &opened.workspace, &args.batch)?;
    // What a plain `apply` would do: a batch check calls clean must apply.
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    let mut report = Report::check(&checked.batch, &checked.verification, &plan);
    report.interrupted_commit = opened.interrupted.as_deref().map(Interrupted::new);
    if ctx.quiet {
        // The exit status says it all.
    } else if args.json {
        output::print_with(|out| report.write_json(out))?;
    } else if ctx.color {
        output::print(paint::report(&report.to_text()))?;
    } else {
        output::print(report.to_text())?;
    }
    let status = status_exit(Some(checked.verification.worst()).max(plan.blocking_status()));
    // The process ends here: the operating system takes back a large batch at once, faster
    // than freeing it piece by piece.
    std::mem::forget(checked);
    Ok(status)
}
