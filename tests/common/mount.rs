//! A file system of a test's own, mounted inside a workspace (needs root, as CI has).

/// A tmpfs mounted at `dir` in a mount namespace of the calling thread's own: seen by this
/// thread and the processes it starts, by nothing else, and unmounted when dropped.
pub struct Mount {
    at: std::path::PathBuf,
}

impl Mount {
    /// A tmpfs at `at`, mounted with `options` (`16k`, or `16k,mode=0700`: its size first).
    pub fn tmpfs(at: &std::path::Path, size: &str) -> Mount {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: geteuid has no preconditions.
        assert_eq!(
            unsafe { libc::geteuid() },
            0,
            "this test mounts a tmpfs inside a workspace, which needs root (CI runs as root); run the suite as root, or leave this test out with --skip mount_point"
        );
        let none = std::ptr::null();
        let target = CString::new(at.as_os_str().as_bytes()).unwrap();
        let options = CString::new(format!("size={size}")).unwrap();
        // SAFETY: plain system calls with valid NUL-terminated strings; results are checked.
        unsafe {
            assert_eq!(
                libc::unshare(libc::CLONE_NEWNS),
                0,
                "unshare: {}",
                std::io::Error::last_os_error()
            );
            assert_eq!(
                libc::mount(
                    none,
                    c"/".as_ptr(),
                    none,
                    libc::MS_REC | libc::MS_PRIVATE,
                    none.cast()
                ),
                0,
                "making mounts private: {}",
                std::io::Error::last_os_error()
            );
            assert_eq!(
                libc::mount(
                    c"tmpfs".as_ptr(),
                    target.as_ptr(),
                    c"tmpfs".as_ptr(),
                    0,
                    options.as_ptr().cast()
                ),
                0,
                "mount: {}",
                std::io::Error::last_os_error()
            );
        }
        Mount {
            at: at.to_path_buf(),
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        use std::os::unix::ffi::OsStrExt;
        let target = std::ffi::CString::new(self.at.as_os_str().as_bytes()).unwrap();
        // SAFETY: unmounting what this test mounted.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

impl Mount {
    /// Mounts it again with `flags` (`MS_RDONLY`, say) and `options` (`size=1m`, say).
    pub fn remount(&self, flags: libc::c_ulong, options: &str) {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let target = CString::new(self.at.as_os_str().as_bytes()).unwrap();
        let options = CString::new(options).unwrap();
        // SAFETY: a plain system call with valid NUL-terminated strings; the result is checked.
        let rc = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_REMOUNT | flags,
                options.as_ptr().cast(),
            )
        };
        assert_eq!(rc, 0, "remount: {}", std::io::Error::last_os_error());
    }
}
