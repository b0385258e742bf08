//! git's file modes in a diff: `new file mode`, and `old mode` / `new mode` on a file that
//! stays. A regular file's mode (100644, or 100755 for an executable) becomes the file patch's
//! [`FileMode`], which the commit writes with the content, atomically like it; a file whose
//! mode only changes gets one change without lines, so that the reviewer sees the mode change
//! and accepts or rejects it. A symbolic link (120000), a submodule (160000) or a mode git has
//! no name for is a `special_file` conflict on the file: patchdeck never writes a link, and
//! never writes its target as text.

use super::DiffFile;
use crate::formats::build::{Builder, ChangeSpec};
use crate::model::{FileMode, FilePatch, LineRange, LoadProblem};
use crate::problem::ProblemKind;

/// The regular file mode git writes as `mode`, or the conflict of a mode patchdeck does not
/// write. `line` says where the mode was read, for the message.
pub fn regular(mode: &str, path: &str, line: &str) -> Result<FileMode, LoadProblem> {
    let what = match mode {
        // 100664 is how early git wrote a group-writable file; git reads it as 100644.
        "100644" | "100664" => return Ok(FileMode::Regular),
        "100755" => return Ok(FileMode::Executable),
        "120000" => "a symbolic link (mode 120000), whose content is the link's target",
        "160000" => "a submodule (mode 160000), whose content is a commit",
        _ => "a mode git has no name for",
    };
    Err(LoadProblem::conflict(
        ProblemKind::SpecialFile,
        format!(
            "`{line} {mode}` makes {path} {what}; patchdeck writes regular files only and never writes a link or a submodule as a text file: apply this entry with git, or reject it"
        ),
    ))
}

/// Gives a created file the mode of its `new file mode` line.
pub fn on_creation(section: &DiffFile, file: &mut FilePatch) {
    let Some(mode) = &section.new_file_mode else {
        return;
    };
    match regular(mode, &file.doc_path, "new file mode") {
        Ok(FileMode::Regular) => {}
        Ok(executable) => {
            file.mode = Some(executable);
            add_to_label(file, "executable (new file mode 100755)".into());
        }
        Err(problem) => file.load_problems.push(problem),
    }
}

/// Gives a file the mode of its `new mode` line, naming the change in its label. Without a
/// hunk (`alone`), the mode change is a change of its own, without lines, for the reviewer to
/// accept or reject; with hunks it is written with them.
pub fn on_change(section: &DiffFile, file: &mut FilePatch, builder: &Builder, alone: bool) {
    check_old(section, file);
    let Some(mode) = &section.mode_change else {
        return;
    };
    let new = match regular(mode, &file.doc_path, "new mode") {
        Ok(new) => new,
        Err(problem) => return file.load_problems.push(problem),
    };
    let old = section.old_mode.as_deref().unwrap_or("(not given)");
    let what = format!("mode {old} → {}", new.as_git());
    file.mode = Some(new);
    add_to_label(file, what.clone());
    if alone {
        builder.push(
            file,
            ChangeSpec {
                description: Some(format!("{what} (the content stays)")),
                range: Some(LineRange::after(0)),
                ..ChangeSpec::default()
            },
        );
    }
}

/// Refuses, as git does, a file the diff says is not a regular file (a link or a submodule by
/// its `old mode`, `deleted file mode` or `index` line): its hunks are not text to write into
/// the regular file that may stand at that path, nor is deleting it deleting that file.
pub fn check_old(section: &DiffFile, file: &mut FilePatch) {
    if let Some(mode) = &section.old_mode {
        if let Err(problem) = regular(mode, &file.doc_path, section.old_mode_line) {
            file.load_problems.push(problem);
        }
    }
}

fn add_to_label(file: &mut FilePatch, what: String) {
    file.label = Some(match file.label.take() {
        Some(label) => format!("{label}; {what}"),
        None => what,
    });
}
