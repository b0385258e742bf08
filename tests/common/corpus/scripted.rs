//! A small repository with a scripted history, for a checkout that has no usable history of
//! its own (a shallow clone, a source tarball): the corpus is still built from real commits,
//! made here by real git, and between them they give every format and every variant the
//! corpus tests check (replacements, insertions, deletions, a created and a deleted file, a
//! file without a final newline, lines that occur many times, a mixed-case path).

use crate::common::git;
use std::fs;
use std::path::Path;
use tempfile::TempDir;

const INVENTORY: &str = r#""""The shop's inventory: items, their counts and prices."""

import logging

log = logging.getLogger(__name__)


class Inventory:
    def __init__(self, items=None):
        self.items = dict(items or {})
        self.prices = {}

    def load(self, path):
        with open(path) as f:
            for row in f:
                name, count = row.split(",")
                self.items[name] = int(count)
        return self

    def add(self, name, quantity):
        if not name:
            raise ValueError("empty name")
        self.items[name] = self.items.get(name, 0) + quantity

    def remove(self, name, quantity):
        current = self.items.get(name, 0)
        if current < quantity:
            raise ValueError("not enough")
        self.items[name] = current - quantity

    def price(self, name):
        return self.prices[name]

    def total(self):
        return sum(self.items.values())


def demo():
    inventory = Inventory()
    inventory.add("apples", 3)
    inventory.add("pears", 2)
    inventory.remove("apples", 1)
    print(inventory.total())
"#;

const README: &str = "# Shop\n\nA small shop inventory.\n\n## Use\n\n    python -m shop\n\n## Notes\n\nCounts are whole numbers.\n";

const GUIDE: &str =
    "# Guide\n\nStart with `Inventory()`.\nAdd items with `add`.\nRemove them with `remove`.\n";

const NOTES: &str = "first note\nsecond note\nlast note, with no newline";

const BRACES: &str = r#"fn main() {
    if true {
        step(1);
    }
    if true {
        step(2);
    }
    if true {
        step(3);
    }
    if true {
        step(4);
    }
}

fn step(n: u32) {
    if n > 0 {
        println!("{n}");
    }
}
"#;

/// One commit: files written (`Some`) or removed (`None`), and its message.
struct Step {
    message: &'static str,
    files: Vec<(&'static str, Option<String>)>,
}

/// `text` with `from` replaced by `to`, which must occur in it.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the scripted history lost {from:?}");
    text.replacen(from, to, 1)
}

fn steps() -> Vec<Step> {
    let inventory_2 = edit(
        &edit(
            INVENTORY,
            "            raise ValueError(\"empty name\")",
            "            raise ValueError(\"item name must not be empty\")",
        ),
        "    def price(self, name):\n        return self.prices[name]\n\n",
        "",
    );
    let inventory_3 = edit(
        &edit(
            &inventory_2,
            "                self.items[name] = int(count)\n",
            "                self.items[name] = int(count)\n        log.info(\"loaded %d items\", len(self.items))\n",
        ),
        "    inventory.remove(\"apples\", 1)\n",
        "    inventory.remove(\"apples\", 1)\n    inventory.remove(\"pears\", 1)\n",
    );
    let inventory_4 = edit(
        &edit(
            &inventory_3,
            "            raise ValueError(\"not enough\")",
            "            raise ValueError(f\"not enough {name}: {current} left\")",
        ),
        "    print(inventory.total())\n",
        "    print(inventory.total())\n\n\nif __name__ == \"__main__\":\n    demo()\n",
    );
    let braces_2 = edit(
        &edit(
            BRACES,
            "    if true {\n        step(3);",
            "    if ready(3) {\n        step(3);",
        ),
        "        println!(\"{n}\");\n",
        "        println!(\"step {n}\");\n",
    );
    vec![
        Step {
            message: "Start the shop",
            files: vec![
                ("src/Inventory.py", Some(INVENTORY.to_owned())),
                ("README.md", Some(README.to_owned())),
                ("docs/guide.md", Some(GUIDE.to_owned())),
                ("notes.txt", Some(NOTES.to_owned())),
                ("src/steps.rs", Some(BRACES.to_owned())),
            ],
        },
        Step {
            message: "Inventory: clearer empty-name error, drop the unused price lookup",
            files: vec![("src/Inventory.py", Some(inventory_2))],
        },
        Step {
            message: "Log how many items were loaded; the demo removes pears too",
            files: vec![("src/Inventory.py", Some(inventory_3))],
        },
        Step {
            message: "Add a summary report and mention it in the README",
            files: vec![
                (
                    "src/report/summary.py",
                    Some("from shop import Inventory\n\n\ndef summary(inventory):\n    return f\"{inventory.total()} items\"\n".to_owned()),
                ),
                (
                    "README.md",
                    Some(edit(README, "## Notes\n", "## Report\n\n    python -m shop.report\n\n## Notes\n")),
                ),
            ],
        },
        Step {
            message: "Fold the guide into the README",
            files: vec![
                ("docs/guide.md", None),
                ("README.md", Some(edit(README, "Counts are whole numbers.\n", "Counts are whole numbers.\nStart with `Inventory()`.\n"))),
            ],
        },
        Step {
            message: "Notes: one more, still with no final newline",
            files: vec![("notes.txt", Some(edit(NOTES, "second note\n", "second note\nthird note\n")))],
        },
        Step {
            message: "Steps: the third waits until ready, and say which step prints",
            files: vec![("src/steps.rs", Some(braces_2))],
        },
        Step {
            message: "Say how many items were missing; run the demo as a script",
            files: vec![("src/Inventory.py", Some(inventory_4))],
        },
    ]
}

/// Makes the repository in a temporary folder; its `.git` folder is the history to read.
pub fn repository() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for step in steps() {
        for (path, content) in &step.files {
            write(root, path, content.as_deref());
        }
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", step.message]);
    }
    dir
}

fn write(root: &Path, path: &str, content: Option<&str>) {
    let full = root.join(path);
    match content {
        Some(text) => {
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        None => fs::remove_file(full).unwrap(),
    }
}
