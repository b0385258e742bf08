//! The headless command line: flags as typed, turned into calls on the core.
//!
//! Each subcommand lives in its own file and is a thin client of `patchdeck::pipeline`. This
//! file defines the flags (clap) and the shared handling of errors, exit statuses and output.

mod apply;
mod check;
mod demo;
mod diff;
mod recover;
mod review;
mod show;
mod undo;

use clap::{Args, Parser, Subcommand};
use patchdeck::error::{exit, Error};
use patchdeck::pipeline;
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
    #[command(subcommand)]
    pub command: Command,
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
    /// Print one change, file patch or the batch, by ID or key
    #[command(after_help = "Example:\n  patchdeck show batch.json chg-0007")]
    Show(show::ShowArgs),
    /// Restore the files of the last committed batch, if none changed since
    #[command(after_help = "Example:\n  patchdeck undo --root ~/src/app")]
    Undo(undo::UndoArgs),
    /// Roll back or finish a commit that was interrupted
    #[command(after_help = "Example:\n  patchdeck recover --root ~/src/app")]
    Recover(recover::RecoverArgs),
}

/// Flags every batch-reading subcommand shares.
#[derive(Args, Debug, Clone)]
pub struct BatchArgs {
    /// Workspace root the batch's paths are relative to [default: current directory]
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Input format, instead of detecting it (tul002, directive, bundle, structured, edits, codex, aider, markdown, unified)
    #[arg(long, value_name = "F")]
    pub format: Option<String>,
    /// Strip N leading components from unified-diff paths, as `git apply -p N` [default: 1]
    #[arg(short = 'p', value_name = "N")]
    pub strip: Option<usize>,
    /// Refuse patch-tool calls (edits) larger than N tokens (characters / 4); 0 for no limit
    #[arg(long, value_name = "N", default_value_t = patchdeck::formats::MAX_TOKENS)]
    pub max_tokens: usize,
    /// The batch file, or - for standard input
    #[arg(value_name = "INPUT")]
    pub input: String,
}

impl BatchArgs {
    /// The load options these flags describe.
    pub fn load_options(&self) -> patchdeck::formats::LoadOptions {
        patchdeck::formats::LoadOptions {
            format: self.format.clone(),
            strip: self.strip,
            max_tokens: (self.max_tokens > 0).then_some(self.max_tokens),
        }
    }
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
        Command::Diff(_)
        | Command::Recover(_)
        | Command::Undo(_)
        | Command::Review(_)
        | Command::Demo(_) => false,
    };
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Apply(args) => apply::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Show(args) => show::run(args),
        Command::Recover(args) => recover::run(args),
        Command::Undo(args) => undo::run(args),
        Command::Review(args) => review::run(args),
        Command::Demo(args) => demo::run(args),
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
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return args;
    };
    let command = Cli::command();
    let known = command
        .get_subcommands()
        .any(|s| s.get_name() == first || s.get_all_aliases().any(|a| a == first))
        || matches!(first, "help" | "-h" | "--help" | "-V" | "--version");
    if !known {
        args.insert(1, "review".into());
    }
    args
}

/// Prints an error (and its hint) on standard error, and as JSON on standard output when the
/// caller asked for JSON. Returns the exit status it maps to.
fn report_error(error: &Error, json: bool) -> i32 {
    eprintln!("patchdeck: error: {error}");
    if let Some(hint) = error.hint() {
        eprintln!("hint: {hint}");
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
        println!("{}", serde_json::to_string_pretty(&body).expect("json"));
    }
    error.exit_code()
}

/// Opens the workspace, saying on standard error when an interrupted commit was recovered.
fn open(root: &std::path::Path) -> Result<pipeline::Opened, Error> {
    let opened = pipeline::open(root, LOCK_WAIT)?;
    if let Some(recovery) = &opened.recovered {
        eprintln!("patchdeck: {}", pipeline::describe_recovery(recovery));
    }
    Ok(opened)
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
