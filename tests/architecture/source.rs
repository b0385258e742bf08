//! The crate's source as the architecture tests read it: each file's module path, its code
//! without comments, strings or unit tests, and the modules its paths name.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// One file of `src/`.
pub struct File {
    /// Its path under `src/`, with `/` separators: `commit/journal.rs`.
    pub rel: String,
    /// Its module path: `["commit", "journal"]` (a `mod.rs` is its folder's module).
    pub module: Vec<String>,
    /// Its code: comments, string and character literals blanked, `#[cfg(test)]` items gone.
    pub code: String,
    /// Its text as written.
    pub text: String,
}

/// Every `.rs` file under `src/`, sorted by path.
pub fn files() -> Vec<File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    walk(&src, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&path).unwrap();
            File {
                module: module_of(&rel),
                code: without_tests(&blank_comments_and_literals(&text)),
                rel,
                text,
            }
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text with comments, string literals and character literals replaced by spaces
/// (newlines kept, so line numbers hold).
pub fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if raw_string_at(b, i).is_some() => {
                let end = raw_string_at(b, i).unwrap();
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            b'\'' => {
                // A character literal ('a', '\n', '\u{..}'); a lifetime ('a) is left alone.
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..]
                        .iter()
                        .position(|&c| c == b'\'')
                        .map(|n| i + 2 + n)
                } else {
                    let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end + 1);
                        i = end + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap()
}

/// Where a raw string (`r"…"`, `r#"…"#`, also `br`) starting at `i` ends, if one does.
fn raw_string_at(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b' {
        return None;
    }
    let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
    if b.get(i + 1 + hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = i + 2 + hashes;
    b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|n| body + n + close.len())
}

/// The code without the items under `#[cfg(test)]` (unit tests and their helpers).
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        // The item ends at its `;` or at the brace that closes its first `{`.
        let end = match (item.find('{'), item.find(';')) {
            (Some(open), Some(semi)) if semi < open => semi + 1,
            (Some(open), _) => {
                let mut depth = 0;
                let mut end = item.len();
                for (n, c) in item[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + n + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(semi)) => semi + 1,
            (None, None) => item.len(),
        };
        out.extend(
            item[..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Every path a file's code names that starts at `crate`, `super` or `self`, as module
/// segments from the crate root (a `use` tree's braces expanded), with its line.
pub fn named_paths(file: &File) -> Vec<(Vec<String>, usize)> {
    let code = &file.code;
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':');
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| code[i..].starts_with(h));
        match head {
            Some(_) if starts_word => {
                let end = path_end(code, i);
                let line = code[..i].matches('\n').count() + 1;
                for path in expand(&code[i..end]) {
                    if let Some(absolute) =
                        absolute(&file.module, file.rel.ends_with("mod.rs"), &path)
                    {
                        found.push((absolute, line));
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

/// Where a path (with any `{…}` use tree) that starts at `from` ends.
fn path_end(code: &str, from: usize) -> usize {
    let mut depth = 0;
    for (n, c) in code[from..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return from + n,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return from + n + 1;
                }
            }
            c if c.is_alphanumeric() || c == '_' || c == ':' || c == '*' => {}
            _ if depth > 0 => {}
            _ => return from + n,
        }
    }
    code.len()
}

/// A path with use-tree braces expanded into each path it names.
fn expand(path: &str) -> Vec<Vec<String>> {
    let path = path.trim();
    let Some(open) = path.find('{') else {
        return vec![segments(path)];
    };
    let prefix = segments(&path[..open]);
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (n, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..n]);
                start = n + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    let mut out = vec![prefix.clone()];
    for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
        let item = item.split(" as ").next().unwrap_or(item);
        for tail in expand(item) {
            let mut whole = prefix.clone();
            whole.extend(tail.into_iter().filter(|s| s != "self"));
            out.push(whole);
        }
    }
    out
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(|s| s.split(" as ").next().unwrap_or(s).trim().to_string())
        .filter(|s| !s.is_empty() && s != "*")
        .collect()
}

/// A path made absolute from the crate root, given the module of the file naming it.
fn absolute(module: &[String], _is_mod_rs: bool, path: &[String]) -> Option<Vec<String>> {
    let mut at: Vec<String> = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    at.extend(rest.iter().cloned());
    Some(at)
}

/// The import graph between files: an edge from a file to each other file whose module its
/// paths name (the longest module prefix of each path). A module's reach into its own parts
/// (its `mod` and `pub use` lines, and calls down into them) is not an edge: a folder module
/// and its parts are one module, and its parts may use what it defines.
pub struct Graph {
    pub edges: BTreeMap<String, BTreeMap<String, usize>>,
}

impl Graph {
    pub fn of(files: &[File]) -> Graph {
        let by_module: BTreeMap<&[String], &str> = files
            .iter()
            .map(|f| (f.module.as_slice(), f.rel.as_str()))
            .collect();
        let mut edges: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for file in files {
            let out = edges.entry(file.rel.clone()).or_default();
            for (path, line) in named_paths(file) {
                let target = (1..=path.len())
                    .rev()
                    .find_map(|n| by_module.get(&path[..n]).map(|rel| (n, *rel)));
                let Some((n, target)) = target else { continue };
                let downward = path[..n].starts_with(&file.module);
                if target != file.rel && !downward {
                    out.entry(target.to_string()).or_insert(line);
                }
            }
        }
        Graph { edges }
    }

    /// The groups of two or more files tied by a circle of imports, among `within`.
    pub fn circles(&self, within: impl Fn(&str) -> bool) -> Vec<BTreeSet<String>> {
        let nodes: Vec<&String> = self.edges.keys().filter(|n| within(n)).collect();
        let index: BTreeMap<&String, usize> =
            nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let next: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| {
                self.edges[*n]
                    .keys()
                    .filter_map(|t| index.get(t).copied())
                    .collect()
            })
            .collect();
        strongly_connected(&next)
            .into_iter()
            .filter(|group| group.len() > 1)
            .map(|group| group.into_iter().map(|i| nodes[i].clone()).collect())
            .collect()
    }
}

/// Tarjan's strongly connected components.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        counter: usize,
        groups: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.next[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            s.groups.push(group);
        }
    }
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        counter: 0,
        groups: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.groups
}

/// Each function's length in lines, by file and line: `fn` to its closing brace.
pub fn function_lengths(file: &File) -> Vec<(String, usize, usize)> {
    let code = blank_comments_and_literals(&file.text);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(at) = find_fn(line) else { continue };
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut started) = (0i32, false);
        for (m, body) in lines[n..].iter().enumerate() {
            for c in body.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        started = true;
                    }
                    '}' => depth -= 1,
                    ';' if !started && depth == 0 => break,
                    _ => {}
                }
            }
            if !started && body.trim_end().ends_with(';') {
                break;
            }
            if started && depth == 0 {
                out.push((name.clone(), n + 1, m + 1));
                break;
            }
        }
    }
    out
}

/// Where `fn NAME` starts in a line, if a function is declared on it.
fn find_fn(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let words = [
        "pub ",
        "pub(crate) ",
        "pub(super) ",
        "const ",
        "async ",
        "unsafe ",
        "extern \"C\" ",
    ];
    let mut rest = trimmed;
    while let Some(w) = words.iter().find(|w| rest.starts_with(*w)) {
        rest = &rest[w.len()..];
    }
    rest.starts_with("fn ").then(|| line.len() - rest.len())
}
