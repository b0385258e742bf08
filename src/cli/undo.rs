//! `patchdeck undo`: restore the files of the last committed batch.

use super::output::print;
use super::{Ctx, LOCK_WAIT};
use clap::Args;
use patchdeck::commit::undo::undo;
use patchdeck::commit::CommitOptions;
use patchdeck::error::{exit, Error};
use patchdeck::plan::WriteKind;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct UndoArgs {
    /// Workspace root [default: current directory]
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        hide_default_value = true
    )]
    pub root: PathBuf,
    /// Print what was undone as one JSON object: {"label", "files": [{"path", "action"}]} [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: UndoArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = super::open(ctx, &args.root)?;
    let options = CommitOptions {
        lock_wait: LOCK_WAIT,
        ..super::apply::commit_options()?
    };
    let undone = undo(&opened.workspace, options)?;
    let verb = |kind| match kind {
        WriteKind::Modify => "restored",
        WriteKind::Create => "recreated",
        WriteKind::Delete => "removed",
    };
    if args.json {
        let files: Vec<serde_json::Value> = undone
            .committed
            .written
            .iter()
            .map(|w| serde_json::json!({"path": w.rel.display().to_string(), "action": verb(w.kind)}))
            .collect();
        let body = serde_json::json!({"label": undone.label, "files": files});
        print(format!("{:#}\n", body))?;
        return Ok(exit::OK);
    }
    if ctx.quiet {
        return Ok(exit::OK);
    }
    let mut out = String::new();
    for written in &undone.committed.written {
        out.push_str(&format!(
            "{} {}\n",
            verb(written.kind),
            written.rel.display()
        ));
    }
    out.push_str(&format!("undid \"{}\"\n", undone.label));
    print(out)?;
    Ok(exit::OK)
}
