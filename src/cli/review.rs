//! `patchdeck review` (and plain `patchdeck INPUT`): open the reviewer on a batch.

use super::{loading_batch, open, BatchArgs, Ctx};
use clap::Args;
use patchdeck::config::ColorChoice;
use patchdeck::error::{exit, Error};
use patchdeck::formats::Input;
use patchdeck::loading::{self, Loading};
use patchdeck::pipeline;
use patchdeck::session::Session;
use patchdeck::tui::app::{App, Config, Outcome, ReviewerSetup, Tone};
use patchdeck::tui::env::{ColorDepth, Env};
use patchdeck::tui::theme::Palette;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub view: ViewArgs,
    /// Review only: committing is refused and no session is saved [default: off]
    #[arg(long)]
    pub read_only: bool,
    /// After a commit, write the same JSON report as `apply --json` to FILE [default: no report file]
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Start over instead of resuming the decisions saved for this batch [default: resume]
    #[arg(long)]
    pub fresh: bool,
}

/// How the reviewer looks (shared with `demo`).
#[derive(Args, Debug, Clone)]
pub struct ViewArgs {
    /// Colour theme: dark, light, high-contrast, or the path of a theme file [default: dark, or PATCHDECK_THEME, or theme in the config file]
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
}

/// The terminal the reviewer draws on and its colours, from the environment, the
/// configuration and `--theme` (shared with `gate`).
pub fn look(ctx: &Ctx, view: &ViewArgs) -> Result<(Env, Palette), Error> {
    let mut env = Env::from_process();
    if ctx.config.color.value == ColorChoice::Never {
        env.colors = ColorDepth::None;
    }
    let mut theme = ctx.config.theme.clone();
    theme.flag("--theme", view.theme.clone());
    let palette = Palette::load(&theme.value, env.colors)
        .map_err(|e| Error::usage(format!("{e} (theme from {})", theme.origin)))?;
    Ok((env, palette))
}

pub fn run(args: ReviewArgs, ctx: &Ctx) -> Result<i32, Error> {
    let (env, palette) = look(ctx, &args.view)?;
    let keymap = ctx.keymap.clone();
    if !std::io::stdout().is_terminal() {
        return Err(Error::Usage {
            message: "the reviewer needs a terminal".into(),
            hint: Some("for scripts, use `patchdeck check` or `patchdeck apply`".into()),
        });
    }
    if palette.syntax.is_some() {
        patchdeck::tui::highlight::load_in_background();
    }
    let access = if args.read_only {
        pipeline::Access::Read
    } else {
        pipeline::Access::Write
    };
    let opened = open(ctx, &args.batch.root, access)?;
    let config = Config {
        read_only: args.read_only,
        report: args.report.clone(),
        stage: ctx.config.stage.value,
    };
    // What the reviewer says first: state it ignored, and an interrupted commit waiting.
    let notices: Vec<String> = opened
        .warnings
        .iter()
        .cloned()
        .chain(
            opened
                .interrupted
                .as_deref()
                .map(patchdeck::report::say::describe_interrupted),
        )
        .collect();
    let setup = |workspace, checked, session| ReviewerSetup {
        workspace,
        checked,
        env,
        palette,
        keymap,
        config,
        session,
        fresh: args.fresh,
    };
    let input = match args.batch.input()? {
        Some(input) => Input::read(input)?,
        None => {
            let options = args.batch.load_options(ctx);
            let since =
                super::load_worktree(ctx, &opened.workspace, &args.batch, options.max_tokens)?;
            if since.checked.batch.files.is_empty() {
                super::output::eprintln(format!(
                    "patchdeck: nothing to review: the work tree is as {} has it{}",
                    since.base.name,
                    nothing_reviewable(&since.checked.batch)
                ));
                return Ok(exit::OK);
            }
            let loaded = loading::Loaded {
                workspace: opened.workspace,
                checked: since.checked,
            };
            let session = (!args.read_only)
                .then(|| Session::for_batch(&loaded.workspace, &loaded.checked.batch));
            return review(
                App::new(setup(loaded.workspace, loaded.checked, session)),
                notices,
            );
        }
    };
    // A large git diff or TUL-002 batch opens on its first files while the whole of it loads
    // behind them.
    let options = args.batch.load_options(ctx);
    let loaded = match loading::cut_first(&input, &options) {
        Some(cut) => {
            // The whole batch starts loading first: the two share the cores.
            let root = opened.workspace.root().to_path_buf();
            let whole = Loading::start(root, input, options.clone());
            match cut.load(&opened.workspace, &options) {
                Some(first) => {
                    let setup = setup(opened.workspace, first.checked, None);
                    return review(App::behind(setup, first.of, whole), notices);
                }
                // The first files do not load alone: the whole batch says why, or is shown.
                None => loading_batch(ctx, || whole.wait())?,
            }
        }
        None => loading_batch(ctx, || {
            pipeline::load_with(&opened.workspace, &input, &options)
        })
        .map(|checked| loading::Loaded {
            workspace: opened.workspace,
            checked,
        })?,
    };
    let session =
        (!args.read_only).then(|| Session::for_batch(&loaded.workspace, &loaded.checked.batch));
    review(
        App::new(setup(loaded.workspace, loaded.checked, session)),
        notices,
    )
}

/// What a work tree with nothing to review has that cannot be reviewed, said after "the work
/// tree is as the base has it".
fn nothing_reviewable(batch: &patchdeck::model::Batch) -> String {
    match batch.warnings.len() {
        0 => String::new(),
        n => format!(
            ", but for {n} file(s) that cannot be reviewed line by line: {}",
            batch
                .warnings
                .iter()
                .map(|w| w.location.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Runs the reviewer, saying first what `notices` say (state that was ignored, an interrupted
/// commit waiting) before what it has to say itself, and what happened once it is gone.
fn review(mut app: App, mut notices: Vec<String>) -> Result<i32, Error> {
    if !notices.is_empty() {
        notices.extend(app.status_text().map(|(_, text)| text.to_owned()));
        app.say(Tone::Warning, notices.join("; "));
    }
    patchdeck::tui::run(&mut app)?;
    farewell(&app);
    Ok(exit::OK)
}

/// How many written paths the farewell names before "… and N more".
const FAREWELL_PATHS: usize = 3;

/// What happened, on standard error once the screen is gone: a few lines, however many files.
fn farewell(app: &App) {
    match &app.outcome {
        Some(Outcome::Written { committed, .. }) => {
            for line in
                patchdeck::report::say::describe_committed(committed, FAREWELL_PATHS).lines()
            {
                super::output::eprintln(format!("patchdeck: {line}"));
            }
        }
        _ => {
            let decided = app.decided();
            if decided == 0 {
                return;
            }
            // "Saved" only when the last write of the session, flushed on the way out, worked.
            match (app.session(), &app.session_error) {
                (Some(session), None) => super::output::eprintln(format!(
                    "patchdeck: {decided} decision(s) saved in {}; open the batch again to resume, or `patchdeck apply --decisions` that file",
                    session.path().display()
                )),
                (_, Some(error)) => super::output::eprintln(format!(
                    "patchdeck: {decided} decision(s) NOT saved: {error}"
                )),
                (None, None) => {}
            }
        }
    }
}
