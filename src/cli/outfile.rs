//! Writing an output file named on the command line (`animate --svg FILE`) without ever
//! leaving half a file or destroying something that is not a file.
//!
//! - `-` is standard output.
//! - A symbolic link is followed (to the end of its chain): its target is written, the link
//!   stays a link.
//! - A regular file, or a name that does not exist yet, is written to a temporary file in the
//!   same directory, synced and renamed over the name: a reader sees the old file or the
//!   new one, never a part. The temporary file is removed on every error; a replaced file
//!   keeps its permission bits.
//! - Anything else that exists (a FIFO, `/dev/null`, a terminal) is opened and written in
//!   place: renaming over it would replace it with a regular file.
//! - A directory is an error.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

/// Most symbolic links followed from the name to the file (Linux's own limit is 40).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` as the module doc says (`-`: stdout).
///
/// # Errors
/// One line naming the file: a directory, a loop of links, or the I/O error.
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if path.as_os_str() == "-" {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    let target = follow_links(path)?;
    let shown = target.display();
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => bail!("cannot write {shown}: it is a directory"),
        Ok(m) if m.is_file() => {
            replace_via_temp(&target, Some(m.permissions()), |f| f.write_all(bytes))
                .with_context(|| format!("cannot write {shown}"))
        }
        Ok(_) => {
            // A FIFO or a device: write in place, no create, no truncate.
            let mut f = OpenOptions::new()
                .write(true)
                .open(&target)
                .with_context(|| format!("cannot open {shown}"))?;
            f.write_all(bytes)
                .and_then(|()| f.flush())
                .with_context(|| format!("cannot write {shown}"))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            replace_via_temp(&target, None, |f| f.write_all(bytes))
                .with_context(|| format!("cannot write {shown}"))
        }
        Err(e) => Err(e).with_context(|| format!("cannot write {shown}")),
    }
}

/// The path at the end of `path`'s chain of symbolic links (`path` itself if it is none; a
/// dangling link gives the name it points to, which is then created).
fn follow_links(path: &Path) -> anyhow::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)
                    .with_context(|| format!("cannot read link {}", p.display()))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    bail!(
        "cannot write {}: more than {MAX_LINKS} symbolic links (a loop?)",
        path.display()
    )
}

/// Removes the temporary file when dropped, unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    kept: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Creates a new temporary file beside `path`, lets `fill` write it, syncs it, gives it
/// `permissions` and renames it to `path`. On any error the temporary file is removed.
fn replace_via_temp(
    path: &Path,
    permissions: Option<Permissions>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let mut temp = TempFile {
        path: path.with_file_name(tmp_name),
        kept: false,
    };
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp.path)?;
    fill(&mut f)?;
    f.sync_all()?;
    if let Some(p) = permissions {
        f.set_permissions(p)?;
    }
    drop(f);
    fs::rename(&temp.path, path)?;
    temp.kept = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    /// A fresh empty directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nqueens-outfile-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn creates_and_replaces_regular_files_keeping_their_mode() {
        let dir = scratch("regular");
        let f = dir.join("a.svg");
        write(&f, b"one").unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"one");
        fs::set_permissions(&f, Permissions::from_mode(0o640)).unwrap();
        write(&f, b"two").unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(entries(&dir), ["a.svg"]); // no temporary file left
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn follows_links_and_keeps_them() {
        let dir = scratch("links");
        fs::create_dir(dir.join("sub")).unwrap();
        fs::write(dir.join("sub/real.svg"), b"old").unwrap();
        symlink("sub/real.svg", dir.join("link.svg")).unwrap();
        symlink("link.svg", dir.join("link2.svg")).unwrap();
        write(&dir.join("link2.svg"), b"new").unwrap();
        assert_eq!(fs::read(dir.join("sub/real.svg")).unwrap(), b"new");
        assert!(fs::symlink_metadata(dir.join("link.svg"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(fs::symlink_metadata(dir.join("link2.svg"))
            .unwrap()
            .file_type()
            .is_symlink());
        // A dangling link creates its target.
        symlink("made.svg", dir.join("dangling.svg")).unwrap();
        write(&dir.join("dangling.svg"), b"x").unwrap();
        assert_eq!(fs::read(dir.join("made.svg")).unwrap(), b"x");
        // A loop is an error, not a hang.
        symlink("loop-b", dir.join("loop-a")).unwrap();
        symlink("loop-a", dir.join("loop-b")).unwrap();
        let err = write(&dir.join("loop-a"), b"x").unwrap_err().to_string();
        assert!(err.contains("symbolic links"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn writes_devices_in_place_and_refuses_directories() {
        write(Path::new("/dev/null"), b"gone").unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file()); // still a device
        let err = format!("{:#}", write(Path::new("/dev/full"), b"x").unwrap_err());
        assert!(err.contains("/dev/full"), "{err}");
        let dir = scratch("dir");
        let err = write(&dir, b"x").unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn writes_into_a_fifo_without_replacing_it() {
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_neither_temp_file_nor_damage() {
        let dir = scratch("fail");
        let f = dir.join("keep.svg");
        fs::write(&f, b"precious").unwrap();
        let err = replace_via_temp(&f, None, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read(&f).unwrap(), b"precious");
        assert_eq!(entries(&dir), ["keep.svg"]);
        fs::remove_dir_all(dir).unwrap();
    }
}
