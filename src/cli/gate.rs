//! `patchdeck gate`: the reviewer, waiting in this terminal for the batches coding agents write
//! to the workspace through `patchdeck mcp` (the gate itself is `patchdeck::tui::gate`).

use super::review::ViewArgs;
use super::Ctx;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::tui::gate::GateSetup;
use std::io::IsTerminal;

#[derive(Args, Debug)]
pub struct GateArgs {
    #[command(flatten)]
    pub workspace: super::RootArg,
    #[command(flatten)]
    pub view: ViewArgs,
}

pub fn run(args: GateArgs, ctx: &Ctx) -> Result<i32, Error> {
    let (env, palette) = super::review::look(ctx, &args.view)?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::Usage {
            message: "the gate is a reviewer and needs a terminal".into(),
            hint: Some(
                "for agents with no person to review, start `patchdeck mcp --unattended verified`"
                    .into(),
            ),
        });
    }
    if palette.syntax.is_some() {
        patchdeck::tui::highlight::load_in_background();
    }
    let max_tokens = ctx.config.max_tokens.value;
    let answered = patchdeck::tui::gate::run(GateSetup {
        root: args.workspace.root,
        env,
        palette,
        keymap: ctx.keymap.clone(),
        stage: ctx.config.stage.value,
        max_tokens: (max_tokens > 0).then_some(max_tokens),
    })?;
    if answered > 0 {
        super::output::eprintln(format!(
            "patchdeck: the gate answered {answered} batch(es); `patchdeck undo` takes back the last commit"
        ));
    }
    Ok(exit::OK)
}
