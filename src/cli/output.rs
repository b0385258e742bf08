//! Writing to standard output and standard error without panicking.
//!
//! `println!` panics when standard output is a closed pipe (`patchdeck check --json b.json |
//! head -1`), and `eprintln!` when standard error is. Every subcommand writes through these
//! instead: a closed pipe means the reader has seen enough, so the rest of the output is
//! dropped quietly and the command still ends with the status its work earned. Any other write
//! error is reported.

use patchdeck::error::Error;
use std::io::{ErrorKind, Write};

/// Writes `text` to standard output. A closed pipe is not an error; another failure is.
pub fn print(text: impl AsRef<[u8]>) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_ref())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(Error::io("writing to standard output", e))
        }
        _ => Ok(()),
    }
}

/// Writes to standard output with `write`, as it goes (a large JSON report is never held as
/// text). A closed pipe is not an error; another failure is.
pub fn print_with(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            Err(Error::io("writing to standard output", e))
        }
        _ => Ok(()),
    }
}

/// [`print`] with a line ending.
pub fn println(text: impl AsRef<str>) -> Result<(), Error> {
    let text = text.as_ref();
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    print(line)
}

/// Writes one line to standard error, ignoring failure: there is nowhere left to report it.
pub fn eprintln(text: impl AsRef<str>) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", text.as_ref());
}

/// Words about work that is already done: a failure to print them (a closed pipe, a full disk)
/// is a warning, so that the exit status still says what happened to the files.
pub fn said(done: &str, printed: Result<(), Error>) {
    if let Err(e) = printed {
        eprintln(format!(
            "patchdeck: warning: {done}, but saying so failed: {e}"
        ));
    }
}
