//! `patchdeck check`: verify a batch and report, writing nothing.

use super::{open, status_exit, BatchArgs};
use clap::Args;
use patchdeck::error::Error;
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::report::Report;

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Print the report as one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CheckArgs) -> Result<i32, Error> {
    let opened = open(&args.batch.root)?;
    let input = Input::read(&args.batch.input)?;
    let checked = pipeline::load_with(&opened.workspace, &input, &args.batch.load_options())?;
    let report = Report::build(&checked.batch, &checked.verification, None);
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(status_exit(Some(checked.verification.worst())))
}
