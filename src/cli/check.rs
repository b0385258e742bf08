//! `patchdeck check`: verify a batch and report, writing nothing.

use super::{open, output, paint, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::Error;
use patchdeck::formats::LoadOptions;
use patchdeck::model::Stance;
use patchdeck::report::{Interrupted, Report};
use patchdeck::review::Decisions;
use patchdeck::verify::Checked;
use patchdeck::workspace::Release;

/// The work tree's changes (`--worktree`), one a line, each with the names `apply --reject`
/// takes (`PATH#N`, its ID) and what the agent did, in the lines of the file on disk.
fn standing_listing(checked: &Checked) -> String {
    let mut out = String::new();
    for (file, check) in checked.batch.files.iter().zip(&checked.verification.files) {
        // A name is the agent's to choose: what a terminal would act on is shown, not sent.
        let path = patchdeck::lines::visible(&check.display_path(file)).into_owned();
        let label = file
            .label
            .as_deref()
            .map(|l| format!(" ({})", patchdeck::lines::visible(l)))
            .unwrap_or_default();
        for (n, change) in file.changes.iter().enumerate() {
            out.push_str(&format!(
                "{path}#{} {}{label}: {}\n",
                n + 1,
                change.id,
                patchdeck::lines::visible(change.description.as_deref().unwrap_or_default())
            ));
        }
    }
    out
}

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
    // No new content is planned and nothing is written from what `check` reads (its plan
    // only lists what would block a commit), so no file is kept once checked: only the JSON
    // report's `actualSha256` needs something of it afterwards.
    opened.workspace.release_files(Release {
        sha256: args.json && !ctx.quiet,
        commit: false,
    });
    // `-q` answers with the exit status alone, which names no change: the changes are left
    // without their IDs (the SHA-256 of every change's lines), and no report is built.
    let options = LoadOptions {
        change_ids: !ctx.quiet,
        ..args.batch.load_options(ctx)
    };
    let checked = super::load_with(ctx, &opened.workspace, &args.batch, options)?;
    // What a plain `apply` would do: a batch check calls clean must apply.
    let plan = checked.plan_blockers(&Decisions::accept_all(&checked.batch));
    if !ctx.quiet {
        let mut report = Report::check(&checked.batch, &checked.verification, &plan);
        report.interrupted_commit = opened.interrupted.as_deref().map(Interrupted::new);
        let listing = match checked.batch.stance {
            Stance::Standing if !args.json => standing_listing(&checked),
            _ => String::new(),
        };
        if args.json {
            output::print_with(|out| report.write_json(out))?;
        } else if ctx.color {
            output::print(listing + &paint::report(&report.to_text()))?;
        } else {
            output::print(listing + &report.to_text())?;
        }
    }
    let status = status_exit(Some(checked.verification.worst()).max(plan.blocking_status()));
    // The process ends here: the operating system takes back a large batch at once, faster
    // than freeing it piece by piece.
    std::mem::forget(checked);
    Ok(status)
}
