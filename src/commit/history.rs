//! The undo history: the originals of the last committed batches, kept under
//! `.patchdeck/history/<commit id>/` with the commit's journal, for `patchdeck undo`.
//!
//! Finishing a commit moves its backup folder here instead of deleting it (a rename: the
//! backups are hard links to the original files, so nothing is copied) and prunes the history
//! to the newest [`KEEP`] commits. Archiving is idempotent, so a crash in the middle of it is
//! finished by the next recovery.

use super::journal::{sync_dir, Journal};
use std::fs;
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};

/// How many committed batches can be undone.
pub const KEEP: usize = 10;

pub fn history_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("history")
}

/// Moves a committed journal's backups into the history, with the journal beside them.
pub fn archive(journal: &Journal, root: &Path, state_dir: &Path) -> io::Result<()> {
    let history = history_dir(state_dir);
    fs::create_dir_all(&history)?;
    let dest = history.join(&journal.id);
    let backups = root.join(&journal.backup_dir);
    if backups.exists() {
        fs::rename(&backups, &dest)?;
    } else if !dest.exists() {
        fs::create_dir(&dest)?;
    }
    let record = Journal {
        backup_dir: dest.strip_prefix(root).unwrap_or(&dest).to_path_buf(),
        ..journal.clone()
    };
    let tmp = dest.join("journal.json.tmp");
    let mut file = fs::File::create(&tmp)?;
    file.write_all(&serde_json::to_vec_pretty(&record).map_err(io::Error::other)?)?;
    file.sync_all()?;
    fs::rename(&tmp, dest.join("journal.json"))?;
    sync_dir(&dest)?;
    sync_dir(&history)?;
    prune(&history, KEEP)
}

/// The archived commits, oldest first.
pub fn entries(state_dir: &Path) -> io::Result<Vec<PathBuf>> {
    let history = history_dir(state_dir);
    let mut dirs: Vec<PathBuf> = match fs::read_dir(&history) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("journal.json").exists())
            .collect(),
        Err(e) if e.kind() == ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    dirs.sort();
    Ok(dirs)
}

/// The newest archived commit and its journal.
pub fn newest(state_dir: &Path) -> io::Result<Option<(PathBuf, Journal)>> {
    let Some(dir) = entries(state_dir)?.pop() else {
        return Ok(None);
    };
    let bytes = fs::read(dir.join("journal.json"))?;
    let journal = serde_json::from_slice(&bytes)
        .map_err(|e| io::Error::new(ErrorKind::InvalidData, format!("{}: {e}", dir.display())))?;
    Ok(Some((dir, journal)))
}

/// Removes all but the newest `keep` archived commits.
fn prune(history: &Path, keep: usize) -> io::Result<()> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(history)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let excess = dirs.len().saturating_sub(keep);
    for dir in &dirs[..excess] {
        fs::remove_dir_all(dir)?;
    }
    Ok(())
}
