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
    /// Copy the demo into DIR (which must not exist yet) instead of a temporary folder [default: a new folder under $TMPDIR]
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
    std::fs::create_dir(&dir)
        .and_then(|()| unpack(&dir))
        .map_err(|e| Error::io(format!("setting up the demo in {}", dir.display()), e))?;
    let code = review::run(
        ReviewArgs {
            batch: BatchArgs {
                root: dir.join("workspace"),
                format: None,
                strip: None,
                max_tokens: None,
                input: dir.join("demo.json").display().to_string(),
            },
            view: args.view,
            read_only: false,
            report: None,
            fresh: true,
        },
        ctx,
    )?;
    super::output::eprintln(format!(
        "patchdeck: the demo's workspace is {}",
        dir.join("workspace").display()
    ));
    Ok(code)
}
