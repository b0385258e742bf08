//! `patchdeck demo`: the reviewer on a bundled sample, in a temporary folder.
//!
//! The sample workspace and its batch are compiled into the binary, so the demo works after
//! `cargo install`; they are copied into a fresh folder so nothing of the person's is touched.

use super::review::{self, ReviewArgs, ViewArgs};
use super::{BatchArgs, Ctx};
use clap::Args;
use patchdeck::error::Error;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct DemoArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Copy the demo into DIR instead of a temporary folder; a DIR that holds a demo already is reopened where it was left [default: a new folder under $TMPDIR]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The bundled sample: (path under the demo folder, bytes).
const FILES: &[(&str, &[u8])] = &[
    (
        "demo.json",
        include_bytes!("../../sample-batches/demo.json"),
    ),
    (
        "workspace/notes.txt",
        include_bytes!("../../sample-batches/workspace/notes.txt"),
    ),
    (
        "workspace/src/app.py",
        include_bytes!("../../sample-batches/workspace/src/app.py"),
    ),
    (
        "workspace/src/Utils.py",
        include_bytes!("../../sample-batches/workspace/src/Utils.py"),
    ),
    (
        "workspace/src/inventory.toml",
        include_bytes!("../../sample-batches/workspace/src/inventory.toml"),
    ),
    (
        "workspace/windows/setup.bat",
        include_bytes!("../../sample-batches/workspace/windows/setup.bat"),
    ),
];

/// Writes the sample into `dir`.
pub fn unpack(dir: &Path) -> std::io::Result<()> {
    for (rel, bytes) in FILES {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("files sit in a folder"))?;
        std::fs::write(path, bytes)?;
    }
    Ok(())
}

pub fn run(args: DemoArgs, ctx: &Ctx) -> Result<i32, Error> {
    let dir = args.dir.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        std::env::temp_dir().join(format!("patchdeck-demo-{}-{nanos}", std::process::id()))
    });
    // A folder a demo was unpacked into before is reopened as it was left (its decisions
    // resumed); any other folder that exists is not the demo's to fill.
    let reopened = dir.join("demo.json").is_file() && dir.join("workspace").is_dir();
    if reopened {
        super::output::eprintln(format!(
            "patchdeck: reopening the demo in {} as it was left",
            dir.display()
        ));
    } else if dir.exists() {
        return Err(Error::Usage {
            message: format!("{} exists and holds no demo", dir.display()),
            hint: Some(
                "give `--dir` a folder that does not exist yet (the demo is copied there), or one a demo was unpacked into before (it is reopened)".into(),
            ),
        });
    } else {
        std::fs::create_dir(&dir)
            .and_then(|()| unpack(&dir))
            .map_err(|e| Error::io(format!("setting up the demo in {}", dir.display()), e))?;
    }
    let code = review::run(
        ReviewArgs {
            batch: BatchArgs {
                root: dir.join("workspace"),
                format: None,
                strip: None,
                max_tokens: None,
                input: Some(dir.join("demo.json").display().to_string()),
                worktree: false,
                base: None,
            },
            view: args.view,
            read_only: false,
            report: None,
            fresh: false,
        },
        ctx,
    )?;
    super::output::eprintln(format!(
        "patchdeck: the demo's workspace is {}",
        dir.join("workspace").display()
    ));
    Ok(code)
}
