//! Checkpoint files: every finished unit's result, appended as one line the moment it is
//! known, so a long count can be interrupted (Ctrl-C, SIGTERM, `kill -9`, a lost node) and
//! resumed without losing or double-counting a unit.
//!
//! ```text
//! nqueens-checkpoint 1 n=16 plan=b7ce34cf89467108 plan_version=4 units=6487 scope=all program=0.1.0
//! 3232 2480 349596 10/5,0/6 98f495e7
//! ```
//!
//! A header line that names the board size, the unit plan and the scope (a file whose header
//! disagrees with the command is refused), then one checked record per unit. Three parts:
//!
//! - this file, the API: [`Checkpoint::open`] (create or resume, and lock),
//!   [`Checkpoint::record`] and [`Checkpoint::sync`] for a run, [`read`] for a look without
//!   writing;
//! - [`format`](mod@format): the header and record lines, their parsers and the refusals of
//!   a file written for another n, plan or scope;
//! - [`file`](mod@file): the durable file — the header never written in place, one `write`
//!   per record, `fsync` every [`SYNC_INTERVAL`], a torn last line cut, nothing but a
//!   regular file taken or replaced, the lock, the bounded read.

mod file;
mod format;

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::record::{FileError, Problem};
use crate::engine::plan::{UnitPlan, UnitResult};
use file::{check_regular, lock, names, not_regular, open_existing, read_checkpoint, start};
use format::{
    check_header, header, header_scope, parse_records, record_line, size_bound, whole_lines,
};

/// Longest time a recorded unit waits for its `fsync`.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(2);

/// The kind of file a [`FileError`] of this module names.
const KIND: &str = "checkpoint";

/// An open checkpoint file, appending one line per finished unit. Shareable between the
/// worker threads (`record` takes `&self`).
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    file: Mutex<(File, Instant)>,
}

/// What a checkpoint held when it was opened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Result per unit id (`None`: not recorded yet); one slot per unit of the plan.
    pub results: Vec<Option<UnitResult>>,
    /// True if a torn last line was dropped.
    pub torn: bool,
}

impl Recorded {
    /// How many units have a result.
    pub fn count(&self) -> usize {
        self.results.iter().flatten().count()
    }
}

impl Checkpoint {
    /// Opens (or creates) the checkpoint at `path` for `plan` and `scope` (`"all"` or
    /// `"shard K/M"`), takes its advisory lock (held until the checkpoint is dropped) and
    /// returns the results already recorded.
    ///
    /// A file that is not a checkpoint (not empty, and its first line is not a whole
    /// checkpoint header), is not a regular file, or is larger than a checkpoint of this plan
    /// can be, is refused and left untouched; so is a file locked by another process. A new
    /// or empty file gets its header as [`file`](mod@file) says: never in place.
    ///
    /// # Errors
    /// A [`FileError`] naming the file (and line) if it cannot be read or written, belongs to
    /// another n, plan or scope, or has a corrupted or conflicting record, or as above.
    pub fn open(
        path: &Path,
        plan: &UnitPlan,
        scope: &str,
    ) -> Result<(Checkpoint, Recorded), FileError> {
        let io = |e: io::Error| FileError::io(KIND, path, &e);
        let head = header(plan, scope);
        let bound = size_bound(plan);
        let mut rec = Recorded {
            results: vec![None; plan.len()],
            torn: false,
        };
        // Another run may create the file, or start it over an empty one, between our look
        // and our lock: then look again, and find it locked.
        let mut opened = None;
        for _ in 0..5 {
            if !check_regular(path)? {
                match start(path, &head, None) {
                    Ok(f) => opened = Some(f),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io(e)),
                }
                break;
            }
            let mut file = match open_existing(path, true) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io(e)),
            };
            let m = file.metadata().map_err(io)?;
            if !m.is_file() {
                return Err(not_regular(path, &m));
            }
            lock(path, &file)?;
            // The lock is on the file we opened; the name may be another's by now.
            if !names(path, &m) {
                continue;
            }
            match read_checkpoint(path, &mut file, |_| Ok(bound))? {
                None => match start(path, &head, Some(&m)) {
                    Ok(f) => opened = Some(f),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io(e)),
                },
                Some(bytes) => {
                    let (text, torn) = whole_lines(path, &bytes)?;
                    let mut lines = text.lines();
                    check_header(path, lines.next().unwrap_or(""), plan, scope)?;
                    rec.results = parse_records(path, lines, plan)?;
                    rec.torn = torn;
                    if torn {
                        file.set_len(text.len() as u64).map_err(io)?;
                        file.sync_all().map_err(io)?;
                    }
                    opened = Some(file);
                }
            }
            break;
        }
        let Some(mut file) = opened else {
            return Err(FileError::new(
                KIND,
                path,
                Problem::Changing,
                "it kept changing while it was opened (another process creates or replaces it); try again when it is done",
            ));
        };
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                file: Mutex::new((file, Instant::now())),
            },
            rec,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one finished unit (one `write`), and `fsync`s if the last sync is older than
    /// [`SYNC_INTERVAL`].
    ///
    /// # Errors
    /// The I/O error (disk full, file removed, ...).
    pub fn record(&self, id: u32, r: &UnitResult) -> std::io::Result<()> {
        let line = record_line(id, r);
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let (file, last_sync) = &mut *guard;
        file.write_all(line.as_bytes())?;
        if last_sync.elapsed() >= SYNC_INTERVAL {
            file.sync_data()?;
            *last_sync = Instant::now();
        }
        Ok(())
    }

    /// Forces everything recorded so far to disk.
    ///
    /// # Errors
    /// The I/O error of `fsync`.
    pub fn sync(&self) -> std::io::Result<()> {
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        guard.0.sync_data()?;
        guard.1 = Instant::now();
        Ok(())
    }
}

/// Reads a checkpoint of `plan` without opening it for writing: the per-unit results
/// (for replaying measured costs), whatever its scope.
///
/// The header is compared with `plan` before anything else is read: a file that claims
/// another n or plan is refused from its first line, and the plan it names is never built
/// (a header claiming n = 32 once made `plan 12 --costs` build that plan, 2.75 GB, past
/// `--max-memory`). The rest is read up to what a checkpoint of `plan` can hold.
///
/// # Errors
/// As [`Checkpoint::open`].
pub fn read(path: &Path, plan: &UnitPlan) -> Result<Recorded, FileError> {
    let io = |e: std::io::Error| FileError::io(KIND, path, &e);
    if !check_regular(path)? {
        return Err(io(std::io::ErrorKind::NotFound.into()));
    }
    let mut file = open_existing(path, false).map_err(io)?;
    let m = file.metadata().map_err(io)?;
    if !m.is_file() {
        return Err(not_regular(path, &m));
    }
    let bytes = read_checkpoint(path, &mut file, |first| {
        check_header(path, first, plan, &header_scope(first))?;
        Ok(size_bound(plan))
    })?;
    let Some(bytes) = bytes else {
        return Err(FileError::at(
            KIND,
            path,
            1,
            Problem::NotOurs,
            "the file is empty: no header",
        ));
    };
    let (text, torn) = whole_lines(path, &bytes)?;
    Ok(Recorded {
        results: parse_records(path, text.lines().skip(1), plan)?,
        torn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    pub(super) fn temp(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("nqueens-ckpt-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn records_survive_reopening() {
        let plan = UnitPlan::new(8);
        let p = temp("reopen");
        let (c, rec) = Checkpoint::open(&p, &plan, "all").unwrap();
        assert_eq!(rec.count(), 0);
        c.record(
            3,
            &UnitResult {
                solutions: 7,
                nodes: 99,
            },
        )
        .unwrap();
        drop(c);
        let (_, rec) = Checkpoint::open(&p, &plan, "all").unwrap();
        assert_eq!(
            rec.results[3],
            Some(UnitResult {
                solutions: 7,
                nodes: 99
            })
        );
        assert_eq!(rec.count(), 1);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn torn_last_line_is_dropped_and_cut() {
        let plan = UnitPlan::new(8);
        let p = temp("torn");
        let (c, _) = Checkpoint::open(&p, &plan, "all").unwrap();
        c.record(
            1,
            &UnitResult {
                solutions: 2,
                nodes: 3,
            },
        )
        .unwrap();
        drop(c);
        let whole = std::fs::read(&p).unwrap();
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"2 5 6 5/").unwrap();
        let (c, rec) = Checkpoint::open(&p, &plan, "all").unwrap();
        assert!(rec.torn);
        assert_eq!(rec.count(), 1);
        assert_eq!(std::fs::read(&p).unwrap(), whole);
        c.record(
            2,
            &UnitResult {
                solutions: 5,
                nodes: 6,
            },
        )
        .unwrap();
        drop(c); // releases the lock
        assert_eq!(Checkpoint::open(&p, &plan, "all").unwrap().1.count(), 2);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn refusals_say_what_kind_of_problem() {
        let plan = UnitPlan::new(8);
        let problem = |p: &Path, plan: &UnitPlan, scope: &str| {
            Checkpoint::open(p, plan, scope)
                .map(drop)
                .unwrap_err()
                .problem
        };
        let p = temp("kinds");
        drop(Checkpoint::open(&p, &plan, "all").unwrap());
        assert_eq!(problem(&p, &UnitPlan::new(9), "all"), Problem::OtherPlan);
        assert_eq!(problem(&p, &plan, "shard 0/2"), Problem::OtherPlan);
        let held = Checkpoint::open(&p, &plan, "all").unwrap();
        assert_eq!(problem(&p, &plan, "all"), Problem::Locked);
        drop(held);
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("0 1 2 3/4,5/6 00000000\n");
        std::fs::write(&p, &text).unwrap();
        assert_eq!(problem(&p, &plan, "all"), Problem::Corrupt);
        std::fs::write(&p, "not a checkpoint\n").unwrap();
        assert_eq!(problem(&p, &plan, "all"), Problem::NotOurs);
        std::fs::remove_file(&p).unwrap();
        let d = temp("kinds-dir");
        std::fs::create_dir(&d).unwrap();
        assert_eq!(problem(&d, &plan, "all"), Problem::NotOurs);
        std::fs::remove_dir(&d).unwrap();
    }
}
