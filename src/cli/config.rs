//! `patchdeck config --print`: the effective configuration and where each value came from.

use super::Ctx;
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::tui::keys::{self, Mode};

#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Print the effective configuration with the origin of each value (what `patchdeck config` does without it too)
    #[arg(long)]
    pub print: bool,
    /// Print it as one JSON object: {"file", "theme": {"value", "origin"}, ..., "keys": {ACTION: {"keys", "origin"}}} [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ConfigArgs, ctx: &Ctx) -> Result<i32, Error> {
    let config = &ctx.config;
    // Every reviewing action with its keys (as the config file writes them) and their origin.
    let bindings: Vec<(&str, Vec<String>, String)> = keys::ACTION_NAMES
        .iter()
        .map(|(name, action)| {
            let binding = ctx
                .keymap
                .bindings(Mode::Browse)
                .find(|b| b.action == *action)
                .expect("every named action is bound");
            let list = binding.keys.iter().map(|k| key_name(*k)).collect();
            let origin = config
                .keys
                .iter()
                .rev()
                .find(|o| o.action == *name)
                .map_or_else(|| "default".to_owned(), |o| o.origin.to_string());
            (*name, list, origin)
        })
        .collect();
    if args.json {
        let mut json = config.to_json();
        let keys: serde_json::Map<String, serde_json::Value> = bindings
            .into_iter()
            .map(|(name, list, origin)| {
                (
                    name.to_owned(),
                    serde_json::json!({"keys": list, "origin": origin}),
                )
            })
            .collect();
        json["keys"] = keys.into();
        super::output::print(format!("{json:#}\n"))?;
        return Ok(exit::OK);
    }
    let mut out = config.to_text();
    out.push_str("\n[keys]\n");
    for (name, list, origin) in bindings {
        let list: Vec<String> = list.iter().map(|k| format!("{k:?}")).collect();
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
        Key::Left => "Left".into(),
        Key::Right => "Right".into(),
        Key::PageUp => "PageUp".into(),
        Key::PageDown => "PageDown".into(),
        Key::Home => "Home".into(),
        Key::End => "End".into(),
        Key::Enter => "Enter".into(),
        Key::Esc => "Esc".into(),
        Key::Backspace => "Backspace".into(),
    }
}
