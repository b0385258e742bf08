//! `patchdeck export`: the changes the selection flags (and a decisions file) select, as a
//! fresh batch rebased on the files as they are now, on standard output. Writes nothing to
//! the workspace; a selection `apply` would refuse is refused with the same blockers and exit
//! status.

use super::apply::SelectArgs;
use super::{open, output, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::export::{self, Format, Refusal};

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// The export's form: tul002 (keys, descriptions and IDs kept) or unified (a git diff: also deletions, renames and modes) [default: tul002]
    #[arg(long, value_name = "FORM", default_value = "tul002", hide_default_value = true, value_parser = ["tul002", "unified"])]
    pub to: String,
}

pub fn run(args: ExportArgs, ctx: &Ctx) -> Result<i32, Error> {
    let format = Format::parse(&args.to).expect("clap allows only known forms");
    let opened = open(ctx, &args.batch.root, patchdeck::pipeline::Access::Read)?;
    let checked = super::load_without_notes(ctx, &opened.workspace, &args.batch)?;
    let decisions = args.select.decisions(&checked)?;
    match export::export(&checked, &decisions, format) {
        Ok(exported) => {
            if !ctx.quiet {
                output::print(&exported.bytes)?;
            }
            Ok(exit::OK)
        }
        Err(Refusal::Blocked { blockers, status }) => {
            if !ctx.quiet {
                for blocker in &blockers {
                    output::eprintln(format!("patchdeck: blocked: {}", blocker.cli_text()));
                }
                output::eprintln("patchdeck: nothing exported: apply would write nothing");
            }
            Ok(status_exit(Some(status)))
        }
        Err(refusal) => Err(Error::Usage {
            message: refusal.to_string(),
            hint: refusal.hint().map(str::to_owned),
        }),
    }
}
