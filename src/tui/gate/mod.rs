//! `patchdeck gate`: the reviewer, waiting in a person's terminal for the batches coding agents
//! write to this workspace through `patchdeck mcp`.
//!
//! The gate takes the workspace's socket (`mcp::link`'s gate end), then, in one loop on the terminal: while
//! no batch waits it says what it waits for and how to connect an agent (`screen`); when one
//! arrives, it opens it in the reviewer, the same one `patchdeck review` opens, with the agent
//! named in the header and the batches behind it counted; when the person commits or dismisses
//! it, the agent's call is answered with what was decided and written (`answer`), and the
//! next batch comes, or the waiting screen. Every write is the reviewer's commit: journaled,
//! atomic, undone by `patchdeck undo`.

mod answer;
mod screen;

use crate::error::Error;
use crate::mcp::link::{self, Arrival, Listening, Reply};
use crate::tui::env::Env;
use crate::tui::keys::KeyMap;
use crate::tui::theme::Palette;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::DefaultTerminal;
use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Duration;

/// Everything the gate is started with.
pub struct GateSetup {
    /// The workspace's root (it is resolved once, here).
    pub root: PathBuf,
    pub env: Env,
    pub palette: Palette,
    pub keymap: KeyMap,
    /// Stage written files in git (the configuration's `stage`).
    pub stage: bool,
    /// The patch-tool calls' token limit (the configuration's `max_tokens`).
    pub max_tokens: Option<usize>,
}

/// The gate as it runs.
pub struct Gate {
    pub root: PathBuf,
    pub env: Env,
    pub palette: Palette,
    pub keymap: KeyMap,
    pub stage: bool,
    pub max_tokens: Option<usize>,
    /// The socket agents' servers connect to.
    pub socket: PathBuf,
    /// Batches not answered yet, the one in review among them.
    pub waiting: Arc<AtomicUsize>,
    /// What was decided of each batch answered, the last one first, for the waiting screen.
    pub answered: Vec<String>,
}

/// How often the waiting screen looks for a batch while no key comes.
const IDLE_POLL: Duration = Duration::from_millis(100);

/// Runs the gate until the person quits it from the waiting screen; returns how many batches
/// were answered.
pub fn run(setup: GateSetup) -> Result<usize, Error> {
    let workspace = crate::workspace::Workspace::open(&setup.root).map_err(|e| Error::Root {
        root: setup.root.clone(),
        message: e.to_string(),
    })?;
    let root = workspace.root().to_path_buf();
    drop(workspace);
    let listening = link::place(&root)
        .and_then(|place| Listening::bind(&place))
        .map_err(|cause| Error::Io {
            what: format!("listening for agents writing to {}", root.display()),
            cause,
        })?;
    let waiting = Arc::new(AtomicUsize::new(0));
    let (sender, arrivals) = mpsc::channel();
    listening
        .serve(root.display().to_string(), sender, Arc::clone(&waiting))
        .map_err(|cause| Error::io("listening for agents", cause))?;
    let mut gate = Gate {
        root,
        env: setup.env,
        palette: setup.palette,
        keymap: setup.keymap,
        stage: setup.stage,
        max_tokens: setup.max_tokens,
        socket: listening.socket().to_path_buf(),
        waiting,
        answered: Vec::new(),
    };
    let served = crate::tui::on_terminal(|terminal| serve(terminal, &mut gate, &arrivals));
    // No one new reaches the gate; whoever still waits hears that no one will review their
    // batch.
    drop(listening);
    close(&arrivals, &gate.waiting);
    served.map(|()| gate.answered.len())
}

/// The gate's loop: the waiting screen, each batch in turn, until the person quits.
fn serve(
    terminal: &mut DefaultTerminal,
    gate: &mut Gate,
    arrivals: &Receiver<Arrival>,
) -> io::Result<()> {
    let mut queue: VecDeque<Arrival> = VecDeque::new();
    loop {
        queue.extend(arrivals.try_iter());
        let Some(arrival) = queue.pop_front() else {
            terminal.draw(|frame| screen::draw(frame, gate))?;
            if quit_asked()? {
                return Ok(());
            }
            continue;
        };
        if arrival.gone() {
            // Its agent stopped waiting before anyone looked: it is not shown to anyone.
            gate.answered.insert(0, screen::not_shown(&arrival));
        } else {
            arrival.reply(Reply::Reviewing);
            // Keys typed for the batch before are not for this one.
            while event::poll(Duration::ZERO)? {
                event::read()?;
            }
            let reply = answer::review(terminal, gate, &arrival)?;
            gate.answered.insert(0, screen::said(&arrival, &reply));
            arrival.reply(reply);
        }
        gate.waiting.fetch_sub(1, Ordering::SeqCst);
        terminal.clear()?;
    }
}

/// Waits a moment for a key on the waiting screen: true when it is `q`, Esc or Ctrl-c.
fn quit_asked() -> io::Result<bool> {
    if !event::poll(IDLE_POLL)? {
        return Ok(false);
    }
    Ok(match event::read()? {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            matches!(key.code, KeyCode::Char('q') | KeyCode::Esc)
                || (key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL))
        }
        _ => false,
    })
}

/// Answers every batch still waiting: the gate is closing and no one will review it.
fn close(arrivals: &Receiver<Arrival>, waiting: &AtomicUsize) {
    for arrival in arrivals.try_iter() {
        let message = "The person closed patchdeck gate before reviewing this batch: nothing was written. Ask them to start it again (`patchdeck gate`) and call again.".to_owned();
        arrival.reply(Reply::Refused { message });
        waiting.fetch_sub(1, Ordering::SeqCst);
    }
}
