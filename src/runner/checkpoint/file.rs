//! The checkpoint as a durable file: how it is created, opened, locked and read, so that a
//! crash at any moment loses at most the units in flight and nothing that is not a
//! checkpoint is ever taken for one or replaced. What the lines say is [`super::format`].
//!
//! # Durability
//!
//! A record is written with a single `write` on a file opened for appending, so once
//! [`Checkpoint::record`](super::Checkpoint::record) returns it is in the kernel and survives
//! the death of the process (`kill -9`); only units in flight are lost (a batch per thread:
//! see `runner::local`). The file is `fsync`ed at most every
//! [`SYNC_INTERVAL`](super::SYNC_INTERVAL) and when the run ends, which bounds what a power
//! loss can take. A process killed inside `write` can leave a last line without its
//! newline: [`Checkpoint::open`](super::Checkpoint::open) drops that torn line (the unit is
//! redone) and cuts the file back to its last whole line before appending.
//!
//! # Whose file it is
//!
//! Only an empty file, or one whose first line is a whole checkpoint header, is taken as a
//! checkpoint; anything else (`my notes`, or just `n`) is refused and left as it is, and so
//! is anything but a regular file (a FIFO would block the read, a device could be endless).
//! So that our own first write can never look like someone else's file, the header is never
//! written in place: it goes to a temporary file beside the checkpoint, is synced, and only
//! then is linked to the checkpoint's name (or renamed over the empty file). A crash at any
//! point leaves the name absent, empty, or holding the whole header — never a prefix of it.
//! A file is read through the runner's one bounded reader, never past what a checkpoint of
//! the plan can hold, and an advisory lock keeps a second process off it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::format::{self, HEADER_MAX};
use super::KIND;
use crate::runner::outfile::{self, follow_links, keep_owner_and_mode, TempFile};
use crate::runner::record::{read_bounded, Bounded, FileError, Problem};

/// Refuses anything that is not a regular file (a FIFO would block the read, a device could
/// be endless), without opening it.
pub(super) fn check_regular(path: &Path) -> Result<bool, FileError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(not_regular(path, &m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(FileError::io(KIND, path, &e)),
    }
}

pub(super) fn not_regular(path: &Path, m: &fs::Metadata) -> FileError {
    FileError::new(
        KIND,
        path,
        Problem::NotOurs,
        format!(
            "is {}, not a regular file; a checkpoint must be a regular file",
            outfile::file_kind(&m.file_type())
        ),
    )
}

/// Opens an existing checkpoint without waiting: with `O_NONBLOCK`, which a regular file
/// ignores, a FIFO swapped in after [`check_regular`] cannot block the open; the caller
/// refuses it by its metadata.
pub(super) fn open_existing(path: &Path, write: bool) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .append(write)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
}

/// True if `path` (through links) names the file whose metadata is `m`.
pub(super) fn names(path: &Path, m: &fs::Metadata) -> bool {
    fs::metadata(path).is_ok_and(|p| p.dev() == m.dev() && p.ino() == m.ino())
}

/// Takes the advisory lock of a checkpoint, or says who holds it.
pub(super) fn lock(path: &Path, file: &File) -> Result<(), FileError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => Err(FileError::new(
            KIND,
            path,
            Problem::Locked,
            "another nqueens process is using it (it holds the file's lock); wait for that run to end or give another file",
        )),
        Err(fs::TryLockError::Error(e)) => Err(FileError::io(KIND, path, &e)),
    }
}

/// Starts a checkpoint at `path` whose first line is `head`, so that nobody ever sees a part
/// of that line there (see the module doc): the line goes to a temporary file beside the target
/// (a symbolic link stays, its target becomes the checkpoint), which is locked and synced,
/// then given the target's name — linked if nothing is there (`AlreadyExists` if something
/// came meanwhile), or renamed over `empty`, the empty file there that the caller holds
/// locked (its mode and owner kept).
pub(super) fn start(path: &Path, head: &str, empty: Option<&fs::Metadata>) -> io::Result<File> {
    let target = follow_links(path)?;
    let (mut file, mut tmp) =
        TempFile::create(&target, OpenOptions::new().read(true).append(true))?;
    // A file that nobody else can have opened yet: its lock is free.
    file.try_lock().map_err(io::Error::from)?;
    file.write_all(head.as_bytes())?;
    if let Some(m) = empty {
        keep_owner_and_mode(&file, m)?;
    }
    file.sync_all()?;
    match empty {
        // link(2) never replaces: of two runs creating one checkpoint, one gets EEXIST.
        None => match fs::hard_link(tmp.path(), &target) {
            Ok(()) => {} // dropping `tmp` removes only the temporary name
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            // A file system without hard links: rename, if nothing came in the meantime.
            Err(e) => match fs::symlink_metadata(&target) {
                Err(n) if n.kind() == io::ErrorKind::NotFound => {
                    fs::rename(tmp.path(), &target)?;
                    tmp.keep();
                }
                _ => return Err(e),
            },
        },
        Some(m) => {
            // One more look: never rename over anything but the empty file we hold.
            if !names(&target, m) {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "it changed while it was opened",
                ));
            }
            fs::rename(tmp.path(), &target)?;
            tmp.keep();
        }
    }
    Ok(file)
}

/// Reads a whole checkpoint, at most `limit` bytes, refusing a file whose first bytes are
/// not a whole checkpoint header line before reading further (the runner's one bounded
/// reader, [`read_bounded`]). `Ok(None)` for an empty file.
pub(super) fn read_checkpoint(
    path: &Path,
    file: &mut File,
    limit: impl FnOnce(&str) -> Result<u64, FileError>,
) -> Result<Option<Vec<u8>>, FileError> {
    let judge = |head: &[u8]| {
        if head.is_empty() {
            return Ok(0);
        }
        limit(format::first_line(path, head)?)
    };
    match read_bounded(file, HEADER_MAX as u64, judge) {
        Ok(bytes) if bytes.is_empty() => Ok(None),
        Ok(bytes) => Ok(Some(bytes)),
        Err(Bounded::Io(e)) => Err(FileError::io(KIND, path, &e)),
        Err(Bounded::Refused(e)) => Err(e),
        Err(Bounded::TooLarge(limit)) => Err(FileError::new(
            KIND,
            path,
            Problem::TooLarge,
            format!(
                "is larger than any checkpoint of this plan can be ({limit} bytes); left untouched"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::MAGIC;
    use super::super::tests::temp;
    use super::super::Checkpoint;
    use crate::engine::plan::UnitPlan;

    #[test]
    fn a_second_opener_is_refused_while_the_first_holds_the_lock() {
        let plan = UnitPlan::new(8);
        let p = temp("lock");
        let first = Checkpoint::open(&p, &plan, "all").unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(
            e.contains("another nqueens process") && e.contains("lock"),
            "{e}"
        );
        assert!(e.contains(&p.display().to_string()), "{e}");
        drop(first);
        assert!(Checkpoint::open(&p, &plan, "all").is_ok());
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn of_runs_starting_one_checkpoint_at_once_one_wins_and_no_temporary_file_stays() {
        let d = temp("race");
        let plan = UnitPlan::new(8);
        // On a new path (linked into place) and on an empty file (renamed over it).
        for empty in [false, true] {
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir(&d).unwrap();
            let p = d.join("c");
            if empty {
                std::fs::write(&p, "").unwrap();
            }
            // Each opener keeps its checkpoint (and lock) until all have tried.
            let barrier = std::sync::Barrier::new(6);
            let outcomes: Vec<Result<(), String>> = std::thread::scope(|s| {
                let runs: Vec<_> = (0..6)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            let r = Checkpoint::open(&p, &plan, "all");
                            barrier.wait();
                            r.map(drop).map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                runs.into_iter().map(|r| r.join().unwrap()).collect()
            });
            let won = outcomes.iter().filter(|r| r.is_ok()).count();
            assert_eq!(won, 1, "empty: {empty}: {outcomes:?}");
            for e in outcomes.iter().filter_map(|r| r.as_ref().err()) {
                assert!(e.contains("another nqueens process"), "{e}");
            }
            let names: Vec<_> = std::fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["c"]);
            assert!(std::fs::read_to_string(&p).unwrap().starts_with(MAGIC));
        }
        std::fs::remove_dir_all(d).unwrap();
    }
}
