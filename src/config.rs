//! Configuration: the user's file, the environment and the built-in defaults, merged once into a
//! [`Config`] that the command line passes down.
//!
//! Precedence, lowest first: defaults, the config file (`$PATCHDECK_CONFIG`, else
//! `$XDG_CONFIG_HOME/patchdeck/config.toml`, else `~/.config/patchdeck/config.toml`), the
//! environment (`PATCHDECK_*`, `NO_COLOR`, `CLICOLOR_FORCE`), then flags (applied by the CLI
//! with [`Setting::flag`]). Every value remembers where it came from, for `config --print`. The
//! process environment is read in [`Sources::from_process`] and nowhere else, so tests build
//! their own [`Sources`]. Every value's type is checked here, with the file, line and key, the
//! same way for every subcommand. The reviewer's own names are kept as written, with where they
//! were written: the theme, and in `[keys]` the actions and their keys. What those names mean
//! is the reviewer's business (`tui::setup` checks them once, naming the same place), so the
//! lists of actions, keys and themes are written once, where they are used.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    File { path: PathBuf, line: usize },
    Env(&'static str),
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => write!(f, "default"),
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::Env(name) => write!(f, "environment {name}"),
            Origin::Flag(name) => write!(f, "flag {name}"),
        }
    }
}

/// A value with its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Setting<T> {
    fn default(value: T) -> Setting<T> {
        Setting {
            value,
            origin: Origin::Default,
        }
    }

    /// Overrides the value with a flag's, when the flag was given.
    pub fn flag(&mut self, name: &'static str, value: Option<T>) {
        if let Some(value) = value {
            *self = Setting {
                value,
                origin: Origin::Flag(name),
            };
        }
    }
}

/// When `check` and `diff` colour their output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// When standard output is a terminal.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether output gets colour: [`ColorChoice::enabled`] for a terminal that shows colour
    /// (`is_terminal`, and not `TERM=dumb`).
    pub fn decide(self, is_terminal: bool, dumb_terminal: bool) -> bool {
        self.enabled(is_terminal && !dumb_terminal)
    }

    pub fn parse(text: &str) -> Option<ColorChoice> {
        match text {
            "auto" => Some(ColorChoice::Auto),
            "always" => Some(ColorChoice::Always),
            "never" => Some(ColorChoice::Never),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ColorChoice::Auto => "auto",
            ColorChoice::Always => "always",
            ColorChoice::Never => "never",
        }
    }

    /// Whether to colour output going to a terminal (`is_terminal`) or elsewhere.
    pub fn enabled(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Auto => is_terminal,
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        }
    }
}

/// A remapping of one reviewer action, as written in `[keys]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyOverride {
    /// The action's name (`accept`, `next_file`...).
    pub action: String,
    /// Key names as written (`a`, `C-r`, `Enter`, `Space`, `Down`...).
    pub keys: Vec<String>,
    pub origin: Origin,
}

/// The effective configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The config file read, if one exists.
    pub file: Option<PathBuf>,
    /// The reviewer's theme: a bundled name or a theme file's path.
    pub theme: Setting<String>,
    pub color: Setting<ColorChoice>,
    /// Refuse patch-tool calls larger than this many tokens; 0 for no limit.
    pub max_tokens: Setting<usize>,
    /// `apply` stages what it wrote in git, as `--stage` does.
    pub stage: Setting<bool>,
    /// Show progress on standard error during long loads.
    pub progress: Setting<bool>,
    /// Remapped reviewer actions (Browse mode), in file order.
    pub keys: Vec<KeyOverride>,
    /// `TERM=dumb`: a terminal that shows escape codes as text, so `auto` colour means none.
    pub dumb_terminal: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            file: None,
            theme: Setting::default("dark".to_owned()),
            color: Setting::default(ColorChoice::Auto),
            max_tokens: Setting::default(crate::formats::MAX_TOKENS),
            stage: Setting::default(false),
            progress: Setting::default(true),
            keys: Vec::new(),
            dumb_terminal: false,
        }
    }
}

/// A configuration that cannot be used: says where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// `file:line` or the environment variable.
    pub at: String,
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.at, self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// What the configuration is read from: the file's path and the environment variables, read
/// once.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The config file to read; it may not exist.
    pub file: Option<PathBuf>,
    /// The relevant environment variables (`PATCHDECK_*`, `NO_COLOR`, `CLICOLOR_FORCE`, `TERM`).
    pub env: BTreeMap<String, String>,
}

/// The environment variables patchdeck reads for its configuration.
pub const ENV_VARS: &[&str] = &[
    "PATCHDECK_CONFIG",
    "PATCHDECK_THEME",
    "PATCHDECK_COLOR",
    "PATCHDECK_MAX_TOKENS",
    "PATCHDECK_STAGE",
    "PATCHDECK_PROGRESS",
    "NO_COLOR",
    "CLICOLOR_FORCE",
    "TERM",
];

impl Sources {
    /// Reads the process environment: where the file is, and the variables.
    pub fn from_process() -> Sources {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let env: BTreeMap<String, String> = ENV_VARS
            .iter()
            .filter_map(|name| var(name).map(|v| ((*name).to_owned(), v)))
            .collect();
        let file = default_path(
            env.get("PATCHDECK_CONFIG").map(String::as_str),
            var("XDG_CONFIG_HOME").as_deref(),
            var("HOME").as_deref(),
        );
        Sources { file, env }
    }
}

/// Where the config file is: `$PATCHDECK_CONFIG` (empty or `none`: no file), else under
/// `$XDG_CONFIG_HOME`, else under `~/.config`.
pub fn default_path(
    explicit: Option<&str>,
    xdg_config_home: Option<&str>,
    home: Option<&str>,
) -> Option<PathBuf> {
    match explicit {
        Some("none") => return None,
        Some(path) => return Some(PathBuf::from(path)),
        None => {}
    }
    let base = match (xdg_config_home, home) {
        (Some(xdg), _) if Path::new(xdg).is_absolute() => PathBuf::from(xdg),
        (_, Some(home)) => Path::new(home).join(".config"),
        _ => return None,
    };
    Some(base.join("patchdeck").join("config.toml"))
}

/// The keys a config file may set.
pub const FILE_KEYS: &[&str] = &["theme", "color", "max_tokens", "stage", "progress", "keys"];

/// What a TOML value is, for messages: `an integer (3)`.
fn toml_kind(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("a string (\"{s}\")"),
        toml::Value::Integer(n) => format!("an integer ({n})"),
        toml::Value::Float(x) => format!("a number ({x})"),
        toml::Value::Boolean(b) => format!("a boolean ({b})"),
        toml::Value::Datetime(d) => format!("a date ({d})"),
        toml::Value::Array(_) => "an array".to_owned(),
        toml::Value::Table(_) => "a table".to_owned(),
    }
}

/// The `[keys]` table with each entry's place, read once the file is known to have one.
#[derive(Deserialize)]
struct KeysTable {
    keys: BTreeMap<String, Spanned<toml::Value>>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

impl Config {
    /// Loads the file (when it exists) and the environment over the defaults.
    pub fn load(sources: &Sources) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        if let Some(path) = &sources.file {
            match crate::bounded::read_to_string(path, crate::bounded::SMALL_FILE) {
                Ok(text) => {
                    config.apply_file(path, &text)?;
                    config.file = Some(path.clone());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    // An explicitly named file must exist; the default one is optional.
                    if sources.env.contains_key("PATCHDECK_CONFIG") {
                        return Err(ConfigError {
                            at: path.display().to_string(),
                            key: "PATCHDECK_CONFIG".into(),
                            message: "no such file".into(),
                        });
                    }
                }
                Err(e) => {
                    return Err(ConfigError {
                        at: path.display().to_string(),
                        key: "(file)".into(),
                        message: format!("cannot read it: {e}"),
                    })
                }
            }
        }
        config.apply_env(&sources.env)?;
        Ok(config)
    }

    /// Applies a config file's text; `path` names it in errors and origins.
    pub fn apply_file(&mut self, path: &Path, text: &str) -> Result<(), ConfigError> {
        let at = |line: usize| format!("{}:{line}", path.display());
        let origin = |line: usize| Origin::File {
            path: path.to_path_buf(),
            line,
        };
        // Syntax first; then each key, so a wrong type names its key and what it expected.
        let table: BTreeMap<String, Spanned<toml::Value>> =
            toml::from_str(text).map_err(|e| ConfigError {
                at: at(e.span().map_or(1, |s| line_of(text, s.start))),
                key: "(syntax)".into(),
                message: e.message().trim().to_owned(),
            })?;
        let mut keys_line = None;
        for (key, value) in table {
            let line = line_of(text, value.span().start);
            let value = value.into_inner();
            let wrong = |expected: &str| ConfigError {
                at: at(line),
                key: key.clone(),
                message: format!("expected {expected}, found {}", toml_kind(&value)),
            };
            let bad = |message: String| ConfigError {
                at: at(line),
                key: key.clone(),
                message,
            };
            match (key.as_str(), &value) {
                ("theme", toml::Value::String(theme)) => {
                    self.theme = Setting {
                        value: theme.clone(),
                        origin: origin(line),
                    };
                }
                ("theme", _) => {
                    return Err(wrong(
                        "a string (dark, light, high-contrast, or a theme file's path)",
                    ))
                }
                ("color", toml::Value::String(color)) => {
                    let value = ColorChoice::parse(color)
                        .ok_or_else(|| bad(format!("\"{color}\" is not auto, always or never")))?;
                    self.color = Setting {
                        value,
                        origin: origin(line),
                    };
                }
                ("color", _) => return Err(wrong("a string: \"auto\", \"always\" or \"never\"")),
                ("max_tokens", toml::Value::Integer(n)) => {
                    let value = usize::try_from(*n)
                        .map_err(|_| bad(format!("{n} is not a token count (0 for no limit)")))?;
                    self.max_tokens = Setting {
                        value,
                        origin: origin(line),
                    };
                }
                ("max_tokens", _) => {
                    return Err(wrong("a whole number of tokens (0 for no limit)"))
                }
                ("stage" | "progress", toml::Value::Boolean(b)) => {
                    let setting = if key == "stage" {
                        &mut self.stage
                    } else {
                        &mut self.progress
                    };
                    *setting = Setting {
                        value: *b,
                        origin: origin(line),
                    };
                }
                ("stage" | "progress", _) => return Err(wrong("true or false")),
                ("keys", toml::Value::Table(_)) => keys_line = Some(line),
                ("keys", _) => {
                    return Err(wrong("a table ([keys], one action = \"key\" per line)"))
                }
                _ => {
                    return Err(bad(format!(
                        "unknown key; the keys are {}",
                        FILE_KEYS.join(", ")
                    )))
                }
            }
        }
        let mut keys: Vec<(usize, KeyOverride)> = Vec::new();
        if keys_line.is_some() {
            let table: KeysTable = toml::from_str(text).map_err(|e| ConfigError {
                at: at(e.span().map_or(1, |s| line_of(text, s.start))),
                key: "keys".into(),
                message: e.message().trim().to_owned(),
            })?;
            for (action, value) in table.keys {
                let line = line_of(text, value.span().start);
                let bad = |message: String| ConfigError {
                    at: at(line),
                    key: format!("keys.{action}"),
                    message,
                };
                let keys_written: Vec<String> = match value.into_inner() {
                    toml::Value::String(key) => vec![key],
                    toml::Value::Array(items)
                        if items.iter().all(|i| matches!(i, toml::Value::String(_))) =>
                    {
                        items
                            .into_iter()
                            .filter_map(|i| i.as_str().map(str::to_owned))
                            .collect()
                    }
                    other => {
                        return Err(bad(format!(
                            "expected a key name or a list of key names, found {}",
                            toml_kind(&other)
                        )))
                    }
                };
                if keys_written.is_empty() {
                    return Err(bad("an action needs at least one key".into()));
                }
                keys.push((
                    line,
                    KeyOverride {
                        action,
                        keys: keys_written,
                        origin: origin(line),
                    },
                ));
            }
        }
        keys.sort_by_key(|(line, _)| *line);
        self.keys = keys.into_iter().map(|(_, k)| k).collect();
        Ok(())
    }

    /// Applies the environment variables over what the file set.
    pub fn apply_env(&mut self, env: &BTreeMap<String, String>) -> Result<(), ConfigError> {
        let bad = |name: &str, message: String| ConfigError {
            at: "environment".into(),
            key: name.to_owned(),
            message,
        };
        self.dumb_terminal = env.get("TERM").is_some_and(|t| t == "dumb");
        if let Some(theme) = env.get("PATCHDECK_THEME") {
            self.theme = Setting {
                value: theme.clone(),
                origin: Origin::Env("PATCHDECK_THEME"),
            };
        }
        // CLICOLOR_FORCE forces colour, NO_COLOR refuses it, PATCHDECK_COLOR says exactly.
        if env.get("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
            self.color = Setting {
                value: ColorChoice::Always,
                origin: Origin::Env("CLICOLOR_FORCE"),
            };
        }
        if env.contains_key("NO_COLOR") {
            self.color = Setting {
                value: ColorChoice::Never,
                origin: Origin::Env("NO_COLOR"),
            };
        }
        if let Some(color) = env.get("PATCHDECK_COLOR") {
            let value = ColorChoice::parse(color).ok_or_else(|| {
                bad(
                    "PATCHDECK_COLOR",
                    format!("\"{color}\" is not auto, always or never"),
                )
            })?;
            self.color = Setting {
                value,
                origin: Origin::Env("PATCHDECK_COLOR"),
            };
        }
        if let Some(max) = env.get("PATCHDECK_MAX_TOKENS") {
            let value = max.parse().map_err(|_| {
                bad(
                    "PATCHDECK_MAX_TOKENS",
                    format!("\"{max}\" is not a token count (0 for no limit)"),
                )
            })?;
            self.max_tokens = Setting {
                value,
                origin: Origin::Env("PATCHDECK_MAX_TOKENS"),
            };
        }
        for (name, setting) in [
            ("PATCHDECK_STAGE", &mut self.stage),
            ("PATCHDECK_PROGRESS", &mut self.progress),
        ] {
            if let Some(value) = env.get(name) {
                let value = match value.as_str() {
                    "1" | "true" | "yes" => true,
                    "0" | "false" | "no" => false,
                    other => {
                        return Err(bad(
                            name,
                            format!("\"{other}\" is not true or false (1/0, yes/no)"),
                        ))
                    }
                };
                *setting = Setting {
                    value,
                    origin: Origin::Env(name),
                };
            }
        }
        Ok(())
    }

    /// Every setting as (key, value as TOML writes it, where it came from).
    fn settings(&self) -> Vec<(&'static str, String, String)> {
        let color_origin = match (self.color.value, self.dumb_terminal) {
            (ColorChoice::Auto, true) => format!("{}; no colour: TERM=dumb", self.color.origin),
            _ => self.color.origin.to_string(),
        };
        vec![
            (
                "theme",
                format!("{:?}", self.theme.value),
                self.theme.origin.to_string(),
            ),
            (
                "color",
                format!("\"{}\"", self.color.value.as_str()),
                color_origin,
            ),
            (
                "max_tokens",
                self.max_tokens.value.to_string(),
                self.max_tokens.origin.to_string(),
            ),
            (
                "stage",
                self.stage.value.to_string(),
                self.stage.origin.to_string(),
            ),
            (
                "progress",
                self.progress.value.to_string(),
                self.progress.origin.to_string(),
            ),
        ]
    }

    /// The effective configuration as `config --print` shows it: TOML a person can copy into
    /// their file, each value followed by where it came from.
    pub fn to_text(&self) -> String {
        let mut out = match &self.file {
            Some(path) => format!("# config file: {}\n", path.display()),
            None => "# config file: none\n".to_owned(),
        };
        for (key, value, origin) in self.settings() {
            out.push_str(&format!("{key} = {value}  # {origin}\n"));
        }
        out
    }

    /// The effective configuration as `config --json` prints it: `{"file", "theme": {"value",
    /// "origin"}, ...}`, values typed as in the file.
    pub fn to_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert(
            "file".into(),
            self.file.as_ref().map(|p| p.display().to_string()).into(),
        );
        for (key, value, origin) in self.settings() {
            let value: serde_json::Value = match key {
                "theme" => self.theme.value.clone().into(),
                "color" => self.color.value.as_str().into(),
                _ => serde_json::from_str(&value).expect("numbers and booleans are JSON"),
            };
            object.insert(
                key.into(),
                serde_json::json!({"value": value, "origin": origin}),
            );
        }
        object.insert("dumbTerminal".into(), self.dumb_terminal.into());
        serde_json::Value::Object(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        config.apply_file(Path::new("/home/u/.config/patchdeck/config.toml"), text)?;
        Ok(config)
    }

    #[test]
    fn a_file_sets_only_what_it_names() {
        let config = file("# mine\ntheme = \"light\"\n").unwrap();
        assert_eq!(config.theme.value, "light");
        assert_eq!(
            config.theme.origin.to_string(),
            "/home/u/.config/patchdeck/config.toml:2"
        );
        assert_eq!(config.color, Config::default().color);
        assert_eq!(config.max_tokens, Config::default().max_tokens);
    }

    #[test]
    fn an_unknown_key_names_the_file_line_and_key() {
        let error = file("theme = \"light\"\n\ncolour = \"never\"\n").unwrap_err();
        assert_eq!(error.at, "/home/u/.config/patchdeck/config.toml:3");
        assert_eq!(error.key, "colour");
        let error = file("color = \"sometimes\"\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/home/u/.config/patchdeck/config.toml:1: color: \"sometimes\" is not auto, always or never"
        );
        let error = file("max_tokens = -3\n").unwrap_err();
        assert_eq!(
            (error.key.as_str(), error.at.ends_with(":1")),
            ("max_tokens", true)
        );
        let error = file("stage = \"yes\"\n").unwrap_err();
        assert!(error.at.ends_with(":1"), "{error}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key_and_what_was_expected() {
        let error = file("theme = 3\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/home/u/.config/patchdeck/config.toml:1: theme: expected a string (dark, light, high-contrast, or a theme file's path), found an integer (3)"
        );
        let error = file("# x\nstage = \"yes\"\n").unwrap_err();
        assert_eq!(
            (
                error.at.ends_with(":2"),
                error.key.as_str(),
                error.message.as_str()
            ),
            (
                true,
                "stage",
                "expected true or false, found a string (\"yes\")"
            )
        );
        let error = file("[keys]\naccept = 5\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/home/u/.config/patchdeck/config.toml:2: keys.accept: expected a key name or a list of key names, found an integer (5)"
        );
        let error = file("[keys]\nreject = [\"x\", 1]\n").unwrap_err();
        assert_eq!(error.key, "keys.reject");
        let error = file("keys = 5\n").unwrap_err();
        assert_eq!(
            (error.key.as_str(), error.at.ends_with(":1")),
            ("keys", true)
        );
        let error = file("progress = 1\n").unwrap_err();
        assert_eq!(
            error.message,
            "expected true or false, found an integer (1)"
        );
        let error = file("max_tokens = \"many\"\n").unwrap_err();
        assert_eq!(error.key, "max_tokens");
        // Syntax errors still say where.
        let error = file("theme = \n").unwrap_err();
        assert_eq!(
            (error.key.as_str(), error.at.ends_with(":1")),
            ("(syntax)", true)
        );
    }

    #[test]
    fn the_reviewers_names_are_kept_as_written_with_their_place() {
        let config =
            file("theme = \"solarized\"\n\n[keys]\nfrobnicate = [\"Foo\", \"x\"]\n").unwrap();
        assert_eq!(config.theme.value, "solarized");
        assert_eq!(
            config.theme.origin.to_string(),
            "/home/u/.config/patchdeck/config.toml:1"
        );
        assert_eq!(config.keys[0].action, "frobnicate");
        assert_eq!(config.keys[0].keys, ["Foo", "x"]);
        assert!(config.keys[0].origin.to_string().ends_with(":4"));
    }

    #[test]
    fn a_dumb_terminal_gets_no_colour_unless_forced() {
        let env: BTreeMap<String, String> = [("TERM".to_owned(), "dumb".to_owned())].into();
        let mut config = Config::default();
        config.apply_env(&env).unwrap();
        assert!(config.dumb_terminal);
        assert!(!config.color.value.decide(true, config.dumb_terminal));
        assert!(ColorChoice::Always.decide(true, true));
        assert!(ColorChoice::Auto.decide(true, false));
        assert!(config
            .to_text()
            .contains("color = \"auto\"  # default; no colour: TERM=dumb"));
        let forced: BTreeMap<String, String> = [
            ("TERM".to_owned(), "dumb".to_owned()),
            ("CLICOLOR_FORCE".to_owned(), "1".to_owned()),
        ]
        .into();
        let mut config = Config::default();
        config.apply_env(&forced).unwrap();
        assert!(config.color.value.decide(true, config.dumb_terminal));
    }

    #[test]
    fn the_environment_overrides_the_file_and_flags_override_both() {
        let mut config = file("theme = \"light\"\ncolor = \"always\"\n").unwrap();
        let env: BTreeMap<String, String> =
            [("PATCHDECK_THEME", "high-contrast"), ("NO_COLOR", "1")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        config.apply_env(&env).unwrap();
        assert_eq!(config.theme.value, "high-contrast");
        assert_eq!(config.theme.origin, Origin::Env("PATCHDECK_THEME"));
        assert_eq!(config.color.value, ColorChoice::Never);
        config.color.flag("--color", Some(ColorChoice::Always));
        assert_eq!(config.color.value, ColorChoice::Always);
        assert_eq!(config.color.origin.to_string(), "flag --color");
        config.theme.flag("--theme", None);
        assert_eq!(config.theme.value, "high-contrast");
    }

    #[test]
    fn keys_keep_their_lines() {
        let config = file("[keys]\naccept = \"y\"\nreject = [\"x\", \"Backspace\"]\n").unwrap();
        let got: Vec<(&str, Vec<&str>, String)> = config
            .keys
            .iter()
            .map(|k| {
                (
                    k.action.as_str(),
                    k.keys.iter().map(String::as_str).collect(),
                    k.origin.to_string(),
                )
            })
            .collect();
        assert_eq!(got[0].0, "accept");
        assert_eq!(got[0].1, vec!["y"]);
        assert!(got[0].2.ends_with(":2"));
        assert_eq!(got[1].1, vec!["x", "Backspace"]);
        assert!(got[1].2.ends_with(":3"));
    }

    #[test]
    fn the_file_is_found_where_xdg_says() {
        assert_eq!(
            default_path(None, Some("/x"), Some("/home/u")),
            Some(PathBuf::from("/x/patchdeck/config.toml"))
        );
        assert_eq!(
            default_path(None, None, Some("/home/u")),
            Some(PathBuf::from("/home/u/.config/patchdeck/config.toml"))
        );
        assert_eq!(
            default_path(None, Some("relative"), Some("/home/u")),
            Some(PathBuf::from("/home/u/.config/patchdeck/config.toml"))
        );
        assert_eq!(default_path(Some("none"), Some("/x"), None), None);
        assert_eq!(
            default_path(Some("/etc/pd.toml"), Some("/x"), None),
            Some(PathBuf::from("/etc/pd.toml"))
        );
    }
}
