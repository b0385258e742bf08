//! A git diff expressed in the formats that locate text (Codex, Aider), for tests that need
//! the same change in several formats: the corpus of real commits and the property tests.

/// One file section of a git diff: its path, whether created or deleted, and its hunks as
/// (old lines, new lines), each line with its tag.
pub struct Section {
    pub path: String,
    pub created: bool,
    pub deleted: bool,
    pub hunks: Vec<Vec<String>>,
}

pub fn sections(diff: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("diff --git a/") {
            let path = rest.split(" b/").next().unwrap().to_owned();
            out.push(Section {
                path,
                created: false,
                deleted: false,
                hunks: Vec::new(),
            });
        } else if line.starts_with("new file mode") {
            out.last_mut().unwrap().created = true;
        } else if line.starts_with("deleted file mode") {
            out.last_mut().unwrap().deleted = true;
        } else if line.starts_with("@@ ") {
            out.last_mut().unwrap().hunks.push(Vec::new());
        } else if let Some(hunk) = out.last_mut().and_then(|s| s.hunks.last_mut()) {
            if !line.starts_with("--- ") && !line.starts_with("+++ ") {
                hunk.push(line.to_owned());
            }
        }
    }
    out
}

pub fn codex(diff: &str) -> String {
    let mut out = String::from("*** Begin Patch\n");
    for s in sections(diff) {
        if s.created {
            out.push_str(&format!("*** Add File: {}\n", s.path));
            for l in s.hunks.concat() {
                out.push_str(&format!("{l}\n"));
            }
        } else if s.deleted {
            out.push_str(&format!("*** Delete File: {}\n", s.path));
        } else {
            out.push_str(&format!("*** Update File: {}\n", s.path));
            for hunk in s.hunks {
                out.push_str("@@\n");
                for l in hunk {
                    out.push_str(&format!("{l}\n"));
                }
            }
        }
    }
    out.push_str("*** End Patch\n");
    out
}

/// Aider blocks, or `None` when the diff deletes a file (Aider cannot say that).
pub fn aider(diff: &str) -> Option<String> {
    let mut out = String::from("Here are the changes.\n\n");
    for s in sections(diff) {
        if s.deleted {
            return None;
        }
        for hunk in s.hunks {
            let side = |keep: char| -> String {
                hunk.iter()
                    .filter(|l| l.starts_with(' ') || l.starts_with(keep) || l.is_empty())
                    .map(|l| format!("{}\n", l.get(1..).unwrap_or("")))
                    .collect()
            };
            let search = if s.created { String::new() } else { side('-') };
            out.push_str(&format!(
                "{}\n```\n<<<<<<< SEARCH\n{search}=======\n{}>>>>>>> REPLACE\n```\n\n",
                s.path,
                side('+')
            ));
        }
    }
    Some(out)
}
