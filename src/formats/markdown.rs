//! A model's chat answer: fenced blocks in prose, joined into one batch.
//!
//! Fenced `json` blocks may hold any JSON format patchdeck reads (detected per block), and
//! `patch`/`diff` blocks a unified diff (as may an unlabelled block that is one); other blocks
//! and all prose are ignored. Problems name the block and the line of the answer. Two blocks
//! that change the same file are flagged on both (by the check every format shares). When the
//! answer holds no patch but one of the Aptix refusal sentences, the error says the model
//! declined and what to ask for instead.

use super::build::{Builder, Loaded};
use super::{detect_json, load_json, tul002, unified, Context};
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

pub fn detect(text: &str) -> bool {
    let lower = text.to_lowercase();
    REFUSALS.iter().any(|(s, _)| lower.contains(s))
        || blocks(text).iter().any(|b| block_format(b).is_some())
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(String, String, usize, usize)> = None; // fence, lang, first line, indent
    let mut body = String::new();
    for (i, line) in text.lines().enumerate() {
        // Indentation is spaces and tabs (CommonMark), so it is always whole bytes to strip.
        let trimmed = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - trimmed.len();
        match &open {
            None => {
                let fence: String = trimmed
                    .chars()
                    .take_while(|c| *c == '`' || *c == '~')
                    .collect();
                if fence.len() >= 3
                    && fence
                        .chars()
                        .all(|c| c == fence.chars().next().unwrap_or('`'))
                {
                    let lang = trimmed[fence.len()..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_lowercase();
                    open = Some((fence, lang, i + 2, indent));
                    body.clear();
                }
            }
            Some((fence, lang, first, fence_indent)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed[fence.len()..].trim().is_empty() {
                    out.push(Block {
                        lang: lang.clone(),
                        text: std::mem::take(&mut body),
                        first_line: *first,
                    });
                    open = None;
                } else {
                    let strip = indent.min(*fence_indent);
                    body.push_str(&line[strip..]);
                    body.push('\n');
                }
            }
        }
    }
    out
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

/// Which format a block is in, if it is a patch at all.
fn block_format(block: &Block) -> Option<&'static str> {
    match block.lang.as_str() {
        "json" | "jsonc" | "" => {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(&block.text) {
                return detect_json(&value);
            }
            if block.lang.is_empty() && unified::detect(&block.text) {
                return Some(unified::NAME);
            }
            (!block.lang.is_empty()).then_some("json")
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
    let lower = text.to_lowercase();
    let refusal = REFUSALS.iter().find(|(s, _)| lower.contains(s));
    let patches: Vec<(usize, &Block, &'static str)> = all
        .iter()
        .enumerate()
        .filter_map(|(i, b)| block_format(b).map(|f| (i + 1, b, f)))
        .collect();
    if patches.is_empty() {
        let message = match refusal {
            Some((sentence, advice)) => {
                let at = lower.find(sentence).unwrap_or(0);
                let quoted: String = text[at..].lines().next().unwrap_or("").trim().trim_matches(['>', '`', ' ']).to_owned();
                format!("the model declined to write a patch (\"{quoted}\"); there is nothing to review: {advice}")
            }
            None => "no patch in this answer: expected a fenced ```json block (a bundle, structured patch, patch-tool call or TUL-002 batch) or a ```patch / ```diff block".into(),
        };
        let line = refusal.map_or(1, |(s, _)| {
            lower[..lower.find(s).unwrap_or(0)].matches('\n').count() + 1
        });
        problems.push(InputProblem {
            location: format!("line {line}"),
            message,
        });
        return;
    }
    if let Some((sentence, _)) = refusal {
        loaded.warnings.push(crate::model::InputWarning {
            location: "(answer)".into(),
            message: format!(
                "the answer also says \"{sentence}...\"; read it before accepting anything"
            ),
        });
    }
    for (number, block, format) in patches {
        let here = format!("block {number} (line {})", block.first_line);
        match format {
            unified::NAME => {
                let strip = context.options.strip.unwrap_or(1);
                let mut found = Vec::new();
                let files = unified::parse(&block.text, block.first_line, strip, &mut found);
                if found.is_empty() {
                    unified::build(files, context.workspace, builder, loaded);
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
                    if let Some(parsed) = tul002::parse(&value, block.text.as_bytes(), &mut walker)
                    {
                        loaded.files.extend(parsed.files);
                    }
                } else {
                    load_json(json_format, &value, context, builder, loaded, &mut walker);
                }
                problems.extend(walker.problems.into_iter().map(|p| InputProblem {
                    location: format!("{here}: {}", p.location),
                    message: p.message,
                }));
                loaded.warnings.extend(walker.warnings.into_iter().map(|w| {
                    crate::model::InputWarning {
                        location: format!("{here}: {}", w.location),
                        message: w.message,
                    }
                }));
            }
        }
    }
}
