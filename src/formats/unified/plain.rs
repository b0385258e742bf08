//! The file a section of a plain diff (`---`/`+++` without a `diff --git` line) changes, as git
//! apply names it: one name for both sides (the new one, or the old one when the new one only
//! adds to it: `file` for `file` and `file.new`), a creation or deletion said by `/dev/null`,
//! by GNU `diff -N`'s epoch timestamp or by Subversion's `(nonexistent)` and `(revision 0)`,
//! and the `-p` git guesses when none is given: 0 once a section's names have no `/` at all.

use super::names::{strip_path, strip_problem, HeaderName};
use super::DiffFile;
use crate::error::InputProblem;

/// The strip of plain sections: `-p N` when given, else git's 1 until a section's names have no
/// `/` (then 0, for that section and every later one, as git apply guesses it).
#[derive(Clone, Debug)]
pub(super) struct StripGuess {
    strip: usize,
    known: bool,
    /// The input line of the section whose names made the guess.
    guessed_at: Option<usize>,
}

impl StripGuess {
    pub(super) fn new(given: Option<usize>) -> StripGuess {
        StripGuess {
            strip: given.unwrap_or(1),
            known: given.is_some(),
            guessed_at: None,
        }
    }

    /// Names `file` from its `---` and `+++` names; what is wrong when they name no file.
    pub(super) fn name(
        &mut self,
        file: &mut DiffFile,
        old: &HeaderName,
        new: &HeaderName,
    ) -> Result<(), String> {
        self.guess(file, old, new);
        file.created = false;
        file.deleted = false;
        file.old_path = None;
        file.new_path = None;
        for side in [old, new] {
            if side.broken_quote {
                return Err(format!(
                    "the name {} is a quoted string with more text after it: a name is quoted whole (\"a/sub/file\") or not at all, and git apply reads no file there either",
                    side.name.as_deref().unwrap_or("").escape_debug()
                ));
            }
        }
        let strip = self.strip;
        let stripped = |side: &HeaderName| side.name.as_deref().map(|p| strip_path(p, strip));
        let name = match (stripped(old), stripped(new)) {
            (None, None) => return Ok(()),
            (Some(first), Some(second)) => shorter(first, second),
            (Some(only), None) | (None, Some(only)) => only,
        };
        let Some(name) = name else {
            let named = new.name.as_deref().or(old.name.as_deref()).unwrap_or("");
            return Err(strip_problem(named, strip));
        };
        let (created, deleted) = match (
            old.name.is_none() || old.absent,
            new.name.is_none() || new.absent,
        ) {
            (true, true) => (false, false),
            sides => sides,
        };
        file.created = created;
        file.deleted = deleted;
        file.old_path = (!created).then(|| name.clone());
        file.new_path = (!deleted).then_some(name);
        // With git's default -p1, the name as written, for `place` to take when only it
        // names a file (see `place::written_name`).
        // Only when both sides name the same path: a diff made between two trees names them
        // apart (`a/` and `b/`, `old/` and `new/`), and its prefix is meant to go.
        file.unstripped = match (self.known, &old.name, &new.name) {
            (false, Some(o), Some(n)) if o == n => Some(n.clone()),
            _ => None,
        };
        Ok(())
    }

    /// Guesses `-p0`, as git does when no `-p` is given, when neither name has a `/`.
    fn guess(&mut self, file: &mut DiffFile, old: &HeaderName, new: &HeaderName) {
        let slashless = |side: &HeaderName| side.name.as_deref().map(|p| !p.contains('/'));
        if !self.known {
            let (p, q) = (slashless(old), slashless(new));
            // git: /dev/null guesses nothing; a name with a `/` guesses "unknown".
            if p.or(q) == Some(true) && p.unwrap_or(true) && q.unwrap_or(true) {
                self.strip = 0;
                self.known = true;
                self.guessed_at = Some(file.at_line);
                file.notes.push(
                    "its names have no leading component (no `a/` or `b/`) for the default -p1 to strip: read as written (-p0), as git apply reads them, and so are the plain sections after it".into(),
                );
                return;
            }
        }
        if let Some(at) = self.guessed_at {
            let slashed = [old, new].iter().any(|side| slashless(side) == Some(false));
            if slashed {
                file.notes.push(format!(
                    "read with -p0, as git apply reads every plain section after one whose names have no `/` (line {at}); give -p1 if these names start with `a/` and `b/`"
                ));
            }
        }
    }
}

/// The name git takes of a section's two: the new one, unless it is the old one with more
/// after it (`file` for `file` and `file+`), or cannot be stripped.
fn shorter(first: Option<String>, second: Option<String>) -> Option<String> {
    match (first, second) {
        (Some(first), Some(second)) if first.len() < second.len() && second.starts_with(&first) => {
            Some(first)
        }
        (first, second) => second.or(first),
    }
}

/// Names every plain section, in order, once every part of the diff is read (a guessed `-p0`
/// holds from the section that guessed it on, across parts).
pub(super) fn name_plain_sections(
    files: &mut [DiffFile],
    strip: Option<usize>,
    problems: &mut Vec<InputProblem>,
) {
    let mut guess = StripGuess::new(strip);
    for file in files {
        let Some(names) = file.plain.take() else {
            continue;
        };
        file.notes.clear();
        let (old, new) = &*names;
        if let Err(message) = guess.name(file, old, new) {
            problems.push(InputProblem {
                location: format!("line {}", file.at_line),
                message,
            });
        }
        for side in [old, new] {
            if let (Some(name), Some(rest)) = (&side.name, &side.cut) {
                file.notes.push(format!(
                    "the name \"{}\" is cut at the tab after it, as git apply cuts it: \"{}\" after the tab is no timestamp or marker patchdeck knows (a name holding a tab is written in quotes, \"a\\tb\")",
                    name.escape_debug(),
                    rest.escape_debug()
                ));
            }
        }
        file.plain = Some(names);
    }
}
