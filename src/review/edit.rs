//! Editing a change as text, as `git add -p`'s `e` does: the buffer a person edits, and the
//! rules for reading it back. Which program edits it is the client's business.
//!
//! The buffer shows the lines the change replaces as they are on disk now (`-`) and the lines
//! it will write (`+`) under a short comment header. An empty buffer cancels; a buffer whose
//! `-` lines are no longer those lines cannot apply.

use super::{At, Review};
use crate::lines::Lines;
use crate::model::LineRange;
use crate::verify::Status;

/// The lines change `at` replaces, as they are on disk now (at the place it was moved to, when
/// it was), and the range they are at.
pub fn replaced_lines(review: &Review, at: At) -> (LineRange, Vec<String>) {
    let view = review.change(at);
    let mut range = view.change.range;
    if review.decisions().relocated(&view.change.id) {
        if let Some(to) = view.check.found_at() {
            range.start = to;
        }
    }
    let lines = Lines::split(view.file_check.base_bytes());
    let end = range.end().min(lines.len() + 1);
    let minus = (range.start.max(1)..end)
        .map(|n| lines.get(n - 1).text_str().into_owned())
        .collect();
    (range, minus)
}

/// The buffer a person edits change `at` in.
pub fn buffer(review: &Review, at: At) -> String {
    let view = review.change(at);
    let (range, minus) = replaced_lines(review, at);
    let plus = review.kept_or_written(at);
    let mut out = format!(
        "# patchdeck: edit change \"{}\" of {} ({} {})\n",
        view.change
            .key
            .as_deref()
            .unwrap_or(view.change.id.as_str()),
        view.path(),
        view.change.operation.as_str(),
        range.describe()
    );
    out.push_str(
        "# Lines starting with '-' are what the change replaces, as on disk now: keep them.\n",
    );
    out.push_str("# Lines starting with '+' are written instead: change, add or remove them\n");
    out.push_str("# ('+' alone is an empty line). Lines starting with '#' are ignored.\n");
    if view.check.status == Status::Conflict && !review.decisions().relocated(&view.change.id) {
        out.push_str(&format!(
            "# CONFLICT: the lines at {} are not the ones the batch expected; the '+' lines will\n# replace the '-' lines below, which are what is there now.\n",
            range.describe()
        ));
    }
    out.push_str("# Save an empty file, or leave it as it is, to cancel.\n");
    for line in &minus {
        out.push_str(&format!("-{line}\n"));
    }
    for line in plus {
        out.push_str(&format!("+{line}\n"));
    }
    out
}

/// Reads an edited buffer: `Ok(None)` cancels (an empty buffer), `Ok(Some(lines))` are the new
/// lines, `Err` says why the edit cannot apply. `minus` are the lines the `-` lines must still
/// be.
pub fn parse(text: &str, minus: &[String]) -> Result<Option<Vec<String>>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let mut seen_minus = Vec::new();
    let mut plus = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix('+') {
            plus.push(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix('-') {
            seen_minus.push(rest.to_owned());
        } else if !(line.starts_with('#') || line.is_empty()) {
            return Err(format!(
                "line {} starts with neither '+', '-' nor '#': {line}",
                i + 1
            ));
        }
    }
    if seen_minus != minus {
        return Err(
            "the '-' lines are no longer the lines this change replaces; keep them as they were"
                .to_owned(),
        );
    }
    Ok(Some(plus))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn plus_lines_are_the_edit_and_comments_are_ignored() {
        let text = "# header\n-old\n+new one\n+\n+# a comment in the code\n";
        assert_eq!(
            parse(text, &s(&["old"])),
            Ok(Some(s(&["new one", "", "# a comment in the code"])))
        );
    }

    #[test]
    fn an_empty_file_cancels_and_changed_minus_lines_cannot_apply() {
        assert_eq!(parse("  \n", &s(&["old"])), Ok(None));
        assert!(parse("-olD\n+new\n", &s(&["old"])).is_err());
        assert!(parse("stray\n", &[]).unwrap_err().contains("line 1"));
    }
}
