//! `patchdeck show`: one change, file patch or the whole batch, by ID or key.

use super::{open, output, BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::{exit, Error};
use patchdeck::pipeline::Checked;
use patchdeck::report::Report;
use patchdeck::review::{self, Decision, Decisions};
use patchdeck::unified_diff;
use std::fmt::Write as _;

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub batch: BatchArgs,
    /// A batchId or batchKey, a filePatchId, fileKey or docPath, or a change selector
    #[arg(value_name = "ID")]
    pub id: String,
    /// Print the report entry as JSON [default: text]
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ShowArgs, ctx: &Ctx) -> Result<i32, Error> {
    let opened = open(ctx, &args.batch.root)?;
    let checked = super::load(ctx, &opened.workspace, &args.batch)?;
    let batch = &checked.batch;
    let report = Report::check(
        batch,
        &checked.verification,
        &checked.plan(&Decisions::accept_all(batch)),
    );
    let id = args.id.as_str();

    if batch.id.as_str() == id || batch.key.as_deref() == Some(id) {
        if args.json {
            output::println(report.to_json())?;
        } else {
            output::print(report.to_text())?;
        }
        return Ok(exit::OK);
    }
    if let Some(index) = batch
        .files
        .iter()
        .position(|f| f.id.as_str() == id || f.key.as_deref() == Some(id) || f.doc_path == id)
    {
        let file = &report.files[index];
        if args.json {
            output::println(serde_json::to_string_pretty(file).expect("json"))?;
        } else {
            let mut out = format!(
                "file patch {}{}\n  path: {} (docPath {})\n  action: {}\n  status: {}\n",
                file.id,
                file.key
                    .as_deref()
                    .map(|k| format!(" \"{k}\""))
                    .unwrap_or_default(),
                file.path,
                file.doc_path,
                file.action,
                file.status
            );
            if let Some(label) = &file.label {
                let _ = writeln!(out, "  label: {label}");
            }
            for problem in &file.problems {
                let _ = writeln!(out, "  {}: {}", problem.kind, problem.message);
            }
            for (i, change) in file.changes.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  #{} {} {} {} lines {}-{} {}{}",
                    i + 1,
                    change.id,
                    change.key.as_deref().unwrap_or("-"),
                    change.operation,
                    change.start_line,
                    change.end_line,
                    change.status,
                    change
                        .description
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                );
            }
            output::print(out)?;
        }
        return Ok(exit::OK);
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
        let entry = &report.files[fi].changes[ci];
        if args.json {
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(entry).expect("json"));
            continue;
        }
        let file = &report.files[fi];
        let _ = writeln!(
            out,
            "change {}{} (#{} of {}, file patch {})",
            entry.id,
            entry
                .key
                .as_deref()
                .map(|k| format!(" \"{k}\""))
                .unwrap_or_default(),
            ci + 1,
            file.path,
            file.id
        );
        let range = batch.files[fi].changes[ci].range;
        let _ = writeln!(
            out,
            "  operation: {} lines {}",
            entry.operation,
            range.describe()
        );
        if let Some(description) = &entry.description {
            let _ = writeln!(out, "  description: {description}");
        }
        let _ = writeln!(out, "  status: {}", entry.status);
        for problem in &entry.problems {
            let _ = writeln!(out, "  {}: {}", problem.kind, problem.message);
        }
        out.push_str(&change_diff(&checked, fi, change_id));
    }
    output::print(out)?;
    Ok(exit::OK)
}

/// The diff this change alone would write, or its own claim (expected lines against new lines)
/// when it cannot apply.
fn change_diff(checked: &Checked, file: usize, change: &patchdeck::model::ChangeId) -> String {
    let mut decisions = Decisions::undecided(&checked.batch);
    decisions.set(change.clone(), Decision::Accept);
    let plan = checked.plan(&decisions);
    let mut out = Vec::new();
    match plan.writes.first() {
        Some(write) if !plan.is_blocked() => {
            let old = checked.verification.files[file].base_bytes();
            let _ = unified_diff::write_hunks(old, &write.after, unified_diff::CONTEXT, &mut out);
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
            let _ = unified_diff::write_hunks(old.as_bytes(), new.as_bytes(), 0, &mut out);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
