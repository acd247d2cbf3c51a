//! Writing a result file (`count --shard K/M --out FILE`) without ever destroying what the
//! path names.
//!
//! - A regular file, or a path where nothing exists yet, is replaced atomically: the text
//!   goes to a new temporary file in the same directory (created exclusively, so a planted
//!   link at that name is not followed), is synced, and is renamed over the path, so a
//!   reader sees the old file or the whole new one. The temporary file is removed on every
//!   error path. Its name is short whatever the path's is (`TempFile`).
//! - A symbolic link is followed (also a dangling one): its final target is what gets
//!   replaced atomically, the link itself stays.
//! - A FIFO or a character device is opened and written directly (a reader of the FIFO gets
//!   the text; a device is never replaced by a regular file, which renaming over it would
//!   do, as root, for `/dev/full`). A FIFO without a reader is waited for as
//!   [`super::fifo`] says, so a stop flag ends the wait.
//! - Anything else (a directory, a block device, a socket) is refused.
//!
//! A short or failed write is an error either way. A regular file this user may not write
//! is refused (renaming over it would only need the directory's permission), and a path that
//! stops being a regular file while the text is written is left alone.

use super::shown;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::fifo::{self, Wait};

/// Most symbolic links followed from one path (Linux's own limit is 40).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` as the module doc says; `wait` ends the wait for a FIFO's reader.
///
/// # Errors
/// The I/O error, or `InvalidInput` for a path that is a directory, block device or
/// socket, or a chain of more than 40 symbolic links; a [`fifo::Stopped`] error (see
/// [`fifo::stopped`]) if `wait`'s stop flag ended the wait.
pub fn write_file(path: &Path, bytes: &[u8], wait: Wait<'_>) -> io::Result<()> {
    let target = follow_links(path)?;
    match fs::metadata(&target) {
        Ok(m) if m.is_file() => {
            // Renaming needs only the directory's permission; replacing a file this user may
            // not write would bypass the file's own (as `>` would not). Opening it for writing,
            // without truncating, asks the kernel and changes nothing.
            if let Err(e) = OpenOptions::new().write(true).open(&target) {
                return Err(io::Error::new(
                    e.kind(),
                    format!("{e}; the file is left as it is"),
                ));
            }
            replace_atomically(&target, bytes, Some(&m))
        }
        Ok(m) if m.file_type().is_fifo() || m.file_type().is_char_device() => {
            let mut f = fifo::open_writer(&target, wait)?;
            // Opened without truncating: a regular file put there since the look above is
            // still as it was, and is left so.
            if f.file().metadata()?.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} became a regular file while it was opened: left as it is",
                        shown::path(&target)
                    ),
                ));
            }
            f.write_all(bytes)?;
            f.flush()
        }
        Ok(m) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a file to write",
                shown::path(&target),
                file_kind(&m.file_type())
            ),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace_atomically(&target, bytes, None),
        Err(e) => Err(e),
    }
}

/// What a file type is, in words: "a directory", "a FIFO", ...
pub(crate) fn file_kind(t: &fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// The path with every symbolic link at its end followed (the target may not exist).
pub(crate) fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}: more than {MAX_LINKS} symbolic links",
            shown::path(path)
        ),
    ))
}

/// A temporary file beside the file it will become, removed when dropped unless it was
/// renamed into place ([`TempFile::keep`]).
///
/// Its name is `.nqueens-<pid>-<12 random hex digits>.tmp`, at most 36 bytes whatever the
/// target's name: a suffix on that name would push a legal long one (a name may have 255
/// bytes) past the limit. It is in the target's directory
/// (same file system, so the rename is atomic), hidden, and created exclusively: a name that
/// exists (or a link planted there) is never opened; another random name is tried.
pub(crate) struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl TempFile {
    /// Creates a new temporary file beside `target` with `options` (plus `create_new`).
    pub(crate) fn create(target: &Path, options: &OpenOptions) -> io::Result<(File, TempFile)> {
        if target.file_name().is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} names no file", shown::path(target)),
            ));
        }
        // std's RandomState is keyed from the OS's random source: names nobody can guess
        // (to plant something there first), without a dependency.
        let random = RandomState::new();
        for attempt in 0..100u32 {
            let r = random.hash_one(attempt) & 0xffff_ffff_ffff;
            let name = format!(".nqueens-{}-{r:012x}.tmp", std::process::id());
            let path = target.with_file_name(name);
            match options.clone().create_new(true).open(&path) {
                Ok(f) => return Ok((f, TempFile { path, armed: true })),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                // The file is made in the directory, so it is the directory that refused
                // (the message blamed the file, which may not even exist).
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
                    ) =>
                {
                    let dir = match target.parent() {
                        Some(d) if !d.as_os_str().is_empty() => d,
                        _ => Path::new("."),
                    };
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "the directory {} does not let this user create files in it: {e}",
                            shown::path(dir)
                        ),
                    ));
                }
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("no free temporary file name beside {}", shown::path(target)),
        ))
    }

    /// The temporary file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Leaves the file alone when dropped: it was renamed into place.
    pub(crate) fn keep(&mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Gives `file`, a new file that will replace the one `old` describes, that file's mode and
/// (as root) its owner and group, so that replacing a file never changes who may read it.
/// Anyone else owns what it creates already, so a refused chown is no reason to fail.
pub(crate) fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    file.set_permissions(old.permissions())?;
    let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    Ok(())
}

/// Writes a new temporary file beside `path`, syncs it and renames it over `path`; the new
/// file keeps the mode and owner of `old`, the file it replaces (see
/// [`keep_owner_and_mode`]).
fn replace_atomically(path: &Path, bytes: &[u8], old: Option<&fs::Metadata>) -> io::Result<()> {
    let (mut file, mut tmp) = TempFile::create(path, OpenOptions::new().write(true))?;
    write_synced(&mut file, bytes)?;
    if let Some(m) = old {
        keep_owner_and_mode(&file, m)?;
    }
    drop(file);
    // Checked when we started, checked again now: a FIFO, device or link put at the path
    // while we wrote (a long SVG takes seconds) is not replaced by a regular file.
    if let Ok(m) = fs::symlink_metadata(path) {
        if !m.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} became {} while it was being written: left as it is",
                    shown::path(path),
                    file_kind(&m.file_type())
                ),
            ));
        }
    }
    fs::rename(tmp.path(), path)?;
    tmp.keep();
    Ok(())
}

fn write_synced(file: &mut File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

/// True if `a` and `b` name the same file (through links, `.`/`..` and hard links); a path
/// that does not exist yet is compared by its canonical directory and name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The canonical form of `p`, or of its directory joined with its name if `p` (or its link
/// target) does not exist.
fn canonical(p: &Path) -> Option<PathBuf> {
    let p = follow_links(p).ok()?;
    if let Ok(c) = fs::canonicalize(&p) {
        return Some(c);
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(fs::canonicalize(dir).ok()?.join(p.file_name()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("nqueens-out-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_symlink_is_followed_and_its_target_replaced() {
        let d = dir("link");
        fs::write(d.join("target"), "old").unwrap();
        std::os::unix::fs::symlink("target", d.join("link")).unwrap();
        write_file(&d.join("link"), b"new", Wait::forever()).unwrap();
        assert!(fs::symlink_metadata(d.join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(d.join("target")).unwrap(), "new");
        std::os::unix::fs::symlink("made", d.join("dangling")).unwrap();
        write_file(&d.join("dangling"), b"x", Wait::forever()).unwrap();
        assert_eq!(fs::read_to_string(d.join("made")).unwrap(), "x");
        assert_eq!(entries(&d), ["dangling", "link", "made", "target"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_directory_is_refused_and_no_temporary_file_stays() {
        let d = dir("adir");
        fs::create_dir(d.join("adir")).unwrap();
        assert!(write_file(&d.join("adir"), b"x", Wait::forever()).is_err());
        // A directory that cannot take the temporary file's rename target.
        assert!(write_file(&d.join("adir").join("sub").join("f"), b"x", Wait::forever()).is_err());
        assert_eq!(entries(&d), ["adir"]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_255_byte_name_is_written_through_a_short_temporary_name() {
        let d = dir("long");
        let long = "a".repeat(255);
        write_file(&d.join(&long), b"x", Wait::forever()).unwrap();
        assert_eq!(fs::read(d.join(&long)).unwrap(), b"x");
        // A rename that fails (onto a directory) still removes the temporary file.
        let (file, tmp) = TempFile::create(&d.join(&long), OpenOptions::new().write(true)).unwrap();
        let name = tmp
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(name.starts_with(".nqueens-") && name.len() <= 36, "{name}");
        drop((file, tmp));
        fs::create_dir(d.join("b".repeat(255))).unwrap();
        let e = replace_atomically(&d.join("b".repeat(255)), b"x", None).unwrap_err();
        assert_ne!(e.raw_os_error(), Some(36), "{e}"); // not ENAMETOOLONG
        assert_eq!(entries(&d), [long, "b".repeat(255)]);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn same_file_sees_through_links_and_dots() {
        let d = dir("same");
        fs::write(d.join("c"), "").unwrap();
        std::os::unix::fs::symlink("c", d.join("l")).unwrap();
        assert!(same_file(&d.join("c"), &d.join("l")));
        assert!(same_file(&d.join("c"), &d.join(".").join("c")));
        assert!(!same_file(&d.join("c"), &d.join("new")));
        assert!(same_file(&d.join("new"), &d.join(".").join("new")));
        fs::remove_dir_all(d).unwrap();
    }
}
