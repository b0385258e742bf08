//! Cutting a TUL-002 batch after its first file patches, without parsing it: the reviewer
//! shows them while the whole batch loads (see `crate::loading`).
//!
//! The cut is found by a scan of the JSON's structure alone: strings are skipped from quote to
//! quote (`memchr`), and only the top-level object's keys are read, to find its `files` array,
//! whose elements are counted. A batch wrapped in a response (`result`, `arguments`) is not
//! cut, nor is anything the scan does not understand: then the reviewer waits for the whole
//! batch, whose load says what is wrong.

/// Where a TUL-002 batch's first `files` file patches end, and how many it has: the bytes
/// before the comma after file patch number `files` of its top-level `files` array, which,
/// followed by `]}`, make a batch of those file patches alone. `None` when the array has no
/// more than that, or the input is not such an object.
pub fn first_files(bytes: &[u8], files: usize) -> Option<(usize, usize)> {
    let mut scan = Scan { bytes, at: 0 };
    scan.byte(b'{')?;
    // The top-level object's members, up to `files`.
    loop {
        let key = scan.string()?;
        scan.byte(b':')?;
        if key == b"files" {
            break;
        }
        scan.value()?;
        scan.byte(b',')?;
    }
    scan.byte(b'[')?;
    let (mut count, mut cut) = (0, None);
    if scan.peek()? == b']' {
        return None;
    }
    loop {
        scan.value()?;
        count += 1;
        match scan.next()? {
            b',' if count == files => cut = Some(scan.at - 1),
            b',' => {}
            b']' => break,
            _ => return None,
        }
    }
    Some((cut?, count))
}

/// A position in the JSON being scanned.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    /// The next byte that is not white space, without taking it.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Takes the next byte that is not white space.
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// Takes `want`, the next byte that is not white space.
    fn byte(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// Takes a string; its bytes between the quotes, escapes as they are.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.byte(b'"')?;
        let start = self.at;
        loop {
            // An escape's backslash may be the input's last byte: then there is nothing after.
            let found = memchr::memchr2(b'"', b'\\', self.bytes.get(self.at..)?)?;
            self.at += found + 1;
            match self.bytes[self.at - 1] {
                b'\\' => self.at += 1,
                _ => return Some(&self.bytes[start..self.at - 1]),
            }
        }
    }

    /// Takes one value, whatever it is, without checking more of it than its nesting.
    fn value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    self.at += 1;
                    depth += 1;
                    continue;
                }
                b'}' | b']' if depth > 0 => {
                    self.at += 1;
                    depth -= 1;
                }
                b',' | b':' if depth > 0 => {
                    self.at += 1;
                    continue;
                }
                b'}' | b']' | b',' | b':' => return None,
                _ => {
                    // A number, `true`, `false` or `null`: up to the next separator.
                    let rest = &self.bytes[self.at..];
                    let len = rest
                        .iter()
                        .position(|b| {
                            matches!(b, b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r')
                        })
                        .unwrap_or(rest.len());
                    if len == 0 {
                        return None;
                    }
                    self.at += len;
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch of the first `n` file patches: the bytes before the cut, closed.
    fn first(json: &str, n: usize) -> Option<(String, usize)> {
        first_files(json.as_bytes(), n).map(|(cut, of)| (format!("{}]}}", &json[..cut]), of))
    }

    #[test]
    fn the_cut_closes_after_the_first_file_patches() {
        let json = r#" { "batchKey" : "k", "files" : [ {"docPath": "a"} , {"docPath": "b"},{"docPath":"c"} ] , "batchLabel": "l" } "#;
        assert_eq!(
            first(json, 1).unwrap(),
            (
                r#" { "batchKey" : "k", "files" : [ {"docPath": "a"} ]}"#.to_owned(),
                3
            )
        );
        let (two, of) = first(json, 2).unwrap();
        assert_eq!(of, 3);
        let value: serde_json::Value = serde_json::from_str(&two).unwrap();
        assert_eq!(value["files"].as_array().unwrap().len(), 2);
        assert_eq!(first(json, 3), None, "no more file patches than that");
        assert_eq!(first(r#"{"files": []}"#, 1), None);
    }

    #[test]
    fn strings_numbers_and_nesting_do_not_mislead_the_scan() {
        let tricky = r#"{"a": "files\" ] , [ {", "n": -1.5e3, "t": true, "z": null,
            "o": {"files": [1, 2, 3]}, "files": [
            {"docPath": "x]\\", "changes": [{"newLines": ["}", "\"{[", "\\"]}]},
            {"docPath": "y", "k": [[], {}, [{}]]},
            {"docPath": "z"}]}"#;
        let (cut, of) = first(tricky, 2).unwrap();
        assert_eq!(of, 3);
        let value: serde_json::Value = serde_json::from_str(&cut).unwrap();
        let files = value["files"].as_array().unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0]["docPath"], "x]\\");
        assert_eq!(files[1]["docPath"], "y");
    }

    #[test]
    fn what_is_not_a_plain_batch_is_not_cut() {
        for json in [
            r#"{"result": {"files": [{"docPath": "a"}, {"docPath": "b"}]}}"#,
            r#"[{"docPath": "a"}, {"docPath": "b"}]"#,
            r#"{"files": {"docPath": "a"}}"#,
            r#"{"files": [{"docPath": "a"}, {"docPath": "b"}"#,
            r#"{"files": [{"docPath": "a"}, {"docPath": "b"} {"docPath": "c"}]}"#,
            r#"{"files": [{"docPath": "a"}, {"docPath": "b"}, ]}"#,
            r#"{"files" [{"docPath": "a"}, {"docPath": "b"}]}"#,
            r#"{"x": "unterminated, "files": [1, 2, 3]}"#,
            "",
        ] {
            assert_eq!(first(json, 1), None, "{json}");
        }
    }

    #[test]
    fn every_truncation_of_a_batch_is_refused_without_a_panic() {
        let json = r#"{"batchKey": "k\"", "files": [{"docPath": "a\\", "n": [1.5, true, null]},
            {"docPath": "b", "changes": [{"newLines": ["\u00e9\\"]}]}, {"docPath": "c"}]}"#;
        assert_eq!(first_files(json.as_bytes(), 2).map(|(_, of)| of), Some(3));
        for end in 0..json.len() {
            let cut = first_files(&json.as_bytes()[..end], 2);
            assert!(cut.is_none_or(|(at, _)| at < end), "{end}");
        }
        // A backslash as the last byte, inside a key or a value.
        for json in [r#"{"a\"#, r#"{"files": ["\"#, "{\"files\": [\"\\"] {
            assert_eq!(first_files(json.as_bytes(), 1), None, "{json}");
        }
    }
}
