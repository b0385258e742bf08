//! `patchdeck apply`: verify, then write the selected changes atomically.

use super::{open, output, paint, status_exit, BatchArgs, Ctx};
use clap::Args;
use patchdeck::commit::failpoint::Failpoint;
use patchdeck::commit::history::keep_index_note;
use patchdeck::commit::CommitOptions;
use patchdeck::error::{exit, Error};
use patchdeck::git::Staging;
use patchdeck::model::ChangeId;
use patchdeck::pipeline::{self, Checked};
use patchdeck::plan::WriteKind;
use patchdeck::report::{Applied, Interrupted, Report};
use patchdeck::review::{self, Decision, Decisions};
use std::collections::BTreeSet;

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
    /// Apply a change whose expected lines moved at the one place they were found [default: off]
    #[arg(long)]
    pub relocate: bool,
    /// Write a file whose SHA-256 differs from the batch's when every selected change in it still verifies [default: off]
    #[arg(long)]
    pub allow_sha_mismatch: bool,
    /// Write a file that has several hard links (only the name in the batch gets the new content) [default: off]
    #[arg(long)]
    pub allow_hard_links: bool,
}

impl SelectArgs {
    /// The decisions these flags describe for a verified batch.
    ///
    /// `--only` narrows: a change it does not name is rejected, and a change it names keeps
    /// the decision it has (accepted without `--decisions`; as the file says with it).
    /// `--reject` rejects what it names, over anything else. A `--only` selector that ends up
    /// applying nothing contradicts the rest and is an error naming what rejected its changes.
    pub fn decisions(&self, checked: &Checked) -> Result<Decisions, Error> {
        let batch = &checked.batch;
        let select = |selector: &str| review::select(batch, &checked.verification, selector);
        let mut decisions = match &self.decisions {
            Some(path) => {
                let (decisions, warnings) = Decisions::load(path, batch)?;
                for warning in warnings {
                    output::eprintln(format!("patchdeck: warning: {warning}"));
                }
                decisions
            }
            None => Decisions::accept_all(batch),
        };
        let only: Vec<(&str, Vec<ChangeId>)> = self
            .only
            .iter()
            .map(|sel| select(sel).map(|ids| (sel.as_str(), ids)))
            .collect::<Result<_, _>>()?;
        let reject: Vec<(&str, Vec<ChangeId>)> = self
            .reject
            .iter()
            .map(|sel| select(sel).map(|ids| (sel.as_str(), ids)))
            .collect::<Result<_, _>>()?;
        if !only.is_empty() {
            let keep: BTreeSet<&ChangeId> = only.iter().flat_map(|(_, ids)| ids).collect();
            for (_, change) in batch.changes() {
                if !keep.contains(&change.id) {
                    decisions.set(change.id.clone(), Decision::Reject);
                }
            }
        }
        let from_file = decisions.clone();
        for (_, ids) in &reject {
            for id in ids {
                decisions.set(id.clone(), Decision::Reject);
            }
        }
        for (selector, ids) in &only {
            if ids.iter().any(|id| decisions.get(id).is_selected()) {
                continue;
            }
            let mut why = Vec::new();
            let rejecting: Vec<String> = reject
                .iter()
                .filter(|(_, r)| r.iter().any(|id| ids.contains(id)))
                .map(|(sel, _)| format!("--reject \"{sel}\""))
                .collect();
            if !rejecting.is_empty() {
                why.push(format!("{} rejects it", rejecting.join(" and ")));
            }
            if let Some(path) = &self.decisions {
                let undecided = ids
                    .iter()
                    .any(|id| *from_file.get(id) == Decision::Undecided);
                let rejected = ids.iter().any(|id| *from_file.get(id) == Decision::Reject);
                let said = match (undecided, rejected) {
                    (true, true) => "rejects or leaves undecided",
                    (true, false) => "leaves undecided",
                    _ => "rejects",
                };
                if undecided || rejected {
                    why.push(format!("{path} {said} every change it names"));
                }
            }
            return Err(Error::Usage {
                message: format!(
                    "--only \"{selector}\" selects nothing to apply: {}",
                    why.join(", and ")
                ),
                hint: Some(
                    "with --decisions, --only applies only what the file accepts; accept the changes there, or drop the selector that rejects them"
                        .into(),
                ),
            });
        }
        if self.relocate {
            decisions.relocate_all(batch);
        }
        if self.allow_sha_mismatch {
            decisions.override_all_shas(batch);
        }
        if self.allow_hard_links {
            decisions.override_all_hard_links(batch);
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
    let checked = super::load(ctx, &opened.workspace, &args.batch)?;
    options.label = pipeline::batch_name(&checked.batch);
    let decisions = args.select.decisions(&checked)?;
    let plan = checked.plan(&decisions);
    let emit = |committed, before: String, staging: Option<Staging>| -> Result<(), Error> {
        let applied = Applied {
            decisions: &decisions,
            plan: &plan,
            committed,
        };
        let mut report = Report::build(&checked.batch, &checked.verification, Some(&applied));
        report.staging = staging;
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
    if plan.is_blocked() {
        emit(None, String::new(), None)?;
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
        emit(None, lines, None)?;
        return Ok(exit::OK);
    }
    if options.read_only {
        // Review worked: show it, then refuse the write.
        emit(None, String::new(), None)?;
        return Err(Error::ReadOnly);
    }
    let committed = pipeline::commit(&opened.workspace, &plan, &options)?;
    let staging = (stage.value && !committed.written.is_empty()).then(|| {
        let paths: Vec<_> = committed.written.iter().map(|w| w.rel.clone()).collect();
        patchdeck::git::stage(opened.workspace.root(), &paths)
    });
    // What the staging did to the index is kept with the commit, so that `undo` unstages it.
    if let (Some(staging), Some(id)) = (&staging, &committed.history_id) {
        let kept = match &staging.index {
            Some(note) if note.changes.is_empty() => Ok(()),
            Some(note) => keep_index_note(&opened.workspace, id, note).map_err(|e| e.to_string()),
            None if staging.staged.is_empty() => Ok(()),
            None => Err("git could not list the index entries".to_owned()),
        };
        if let Err(e) = kept {
            output::eprintln(format!(
                "patchdeck: warning: cannot keep what was staged for undo ({e}): `patchdeck undo` will restore the files but not git's index"
            ));
        }
    }
    // The files are written either way: a file left unstaged is worth a warning naming it, not
    // a status that would say the apply failed.
    if let (Some(staging), false) = (&staging, ctx.quiet) {
        for file in &staging.not_staged {
            output::eprintln(format!(
                "patchdeck: warning: {} was written but not staged: {}",
                file.path.display(),
                file.reason
            ));
        }
        if let (Some(error), false) = (&staging.error, staging.not_staged.is_empty()) {
            output::eprintln(format!("patchdeck: git said: {error}"));
        }
    }
    let mut lines = String::new();
    if !args.json && !ctx.quiet {
        for written in &committed.written {
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
        if committed.written.is_empty() {
            lines.push_str("nothing to write: no change was selected, or every selected change leaves its file as it is\n");
        }
    }
    // The files are written: failing to say so must not turn into a status that says otherwise.
    if let Err(e) = emit(Some(&committed), lines, staging) {
        output::eprintln(format!("patchdeck: warning: {e}"));
    }
    // The process ends here: the operating system takes back a large batch and plan at once,
    // faster than freeing them piece by piece.
    std::mem::forget(plan);
    std::mem::forget(checked);
    Ok(exit::OK)
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
