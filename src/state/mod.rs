//! patchdeck's state folder, `.patchdeck/` under the workspace root: what lives there, and the
//! one way each of its files is opened, created, sealed, read and removed. Nothing else in
//! patchdeck touches it.
//!
//! Everything in it is input from a stranger until it is proven to be this user's, made for
//! this workspace: a cloned repository, an unpacked archive or another user can bring a
//! `.patchdeck/` folder, and a copy of this user's own can land in another workspace. So:
//! - the folder, and every folder in it, is reached beneath the root without following a link
//!   ([`crate::fs::beneath`]), and used only when it is a real folder owned by this user
//!   that no one else may write in; otherwise it is refused ([`Untrusted`]) with the fix;
//! - a file is written only by creating a new one under a name no one can guess (exclusive,
//!   no link followed, mode 600) and renaming it over its name ([`write_fresh`]): never
//!   through what stands there, never into a file that has another name;
//! - a file is read only when it is a regular file reached without a link, up to a limit;
//! - what patchdeck acts on (the journal, undo records, review sessions) is sealed under this
//!   user's key for this workspace ([`seal`]); a record whose seal does not open is ignored
//!   with a warning by its caller, never resumed or replayed, and never a reason to refuse
//!   every later command.
//!
//! What lives there:
//!
//! | name | what | made by |
//! |---|---|---|
//! | `.gitignore` | `*`: the folder ignores itself in git | [`State::ensure`] |
//! | `lock` | the workspace lock, a `flock`, with its holder's pid | [`lock`] |
//! | `journal` | the journal of a commit under way, sealed | `commit::journal` |
//! | `journal.ignored` | a journal whose seal did not open, set aside once for a person to look at | `commit::recover` |
//! | `unfinished/ID` | a committed journal whose cleanup waits for a later command, sealed | `commit::unfinished` |
//! | `history/ID/` | an undo record: `mark` and `journal.json` sealed, originals `0`, `1`…, `index.json`, `undoing` | `commit::history` |
//! | `sessions/SHA.json` | a review's decisions, sealed; `SHA.json.bak` set aside by `--fresh` | `session` |
//! | `history/ID/session-SHA.json` | the session a commit was made from, back to `sessions/` on its undo | `session`, `commit::undo` |
//! | `handback/SHA12-NAME` | feedback and exports the reviewer writes (outputs, not read back) | the reviewer |
//! | `.NAME.RANDOM.tmp` | a file being written, beside its name | [`write_fresh`] |

pub mod lock;
pub mod seal;

pub use crate::fs::path::STATE_DIR;
use crate::fs::{Dir, Kind, Root, Stat};
use seal::{Binding, Key, Purpose};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, ErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The folder of committed journals whose cleanup waits for a later command.
pub const UNFINISHED_DIR: &str = "unfinished";

/// The folder of the undo history's records.
pub const HISTORY_DIR: &str = "history";

/// The folder of the records pruned from the undo history, until they are removed.
pub const RETIRED_DIR: &str = "retired";

/// The folder of the reviewer's sessions.
pub const SESSIONS_DIR: &str = "sessions";

/// How a session is named in the undo record of the commit it made, before its own name:
/// `undo` puts it back among the sessions.
pub const KEPT_SESSION: &str = "session-";

/// The most of a record patchdeck reads back (a journal of 100,000 files is far less).
pub const MOST_RECORD: u64 = 256 << 20;

/// The most of a small record (an undo record's mark) patchdeck reads back.
pub const MOST_MARK: u64 = 4096;

/// A folder (or file) of the state folder that patchdeck will not use: a link, not this
/// user's, open to others' writes, or not a folder. `why` ends with what to do about it.
#[derive(Debug, Clone)]
pub struct Untrusted {
    pub path: PathBuf,
    pub why: String,
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for Untrusted {}

/// The refusal of `rel` beneath `root`; `why` is told the path to name in its fix.
fn untrusted(root: &Path, rel: &Path, why: impl FnOnce(&str) -> String) -> io::Error {
    let path = root.join(rel);
    let quoted = shell_quoted(&path);
    io::Error::new(
        ErrorKind::PermissionDenied,
        Untrusted {
            why: why(&quoted),
            path,
        },
    )
}

/// `path` as a shell reads it back: in single quotes when it holds anything but plain
/// characters.
fn shell_quoted(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c);
    match text.chars().all(plain) {
        true => text,
        false => format!("'{}'", text.replace('\'', "'\\''")),
    }
}

/// The refusal inside an error, when the error is one.
pub fn as_untrusted(error: &io::Error) -> Option<&Untrusted> {
    error.get_ref().and_then(|e| e.downcast_ref::<Untrusted>())
}

/// The state folder of a workspace, open and checked, with the workspace its seals name.
#[derive(Debug)]
pub struct State {
    dir: Dir,
    binding: Binding,
    /// The workspace root, for messages.
    root: PathBuf,
}

impl State {
    /// The state folder of the workspace at `root`, when there is one. A `.patchdeck` that is
    /// a link, not a folder, not this user's, or writable by others is [`Untrusted`].
    pub fn open(root: &Root) -> io::Result<Option<State>> {
        let top = root.top()?;
        let name = OsStr::new(STATE_DIR);
        let rel = Path::new(STATE_DIR);
        match top.stat(name)? {
            None => return Ok(None),
            Some(stat) if stat.kind == Kind::Symlink => {
                return Err(untrusted(root.path(), rel, |path| {
                    format!("it is a symbolic link; patchdeck keeps its state only in a real folder of yours and never follows a link there: remove the link (`rm {path}`)")
                }))
            }
            Some(stat) if stat.kind != Kind::Dir => {
                return Err(untrusted(root.path(), rel, |path| {
                    format!("it is not a folder; patchdeck keeps its state in a folder of that name: rename or remove it (`rm {path}`)")
                }))
            }
            // Looked at before it is opened, so that one this user may not enter is named.
            Some(stat) => check_stat(root.path(), rel, &stat)?,
        }
        let dir = top.subdir(name)?;
        check_folder(root.path(), &dir)?;
        Ok(Some(State {
            binding: Binding::of(root)?,
            dir,
            root: root.path().to_path_buf(),
        }))
    }

    /// [`State::open`], making the folder first when there is none: private to this user,
    /// with a `.gitignore` that hides it from git (written again when a folder that came from
    /// elsewhere lacks it, so that nothing patchdeck keeps there shows in `git status`).
    /// Another patchdeck making it at the same moment is no error.
    pub fn ensure(root: &Root) -> io::Result<State> {
        if let Some(state) = State::open(root)? {
            state.keep_ignored();
            return Ok(state);
        }
        let top = root.top()?;
        let made = match top.mkdir_mode(OsStr::new(STATE_DIR), 0o700) {
            Ok(()) => true,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => false,
            Err(e) => return Err(e),
        };
        let state = State::open(root)?
            .ok_or_else(|| io::Error::other(format!("{STATE_DIR} vanished as it was made")))?;
        if made {
            write_fresh(&state.dir, OsStr::new(".gitignore"), GITIGNORE, false)?;
        }
        Ok(state)
    }

    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Writes the folder's `.gitignore` again when it is not patchdeck's (missing, changed,
    /// or not a file: a folder of that name is removed first). Best effort: git's view of the
    /// folder is no reason to refuse a commit.
    fn keep_ignored(&self) {
        let ignore = OsStr::new(".gitignore");
        if matches!(read(&self.dir, ignore, 4096), Ok(Some(bytes)) if bytes == GITIGNORE) {
            return;
        }
        if !matches!(self.dir.stat(ignore), Ok(Some(st)) if st.kind == Kind::File) {
            let _ = remove_any(&self.dir, ignore);
        }
        let _ = write_fresh(&self.dir, ignore, GITIGNORE, false);
    }

    /// The folder `name` of the state folder, checked as the state folder is; made (private)
    /// when `create` says so, else `None` when there is none.
    pub fn folder(&self, name: &str, create: bool) -> io::Result<Option<Dir>> {
        self.folder_in(&self.dir, OsStr::new(name), create)
    }

    /// The folder `name` in `parent`, a folder of the state folder, checked as the state
    /// folder is; made (private) when `create` says so, else `None` when there is none.
    pub fn folder_in(&self, parent: &Dir, name: &OsStr, create: bool) -> io::Result<Option<Dir>> {
        let rel = parent.rel().join(name);
        let refused = |why: &'static str| {
            untrusted(&self.root, &rel, |path| {
                format!("{why}: remove it (`rm {path}`)")
            })
        };
        match parent.stat(name)? {
            // Looked at before it is opened, so that one this user may not enter is named.
            Some(stat) if stat.kind == Kind::Dir => check_stat(&self.root, &rel, &stat)?,
            Some(stat) if stat.kind == Kind::Symlink => {
                return Err(refused(
                    "it is a symbolic link; patchdeck never follows a link in its own folder",
                ))
            }
            Some(_) => {
                return Err(refused(
                    "it is not a folder, and patchdeck keeps a folder there",
                ))
            }
            None if !create => return Ok(None),
            None => match parent.mkdir_mode(name, 0o700) {
                Err(e) if e.kind() != ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            },
        }
        let sub = parent.subdir(name)?;
        check_folder(&self.root, &sub)?;
        Ok(Some(sub))
    }

    /// `body` sealed for this user and this workspace.
    pub fn seal(&self, purpose: Purpose, body: &[u8]) -> io::Result<Vec<u8>> {
        Ok(Key::mine()?.seal(purpose, &self.binding, body))
    }

    /// Writes `body`, sealed, as `name` in `dir` (see [`write_fresh`]).
    pub fn write_sealed(
        &self,
        dir: &Dir,
        name: &OsStr,
        purpose: Purpose,
        body: &[u8],
        durable: bool,
    ) -> io::Result<()> {
        write_fresh(dir, name, &self.seal(purpose, body)?, durable)
    }

    /// The body of the sealed file `name` in `dir`, at most `limit` bytes; `None` when there
    /// is none, and [`seal::Foreign`] when its seal does not open. A forged record is refused
    /// from its first line, unread past it, whatever its size.
    pub fn read_sealed(
        &self,
        dir: &Dir,
        name: &OsStr,
        purpose: Purpose,
        limit: u64,
    ) -> io::Result<Option<Record>> {
        self.read_sealed_with(Key::mine()?, dir, name, purpose, limit)
    }

    /// Like [`State::read_sealed`], for a command that only reads: a user who has no key yet
    /// has no record, and none is made.
    pub fn read_sealed_reading(
        &self,
        dir: &Dir,
        name: &OsStr,
        purpose: Purpose,
        limit: u64,
    ) -> io::Result<Option<Record>> {
        match Key::existing()? {
            Some(key) => self.read_sealed_with(&key, dir, name, purpose, limit),
            None if dir.stat(name)?.is_none() => Ok(None),
            None => Err(seal::foreign(
                dir.rel().join(name).display().to_string(),
                "this user has no seal key yet, so nothing here is this user's".into(),
            )),
        }
    }

    fn read_sealed_with(
        &self,
        key: &Key,
        dir: &Dir,
        name: &OsStr,
        purpose: Purpose,
        limit: u64,
    ) -> io::Result<Option<Record>> {
        let what = dir.rel().join(name).display().to_string();
        let (head, size) = match read_head(dir, name, seal::LINE_BYTES) {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(None),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                return Err(seal::foreign(what, e.to_string()))
            }
            Err(e) => return Err(e),
        };
        key.check_head(purpose, &self.binding, &what, &head, size)?;
        // What patchdeck cannot even read whole was not written by it for this user.
        let bytes = match read(dir, name, limit) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::FileTooLarge | ErrorKind::PermissionDenied
                ) =>
            {
                return Err(seal::foreign(what, e.to_string()))
            }
            Err(e) => return Err(e),
        };
        let opened = key.open(purpose, &self.binding, &what, &bytes)?;
        Ok(Some(Record {
            body: opened.body.to_vec(),
            origin: opened.origin,
        }))
    }
}

/// A sealed record read back: its body, and where it was made (this workspace as it is, or
/// as it was reached before it moved).
#[derive(Debug)]
pub struct Record {
    pub body: Vec<u8>,
    pub origin: seal::Origin,
}

/// What the state folder's `.gitignore` says: ignore everything here.
pub const GITIGNORE: &[u8] = b"# patchdeck's own state\n*\n";

/// A folder of patchdeck's state must be this user's, and no one else may write in it:
/// otherwise another user could have put anything there, or could while patchdeck runs.
fn check_folder(root: &Path, dir: &Dir) -> io::Result<()> {
    check_stat(root, dir.rel(), &dir.stat_self()?)
}

/// [`check_folder`] of what `stat` says of the folder `rel`.
fn check_stat(root: &Path, rel: &Path, stat: &Stat) -> io::Result<()> {
    let me = euid();
    if stat.stamp.uid != me {
        return Err(untrusted(root, rel, |path| {
            format!(
                "it belongs to user {}, not to you (user {me}): it did not come from your patchdeck; look at it, then remove it (`rm -r {path}`), and patchdeck makes its own",
                stat.stamp.uid
            )
        }));
    }
    let mode = stat.stamp.mode & 0o7777;
    if mode & 0o700 != 0o700 {
        return Err(untrusted(root, rel, |path| {
            format!(
                "you may not read, write or enter it (mode {mode:04o}), so patchdeck cannot keep its state there: give it back to yourself (`chmod u+rwx {path}`), or remove it (`rm -r {path}`)"
            )
        }));
    }
    if mode & 0o022 != 0 {
        return Err(untrusted(root, rel, |path| {
            format!(
                "other users may write in it (mode {mode:04o}), so patchdeck cannot know that what is in it is yours: make it yours alone (`chmod go-w {path}`), or remove it (`rm -r {path}`)"
            )
        }));
    }
    Ok(())
}

/// Writes `bytes` as `name` in `dir`: into a new file under a name no one can guess (created
/// exclusively, no link followed, mode 600), renamed over `name`. What stands at `name` (a
/// file, a link, a file with other names) is replaced, never written through. `durable`
/// fsyncs the file before the rename and the folder after.
pub fn write_fresh(dir: &Dir, name: &OsStr, bytes: &[u8], durable: bool) -> io::Result<()> {
    let tmp = temp_name(name)?;
    let written = (|| {
        let mut file = dir.create_new(&tmp, 0o600)?;
        file.write_all(bytes)?;
        if durable {
            crate::fs::platform::sync(&file)?;
        }
        dir.rename(&tmp, dir, name)?;
        if durable {
            dir.sync()?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = dir.remove_file_if_exists(&tmp);
    }
    written
}

/// `.NAME.RANDOM.tmp`: where [`write_fresh`] writes `name` before it is renamed into place.
fn temp_name(name: &OsStr) -> io::Result<OsString> {
    let mut tmp = OsString::from(".");
    let bytes = name.as_bytes();
    tmp.push(OsStr::from_bytes(&bytes[..bytes.len().min(64)]));
    tmp.push(format!(".{}.tmp", unguessable()?));
    Ok(tmp)
}

/// Removes what stands at `name` in `dir`, whatever it is (a folder with what is in it),
/// without following a link; nothing there is no error.
pub fn remove_any(dir: &Dir, name: &OsStr) -> io::Result<()> {
    match dir.stat(name)? {
        Some(stat) if stat.kind == Kind::Dir => dir.remove_tree(name),
        Some(_) => dir.remove_file_if_exists(name),
        None => Ok(()),
    }
}

/// Moves what stands at `name` in `dir` (a file, a link, a folder: anything patchdeck will not
/// use there) aside to `NAME.ignored`, for a person to look at, replacing what an earlier one
/// left there. Nothing is followed, nothing outside `dir` is touched. Where it went.
pub fn set_aside(dir: &Dir, name: &OsStr) -> io::Result<OsString> {
    let mut aside = name.to_os_string();
    aside.push(".ignored");
    match dir.stat(&aside)? {
        Some(stat) if stat.kind == Kind::Dir => dir.remove_tree(&aside)?,
        Some(_) => dir.remove_file(&aside)?,
        None => {}
    }
    dir.rename(name, dir, &aside)?;
    dir.sync()?;
    Ok(aside)
}

/// Whether `name` is a temporary of [`write_fresh`] writing `of`.
pub fn is_temp_of(name: &OsStr, of: &str) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(of))
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .is_some_and(|random| random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The regular file `name` in `dir`, read whole up to `limit` bytes, reached without a link;
/// `None` when there is nothing at that name.
pub fn read(dir: &Dir, name: &OsStr, limit: u64) -> io::Result<Option<Vec<u8>>> {
    if dir.stat(name)?.is_none() {
        return Ok(None);
    }
    let (file, meta) = dir.open_file_stat(name)?;
    let context =
        |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", dir.rel().join(name).display()));
    // Known too large from its size, it is not read at all.
    if meta.len() > limit {
        return Err(context(io::Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "it holds {} bytes, more than the {limit} patchdeck reads there",
                meta.len()
            ),
        )));
    }
    crate::bounded::read_from(file, limit)
        .map(Some)
        .map_err(context)
}

/// The first `most` bytes of the regular file `name` in `dir` (fewer when it is shorter),
/// reached without a link, with the file's size; `None` when there is nothing at that name.
fn read_head(dir: &Dir, name: &OsStr, most: usize) -> io::Result<Option<(Vec<u8>, u64)>> {
    use std::io::Read;
    if dir.stat(name)?.is_none() {
        return Ok(None);
    }
    let (file, meta) = dir.open_file_stat(name)?;
    let mut head = Vec::with_capacity(most.min(meta.len() as usize));
    file.take(most as u64).read_to_end(&mut head)?;
    Ok(Some((head, meta.len())))
}

/// 16 hex digits no one can guess.
pub(crate) fn unguessable() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    crate::fs::platform::random(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The user this process acts as.
pub(crate) fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn root_of(dir: &Path) -> Root {
        Root::open(dir).unwrap()
    }

    #[test]
    fn the_folder_is_made_private_and_ignores_itself() {
        let ws = tempfile::tempdir().unwrap();
        let root = root_of(ws.path());
        assert!(State::open(&root).unwrap().is_none());
        let state = State::ensure(&root).unwrap();
        let meta = fs::metadata(ws.path().join(STATE_DIR)).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        assert_eq!(
            fs::read(ws.path().join(".patchdeck/.gitignore")).unwrap(),
            GITIGNORE
        );
        let sessions = state.folder("sessions", true).unwrap().unwrap();
        assert_eq!(sessions.rel(), Path::new(".patchdeck/sessions"));
        assert!(state.folder("history", false).unwrap().is_none());
    }

    #[test]
    fn a_folder_that_is_a_link_not_mine_or_open_to_others_is_refused_with_the_fix() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join(STATE_DIR)).unwrap();
        let err = State::ensure(&root_of(ws.path())).unwrap_err();
        assert!(as_untrusted(&err).is_some(), "{err}");
        assert!(
            err.to_string().contains("symbolic link") && err.to_string().contains("/.patchdeck`)"),
            "{err}"
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);

        fs::remove_file(ws.path().join(STATE_DIR)).unwrap();
        fs::create_dir(ws.path().join(STATE_DIR)).unwrap();
        fs::set_permissions(ws.path().join(STATE_DIR), fs::Permissions::from_mode(0o777)).unwrap();
        let err = State::open(&root_of(ws.path())).unwrap_err();
        assert!(err.to_string().contains("(`chmod go-w /"), "{err}");

        fs::set_permissions(ws.path().join(STATE_DIR), fs::Permissions::from_mode(0o755)).unwrap();
        let state = State::open(&root_of(ws.path())).unwrap().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join(".patchdeck/sessions")).unwrap();
        let err = state.folder("sessions", true).unwrap_err();
        assert!(err.to_string().contains("/.patchdeck/sessions`)"), "{err}");
        if euid() == 0 {
            // Owned by another user (only root can make one here).
            std::os::unix::fs::chown(ws.path().join(STATE_DIR), Some(4321), None).unwrap();
            let err = State::open(&root_of(ws.path())).unwrap_err();
            assert!(err.to_string().contains("belongs to user 4321"), "{err}");
        }
    }

    #[test]
    fn a_fresh_write_replaces_a_link_or_a_hard_link_and_never_writes_through_it() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let state = State::ensure(&root_of(ws.path())).unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "keep\n").unwrap();
        let at = ws.path().join(".patchdeck/out.md");
        std::os::unix::fs::symlink(&victim, &at).unwrap();
        write_fresh(state.dir(), OsStr::new("out.md"), b"mine\n", true).unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep\n");
        assert_eq!(fs::read(&at).unwrap(), b"mine\n");
        assert!(!fs::symlink_metadata(&at).unwrap().file_type().is_symlink());

        let tracked = ws.path().join("tracked.txt");
        fs::write(&tracked, "tracked\n").unwrap();
        fs::remove_file(&at).unwrap();
        fs::hard_link(&tracked, &at).unwrap();
        write_fresh(state.dir(), OsStr::new("out.md"), b"again\n", false).unwrap();
        assert_eq!(fs::read(&tracked).unwrap(), b"tracked\n");
        assert_eq!(fs::metadata(&at).unwrap().mode() & 0o777, 0o600);
        // Nothing is left beside it.
        let names: Vec<_> = fs::read_dir(ws.path().join(STATE_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_sealed_file_opens_only_in_its_own_workspace() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let in_a = State::ensure(&root_of(a.path())).unwrap();
        let in_b = State::ensure(&root_of(b.path())).unwrap();
        in_a.write_sealed(
            in_a.dir(),
            OsStr::new("rec"),
            Purpose::Journal,
            b"body",
            true,
        )
        .unwrap();
        assert_eq!(
            in_a.read_sealed(in_a.dir(), OsStr::new("rec"), Purpose::Journal, MOST_RECORD)
                .unwrap()
                .unwrap()
                .body,
            b"body"
        );
        fs::copy(
            a.path().join(".patchdeck/rec"),
            b.path().join(".patchdeck/rec"),
        )
        .unwrap();
        let err = in_b
            .read_sealed(in_b.dir(), OsStr::new("rec"), Purpose::Journal, MOST_RECORD)
            .unwrap_err();
        let foreign = seal::as_foreign(&err).expect("foreign");
        assert!(foreign.why.contains("copied here"), "{err}");
        assert!(in_b
            .read_sealed(
                in_b.dir(),
                OsStr::new("none"),
                Purpose::Journal,
                MOST_RECORD
            )
            .unwrap()
            .is_none());
    }

    /// A record sealed by another key, grown to a gigabyte (sparse): refused from its seal
    /// line, before its size is even held against the limit.
    #[test]
    fn a_forged_record_is_refused_from_its_first_line_whatever_its_size() {
        let ws = tempfile::tempdir().unwrap();
        let state = State::ensure(&root_of(ws.path())).unwrap();
        let other = tempfile::tempdir().unwrap();
        let stranger = Key::load_or_create(&other.path().join("seal.key")).unwrap();
        let path = ws.path().join(".patchdeck/journal");
        let grown_refused = |sealed: Vec<u8>| {
            fs::write(&path, sealed).unwrap();
            let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(1 << 30).unwrap();
            let err = state
                .read_sealed(state.dir(), OsStr::new("journal"), Purpose::Journal, 16)
                .unwrap_err();
            seal::as_foreign(&err).expect("foreign").why.clone()
        };
        let why = grown_refused(stranger.seal(Purpose::Journal, &state.binding, b"{}"));
        assert!(why.contains("does not open with this user's key"), "{why}");
        // Sealed by this user, then grown: its seal says how long it was.
        let why = grown_refused(state.seal(Purpose::Journal, b"{}").unwrap());
        assert!(why.contains("where its seal says 2"), "{why}");
    }

    #[test]
    fn temporaries_are_named_unguessably_and_known_again() {
        let name = temp_name(OsStr::new("journal")).unwrap();
        assert!(is_temp_of(&name, "journal"), "{name:?}");
        assert!(!is_temp_of(OsStr::new("journal.tmp"), "journal"));
        assert_ne!(name, temp_name(OsStr::new("journal")).unwrap());
    }
}
