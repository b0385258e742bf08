//! Saving the session off the input path: decisions go to a writer thread, which keeps only
//! the newest when several arrive at once, so a fast run of decisions never waits on the disk.
//! A failed write is remembered until a later write succeeds, so the reviewer can keep saying
//! that the decisions are not saved, and ask before quitting.

use crate::review::Decisions;
use crate::session::Session;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

enum Message {
    Save(Box<Decisions>),
    Flush(Sender<()>),
}

/// A background writer of one session.
pub struct Saver {
    session: Session,
    tx: Option<Sender<Message>>,
    thread: Option<JoinHandle<()>>,
    error: Arc<Mutex<Option<String>>>,
}

impl Saver {
    pub fn start(session: Session) -> Saver {
        let (tx, rx) = mpsc::channel();
        let error = Arc::new(Mutex::new(None));
        let thread = {
            let session = session.clone();
            let error = Arc::clone(&error);
            std::thread::spawn(move || write_loop(&session, &rx, &error))
        };
        Saver {
            session,
            tx: Some(tx),
            thread: Some(thread),
            error,
        }
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Queues the decisions to be written.
    pub fn save(&self, decisions: &Decisions) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Message::Save(Box::new(decisions.clone())));
        }
    }

    /// Waits until everything queued is on disk.
    pub fn flush(&self) {
        if let Some(tx) = &self.tx {
            let (reply, done) = mpsc::channel();
            if tx.send(Message::Flush(reply)).is_ok() {
                let _ = done.recv();
            }
        }
    }

    /// Why the last write failed, while it stands: a later successful write clears it.
    pub fn error(&self) -> Option<String> {
        self.error.lock().ok()?.clone()
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn write_loop(session: &Session, rx: &Receiver<Message>, error: &Mutex<Option<String>>) {
    let write = |decisions: &Decisions| {
        let result = session
            .save(decisions)
            .err()
            .map(|e| format!("session not saved to {}: {e}", session.path().display()));
        if let Ok(mut slot) = error.lock() {
            *slot = result;
        }
    };
    while let Ok(message) = rx.recv() {
        let mut pending = None;
        let mut replies = Vec::new();
        let mut next = Some(message);
        while let Some(message) = next {
            match message {
                Message::Save(decisions) => pending = Some(decisions),
                Message::Flush(reply) => replies.push(reply),
            }
            next = rx.try_recv().ok();
        }
        if let Some(decisions) = pending {
            write(&decisions);
        }
        for reply in replies {
            let _ = reply.send(());
        }
    }
}
