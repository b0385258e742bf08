//! Reading JSON as a stream, holding only what a format needs.
//!
//! A `serde_json::Value` of a batch takes about seventeen times the input's size (a 56 MB batch
//! of a million changes took 985 MiB); a batch read as a stream takes what its model takes.
//! The pieces here let a format read an object field by field: [`KeySeed`] names a key
//! without copying it, [`LeanSeed`] reads a field's value keeping strings, numbers and arrays
//! of strings but never building anything else, and [`Ignore`] walks past a value. All of them
//! refuse duplicate keys, as [`super::parse_strict`] does. [`skeleton`] is the bounded view of
//! a JSON input that format detection looks at.

use super::{duplicate_key, Trail, MAX_PROBLEMS};
use crate::text_lines::TextLines;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// A field's value as read from a stream: what a format reads fields as, and nothing bigger.
///
/// A string is borrowed from the input wherever it has no escape.
#[derive(Clone, Debug, PartialEq)]
pub enum Lean<'de> {
    Null,
    Bool,
    Number(Number),
    Str(Cow<'de, str>),
    /// An array, with its strings kept and anything else only noted.
    Strings(StringArray),
    /// An object, walked past.
    Object,
}

/// The strings of an array in order, as lines (spans of the input where it is shared, see
/// [`LeanSeed::text`]); elements that are not strings are noted by index and kind (at most
/// [`MAX_PROBLEMS`], the rest counted), never built.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StringArray {
    pub items: TextLines,
    pub not_strings: Vec<(usize, &'static str)>,
    pub more_not_strings: usize,
}

impl StringArray {
    pub fn is_all_strings(&self) -> bool {
        self.not_strings.is_empty() && self.more_not_strings == 0
    }
}

impl Lean<'_> {
    /// What the value is, for messages (as [`super::kind_of`] says it).
    pub fn kind(&self) -> &'static str {
        match self {
            Lean::Null => "null",
            Lean::Bool => "a boolean",
            Lean::Number(_) => "a number",
            Lean::Str(_) => "a string",
            Lean::Strings(_) => "an array",
            Lean::Object => "an object",
        }
    }
}

/// Reads one value as a [`Lean`].
#[derive(Clone, Copy)]
pub struct LeanSeed<'t> {
    pub trail: &'t Trail,
    /// The input being read, when it is held as shared text: an array's strings borrowed
    /// from it become spans of it, not copies.
    pub text: Option<&'t Arc<String>>,
}

impl<'de> DeserializeSeed<'de> for LeanSeed<'_> {
    type Value = Lean<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Lean<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LeanSeed<'_> {
    type Value = Lean<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Lean<'de>, E> {
        Ok(Lean::Bool)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Lean<'de>, E> {
        Ok(Lean::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Lean<'de>, E> {
        Ok(Lean::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Lean<'de>, E> {
        Ok(Number::from_f64(v).map_or(Lean::Null, Lean::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Lean<'de>, E> {
        Ok(Lean::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Lean<'de>, E> {
        Ok(Lean::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Lean<'de>, E> {
        Ok(Lean::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Lean<'de>, E> {
        Ok(Lean::Null)
    }
    fn visit_none<E>(self) -> Result<Lean<'de>, E> {
        Ok(Lean::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lean<'de>, A::Error> {
        let mut array = StringArray::default();
        let mut strings = Gathered::default();
        let mut index = 0;
        loop {
            match seq.next_element_seed(Element { trail: self.trail }) {
                Ok(Some(Ok(item))) => strings.push(item),
                Ok(Some(Err(kind))) if array.not_strings.len() < MAX_PROBLEMS => {
                    array.not_strings.push((index, kind))
                }
                Ok(Some(Err(_))) => array.more_not_strings += 1,
                Ok(None) => {
                    array.items = strings.into_lines(self.text);
                    return Ok(Lean::Strings(array));
                }
                Err(e) => {
                    self.trail.index(index);
                    return Err(e);
                }
            }
            index += 1;
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Lean<'de>, A::Error> {
        Ignore { trail: self.trail }.visit_map(map)?;
        Ok(Lean::Object)
    }
}

/// An array's strings as they are read. The first is kept aside, so that an array of one
/// string, the most common, needs no list.
#[derive(Default)]
struct Gathered<'de> {
    first: Option<Cow<'de, str>>,
    rest: Vec<Cow<'de, str>>,
}

impl<'de> Gathered<'de> {
    fn push(&mut self, item: Cow<'de, str>) {
        match self.first {
            None => self.first = Some(item),
            Some(_) => self.rest.push(item),
        }
    }

    /// The strings as lines: spans of `text` when every one was borrowed from it, else
    /// strings (an escaped string is one already, and is moved, not copied).
    fn into_lines(self, text: Option<&Arc<String>>) -> TextLines {
        let Some(first) = self.first else {
            return TextLines::default();
        };
        let borrowed = |item: &Cow<'de, str>| match item {
            Cow::Borrowed(s) => Some(*s),
            Cow::Owned(_) => None,
        };
        // Without `text`, `of_slices_of` copies them, as below.
        if self.rest.is_empty() {
            if let Some(line) = borrowed(&first) {
                return TextLines::of_slices_of(text, &[line]);
            }
        } else if let Some(lines) = std::iter::once(&first)
            .chain(&self.rest)
            .map(borrowed)
            .collect::<Option<Vec<&str>>>()
        {
            return TextLines::of_slices_of(text, &lines);
        }
        std::iter::once(first)
            .chain(self.rest)
            .map(Cow::into_owned)
            .collect()
    }
}

/// An array element: a string, or the kind of what it is instead (walked past).
#[derive(Clone, Copy)]
struct Element<'t> {
    trail: &'t Trail,
}

impl<'de> DeserializeSeed<'de> for Element<'_> {
    type Value = Result<Cow<'de, str>, &'static str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Element<'_> {
    type Value = Result<Cow<'de, str>, &'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Ok(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Ok(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Ok(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Ignore { trail: self.trail }.visit_seq(seq)?;
        Ok(Err("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ignore { trail: self.trail }.visit_map(map)?;
        Ok(Err("an object"))
    }
}

/// Walks past a value, building nothing but refusing duplicate keys; gives back what kind of
/// value it was.
#[derive(Clone, Copy)]
pub struct Ignore<'t> {
    pub trail: &'t Trail,
}

impl<'de> DeserializeSeed<'de> for Ignore<'_> {
    type Value = &'static str;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<&'static str, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Ignore<'_> {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<&'static str, E> {
        Ok("a boolean")
    }
    fn visit_i64<E>(self, _: i64) -> Result<&'static str, E> {
        Ok("a number")
    }
    fn visit_u64<E>(self, _: u64) -> Result<&'static str, E> {
        Ok("a number")
    }
    fn visit_f64<E>(self, _: f64) -> Result<&'static str, E> {
        Ok("a number")
    }
    fn visit_str<E>(self, _: &str) -> Result<&'static str, E> {
        Ok("a string")
    }
    fn visit_unit<E>(self) -> Result<&'static str, E> {
        Ok("null")
    }
    fn visit_none<E>(self) -> Result<&'static str, E> {
        Ok("null")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<&'static str, A::Error> {
        let mut index = 0;
        loop {
            match seq.next_element_seed(self) {
                Ok(Some(_)) => index += 1,
                Ok(None) => return Ok("an array"),
                Err(e) => {
                    self.trail.index(index);
                    return Err(e);
                }
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<&'static str, A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(duplicate_key(&key));
            }
            if let Err(e) = map.next_value_seed(self) {
                self.trail.key(&key);
                return Err(e);
            }
        }
        Ok("an object")
    }
}

/// A key of an object, named by its place among `known` keys, or spelled out when unknown.
#[derive(Clone, Copy)]
pub struct KeySeed<'k> {
    pub known: &'k [&'static str],
}

/// A key as [`KeySeed`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Known(usize),
    Unknown(String),
}

impl Key {
    /// The key as written.
    pub fn name<'a>(&'a self, known: &[&'static str]) -> &'a str {
        match self {
            Key::Known(i) => known[*i],
            Key::Unknown(name) => name,
        }
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match self.known.iter().position(|k| *k == v) {
            Some(i) => Key::Known(i),
            None => Key::Unknown(v.to_owned()),
        })
    }
}

/// The keys an object has had so far, to refuse one written twice.
#[derive(Default)]
pub struct SeenKeys {
    known: u64,
    unknown: HashSet<String>,
}

impl SeenKeys {
    /// Notes `key`; an error when the object had it already.
    pub fn note<E: de::Error>(&mut self, key: &Key, known: &[&'static str]) -> Result<(), E> {
        let fresh = match key {
            Key::Known(i) => {
                let bit = 1u64 << i;
                let fresh = self.known & bit == 0;
                self.known |= bit;
                fresh
            }
            Key::Unknown(name) => self.unknown.insert(name.clone()),
        };
        if fresh {
            Ok(())
        } else {
            Err(duplicate_key(key.name(known)))
        }
    }
}

/// How deep [`skeleton`] keeps objects and arrays, and how many elements of each array.
const SKELETON_DEPTH: usize = 3;
const SKELETON_ELEMENTS: usize = 16;

/// A bounded view of a JSON input for telling its format: objects and arrays down to three
/// levels, the first sixteen elements of each array, every string empty. Whatever the input's
/// size, it takes a few kilobytes. Duplicate keys are allowed here (the last one wins): the
/// format's loader refuses them in its own terms. A syntax error is the JSON reader's.
/// `text` is `bytes` when they are known to be UTF-8 already (see [`read_whole`]).
pub fn skeleton(bytes: &[u8], text: Option<&str>) -> Result<Value, serde_json::Error> {
    read_whole(bytes, text, Skeleton { depth: 0 })
}

/// Reads `bytes` as one JSON value with `seed`, refusing anything after it. Input that is
/// UTF-8 throughout (nearly all) is checked once, in one pass, and not again string by
/// string: not at all when `text`, the same bytes, says it is (an input read as text was
/// checked as it was read). Any other is read byte by byte, so that the error names the
/// string with the bad byte, as before.
pub fn read_whole<'de, S: DeserializeSeed<'de>>(
    bytes: &'de [u8],
    text: Option<&'de str>,
    seed: S,
) -> Result<S::Value, serde_json::Error> {
    fn read<'de, R: serde_json::de::Read<'de>, S: DeserializeSeed<'de>>(
        mut deserializer: serde_json::Deserializer<R>,
        seed: S,
    ) -> Result<S::Value, serde_json::Error> {
        let value = seed.deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(value)
    }
    debug_assert!(text.is_none_or(|text| text.as_bytes() == bytes));
    match text.map_or_else(|| std::str::from_utf8(bytes).ok(), Some) {
        Some(text) => read(serde_json::Deserializer::from_str(text), seed),
        None => read(serde_json::Deserializer::from_slice(bytes), seed),
    }
}

#[derive(Clone, Copy)]
struct Skeleton {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Skeleton {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skeleton {
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
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::String(String::new()))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        let inner = Skeleton {
            depth: self.depth + 1,
        };
        while items.len() < SKELETON_ELEMENTS && self.depth < SKELETON_DEPTH {
            match seq.next_element_seed(inner)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let inner = Skeleton {
            depth: self.depth + 1,
        };
        while let Some(key) = map.next_key::<String>()? {
            let value = if self.depth < SKELETON_DEPTH {
                map.next_value_seed(inner)?
            } else {
                map.next_value::<IgnoredAny>()?;
                Value::Null
            };
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skeleton_keeps_the_shape_near_the_top_and_drops_the_rest() {
        let many = format!("[{}\"x\"]", "{\"a\": 1},".repeat(100));
        let input = format!(
            "{{\"files\": [{{\"docPath\": \"a.txt\", \"changes\": [{{\"deep\": [1]}}]}}], \"many\": {many}}}"
        );
        let value = skeleton(input.as_bytes(), None).unwrap();
        assert_eq!(value["files"][0]["docPath"], "");
        assert_eq!(value["files"][0]["changes"], Value::Array(Vec::new()));
        assert_eq!(value["many"].as_array().unwrap().len(), SKELETON_ELEMENTS);
        assert!(skeleton(b"{\"a\": [1,]}", None).is_err());
    }

    #[test]
    fn lean_values_keep_strings_and_note_the_rest() {
        let trail = Trail::default();
        let mut de = serde_json::Deserializer::from_str(r#"["a", 1, {"k": [2]}, "b"]"#);
        let lean = LeanSeed {
            trail: &trail,
            text: None,
        }
        .deserialize(&mut de)
        .unwrap();
        let Lean::Strings(array) = lean else {
            panic!("{lean:?}")
        };
        assert_eq!(array.items, vec!["a", "b"]);
        assert_eq!(array.not_strings, vec![(1, "a number"), (2, "an object")]);
        let mut de = serde_json::Deserializer::from_str(r#"{"k": 1, "k": 2}"#);
        let err = LeanSeed {
            trail: &trail,
            text: None,
        }
        .deserialize(&mut de)
        .unwrap_err();
        assert!(err.to_string().contains("duplicate key \"k\""), "{err}");
    }

    #[test]
    fn strings_without_escapes_are_spans_of_a_shared_input() {
        let trail = Trail::default();
        let read = |text: &Arc<String>| -> String {
            let mut de = serde_json::Deserializer::from_str(text);
            let lean = LeanSeed {
                trail: &trail,
                text: Some(text),
            }
            .deserialize(&mut de)
            .unwrap();
            match lean {
                Lean::Strings(array) => array.items.join("|"),
                Lean::Str(Cow::Borrowed(s)) => format!("borrowed {s}"),
                Lean::Str(Cow::Owned(s)) => format!("owned {s}"),
                other => panic!("{other:?}"),
            }
        };
        for (json, expected, shares) in [
            (r#"["one"]"#, "one", 1),
            (r#"["x", "", "z"]"#, "x||z", 1),
            (r#"["a", 7, "b"]"#, "a|b", 1),
            // An escaped string is not in the input as it reads: every line is a string then.
            (r#"["a", "say \"b\""]"#, "a|say \"b\"", 0),
            (r#"["tab\t"]"#, "tab\t", 0),
            ("[]", "", 0),
            // A lone string is borrowed while the input is read, and shares nothing.
            (r#""plain""#, "borrowed plain", 0),
            (r#""esc\u0061ped""#, "owned escaped", 0),
        ] {
            let text = Arc::new(json.to_owned());
            let lines = read(&text);
            assert_eq!(lines, expected, "{json}");
            // Each array that shares the input holds one more count of it, no more.
            let kept = LeanSeed {
                trail: &trail,
                text: Some(&text),
            }
            .deserialize(&mut serde_json::Deserializer::from_str(&text))
            .unwrap();
            assert_eq!(Arc::strong_count(&text) - 1, shares, "{json}");
            drop(kept);
        }
        // Without the shared input, the lines are strings.
        let text = Arc::new(String::from(r#"["one"]"#));
        let kept = LeanSeed {
            trail: &trail,
            text: None,
        }
        .deserialize(&mut serde_json::Deserializer::from_str(&text))
        .unwrap();
        assert_eq!(Arc::strong_count(&text), 1);
        assert!(
            matches!(&kept, Lean::Strings(a) if a.items == ["one"]),
            "{kept:?}"
        );
    }

    #[test]
    fn a_whole_input_reads_as_serde_json_reads_its_bytes() {
        // `read_whole` reads UTF-8 text without checking each string again, and anything
        // else as bytes: either way the value or the error (its words, line and column) is
        // what reading the bytes gives.
        let by_bytes = |bytes: &[u8]| {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            Skeleton { depth: 0 }
                .deserialize(&mut de)
                .and_then(|v| de.end().map(|()| v))
                .map_err(|e| e.to_string())
        };
        for bytes in [
            &b"{\"files\": [{\"docPath\": \"a\"}]}"[..],
            b"{\"a\": \"caf\xc3\xa9\"}",
            b"{\"a\": \"x\xff\"}",
            b"{\"k\xfe\": 1}",
            b"{\"a\": 1} \xff",
            b"{\"a\": \"\\ud800\"}",
            b"{\"a\": \"tab\there\"}",
            b"{\"a\": [1, 2,]}",
            b"{\"a\": \"cut",
            b"\xef\xbb\xbf{}",
        ] {
            let whole = read_whole(bytes, None, Skeleton { depth: 0 }).map_err(|e| e.to_string());
            assert_eq!(whole, by_bytes(bytes), "{}", bytes.escape_ascii());
            // Said to be text already, it is read as that text.
            if let Ok(text) = std::str::from_utf8(bytes) {
                let told = read_whole(bytes, Some(text), Skeleton { depth: 0 });
                assert_eq!(told.map_err(|e| e.to_string()), by_bytes(bytes));
            }
        }
    }
}
