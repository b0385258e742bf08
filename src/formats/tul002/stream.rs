//! Reading a TUL-002 batch as a stream: each change's fields are read, checked and turned into
//! the model at once, so the batch is never held as JSON. A batch of a million changes takes
//! what its model takes, not seventeen times its size as a `serde_json::Value` did, and a
//! batch over the file or change limit is refused at the first file or change too many.
//!
//! This module only walks the JSON; what the fields must be is `super`'s
//! ([`super::change_from`], [`super::file_from`], [`super::Files::add`]).

use super::{
    BatchFields, ChangeFields, FileFields, Files, ParsedBatch, BATCH_FIELDS, CHANGE_FIELDS,
    FILE_FIELDS,
};
use crate::formats::Met;
use crate::formats::{MAX_CHANGES, MAX_FILES};
use crate::json::stream::{Ignore, Key, KeySeed, Lean, LeanSeed, SeenKeys};
use crate::json::{field_path, index_path, Trail, Walker};
use crate::model::IdDeriver;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt::{self, Write};
use std::sync::Arc;

/// Reads and checks a TUL-002 batch from its bytes, deriving IDs with `ids` (seeded from the
/// same bytes). `text`, when given, is the same bytes held as shared text: the lines of the
/// changes are spans of it wherever the JSON string has no escape. Problems and warnings go to `walker`; the batch is returned only when there
/// are none.
pub fn read(
    input: &[u8],
    text: Option<&Arc<String>>,
    ids: IdDeriver,
    walker: &mut Walker,
    ahead: Option<Met<'_>>,
) -> Option<ParsedBatch> {
    let trail = Trail::default();
    let top = Top {
        ids: &ids,
        ahead,
        trail: &trail,
        text,
    };
    let read = crate::json::stream::read_whole(input, text.map(|t| t.as_str()), top);
    let top = match read {
        Ok(top) => top,
        Err(e) => {
            let problem = trail.problem(&e);
            walker.problem(problem.location, problem.message);
            return None;
        }
    };
    let Outer::Object(top) = top else {
        let Outer::Not(kind) = top else {
            unreachable!()
        };
        walker.not_an_object("", kind);
        return None;
    };
    // The batch is the top level, or sits under `result` (a tool response) or `arguments` (a
    // tool call).
    let (body, root) = if top.body.files.is_some() {
        (top.body, "")
    } else if let Some(result) = top.result.filter(|b| b.files.is_some()) {
        (*result, "result")
    } else if let Some(arguments) = top.arguments.filter(|b| b.files.is_some()) {
        (*arguments, "arguments")
    } else {
        walker.problem(
            "files",
            "required array is missing (a TUL-002 batch lists its files)",
        );
        return None;
    };
    super::batch_from(walker, &ids, body, root)
}

/// A value that should have been an object: the object read, or what it was instead.
enum Outer<T> {
    Object(T),
    Not(&'static str),
}

/// The top level: a batch, perhaps with another under `result` or `arguments`.
struct TopRead<'de> {
    body: BodyRead<'de>,
    result: Option<Box<BodyRead<'de>>>,
    arguments: Option<Box<BodyRead<'de>>>,
}

/// What one batch object held: its own fields, its files as read (`None` when it has no
/// `files`), and the problems and warnings found in it, kept apart until it is known to be the
/// batch.
pub(super) struct BodyRead<'de> {
    pub fields: BatchFields<'de>,
    /// The names of the fields that are not the batch's.
    pub unknown: Vec<String>,
    pub files: Option<FilesRead>,
    pub walker: Walker,
}

/// The `files` field of a batch.
pub(super) enum FilesRead {
    Read(Files),
    /// Something else than an array.
    Not(Lean<'static>),
}

#[derive(Clone, Copy)]
struct Top<'a> {
    ids: &'a IdDeriver,
    ahead: Option<Met<'a>>,
    trail: &'a Trail,
    text: Option<&'a Arc<String>>,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Outer<TopRead<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Visitor methods for a value that must be an object, for every other kind: the value is
/// walked past and its kind given back.
macro_rules! not_an_object {
    ($value:ty) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_bool<E>(self, _: bool) -> Result<$value, E> {
            Ok(Outer::Not("a boolean"))
        }
        fn visit_i64<E>(self, _: i64) -> Result<$value, E> {
            Ok(Outer::Not("a number"))
        }
        fn visit_u64<E>(self, _: u64) -> Result<$value, E> {
            Ok(Outer::Not("a number"))
        }
        fn visit_f64<E>(self, _: f64) -> Result<$value, E> {
            Ok(Outer::Not("a number"))
        }
        fn visit_str<E>(self, _: &str) -> Result<$value, E> {
            Ok(Outer::Not("a string"))
        }
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok(Outer::Not("null"))
        }
        fn visit_none<E>(self) -> Result<$value, E> {
            Ok(Outer::Not("null"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$value, A::Error> {
            Ignore { trail: self.trail }.visit_seq(seq)?;
            Ok(Outer::Not("an array"))
        }
    };
}

/// Visitor methods for a value that must be an array, for every other kind: the value is
/// walked past and given back, leanly, through `$not` (a number's or string's value is not kept).
macro_rules! not_an_array {
    ($value:ty, $not:path, $what:literal) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str($what)
        }
        fn visit_bool<E>(self, _: bool) -> Result<$value, E> {
            Ok($not(Lean::Bool))
        }
        fn visit_i64<E>(self, v: i64) -> Result<$value, E> {
            Ok($not(Lean::Number(v.into())))
        }
        fn visit_u64<E>(self, v: u64) -> Result<$value, E> {
            Ok($not(Lean::Number(v.into())))
        }
        fn visit_f64<E>(self, _: f64) -> Result<$value, E> {
            Ok($not(Lean::Number(0.into())))
        }
        fn visit_str<E>(self, _: &str) -> Result<$value, E> {
            Ok($not(Lean::Str(Default::default())))
        }
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok($not(Lean::Null))
        }
        fn visit_none<E>(self) -> Result<$value, E> {
            Ok($not(Lean::Null))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$value, A::Error> {
            Ignore { trail: self.trail }.visit_map(map)?;
            Ok($not(Lean::Object))
        }
    };
}

/// The keys the top level is read with: the batch's own, then the envelopes'.
const TOP_KEYS: &[&str] = &[
    "batchLabel",
    "batchKey",
    "batchId",
    "files",
    "result",
    "arguments",
];

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Outer<TopRead<'de>>;

    not_an_object!(Outer<TopRead<'de>>);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut body = Body::new(self.ids, self.ahead, self.trail, self.text, "");
        let (mut result, mut arguments) = (None, None);
        let mut seen = SeenKeys::default();
        while let Some(key) = map.next_key_seed(KeySeed { known: TOP_KEYS })? {
            seen.note(&key, TOP_KEYS)?;
            let name = key.name(TOP_KEYS).to_owned();
            let envelope = match name.as_str() {
                "result" => Some((&mut result, "result")),
                "arguments" => Some((&mut arguments, "arguments")),
                _ => None,
            };
            let read = match envelope {
                Some((slot, root)) => {
                    body.unknown.push(name.clone());
                    map.next_value_seed(BodySeed {
                        ids: self.ids,
                        ahead: self.ahead,
                        trail: self.trail,
                        text: self.text,
                        root,
                    })
                    .map(|inner| {
                        if let Outer::Object(inner) = inner {
                            *slot = Some(Box::new(inner));
                        }
                    })
                }
                None => body.field(&mut map, &name),
            };
            if let Err(e) = read {
                self.trail.key(&name);
                return Err(e);
            }
        }
        Ok(Outer::Object(TopRead {
            body: body.finish(),
            result,
            arguments,
        }))
    }
}

/// A batch object under an envelope key.
#[derive(Clone, Copy)]
struct BodySeed<'a> {
    ids: &'a IdDeriver,
    ahead: Option<Met<'a>>,
    trail: &'a Trail,
    text: Option<&'a Arc<String>>,
    root: &'static str,
}

impl<'de> DeserializeSeed<'de> for BodySeed<'_> {
    type Value = Outer<BodyRead<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BodySeed<'_> {
    type Value = Outer<BodyRead<'de>>;

    not_an_object!(Outer<BodyRead<'de>>);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut body = Body::new(self.ids, self.ahead, self.trail, self.text, self.root);
        let mut seen = SeenKeys::default();
        while let Some(key) = map.next_key_seed(KeySeed {
            known: BATCH_FIELDS,
        })? {
            seen.note(&key, BATCH_FIELDS)?;
            let name = key.name(BATCH_FIELDS).to_owned();
            if let Err(e) = body.field(&mut map, &name) {
                self.trail.key(&name);
                return Err(e);
            }
        }
        Ok(Outer::Object(body.finish()))
    }
}

/// A batch object being read.
struct Body<'a, 'de> {
    reading: RefCell<Reading<'a>>,
    trail: &'a Trail,
    fields: BatchFields<'de>,
    unknown: Vec<String>,
    files: Option<FilesRead>,
}

/// What the files of one batch object share while they are read.
struct Reading<'a> {
    ids: &'a IdDeriver,
    /// Where each file's docPath goes as soon as it is read, to be read meanwhile.
    ahead: Option<Met<'a>>,
    /// The input as shared text, which lines are spans of (see [`LeanSeed::text`]).
    text: Option<&'a Arc<String>>,
    walker: Walker,
    /// JSON path of the batch object (`""`, `result` or `arguments`).
    root: &'static str,
    /// Changes read so far, in every file, for the limit.
    changes: usize,
}

impl<'a, 'de> Body<'a, 'de> {
    fn new(
        ids: &'a IdDeriver,
        ahead: Option<Met<'a>>,
        trail: &'a Trail,
        text: Option<&'a Arc<String>>,
        root: &'static str,
    ) -> Body<'a, 'de> {
        Body {
            reading: RefCell::new(Reading {
                ids,
                ahead,
                text,
                walker: Walker::default(),
                root,
                changes: 0,
            }),
            trail,
            fields: BatchFields::default(),
            unknown: Vec::new(),
            files: None,
        }
    }

    /// Reads the value of the batch's field `name`.
    fn field<A: MapAccess<'de>>(&mut self, map: &mut A, name: &str) -> Result<(), A::Error> {
        match name {
            "files" => {
                let files_path = field_path(self.reading.borrow().root, "files");
                self.files = Some(map.next_value_seed(FilesSeed {
                    reading: &self.reading,
                    trail: self.trail,
                    path: &files_path,
                })?);
            }
            _ => match BATCH_FIELDS.iter().position(|f| *f == name) {
                Some(i) => {
                    self.fields.0[i] = Some(map.next_value_seed(LeanSeed {
                        trail: self.trail,
                        text: self.reading.borrow().text,
                    })?);
                }
                None => {
                    map.next_value_seed(Ignore { trail: self.trail })?;
                    self.unknown.push(name.to_owned());
                }
            },
        }
        Ok(())
    }

    fn finish(self) -> BodyRead<'de> {
        BodyRead {
            fields: self.fields,
            unknown: self.unknown,
            files: self.files,
            walker: self.reading.into_inner().walker,
        }
    }
}

/// The `files` array.
struct FilesSeed<'r, 'a> {
    reading: &'r RefCell<Reading<'a>>,
    trail: &'r Trail,
    path: &'r str,
}

impl<'de> DeserializeSeed<'de> for FilesSeed<'_, '_> {
    type Value = FilesRead;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<FilesRead, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FilesSeed<'_, '_> {
    type Value = FilesRead;

    not_an_array!(FilesRead, FilesRead::Not, "an array of file patches");

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FilesRead, A::Error> {
        let mut files = Files::default();
        loop {
            let index = files.count();
            let path = index_path(self.path, index);
            let file = match seq.next_element_seed(FileSeed {
                reading: self.reading,
                trail: self.trail,
                path: &path,
                index,
            }) {
                Ok(Some(file)) => file,
                Ok(None) => break,
                Err(e) => {
                    self.trail.index(index);
                    return Err(e);
                }
            };
            if index >= MAX_FILES {
                self.trail.index(index);
                return Err(over_limit(&format!("{MAX_FILES} file patches")));
            }
            let mut reading = self.reading.borrow_mut();
            match file {
                Outer::Object(file) => files.add(&mut reading.walker, &path, file),
                Outer::Not(kind) => {
                    reading.walker.not_an_object(&path, kind);
                    files.skip();
                }
            }
        }
        Ok(FilesRead::Read(files))
    }
}

/// The error of a batch with more files or changes than patchdeck takes, raised at the first
/// one too many, before the rest is read.
fn over_limit<E: de::Error>(what: &str) -> E {
    E::custom(format!(
        "more than {what}; patchdeck takes at most {MAX_FILES} files and {MAX_CHANGES} changes: split the batch"
    ))
}

/// One file patch.
struct FileSeed<'r, 'a> {
    reading: &'r RefCell<Reading<'a>>,
    trail: &'r Trail,
    path: &'r str,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_, '_> {
    type Value = Outer<super::FileRead>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_, '_> {
    type Value = Outer<super::FileRead>;

    not_an_object!(Outer<super::FileRead>);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = FileFields::default();
        let mut unknown = Vec::new();
        let mut changes = None;
        let mut seen = SeenKeys::default();
        let changes_path = field_path(self.path, "changes");
        let problems_before = super::Before::of(&self.reading.borrow().walker);
        while let Some(key) = map.next_key_seed(KeySeed { known: FILE_FIELDS })? {
            seen.note(&key, FILE_FIELDS)?;
            let read = match &key {
                Key::Known(i) if FILE_FIELDS[*i] == "changes" => map
                    .next_value_seed(ChangesSeed {
                        reading: self.reading,
                        trail: self.trail,
                        path: &changes_path,
                    })
                    .map(|read| changes = Some(read)),
                Key::Known(i) => map
                    .next_value_seed(LeanSeed {
                        trail: self.trail,
                        text: self.reading.borrow().text,
                    })
                    .map(|value| {
                        if let (Some(ahead), "docPath", Lean::Str(doc_path)) =
                            (self.reading.borrow().ahead, FILE_FIELDS[*i], &value)
                        {
                            ahead(doc_path);
                        }
                        fields.0[*i] = Some(value)
                    }),
                Key::Unknown(name) => map
                    .next_value_seed(Ignore { trail: self.trail })
                    .map(|_| unknown.push(name.clone())),
            };
            if let Err(e) = read {
                self.trail.key(key.name(FILE_FIELDS));
                return Err(e);
            }
        }
        let mut reading = self.reading.borrow_mut();
        let ids = reading.ids;
        reading
            .walker
            .unknown_names(unknown.iter().map(String::as_str), self.path, FILE_FIELDS);
        Ok(Outer::Object(super::file_from(
            &mut reading.walker,
            ids,
            fields,
            changes,
            self.path,
            self.index,
            problems_before,
        )))
    }
}

/// A file's `changes` array.
struct ChangesSeed<'r, 'a> {
    reading: &'r RefCell<Reading<'a>>,
    trail: &'r Trail,
    path: &'r str,
}

/// A file's `changes` field, read.
pub(super) enum ChangesField<'de> {
    Read(super::ChangesRead),
    /// Something else than an array.
    Not(Lean<'de>),
}

impl<'de> DeserializeSeed<'de> for ChangesSeed<'_, '_> {
    type Value = ChangesField<'de>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<ChangesField<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ChangesSeed<'_, '_> {
    type Value = ChangesField<'de>;

    not_an_array!(ChangesField<'de>, ChangesField::Not, "an array of changes");

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ChangesField<'de>, A::Error> {
        let mut changes = super::ChangesRead::default();
        // Each change's JSON path, written over the last one's: a batch has a change per line
        // changed, and a string each would be an allocation each.
        let mut path = String::with_capacity(self.path.len() + 8);
        loop {
            let index = changes.count;
            let text = self.reading.borrow().text;
            let change = match seq.next_element_seed(ChangeSeed {
                trail: self.trail,
                text,
            }) {
                Ok(Some(change)) => change,
                Ok(None) => break,
                Err(e) => {
                    self.trail.index(index);
                    return Err(e);
                }
            };
            let mut reading = self.reading.borrow_mut();
            reading.changes += 1;
            if reading.changes > MAX_CHANGES {
                self.trail.index(index);
                return Err(over_limit(&format!("{MAX_CHANGES} changes")));
            }
            path.clear();
            path.push_str(self.path);
            write!(path, "[{index}]").expect("writing to a string does not fail");
            let read = match change {
                Outer::Object((fields, unknown)) => {
                    reading.walker.unknown_names(
                        unknown.iter().map(String::as_str),
                        &path,
                        CHANGE_FIELDS,
                    );
                    super::change_from(&mut reading.walker, fields, &path, index)
                }
                Outer::Not(kind) => {
                    reading.walker.not_an_object(&path, kind);
                    super::ChangeRead::default()
                }
            };
            changes.add(read);
        }
        Ok(ChangesField::Read(changes))
    }
}

/// One change: its fields, and the names of the unknown ones.
#[derive(Clone, Copy)]
struct ChangeSeed<'r> {
    trail: &'r Trail,
    text: Option<&'r Arc<String>>,
}

impl<'de> DeserializeSeed<'de> for ChangeSeed<'_> {
    type Value = Outer<(ChangeFields<'de>, Vec<String>)>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ChangeSeed<'_> {
    type Value = Outer<(ChangeFields<'de>, Vec<String>)>;

    not_an_object!(Outer<(ChangeFields<'de>, Vec<String>)>);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = ChangeFields::default();
        let mut unknown = Vec::new();
        let mut seen = SeenKeys::default();
        while let Some(key) = map.next_key_seed(KeySeed {
            known: CHANGE_FIELDS,
        })? {
            seen.note(&key, CHANGE_FIELDS)?;
            let read = match &key {
                Key::Known(i) => map
                    .next_value_seed(LeanSeed {
                        trail: self.trail,
                        text: self.text,
                    })
                    .map(|value| fields.0[*i] = Some(value)),
                Key::Unknown(name) => map
                    .next_value_seed(Ignore { trail: self.trail })
                    .map(|_| unknown.push(name.clone())),
            };
            if let Err(e) = read {
                self.trail.key(key.name(CHANGE_FIELDS));
                return Err(e);
            }
        }
        Ok(Outer::Object((fields, unknown)))
    }
}
