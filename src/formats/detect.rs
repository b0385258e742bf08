//! Which format an input is in, decided from the first markers found.
//!
//! JSON inputs are told apart by their fields. Text is read line by line, once, stopping at the
//! first unified-diff header, because a diff is recognised before anything else: a `diff --git`
//! line (or a combined `diff --cc`), or a `---` / `+++` / `@@` header group, at column 0 and
//! outside fenced blocks. A diff's hunks are never read, so no context or added line of a diff
//! (a README's code fence, a `*** Begin Patch` example, a refusal sentence) can pass for a
//! marker. The other markers must start their line as their formats require: `*** Begin Patch`
//! (Codex; padded with whitespace only as the input's first line, as Codex allows) and
//! `<<<<<<< SEARCH` (Aider), whose blocks' contents are skipped in turn, and fenced
//! blocks holding a patch (a chat answer). A refusal sentence of aptix-file-spec.md makes a chat
//! answer only when it is in the prose and nothing else was found.

use super::{aider, codex, detect_json, markdown, unified, Input, NAMES};
use crate::error::{Error, InputProblem, Result};
use markdown::{FenceLine, Fences};
use std::borrow::Cow;

/// Names the format of an input, or says what was tried. A JSON input is told by the fields
/// of its bounded skeleton ([`crate::json::stream::skeleton`]): detection never holds a large
/// batch whole.
pub fn detect(input: &Input) -> Result<&'static str> {
    let trimmed = input.bytes().trim_ascii_start();
    let mut json_error = None;
    if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        match crate::json::stream::skeleton(input.bytes(), input.text().map(|t| t.as_str())) {
            Ok(value) => {
                if let Some(name) = detect_json(&value) {
                    return Ok(name);
                }
            }
            Err(e) => json_error = Some(e),
        }
    }
    if let Some(name) = detect_text(input.bytes(), json_error.is_none()) {
        return Ok(name);
    }
    let tried: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    match json_error {
        // Input that starts like JSON and is not: the parse error is the likeliest cause.
        Some(e) => {
            let problem = crate::json::Trail::default().problem(&e);
            Err(Error::InvalidInput {
                source: input.source.clone(),
                format: "JSON".into(),
                problems: vec![InputProblem {
                    location: problem.location,
                    message: format!(
                        "{}; the input starts with \"{}\", so it was read as JSON (a text format does not fit it either; tried: {})",
                        problem.message,
                        trimmed[0] as char,
                        tried.join(", ")
                    ),
                }],
            })
        }
        None => Err(Error::UnknownFormat {
            source: input.source.clone(),
            tried,
        }),
    }
}

/// What the block being skipped is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skipping {
    Nothing,
    Codex,
    Aider,
}

/// A fenced block read for detection: its info string, and its text for JSON and unlabelled
/// blocks, whose format is in their text.
struct OpenBlock {
    lang: String,
    text: String,
}

/// The text format of an input, from the markers found. `refusals` allows a refusal sentence
/// to make a chat answer when nothing else is found.
fn detect_text(bytes: &[u8], refusals: bool) -> Option<&'static str> {
    let mut lines = LineReader { bytes, at: 0 };
    let mut fences = Fences::default();
    let mut skipping = Skipping::Nothing;
    let (mut codex_found, mut aider_found, mut answer_found) = (false, false, false);
    // A diff header inside a fence: taken only when nothing else is found (an unbalanced
    // fence in a mail's message must not hide the diff that follows it).
    let mut diff_in_fence = false;
    let mut block: Option<OpenBlock> = None;
    let mut seen_text = false;
    while let Some(line) = lines.next() {
        let first_text = !seen_text && !line.trim().is_empty();
        seen_text |= first_text;
        let column0 = line.trim_end();
        let end = match skipping {
            Skipping::Nothing => None,
            Skipping::Codex => Some(codex::END),
            Skipping::Aider => Some(aider::REPLACE),
        };
        if let Some(end) = end {
            if column0 == end {
                skipping = Skipping::Nothing;
            }
            continue;
        }
        let fence = fences.step(&line);
        if unified::is_header(&line, || lines.peek(2)) {
            if matches!(fence, FenceLine::Prose) {
                return Some(unified::NAME);
            }
            diff_in_fence = true;
        }
        // Codex allows whitespace around its markers; a padded Begin counts only as the
        // input's first line, where it cannot be part of another format.
        if column0 == codex::BEGIN || first_text && line.trim() == codex::BEGIN {
            codex_found = true;
            skipping = Skipping::Codex;
        } else if column0 == aider::SEARCH {
            aider_found = true;
            skipping = Skipping::Aider;
        }
        if answer_found {
            continue;
        }
        match fence {
            // A block counts once it is closed, as the chat-answer loader reads them.
            FenceLine::Opens(lang) => {
                block = Some(OpenBlock {
                    lang,
                    text: String::new(),
                })
            }
            FenceLine::Inside(strip) => {
                // Only JSON and unlabelled blocks need their text to tell their format.
                if let Some(open) = block
                    .as_mut()
                    .filter(|b| matches!(b.lang.as_str(), "json" | "jsonc" | ""))
                {
                    open.text.push_str(&line[strip..]);
                    open.text.push('\n');
                }
            }
            FenceLine::Closes => {
                if let Some(open) = block.take() {
                    answer_found = markdown::block_format(&open.lang, &open.text).is_some();
                }
            }
            FenceLine::Prose => {}
        }
    }
    if codex_found {
        Some(codex::NAME)
    } else if aider_found {
        Some(aider::NAME)
    } else if answer_found {
        Some(markdown::NAME)
    } else if diff_in_fence {
        Some(unified::NAME)
    } else {
        let text = std::str::from_utf8(bytes).ok().filter(|_| refusals)?;
        markdown::refusal(text).map(|_| markdown::NAME)
    }
}

/// Lines of bytes without their endings, read as UTF-8 where they are (a diff of a Latin-1
/// file is still detected, then refused by the loader with its line).
struct LineReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> LineReader<'a> {
    fn line_at(&self, at: usize) -> Option<(Cow<'a, str>, usize)> {
        if at >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[at..];
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = &rest[..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        Some((String::from_utf8_lossy(line), at + end + 1))
    }

    fn next(&mut self) -> Option<Cow<'a, str>> {
        let (line, next) = self.line_at(self.at)?;
        self.at = next;
        Some(line)
    }

    /// The next `n` lines, without moving past them.
    fn peek(&self, n: usize) -> Vec<Cow<'a, str>> {
        let mut out = Vec::with_capacity(n);
        let mut at = self.at;
        while out.len() < n {
            match self.line_at(at) {
                Some((line, next)) => {
                    out.push(line);
                    at = next;
                }
                None => break,
            }
        }
        out
    }
}
