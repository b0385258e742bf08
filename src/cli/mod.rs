//! The headless command line: flags as typed, turned into calls on the core.
//!
//! Each subcommand lives in its own file and is a thin client of `patchdeck::pipeline`. This
//! file defines the flags (clap) and the shared handling of errors, exit statuses and output.

mod apply;
mod check;
mod checkpoint;
mod config;
mod demo;
mod diff;
mod export;
mod feedback;
#[cfg(feature = "mcp")]
mod gate;
mod generate;
#[cfg(feature = "mcp")]
mod mcp;
mod output;
mod paint;
mod progress;
mod recover;
mod review;
mod show;
mod undo;

use clap::{Args, Parser, Subcommand};
use patchdeck::config::{ColorChoice, Config, Sources};
use patchdeck::error::{exit, Error};
use patchdeck::formats::Input;
use patchdeck::pipeline;
use patchdeck::tui::keys::KeyMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "patchdeck",
    version,
    about = "Review model-written patch batches, then apply them atomically",
    long_about = "patchdeck checks a batch of model-written patches against your files, shows every \
SHA-256 and expected-line conflict, and writes all accepted changes at once, or nothing."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand takes, before or after its name.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// When to colour check and diff output: auto (when standard output is a terminal), always or never [default: auto; NO_COLOR, CLICOLOR_FORCE, PATCHDECK_COLOR and the config file's color apply first]
    #[arg(long, global = true, value_name = "WHEN", value_parser = ["auto", "always", "never"])]
    pub color: Option<String>,
    /// Print nothing but errors; the exit status says the rest [default: off]
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Read this config file, or none with "none" [default: $PATCHDECK_CONFIG, else $XDG_CONFIG_HOME/patchdeck/config.toml, else ~/.config/patchdeck/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Review a batch in the terminal: accept, reject or edit each change, then commit (the default)
    #[command(
        after_help = "Example:\n  patchdeck review --root ~/src/app batch.json\n  patchdeck batch.json"
    )]
    Review(review::ReviewArgs),
    /// Open the reviewer on a bundled sample batch, in a temporary copy of a sample workspace
    #[command(after_help = "Example:\n  patchdeck demo --theme light")]
    Demo(demo::DemoArgs),
    /// Verify a batch against the workspace and report every conflict (writes nothing)
    #[command(after_help = "Example:\n  patchdeck check --root ~/src/app batch.json")]
    Check(check::CheckArgs),
    /// Verify a batch, then write the selected changes atomically (all or nothing)
    #[command(after_help = "Example:\n  patchdeck apply --reject fix-logging --json batch.json")]
    Apply(apply::ApplyArgs),
    /// Print what apply would write, as a git-style unified diff
    #[command(after_help = "Example:\n  patchdeck diff batch.json | git apply --check")]
    Diff(diff::DiffArgs),
    /// Print what failed in a batch and what is really there, as a message for the model that wrote it
    #[command(
        after_help = "Example:\n  patchdeck feedback batch.json > feedback.md\n  patchdeck feedback --json --decisions session.json batch.json"
    )]
    Feedback(feedback::FeedbackArgs),
    /// Print the selected changes as a fresh batch rebased on the files as they are now
    #[command(
        after_help = "Example:\n  patchdeck export --relocate --allow-sha-mismatch batch.json > rebased.json\n  patchdeck export --to unified --decisions session.json batch.json | git apply --check"
    )]
    Export(export::ExportArgs),
    /// Record the git work tree as it is now, so that --worktree shows only what changes after (run it before each agent turn)
    #[command(
        after_help = "Example:\n  patchdeck checkpoint\n  patchdeck review --worktree\n  patchdeck apply --worktree --reject src/app.py#2"
    )]
    Checkpoint(checkpoint::CheckpointArgs),
    /// Print one change, file patch or the batch, by ID or key
    #[command(after_help = "Example:\n  patchdeck show batch.json chg-0007")]
    Show(show::ShowArgs),
    /// Serve the workspace to coding agents over MCP (standard input and output): read files, write batches
    #[cfg(feature = "mcp")]
    #[command(
        after_help = "Example:\n  patchdeck mcp --root ~/src/app\n  claude mcp add patchdeck -- patchdeck mcp\n  patchdeck mcp --unattended verified"
    )]
    Mcp(mcp::McpArgs),
    /// Wait in this terminal for agents' batches (sent through `patchdeck mcp`) and review each one
    #[cfg(feature = "mcp")]
    #[command(
        after_help = "Example:\n  patchdeck gate              # in one terminal, in the project\n  claude                      # in another, with `claude mcp add patchdeck -- patchdeck mcp`"
    )]
    Gate(gate::GateArgs),
    /// Restore the files of the last committed batch, if none changed since
    #[command(after_help = "Example:\n  patchdeck undo --root ~/src/app")]
    Undo(undo::UndoArgs),
    /// Roll back or finish a commit that was interrupted
    #[command(after_help = "Example:\n  patchdeck recover --root ~/src/app")]
    Recover(recover::RecoverArgs),
    /// Show the effective configuration and where each value came from
    #[command(
        after_help = "Example:\n  patchdeck config --print\n  PATCHDECK_THEME=light patchdeck config --print"
    )]
    Config(config::ConfigArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on standard output
    #[command(
        after_help = "Example:\n  patchdeck completions bash > ~/.local/share/bash-completion/completions/patchdeck\n  patchdeck completions zsh > ~/.zfunc/_patchdeck\n  patchdeck completions fish > ~/.config/fish/completions/patchdeck.fish"
    )]
    Completions(generate::CompletionsArgs),
    /// Print the man page (roff) on standard output
    #[command(
        after_help = "Example:\n  patchdeck man > ~/.local/share/man/man1/patchdeck.1\n  patchdeck man | man -l -"
    )]
    Man,
}

/// Flags every batch-reading subcommand shares.
/// `--root`, for the subcommands that read no batch (those that do say it in [`BatchArgs`]).
#[derive(Args, Debug, Clone)]
pub struct RootArg {
    /// Workspace root [default: current directory]
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        hide_default_value = true
    )]
    pub root: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct BatchArgs {
    /// Workspace root the batch's paths are relative to [default: current directory]
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        hide_default_value = true
    )]
    pub root: PathBuf,
    /// Input format, instead of detecting it (tul002, directive, bundle, structured, edits, codex, aider, markdown, unified) [default: detected from the input]
    #[arg(long, value_name = "F")]
    pub format: Option<String>,
    /// Strip N leading components from unified-diff paths, as `git apply -p N` [default: 1]
    #[arg(short = 'p', value_name = "N")]
    pub strip: Option<usize>,
    /// Refuse patch-tool calls (edits) larger than N tokens (characters / 4); 0 for no limit [default: 60000, or max_tokens in the config file]
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,
    /// Instead of a batch, what changed in the git work tree since the latest checkpoint (or HEAD): keeping a change writes nothing, rejecting it puts back the base's lines [default: off]
    #[arg(long, conflicts_with = "input")]
    pub worktree: bool,
    /// With --worktree: what the work tree is compared with, a commit, branch, tag or checkpoint [default: the latest checkpoint, else HEAD]
    #[arg(long, value_name = "REF", requires = "worktree")]
    pub base: Option<String>,
    /// The batch file, or - for standard input (required but with --worktree, or `feedback --last`)
    #[arg(value_name = "INPUT")]
    pub input: Option<String>,
}

impl BatchArgs {
    /// The batch file named, or `None` for the work tree's changes; an error when neither is
    /// asked for. (clap cannot say it: `feedback --last` needs neither.)
    pub fn input(&self) -> Result<Option<&str>, Error> {
        match (self.input.as_deref(), self.worktree) {
            (Some(input), false) => Ok(Some(input)),
            (None, true) => Ok(None),
            _ => Err(Error::Usage {
                message: "an INPUT is required: the batch file, or - for standard input".into(),
                hint: Some("or --worktree, for what changed in the git work tree".into()),
            }),
        }
    }

    /// The load options these flags describe, over the configuration's defaults.
    pub fn load_options(&self, ctx: &Ctx) -> patchdeck::formats::LoadOptions {
        let mut max_tokens = ctx.config.max_tokens.clone();
        max_tokens.flag("--max-tokens", self.max_tokens);
        patchdeck::formats::LoadOptions {
            format: self.format.clone(),
            strip: self.strip,
            max_tokens: (max_tokens.value > 0).then_some(max_tokens.value),
            change_ids: true,
            // Notes are printed only when something is.
            git_status: !ctx.quiet,
        }
    }
}

/// What every subcommand is run with: the configuration read once, and the output decisions
/// made from it and the global flags.
pub struct Ctx {
    pub config: Config,
    /// The reviewer's key map with the configuration's remappings, checked at start.
    pub keymap: KeyMap,
    pub quiet: bool,
    /// Whether standard output gets colour.
    pub color: bool,
    /// Whether long work may show progress on standard error.
    pub progress: bool,
}

impl Ctx {
    /// Builds the context from the global flags and the configuration.
    fn new(global: &GlobalArgs, mut config: Config, keymap: KeyMap, json: bool) -> Ctx {
        config.color.flag(
            "--color",
            global.color.as_deref().and_then(ColorChoice::parse),
        );
        let color = !json
            && config
                .color
                .value
                .decide(std::io::stdout().is_terminal(), config.dumb_terminal);
        let progress =
            !json && !global.quiet && config.progress.value && std::io::stderr().is_terminal();
        Ctx {
            config,
            keymap,
            quiet: global.quiet,
            color,
            progress,
        }
    }
}

/// [`load`] for a command that shows no notes (a diff, a batch, a message for a model): git
/// is not asked which files have uncommitted changes.
fn load_without_notes(
    ctx: &Ctx,
    workspace: &patchdeck::workspace::Workspace,
    args: &BatchArgs,
) -> Result<patchdeck::verify::Checked, Error> {
    let options = patchdeck::formats::LoadOptions {
        git_status: false,
        ..args.load_options(ctx)
    };
    load_with(ctx, workspace, args, options)
}

/// Loads and verifies a batch, showing progress when it takes a while.
fn load(
    ctx: &Ctx,
    workspace: &patchdeck::workspace::Workspace,
    args: &BatchArgs,
) -> Result<patchdeck::verify::Checked, Error> {
    load_with(ctx, workspace, args, args.load_options(ctx))
}

/// [`load`] with load options of the command's own.
fn load_with(
    ctx: &Ctx,
    workspace: &patchdeck::workspace::Workspace,
    args: &BatchArgs,
    options: patchdeck::formats::LoadOptions,
) -> Result<patchdeck::verify::Checked, Error> {
    match args.input()? {
        Some(input) => {
            let input = Input::read(input)?;
            loading_batch(ctx, || pipeline::load_with(workspace, &input, &options))
        }
        None => load_worktree(ctx, workspace, args, options.max_tokens).map(|since| since.checked),
    }
}

/// Loads what changed in the work tree since `--base` (or the latest checkpoint, or HEAD),
/// saying on standard error what it is compared with.
fn load_worktree(
    ctx: &Ctx,
    workspace: &patchdeck::workspace::Workspace,
    args: &BatchArgs,
    max_tokens: Option<usize>,
) -> Result<patchdeck::worktree::Since, Error> {
    let since = loading_batch(ctx, || {
        patchdeck::worktree::load(workspace, args.base.as_deref(), max_tokens)
    })?;
    if !ctx.quiet {
        output::eprintln(format!(
            "patchdeck: the work tree since {} ({})",
            since.base.name,
            &since.base.commit[..since.base.commit.len().min(12)]
        ));
    }
    Ok(since)
}

/// Runs `load` with a progress line on standard error ("loading and verifying the batch")
/// while it takes long.
fn loading_batch<T>(ctx: &Ctx, load: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let progress = progress::Progress::start(ctx.progress, "loading and verifying the batch");
    let loaded = load();
    drop(progress);
    loaded
}

/// How long a command waits for another patchdeck's lock on the same workspace.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Runs the command line and returns the exit status.
pub fn run() -> i32 {
    let cli = Cli::parse_from(with_default_command(std::env::args_os().collect()));
    let json = match &cli.command {
        Command::Check(a) => a.json,
        Command::Apply(a) => a.json,
        Command::Show(a) => a.json,
        Command::Diff(a) => a.json,
        Command::Feedback(a) => a.json,
        Command::Recover(a) => a.json,
        Command::Undo(a) => a.json,
        Command::Checkpoint(a) => a.json,
        Command::Config(a) => a.json,
        Command::Export(_) => false,
        #[cfg(feature = "mcp")]
        Command::Mcp(_) | Command::Gate(_) => false,
        Command::Review(_) | Command::Demo(_) | Command::Completions(_) | Command::Man => false,
    };
    let mut sources = Sources::from_process();
    if let Some(path) = &cli.global.config {
        sources.file = (path != "none").then(|| PathBuf::from(path));
        sources.env.insert("PATCHDECK_CONFIG".into(), path.clone());
    }
    // The whole configuration is checked the same way whatever the subcommand: a key map the
    // reviewer would refuse is refused by `check` too.
    let loaded = Config::load(&sources)
        .map_err(|e| e.to_string())
        .and_then(|config| patchdeck::tui::check_settings(&config).map(|keymap| (config, keymap)));
    let (config, keymap) = match loaded {
        Ok(loaded) => loaded,
        Err(message) => {
            return report_error(
                &Error::Usage {
                    message: format!("bad configuration: {message}"),
                    hint: Some("fix or remove that setting; `patchdeck config --print` shows what is in effect".into()),
                },
                json,
            )
        }
    };
    let ctx = Ctx::new(&cli.global, config, keymap, json);
    let result = match cli.command {
        Command::Check(args) => check::run(args, &ctx),
        Command::Apply(args) => apply::run(args, &ctx),
        Command::Diff(args) => diff::run(args, &ctx),
        Command::Feedback(args) => feedback::run(args, &ctx),
        Command::Export(args) => export::run(args, &ctx),
        Command::Show(args) => show::run(args, &ctx),
        Command::Recover(args) => recover::run(args, &ctx),
        Command::Undo(args) => undo::run(args, &ctx),
        Command::Checkpoint(args) => checkpoint::run(args, &ctx),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp::run(args, &ctx),
        #[cfg(feature = "mcp")]
        Command::Gate(args) => gate::run(args, &ctx),
        Command::Review(args) => review::run(args, &ctx),
        Command::Demo(args) => demo::run(args, &ctx),
        Command::Config(args) => config::run(args, &ctx),
        Command::Completions(args) => generate::completions(args),
        Command::Man => generate::man(),
    };
    match result {
        Ok(code) => code,
        Err(error) => report_error(&error, json),
    }
}

/// `patchdeck INPUT` means `patchdeck review INPUT`: inserts `review` when the first argument
/// is not a subcommand (or help or version).
fn with_default_command(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    // Global flags may come first: `patchdeck -q check ...`, `patchdeck --color never b.json`.
    let mut at = 1;
    while let Some(arg) = args.get(at).and_then(|a| a.to_str()) {
        match arg {
            "-h" | "--help" | "-V" | "--version" => return args,
            "--color" | "--config" => at += 2,
            "-q" | "--quiet" => at += 1,
            _ if arg.starts_with("--color=") || arg.starts_with("--config=") => at += 1,
            _ => break,
        }
    }
    let Some(first) = args.get(at).and_then(|a| a.to_str()) else {
        return args;
    };
    let command = Cli::command();
    let known = command
        .get_subcommands()
        .any(|s| s.get_name() == first || s.get_all_aliases().any(|a| a == first))
        || first == "help";
    if !known {
        args.insert(at, "review".into());
    }
    args
}

/// Prints an error (and its hint) on standard error, and as JSON on standard output when the
/// caller asked for JSON. Returns the exit status it maps to.
fn report_error(error: &Error, json: bool) -> i32 {
    output::eprintln(format!("patchdeck: error: {error}"));
    if let Some(hint) = error.hint() {
        output::eprintln(format!("hint: {hint}"));
    }
    if json {
        let problems: Vec<serde_json::Value> = match error {
            Error::InvalidInput { problems, .. } => problems
                .iter()
                .map(|p| serde_json::json!({"location": p.location, "message": p.message}))
                .collect(),
            _ => Vec::new(),
        };
        let body = serde_json::json!({
            "error": {"message": error.to_string(), "exitCode": error.exit_code(), "problems": problems}
        });
        // Nothing more can be said when even this fails.
        let _ = output::println(serde_json::to_string_pretty(&body).expect("json"));
    }
    error.exit_code()
}

/// Opens the workspace, saying on standard error when an interrupted commit was recovered, or
/// (opened to read) is waiting.
fn open(
    ctx: &Ctx,
    root: &std::path::Path,
    access: pipeline::Access,
) -> Result<pipeline::Opened, Error> {
    let opened = open_quietly(ctx, root, access)?;
    if let (Some(recovery), false) = (&opened.recovered, ctx.quiet) {
        output::eprintln(format!(
            "patchdeck: {}",
            patchdeck::report::say::describe_recovery(recovery)
        ));
    }
    if !ctx.quiet {
        for warning in &opened.warnings {
            output::eprintln(format!("patchdeck: warning: {warning}"));
        }
    }
    if let (Some(journal), false) = (&opened.interrupted, ctx.quiet) {
        output::eprintln(format!(
            "patchdeck: warning: {}",
            patchdeck::report::say::describe_interrupted(journal)
        ));
    }
    Ok(opened)
}

/// Opens the workspace, with progress on standard error while an interrupted commit is
/// recovered, leaving what recovery did for the caller to say.
fn open_quietly(
    ctx: &Ctx,
    root: &std::path::Path,
    access: pipeline::Access,
) -> Result<pipeline::Opened, Error> {
    // Recovering a large commit can take a while: say so once it does.
    // (Only looked at: a `.patchdeck` that is a link is not followed.)
    let state = root.join(patchdeck::fs::path::STATE_DIR);
    let recovering = access == pipeline::Access::Write
        && std::fs::symlink_metadata(&state).is_ok_and(|m| m.is_dir())
        && std::fs::symlink_metadata(state.join("journal")).is_ok();
    let files = std::sync::Arc::new(pipeline::Progress::default());
    let progress = progress::Progress::start_counted(
        ctx.progress && recovering,
        "recovering an interrupted commit",
        Some(std::sync::Arc::clone(&files)),
    );
    let opened = pipeline::open_counted(root, access, LOCK_WAIT, &files);
    drop(progress);
    opened
}

/// The exit status for a verification or plan outcome.
fn status_exit(status: Option<patchdeck::verify::Status>) -> i32 {
    use patchdeck::verify::Status;
    match status {
        None | Some(Status::Ok) => exit::OK,
        Some(Status::Conflict) => exit::CONFLICT,
        Some(Status::Invalid) => exit::INVALID,
    }
}
