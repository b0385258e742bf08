//! Cutting a large diff into parts at its `diff --git` lines, so that each part's lines are
//! split and parsed on a core of its own, with the same sections and problems as one pass.
//!
//! A `diff --git` line is always read as the start of a section, whatever came before it:
//! a hunk's lines start with ' ', '-', '+' or '\', so no hunk takes it in (a hunk cut short
//! ends there, with the same message in either reading), and the `---`/`+++` pair and the
//! git header lines never start with `diff`. The one thing a part cannot know from its own
//! lines is the subject of a mail earlier in the input, so a diff with a `Subject: ` line at
//! the start of a line is read in one part.

/// The smallest diff worth cutting: below it, starting threads costs more than it saves.
pub(super) const WORTH_CUTTING: usize = 1 << 20;

/// One part of a diff: its text, the line after it (the next part's `diff --git` line, so
/// that a hunk or a `---` header at its end looks ahead exactly as one pass does), and the
/// 0-based index of its first line in the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part<'a> {
    pub text: &'a str,
    pub next_line: &'a str,
    pub first_line: usize,
}

/// Cuts `text` into at most `wanted` parts of about equal size, each after the first starting
/// at a `diff --git` line; one part (the whole text) when it has a mail's `Subject: ` line.
pub(super) fn cut(text: &str, wanted: usize) -> Vec<Part<'_>> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    if wanted > 1 && !has_subject(bytes) {
        let finder = memchr::memmem::Finder::new(b"\ndiff --git ");
        for k in 1..wanted {
            let from = (text.len() / wanted * k).max(*starts.last().expect("one start"));
            match finder.find(&bytes[from..]) {
                // The part starts after the newline, at the `diff --git` line.
                Some(at) => {
                    let start = from + at + 1;
                    if start > *starts.last().expect("one start") {
                        starts.push(start);
                    }
                }
                None => break,
            }
        }
    }
    let mut parts = Vec::with_capacity(starts.len());
    let mut first_line = 0;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let next_line = match memchr::memchr(b'\n', &bytes[end..]) {
            Some(at) => &text[end..=end + at],
            None => &text[end..],
        };
        parts.push(Part {
            text: &text[start..end],
            next_line,
            first_line,
        });
        first_line += memchr::memchr_iter(b'\n', &bytes[start..end]).count();
    }
    parts
}

/// How many bytes of `text` come before its `diff --git` line number `sections + 1`, when it
/// has that many (`None` otherwise, and for a text with a mail's `Subject: ` line). Read
/// alone, those bytes give the sections the whole text gives first, for the reason a part
/// does (see the top of this file): the reviewer shows them while the whole text is read.
pub(super) fn first_sections(text: &str, sections: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if sections == 0 || has_subject(bytes) {
        return None;
    }
    let at_start = usize::from(bytes.starts_with(b"diff --git "));
    // The newline before the `diff --git` line that starts section `sections + 1`.
    memchr::memmem::find_iter(bytes, b"\ndiff --git ")
        .nth(sections - at_start)
        .map(|newline| newline + 1)
}

/// Whether a line of the text starts with `Subject: ` (a mail's, whose subject describes
/// the sections after it).
fn has_subject(bytes: &[u8]) -> bool {
    bytes.starts_with(b"Subject: ") || memchr::memmem::find(bytes, b"\nSubject: ").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(n: usize) -> String {
        format!("diff --git a/f{n} b/f{n}\n--- a/f{n}\n+++ b/f{n}\n@@ -1 +1 @@\n-a\n+b\n")
    }

    #[test]
    fn parts_cover_the_text_in_order_each_after_the_first_at_a_section() {
        let text: String = (0..40).map(section).collect();
        for wanted in 1..=12 {
            let parts = cut(&text, wanted);
            assert!(parts.len() <= wanted && !parts.is_empty());
            let joined: String = parts.iter().map(|p| p.text).collect();
            assert_eq!(joined, text, "{wanted} parts");
            for (k, part) in parts.iter().enumerate() {
                let before = parts[..k].iter().map(|p| p.text.len()).sum::<usize>();
                assert_eq!(part.first_line, text[..before].matches('\n').count());
                if k > 0 {
                    assert!(part.text.starts_with("diff --git "), "{wanted}: {k}");
                }
                match parts.get(k + 1) {
                    Some(next) => assert_eq!(
                        part.next_line,
                        next.text.lines().next().unwrap().to_owned() + "\n"
                    ),
                    None => assert_eq!(part.next_line, ""),
                }
            }
        }
        assert_eq!(cut(&text, 4).len(), 4, "sections enough for every part");
    }

    #[test]
    fn a_diff_with_a_mail_subject_or_no_git_section_is_one_part() {
        let sections: String = (0..40).map(section).collect();
        for text in [
            format!("Subject: [PATCH] one\n\n{sections}"),
            format!("From x\n{sections}Subject: two\n{sections}"),
            sections.replace("diff --git", "diff -u"),
        ] {
            assert_eq!(cut(&text, 8).len(), 1, "{}", &text[..40]);
        }
    }

    #[test]
    fn a_part_is_never_empty_and_the_last_may_be_the_largest() {
        // One huge section then small ones: the cuts after it fall on the same small sections.
        let mut text = section(0);
        text.push_str(&"+x\n".repeat(10_000));
        text.extend((1..4).map(section));
        let parts = cut(&text, 8);
        assert!(parts.iter().all(|p| !p.text.is_empty()));
        assert!(parts.len() <= 4);
    }

    /// The sections and problems of `text` read in `parts` parts, for comparing.
    fn read(text: &str, parts: usize) -> String {
        let mut problems = Vec::new();
        let files =
            super::super::parse::parse_in_parts(text, 1, Some(1), &mut problems, None, parts);
        format!("{files:#?}\n{problems:#?}")
    }

    fn same_in_every_cut(text: &str, cuts: impl IntoIterator<Item = usize>) {
        let whole = read(text, 1);
        for parts in cuts {
            let cut = read(text, parts);
            if let Some((at, (one, many))) = whole
                .lines()
                .zip(cut.lines())
                .enumerate()
                .find(|(_, (one, many))| one != many)
            {
                panic!("{parts} parts read otherwise than one pass, at line {at} of the reading: {one:?} against {many:?}");
            }
            assert_eq!(cut, whole, "{parts} parts");
        }
    }

    /// Sections of every kind a part can start or end with, each after a `diff --git` line.
    fn hostile_sections() -> Vec<String> {
        vec![
            section(1),
            // A hunk that counts more lines than it has: it ends at the next section's line.
            "diff --git a/short b/short\n--- a/short\n+++ b/short\n@@ -1,5 +1,5 @@\n-a\n+b\n".into(),
            // A `---` line whose `+++` would be the next part's first line.
            "diff --git a/dash b/dash\n--- a/dash\n".into(),
            // Junk after a hunk, then a hunk after the junk.
            "diff --git a/junk b/junk\n--- a/junk\n+++ b/junk\n@@ -1 +1 @@\n-a\n+b\nnot a hunk line\n@@ -3 +3 @@\n-c\n+d\n".into(),
            "diff --cc merged\n".into(),
            "diff --git a/new b/new\nnew file mode 100644\nindex 0000000..e69de29\n".into(),
            "diff --git a/gone b/gone\ndeleted file mode 100644\n".into(),
            "diff --git a/nohunk b/nohunk\n".into(),
            "diff --git a/crlf b/crlf\r\n--- a/crlf\r\n+++ b/crlf\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n".into(),
            "diff --git a/eof b/eof\n--- a/eof\n+++ b/eof\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n".into(),
            "diff --git a/renamed b/moved\nsimilarity index 90%\nrename from renamed\nrename to moved\n".into(),
            "diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n".into(),
            "diff --git a/names b/names\n--- a/other\n+++ b/names\n@@ -1 +1 @@\n-a\n+b\n".into(),
            "diff --git a/empty b/empty\n--- a/empty\n+++ b/empty\n@@ -0,0 +0,0 @@\n".into(),
            "junk between files\n@@ -1 +1 @@\n".into(),
            "--- a/plain\n+++ b/plain\n@@ -1 +1 @@\n-a\n+b\n".into(),
        ]
    }

    /// The first sections of `text` cut out by `first_sections`, read alone, for each count of
    /// sections in `counts` below the text's (every count when `None`): when they read without
    /// a problem, they read as the whole text's first sections, and its problems (if any) all
    /// lie after the cut; a problem they have alone is one the whole text has too (a hunk cut
    /// short is said otherwise at the end of the input), so a reviewer that shows them never
    /// shows what the whole batch refuses.
    fn first_sections_read_as_the_whole(text: &str, counts: Option<&[usize]>) {
        let mut whole_problems = Vec::new();
        let whole = super::super::parse::parse(text, 1, Some(1), &mut whole_problems);
        let whole = format!("{whole:#?}");
        let sections = super::super::sections(text);
        assert!(sections > 2, "a text of several sections");
        let every: Vec<usize> = (1..sections).collect();
        for &n in counts.unwrap_or(&every).iter().filter(|&&n| n < sections) {
            let len = first_sections(text, n).expect("more sections than that");
            assert!(text[len..].starts_with("diff --git "), "cut at a section");
            assert_eq!(super::super::sections(&text[..len]), n);
            let mut problems = Vec::new();
            let first = super::super::parse::parse(&text[..len], 1, Some(1), &mut problems);
            if !problems.is_empty() {
                assert!(
                    !whole_problems.is_empty(),
                    "{problems:?} alone, none in the whole"
                );
                continue;
            }
            // Debug output of a list ends with `]`: compare without it.
            let first = format!("{first:#?}");
            let open = first.trim_end_matches(']').trim_end();
            assert!(
                whole.starts_with(open),
                "the first {n} sections read otherwise alone"
            );
            let cut_line = text[..len].matches('\n').count() + 1;
            for problem in &whole_problems {
                let line: usize = problem.location["line ".len()..].parse().unwrap();
                assert!(line >= cut_line, "{problem:?} is in the first {n} sections");
            }
        }
        assert_eq!(first_sections(text, sections), None, "no more sections");
    }

    #[test]
    fn the_first_sections_read_alone_as_in_the_whole_diff() {
        let kinds = hostile_sections();
        let pairs: String = (0..kinds.len())
            .flat_map(|a| (0..kinds.len()).map(move |b| (a, b)))
            .map(|(a, b)| format!("{}{}", kinds[a], kinds[b]))
            .collect();
        first_sections_read_as_the_whole(&pairs, None);
        first_sections_read_as_the_whole(&format!("a preamble\n\n{pairs}"), None);
        // A mail's subject describes the sections after it: such a text is not cut.
        let mails = format!("From x\nSubject: [PATCH] one\n\n{pairs}");
        assert_eq!(first_sections(&mails, 3), None);
        assert_eq!(first_sections(&pairs, 0), None);
    }

    #[test]
    fn every_cut_reads_as_one_pass_does_even_at_broken_sections() {
        let kinds = hostile_sections();
        // Every kind after every other, so that some cut falls between each two.
        let pairs: String = (0..kinds.len())
            .flat_map(|a| (0..kinds.len()).map(move |b| (a, b)))
            .map(|(a, b)| format!("{}{}", kinds[a], kinds[b]))
            .collect();
        same_in_every_cut(&pairs, 2..=64);
        same_in_every_cut(pairs.trim_end_matches('\n'), [2, 3, 7]);
        // Mails: each section takes the subject of the mail it is in.
        let mails: String = (0..30)
            .map(|k| format!("From {k:046}\nSubject: [PATCH] mail {k}\n\n{}", section(k)))
            .collect();
        same_in_every_cut(&mails, 2..=8);
    }

    #[test]
    fn every_cut_of_this_repositorys_history_reads_as_one_pass_does() {
        // A shallow clone or a source tarball has no history of its own: then a repository with
        // a scripted history, made here, stands in for it (as the corpus tests do).
        let scripted;
        let root = match own_history(env!("CARGO_MANIFEST_DIR")) {
            Some(root) => root,
            None => {
                scripted = scripted_history();
                eprintln!("this checkout has no history of its own: reading a scripted one");
                scripted.path().to_path_buf()
            }
        };
        // The diffs alone (`--format=`), then with the commit messages between them.
        for format in ["--format=", "--format=medium"] {
            let log = git(&root, &["log", "-p", "-n", "400", "--no-ext-diff", format]);
            assert!(
                log.matches("\ndiff --git ").count() > 100,
                "a history of real diffs"
            );
            same_in_every_cut(&log, [2, 3, 5, 8, 13, 40]);
            first_sections_read_as_the_whole(&log, Some(&[1, 2, 7, 64, 300]));
        }
    }

    /// git in `dir`, reading no user or system configuration and no repository named by the
    /// environment.
    fn isolated_git(dir: &std::path::Path) -> std::process::Command {
        let mut git = std::process::Command::new("git");
        git.arg("-C")
            .arg(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE");
        git
    }

    /// Runs git in `dir` with no user or system configuration; its output, or a failure that
    /// says what git said.
    fn git(dir: &std::path::Path, args: &[&str]) -> String {
        let out = isolated_git(dir)
            .args(["-c", "color.ui=never"])
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git runs (the test suite needs git on PATH)");
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// This checkout, when it is a repository of its own with its whole history.
    fn own_history(root: &str) -> Option<std::path::PathBuf> {
        let root = std::path::Path::new(root);
        let ask = |args: &[&str]| {
            let out = isolated_git(root)
                .args(args)
                .output()
                .expect("git runs (the test suite needs git on PATH)");
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        };
        let top = std::path::PathBuf::from(ask(&["rev-parse", "--show-toplevel"])?);
        let own = top.canonicalize().ok()? == root.canonicalize().ok()?;
        let whole = ask(&["rev-parse", "--is-shallow-repository"]).as_deref() == Some("false");
        (own && whole).then(|| root.to_path_buf())
    }

    /// A repository whose 60 commits each change, add, delete or rename a few of its files.
    fn scripted_history() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path();
        git(at, &["init", "-q"]);
        let text = |file: usize, commit: usize| -> String {
            (0..60)
                .map(|line| match line % (7 + file % 5) == commit % 7 {
                    true => format!("fn f{line}() {{ {commit} }}\n"),
                    false => format!("fn f{line}() {{}}\n"),
                })
                .collect()
        };
        for commit in 0..60 {
            for file in 0..4 {
                let name = format!(
                    "src/m{}/f{}.rs",
                    (commit + file) % 3,
                    (commit * 3 + file) % 9
                );
                std::fs::create_dir_all(at.join(&name).parent().unwrap()).unwrap();
                std::fs::write(at.join(&name), text(file, commit)).unwrap();
            }
            if commit % 10 == 9 {
                git(at, &["rm", "-q", "-r", "-f", "--ignore-unmatch", "src/m1"]);
            }
            if commit % 10 == 5 && at.join("src/m0/f0.rs").exists() {
                git(at, &["add", "-A"]);
                git(at, &["mv", "-f", "src/m0/f0.rs", "src/m2/moved.rs"]);
            }
            git(at, &["add", "-A"]);
            git(
                at,
                &[
                    "commit",
                    "-q",
                    "-m",
                    &format!("commit {commit}\n\nbody line"),
                ],
            );
        }
        dir
    }
}
