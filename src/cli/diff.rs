//! `patchdeck diff`: print what `apply` would write, as a git-style unified diff, or as JSON.

use super::apply::SelectArgs;
use super::{open, output, paint, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::diff_writer;
use patchdeck::error::{exit, Error};
use patchdeck::plan::WriteKind;

#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print JSON: {"blocked": [...], "files": [{path, action, diff}, ...]}, one per file that would be written [default: a unified diff]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DiffArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = open(ctx, &args.batch.root, patchdeck::pipeline::Access::Read)?;
    let checked = super::load_without_notes(ctx, &opened.workspace, &args.batch)?;
    let decisions = args.select.decisions(&checked)?;
    let plan = checked.plan(&decisions);
    if plan.is_blocked() {
        if !ctx.quiet {
            for blocker in &plan.blockers {
                output::eprintln(format!("patchdeck: blocked: {}", blocker.cli_text()));
            }
            output::eprintln("patchdeck: no diff: apply would write nothing");
        }
        if args.json {
            let blocked: Vec<String> = plan.blockers.iter().map(|b| b.cli_text()).collect();
            output::println(serde_json::json!({"files": [], "blocked": blocked}).to_string())?;
        }
        return Ok(status_exit(plan.blocking_status()));
    }
    if ctx.quiet {
        return Ok(exit::OK);
    }
    let mut text = Vec::new();
    if args.json {
        let mut files = Vec::new();
        for write in &plan.writes {
            let mut one = Vec::new();
            diff_writer::write_file(write, &mut one).expect("writing to memory");
            if one.is_empty() {
                continue;
            }
            let action = match write.kind {
                WriteKind::Modify => "modify",
                WriteKind::Create => "create",
                WriteKind::Delete => "delete",
            };
            files.push(serde_json::json!({
                "path": write.rel.display().to_string(),
                "action": action,
                "diff": String::from_utf8_lossy(&one),
            }));
        }
        let body = serde_json::json!({"files": files, "blocked": []});
        text = serde_json::to_vec_pretty(&body).expect("json");
        text.push(b'\n');
    } else {
        diff_writer::write_plan(&plan, &mut text).expect("writing to memory");
        if ctx.color {
            text = paint::diff(&String::from_utf8_lossy(&text)).into_bytes();
        }
    }
    output::print(&text)?;
    Ok(exit::OK)
}
