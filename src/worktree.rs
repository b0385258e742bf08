//! A batch of what changed in the work tree since a base: the edits an agent wrote straight to
//! disk, for a person to keep, undo or edit one by one.
//!
//! The batch is git's diff *from* the work tree *back to* the base (a checkpoint, `HEAD`, or
//! any commit), read as any git diff is, with the [`Stance::Standing`]: each change puts the
//! base's lines back over one edit that stands in its file. So the batch verifies against the
//! files as they are, and everything after verification is the core's as for any batch: a
//! rejected change is written (the edit undone), an accepted one is not (the edit kept), an
//! edited one writes the person's lines in the edit's place; the commit checks each file is
//! still what was verified (an agent still writing is a conflict), journals, and keeps the
//! agent's version for `undo`. What a person reads is the edit, base to work tree: the
//! reviewer shows each change that way round, and the words of every client come from the
//! stance ([`crate::report::say`]).
//!
//! What git's diff shows that cannot be reviewed line by line (a binary file, a symbolic
//! link, a file that is not UTF-8) is left out of the batch, named in its warnings, and left
//! as it is.

use crate::error::{Error, Result};
use crate::formats::{self, Input, LoadOptions};
use crate::git::worktree::{not_a_work_tree, Repo};
use crate::model::{Batch, FileAction, InputWarning, Stance};
use crate::verify::{self, Checked};
use crate::workspace::Workspace;

/// What the changes are compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    /// How a person names it: `checkpoint refs/patchdeck/checkpoints/…`, `HEAD`, or the
    /// revision given.
    pub name: String,
    /// The commit.
    pub commit: String,
    /// What a person should know of it: refs under `refs/patchdeck/checkpoints/` that were
    /// ignored, HEAD moved since the checkpoint.
    pub warnings: Vec<String>,
}

/// The work tree's changes since a base, loaded and verified.
pub struct Since {
    pub base: Base,
    pub checked: Checked,
}

/// The base a work tree review compares with: `revision` when given, else the latest
/// checkpoint, else `HEAD`.
pub fn base(repo: &Repo, revision: Option<&str>) -> Result<Base> {
    if let Some(revision) = revision {
        let commit = repo.resolve(revision).ok_or_else(|| Error::Usage {
            message: format!("--base {revision}: git knows no commit by that name"),
            hint: Some("name a commit, a branch, a tag or a checkpoint (`git for-each-ref refs/patchdeck/`)".into()),
        })?;
        return Ok(Base {
            name: revision.to_owned(),
            commit,
            warnings: Vec::new(),
        });
    }
    // Only a checkpoint whose seal opens is one this user made here; with none of those among
    // others, HEAD would show the person's own work since as the agent's: asked instead.
    let checkpoints = repo.checkpoints();
    let ignored = checkpoints.warning();
    if checkpoints.ours.is_empty() && checkpoints.ignored > 0 {
        return Err(Error::Usage {
            message: format!(
                "none of the {} ref(s) under refs/patchdeck/checkpoints/ is a checkpoint you made in this repository (it came with a clone or a copy, or another user made it)",
                checkpoints.ignored
            ),
            hint: Some("name the base with --base REF (--base HEAD: what changed since the last commit), or run `patchdeck checkpoint` before the agent's next turn".into()),
        });
    }
    let mut warnings: Vec<String> = ignored.into_iter().collect();
    if let Some(checkpoint) = checkpoints.ours.last() {
        if let Some(commit) = repo.resolve(checkpoint) {
            warnings.extend(head_moved(repo, checkpoint));
            return Ok(Base {
                name: format!("checkpoint {checkpoint}"),
                commit,
                warnings,
            });
        }
    }
    match repo.resolve("HEAD") {
        Some(commit) => Ok(Base {
            name: "HEAD".to_owned(),
            commit,
            warnings,
        }),
        None => Err(Error::Usage {
            message: "--worktree has no base to compare with: no checkpoint, and no commit yet"
                .into(),
            hint: Some(
                "run `patchdeck checkpoint` before the agent writes, or commit a first version (`git add -A && git commit -m base`)"
                    .into(),
            ),
        }),
    }
}

/// When HEAD is not what it was when `checkpoint` was made (a commit, a merge, a pull, a
/// checkout since): what those commits changed shows as changed since the checkpoint, though
/// the agent may not have written it.
fn head_moved(repo: &Repo, checkpoint: &str) -> Option<String> {
    let then = repo.resolve(&format!("{checkpoint}^"));
    let now = repo.resolve("HEAD");
    let short = |c: &Option<String>| {
        c.as_deref()
            .map_or("none".to_owned(), |c| c[..c.len().min(12)].to_owned())
    };
    (then != now).then(|| {
        format!(
            "HEAD moved since the checkpoint ({} then, {} now): what the commits since changed shows too, as if the agent had written it; --base HEAD shows only what is not committed",
            short(&then),
            short(&now)
        )
    })
}

/// The work tree under `workspace`'s root since `revision` (see [`base`]), as a batch of
/// standing changes, verified.
pub fn load(
    workspace: &Workspace,
    revision: Option<&str>,
    max_tokens: Option<usize>,
) -> Result<Since> {
    let root = workspace.root();
    let repo = Repo::open(root).map_err(|_| not_a_work_tree(root))?;
    let base = base(&repo, revision)?;
    let tree = repo.snapshot()?;
    let diff = repo.diff_back(&tree, &base.commit)?;
    let (reviewable, left_out) = sections(&diff, |paths| repo.converted(paths));
    let source = format!("the work tree since {}", base.name);
    let mut batch = if reviewable.is_empty() {
        empty(&source, &diff)
    } else {
        let input = Input::from_bytes(&source, reviewable);
        let options = LoadOptions {
            format: Some("unified".into()),
            strip: Some(1),
            max_tokens,
            change_ids: true,
            // Every file here has changes git has not recorded: that is the point.
            git_status: false,
        };
        formats::load_with(&input, workspace, &options)?
    };
    batch.stance = Stance::Standing;
    batch.label = Some(format!("what changed since {}", base.name));
    batch.warnings.extend(left_out);
    batch
        .warnings
        .extend(base.warnings.iter().map(|message| InputWarning {
            location: base.name.clone(),
            message: message.clone(),
        }));
    describe_standing(&mut batch);
    let verification = verify::verify(&batch, workspace);
    Ok(Since {
        base,
        checked: Checked {
            batch,
            verification,
        },
    })
}

/// A batch of nothing: the work tree is as the base has it (or differs only where nothing can
/// be reviewed).
fn empty(source: &str, diff: &[u8]) -> Batch {
    let sha = crate::model::sha256_hex(diff);
    Batch {
        id: crate::model::BatchId(format!("batch-{}", &sha[..12])),
        key: None,
        label: None,
        format: "unified".into(),
        source: source.to_owned(),
        content_sha256: sha,
        files: Vec::new(),
        warnings: Vec::new(),
        stance: Stance::Standing,
    }
}

/// The file sections of git's diff that can be reviewed line by line, and a warning for each
/// one that cannot.
fn sections(
    diff: &[u8],
    converted: impl FnOnce(&[String]) -> std::collections::HashSet<String>,
) -> (Vec<u8>, Vec<InputWarning>) {
    let mut kept = Vec::with_capacity(diff.len());
    let mut left_out = Vec::new();
    let sections = split_sections(diff);
    let paths: Vec<String> = sections.iter().map(|s| section_path(s)).collect();
    // A file git converts on checkout: its diff is between converted forms, not its bytes.
    let converted = converted(&paths);
    let why = |section: &[u8], path: &String| {
        unreviewable(section).or_else(|| {
            converted
                .contains(path)
                .then_some("a file git converts between the work tree and its objects (line endings, a filter) changed")
        })
    };
    // A path with any section that cannot be reviewed is left out whole: a symbolic link that
    // became a file is two sections, and undoing only the file's would not bring the link back.
    let unreviewed: std::collections::HashSet<&String> = sections
        .iter()
        .zip(&paths)
        .filter(|(s, p)| why(s, p).is_some())
        .map(|(_, p)| p)
        .collect();
    for (section, path) in sections.iter().zip(&paths) {
        match why(section, path) {
            None if !unreviewed.contains(path) => kept.extend_from_slice(section),
            None => {}
            Some(why) => left_out.push(InputWarning {
                location: crate::lines::visible(path).into_owned(),
                message: format!("{why}: it cannot be reviewed line by line, and is left as it is"),
            }),
        }
    }
    (kept, left_out)
}

/// Each `diff --git` section of a diff, with its header.
fn split_sections(diff: &[u8]) -> Vec<&[u8]> {
    let mut starts: Vec<usize> = Vec::new();
    if diff.starts_with(b"diff --git ") {
        starts.push(0);
    }
    starts.extend(memchr::memmem::find_iter(diff, b"\ndiff --git ").map(|at| at + 1));
    starts.push(diff.len());
    starts.windows(2).map(|w| &diff[w[0]..w[1]]).collect()
}

/// Why a section cannot be reviewed line by line, if it cannot.
fn unreviewable(section: &[u8]) -> Option<&'static str> {
    let head_end = memchr::memmem::find(section, b"\n@@ ").unwrap_or(section.len());
    let head = &section[..head_end];
    let says = |what: &[u8]| memchr::memmem::find(head, what).is_some();
    // A mode is said on the lines after the first (`new file mode 120000`, `index a..b
    // 160000`), never in the names the first line holds.
    let modes: Vec<&[u8]> = head.split(|&b| b == b'\n').skip(1).collect();
    let mode = |m: &[u8]| {
        modes.iter().any(|line| {
            line.ends_with(m)
                && (line.starts_with(b"index ")
                    || line.starts_with(b"new ")
                    || line.starts_with(b"old ")
                    || line.starts_with(b"deleted "))
        })
    };
    if says(b"\nBinary files ") || says(b"\nGIT binary patch") {
        Some("a binary file changed")
    } else if mode(b" 120000") {
        Some("a symbolic link changed")
    } else if mode(b" 160000") {
        Some("a submodule changed")
    } else if std::str::from_utf8(section).is_err() {
        Some("a file that is not UTF-8 changed")
    } else {
        None
    }
}

/// The path a section names (its first line, as git wrote it).
fn section_path(section: &[u8]) -> String {
    let first = section.split(|&b| b == b'\n').next().unwrap_or_default();
    let names =
        String::from_utf8_lossy(first.strip_prefix(b"diff --git ").unwrap_or(first)).into_owned();
    // `a/X b/X`: the side after the work tree's `a/` is the work tree's name; a quoted name
    // (`"a/\303\251.txt" ...`) is unquoted.
    if names.starts_with('"') {
        if let Some(name) = crate::formats::unified::unquote(&names) {
            return name.strip_prefix("a/").unwrap_or(&name).to_owned();
        }
    }
    // Both sides the same name (all but a rename): the first half, whatever ` b/` it holds.
    if let Some(both) = names.strip_prefix("a/") {
        let half = both.len().saturating_sub(3) / 2;
        if both.get(half..half + 3) == Some(" b/") && both[..half] == both[half + 3..] {
            return both[..half].to_owned();
        }
    }
    match names.strip_prefix("a/").and_then(|n| n.split(" b/").next()) {
        Some(name) => name.to_owned(),
        None => names,
    }
}

/// Labels each file patch and change with what the agent did (the batch's actions are the
/// reversal's: an agent's new file is removed by the reversal), in the lines of the file on
/// disk.
fn describe_standing(batch: &mut Batch) {
    for file in &mut batch.files {
        let of = (file.action, file.copy_from.as_deref());
        for change in &mut file.changes {
            change.description = Some(what_the_agent_did(of, change));
        }
        let did = match (file.action, &file.copy_from) {
            (FileAction::Delete, _) => match &file.label {
                Some(label) if label.starts_with("renamed to ") => {
                    format!("renamed from {}", &label["renamed to ".len()..])
                }
                _ => "new file".to_owned(),
            },
            (FileAction::Create, Some(from)) => format!("renamed to {from}"),
            (FileAction::Create, None) => "deleted".to_owned(),
            (FileAction::Modify, _) => match file.label.as_deref().map(turn_mode_round) {
                Some(label) => label,
                None => continue,
            },
        };
        file.label = Some(did);
    }
}

/// A label that names the reversal's mode change (`mode 100755 → 100644`), naming the
/// agent's instead.
fn turn_mode_round(label: &str) -> String {
    let Some(at) = label.find("mode ") else {
        return label.to_owned();
    };
    let (head, rest) = label.split_at(at + "mode ".len());
    let Some((now, base)) = rest.split_once(" → ") else {
        return label.to_owned();
    };
    let (base, tail) = base.split_at(base.find(' ').unwrap_or(base.len()));
    format!("{head}{base} → {now}{tail}")
}

/// One change of the work tree as the agent made it: the base had the change's new lines, the
/// file on disk has its expected lines, at its range. `file` is the file patch's (the
/// reversal's) action and the name it copies.
fn what_the_agent_did(file: (FileAction, Option<&str>), change: &crate::model::Change) -> String {
    let said = change.description.as_deref().unwrap_or_default();
    // The function git names after a hunk's `@@` (its section), in a file the agent changed;
    // what the reader makes up for a new, deleted or renamed file says nothing of a place.
    let context = Some(said)
        .filter(|d| {
            file.0 == FileAction::Modify
                && !d.is_empty()
                && !d.starts_with("@@")
                && !d.ends_with("(the content stays)")
        })
        .map(|d| {
            let d: String = d.trim().chars().take(60).collect();
            format!(" (near \"{d}\")")
        })
        .unwrap_or_default();
    // A hunk carries lines of context on both sides: what the agent changed is between them.
    let base = &change.new_lines;
    let nothing = crate::text_lines::TextLines::default();
    let disk = change.expected.as_ref().unwrap_or(&nothing);
    let same = |a: Option<&str>, b: Option<&str>| a.is_some() && a == b;
    let mut head = 0;
    while same(base.get(head), disk.get(head)) {
        head += 1;
    }
    let mut tail = 0;
    while head + tail < base.len().min(disk.len())
        && same(
            base.get(base.len() - 1 - tail),
            disk.get(disk.len() - 1 - tail),
        )
    {
        tail += 1;
    }
    let had = base.len() - head - tail;
    let wrote = disk.len() - head - tail;
    let lines = |n: usize| match n {
        1 => "1 line".to_owned(),
        n => format!("{n} lines"),
    };
    let range = crate::model::LineRange {
        start: change.range.start + head,
        count: wrote,
    }
    .describe_lines();
    match file {
        (FileAction::Delete, _) => match said.split_once(" (renamed to ") {
            Some((_, from)) => format!("renamed {} to this file", from.trim_end_matches(')')),
            None => format!("made the file ({})", lines(wrote)),
        },
        (FileAction::Create, Some(from))
            if had == 0 && wrote == 0 && !said.starts_with("mode ") =>
        {
            format!("renamed the file to {from}")
        }
        (FileAction::Create, None) => format!("deleted the file ({})", lines(had)),
        _ if had == 0 && wrote == 0 => {
            match said.strip_prefix("mode ").and_then(|m| m.split_once(" → ")) {
                // The reversal's mode change, turned round.
                Some((now, base)) => format!(
                    "changed the mode from {} to {now}",
                    base.split(' ').next().unwrap_or(base)
                ),
                None => said.to_owned(),
            }
        }
        _ if wrote == 0 => format!("removed {} {range}{context}", lines(had)),
        _ if had == 0 => format!("added {range}{context}"),
        _ => format!("changed {range} (the base had {}){context}", lines(had)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_links_and_other_encodings_are_left_out_by_name() {
        let diff = b"diff --git a/t.txt b/t.txt\nindex 1..2 100644\n--- a/t.txt\n+++ b/t.txt\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\ndiff --git a/l b/l\nindex 1..2 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/latin.txt b/latin.txt\nindex 1..2 100644\n--- a/latin.txt\n+++ b/latin.txt\n@@ -1 +1 @@\n-caf\xe9\n+cafe\n";
        let (kept, left) = sections(diff, |_| Default::default());
        assert!(kept.starts_with(b"diff --git a/t.txt") && kept.ends_with(b"+b\n"));
        let named: Vec<(&str, &str)> = left
            .iter()
            .map(|w| (w.location.as_str(), w.message.split(':').next().unwrap()))
            .collect();
        assert_eq!(
            named,
            [
                ("i.png", "a binary file changed"),
                ("l", "a symbolic link changed"),
                ("latin.txt", "a file that is not UTF-8 changed"),
            ]
        );
    }

    #[test]
    fn a_path_git_converts_is_left_out_and_names_are_read_as_git_writes_them() {
        let diff = b"diff --git a/w.txt b/w.txt\nindex 1..2 100644\n--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-a\n+b\n";
        let (kept, left) = sections(diff, |paths| paths.iter().cloned().collect());
        assert!(kept.is_empty());
        assert!(
            left[0].message.starts_with("a file git converts"),
            "{left:?}"
        );
        assert_eq!(
            section_path(b"diff --git a/x b/y.bin b/x b/y.bin\n"),
            "x b/y.bin"
        );
        assert_eq!(
            section_path(b"diff --git \"a/\\303\\251.txt\" \"b/\\303\\251.txt\"\n"),
            "\u{e9}.txt"
        );
        assert_eq!(section_path(b"diff --git a/old b/new\n"), "old");
    }
}
