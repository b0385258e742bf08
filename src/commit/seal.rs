//! Seals on patchdeck's own records: proof that a journal or an undo record was written by
//! patchdeck for this user on this machine, before recovery or `undo` acts on it.
//!
//! A workspace is not private: a cloned repository, an unpacked archive or another user can
//! bring a `.patchdeck/` folder with it, and a journal in it would make the next patchdeck
//! "roll back" files to bytes someone else chose. So every record patchdeck acts on carries an
//! HMAC-SHA256 of its bytes under a key that never lives in a workspace:
//! `$XDG_STATE_HOME/patchdeck/seal.key` (or `~/.local/state/patchdeck/seal.key`), 32 random
//! bytes made on first use, readable by this user only. A record whose seal does not check
//! (no seal, another key, changed bytes) is refused as foreign, and nothing is done with it.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const KEY_LEN: usize = 32;
const KEY_FILE: &str = "seal.key";
/// The first bytes of a sealed record, before the seal's hex digits and a newline.
const MAGIC: &[u8] = b"patchdeck-seal-v1 ";
const MAC_HEX: usize = 64;

/// What a seal is for: a journal's seal does not pass for an undo record's.
#[derive(Clone, Copy, Debug)]
pub enum Purpose {
    Journal,
    UndoRecord,
}

impl Purpose {
    fn label(self) -> &'static [u8] {
        match self {
            Purpose::Journal => b"patchdeck journal\0",
            Purpose::UndoRecord => b"patchdeck undo record\0",
        }
    }
}

/// A record whose seal does not check: not written by patchdeck for this user on this machine.
#[derive(Debug)]
pub struct Foreign {
    pub why: String,
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for Foreign {}

/// The error of a record refused as foreign, for callers that speak `io::Error`.
pub fn foreign(why: String) -> io::Error {
    io::Error::new(ErrorKind::InvalidData, Foreign { why })
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
        random(&mut bytes)?;
        let tmp = dir.join(format!(".{KEY_FILE}.{}.tmp", std::process::id()));
        let _ = fs::remove_file(&tmp);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()));
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
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
            return Err(io::Error::other(format!(
                "{}: patchdeck's seal key must be a file of this user's, readable by no one else (mode 600); remove it and patchdeck makes a new one (interrupted commits and undo records sealed with it can then no longer be used)",
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

    fn mac(&self, purpose: Purpose) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.bytes).expect("any key length");
        mac.update(purpose.label());
        mac
    }

    /// `body` with its seal in front.
    pub fn seal(&self, purpose: Purpose, body: &[u8]) -> Vec<u8> {
        let mut mac = self.mac(purpose);
        mac.update(body);
        let tag = mac.finalize().into_bytes();
        let mut out = Vec::with_capacity(MAGIC.len() + MAC_HEX + 1 + body.len());
        out.extend_from_slice(MAGIC);
        for byte in tag {
            out.extend_from_slice(format!("{byte:02x}").as_bytes());
        }
        out.push(b'\n');
        out.extend_from_slice(body);
        out
    }

    /// The body of a sealed record, once its seal checks; why not, naming `what`, otherwise.
    pub fn open<'a>(&self, purpose: Purpose, what: &str, sealed: &'a [u8]) -> io::Result<&'a [u8]> {
        let refuse = |why: &str| {
            foreign(format!(
                "{what} was not written by patchdeck for this user on this machine ({why}; the seal key is {}): it may have come with a cloned repository, an archive or another user, and nothing was done with it",
                self.path.display()
            ))
        };
        let Some(rest) = sealed.strip_prefix(MAGIC) else {
            return Err(refuse("it has no seal"));
        };
        let (hex, body) = match (rest.get(..MAC_HEX), rest.get(MAC_HEX)) {
            (Some(hex), Some(b'\n')) => (hex, &rest[MAC_HEX + 1..]),
            _ => return Err(refuse("its seal is damaged")),
        };
        let tag: Option<Vec<u8>> = hex
            .chunks(2)
            .map(|pair| {
                std::str::from_utf8(pair)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
            })
            .collect();
        let Some(tag) = tag else {
            return Err(refuse("its seal is damaged"));
        };
        let mut mac = self.mac(purpose);
        mac.update(body);
        mac.verify_slice(&tag)
            .map_err(|_| refuse("its seal does not match its bytes under this user's key"))?;
        Ok(body)
    }
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

fn random(out: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < out.len() {
        // SAFETY: the pointer and length describe the unfilled part of `out`.
        let n =
            unsafe { libc::getrandom(out[filled..].as_mut_ptr().cast(), out.len() - filled, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
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

    #[test]
    fn a_sealed_record_opens_with_its_key_and_purpose_only() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path());
        let sealed = key.seal(Purpose::Journal, b"{\"state\": \"prepared\"}");
        assert_eq!(
            key.open(Purpose::Journal, "j", &sealed).unwrap(),
            b"{\"state\": \"prepared\"}"
        );
        assert!(key.open(Purpose::UndoRecord, "j", &sealed).is_err());
        let other = tempfile::tempdir().unwrap();
        let err = key_in(other.path())
            .open(Purpose::Journal, "the journal", &sealed)
            .unwrap_err();
        assert!(as_foreign(&err).is_some(), "{err}");
        assert!(err
            .to_string()
            .contains("the journal was not written by patchdeck"));
        let mut changed = sealed.clone();
        *changed.last_mut().unwrap() = b']';
        assert!(key.open(Purpose::Journal, "j", &changed).is_err());
        assert!(key.open(Purpose::Journal, "j", b"{\"state\": 1}").is_err());
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
