//! The real binary in a pseudo-terminal of the test's own: keys written to it as a person
//! types them, its output kept by a terminal emulator (`vt100`) so the screen's text, colours
//! and attributes can be read back, and its exit status once it ends.
//!
//! Every wait polls the screen with a generous timeout, so a loaded machine slows the tests
//! down but does not fail them.

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(30);
const ROWS: u16 = 40;
const COLS: u16 = 120;
/// A pause in the output this long ends a frame's burst of writes ([`Terminal::time_to`]).
#[allow(dead_code)] // The benchmarks' (benches/support/first_screen.rs), not the tests'.
const BURST_GAP: Duration = Duration::from_millis(5);

pub struct Terminal {
    screen: Arc<Mutex<vt100::Parser<Answers>>>,
    /// When patchdeck was started.
    #[allow(dead_code)] // Read by `time_to`, which the benchmarks use.
    started: Instant,
    keyboard: Arc<Mutex<Box<dyn Write + Send>>>,
    child: Box<dyn Child + Send + Sync>,
    reader: Option<JoinHandle<()>>,
}

/// One cell's look: what a run of text shares when it is drawn in one style.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Style {
    pub fg: vt100::Color,
    pub bg: vt100::Color,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub inverse: bool,
}

/// What a terminal answers on its own: the cursor's position when asked (`ESC [ 6 n`, which
/// crossterm sends while setting up the screen and waits for). It also notes when each piece
/// of output arrived, for [`Terminal::time_to`].
#[derive(Default)]
struct Answers {
    pending: Vec<u8>,
    arrivals: Vec<Instant>,
}

impl vt100::Callbacks for Answers {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        if c == 'n' && i1.is_none() && params == [[6]] {
            let (row, col) = screen.cursor_position();
            self.pending
                .extend(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
        }
    }
}

impl Terminal {
    /// Starts patchdeck with `args` in a 120x40 terminal (`TERM=xterm-256color`), with the
    /// colour variables cleared and then `env` set, and the user's configuration kept out
    /// (`HOME` and the XDG folders point into `home`).
    pub fn start(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Terminal {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal opens");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_patchdeck"));
        command.args(args);
        for name in [
            "NO_COLOR",
            "CLICOLOR_FORCE",
            "COLORTERM",
            "PATCHDECK_FAILPOINT",
            "EDITOR",
            "VISUAL",
        ] {
            command.env_remove(name);
        }
        command.env("TERM", "xterm-256color");
        command.env("HOME", home);
        command.env("XDG_CONFIG_HOME", home.join(".config"));
        command.env("XDG_STATE_HOME", home.join(".local/state"));
        for (name, value) in env {
            command.env(name, value);
        }
        command.cwd(home);
        let started = Instant::now();
        let child = pty.slave.spawn_command(command).expect("patchdeck starts");
        // Only the child holds the terminal's other end now: reading ends when it is gone.
        drop(pty.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new_with_callbacks(
            NonZeroU16::new(ROWS).unwrap(),
            NonZeroU16::new(COLS).unwrap(),
            0,
            Answers::default(),
        )));
        let mut output = pty.master.try_clone_reader().unwrap();
        let keyboard = Arc::new(Mutex::new(pty.master.take_writer().unwrap()));
        let (kept, answer) = (Arc::clone(&screen), Arc::clone(&keyboard));
        let reader = std::thread::spawn(move || {
            // The master is kept alive by this thread: dropping it would hang up the child.
            let _master = pty.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = output.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut parser = kept.lock().unwrap();
                parser.process(&buf[..n]);
                parser.callbacks_mut().arrivals.push(Instant::now());
                let answers = std::mem::take(&mut parser.callbacks_mut().pending);
                drop(parser);
                if !answers.is_empty() {
                    let mut keyboard = answer.lock().unwrap();
                    let _ = keyboard.write_all(&answers).and_then(|()| keyboard.flush());
                }
            }
        });
        Terminal {
            screen,
            started,
            keyboard,
            child,
            reader: Some(reader),
        }
    }

    /// `patchdeck review` of `batch` over the workspace at `root`, without colours and with
    /// `failpoint` armed (`PATCHDECK_FAILPOINT`).
    #[allow(dead_code)] // Not every test binary that shares this module arms a failpoint.
    pub fn review_armed(home: &Path, root: &Path, batch: &Path, failpoint: &str) -> Terminal {
        Terminal::start(
            home,
            &[
                "review",
                "--root",
                root.to_str().unwrap(),
                batch.to_str().unwrap(),
            ],
            &[("NO_COLOR", "1"), ("PATCHDECK_FAILPOINT", failpoint)],
        )
    }

    /// Waits until patchdeck has stopped itself at a `stop` failpoint (SIGSTOP), then runs
    /// `meanwhile` and lets it go on (SIGCONT).
    #[allow(dead_code)] // Not every test binary that shares this module stops patchdeck.
    pub fn while_stopped(&mut self, meanwhile: impl FnOnce(&mut Terminal)) {
        let pid = self.child.process_id().expect("patchdeck runs");
        wait_stopped(pid);
        meanwhile(self);
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGCONT) };
    }

    /// Waits until what was typed has reached the terminal's input, where patchdeck reads it.
    /// The kernel moves typed bytes there on a worker of its own, a moment later: a process
    /// stopped while a key is typed may otherwise go on, look for input, and find none yet.
    #[allow(dead_code)] // Not every test binary that shares this module types ahead.
    pub fn wait_typed_arrived(&self) {
        use std::os::unix::fs::OpenOptionsExt;
        let pid = self.child.process_id().expect("patchdeck runs");
        // patchdeck's own standard input is the terminal's other end.
        let input = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(format!("/proc/{pid}/fd/0"))
            .expect("patchdeck's terminal opens");
        let start = Instant::now();
        loop {
            let mut waiting: libc::c_int = 0;
            // SAFETY: FIONREAD writes one int, into `waiting`.
            let done = unsafe {
                libc::ioctl(
                    std::os::fd::AsRawFd::as_raw_fd(&input),
                    libc::FIONREAD,
                    &mut waiting,
                )
            };
            assert_eq!(done, 0, "{}", std::io::Error::last_os_error());
            if waiting > 0 {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "what was typed never reached the terminal's input"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The screen's text, row by row.
    pub fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `needle`; the screen then.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(&format!("{needle:?}"), |screen| screen.contains(needle))
    }

    /// Waits until `done` holds of the screen's text; the screen then.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                panic!("waited {TIMEOUT:?} for {what}; the screen shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// How long after patchdeck was started its screen showed `needle`, drawn whole: the
    /// arrival of the last piece of output of the burst that showed it (a frame is written in
    /// pieces less than a millisecond apart; a gap of [`BURST_GAP`] ends it). For benchmarks:
    /// the screen is looked at every millisecond.
    #[allow(dead_code)] // The benchmarks' (benches/support/first_screen.rs), not the tests'.
    pub fn time_to(&self, needle: &str) -> Duration {
        let start = Instant::now();
        let shown = loop {
            {
                let parser = self.screen.lock().unwrap();
                if parser.screen().contents().contains(needle) {
                    break parser.callbacks().arrivals.len() - 1;
                }
            }
            if start.elapsed() > TIMEOUT {
                panic!(
                    "waited {TIMEOUT:?} for {needle:?}; the screen shows:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        // The rest of the burst may still be on its way.
        std::thread::sleep(BURST_GAP * 2);
        let parser = self.screen.lock().unwrap();
        let arrivals = &parser.callbacks().arrivals;
        let mut last = arrivals[shown];
        for &next in &arrivals[shown + 1..] {
            if next - last > BURST_GAP {
                break;
            }
            last = next;
        }
        last - self.started
    }

    /// Types keys: each string is sent as it is (`"a"`, `"\r"` for Enter).
    pub fn keys(&mut self, keys: &[&str]) {
        let mut keyboard = self.keyboard.lock().unwrap();
        for key in keys {
            keyboard.write_all(key.as_bytes()).unwrap();
            keyboard.flush().unwrap();
        }
    }

    /// The style of each character of `text` where it first appears on the screen, or
    /// `None` while it is not shown.
    pub fn styles_of(&self, text: &str) -> Option<Vec<Style>> {
        let parser = self.screen.lock().unwrap();
        let screen = parser.screen();
        for row in 0..ROWS {
            // Each cell's text with its column; a wide character's second cell holds none.
            let cells: Vec<(u16, &str)> = (0..COLS)
                .filter_map(|col| screen.cell(row, col).map(|c| (col, c.contents())))
                .filter(|(_, s)| !s.is_empty())
                .collect();
            let line: String = cells.iter().map(|(_, s)| *s).collect();
            let Some(at) = line.find(text) else {
                continue;
            };
            let first = line[..at].chars().count();
            let count = text.chars().count();
            return Some(
                cells[first..first + count]
                    .iter()
                    .map(|&(col, _)| {
                        let c = screen.cell(row, col).unwrap();
                        Style {
                            fg: c.fgcolor(),
                            bg: c.bgcolor(),
                            bold: c.bold(),
                            italic: c.italic(),
                            underline: c.underline(),
                            inverse: c.inverse(),
                        }
                    })
                    .collect(),
            );
        }
        None
    }

    /// Waits for patchdeck to end and for the last of its output; its exit code and the
    /// screen it left.
    pub fn wait_exit(&mut self) -> (u32, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > TIMEOUT {
                panic!(
                    "waited {TIMEOUT:?} for patchdeck to end; the screen shows:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        (status.exit_code(), self.screen())
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if self.reader.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits until process `pid` has stopped itself at a `stop` failpoint (SIGSTOP).
#[allow(dead_code)] // Not every binary that shares this module stops a process.
pub fn wait_stopped(pid: u32) {
    let start = Instant::now();
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The state follows the command name in parentheses.
        if stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('T'))
        {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "patchdeck never reached its failpoint: {stat}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
