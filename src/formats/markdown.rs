//! A model's chat answer: fenced blocks in prose, joined into one batch.
//!
//! Fenced `json` blocks may hold any JSON format patchdeck reads (detected per block), and
//! `patch`/`diff` blocks a unified diff (as may an unlabelled block that is one); other blocks
//! and all prose are ignored. Problems name the block and the line of the answer. Two blocks
//! that change the same file are flagged on both (by the check every format shares). When the
//! answer holds no patch and its prose (outside fenced blocks) one of the Aptix refusal
//! sentences, the error says the model declined and what to ask for instead.

use super::build::{Builder, Loaded};
use super::{detect_json, edits, load_json, tul002, unified, Context};
use crate::error::InputProblem;
use crate::json::{self, Walker};

pub const NAME: &str = "markdown";

/// The sentences aptix-file-spec.md tells a model to answer with when it will not patch.
const REFUSALS: &[(&str, &str)] = &[
    (
        "a patch cannot be safely generated",
        "ask for a full Aptix file bundle instead, or give the model the missing context",
    ),
    (
        "unable to generate a safe git patch",
        "ask for an Aptix file bundle or a structured patch instead",
    ),
];

/// One fenced block: its info string, its text, and the answer line its first line is on.
struct Block {
    lang: String,
    text: String,
    first_line: usize,
}

/// Where a line of an answer stands with respect to fenced blocks.
pub(crate) enum FenceLine {
    /// Outside every fence.
    Prose,
    /// Opens a fence with this info string's first word (lowercase).
    Opens(String),
    /// Inside a fence; the indentation to strip from the line (the fence's, at most).
    Inside(usize),
    /// Closes the open fence.
    Closes,
}

/// Follows fenced blocks line by line: a run of three or more backticks or tildes opens one
/// (indented or not), and the same fence, alone on its line, closes it.
#[derive(Default)]
pub(crate) struct Fences {
    /// The open fence and its indentation.
    open: Option<(String, usize)>,
}

impl Fences {
    pub(crate) fn step(&mut self, line: &str) -> FenceLine {
        // Indentation is spaces and tabs (CommonMark), so it is always whole bytes to strip.
        let trimmed = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - trimmed.len();
        match &self.open {
            None => {
                let first = trimmed.chars().next().unwrap_or(' ');
                let fence: String = trimmed.chars().take_while(|c| *c == first).collect();
                if fence.len() < 3 || (first != '`' && first != '~') {
                    return FenceLine::Prose;
                }
                let lang = trimmed[fence.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_lowercase();
                self.open = Some((fence, indent));
                FenceLine::Opens(lang)
            }
            Some((fence, fence_indent)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed[fence.len()..].trim().is_empty() {
                    self.open = None;
                    FenceLine::Closes
                } else {
                    FenceLine::Inside(indent.min(*fence_indent))
                }
            }
        }
    }
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut fences = Fences::default();
    let mut open: Option<(String, usize)> = None; // lang, first line
    let mut body = String::new();
    for (i, line) in text.lines().enumerate() {
        match fences.step(line) {
            FenceLine::Prose => {}
            FenceLine::Opens(lang) => {
                open = Some((lang, i + 2));
                body.clear();
            }
            FenceLine::Inside(strip) => {
                body.push_str(&line[strip..]);
                body.push('\n');
            }
            FenceLine::Closes => {
                if let Some((lang, first_line)) = open.take() {
                    out.push(Block {
                        lang,
                        text: std::mem::take(&mut body),
                        first_line,
                    });
                }
            }
        }
    }
    out
}

/// The first refusal sentence of aptix-file-spec.md in the answer's prose (outside fenced
/// blocks): its 1-based line, the line as written, and the advice to give.
pub(crate) fn refusal(text: &str) -> Option<(usize, &str, &'static str)> {
    let mut fences = Fences::default();
    for (i, line) in text.lines().enumerate() {
        if !matches!(fences.step(line), FenceLine::Prose) {
            continue;
        }
        if let Some((_, advice)) = REFUSALS
            .iter()
            .find(|(s, _)| contains_ignoring_case(line, s))
        {
            return Some((i + 1, line, advice));
        }
    }
    None
}

/// Whether `hay` contains `needle` (lowercase ASCII), ignoring ASCII case.
fn contains_ignoring_case(hay: &str, needle: &str) -> bool {
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The answer's line for a `line N, column M` location inside a block.
fn answer_line(block: &Block, location: &str) -> usize {
    let inner: usize = location
        .strip_prefix("line ")
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(1);
    block.first_line + inner - 1
}

/// Which format a fenced block is in, if it is a patch at all: its info string's first word
/// and its text.
pub(crate) fn block_format(lang: &str, text: &str) -> Option<&'static str> {
    match lang {
        "json" | "jsonc" | "" => {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                return detect_json(&value);
            }
            if lang.is_empty() && unified::detect(text) {
                return Some(unified::NAME);
            }
            (!lang.is_empty()).then_some("json")
        }
        "patch" | "diff" | "udiff" | "git" => Some(unified::NAME),
        _ => None,
    }
}

pub fn load(
    text: &str,
    context: &Context,
    builder: &mut Builder,
    loaded: &mut Loaded,
    problems: &mut Vec<InputProblem>,
) {
    let all = blocks(text);
    let refusal = refusal(text);
    let patches: Vec<(usize, &Block, &'static str)> = all
        .iter()
        .enumerate()
        .filter_map(|(i, b)| block_format(&b.lang, &b.text).map(|f| (i + 1, b, f)))
        .collect();
    let quote = |line: &str| line.trim().trim_matches(['>', '`', ' ']).to_owned();
    if patches.is_empty() {
        let (line, message) = match refusal {
            Some((line, said, advice)) => (
                line,
                format!("the model declined to write a patch (\"{}\"); there is nothing to review: {advice}", quote(said)),
            ),
            None => (1, "no patch in this answer: expected a fenced ```json block (a bundle, structured patch, patch-tool call or TUL-002 batch) or a ```patch / ```diff block".into()),
        };
        problems.push(InputProblem {
            location: format!("line {line}"),
            message,
        });
        return;
    }
    if let Some((line, said, _)) = refusal {
        loaded.warnings.push(crate::model::InputWarning {
            location: format!("line {line}"),
            message: format!(
                "the answer also says \"{}\"; read it before accepting anything",
                quote(said)
            ),
        });
    }
    for (number, block, format) in patches {
        let here = format!("block {number} (line {})", block.first_line);
        match format {
            unified::NAME => {
                let strip = context.options.strip;
                let mut found = Vec::new();
                let diff = std::sync::Arc::new(block.text.clone());
                let files = unified::parse(&diff, block.first_line, strip, &mut found);
                if found.is_empty() {
                    unified::build(files, &diff, context.files, builder, loaded);
                }
                problems.extend(found.into_iter().map(|p| InputProblem {
                    location: format!("block {number}, {}", p.location),
                    message: p.message,
                }));
            }
            "json" => {
                let message = match json::parse_strict(block.text.as_bytes()) {
                    Err(p) => format!("{} (at {} of the block, line {} of the answer)", p.message, p.location, answer_line(block, &p.location)),
                    Ok(_) => "a JSON block that is no patch format patchdeck reads (bundle, structured patch, patch-tool call, directive, TUL-002)".into(),
                };
                problems.push(InputProblem {
                    location: here,
                    message,
                });
            }
            json_format => {
                // REQ-PATCH-008 limits each patch-tool call, in an answer too.
                if let (edits::NAME, Some(limit)) = (json_format, context.options.max_tokens) {
                    let tokens = super::estimate_tokens(block.text.as_bytes());
                    if tokens > limit {
                        problems.push(InputProblem {
                            location: here,
                            message: format!("the patch-tool call is about {tokens} tokens (characters / 4), more than the {limit} a patch may have; split it into smaller patches (--max-tokens 0 lifts the limit)"),
                        });
                        continue;
                    }
                }
                let value = match json::parse_strict(block.text.as_bytes()) {
                    Ok(value) => value,
                    Err(p) => {
                        problems.push(InputProblem {
                            location: format!("{here}, {}", p.location),
                            message: p.message,
                        });
                        continue;
                    }
                };
                let mut walker = Walker::default();
                if json_format == tul002::NAME {
                    if let Some(parsed) = tul002::parse(block.text.as_bytes(), &mut walker) {
                        loaded.files.extend(parsed.files);
                    }
                } else {
                    load_json(json_format, &value, context, builder, loaded, &mut walker);
                }
                problems.extend(walker.take_problems().into_iter().map(|p| InputProblem {
                    location: format!("{here}: {}", p.location),
                    message: p.message,
                }));
                loaded
                    .warnings
                    .extend(walker.take_warnings().into_iter().map(|w| {
                        crate::model::InputWarning {
                            location: format!("{here}: {}", w.location),
                            message: w.message,
                        }
                    }));
            }
        }
    }
}
