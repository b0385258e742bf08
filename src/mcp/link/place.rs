//! Where a workspace's gate listens: `patchdeck/<name>.sock` in the user's runtime folder
//! (`$XDG_RUNTIME_DIR`, private to the user by the standard), else `patchdeck-<uid>` in the
//! temporary folder (`$TMPDIR`, per user on macOS; `/tmp`). The name is the first 24 hex
//! digits of the SHA-256 of the workspace's root, so each workspace has its own and no name
//! says which. The folder is made with mode 0700 and refused, with the reason, when it is a
//! link, another user's, or open to others.

use std::fs::DirBuilder;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The longest socket path every platform takes (macOS's `sun_path` holds 104 bytes).
const MOST_PATH_BYTES: usize = 100;

/// A workspace's socket, and the lock its gate holds while it listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub socket: PathBuf,
    pub lock: PathBuf,
}

/// The place of the gate of the workspace at `root` (absolute, without links), its private
/// folder made when it is not there.
pub fn place(root: &Path) -> io::Result<Place> {
    let place = locate(root);
    make_private(
        place.socket.parent().expect("in a folder"),
        crate::state::euid(),
    )?;
    Ok(place)
}

/// Where the gate of the workspace at `root` listens, when it does; nothing is made.
pub fn locate(root: &Path) -> Place {
    let name = crate::sha256::sha256_hex(root.as_os_str().as_encoded_bytes());
    let name = &name[..24];
    let uid = crate::state::euid();
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute() && private(dir, uid).is_ok())
        .map(|dir| dir.join("patchdeck"));
    let temporary = std::env::var_os("TMPDIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(format!("patchdeck-{uid}")));
    let fallback = PathBuf::from(format!("/tmp/patchdeck-{uid}"));
    let fits =
        |dir: &PathBuf| dir.join(format!("{name}.sock")).as_os_str().len() <= MOST_PATH_BYTES;
    let dir = [runtime, temporary, Some(fallback)]
        .into_iter()
        .flatten()
        .find(fits)
        .expect("/tmp/patchdeck-UID/NAME.sock fits");
    Place {
        socket: dir.join(format!("{name}.sock")),
        lock: dir.join(format!("{name}.lock")),
    }
}

/// Makes `dir` (mode 0700) unless it is there, then checks that it is private to `uid`.
fn make_private(dir: &Path, uid: u32) -> io::Result<()> {
    match DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    private(dir, uid).map_err(|why| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private folder of this user: {why} (remove it, or set \
                 XDG_RUNTIME_DIR to a folder only you can open)",
                dir.display()
            ),
        )
    })
}

/// Whether `dir` is a folder (not a link to one) of `uid` that no one else can open.
pub fn private(dir: &Path, uid: u32) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| e.to_string())?;
    if meta.file_type().is_symlink() {
        return Err("it is a symbolic link".to_owned());
    }
    if !meta.is_dir() {
        return Err("it is not a folder".to_owned());
    }
    if meta.uid() != uid {
        return Err(format!("it belongs to user {}", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "others may open it (mode {:o})",
            meta.mode() & 0o777
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_folder_open_to_others_or_a_link_is_refused() {
        let top = tempfile::tempdir().unwrap();
        let uid = crate::state::euid();
        let dir = top.path().join("gate");
        make_private(&dir, uid).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let refused = make_private(&dir, uid).unwrap_err().to_string();
        assert!(
            refused.contains("others may open it (mode 755)"),
            "{refused}"
        );
        let link = top.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        let refused = make_private(&link, uid).unwrap_err().to_string();
        assert!(refused.contains("symbolic link"), "{refused}");
    }
}
