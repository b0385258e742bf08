//! `patchdeck show`: one change, file patch or the whole batch, by ID or key.
//!
//! Text a batch carries (keys, descriptions, lines) is shown with control characters made
//! visible (`b\r` as `b␍`), so that nothing in a batch can move the cursor or hide itself.

use super::{open, output, BatchArgs, Ctx};
use clap::Args;
use patchdeck::diff_writer;
use patchdeck::error::{exit, Error};
use patchdeck::lines::visible;
use patchdeck::report::{FileReport, Report};
use patchdeck::review::{self, Decisions, Target};
use patchdeck::verify::Checked;
use std::fmt::Write as _;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Workspace root the batch's paths are relative to [default: current directory]
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        hide_default_value = true
    )]
    pub root: std::path::PathBuf,
    /// Input format, instead of detecting it (tul002, directive, bundle, structured, edits, codex, aider, markdown, unified) [default: detected from the input]
    #[arg(long, value_name = "F")]
    pub format: Option<String>,
    /// Strip N leading components from unified-diff paths, as `git apply -p N` [default: 1]
    #[arg(short = 'p', value_name = "N")]
    pub strip: Option<usize>,
    /// Refuse patch-tool calls (edits) larger than N tokens (characters / 4); 0 for no limit [default: 60000, or max_tokens in the config file]
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,
    /// The batch file, or - for standard input
    #[arg(value_name = "INPUT")]
    pub input: String,
    /// A batchId or batchKey, a filePatchId, fileKey or path, or a change selector
    #[arg(value_name = "ID")]
    pub id: String,
    /// Print the report entry as JSON [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ShowArgs, ctx: &Ctx) -> Result<i32, Error> {
    // `show` names a batch file: its ID follows it, so the work tree is not one of its inputs.
    let batch = BatchArgs {
        root: args.root.clone(),
        format: args.format.clone(),
        strip: args.strip,
        max_tokens: args.max_tokens,
        worktree: false,
        base: None,
        input: Some(args.input.clone()),
    };
    let opened = open(ctx, &batch.root, patchdeck::pipeline::Access::Read)?;
    let checked = super::load(ctx, &opened.workspace, &batch)?;
    let batch = &checked.batch;
    let plan = checked.plan(&Decisions::accept_all(batch));
    let report = Report::check(batch, &checked.verification, &plan);
    let id = args.id.as_str();

    if batch.id.as_str() == id || batch.key.as_deref() == Some(id) {
        return output::print(if args.json {
            report.to_json() + "\n"
        } else {
            batch_text(&report)
        })
        .map(|()| exit::OK);
    }
    // A whole file patch when every reading of the ID names the same one.
    let readings = review::readings(batch, &checked.verification, id);
    if let [(_, Target::File(index)), rest @ ..] = readings.found.as_slice() {
        if readings.ambiguous.is_empty() && rest.iter().all(|(_, t)| *t == Target::File(*index)) {
            let file = &report.files[*index];
            return output::print(if args.json {
                serde_json::to_string_pretty(file).expect("json") + "\n"
            } else {
                file_text(file)
            })
            .map(|()| exit::OK);
        }
    }
    let ids = review::select(batch, &checked.verification, id)?;
    let mut out = String::new();
    for change_id in &ids {
        let (fi, ci) = batch
            .files
            .iter()
            .enumerate()
            .find_map(|(fi, f)| {
                f.changes
                    .iter()
                    .position(|c| &c.id == change_id)
                    .map(|ci| (fi, ci))
            })
            .expect("select returns IDs of this batch");
        let entry = &report.files[fi].changes.get(ci);
        if args.json {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(entry).expect("json")
            );
            continue;
        }
        let file = &report.files[fi];
        let _ = writeln!(
            out,
            "change {}{} (#{} of {}, file patch {})",
            entry.id,
            quoted(entry.key),
            ci + 1,
            file.path,
            file.id
        );
        let range = batch.files[fi].changes[ci].range;
        let _ = writeln!(
            out,
            "  operation: {} {}",
            entry.operation,
            range.describe_lines()
        );
        if let Some(description) = &entry.description {
            let _ = writeln!(out, "  description: {}", visible(description));
        }
        let _ = writeln!(out, "  status: {}", entry.status);
        for problem in &entry.problems {
            let _ = writeln!(out, "  {}: {}", problem.kind, visible(problem.message));
        }
        out.push_str(&change_diff(&checked, fi, change_id));
    }
    output::print(out)?;
    Ok(exit::OK)
}

/// ` "key"`, or nothing.
fn quoted(key: Option<&str>) -> String {
    key.map(|k| format!(" \"{}\"", visible(k)))
        .unwrap_or_default()
}

/// The whole batch: its identity, then each file patch as [`file_text`] shows it, then the
/// summary line.
fn batch_text(report: &Report) -> String {
    let mut out = format!(
        "batch {}{}\n  format: {}\n  source: {}\n",
        report.batch.id,
        quoted(report.batch.key),
        report.format,
        report.source
    );
    if let Some(label) = &report.batch.label {
        let _ = writeln!(out, "  label: {}", visible(label));
    }
    for warning in report.warnings {
        let _ = writeln!(
            out,
            "  warning: {}: {}",
            warning.location,
            visible(&warning.message)
        );
    }
    for file in &report.files {
        out.push('\n');
        out.push_str(&file_text(file));
    }
    out.push('\n');
    // The report's last line is its summary.
    out.push_str(report.to_text().lines().last().unwrap_or_default());
    out.push('\n');
    out
}

/// One file patch: identity, status, problems, and a line per change.
fn file_text(file: &FileReport) -> String {
    let mut out = format!(
        "file patch {}{}\n  path: {} (docPath {})\n  action: {}\n  status: {}\n",
        file.id,
        quoted(file.key),
        file.path,
        file.doc_path,
        file.action,
        file.status
    );
    if let Some(label) = &file.label {
        let _ = writeln!(out, "  label: {}", visible(label));
    }
    for problem in &file.problems {
        let _ = writeln!(out, "  {}: {}", problem.kind, visible(problem.message));
    }
    for (i, change) in file.changes.iter().enumerate() {
        let range = match change.after_line {
            Some(after) => format!("after line {after}"),
            None if change.start_line == change.end_line => format!("line {}", change.start_line),
            None => format!("lines {}-{}", change.start_line, change.end_line),
        };
        let _ = writeln!(
            out,
            "  #{} {} {} {} {} {}{}",
            i + 1,
            change.id,
            change.key.map_or("-".into(), visible),
            change.operation,
            range,
            change.status,
            change
                .description
                .map(|d| format!(": {}", visible(d)))
                .unwrap_or_default()
        );
    }
    out
}

/// The diff this change alone would write, or its own claim (expected lines against new lines)
/// when it cannot apply. Lines are shown with their control characters visible: this is for
/// reading, not for `git apply` (`patchdeck diff` is).
fn change_diff(checked: &Checked, file: usize, change: &patchdeck::model::ChangeId) -> String {
    let decisions = Decisions::accepting(&checked.batch, [change.clone()]);
    let plan = checked.plan(&decisions);
    let mut out = Vec::new();
    match plan.writes.first() {
        Some(write) if !plan.is_blocked() => {
            let old = checked.verification.files[file].base_bytes();
            let shared = write.after.shared_with(old);
            let new = write.after.bytes();
            let _ = diff_writer::write_hunks(old, &new, &shared, diff_writer::CONTEXT, &mut out);
        }
        _ => {
            let (_, c) = checked
                .batch
                .find_change(change)
                .expect("change of this batch");
            let expected = c.expected.clone().unwrap_or_default();
            let old: String = expected.iter().map(|l| format!("{l}\n")).collect();
            let new: String = c.new_lines.iter().map(|l| format!("{l}\n")).collect();
            out.extend_from_slice(
                b"(as written in the batch; it does not apply to the file as it is)\n",
            );
            let _ = diff_writer::write_hunks(old.as_bytes(), new.as_bytes(), &[], 0, &mut out);
        }
    }
    let mut text = String::with_capacity(out.len());
    for line in String::from_utf8_lossy(&out).split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        // The line's ending is not its text.
        let body = body.strip_suffix('\r').unwrap_or(body);
        text.push_str(&visible(body));
        text.push('\n');
    }
    text
}
