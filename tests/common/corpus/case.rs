//! One real commit as a corpus case: the files it touched before and after, git's diff, and
//! the same change written in each batch format that can express it, with the drift and stale
//! variants that must conflict.
//!
//! A case folder holds
//!   base/            the touched files as they were at the parent (the workspace to patch)
//!   expected/        the same files at the commit (what a correct apply produces)
//!   diff.patch       git's unified diff of the two
//!   bundle.json      an Aptix bundle (full contents, delete operations)
//!   tul002.json      a TUL-002 batch (insert/replace/delete with SHA-256 and expected lines),
//!                    when every file is created or modified and ends with a newline
//!   structured.json  an Aptix structured patch (find/replace), and
//!   edits.json       patch-tool calls, when every file is modified and every find is unique
//!   drift/           base with two lines put on top of the first modified file
//!   stale/           base with one expected line of that file edited
//!   meta.json        what a test checks against

use super::history::{History, Hunk, Status};
use patchdeck::model::sha256_hex;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

/// The lines put on top of a file for the drift variant.
pub const DRIFT_LINES: &[u8] = b"// local edit 1\n// local edit 2\n";
/// What the stale variant appends to one expected line.
const STALE_EDIT: &str = "  // edited locally";

/// Commits larger than these are left out: a case should be quick to apply many times.
const MAX_FILES: usize = 12;
const MAX_LINES_CHANGED: usize = 600;
const MAX_FILE_BYTES: usize = 300_000;

/// A file the commit touched: its status, path, and bytes before (`None` when added) and after
/// (`None` when deleted).
struct Entry {
    status: Status,
    path: String,
    old: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
}

/// Writes the case for `commit` as `dir/PREFIX-case-IDX-SHORT`; its folder name, or `None` when the
/// commit is not one the corpus takes (a root or merge commit, binary or non-UTF-8 text, CR
/// characters, a rename the diff cannot list as A/M/D, or too large).
pub fn build(
    history: &History,
    commit: &str,
    dir: &Path,
    idx: usize,
    prefix: &str,
) -> Option<String> {
    let parent = format!("{commit}^");
    let entries = entries(history, &parent, commit).ok()??;
    let name = format!("{prefix}-case-{idx:03}-{}", &commit[..8]);
    let case = dir.join(&name);
    write_tree(
        &case.join("base"),
        entries.iter().map(|e| (&e.path, &e.old)),
    );
    write_tree(
        &case.join("expected"),
        entries.iter().map(|e| (&e.path, &e.new)),
    );
    let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    let mut args = vec![
        "diff",
        "--no-renames",
        "--full-index",
        &parent,
        commit,
        "--",
    ];
    args.extend(&paths);
    let diff = history.bytes(&args).ok()?;
    fs::write(case.join("diff.patch"), &diff).unwrap();
    let subject = history
        .text(&["log", "-1", "--format=%s", commit])
        .ok()?
        .trim()
        .to_owned();
    let hunks = diff
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"@@"))
        .count();
    let mut formats = vec!["unified", "bundle"];
    let mut meta =
        json!({"commit": commit, "subject": subject, "files": entries.len(), "hunks": hunks});

    let bundle = bundle(&entries);
    meta["bundle_changes"] = json!(entries.len());
    write_json(&case.join("bundle.json"), &bundle);

    if let Some(batch) = tul002(history, &parent, commit, &subject, &entries).ok()? {
        meta["tul002_changes"] = json!(batch["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["changes"].as_array().unwrap().len())
            .sum::<usize>());
        write_json(&case.join("tul002.json"), &batch);
        formats.push("tul002");
        conflicts(&case, &entries, &batch, &mut meta);
    }
    if let Some((structured, calls)) = find_replace(history, &parent, commit, &entries).ok()? {
        meta["find_replace_changes"] = json!(calls
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["patches"].as_array().unwrap().len())
            .sum::<usize>());
        write_json(&case.join("structured.json"), &structured);
        write_json(&case.join("edits.json"), &calls);
        formats.extend(["structured", "edits"]);
    }
    meta["formats"] = json!(formats);
    write_json(&case.join("meta.json"), &meta);
    Some(name)
}

/// The files a commit touched with their bytes, or `None` when the corpus does not take it.
fn entries(history: &History, parent: &str, commit: &str) -> Result<Option<Vec<Entry>>, String> {
    let changed = history.changed(parent, commit)?;
    if changed.is_empty() || changed.len() > MAX_FILES {
        return Ok(None);
    }
    match history.lines_changed(parent, commit)? {
        Some(n) if n <= MAX_LINES_CHANGED => {}
        _ => return Ok(None),
    }
    let mut entries = Vec::new();
    for (status, path) in changed {
        let old = (status != Status::Added)
            .then(|| history.blob(parent, &path))
            .transpose()?;
        let new = (status != Status::Deleted)
            .then(|| history.blob(commit, &path))
            .transpose()?;
        let usable = |bytes: &Option<Vec<u8>>| {
            bytes
                .as_deref()
                .is_none_or(|b| b.len() <= MAX_FILE_BYTES && clean_text(b).is_some())
        };
        if !usable(&old) || !usable(&new) {
            return Ok(None);
        }
        entries.push(Entry {
            status,
            path,
            old,
            new,
        });
    }
    Ok(Some(entries))
}

/// UTF-8 text with no CR and no NUL: what every format can carry unchanged.
fn clean_text(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    (!text.contains(['\r', '\0'])).then_some(text)
}

fn text(bytes: &Option<Vec<u8>>) -> &str {
    bytes.as_deref().map_or("", |b| clean_text(b).unwrap())
}

fn bundle(entries: &[Entry]) -> Value {
    let files: Vec<Value> = entries
        .iter()
        .map(|e| match e.status {
            Status::Deleted => json!({"path": e.path, "operation": "delete"}),
            _ => json!({"path": e.path, "content": text(&e.new)}),
        })
        .collect();
    json!({"root": ".", "files": files})
}

/// The commit as a TUL-002 batch, when every file is created or modified and ends with a
/// newline. A modified file's docPath is lower-cased: file identity ignores case.
fn tul002(
    history: &History,
    parent: &str,
    commit: &str,
    subject: &str,
    entries: &[Entry],
) -> Result<Option<Value>, String> {
    let ends_well = |b: &Option<Vec<u8>>| b.as_deref().is_some_and(|b| b.ends_with(b"\n"));
    let expressible = entries.iter().all(|e| {
        e.status != Status::Deleted
            && (e.old.is_none() || ends_well(&e.old) || e.old.as_deref() == Some(b""))
            && ends_well(&e.new)
    });
    if !expressible {
        return Ok(None);
    }
    let mut files = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let hunks = history.hunks(parent, commit, &e.path, 0)?;
        let doc_path = match e.status {
            Status::Modified => e.path.to_lowercase(),
            _ => e.path.clone(),
        };
        let letter = if e.status == Status::Added { "A" } else { "M" };
        files.push(json!({
            "fileKey": format!("file-{}", i + 1),
            "docPath": doc_path,
            "originalSha256": sha256_hex(e.old.as_deref().unwrap_or(b"")),
            "fileLabel": format!("{letter} {}", e.path),
            "changes": hunks.iter().enumerate().map(|(i, h)| change(i, h)).collect::<Vec<_>>(),
        }));
    }
    let short = &commit[..8];
    Ok(Some(
        json!({"batchLabel": subject, "batchKey": format!("commit-{short}"), "files": files}),
    ))
}

/// A zero-context hunk as a TUL-002 change. `-U0` gives a pure insertion as `-a,0`: after
/// line a.
fn change(i: usize, h: &Hunk) -> Value {
    let key = format!("hunk-{}", i + 1);
    let (old, new) = (h.old.len(), h.new.len());
    if old == 0 {
        json!({"changeKey": key, "operation": "insert", "afterLine": h.old_start,
               "description": format!("insert {new} line(s)"), "newLines": h.new})
    } else if new == 0 {
        json!({"changeKey": key, "operation": "delete", "startLine": h.old_start,
               "endLine": h.old_start + old - 1, "description": format!("delete {old} line(s)"),
               "expectedOriginalLines": h.old})
    } else {
        json!({"changeKey": key, "operation": "replace", "startLine": h.old_start,
               "endLine": h.old_start + old - 1, "description": format!("replace {old} line(s)"),
               "expectedOriginalLines": h.old, "newLines": h.new})
    }
}

/// The commit as a structured patch and as patch-tool calls: every file modified, each hunk
/// (with three lines of context) a find that occurs once in the old text, and the finds
/// replaced in order giving exactly the new text.
fn find_replace(
    history: &History,
    parent: &str,
    commit: &str,
    entries: &[Entry],
) -> Result<Option<(Value, Value)>, String> {
    if entries.iter().any(|e| e.status != Status::Modified) {
        return Ok(None);
    }
    let mut patches = Vec::new();
    let mut calls = Vec::new();
    for e in entries {
        let (old, new) = (text(&e.old), text(&e.new));
        let mut pairs = Vec::new();
        for h in history.hunks(parent, commit, &e.path, 3)? {
            let find: String = h.old.iter().map(|l| format!("{l}\n")).collect();
            let replace: String = h.new.iter().map(|l| format!("{l}\n")).collect();
            if find.is_empty() || old.matches(&find).count() != 1 {
                return Ok(None);
            }
            pairs.push((find, replace));
        }
        let mut replaced = old.to_owned();
        for (find, replace) in &pairs {
            let Some(at) = replaced.find(find.as_str()) else {
                return Ok(None);
            };
            replaced.replace_range(at..at + find.len(), replace);
        }
        if replaced != new {
            return Ok(None);
        }
        patches.push(json!({"path": e.path, "replacements": pairs.iter()
            .map(|(f, r)| json!({"find": f, "replace": r})).collect::<Vec<_>>()}));
        calls.push(json!({"path": e.path, "patches": pairs.iter()
            .map(|(f, r)| json!({"operation": "replace", "oldText": f, "newText": r}))
            .collect::<Vec<_>>()}));
    }
    Ok(Some((
        json!({"root": ".", "patches": patches}),
        Value::Array(calls),
    )))
}

/// The drift and stale variants, on the batch's first modified file: drift/ puts two lines on
/// top of it (its SHA-256 differs and every change is displaced); stale/ edits the first
/// expected line of its first replace or delete (exactly that change conflicts).
fn conflicts(case: &Path, entries: &[Entry], batch: &Value, meta: &mut Value) {
    let files = batch["files"].as_array().unwrap();
    let Some((entry, file)) = entries
        .iter()
        .zip(files)
        .find(|(e, _)| e.status == Status::Modified)
    else {
        return;
    };
    let old = entry.old.as_deref().unwrap();
    let changes = file["changes"].as_array().unwrap();
    let drift = case.join("drift");
    copy_tree(&case.join("base"), &drift);
    fs::write(drift.join(&entry.path), [DRIFT_LINES, old].concat()).unwrap();
    meta["drift"] =
        json!({"path": entry.path, "docPath": file["docPath"], "changes": changes.len()});

    let Some((index, change)) = changes
        .iter()
        .enumerate()
        .find(|(_, c)| c["operation"] == "replace" || c["operation"] == "delete")
    else {
        return;
    };
    let mut lines: Vec<String> = text(&entry.old).split('\n').map(str::to_owned).collect();
    let line = change["startLine"].as_u64().unwrap() as usize - 1;
    lines[line].push_str(STALE_EDIT);
    let stale = case.join("stale");
    copy_tree(&case.join("base"), &stale);
    fs::write(stale.join(&entry.path), lines.join("\n")).unwrap();
    meta["stale"] = json!({"path": entry.path, "docPath": file["docPath"],
                           "changeIndex": index, "changeKey": change["changeKey"]});
}

/// Writes each present file under `root`; `root` exists even when nothing is in it.
fn write_tree<'a>(root: &Path, files: impl Iterator<Item = (&'a String, &'a Option<Vec<u8>>)>) {
    fs::create_dir_all(root).unwrap();
    for (path, bytes) in files {
        if let Some(bytes) = bytes {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, bytes).unwrap();
        }
    }
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    crate::common::copy_tree(from, to);
}
