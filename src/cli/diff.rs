//! `patchdeck diff`: print what `apply` would write, as a git-style unified diff.

use super::apply::SelectArgs;
use super::{open, status_exit, BatchArgs};
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::unified_diff;
use std::io::Write;

#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub select: SelectArgs,
}

pub fn run(args: DiffArgs) -> Result<i32, Error> {
    let opened = open(&args.batch.root)?;
    let input = Input::read(&args.batch.input)?;
    let checked = pipeline::load_with(&opened.workspace, &input, &args.batch.load_options())?;
    let decisions = args.select.decisions(&checked.batch)?;
    let plan = checked.plan(&decisions);
    if plan.is_blocked() {
        for blocker in &plan.blockers {
            eprintln!("patchdeck: blocked: {}", blocker.message);
        }
        eprintln!("patchdeck: no diff: apply would write nothing");
        return Ok(status_exit(plan.blocking_status()));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = unified_diff::write_plan(&plan, &mut out).and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(exit::OK),
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::OK),
        Err(e) => Err(Error::usage(format!("cannot write the diff: {e}"))),
    }
}
