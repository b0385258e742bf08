//! Reading JSON inputs strictly, with every problem located by its JSON path.
//!
//! [`parse_strict`] parses bytes into a `serde_json::Value` but refuses duplicate object keys
//! (where serde_json would let the last one win silently), and inputs of more than
//! [`MAX_VALUES`] values. [`Walker`] reads fields out of that value, collecting every problem
//! instead of stopping at the first. [`stream`] reads JSON without holding it whole: the
//! bounded [`stream::skeleton`] that detection looks at, and the pieces TUL-002 batches are read
//! with as a stream. JSON formats use these; this module knows nothing of any format.

pub mod stream;
mod walker;

pub use walker::{Walker, MAX_PROBLEMS};

use crate::error::InputProblem;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::fmt;

/// The most values (scalars, arrays, objects and object entries) [`parse_strict`] builds.
/// Each takes tens of bytes in memory, against as few as two in the input (`0,`): bounding
/// them bounds the memory a hostile input can take. A batch in the formats read this way
/// (bundles, structured patches, patch-tool calls, directives) stays well below it; TUL-002
/// batches, which can be far larger, are read as a stream instead.
pub const MAX_VALUES: usize = 4_000_000;

/// Parses JSON, refusing duplicate keys. The error names the line and column, and for a
/// duplicate key the JSON path of the object that repeats it.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, InputProblem> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let trail = Trail::default();
    let left = Cell::new(MAX_VALUES);
    StrictValue {
        trail: &trail,
        left: &left,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value))
    .map_err(|e| trail.problem(&e))
}

fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// One step into a JSON value, recorded only on the way out of an error.
enum Step {
    Key(String),
    Index(usize),
}

/// Where in the input an error happened: each enclosing object and array adds its step as
/// the error passes through it, so a successful parse builds no paths at all.
#[derive(Default)]
pub struct Trail(RefCell<Vec<Step>>);

impl Trail {
    /// The error passed out of field `key` of an object.
    pub fn key(&self, key: &str) {
        self.0.borrow_mut().push(Step::Key(key.to_owned()));
    }

    /// The error passed out of element `index` of an array.
    pub fn index(&self, index: usize) {
        self.0.borrow_mut().push(Step::Index(index));
    }

    /// The JSON path of the steps recorded from the innermost out.
    fn path(&self) -> String {
        let mut path = String::new();
        for step in self.0.borrow().iter().rev() {
            match step {
                Step::Key(key) => path = field_path(&path, key),
                Step::Index(i) => path = index_path(&path, *i),
            }
        }
        path
    }

    /// An error of the JSON reader as a problem: a syntax error found by line and column, an
    /// error of the content (a duplicate key, a limit) by its JSON path too.
    pub fn problem(&self, e: &serde_json::Error) -> InputProblem {
        let text = e.to_string();
        let at = format!("line {}, column {}", e.line(), e.column());
        let data = e.classify() == serde_json::error::Category::Data;
        let message = if text.starts_with("recursion limit exceeded") {
            "JSON nested deeper than 128 levels; no batch format needs that".to_owned()
        } else if data {
            strip_position(&text).to_owned()
        } else {
            format!("not valid JSON: {}", strip_position(&text))
        };
        let path = if data { self.path() } else { String::new() };
        InputProblem {
            location: if path.is_empty() {
                at
            } else {
                format!("{path} ({at})")
            },
            message,
        }
    }
}

/// The error for a key an object already has.
pub fn duplicate_key<E: de::Error>(key: &str) -> E {
    E::custom(format!(
        "duplicate key \"{key}\" (each key may appear once in an object)"
    ))
}

/// Deserializes any value, refusing duplicate keys, and more than `left` values in all.
#[derive(Clone, Copy)]
struct StrictValue<'t> {
    trail: &'t Trail,
    left: &'t Cell<usize>,
}

impl StrictValue<'_> {
    /// Counts one more value, or refuses it past the limit.
    fn count<E: de::Error>(self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(E::custom(format!(
                "more than {MAX_VALUES} JSON values; no batch in this format is that large (a large batch belongs in TUL-002, which has no such limit)"
            ))),
        }
    }
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.count()?;
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
                    self.trail.index(items.len());
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
                return Err(duplicate_key(&key));
            }
            match map.next_value_seed(self) {
                Ok(value) => {
                    out.insert(key, value);
                }
                Err(e) => {
                    self.trail.key(&key);
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
    fn more_values_than_the_limit_are_refused_while_parsing() {
        let zeros = format!("{{\"files\": [{}0]}}", "0,".repeat(MAX_VALUES));
        let err = parse_strict(zeros.as_bytes()).unwrap_err();
        assert!(err.location.starts_with("files["), "{err}");
        assert!(
            err.message.starts_with("more than 4000000 JSON values"),
            "{err}"
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
