//! The file names in a diff's headers: the two names of a `diff --git` line (quoted, or
//! unquoted with spaces), the name of a `---`/`+++` line, git's C-quoted strings, and the
//! leading components `-p N` strips.

/// The name on a `---`/`+++` line: quoted, or up to a tab; `None` for `/dev/null`.
pub(super) fn header_name(rest: &str) -> Option<String> {
    let name = if rest.starts_with('"') {
        unquote_prefix(rest).map(|(n, _)| n)
    } else {
        None
    }
    .unwrap_or_else(|| {
        rest.split('\t')
            .next()
            .unwrap_or(rest)
            .trim_end()
            .to_owned()
    });
    (name != "/dev/null").then_some(name)
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

/// Removes `strip` leading components, as `-p` does.
pub(super) fn strip_path(path: &str, strip: usize) -> String {
    let mut rest = path;
    for _ in 0..strip {
        match rest.find('/') {
            Some(at) => rest = rest[at + 1..].trim_start_matches('/'),
            None => break,
        }
    }
    rest.to_owned()
}

/// The C-quoted string at the start of `text` (see [`unquote_prefix`]).
pub(super) fn unquote(text: &str) -> Option<String> {
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
