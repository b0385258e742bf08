//! `patchdeck undo`: restore the files of the last committed batch.

use super::LOCK_WAIT;
use clap::Args;
use patchdeck::commit::undo::undo;
use patchdeck::commit::CommitOptions;
use patchdeck::error::{exit, Error};
use patchdeck::plan::WriteKind;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct UndoArgs {
    /// Workspace root [default: current directory]
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
}

pub fn run(args: UndoArgs) -> Result<i32, Error> {
    let opened = super::open(&args.root)?;
    let options = CommitOptions {
        lock_wait: LOCK_WAIT,
        ..super::apply::commit_options()?
    };
    let undone = undo(&opened.workspace, options)?;
    for written in &undone.committed.written {
        let verb = match written.kind {
            WriteKind::Modify => "restored",
            WriteKind::Create => "recreated",
            WriteKind::Delete => "removed",
        };
        println!("{verb} {}", written.rel.display());
    }
    println!("undid \"{}\"", undone.label);
    Ok(exit::OK)
}
