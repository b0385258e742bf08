//! Checking the changes of a TUL-002 file patch: each change's fields as they are read from
//! the stream ([`change_from`]), and the order of a file's changes once all are read
//! ([`check_order`]).

use super::{change_name, name_in_change, ChangeFields, CHANGE_FIELDS};
use crate::json::{field_path, index_path, Walker};
use crate::model::{Change, ChangeId, LineRange, MatchTier, Operation};
use crate::text_lines::TextLines;

/// A change as read: where it sits, when its range could be read (for the order of the
/// file's changes), and the change itself when it is valid. Its ID is derived once its
/// file's ID is known, unless the input gave one.
#[derive(Default)]
pub(super) struct ChangeRead {
    pub(super) position: Option<Position>,
    pub(super) change: Option<(Change, Option<ChangeId>)>,
}

/// Checks one change read from the stream, at `path`, the `index`-th of its file.
pub(super) fn change_from(
    walker: &mut Walker,
    fields: ChangeFields,
    path: &str,
    index: usize,
) -> ChangeRead {
    let before = walker.found();
    let listed = walker.problems.len();
    let mut check = Check {
        walker,
        fields,
        path,
    };
    let key = check.text("changeKey");
    let description = check.text("description");
    let given_id = check.text("changeId");
    let mut read = ChangeRead::default();
    let Some(operation) = check.operation() else {
        let walker = check.walker;
        let named = walker.problems.len();
        name_in_change(&mut walker.problems[listed..named], index, key.as_deref());
        return read;
    };
    let (range, expected) = match operation {
        Operation::Insert => (check.inserted_after(), None),
        Operation::Replace | Operation::Delete => check.replaced(),
    };
    let new_lines = check.new_lines(operation);
    let walker = check.walker;
    read.position = range.map(|range| Position {
        index,
        key: key.clone(),
        range,
    });
    let named = walker.problems.len();
    name_in_change(&mut walker.problems[listed..named], index, key.as_deref());
    if walker.found() > before {
        return read;
    }
    let (Some(range), Some(new_lines)) = (range, new_lines) else {
        return read;
    };
    read.change = Some((
        Change {
            // Derived with the file's ID, once it is known (see `file_from`).
            id: ChangeId(String::new()),
            key,
            description,
            operation,
            range,
            expected,
            new_lines,
            match_tier: MatchTier::Exact,
            eof_newline: None,
            new_eols: None,
            load_problems: Vec::new(),
        },
        given_id.map(ChangeId),
    ));
    read
}

/// The fields of one change being checked, at its JSON path `path`: each is looked at or
/// taken (its lines moved out, not copied) as the operation needs it, and its problems go to
/// `walker`.
struct Check<'a, 'de> {
    walker: &'a mut Walker,
    fields: ChangeFields<'de>,
    path: &'a str,
}

impl Check<'_, '_> {
    /// The optional text field `name`, taken.
    fn text(&mut self, name: &str) -> Option<String> {
        self.walker
            .lean_opt_str(
                self.fields.take(CHANGE_FIELDS, name).as_ref(),
                self.path,
                name,
            )
            .map(str::to_owned)
    }

    /// The required `operation`: `insert`, `replace` or `delete`.
    fn operation(&mut self) -> Option<Operation> {
        let path = self.path;
        match self.walker.lean_req_str(
            self.fields.get(CHANGE_FIELDS, "operation"),
            path,
            "operation",
        ) {
            Some("insert") => Some(Operation::Insert),
            Some("replace") => Some(Operation::Replace),
            Some("delete") => Some(Operation::Delete),
            Some(other) => {
                self.walker.problem(
                    field_path(path, "operation"),
                    format!("expected \"insert\", \"replace\" or \"delete\", found \"{other}\""),
                );
                None
            }
            None => None,
        }
    }

    /// A problem (`why`) when the change has `field`, which its operation does not use.
    fn forbid(&mut self, field: &str, why: &str) {
        if self.fields.get(CHANGE_FIELDS, field).is_some() {
            self.walker.problem(field_path(self.path, field), why);
        }
    }

    /// The range of an insert: after its `afterLine`. The fields of a replace or delete are
    /// problems.
    fn inserted_after(&mut self) -> Option<LineRange> {
        for field in ["startLine", "endLine", "expectedOriginalLines"] {
            self.forbid(
                field,
                "not used by an insert (it takes afterLine and newLines)",
            );
        }
        self.line_number("afterLine").map(LineRange::after)
    }

    /// The range of a replace or delete (`startLine` to `endLine`) and the lines it expects
    /// there (`expectedOriginalLines`, as many as the range has). `afterLine` is a problem.
    fn replaced(&mut self) -> (Option<LineRange>, Option<TextLines>) {
        let path = self.path;
        self.forbid(
            "afterLine",
            "not used by a replace or delete (it takes startLine and endLine)",
        );
        let start = self.line_number("startLine");
        let end = self.line_number("endLine");
        let expected = self.walker.lean_req_str_array(
            self.fields.take(CHANGE_FIELDS, "expectedOriginalLines"),
            path,
            "expectedOriginalLines",
        );
        let range = match (start, end) {
            (Some(0), _) => {
                self.walker.problem(
                    field_path(path, "startLine"),
                    "lines are numbered from 1, found startLine 0",
                );
                None
            }
            (Some(s), Some(e)) if e < s => {
                self.walker.problem(
                    field_path(path, "endLine"),
                    format!("endLine {e} is before startLine {s}; expected startLine <= endLine"),
                );
                None
            }
            (Some(s), Some(e)) => Some(LineRange::inclusive(s, e)),
            _ => None,
        };
        if let (Some(range), Some(expected)) = (range, &expected) {
            if expected.len() != range.count {
                self.walker.problem(
                    field_path(path, "expectedOriginalLines"),
                    format!(
                        "lines {} are {} line(s), but expectedOriginalLines has {} entr{}",
                        range.describe(),
                        range.count,
                        expected.len(),
                        if expected.len() == 1 { "y" } else { "ies" }
                    ),
                );
            }
        }
        if let Some(expected) = &expected {
            check_single_lines(self.walker, path, "expectedOriginalLines", expected);
        }
        (range, expected)
    }

    /// The lines the change writes: none for a delete (which must not have `newLines`), the
    /// required `newLines` for an insert (at least one) or a replace.
    fn new_lines(&mut self, operation: Operation) -> Option<TextLines> {
        let path = self.path;
        match operation {
            Operation::Delete => {
                self.forbid("newLines", "a delete must not have newLines");
                Some(TextLines::default())
            }
            Operation::Insert | Operation::Replace => {
                let lines = self.walker.lean_req_str_array(
                    self.fields.take(CHANGE_FIELDS, "newLines"),
                    path,
                    "newLines",
                );
                if let Some(lines) = &lines {
                    if lines.is_empty() && operation == Operation::Insert {
                        self.walker.problem(
                            field_path(path, "newLines"),
                            "an insert must have at least one new line",
                        );
                    }
                    check_single_lines(self.walker, path, "newLines", lines);
                }
                lines
            }
        }
    }

    /// A required line number, refused when no file patchdeck edits could have that line.
    fn line_number(&mut self, key: &str) -> Option<usize> {
        let n = self
            .walker
            .lean_req_uint(self.fields.get(CHANGE_FIELDS, key), self.path, key)?;
        match usize::try_from(n) {
            Ok(n) if n as u64 <= MAX_LINE_NUMBER => Some(n),
            _ => {
                self.walker.problem(
                    field_path(self.path, key),
                    format!(
                        "{key} {n} is past the end of any file patchdeck edits (at most {MAX_LINE_NUMBER} lines)"
                    ),
                );
                None
            }
        }
    }
}

/// Where a change sits, known even when other fields of it are invalid.
pub(super) struct Position {
    index: usize,
    key: Option<String>,
    range: LineRange,
}

/// Each entry must be one line: a line break inside it would write (or expect) several.
fn check_single_lines(walker: &mut Walker, path: &str, field: &str, lines: &TextLines) {
    for (i, line) in lines.iter().enumerate() {
        if !crate::lines::is_one_line(line) {
            walker.problem(
                index_path(&field_path(path, field), i),
                "each entry must be one line without its line ending, found a line break inside",
            );
        }
    }
}

/// The highest line number a batch may name: a file patchdeck edits has at most one line per
/// byte, so anything larger cannot be in range (and `afterLine + 1` cannot overflow).
pub const MAX_LINE_NUMBER: u64 = crate::fs::MAX_FILE_BYTES;

/// Changes must be ordered top to bottom and must not overlap (TUL-002 section 6).
pub(super) fn check_order(walker: &mut Walker, changes_path: &str, positions: &[Position]) {
    for pair in positions.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        // Named only for a problem: nearly every pair has none (two strings each, 20,000 for
        // a batch of 10,000 changes, made for nothing).
        let name_a = || change_name(a.index, a.key.as_deref());
        let at = || index_path(changes_path, b.index);
        let listed = walker.problems.len();
        if a.range.overlaps(b.range) {
            walker.problem(
                at(),
                format!(
                    "this change ({}) overlaps {} ({}); changes must not overlap",
                    b.range.describe_lines(),
                    name_a(),
                    a.range.describe_lines()
                ),
            );
        } else if position_key(b.range) < position_key(a.range) {
            walker.problem(
                at(),
                format!(
                    "this change ({}) comes before {} ({}) in the file; changes must be ordered top to bottom",
                    b.range.describe_lines(),
                    name_a(),
                    a.range.describe_lines()
                ),
            );
        }
        let named = walker.problems.len();
        name_in_change(
            &mut walker.problems[listed..named],
            b.index,
            b.key.as_deref(),
        );
    }
}

/// Position of a change in the file: an insertion sorts before a replacement at the same line.
fn position_key(range: LineRange) -> (usize, bool) {
    (range.start, range.count > 0)
}
