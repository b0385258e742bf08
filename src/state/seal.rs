//! Seals on patchdeck's own records: proof that a journal, an undo record or a review session
//! was written by patchdeck, for this user, in this workspace, before anything acts on it.
//!
//! A workspace is not private: a cloned repository, an unpacked archive or another user can
//! bring a `.patchdeck/` folder with it, and a copy of this user's own folder can land in
//! another workspace (`cp -a`, a restored backup). A journal in it would make the next
//! patchdeck "roll back" files to bytes someone else chose, or that belong to another tree. So
//! every record patchdeck acts on carries an HMAC-SHA256 of its bytes under a key that never
//! lives in a workspace (`$XDG_STATE_HOME/patchdeck/seal.key`, or
//! `~/.local/state/patchdeck/seal.key`: 32 random bytes made on first use, readable by this user
//! only), and of the workspace it was written for ([`Binding`]: the root's path and inode). A
//! record whose seal does not open (no seal, another key, changed bytes, another workspace) is
//! [`Foreign`], and its caller ignores it with a warning.
//!
//! The seal is a first line, `patchdeck-seal-v2 MAC INODE ROOT-HEX`, before the record's
//! bytes. The workspace is written in it in clear so that a record sealed by this user for
//! another workspace can be named as such; it is the MAC that proves it.

use crate::fs::Root;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const KEY_LEN: usize = 32;
const KEY_FILE: &str = "seal.key";
/// The first bytes of a sealed record.
const MAGIC: &[u8] = b"patchdeck-seal-v2 ";
/// The first bytes of a record sealed before seals named their workspace.
const MAGIC_V1: &[u8] = b"patchdeck-seal-v1 ";
const MAC_HEX: usize = 64;
/// The longest seal line patchdeck writes (two MACs, an inode, a root path of at most 4,096
/// bytes in hex, a length): [`Key::check_head`] needs a record's first this many bytes.
pub const LINE_BYTES: usize = MAGIC.len() + 2 * (MAC_HEX + 1) + 21 + 2 * 4096 + 21;

/// What a seal is for: a journal's seal does not pass for an undo record's, nor a session's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Journal,
    UndoRecord,
    /// The small mark that makes a folder of the undo history a record of this workspace's.
    RecordMark,
    Session,
    /// A work tree checkpoint: a git commit patchdeck made, which lives in the repository.
    Checkpoint,
    /// The feedback kept with a commit, for `patchdeck feedback --last`.
    Feedback,
}

impl Purpose {
    /// Whether a record of this purpose sealed by the patchdeck from before seals named their
    /// workspace still opens: only a journal, so that a crash before an upgrade is recovered
    /// after it (undo records and sessions of that patchdeck are not this one's).
    fn opens_earlier(self) -> bool {
        self == Purpose::Journal
    }

    fn label(self) -> &'static [u8] {
        match self {
            Purpose::Journal => b"patchdeck journal\0",
            Purpose::UndoRecord => b"patchdeck undo record\0",
            Purpose::RecordMark => b"patchdeck undo record mark\0",
            Purpose::Session => b"patchdeck review session\0",
            Purpose::Checkpoint => b"patchdeck checkpoint\0",
            Purpose::Feedback => b"patchdeck kept feedback\0",
        }
    }
}

/// The workspace a seal is made for: its root's path (as canonical as the workspace opened
/// it), and the root folder's device and inode. A record opens in the same folder whatever
/// path reaches it now (the workspace moved within its file system, or is reached through
/// another mount: the same device and inode), and at the same path and inode when only the
/// device's number changed (it can from one boot to the next while a crash's journal waits).
/// A copy of a record into another folder, or into a new tree at the same path, does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    root: Vec<u8>,
    dev: u64,
    ino: u64,
}

impl Binding {
    /// The binding of the workspace whose root is `root`.
    pub fn of(root: &Root) -> io::Result<Binding> {
        let stamp = root.top()?.stat_self()?.stamp;
        #[allow(clippy::unnecessary_cast)]
        Ok(Binding {
            root: root.path().as_os_str().as_bytes().to_vec(),
            dev: stamp.dev as u64,
            ino: stamp.ino as u64,
        })
    }

    /// The binding of the folder `root` by its device and inode alone: the same folder
    /// wherever it moves within its file system, not a copy of it. For what lives in the
    /// folder and moves with it (a repository's checkpoints, in its `.git`).
    pub fn of_folder(root: &Root) -> io::Result<Binding> {
        let mut binding = Binding::of(root)?;
        binding.root.clear();
        Ok(binding)
    }

    fn update(&self, mac: &mut Hmac<Sha256>) {
        mac.update(&self.dev.to_be_bytes());
        mac.update(&self.ino.to_be_bytes());
        mac.update(&(self.root.len() as u64).to_be_bytes());
        mac.update(&self.root);
    }

    fn path(&self) -> PathBuf {
        PathBuf::from(std::ffi::OsStr::from_bytes(&self.root))
    }

    /// Where a record sealed for `self` stands to the workspace `here`, when it is the same
    /// workspace (see [`Binding`]).
    fn origin_in(&self, here: &Binding) -> Option<Origin> {
        let same_folder = (self.dev, self.ino) == (here.dev, here.ino);
        let renumbered = self.root == here.root && self.ino == here.ino;
        match (self.root == here.root, same_folder || renumbered) {
            (_, false) => None,
            (true, true) => Some(Origin::Here),
            (false, true) => Some(Origin::Moved { from: self.path() }),
        }
    }
}

/// Where a record whose seal opened was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// In this workspace, as it is now.
    Here,
    /// In this workspace, when its root was reached at another path (it moved within its
    /// file system, or is reached through another mount).
    Moved { from: PathBuf },
    /// By the patchdeck from before seals named their workspace (a journal only: one left by a
    /// crash before an upgrade is still recovered).
    Earlier,
}

/// A record whose seal opened: its body, and where it was made.
#[derive(Debug)]
pub struct Opened<'a> {
    pub body: &'a [u8],
    pub origin: Origin,
}

/// A record whose seal does not open: not written by patchdeck for this user in this
/// workspace. `what` names the record, `why` says what is wrong with its seal.
#[derive(Debug, Clone)]
pub struct Foreign {
    pub what: String,
    pub why: String,
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} was not written by patchdeck for this user in this workspace ({})",
            self.what, self.why
        )
    }
}

impl std::error::Error for Foreign {}

/// The error of a record refused as foreign, for callers that speak `io::Error`.
pub fn foreign(what: String, why: String) -> io::Error {
    io::Error::new(ErrorKind::InvalidData, Foreign { what, why })
}

/// The refusal inside an error, when the error is one.
pub fn as_foreign(error: &io::Error) -> Option<&Foreign> {
    error.get_ref().and_then(|e| e.downcast_ref::<Foreign>())
}

/// This user's sealing key.
pub struct Key {
    bytes: [u8; KEY_LEN],
    path: PathBuf,
}

impl Key {
    /// The key of this process's user, made on first use; read once per process.
    pub fn mine() -> io::Result<&'static Key> {
        static KEY: OnceLock<Key> = OnceLock::new();
        if let Some(key) = KEY.get() {
            return Ok(key);
        }
        let key = Key::load_or_create(&key_path()?)?;
        Ok(KEY.get_or_init(|| key))
    }

    /// This user's key when there is one, without making it (for commands that only read:
    /// with no key, no record can be this user's).
    pub fn existing() -> io::Result<Option<Key>> {
        match Key::load(&key_path()?) {
            Ok(key) => Ok(Some(key)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads the key at `path`, making it (and its folder, private) when there is none. Two
    /// processes making it at once agree on one: each writes its own and links it into place,
    /// and the one that finds the name taken reads the winner's.
    pub fn load_or_create(path: &Path) -> io::Result<Key> {
        match Key::load(path) {
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            other => return other,
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| context(dir, "cannot make the folder of patchdeck's seal key", e))?;
        let mut bytes = [0u8; KEY_LEN];
        crate::fs::platform::random(&mut bytes)?;
        let tmp = dir.join(format!(".{KEY_FILE}.{}.tmp", super::unguessable()?));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .and_then(|mut f| {
                f.write_all(&bytes)
                    .and_then(|()| crate::fs::platform::sync(&f))
            });
        let linked = written.and_then(|()| match fs::hard_link(&tmp, path) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
            other => other,
        });
        let _ = fs::remove_file(&tmp);
        linked.map_err(|e| context(path, "cannot make patchdeck's seal key", e))?;
        Key::load(path)
    }

    /// Reads the key at `path`; it must be this user's own, readable by no one else.
    pub fn load(path: &Path) -> io::Result<Key> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.uid() != super::euid() || meta.mode() & 0o077 != 0 {
            return Err(io::Error::other(format!(
                "{}: patchdeck's seal key must be a file of this user's, readable by no one else (mode 600); remove it and patchdeck makes a new one (interrupted commits, undo records and sessions sealed with it can then no longer be used)",
                path.display()
            )));
        }
        let mut bytes = [0u8; KEY_LEN];
        let mut rest = Vec::new();
        file.read_exact(&mut bytes)
            .and_then(|()| file.read_to_end(&mut rest))
            .map_err(|e| context(path, "cannot read patchdeck's seal key", e))?;
        if !rest.is_empty() {
            return Err(io::Error::other(format!(
                "{}: patchdeck's seal key is {} bytes, not {KEY_LEN}",
                path.display(),
                KEY_LEN + rest.len()
            )));
        }
        Ok(Key {
            bytes,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn mac(&self, purpose: Purpose, binding: &Binding) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.bytes).expect("any key length");
        mac.update(purpose.label());
        binding.update(&mut mac);
        mac
    }

    /// The MAC of a body.
    fn body_tag(&self, purpose: Purpose, binding: &Binding, body: &[u8]) -> Vec<u8> {
        let mut mac = self.mac(purpose, binding);
        mac.update(body);
        mac.finalize().into_bytes().to_vec()
    }

    /// The MAC of a seal line: its workspace, the body's length and the body's MAC. It is
    /// checked before the body is read, so a forged record of any size is refused from its
    /// first line.
    fn head_tag(&self, purpose: Purpose, binding: &Binding, len: u64, body_tag: &[u8]) -> Vec<u8> {
        let mut mac = self.mac(purpose, binding);
        mac.update(b"head\0");
        mac.update(&len.to_be_bytes());
        mac.update(body_tag);
        mac.finalize().into_bytes().to_vec()
    }

    /// The MAC of `body` for the workspace `binding`, in hex: the seal of what patchdeck keeps
    /// outside its folder (a checkpoint commit's message carries it).
    pub fn tag(&self, purpose: Purpose, binding: &Binding, body: &[u8]) -> String {
        hex(&self.body_tag(purpose, binding, body))
    }

    /// Whether `tag` (hex) is the MAC of `body` for `binding`: compared in constant time.
    pub fn tag_opens(&self, purpose: Purpose, binding: &Binding, body: &[u8], tag: &str) -> bool {
        let Some(tag) = unhex(tag) else {
            return false;
        };
        let mut mac = self.mac(purpose, binding);
        mac.update(body);
        mac.verify_slice(&tag).is_ok()
    }

    /// `body` with its seal in front, for the workspace `binding`.
    pub fn seal(&self, purpose: Purpose, binding: &Binding, body: &[u8]) -> Vec<u8> {
        let body_tag = self.body_tag(purpose, binding, body);
        let len = body.len() as u64;
        let head_tag = self.head_tag(purpose, binding, len, &body_tag);
        let line = format!(
            "{} {} {} {} {} {len}\n",
            hex(&head_tag),
            hex(&body_tag),
            binding.dev,
            binding.ino,
            hex(&binding.root)
        );
        let mut out = Vec::with_capacity(MAGIC.len() + line.len() + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(body);
        out
    }

    /// Checks the seal line at the start of `head` (a record's first bytes) for a record of
    /// `size` bytes in all, without its body: its shape, the length it names, its own MAC and
    /// its workspace. [`Foreign`], naming `what`, when any of them is not this user's for
    /// `binding`. (A record of the earlier patchdeck has no line to check: its whole is.)
    pub fn check_head(
        &self,
        purpose: Purpose,
        binding: &Binding,
        what: &str,
        head: &[u8],
        size: u64,
    ) -> io::Result<()> {
        if head.starts_with(MAGIC_V1) {
            return match purpose.opens_earlier() {
                true => Ok(()),
                false => Err(earlier(what)),
            };
        }
        self.open_line(purpose, binding, what, head, Some(size))
            .map(|_| ())
    }

    /// The body of a sealed record, once its seal opens for `binding`, and where it was
    /// made; [`Foreign`], naming `what`, otherwise.
    pub fn open<'a>(
        &self,
        purpose: Purpose,
        binding: &Binding,
        what: &str,
        sealed: &'a [u8],
    ) -> io::Result<Opened<'a>> {
        if sealed.starts_with(MAGIC_V1) {
            return self.open_earlier(purpose, what, sealed);
        }
        let (line, origin, body) = self.open_line(purpose, binding, what, sealed, None)?;
        let body = &sealed[sealed.len() - body..];
        if self.body_tag(purpose, &line.binding, body) != line.body_tag {
            return Err(foreign(
                what.to_owned(),
                "its bytes were changed after it was sealed".into(),
            ));
        }
        Ok(Opened { body, origin })
    }

    /// A record sealed by the patchdeck from before seals named their workspace:
    /// `patchdeck-seal-v1 MAC` over its purpose and body alone.
    fn open_earlier<'a>(
        &self,
        purpose: Purpose,
        what: &str,
        sealed: &'a [u8],
    ) -> io::Result<Opened<'a>> {
        if !purpose.opens_earlier() {
            return Err(earlier(what));
        }
        let refuse = |why: &str| foreign(what.to_owned(), why.to_owned());
        let rest = &sealed[MAGIC_V1.len()..];
        let (tag, body) = match (rest.get(..MAC_HEX), rest.get(MAC_HEX)) {
            (Some(tag), Some(b'\n')) => (tag, &rest[MAC_HEX + 1..]),
            _ => return Err(refuse("its seal is damaged")),
        };
        let tag = std::str::from_utf8(tag).ok().and_then(unhex);
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.bytes).expect("any key length");
        mac.update(purpose.label());
        mac.update(body);
        match tag.map(|tag| mac.verify_slice(&tag)) {
            Some(Ok(())) => Ok(Opened {
                body,
                origin: Origin::Earlier,
            }),
            _ => Err(refuse("its seal does not open with this user's key")),
        }
    }

    /// The seal line at the start of `sealed` (or of its first bytes, the whole being `size`
    /// bytes), checked, where it says the record was made, and the length of the body after
    /// it.
    fn open_line(
        &self,
        purpose: Purpose,
        binding: &Binding,
        what: &str,
        sealed: &[u8],
        size: Option<u64>,
    ) -> io::Result<(Line, Origin, usize)> {
        let refuse = |why: String| foreign(what.to_owned(), why);
        let Some((text, after)) = split_seal(sealed) else {
            return Err(refuse("it has no seal".into()));
        };
        let Some(line) = Line::parse(text) else {
            return Err(refuse("its seal is damaged".into()));
        };
        let body = size.map_or(after.len() as u64, |size| {
            size.saturating_sub((sealed.len() - after.len()) as u64)
        });
        let head_tag = self.head_tag(purpose, &line.binding, line.len, &line.body_tag);
        if head_tag != line.head_tag {
            return Err(refuse(format!(
                "its seal does not open with this user's key, {}: it came from another user, a cloned repository or an archive, or it was changed",
                self.path.display()
            )));
        }
        if body != line.len {
            return Err(refuse(format!(
                "it is {body} bytes long where its seal says {}: it was changed after it was sealed",
                line.len
            )));
        }
        let Some(origin) = line.binding.origin_in(binding) else {
            return Err(refuse(format!(
                "this user sealed it for the workspace at {} (another folder than this one): it was copied here",
                line.binding.path().display()
            )));
        };
        Ok((line, origin, body as usize))
    }
}

/// The refusal of a record of a purpose the earlier patchdeck's seal does not open.
fn earlier(what: &str) -> io::Error {
    foreign(
        what.to_owned(),
        "it was sealed by an earlier patchdeck, whose seals did not name their workspace".into(),
    )
}

/// A seal line: `HEAD-MAC BODY-MAC DEVICE INODE ROOT-HEX LENGTH`, after the magic.
struct Line {
    head_tag: Vec<u8>,
    body_tag: Vec<u8>,
    binding: Binding,
    len: u64,
}

impl Line {
    fn parse(line: &[u8]) -> Option<Line> {
        let line = std::str::from_utf8(line).ok()?;
        let parts: Vec<&str> = line.split(' ').collect();
        let [head, body, dev, ino, root, len] = parts[..] else {
            return None;
        };
        if head.len() != MAC_HEX || body.len() != MAC_HEX {
            return None;
        }
        Some(Line {
            head_tag: unhex(head)?,
            body_tag: unhex(body)?,
            binding: Binding {
                root: unhex(root)?,
                dev: dev.parse().ok()?,
                ino: ino.parse().ok()?,
            },
            len: len.parse().ok()?,
        })
    }
}

/// The bytes after a seal line, whether or not the seal opens: what a person who names a
/// sealed file (`apply --decisions .patchdeck/sessions/…`) gives patchdeck to read.
pub fn unsealed(bytes: &[u8]) -> &[u8] {
    let magic = bytes.starts_with(MAGIC) || bytes.starts_with(MAGIC_V1);
    let body = magic
        .then(|| memchr::memchr(b'\n', &bytes[..bytes.len().min(LINE_BYTES)]))
        .flatten();
    match body {
        Some(end) => &bytes[end + 1..],
        None => bytes,
    }
}

/// The seal line (after the magic) and the body after it.
fn split_seal(sealed: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = sealed.strip_prefix(MAGIC)?;
    let end = memchr::memchr(b'\n', &rest[..rest.len().min(LINE_BYTES)])?;
    Some((&rest[..end], &rest[end + 1..]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

/// Where this user's key is: under `$XDG_STATE_HOME` (when absolute), else `~/.local/state`.
fn key_path() -> io::Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = match (var("XDG_STATE_HOME"), var("HOME")) {
        (Some(xdg), _) if Path::new(&xdg).is_absolute() => PathBuf::from(xdg),
        (_, Some(home)) => Path::new(&home).join(".local/state"),
        _ => {
            return Err(io::Error::other(
                "neither XDG_STATE_HOME nor HOME is set: patchdeck has nowhere to keep the key that seals its journals, so it cannot commit",
            ))
        }
    };
    Ok(base.join("patchdeck").join(KEY_FILE))
}

fn context(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_in(dir: &Path) -> Key {
        Key::load_or_create(&dir.join("patchdeck").join(KEY_FILE)).unwrap()
    }

    fn binding(root: &str, dev: u64, ino: u64) -> Binding {
        Binding {
            root: root.as_bytes().to_vec(),
            dev,
            ino,
        }
    }

    #[test]
    fn a_sealed_record_opens_with_its_key_purpose_and_workspace_only() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path());
        let here = binding("/home/me/project", 7, 42);
        let sealed = key.seal(Purpose::Journal, &here, b"{\"state\": \"prepared\"}");
        let opened = key.open(Purpose::Journal, &here, "j", &sealed).unwrap();
        assert_eq!(opened.body, b"{\"state\": \"prepared\"}");
        assert_eq!(opened.origin, Origin::Here);
        assert!(key.open(Purpose::UndoRecord, &here, "j", &sealed).is_err());
        assert!(key.open(Purpose::Session, &here, "j", &sealed).is_err());
        // Another user's key.
        let other = tempfile::tempdir().unwrap();
        let err = key_in(other.path())
            .open(Purpose::Journal, &here, "the journal", &sealed)
            .unwrap_err();
        let refused = as_foreign(&err).expect("foreign");
        assert!(
            refused.why.contains("does not open with this user's key"),
            "{err}"
        );
        assert!(err
            .to_string()
            .contains("the journal was not written by patchdeck for this user in this workspace"));
        // Another folder: another path with another inode, or the same path with another
        // root folder (a new tree where the old one was).
        for elsewhere in [
            binding("/home/me/copy", 7, 43),
            binding("/home/me/project", 7, 43),
        ] {
            let err = key
                .open(Purpose::Journal, &elsewhere, "j", &sealed)
                .unwrap_err();
            let why = &as_foreign(&err).expect("foreign").why;
            assert!(
                why.contains("sealed it for the workspace at /home/me/project (another folder"),
                "{why}"
            );
        }
        // The same folder reached at another path (moved, another mount), or its device
        // numbered anew at the same path: this workspace's.
        let moved = key.open(
            Purpose::Journal,
            &binding("/srv/project", 7, 42),
            "j",
            &sealed,
        );
        assert_eq!(
            moved.unwrap().origin,
            Origin::Moved {
                from: PathBuf::from("/home/me/project")
            }
        );
        let renumbered = key.open(
            Purpose::Journal,
            &binding("/home/me/project", 9, 42),
            "j",
            &sealed,
        );
        assert_eq!(renumbered.unwrap().origin, Origin::Here);
        // Changed bytes, a changed workspace in the seal line, no seal.
        let mut changed = sealed.clone();
        *changed.last_mut().unwrap() = b']';
        assert!(key.open(Purpose::Journal, &here, "j", &changed).is_err());
        let forged = String::from_utf8(sealed.clone())
            .unwrap()
            .replace(" 42 ", " 43 ");
        assert!(key
            .open(
                Purpose::Journal,
                &binding("/home/me/project", 7, 43),
                "j",
                forged.as_bytes()
            )
            .is_err());
        assert!(key
            .open(Purpose::Journal, &here, "j", b"{\"state\": 1}")
            .is_err());
        assert_eq!(unsealed(&sealed), b"{\"state\": \"prepared\"}");
        assert_eq!(unsealed(b"{}"), b"{}");
    }

    /// A journal sealed by the patchdeck before seals named their workspace (a crash before an
    /// upgrade) still opens with this user's key; nothing else of that patchdeck's does.
    #[test]
    fn a_journal_of_the_earlier_patchdeck_opens_with_its_own_seal() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path());
        let body = b"{\"state\": \"prepared\"}";
        let mut mac = Hmac::<Sha256>::new_from_slice(&key.bytes).unwrap();
        mac.update(Purpose::Journal.label());
        mac.update(body);
        let mut earlier = MAGIC_V1.to_vec();
        earlier.extend_from_slice(hex(&mac.finalize().into_bytes()).as_bytes());
        earlier.push(b'\n');
        earlier.extend_from_slice(body);
        let here = binding("/home/me/project", 7, 42);
        let opened = key.open(Purpose::Journal, &here, "j", &earlier).unwrap();
        assert_eq!((opened.body, opened.origin), (&body[..], Origin::Earlier));
        assert!(key
            .check_head(Purpose::Journal, &here, "j", &earlier, earlier.len() as u64)
            .is_ok());
        let err = key
            .open(Purpose::Session, &here, "s", &earlier)
            .unwrap_err();
        assert!(err.to_string().contains("earlier patchdeck"), "{err}");
        let other = tempfile::tempdir().unwrap();
        assert!(key_in(other.path())
            .open(Purpose::Journal, &here, "j", &earlier)
            .is_err());
    }

    #[test]
    fn the_key_is_made_once_private_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/patchdeck").join(KEY_FILE);
        let first = Key::load_or_create(&path).unwrap();
        let again = Key::load_or_create(&path).unwrap();
        assert_eq!(first.bytes, again.bytes);
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            fs::metadata(path.parent().unwrap()).unwrap().mode() & 0o777,
            0o700
        );
        // A key others can read is not trusted.
        fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        let err = Key::load(&path).err().expect("refused");
        assert!(err.to_string().contains("readable by no one else"), "{err}");
    }
}
