//! `patchdeck config --print`: the effective configuration and where each value came from.

use super::Ctx;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::tui::keys::{self, KeyMap, Mode};

#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Print the effective configuration with the origin of each value (what `patchdeck config` does without it too)
    #[arg(long)]
    pub print: bool,
}

pub fn run(_args: ConfigArgs, ctx: &Ctx) -> Result<i32, Error> {
    let config = &ctx.config;
    let keymap = KeyMap::with_overrides(&config.keys).map_err(Error::usage)?;
    let mut out = config.to_text();
    out.push_str("\n[keys]\n");
    for (name, action) in keys::ACTION_NAMES {
        let binding = keymap
            .bindings(Mode::Browse)
            .find(|b| b.action == *action)
            .expect("every named action is bound");
        let list: Vec<String> = binding
            .keys
            .iter()
            .map(|k| format!("{:?}", key_name(*k)))
            .collect();
        let origin = config
            .keys
            .iter()
            .rev()
            .find(|o| o.action == *name)
            .map_or_else(|| "default".to_owned(), |o| o.origin.to_string());
        out.push_str(&format!("{name} = [{}]  # {origin}\n", list.join(", ")));
    }
    super::output::print(out)?;
    Ok(exit::OK)
}

/// A key as the config file writes it (the inverse of `Key::parse`).
fn key_name(key: keys::Key) -> String {
    use keys::Key;
    match key {
        Key::Char(' ') => "Space".into(),
        Key::Char(c) => c.to_string(),
        Key::Ctrl(c) => format!("C-{c}"),
        Key::Up => "Up".into(),
        Key::Down => "Down".into(),
        Key::PageUp => "PageUp".into(),
        Key::PageDown => "PageDown".into(),
        Key::Home => "Home".into(),
        Key::End => "End".into(),
        Key::Enter => "Enter".into(),
        Key::Esc => "Esc".into(),
        Key::Backspace => "Backspace".into(),
    }
}
