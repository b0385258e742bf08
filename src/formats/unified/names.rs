//! The file names in a diff's headers: the two names of a `diff --git` line (quoted, or
//! unquoted with spaces), the name of a `---`/`+++` line, git's C-quoted strings, and the
//! leading components `-p N` strips.

/// What a `---`/`+++` line says of its file: the name as written (before `-p` strips it),
/// `None` for `/dev/null`, and whether the rest of the line says the file is absent on that
/// side (GNU `diff -N`'s epoch timestamp, Subversion's `(nonexistent)` or `(revision 0)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderName {
    pub name: Option<String>,
    pub absent: bool,
    /// What follows a tab after the name when it is no timestamp and no marker patchdeck knows
    /// (the name is cut at the tab, as git cuts it).
    pub cut: Option<String>,
    /// A quoted name followed by more than a timestamp (`"a/"sub/file`): no name git or
    /// patchdeck reads.
    pub broken_quote: bool,
}

/// Reads the rest of a `---`/`+++` line: a quoted name, or a name that ends where a timestamp
/// set off by a tab or spaces starts, else at a tab.
pub(super) fn header_name(rest: &str) -> HeaderName {
    if rest.starts_with('"') {
        if let Some((name, after)) = unquote_prefix(rest) {
            if !(after.is_empty() || after.starts_with([' ', '\t'])) {
                let whole = rest.split('\t').next().unwrap_or(rest).trim_end();
                return finish(whole.to_owned(), "", true, false);
            }
            return finish(name, after, false, after.starts_with('\t'));
        }
    }
    if let Some((name, stamp)) = split_timestamp(rest) {
        let tabbed = rest[name.len()..rest.len() - stamp.len()].contains('\t');
        return finish(name.to_owned(), stamp, false, tabbed);
    }
    // git ends a name that ends in a space with a tab (`--- a/trail \t`): up to a tab, the
    // name is as written; with none, spaces at the end of the line are not part of it.
    match rest.split_once('\t') {
        Some((name, after)) => finish(name.to_owned(), after, false, true),
        None => finish(rest.trim_end().to_owned(), "", false, true),
    }
}

/// A [`HeaderName`] of `name` and what follows it on its line (`after`, set off by a tab when
/// `tabbed`: only such a timestamp says a file is absent, as git reads it).
fn finish(name: String, after: &str, broken_quote: bool, tabbed: bool) -> HeaderName {
    let after = after.trim();
    let absent = tabbed && (is_epoch(after) || matches!(after, "(nonexistent)" | "(revision 0)"));
    let known =
        absent || after.is_empty() || timestamp_at_end(after).is_some() || svn_marker(after);
    HeaderName {
        name: (name != "/dev/null").then_some(name),
        absent,
        cut: (!known).then(|| after.to_owned()),
        broken_quote,
    }
}

/// Subversion's and CVS's words after a name: `(revision 12)`, `(working copy)`, `(nonexistent)`,
/// `(.../trunk/file)`, `(date)`.
fn svn_marker(after: &str) -> bool {
    after.starts_with('(') && after.ends_with(')')
}

/// The name and the timestamp of `rest` when it ends with a timestamp set off from the name by
/// a tab or by spaces (as GNU diff, git and Mercurial write them).
fn split_timestamp(rest: &str) -> Option<(&str, &str)> {
    let at = timestamp_at_end(rest)?;
    let (name, stamp) = rest.split_at(at);
    let trimmed = name.trim_end_matches([' ', '\t']);
    (trimmed.len() < name.len() && !trimmed.is_empty()).then_some((trimmed, stamp))
}

/// Where a timestamp that ends `text` starts: ISO 8601 as GNU diff writes it
/// (`2024-05-01 10:00:00.123456789 +0200`), or C's `ctime` as older diffs and Mercurial write it
/// (`Thu Jan  1 00:00:00 1970 +0000`).
pub(super) fn timestamp_at_end(text: &str) -> Option<usize> {
    let words: Vec<(usize, &str)> = words(text);
    let n = words.len();
    let zone = |w: &str| {
        let b = w.as_bytes();
        matches!(b.first(), Some(b'+' | b'-'))
            && matches!(w.len(), 5 | 6)
            && w[1..].bytes().all(|c| c.is_ascii_digit() || c == b':')
    };
    let with_zone = n >= 1 && zone(words[n - 1].1);
    let end = if with_zone { n - 1 } else { n };
    // ISO: DATE TIME [ZONE].
    if end >= 2 && is_date(words[end - 2].1) && is_time(words[end - 1].1) {
        return Some(words[end - 2].0);
    }
    // ctime: DAY MONTH D TIME YEAR [ZONE].
    if end >= 5
        && words[end - 5].1.len() == 3
        && words[end - 4].1.len() == 3
        && words[end - 3].1.parse::<u8>().is_ok()
        && is_time(words[end - 2].1)
        && words[end - 1].1.len() == 4
        && words[end - 1].1.parse::<u16>().is_ok()
    {
        return Some(words[end - 5].0);
    }
    None
}

/// The words of `text` split at spaces and tabs, each with its byte offset.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c == ' ' || c == '\t', start) {
            (true, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

fn is_date(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn is_time(w: &str) -> bool {
    let (hms, frac) = w.split_once('.').unwrap_or((w, "0"));
    let b = hms.as_bytes();
    b.len() == 8
        && b[2] == b':'
        && b[5] == b':'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 2 || i == 5 || c.is_ascii_digit())
        && !frac.is_empty()
        && frac.bytes().all(|c| c.is_ascii_digit())
}

/// Whether a timestamp is the Unix epoch, in the time zone it names, as git apply reads it:
/// how GNU `diff -N` (and Bazaar) say that a file does not exist on that side. ISO form only,
/// the zone signed (`-0800`, `+05:30`), the seconds `00` and any fraction zeros:
/// `1969-12-31 16:00:00 -0800` is the epoch; `1970-01-01 00:00:00.5 +0000` and
/// `1970-01-01 01:00:00 +0000` are not.
pub(super) fn is_epoch(stamp: &str) -> bool {
    let words: Vec<&str> = words(stamp).into_iter().map(|(_, w)| w).collect();
    let [date, time, zone] = words.as_slice() else {
        return false;
    };
    let day = match *date {
        "1970-01-01" => 0,
        "1969-12-31" => -24 * 60,
        _ => return false,
    };
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    if !is_time(time) || !hms.ends_with(":00") || frac.bytes().any(|c| c != b'0') {
        return false;
    }
    let number = |s: &str| s.parse::<i32>().ok();
    let (Some(h), Some(m)) = (number(&hms[..2]), number(&hms[3..5])) else {
        return false;
    };
    let sign = match zone.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return false,
    };
    let digits: Vec<u8> = zone.bytes().skip(1).filter(|c| *c != b':').collect();
    if digits.len() != 4 || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let two = |d: &[u8]| i32::from(d[0] - b'0') * 10 + i32::from(d[1] - b'0');
    let (zh, zm) = (two(&digits[..2]), two(&digits[2..]));
    if h > 23 || m > 59 || zh > 23 || zm > 59 {
        return false;
    }
    day + h * 60 + m - sign * (zh * 60 + zm) == 0
}

/// The two names of a `diff --git` line (before stripping). Unquoted names may hold spaces:
/// the split is where the two names agree after their first component, as git does.
pub(super) fn split_git_names(rest: &str) -> (Option<String>, Option<String>) {
    if rest.starts_with('"') {
        if let Some((a, after)) = unquote_prefix(rest) {
            let b = after.trim_start();
            let b = unquote(b).unwrap_or_else(|| b.to_owned());
            return (Some(a), Some(b));
        }
    }
    if let Some(pos) = rest.find(" \"") {
        if let Some(b) = unquote(&rest[pos + 1..]) {
            return (Some(rest[..pos].to_owned()), Some(b));
        }
    }
    let tail = |s: &str| s.split_once('/').map(|(_, t)| t.to_owned());
    for (pos, _) in rest.match_indices(' ') {
        let (a, b) = (&rest[..pos], &rest[pos + 1..]);
        if tail(a).is_some() && tail(a) == tail(b) {
            return (Some(a.to_owned()), Some(b.to_owned()));
        }
    }
    (None, None)
}

/// Removes `strip` leading components, as `-p` does; `None` when the path has fewer (or
/// nothing is left after them): git refuses such a path, and so does patchdeck, rather than
/// guess at a shorter name.
pub(super) fn strip_path(path: &str, strip: usize) -> Option<String> {
    let mut rest = path;
    for _ in 0..strip {
        let at = rest.find('/')?;
        rest = rest[at + 1..].trim_start_matches('/');
    }
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// The message of a name `-p` cannot strip.
pub(super) fn strip_problem(name: &str, strip: usize) -> String {
    let has = name.trim_end_matches('/').matches('/').count();
    format!(
        "cannot strip {strip} leading component{} (-p{strip}) from \"{}\": it has {has}; give -p{has} or less (patchdeck never falls back to a shorter name, which could be another file)",
        if strip == 1 { "" } else { "s" },
        name.escape_debug()
    )
}

/// The C-quoted string at the start of `text` (see [`unquote_prefix`]).
pub(crate) fn unquote(text: &str) -> Option<String> {
    unquote_prefix(text).map(|(s, _)| s)
}

/// Reads a C-quoted string at the start of `text`: the string and what follows it.
fn unquote_prefix(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut bytes = Vec::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                return Some((
                    String::from_utf8_lossy(&bytes).into_owned(),
                    &body[at + 1..],
                ))
            }
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => bytes.push(b'\n'),
                    't' => bytes.push(b'\t'),
                    'r' => bytes.push(b'\r'),
                    'a' => bytes.push(7),
                    'b' => bytes.push(8),
                    'f' => bytes.push(12),
                    'v' => bytes.push(11),
                    '0'..='7' => {
                        let mut value = e.to_digit(8)?;
                        for _ in 0..2 {
                            let (_, d) = chars.next()?;
                            value = value * 8 + d.to_digit(8)?;
                        }
                        bytes.push(value as u8);
                    }
                    other => {
                        let mut buf = [0; 4];
                        bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            other => {
                let mut buf = [0; 4];
                bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_is_the_epoch_in_the_zone_it_names_and_nothing_else() {
        for epoch in [
            "1970-01-01 00:00:00.000000000 +0000",
            "1970-01-01 00:00:00 +0000",
            "1969-12-31 16:00:00.000000000 -0800",
            "1970-01-01 09:00:00 +0900",
            "1970-01-01 05:30:00 +05:30",
        ] {
            assert!(is_epoch(epoch), "{epoch}");
        }
        for not in [
            "1970-01-01 00:00:00.5 +0000",
            "1970-01-01 01:00:00 +0000",
            "1969-12-31 16:00:00 +0800",
            "1970-01-01 00:00:01 +0000",
            "2024-05-01 10:00:00 +0000",
            "1970-01-01 00:00:00",
            "1970-01-01 00:00:00 X0000",
            "1970-01-01 00:00:00 \u{e9}",
            "1970-01-01 00:00:00 +0\u{e9}0",
            "Thu Jan  1 00:00:00 1970 +0000",
        ] {
            assert!(!is_epoch(not), "{not}");
        }
    }

    #[test]
    fn a_name_ends_where_its_timestamp_or_a_tab_starts() {
        let name = |rest: &str| header_name(rest).name;
        assert_eq!(
            name("a/f\t2024-05-01 10:00:00.1 +0200").as_deref(),
            Some("a/f")
        );
        assert_eq!(
            name("a/my file  2024-05-01 10:00:00 +0200").as_deref(),
            Some("a/my file")
        );
        assert_eq!(name("f\tThu Jan  1 00:00:00 1970").as_deref(), Some("f"));
        assert_eq!(name("trunk/x\t(revision 12)").as_deref(), Some("trunk/x"));
        assert_eq!(name("/dev/null\t1970-01-01 00:00:00 +0000"), None);
        assert!(header_name("a/new\t1970-01-01 00:00:00 +0000").absent);
        // git reads the epoch after a tab only.
        assert!(!header_name("a/new  1970-01-01 00:00:00 +0000").absent);
        assert!(header_name("x\t(nonexistent)").absent);
        assert!(!header_name("x\t(working copy)").absent);
        let cut = header_name("a/f\tsomething else");
        assert_eq!(
            (cut.name.as_deref(), cut.cut.as_deref()),
            (Some("a/f"), Some("something else"))
        );
        assert!(header_name("\"a/\"sub/f").broken_quote);
        assert!(!header_name("\"a/sub f\"\t2024-05-01 10:00:00 +0000").broken_quote);
    }

    #[test]
    fn a_strip_larger_than_the_name_is_no_name() {
        assert_eq!(strip_path("a/src/x.rs", 1).as_deref(), Some("src/x.rs"));
        assert_eq!(strip_path("a/src/x.rs", 2).as_deref(), Some("x.rs"));
        assert_eq!(strip_path("a/src/x.rs", 3), None);
        assert_eq!(strip_path("x.rs", 1), None);
        assert_eq!(strip_path("a/", 1), None);
        assert!(strip_problem("b/file1", 3).contains("give -p1 or less"));
    }
}
