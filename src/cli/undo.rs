//! `patchdeck undo`: restore the files of the last committed batch.

use super::output::{self, print};
use super::{Ctx, LOCK_WAIT};
use clap::Args;
use patchdeck::commit::undo::undo;
use patchdeck::commit::CommitOptions;
use patchdeck::error::{exit, Error};
use patchdeck::plan::WriteKind;

#[derive(Args, Debug)]
pub struct UndoArgs {
    #[command(flatten)]
    pub workspace: super::RootArg,
    /// Print what was undone as one JSON object: {"label", "files": [{"path", "action"}], "index": {"restored", "left", "error"} (after apply --stage)} [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: UndoArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = super::open(
        ctx,
        &args.workspace.root,
        patchdeck::pipeline::Access::Write,
    )?;
    // An earlier undo was killed after restoring its files: recovery finished it, and that
    // undo is what this one was asked for (an undo run again after a crash must not go on to
    // undo the batch before).
    if let Some(label) = opened
        .recovered
        .as_ref()
        .and_then(|r| r.undo_finished.as_ref())
    {
        let text = if args.json {
            format!(
                "{:#}\n",
                serde_json::json!({"label": label, "files": [], "finishedInterrupted": true})
            )
        } else {
            format!(
                "undid \"{label}\" (its files had been restored by an undo that was interrupted)\n"
            )
        };
        if !ctx.quiet {
            said(print(text));
        }
        return Ok(exit::OK);
    }
    let options = CommitOptions {
        lock_wait: LOCK_WAIT,
        ..super::apply::commit_options()?
    };
    let undone = undo(&opened.workspace, options)?;
    // The files are restored; the index follows when `apply --stage` staged them.
    let (index, note_error) = match &undone.index {
        None => (None, None),
        Some(Ok(restored)) => (Some(restored), None),
        Some(Err(e)) => (None, Some(e.clone())),
    };
    if let (Some(e), false) = (&note_error, ctx.quiet) {
        output::eprintln(format!(
            "patchdeck: warning: git's index was not restored: the note of what apply --stage staged cannot be read: {e}"
        ));
    }
    if let (Some(index), false) = (&index, ctx.quiet) {
        for left in &index.left {
            output::eprintln(format!(
                "patchdeck: warning: the index entry of {} is left as it is: {}",
                left.path.display(),
                left.reason
            ));
        }
        if let Some(error) = &index.error {
            output::eprintln(format!("patchdeck: git said: {error}"));
        }
    }
    if !ctx.quiet {
        for warning in undone.warnings.iter().chain(&undone.committed.warnings) {
            output::eprintln(format!("patchdeck: warning: {warning}"));
        }
        for path in &undone.committed.owner_not_kept {
            output::eprintln(format!(
                "patchdeck: warning: {} was restored as yours: its owner and group could not be kept (only root may give a file to another user)",
                path.display()
            ));
        }
    }
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
        let mut body = serde_json::json!({"label": undone.label, "files": files});
        if let Some(index) = &index {
            body["index"] = serde_json::to_value(index).expect("plain data");
        }
        if let Some(e) = &note_error {
            body["index"] = serde_json::json!({"restored": [], "left": [], "error": e});
        }
        said(print(format!("{:#}\n", body)));
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
    if let Some(index) = &index {
        for path in &index.restored {
            out.push_str(&format!("unstaged {}\n", path.display()));
        }
    }
    out.push_str(&format!("undid \"{}\"\n", undone.label));
    said(print(out));
    Ok(exit::OK)
}

/// The files are restored whatever becomes of the words.
fn said(printed: Result<(), Error>) {
    output::said("the undo is done", printed);
}
