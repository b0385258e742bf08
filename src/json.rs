//! Reading JSON inputs strictly, with every problem located by its JSON path.
//!
//! [`parse_strict`] parses bytes into a `serde_json::Value` but refuses duplicate object keys
//! (where serde_json would let the last one win silently). [`Walker`] reads fields out of that
//! value, collecting every problem (`files[2].changes[0].endLine: expected a whole number ...`)
//! instead of stopping at the first, and turning unknown fields into warnings. JSON formats use
//! it; it knows nothing of any format.

use crate::error::InputProblem;
use crate::model::InputWarning;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Parses JSON, refusing duplicate keys. The error names the line and column, and for a
/// duplicate key the JSON path of the object that repeats it.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, InputProblem> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let trail = RefCell::new(Vec::new());
    let value = StrictValue { trail: &trail }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|e| {
            let text = e.to_string();
            let at = format!("line {}, column {}", e.line(), e.column());
            let message = if text.starts_with("recursion limit exceeded") {
                "JSON nested deeper than 128 levels; no batch format needs that".to_owned()
            } else if e.classify() == serde_json::error::Category::Data {
                strip_position(&text).to_owned()
            } else {
                format!("not valid JSON: {}", strip_position(&text))
            };
            // A syntax error is found by line and column; a duplicate key by its object too.
            let path = if e.classify() == serde_json::error::Category::Data {
                trail_path(&trail.into_inner())
            } else {
                String::new()
            };
            InputProblem {
                location: if path.is_empty() {
                    at
                } else {
                    format!("{path} ({at})")
                },
                message,
            }
        })?;
    Ok(value)
}

fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// One step into a JSON value, recorded only on the way out of an error.
enum Step {
    Key(String),
    Index(usize),
}

/// The JSON path of the steps recorded from the innermost out.
fn trail_path(steps: &[Step]) -> String {
    let mut path = String::new();
    for step in steps.iter().rev() {
        match step {
            Step::Key(key) => path = field_path(&path, key),
            Step::Index(i) => path = index_path(&path, *i),
        }
    }
    path
}

/// Deserializes any value, refusing duplicate keys. When a value fails, each enclosing object
/// and array adds its step to `trail` as the error passes through it, so a successful parse
/// builds no paths at all.
#[derive(Clone, Copy)]
struct StrictValue<'t> {
    trail: &'t RefCell<Vec<Step>>,
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            match seq.next_element_seed(self) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => break,
                Err(e) => {
                    self.trail.borrow_mut().push(Step::Index(items.len()));
                    return Err(e);
                }
            }
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key \"{key}\" (each key may appear once in an object)"
                )));
            }
            match map.next_value_seed(self) {
                Ok(value) => {
                    out.insert(key, value);
                }
                Err(e) => {
                    self.trail.borrow_mut().push(Step::Key(key));
                    return Err(e);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// The JSON path of a field inside an object at `path`.
pub fn field_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The JSON path of an element of an array at `path`.
pub fn index_path(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// What a JSON value is, for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Collects problems and warnings while reading fields out of a JSON value.
#[derive(Default)]
pub struct Walker {
    pub problems: Vec<InputProblem>,
    pub warnings: Vec<InputWarning>,
}

impl Walker {
    pub fn problem(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.problems.push(InputProblem {
            location: location.into(),
            message: message.into(),
        });
    }

    pub fn warn(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(InputWarning {
            location: location.into(),
            message: message.into(),
        });
    }

    /// The value as an object, or a problem.
    pub fn object<'v>(&mut self, value: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                let at = if path.is_empty() { "(top level)" } else { path };
                self.problem(at, format!("expected an object, found {}", kind_of(other)));
                None
            }
        }
    }

    /// Warns about every field of `obj` not in `known`.
    pub fn unknown_fields(&mut self, obj: &Map<String, Value>, path: &str, known: &[&str]) {
        for key in obj.keys() {
            if !known.contains(&key.as_str()) {
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
                self.problem(
                    field_path(path, key),
                    format!("expected a string, found {}", kind_of(other)),
                );
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
            self.problem(field_path(path, key), "required string is missing");
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
                self.problem(field_path(path, key), "required array is missing");
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
                self.problem(field_path(path, key), "required whole number is missing");
                None
            }
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
            Some(other) => {
                let found = match other {
                    Value::Number(n) if n.as_i64().is_some() => format!("{n}"),
                    Value::Number(n) => format!("the fraction {n}"),
                    other => kind_of(other).to_owned(),
                };
                self.problem(
                    field_path(path, key),
                    format!("expected a whole number of 0 or more, found {found}"),
                );
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
                    self.problem(
                        index_path(&here, i),
                        format!("expected a string, found {}", kind_of(other)),
                    );
                }
            }
        }
        ok.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_with_their_position() {
        let err = parse_strict(b"{\n \"a\": 1,\n \"a\": 2\n}").unwrap_err();
        assert!(err.message.contains("duplicate key \"a\""), "{err}");
        assert!(err.location.starts_with("line 3"), "{err}");
    }

    #[test]
    fn a_duplicate_key_is_located_by_the_path_of_its_object() {
        let err = parse_strict(b"{\"files\": [{\"a\": 1}, {\"changes\": [{\"k\": 1, \"k\": 2}]}]}")
            .unwrap_err();
        assert_eq!(err.location, "files[1].changes[0] (line 1, column 46)");
        assert_eq!(
            err.message,
            "duplicate key \"k\" (each key may appear once in an object)"
        );
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let err = parse_strict(b"{\"a\": [1, 2,]}").unwrap_err();
        assert_eq!(err.location, "line 1, column 13");
    }

    #[test]
    fn walker_names_the_path_and_what_was_expected() {
        let value = parse_strict(br#"{"n": -3, "s": 4, "xs": ["a", 1]}"#).unwrap();
        let obj = value.as_object().unwrap();
        let mut w = Walker::default();
        assert_eq!(w.req_uint(obj, "files[0]", "n"), None);
        assert_eq!(w.opt_str(obj, "files[0]", "s"), None);
        assert_eq!(w.req_str_array(obj, "files[0]", "xs"), None);
        assert_eq!(w.req_str(obj, "files[0]", "missing"), None);
        let text: Vec<String> = w.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            text,
            vec![
                "files[0].n: expected a whole number of 0 or more, found -3",
                "files[0].s: expected a string, found a number",
                "files[0].xs[1]: expected a string, found a number",
                "files[0].missing: required string is missing",
            ]
        );
        w.unknown_fields(obj, "files[0]", &["n", "s"]);
        assert_eq!(w.warnings.len(), 1);
        assert_eq!(w.warnings[0].location, "files[0].xs");
    }
}
