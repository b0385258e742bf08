//! `patchdeck completions SHELL` and `patchdeck man`: generated from the same clap definitions
//! as `--help`, so they cannot disagree with it.

use super::Cli;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use patchdeck::error::{exit, Error};

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

pub fn completions(args: CompletionsArgs) -> Result<i32, Error> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "patchdeck", &mut out);
    write_out(&out)
}

fn write_out(bytes: &[u8]) -> Result<i32, Error> {
    super::output::print(bytes)?;
    Ok(exit::OK)
}

pub fn man() -> Result<i32, Error> {
    let command = Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut out)
        .map_err(|e| Error::io("rendering the man page", e))?;
    // One page holds every subcommand, as git's and cargo's overview pages do.
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("patchdeck {}", sub.get_name());
        let sub = sub.clone().display_name(name.clone()).bin_name(name);
        let mut section = Vec::new();
        let man = clap_mangen::Man::new(sub);
        man.render_name_section(&mut section)
            .and_then(|()| man.render_synopsis_section(&mut section))
            .and_then(|()| man.render_description_section(&mut section))
            .and_then(|()| man.render_options_section(&mut section))
            .and_then(|()| man.render_extra_section(&mut section))
            .map_err(|e| Error::io("rendering the man page", e))?;
        out.extend_from_slice(&section);
    }
    write_out(&out)
}
