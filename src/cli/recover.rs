//! `patchdeck recover`: roll back or finish a commit that was interrupted.

use super::LOCK_WAIT;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::pipeline;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct RecoverArgs {
    /// Workspace root [default: current directory]
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: RecoverArgs) -> Result<i32, Error> {
    let opened = pipeline::open(&args.root, LOCK_WAIT)?;
    match &opened.recovered {
        Some(recovery) => println!("{}", pipeline::describe_recovery(recovery)),
        None => println!(
            "nothing to recover: no interrupted commit under {}",
            opened.workspace.root().display()
        ),
    }
    Ok(exit::OK)
}
