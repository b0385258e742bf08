//! `patchdeck apply`: verify, then write the selected changes atomically.

use super::{open, output, paint, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::commit::{CommitOptions, NewContents};
use patchdeck::error::{exit, Error};
use patchdeck::failpoint::Failpoint;
use patchdeck::fs::Snapshot;
use patchdeck::model::Stance;
use patchdeck::pipeline;
use patchdeck::plan::{FileWrite, Plan, WriteKind};
use patchdeck::report::say;
use patchdeck::report::{Decided, Interrupted, Report};
use patchdeck::review::rules::{FileOverride, RELOCATE};
use patchdeck::review::{Decisions, Selection};
use patchdeck::verify::Checked;
use patchdeck::workspace::Release;

#[derive(Args, Debug)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the report as one JSON object [default: text]
    #[arg(long)]
    pub json: bool,
    /// Verify and plan, print what would be written, write nothing [default: off]
    #[arg(long)]
    pub dry_run: bool,
    /// Review only: verify and report, but refuse to write anything [default: off]
    #[arg(long)]
    pub read_only: bool,
    /// After writing, stage the written files in git (`git add`; `git rm --cached` for deletions) [default: off, or stage in the config file]
    #[arg(long)]
    pub stage: bool,
}

/// Which changes to write, and which overrides to allow (shared with `diff`).
#[derive(Args, Debug)]
pub struct SelectArgs {
    /// Do not apply the changes SEL names (changeId, changeKey, FILEKEY/CHANGEKEY, PATH#N, fileKey, docPath); repeatable [default: none]
    #[arg(long, value_name = "SEL")]
    pub reject: Vec<String>,
    /// Apply only the changes SEL names (with --decisions: only those the file accepts); repeatable [default: every change]
    #[arg(long, value_name = "SEL")]
    pub only: Vec<String>,
    /// Apply the decisions saved in FILE (by the reviewer, or by hand); undecided changes are not applied [default: accept every change]
    #[arg(long, value_name = "FILE")]
    pub decisions: Option<String>,
    /// Apply a change whose expected lines moved where they were found, when the evidence takes that place (the changes around it, its own lines, nothing edited where it says) [default: off]
    #[arg(long = RELOCATE)]
    pub relocate: bool,
    /// Write a file whose SHA-256 differs from the batch's when every selected change in it still verifies [default: off]
    #[arg(long = FileOverride::Sha.long())]
    pub allow_sha_mismatch: bool,
    /// Write a file that has several hard links (only the name in the batch gets the new content) [default: off]
    #[arg(long = FileOverride::HardLink.long())]
    pub allow_hard_links: bool,
    /// Write a file the batch creates (or moves a file onto) over the file that exists there, as Codex would [default: off: a conflict]
    #[arg(long = FileOverride::Overwrite.long())]
    pub allow_overwrite: bool,
}

impl SelectArgs {
    /// The decisions these flags describe for a verified batch (see [`Selection`]); warnings
    /// from reading a decisions file are printed.
    pub fn decisions(&self, checked: &Checked) -> Result<Decisions, Error> {
        let selection = Selection {
            reject: self.reject.clone(),
            only: self.only.clone(),
            decisions: self.decisions.clone(),
            relocate: self.relocate,
            allow_sha_mismatch: self.allow_sha_mismatch,
            allow_hard_links: self.allow_hard_links,
            allow_overwrite: self.allow_overwrite,
        };
        let (decisions, warnings) = selection.decisions(checked)?;
        for warning in warnings {
            output::eprintln(format!("patchdeck: warning: {warning}"));
        }
        Ok(decisions)
    }
}

/// Commit options from the environment, read once: `PATCHDECK_FAILPOINT` arms a fault for
/// tests, in debug builds or with the `failpoints` feature only.
pub fn commit_options() -> Result<CommitOptions, Error> {
    let mut options = CommitOptions::default();
    if cfg!(any(debug_assertions, feature = "failpoints")) {
        if let Ok(spec) = std::env::var("PATCHDECK_FAILPOINT") {
            options.failpoint = Some(Failpoint::parse(&spec).map_err(Error::usage)?);
        }
    }
    Ok(options)
}

pub fn run(args: ApplyArgs, ctx: &Ctx) -> Result<i32, Error> {
    let mut options = commit_options()?;
    options.read_only = args.read_only;
    let mut stage = ctx.config.stage.clone();
    stage.flag("--stage", args.stage.then_some(true));
    let access = if args.read_only || args.dry_run {
        pipeline::Access::Read
    } else {
        pipeline::Access::Write
    };
    let opened = open(ctx, &args.batch.root, access)?;
    // No file is kept once it is checked, as with `check`: the commit reads each target again
    // under its lock, checks it against the checksum kept of it, and makes its new content
    // then. A batch of thousands of files is applied holding a few at a time. A decisions file
    // is the reviewer's, which may place a change or edit it over the lines the person saw:
    // judging those takes the file's lines, so its files are kept as the reviewer keeps them.
    let report = !ctx.quiet;
    // A work tree review keeps its files too: the feedback kept with its commit quotes them.
    let holds_files = args.select.decisions.is_some() || args.batch.worktree;
    if !holds_files {
        opened.workspace.release_files(Release {
            sha256: args.json && report,
            commit: true,
        });
    }
    options.sha256 = report;
    let checked = super::load(ctx, &opened.workspace, &args.batch)?;
    options.label = patchdeck::report::say::batch_name(&checked.batch);
    let decisions = args.select.decisions(&checked)?;
    let plan = match holds_files {
        true => checked.plan(&decisions),
        false => checked.plan_blockers(&decisions),
    };
    let emit = |report: Report, before: String| -> Result<(), Error> {
        let mut report = report;
        report.interrupted_commit = opened.interrupted.as_deref().map(Interrupted::new);
        if ctx.quiet {
            Ok(())
        } else if args.json {
            output::print_with(|out| report.write_json(out))
        } else if ctx.color {
            output::print(before + &paint::report(&report.to_text()))
        } else {
            output::print(before + &report.to_text())
        }
    };
    let decided = Decided {
        decisions: &decisions,
        plan: &plan,
        committed: None,
    };
    let unwritten = || Report::build(&checked.batch, &checked.verification, Some(&decided));
    if plan.is_blocked() {
        emit(unwritten(), String::new())?;
        if !ctx.quiet {
            output::eprintln("patchdeck: nothing was written");
        }
        return Ok(status_exit(plan.blocking_status()));
    }
    if args.dry_run {
        let mut lines = String::new();
        if !args.json && !ctx.quiet {
            for write in &plan.writes {
                lines.push_str(&format!(
                    "would {} {}\n",
                    verb(write.kind),
                    write.rel.display()
                ));
            }
        }
        emit(unwritten(), lines)?;
        return Ok(exit::OK);
    }
    if options.read_only {
        // Review worked: show it, then refuse the write.
        emit(unwritten(), String::new())?;
        return Err(Error::ReadOnly);
    }
    let applied = {
        let make = |write: &FileWrite, target: Option<&Snapshot>| {
            checked.content_of(&decisions, write, target)
        };
        let contents = match holds_files {
            true => NewContents::Planned,
            false => NewContents::Made(&make),
        };
        pipeline::apply_with(&opened.workspace, &plan, contents, &options, stage.value)?
    };
    let standing = checked.batch.stance == Stance::Standing;
    // What the person undid, and why, for the agent: `patchdeck feedback --last`.
    let kept = standing
        .then(|| pipeline::keep_feedback(&opened.workspace, &checked, &decisions, &applied))
        .flatten();
    if !ctx.quiet {
        for warning in applied.warnings.iter().chain(&kept) {
            output::eprintln(format!("patchdeck: warning: {warning}"));
        }
    }
    let mut lines = String::new();
    if !args.json && !ctx.quiet && standing {
        lines = standing_lines(&plan, &checked, &decisions);
    } else if !args.json && !ctx.quiet {
        for written in &applied.committed.written {
            let sha = written
                .sha256
                .as_deref()
                .map(|s| format!(" (sha256 {})", &s[..12]))
                .unwrap_or_default();
            lines.push_str(&format!(
                "{} {}{sha}\n",
                past(written.kind),
                written.rel.display()
            ));
        }
        if applied.committed.written.is_empty() {
            lines.push_str("nothing to write: no change was selected, or every selected change leaves its file as it is\n");
        }
    }
    let decided = Decided {
        committed: Some(&applied.committed),
        ..decided
    };
    // The files are written: failing to say so must not turn into a status that says otherwise.
    output::said(
        "the files are written",
        emit(applied.report(&checked, &decided), lines),
    );
    // The process ends here: the operating system takes back a large batch and plan at once,
    // faster than freeing them piece by piece.
    std::mem::forget(plan);
    std::mem::forget(checked);
    Ok(exit::OK)
}

/// What a commit of the work tree's changes did, a line a file.
fn standing_lines(plan: &Plan, checked: &Checked, decisions: &Decisions) -> String {
    let mut lines: String = plan
        .writes
        .iter()
        .map(|w| say::describe_standing_write(w, &checked.batch, decisions) + "\n")
        .collect();
    if plan.writes.is_empty() {
        lines.push_str("nothing to undo: every change stays as the agent wrote it\n");
    }
    lines
}

fn verb(kind: WriteKind) -> &'static str {
    match kind {
        WriteKind::Modify => "write",
        WriteKind::Create => "create",
        WriteKind::Delete => "delete",
    }
}

fn past(kind: WriteKind) -> &'static str {
    match kind {
        WriteKind::Modify => "wrote",
        WriteKind::Create => "created",
        WriteKind::Delete => "deleted",
    }
}
