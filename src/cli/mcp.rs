//! `patchdeck mcp`: serve one workspace to coding agents over MCP on standard input and output
//! (the server itself is `patchdeck::mcp`).

use super::Ctx;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::mcp::{Settings, Unattended};

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub workspace: super::RootArg,
    /// What a write does while no reviewer is waiting: refuse (write nothing, and say so) or verified (write every change that verifies, atomically; the rest are returned as conflicts) [default: refuse]
    #[arg(long, value_name = "POLICY", value_parser = Unattended::NAMES, default_value = "refuse", hide_default_value = true)]
    pub unattended: String,
    /// How long a write waits for the person reviewing it in `patchdeck gate` before it answers "still under review" (0: as long as they take) [default: 0]
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub wait: u64,
}

pub fn run(args: McpArgs, ctx: &Ctx) -> Result<i32, Error> {
    // Standard output is the protocol's: a root that cannot be served is said before it
    // starts, on standard error, with the status every command gives it.
    patchdeck::workspace::Workspace::open(&args.workspace.root).map_err(|e| Error::Root {
        root: args.workspace.root.clone(),
        message: e.to_string(),
    })?;
    let max_tokens = ctx.config.max_tokens.value;
    patchdeck::mcp::serve(Settings {
        root: args.workspace.root,
        unattended: Unattended::parse(&args.unattended).expect("clap checked the name"),
        stage: ctx.config.stage.value,
        max_tokens: (max_tokens > 0).then_some(max_tokens),
        wait: (args.wait > 0).then(|| std::time::Duration::from_secs(args.wait)),
    })?;
    Ok(exit::OK)
}
