//! The feedback as Markdown, to paste into a chat with the model that wrote the batch: a
//! heading that counts the failures, each file with its problems and SHA-256 now, each failed
//! change with what it expected and the file's lines now, numbered, then what the decisions
//! resolved. Text from the batch and the files is shown with control characters visible, in
//! code spans and fences long enough that no backtick inside ends them.

use super::{ChangeFeedback, Excerpt, Feedback, FileFeedback, Quote};
use crate::lines::visible;
use crate::model::{Operation, Stance};
use std::fmt::Write as _;

/// How many of the changes a file's problem holds back are named; the rest are counted.
pub const HELD_BACK_NAMED: usize = 8;

impl Feedback {
    /// The feedback as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let s = &self.summary;
        let name = self.batch.label.as_deref().or(self.batch.key.as_deref());
        let of = name.map_or_else(String::new, |n| format!(" of \"{}\"", visible(n)));
        let in_it = name.map_or_else(String::new, |n| format!(" in \"{}\"", visible(n)));
        let blocked_files = self.files.iter().filter(|f| !f.problems.is_empty()).count();
        let standing = self.stance == Stance::Standing;
        let undone = self.rejected.len() + self.more_rejected;
        let edited = self.edited.len();
        let _ = match (s.failed, blocked_files) {
            (0, 0) if standing && edited > 0 => writeln!(
                out,
                "# The person undid {undone} and edited {edited} of your {} {}",
                s.changes,
                changes(s.changes)
            ),
            (0, 0) if standing => writeln!(
                out,
                "# The person undid {undone} of your {} {}",
                s.changes,
                changes(s.changes)
            ),
            (0, 0) => writeln!(out, "# Every change{of} applies"),
            (0, n) => writeln!(out, "# {n} {}{of} cannot be written", files(n)),
            (failed, _) => writeln!(
                out,
                "# {failed} of {} {}{in_it} did not apply",
                s.changes,
                changes(s.changes)
            ),
        };
        let _ = match standing {
            true => write!(
                out,
                "\nYou wrote to the files directly; the person reviewed {}",
                name.map_or_else(|| "what changed".to_owned(), |n| visible(n).into_owned())
            ),
            false => write!(
                out,
                "\npatchdeck checked the batch (format {}, ID {}) against the files as they are now",
                self.format,
                code(&self.batch.id)
            ),
        };
        let mut counted = Vec::new();
        if s.ok > 0 {
            counted.push(count(s.ok, "applies as it is", "apply as they are"));
        }
        if s.failed > 0 {
            counted.push(format!("{} failed", s.failed));
        }
        if s.held_back > 0 {
            counted.push(format!(
                "{} where {} {} but {} on {} file's problem",
                count(s.held_back, "fits", "fit"),
                if s.held_back == 1 { "it" } else { "they" },
                if s.held_back == 1 { "says" } else { "say" },
                if s.held_back == 1 { "waits" } else { "wait" },
                if s.held_back == 1 { "its" } else { "their" },
            ));
        }
        if s.resolved > 0 {
            counted.push(format!(
                "{} as decided",
                count(s.resolved, "is resolved", "are resolved")
            ));
        }
        if s.already_applied > 0 {
            counted.push(count(
                s.already_applied,
                "is applied already",
                "are applied already",
            ));
        }
        if standing {
            out.push('.');
        } else {
            let _ = write!(
                out,
                ": of its {} {}, {}.",
                s.changes,
                changes(s.changes),
                counted.join("; ")
            );
        }
        let rejected = undone;
        if rejected > 0 && standing {
            let _ = write!(
                out,
                " The person undid {} of what you wrote: the lines before your change are back.",
                count(rejected, "change", "changes")
            );
        } else if rejected > 0 {
            let _ = write!(
                out,
                " The reviewer rejected {}: not written.",
                count(rejected, "change that fits", "changes that fit")
            );
        }
        if edited > 0 {
            let _ = write!(
                out,
                " The person edited {}: their lines stand where yours were.",
                count(edited, "change", "changes")
            );
        }
        if self.has_failures() {
            out.push_str(
                " Write what failed again against the files as they are now: the SHA-256 and the numbered lines below are what is on disk.",
            );
        } else if rejected == 0 && edited == 0 && standing {
            out.push_str(" Every change you wrote is kept.");
        } else if rejected == 0 {
            out.push_str(" Nothing needs to be written again.");
        }
        out.push('\n');
        if let Some(note) = &self.note {
            let _ = writeln!(
                out,
                "\nThe reviewer's note on the batch:\n\n> {}",
                visible(note)
            );
        }
        for file in &self.files {
            write_file(&mut out, file);
        }
        write_rejected(&mut out, self);
        write_edited(&mut out, self);
        if !self.resolved.is_empty() {
            out.push_str("\n## Resolved as decided (nothing to fix)\n\n");
            for r in &self.resolved {
                let what = match (&r.change_id, &r.key) {
                    (Some(id), Some(key)) => format!("change {} ({})", code(key), code(id)),
                    (Some(id), None) => format!("change {}", code(id)),
                    (None, _) => format!("file patch {}", code(&r.file_id)),
                };
                let _ = writeln!(out, "- {}, {what}: {}", code(&r.path), visible(&r.message));
            }
        }
        out
    }
}

fn write_file(out: &mut String, file: &FileFeedback) {
    let _ = writeln!(out, "\n## {}\n", code(&file.path));
    let mut about = format!("File patch {}", code(&file.id));
    if let Some(key) = &file.key {
        let _ = write!(about, " ({})", code(key));
    }
    if file.doc_path != file.path {
        let _ = write!(about, ", docPath {}", code(&file.doc_path));
    }
    if let Some(n) = file.line_count {
        let _ = write!(about, "; the file has {n} line{}", plural(n));
    }
    match (&file.actual_sha256, &file.expected_sha256) {
        (Some(now), Some(said)) if file.sha_mismatch => {
            let _ = write!(
                about,
                "; its SHA-256 is now {} (the batch says {})",
                code(now),
                code(said)
            );
        }
        (Some(now), _) => {
            let _ = write!(about, "; its SHA-256 is {}", code(now));
        }
        _ => {}
    }
    let _ = writeln!(out, "{about}.");
    if !file.problems.is_empty() || file.held_back > 0 {
        out.push('\n');
    }
    for rule in &file.problems {
        let _ = writeln!(out, "- **{}**: {}", rule.kind, visible(&rule.message));
    }
    if file.held_back > 0 {
        let mut names: Vec<String> = file.held_back_names.iter().map(|n| code(n)).collect();
        if file.held_back > names.len() {
            names.push(format!("… and {} more", file.held_back - names.len()));
        }
        let _ = writeln!(
            out,
            "- {} of this file {} where {} but {} only on the above: {}",
            count(file.held_back, "other change", "other changes"),
            if file.held_back == 1 { "fits" } else { "fit" },
            if file.held_back == 1 {
                "it says"
            } else {
                "they say"
            },
            if file.held_back == 1 { "waits" } else { "wait" },
            names.join(", ")
        );
    }
    for change in &file.changes {
        write_change(out, file, change);
    }
}

fn write_change(out: &mut String, file: &FileFeedback, change: &ChangeFeedback) {
    let mut title = format!("Change #{}", change.number);
    if let Some(key) = &change.key {
        let _ = write!(title, " {}", code(key));
    }
    let _ = write!(title, " ({})", code(&change.id));
    let range = match change.after_line {
        Some(after) => format!("after line {after}"),
        None if change.start_line == change.end_line => format!("line {}", change.start_line),
        None => format!("lines {}-{}", change.start_line, change.end_line),
    };
    let decided = match change.decision {
        "reject" => ", rejected",
        "undecided" => ", left undecided",
        _ => "",
    };
    let what = if change.located {
        format!("{} {range}", operation(change.operation))
    } else {
        "not placed".to_owned()
    };
    let _ = writeln!(
        out,
        "\n### {title}: {what}, {}{decided}\n",
        change.status.as_str()
    );
    if let Some(description) = &change.description {
        for line in description.lines() {
            let _ = writeln!(out, "> {}", visible(line));
        }
        out.push('\n');
    }
    if let Some(note) = &change.note {
        let _ = writeln!(out, "The reviewer's note: {}\n", visible(note));
    }
    for rule in &change.problems {
        let _ = writeln!(out, "- **{}**: {}", rule.kind, visible(&rule.message));
    }
    if let Some(expected) = &change.expected {
        if change.located {
            let _ = writeln!(out, "\nIt expected at {range}:\n");
        } else {
            out.push_str("\nIt looks for:\n\n");
        }
        write_quote(out, expected);
    }
    if let Some(current) = &change.current {
        let past_end = file.line_count.is_some_and(|n| current.marked_end > n);
        let caption = if past_end {
            format!(
                "The file ends at line {}; its last lines now",
                file.line_count.unwrap_or_default()
            )
        } else if change.after_line.is_some() {
            format!(
                "{} now (it goes after line {})",
                span(current),
                current.marked_end
            )
        } else {
            format!("{} now (its {range} marked `>`)", span(current))
        };
        let _ = writeln!(out, "\n{caption}:\n");
        write_excerpt(out, current);
    }
    for (i, place) in change.found_at.iter().enumerate() {
        let lead = match (i, &change.expected) {
            (0, Some(_)) => "Its expected lines stand at",
            (0, None) => "What it looks for stands at",
            _ => "And at",
        };
        let _ = writeln!(out, "\n{lead} line {} (marked `>`):\n", place.marked_start);
        write_excerpt(out, place);
    }
    if change.more_places > 0 {
        let _ = writeln!(
            out,
            "\n… and {} more place{}.",
            change.more_places,
            plural(change.more_places)
        );
    } else if change.found_at.is_empty() && change.expected.is_some() {
        out.push_str("\nIts expected lines stand nowhere in the file now.\n");
    }
}

/// The changes the reviewer rejected although they fit: each with its note, and the file now
/// around it.
fn write_rejected(out: &mut String, feedback: &Feedback) {
    if feedback.rejected.is_empty() {
        return;
    }
    let standing = feedback.stance == Stance::Standing;
    out.push_str(match standing {
        true => "\n## Undone by the person (what was there before is back)\n",
        false => "\n## Rejected by the reviewer (not written)\n",
    });
    for change in &feedback.rejected {
        let mut title = format!("{}#{}", code(&change.path), change.number);
        if let Some(key) = &change.key {
            let _ = write!(title, " {}", code(key));
        }
        let insert = change.operation == Operation::Insert;
        let range = match (insert, change.start_line == change.end_line) {
            (true, _) => format!("after line {}", change.start_line - 1),
            (false, true) => format!("line {}", change.start_line),
            (false, false) => format!("lines {}-{}", change.start_line, change.end_line),
        };
        let what = match (standing, &change.description) {
            (true, Some(description)) => format!("you {}; undone", visible(description)),
            _ => format!("{} {range}", operation(change.operation)),
        };
        let _ = writeln!(out, "\n### {title} ({}): {what}\n", code(&change.id));
        match &change.note {
            Some(note) => {
                let _ = writeln!(out, "The reviewer's note: {}", visible(note));
            }
            None => out.push_str("The reviewer wrote no note.\n"),
        }
        if let Some(current) = &change.current {
            let caption = match insert {
                _ if standing => format!("{} now (the lines put back marked `>`)", span(current)),
                true => format!("{} now (it goes {range})", span(current)),
                false => format!("{} now (its {range} marked `>`)", span(current)),
            };
            let _ = writeln!(out, "\n{caption}:\n");
            write_excerpt(out, current);
        }
    }
    if feedback.more_rejected > 0 {
        let _ = writeln!(
            out,
            "\n… and {} more {} change{}.",
            feedback.more_rejected,
            if standing { "undone" } else { "rejected" },
            plural(feedback.more_rejected)
        );
    }
}

/// The work tree's changes the person kept with lines of their own: each with its note, and
/// the file around it as the edit leaves it.
fn write_edited(out: &mut String, feedback: &Feedback) {
    if feedback.edited.is_empty() {
        return;
    }
    out.push_str("\n## Edited by the person (their lines stand where yours were)\n");
    for change in &feedback.edited {
        let what = change
            .description
            .as_deref()
            .map_or_else(String::new, |d| format!(": you {}", visible(d)));
        let _ = writeln!(
            out,
            "\n### {}#{} ({}){what}\n",
            code(&change.path),
            change.number,
            code(&change.id)
        );
        if let Some(note) = &change.note {
            let _ = writeln!(out, "The reviewer's note: {}\n", visible(note));
        }
        if let Some(current) = &change.current {
            let _ = writeln!(
                out,
                "{} now (the person's lines marked `>`):\n",
                span(current)
            );
            write_excerpt(out, current);
        }
    }
}

/// `Lines 19-24` of an excerpt.
fn span(excerpt: &Excerpt) -> String {
    let last = excerpt.start_line + excerpt.lines.len() + excerpt.more_lines;
    match last.saturating_sub(excerpt.start_line) {
        0 => "Nothing".to_owned(),
        1 => format!("Line {}", excerpt.start_line),
        _ => format!("Lines {}-{}", excerpt.start_line, last - 1),
    }
}

fn write_quote(out: &mut String, quote: &Quote) {
    let shown: Vec<String> = quote
        .lines
        .iter()
        .map(|l| visible(l).into_owned())
        .collect();
    fenced(out, &shown);
    if quote.more_lines > 0 {
        let _ = writeln!(
            out,
            "… and {} more line{}",
            quote.more_lines,
            plural(quote.more_lines)
        );
    }
}

fn write_excerpt(out: &mut String, excerpt: &Excerpt) {
    let last = excerpt.start_line + excerpt.lines.len().saturating_sub(1);
    let width = last.to_string().len();
    let shown: Vec<String> = excerpt
        .lines
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let n = excerpt.start_line + i;
            let mark = if (excerpt.marked_start..=excerpt.marked_end).contains(&n) {
                '>'
            } else {
                ' '
            };
            format!("{mark} {n:>width$} | {}", visible(text))
        })
        .collect();
    fenced(out, &shown);
    if excerpt.more_lines > 0 {
        let _ = writeln!(
            out,
            "… and {} more line{}",
            excerpt.more_lines,
            plural(excerpt.more_lines)
        );
    }
}

/// A fenced code block holding `lines`, its fence longer than any run of backticks in them.
fn fenced(out: &mut String, lines: &[String]) {
    let fence = "`".repeat(longest_backtick_run(lines.iter().map(String::as_str)).max(2) + 1);
    let _ = writeln!(out, "{fence}");
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{fence}");
}

/// An inline code span holding `text`, with control characters visible.
fn code(text: &str) -> String {
    let text = visible(text);
    let ticks = "`".repeat(longest_backtick_run([text.as_ref()].into_iter()) + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

fn longest_backtick_run<'a>(texts: impl Iterator<Item = &'a str>) -> usize {
    texts
        .flat_map(|t| t.split(|c| c != '`').map(str::len))
        .max()
        .unwrap_or(0)
}

fn operation(op: Operation) -> &'static str {
    match op {
        Operation::Insert => "insert",
        Operation::Replace => "replace",
        Operation::Delete => "delete",
    }
}

/// `1 fits`, `3 fit`: a count and the word that goes with it.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn changes(n: usize) -> &'static str {
    if n == 1 {
        "change"
    } else {
        "changes"
    }
}

fn files(n: usize) -> &'static str {
    if n == 1 {
        "file"
    } else {
        "files"
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_outlast_the_backticks_inside() {
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        let mut out = String::new();
        fenced(&mut out, &["let s = ```;".to_owned()]);
        assert_eq!(out, "````\nlet s = ```;\n````\n");
    }

    #[test]
    fn an_excerpt_numbers_its_lines_and_marks_the_ones_it_is_about() {
        let mut out = String::new();
        write_excerpt(
            &mut out,
            &Excerpt {
                start_line: 9,
                lines: vec!["a".into(), "b\r".into(), "c".into()],
                more_lines: 4,
                marked_start: 10,
                marked_end: 10,
            },
        );
        assert_eq!(
            out,
            "```\n   9 | a\n> 10 | b\u{240d}\n  11 | c\n```\n… and 4 more lines\n"
        );
    }
}
