//! Colour for `check` and `diff` on a terminal: ANSI escapes added line by line to text that
//! reads the same without them.
//!
//! Whether to colour at all is decided once, in `Ctx` (from `--color`, `NO_COLOR`,
//! `CLICOLOR_FORCE`, the config file and whether standard output is a terminal); this file only
//! knows which line gets which colour.

const RESET: &str = "\x1b[0m";
const RED: &str = "\x1b[31m";
const BOLD_RED: &str = "\x1b[1;31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";

/// The colour of one line of the text report, by the severity it names.
fn report_color(line: &str) -> Option<&'static str> {
    if line.starts_with(' ') {
        // The expected and found lines under a conflict.
        return Some(DIM);
    }
    let has = |word: &str| line.contains(&format!(": {word}: "));
    if has("invalid") {
        Some(BOLD_RED)
    } else if has("conflict") || line.starts_with("blocked: ") {
        Some(RED)
    } else if has("warning") || line.starts_with("override: ") {
        Some(YELLOW)
    } else if has("note") {
        Some(CYAN)
    } else if line.contains(" ok, ") {
        Some(BOLD)
    } else {
        None
    }
}

/// The text report, coloured.
pub fn report(text: &str) -> String {
    paint_lines(text, report_color)
}

/// The colour of one line of a unified diff, as git colours it.
fn diff_color(line: &str) -> Option<&'static str> {
    if line.starts_with("diff --git ")
        || line.starts_with("--- ")
        || line.starts_with("+++ ")
        || line.starts_with("new file mode")
        || line.starts_with("deleted file mode")
        || line.starts_with("index ")
    {
        Some(BOLD)
    } else if line.starts_with("@@") {
        Some(CYAN)
    } else if line.starts_with('+') {
        Some(GREEN)
    } else if line.starts_with('-') {
        Some(RED)
    } else {
        None
    }
}

/// A unified diff, coloured.
pub fn diff(text: &str) -> String {
    paint_lines(text, diff_color)
}

fn paint_lines(text: &str, color: fn(&str) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        match color(body) {
            Some(code) => {
                out.push_str(code);
                out.push_str(body);
                out.push_str(RESET);
            }
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_and_diff_lines_get_their_colours() {
        let text = report("a.txt:3: conflict: expected_mismatch: #1: no\nb.txt: note: uncommitted_changes: x\nplain\n");
        assert!(text.starts_with("\x1b[31ma.txt:3"), "{text:?}");
        assert!(text.contains("\x1b[36mb.txt: note"), "{text:?}");
        assert!(text.contains("\nplain\n"), "{text:?}");
        let d = diff("diff --git a/x b/x\n@@ -1 +1 @@\n-old\n+new\n ctx\n");
        assert!(
            d.contains("\x1b[31m-old\x1b[0m\n\x1b[32m+new\x1b[0m\n ctx\n"),
            "{d:?}"
        );
    }
}
