//! Writing an output file named on the command line (`animate --svg FILE`): `-` is
//! standard output, anything else goes through the library's one safe writer,
//! [`crate::runner::outfile::write_file`] (the one `count --shard --out` uses): a regular
//! or new file is replaced atomically through a temporary file in its directory (removed on
//! every error, permission bits kept), a symbolic link is followed and its target written, a
//! FIFO or character device is written in place (a FIFO's reader waited for as `wait` says),
//! anything else is refused.

use std::io::Write;

use super::error::Failure;
use std::path::Path;

use crate::runner::fifo::Wait;
use crate::runner::shown;

/// Writes `bytes` to `path` as the module doc says (`-`: stdout).
///
/// # Errors
/// One line naming the file: a directory, a loop of links, or the I/O error.
pub fn write(path: &Path, bytes: &[u8], wait: Wait<'_>) -> Result<(), Failure> {
    if path.as_os_str() == "-" {
        let mut out = super::error::stdout();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    crate::runner::outfile::write_file(path, bytes, wait).map_err(|source| Failure::Write {
        what: shown::path(path),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, Permissions};
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::path::PathBuf;

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
        write(&f, b"one", Wait::forever()).unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"one");
        fs::set_permissions(&f, Permissions::from_mode(0o640)).unwrap();
        write(&f, b"two", Wait::forever()).unwrap();
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
        write(&dir.join("link2.svg"), b"new", Wait::forever()).unwrap();
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
        write(&dir.join("dangling.svg"), b"x", Wait::forever()).unwrap();
        assert_eq!(fs::read(dir.join("made.svg")).unwrap(), b"x");
        // A loop is an error, not a hang.
        symlink("loop-b", dir.join("loop-a")).unwrap();
        symlink("loop-a", dir.join("loop-b")).unwrap();
        let err = write(&dir.join("loop-a"), b"x", Wait::forever())
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbolic links"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn writes_devices_in_place_and_refuses_directories() {
        write(Path::new("/dev/null"), b"gone", Wait::forever()).unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file()); // still a device
        let err = format!(
            "{:#}",
            write(Path::new("/dev/full"), b"x", Wait::forever()).unwrap_err()
        );
        assert!(err.contains("/dev/full"), "{err}");
        let dir = scratch("dir");
        let err = write(&dir, b"x", Wait::forever()).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    #[allow(clippy::print_stderr)] // a test's note, not the command's
    fn writes_into_a_fifo_without_replacing_it() {
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU);
        if made.is_err() {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write(&fifo, b"through the pipe", Wait::forever()).unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        fs::remove_dir_all(dir).unwrap();
    }
}
