//! Reading fields out of JSON, collecting every problem (`files[2].changes[0].endLine:
//! expected a whole number ...`) instead of stopping at the first, and turning unknown fields
//! into warnings.
//!
//! Fields come from a parsed `serde_json::Value` (the smaller JSON formats) or, read as a
//! stream, as [`Lean`] values (TUL-002): the same methods say the same words for both. A
//! walker keeps at most [`MAX_PROBLEMS`] problems and as many warnings, and counts the rest,
//! so that an input with millions of faults is refused in bounded memory.

use super::stream::Lean;
use super::{field_path, index_path, kind_of};
use crate::error::InputProblem;
use crate::model::InputWarning;
use crate::text_lines::TextLines;
use serde_json::{Map, Number, Value};

/// The most problems, and the most warnings, a walker lists; the rest are counted.
pub const MAX_PROBLEMS: usize = 1_000;

/// Collects problems and warnings while reading fields out of a JSON value.
#[derive(Default)]
pub struct Walker {
    pub problems: Vec<InputProblem>,
    pub warnings: Vec<InputWarning>,
    /// Problems found past [`MAX_PROBLEMS`], counted and not kept.
    problems_over: usize,
    warnings_over: usize,
}

impl Walker {
    pub fn problem(&mut self, location: impl Into<String>, message: impl Into<String>) {
        if self.problems.len() >= MAX_PROBLEMS {
            self.problems_over += 1;
            return;
        }
        self.problems.push(InputProblem {
            location: location.into(),
            message: message.into(),
        });
    }

    pub fn warn(&mut self, location: impl Into<String>, message: impl Into<String>) {
        if self.warnings.len() >= MAX_PROBLEMS {
            self.warnings_over += 1;
            return;
        }
        self.warnings.push(InputWarning {
            location: location.into(),
            message: message.into(),
        });
    }

    /// How many problems were found so far, listed or not: compare two counts to tell
    /// whether a part of the input had any.
    pub fn found(&self) -> usize {
        self.problems.len() + self.problems_over
    }

    /// Whether any problem was found.
    pub fn has_problems(&self) -> bool {
        self.found() > 0
    }

    /// The problems, with a last one counting those not listed.
    pub fn take_problems(&mut self) -> Vec<InputProblem> {
        let mut problems = std::mem::take(&mut self.problems);
        if self.problems_over > 0 {
            problems.push(InputProblem {
                location: "(batch)".into(),
                message: format!(
                    "and {} more problem(s), not listed (the first {MAX_PROBLEMS} are)",
                    self.problems_over
                ),
            });
            self.problems_over = 0;
        }
        problems
    }

    /// The warnings, with a last one counting those not listed.
    pub fn take_warnings(&mut self) -> Vec<InputWarning> {
        let mut warnings = std::mem::take(&mut self.warnings);
        if self.warnings_over > 0 {
            warnings.push(InputWarning {
                location: "(batch)".into(),
                message: format!(
                    "and {} more warning(s), not listed (the first {MAX_PROBLEMS} are)",
                    self.warnings_over
                ),
            });
            self.warnings_over = 0;
        }
        warnings
    }

    /// Takes in everything `other` found, after what this one found.
    pub fn absorb(&mut self, other: Walker) {
        for problem in other.problems {
            self.problem(problem.location, problem.message);
        }
        self.problems_over += other.problems_over;
        for warning in other.warnings {
            self.warn(warning.location, warning.message);
        }
        self.warnings_over += other.warnings_over;
    }

    /// The value as an object, or a problem.
    pub fn object<'v>(&mut self, value: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.not_an_object(path, kind_of(other));
                None
            }
        }
    }

    /// The problem of a value that should have been an object.
    pub fn not_an_object(&mut self, path: &str, found: &str) {
        let at = if path.is_empty() { "(top level)" } else { path };
        self.problem(at, format!("expected an object, found {found}"));
    }

    /// Warns about every field of `obj` not in `known`.
    pub fn unknown_fields(&mut self, obj: &Map<String, Value>, path: &str, known: &[&str]) {
        self.unknown_names(obj.keys().map(String::as_str), path, known);
    }

    /// Warns about each of `names`, fields not in `known`.
    pub fn unknown_names<'n>(
        &mut self,
        names: impl IntoIterator<Item = &'n str>,
        path: &str,
        known: &[&str],
    ) {
        for key in names {
            if !known.contains(&key) {
                self.warn(
                    field_path(path, key),
                    format!("unknown field, ignored (known here: {})", known.join(", ")),
                );
            }
        }
    }

    /// A field that may be absent or null; a problem when it has another type than string.
    pub fn opt_str<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v str> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                self.not_a_string(field_path(path, key), kind_of(other));
                None
            }
        }
    }

    /// A required string field.
    pub fn req_str<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v str> {
        if matches!(obj.get(key), None | Some(Value::Null)) {
            self.missing(path, key, "string");
            return None;
        }
        self.opt_str(obj, path, key)
    }

    /// A required array field.
    pub fn req_array<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v Vec<Value>> {
        match obj.get(key) {
            None | Some(Value::Null) => {
                self.missing(path, key, "array");
                None
            }
            Some(Value::Array(items)) => Some(items),
            Some(other) => {
                self.problem(
                    field_path(path, key),
                    format!("expected an array, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    /// A required whole number field (0 or more).
    pub fn req_uint(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<u64> {
        match obj.get(key) {
            None | Some(Value::Null) => {
                self.missing(path, key, "whole number");
                None
            }
            Some(Value::Number(n)) => self.whole_number(n, path, key),
            Some(other) => {
                self.not_a_whole_number(path, key, kind_of(other));
                None
            }
        }
    }

    /// A required array of strings.
    pub fn req_str_array(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<Vec<String>> {
        let items = self.req_array(obj, path, key)?;
        let here = field_path(path, key);
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                other => {
                    ok = false;
                    self.not_a_string(index_path(&here, i), kind_of(other));
                }
            }
        }
        ok.then_some(out)
    }

    /// [`Walker::opt_str`] of a field read as a stream.
    pub fn lean_opt_str<'v>(
        &mut self,
        field: Option<&'v Lean<'_>>,
        path: &str,
        key: &str,
    ) -> Option<&'v str> {
        match field {
            None | Some(Lean::Null) => None,
            Some(Lean::Str(s)) => Some(s),
            Some(other) => {
                self.not_a_string(field_path(path, key), other.kind());
                None
            }
        }
    }

    /// [`Walker::req_str`] of a field read as a stream.
    pub fn lean_req_str<'v>(
        &mut self,
        field: Option<&'v Lean<'_>>,
        path: &str,
        key: &str,
    ) -> Option<&'v str> {
        if matches!(field, None | Some(Lean::Null)) {
            self.missing(path, key, "string");
            return None;
        }
        self.lean_opt_str(field, path, key)
    }

    /// [`Walker::req_uint`] of a field read as a stream.
    pub fn lean_req_uint(
        &mut self,
        field: Option<&Lean<'_>>,
        path: &str,
        key: &str,
    ) -> Option<u64> {
        match field {
            None | Some(Lean::Null) => {
                self.missing(path, key, "whole number");
                None
            }
            Some(Lean::Number(n)) => self.whole_number(n, path, key),
            Some(other) => {
                self.not_a_whole_number(path, key, other.kind());
                None
            }
        }
    }

    /// [`Walker::req_str_array`] of a field read as a stream: the strings are taken, not
    /// copied.
    pub fn lean_req_str_array(
        &mut self,
        field: Option<Lean<'_>>,
        path: &str,
        key: &str,
    ) -> Option<TextLines> {
        match field {
            None | Some(Lean::Null) => {
                self.missing(path, key, "array");
                None
            }
            Some(Lean::Strings(array)) => {
                if !array.not_strings.is_empty() {
                    let here = field_path(path, key);
                    for &(i, found) in &array.not_strings {
                        self.not_a_string(index_path(&here, i), found);
                    }
                }
                self.problems_over += array.more_not_strings;
                array.is_all_strings().then_some(array.items)
            }
            Some(other) => {
                self.problem(
                    field_path(path, key),
                    format!("expected an array, found {}", other.kind()),
                );
                None
            }
        }
    }

    fn missing(&mut self, path: &str, key: &str, what: &str) {
        self.problem(field_path(path, key), format!("required {what} is missing"));
    }

    fn not_a_string(&mut self, location: String, found: &str) {
        self.problem(location, format!("expected a string, found {found}"));
    }

    fn whole_number(&mut self, n: &Number, path: &str, key: &str) -> Option<u64> {
        if let Some(n) = n.as_u64() {
            return Some(n);
        }
        let found = if n.as_i64().is_some() {
            format!("{n}")
        } else {
            format!("the fraction {n}")
        };
        self.not_a_whole_number(path, key, &found);
        None
    }

    fn not_a_whole_number(&mut self, path: &str, key: &str, found: &str) {
        self.problem(
            field_path(path, key),
            format!("expected a whole number of 0 or more, found {found}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_past_the_limit_are_counted_not_kept() {
        let mut walker = Walker::default();
        for i in 0..MAX_PROBLEMS + 5 {
            walker.problem(format!("files[{i}]"), "expected an object, found a number");
        }
        assert_eq!(walker.found(), MAX_PROBLEMS + 5);
        let problems = walker.take_problems();
        assert_eq!(problems.len(), MAX_PROBLEMS + 1);
        assert_eq!(
            problems.last().unwrap().to_string(),
            "(batch): and 5 more problem(s), not listed (the first 1000 are)"
        );
    }
}
