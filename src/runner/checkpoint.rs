//! Checkpoint files: every finished unit's result, appended as one line the moment it is
//! known, so a long count can be interrupted (Ctrl-C, SIGTERM, `kill -9`, a lost node) and
//! resumed without losing or double-counting a unit.
//!
//! # Format (text, one record per line)
//!
//! ```text
//! nqueens-checkpoint 1 n=16 plan=b7ce34cf89467108 plan_version=4 units=6487 scope=all program=0.1.0
//! 3232 2480 349596 10/5,0/6 98f495e7
//! ```
//!
//! The header names the board size, the unit plan (its id and version) and the scope (`all`,
//! or `shard K/M`); a file whose header disagrees with the command is refused. Each record
//! is `id solutions nodes residues digest`: the residues mod 13 and 15 of both counts and the
//! low 32 bits of the FNV-1a digest of the text before it (see [`super::record`]).
//!
//! # Durability
//!
//! A record is written with a single `write` on a file opened for appending, so once
//! [`Checkpoint::record`] returns it is in the kernel and survives the death of the process
//! (`kill -9`); only units in flight are lost. The file is `fsync`ed at most every
//! [`SYNC_INTERVAL`] and when the run ends, which bounds what a power loss can take. A process
//! killed inside `write` can leave a last line without its newline: [`Checkpoint::open`]
//! drops that torn line (the unit is redone) and cuts the file back to its last whole line
//! before appending.
//!
//! # Whose file it is
//!
//! Only an empty file, or one whose first line is a whole checkpoint header, is taken as a
//! checkpoint; anything else (`my notes`, or just `n`) is refused and left as it is. So that
//! our own first write can never look like someone else's file, the header is never written
//! in place: it goes to a temporary file beside the checkpoint, is synced, and only then is
//! linked to the checkpoint's name (or renamed over the empty file). A crash at any point
//! leaves the name absent, empty, or holding the whole header — never a prefix of it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::outfile::{follow_links, keep_owner_and_mode, TempFile};
use super::record::{check_value, fnv1a64, parse_u64, read_bounded, Bounded, FileError, Problem};
use crate::engine::plan::{Engine, UnitPlan, UnitResult};

/// Longest time a recorded unit waits for its `fsync`.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(2);

const MAGIC: &str = "nqueens-checkpoint";
const FORMAT: &str = "1";
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

/// The one-line record of a unit, with its check values, newline included.
pub(crate) fn record_line(id: u32, r: &UnitResult) -> String {
    let body = format!("{id} {} {} {}", r.solutions, r.nodes, check_value(r));
    format!("{body} {:08x}\n", fnv1a64(body.as_bytes()) as u32)
}

/// A checkpoint's header line, parsed once (the one parser: opening, `read` and the checks
/// all use it). On disk: `nqueens-checkpoint 1 n=16 plan=<hex> plan_version=4 units=6487
/// scope=all program=0.1.0`, with a space-free scope (`shard_3/8`). Fields other than the
/// magic word and the format are `key=value` in any order; a missing one reads as "?".
#[derive(Clone, Debug, PartialEq, Eq)]
struct Header {
    format: String,
    n: String,
    plan: String,
    plan_version: String,
    units: String,
    /// As the session names it: "all" or "shard K/M".
    scope: String,
    program: String,
}

impl Header {
    /// The header a checkpoint of `plan` over `scope` is written with.
    fn of(plan: &UnitPlan, scope: &str) -> Header {
        Header {
            format: FORMAT.into(),
            n: plan.n().to_string(),
            plan: plan.id_hex(),
            plan_version: plan.version().to_string(),
            units: plan.len().to_string(),
            scope: scope.into(),
            program: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// Parses a first line (without its newline).
    ///
    /// # Errors
    /// A line that does not start with the magic word.
    fn parse(line: &str) -> Result<Header, String> {
        let mut words = line.split(' ');
        if words.next() != Some(MAGIC) {
            return Err(format!(
                "not an nqueens checkpoint (expected a first line starting with '{MAGIC}')"
            ));
        }
        let format = words.next().unwrap_or("?").to_string();
        let field = |key: &str| {
            line.split(' ')
                .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
                .unwrap_or("?")
                .to_string()
        };
        Ok(Header {
            format,
            n: field("n"),
            plan: field("plan"),
            plan_version: field("plan_version"),
            units: field("units"),
            scope: field("scope").replace('_', " "),
            program: field("program"),
        })
    }
}

impl std::fmt::Display for Header {
    /// The line as written, newline included.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{MAGIC} {} n={} plan={} plan_version={} units={} scope={} program={}",
            self.format,
            self.n,
            self.plan,
            self.plan_version,
            self.units,
            self.scope.replace(' ', "_"),
            self.program
        )
    }
}

fn header(plan: &UnitPlan, scope: &str) -> String {
    Header::of(plan, scope).to_string()
}

/// Checks a header line against the plan and scope; the program version is informative.
fn check_header(path: &Path, line: &str, plan: &UnitPlan, scope: &str) -> Result<(), FileError> {
    let bad = |reason: String| Err(FileError::at(KIND, path, 1, Problem::OtherPlan, reason));
    let h = match Header::parse(line) {
        Ok(h) => h,
        Err(why) => return Err(FileError::at(KIND, path, 1, Problem::NotOurs, why)),
    };
    if h.format != FORMAT {
        return bad(format!(
            "unsupported checkpoint format (this program reads format {FORMAT})"
        ));
    }
    if h.n != plan.n().to_string() {
        return bad(format!("it is for n = {}, not n = {}", h.n, plan.n()));
    }
    if h.plan != plan.id_hex() || h.plan_version != plan.version().to_string() {
        let hint = match h
            .plan_version
            .parse()
            .ok()
            .and_then(Engine::from_plan_version)
        {
            Some(e) if e != plan.engine() => format!(
                "; it was started by the {} engine: resume it with --engine {}",
                e.name(),
                e.name()
            ),
            _ => "; finish it with the program that started it".to_string(),
        };
        return bad(format!(
            "it was written for unit plan {} (version {}), this count uses plan {} (version {}) for n = {}{hint}",
            h.plan,
            h.plan_version,
            plan.id_hex(),
            plan.version(),
            plan.n()
        ));
    }
    if h.scope != scope {
        return bad(format!(
            "it records scope '{}', this command computes '{}'",
            h.scope, scope
        ));
    }
    Ok(())
}

/// Parses one record line (without its newline).
fn parse_record(line: &str, plan: &UnitPlan) -> Result<(u32, UnitResult), String> {
    let (body, digest) = line.rsplit_once(' ').ok_or("not a unit record")?;
    let want = format!("{:08x}", fnv1a64(body.as_bytes()) as u32);
    if digest != want {
        return Err(format!(
            "digest {digest} does not match the record (expected {want}): the file is corrupted"
        ));
    }
    let f: Vec<&str> = body.split(' ').collect();
    let [id, solutions, nodes, check] = f[..] else {
        return Err(format!("expected 5 fields, found {}", f.len() + 1));
    };
    let id = parse_u64("unit id", id)?;
    if id >= plan.len() as u64 {
        return Err(format!(
            "unit id {id} is outside the plan (0..{})",
            plan.len()
        ));
    }
    let r = UnitResult {
        solutions: parse_u64("solutions", solutions)?,
        nodes: parse_u64("nodes", nodes)?,
    };
    if check != check_value(&r) {
        return Err(format!(
            "check value {check} does not match the counts (expected {})",
            check_value(&r)
        ));
    }
    Ok((id as u32, r))
}

/// Parses the records that follow the header (line 2 on), refusing a unit recorded twice.
fn parse_records<'a>(
    path: &Path,
    lines: impl Iterator<Item = &'a str>,
    plan: &UnitPlan,
) -> Result<Vec<Option<UnitResult>>, FileError> {
    let mut results = vec![None; plan.len()];
    for (i, line) in lines.enumerate() {
        let at = |reason: String| FileError::at(KIND, path, i + 2, Problem::Corrupt, reason);
        let (id, r) = parse_record(line, plan).map_err(at)?;
        match results[id as usize].replace(r) {
            // Two runs that both finished a unit wrote the same line: keep one.
            Some(old) if old == r && format!("{line}\n") == record_line(id, &r) => {}
            Some(_) => {
                return Err(at(format!(
                    "unit {id} is recorded twice, with different lines"
                )))
            }
            None => {}
        }
    }
    Ok(results)
}

/// Longest header line read before deciding whether a file is a checkpoint.
const HEADER_MAX: usize = 1024;

/// Longest record line: id (10 digits), solutions and nodes (20 each), residues, digest.
const RECORD_MAX: usize = 80;

/// The most bytes a checkpoint of `plan` can hold: the header and two records per unit (a
/// unit may be recorded twice, byte-identically, by older versions running side by side).
fn size_bound(plan: &UnitPlan) -> u64 {
    (HEADER_MAX + 2 * RECORD_MAX * plan.len()) as u64
}

/// Refuses anything that is not a regular file (a FIFO would block the read, a device could
/// be endless), without opening it.
fn check_regular(path: &Path) -> Result<bool, FileError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(not_regular(path, &m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(FileError::io(KIND, path, &e)),
    }
}

fn not_regular(path: &Path, m: &fs::Metadata) -> FileError {
    FileError::new(
        KIND,
        path,
        Problem::NotOurs,
        format!(
            "is {}, not a regular file; a checkpoint must be a regular file",
            super::outfile::file_kind(&m.file_type())
        ),
    )
}

/// Opens an existing checkpoint without waiting: with `O_NONBLOCK`, which a regular file
/// ignores, a FIFO swapped in after [`check_regular`] cannot block the open; the caller
/// refuses it by its metadata.
fn open_existing(path: &Path, write: bool) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .append(write)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
}

/// True if `path` (through links) names the file whose metadata is `m`.
fn names(path: &Path, m: &fs::Metadata) -> bool {
    fs::metadata(path).is_ok_and(|p| p.dev() == m.dev() && p.ino() == m.ino())
}

/// Takes the advisory lock of a checkpoint, or says who holds it.
fn lock(path: &Path, file: &File) -> Result<(), FileError> {
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
/// of that line there (the module doc): the line goes to a temporary file beside the target
/// (a symbolic link stays, its target becomes the checkpoint), which is locked and synced,
/// then given the target's name — linked if nothing is there (`AlreadyExists` if something
/// came meanwhile), or renamed over `empty`, the empty file there that the caller holds
/// locked (its mode and owner kept).
fn start(path: &Path, head: &str, empty: Option<&fs::Metadata>) -> io::Result<File> {
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
fn read_checkpoint(
    path: &Path,
    file: &mut File,
    limit: impl FnOnce(&str) -> Result<u64, FileError>,
) -> Result<Option<Vec<u8>>, FileError> {
    let judge = |head: &[u8]| {
        if head.is_empty() {
            return Ok(0);
        }
        // No prefix of a header is ours: we never write one in place (see the module doc).
        let Some(end) = head.iter().position(|&b| b == b'\n') else {
            let what = if head.len() >= HEADER_MAX {
                format!("its first {HEADER_MAX} bytes hold no line")
            } else {
                "it holds no whole line".to_string()
            };
            return Err(FileError::at(
                KIND,
                path,
                1,
                Problem::NotOurs,
                format!(
                    "not an nqueens checkpoint ({what} starting with '{MAGIC} '); left untouched"
                ),
            ));
        };
        let first = std::str::from_utf8(&head[..end])
            .ok()
            .filter(|l| l.starts_with(MAGIC));
        let Some(first) = first else {
            return Err(FileError::at(
                KIND,
                path,
                1,
                Problem::NotOurs,
                format!("not an nqueens checkpoint (expected a first line starting with '{MAGIC}'); left untouched"),
            ));
        };
        limit(first)
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

/// The whole lines of `bytes` (up to the last newline) as text, and whether a torn line
/// followed them. Cut on raw bytes: a torn line may hold any bytes.
fn whole_lines<'b>(path: &Path, bytes: &'b [u8]) -> Result<(&'b str, bool), FileError> {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    match std::str::from_utf8(&bytes[..whole]) {
        Ok(text) => Ok((text, whole < bytes.len())),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(FileError::at(
                KIND,
                path,
                line,
                Problem::Corrupt,
                format!(
                    "byte 0x{:02x} is not text (UTF-8): the file is corrupted",
                    bytes[at]
                ),
            ))
        }
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
    /// or empty file gets its header as the module doc says.
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

/// The scope a header line names; a header without one is checked as one of the whole
/// plan (and refused).
fn header_scope(first: &str) -> String {
    Header::parse(first)
        .ok()
        .map(|h| h.scope)
        .filter(|s| s != "?")
        .unwrap_or_else(|| "all".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
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
    fn the_header_is_written_as_before_and_reads_back() {
        let plan = UnitPlan::new(12);
        let line = header(&plan, "shard 3/8");
        let want = format!(
            "nqueens-checkpoint 1 n=12 plan={} plan_version={} units={} scope=shard_3/8 program={}\n",
            plan.id_hex(),
            plan.version(),
            plan.len(),
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(line, want);
        let h = Header::parse(line.trim_end()).unwrap();
        assert_eq!(h, Header::of(&plan, "shard 3/8"));
        assert!(Header::parse("nqueens-checkpoin 1 n=12").is_err());
        let odd = Header::parse("nqueens-checkpoint 1 n=99 plan_version=4").unwrap();
        assert_eq!((odd.n.as_str(), odd.scope.as_str()), ("99", "?"));
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

    #[test]
    fn other_n_plan_or_scope_is_refused() {
        let p = temp("foreign");
        drop(Checkpoint::open(&p, &UnitPlan::new(8), "all").unwrap());
        let e = Checkpoint::open(&p, &UnitPlan::new(9), "all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("n = 8, not n = 9"), "{e}");
        let e = Checkpoint::open(&p, &UnitPlan::new(8), "shard 0/2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("scope"), "{e}");
        let text = std::fs::read_to_string(&p).unwrap();
        let plan = UnitPlan::new(8).id_hex();
        std::fs::write(&p, text.replace(&plan, "0123456789abcdef")).unwrap();
        let e = Checkpoint::open(&p, &UnitPlan::new(8), "all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unit plan 0123456789abcdef"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn corrupted_or_duplicated_records_are_refused() {
        let plan = UnitPlan::new(8);
        let p = temp("corrupt");
        let (c, _) = Checkpoint::open(&p, &plan, "all").unwrap();
        c.record(
            1,
            &UnitResult {
                solutions: 20,
                nodes: 30,
            },
        )
        .unwrap();
        drop(c);
        let good = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, good.replace(" 20 30 ", " 21 30 ")).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("corrupted"), "{e}");
        let line = record_line(
            1,
            &UnitResult {
                solutions: 20,
                nodes: 30,
            },
        );
        // The same line twice (two runs finished the unit) is kept once; a different line
        // for the same unit is refused.
        std::fs::write(&p, format!("{good}{line}")).unwrap();
        assert_eq!(Checkpoint::open(&p, &plan, "all").unwrap().1.count(), 1);
        let other = record_line(
            1,
            &UnitResult {
                solutions: 21,
                nodes: 30,
            },
        );
        std::fs::write(&p, format!("{good}{other}")).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("recorded twice"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

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

    #[test]
    fn a_torn_line_with_invalid_bytes_is_cut_on_raw_bytes() {
        let plan = UnitPlan::new(8);
        let p = temp("rawcut");
        drop(Checkpoint::open(&p, &plan, "all").unwrap());
        let whole = std::fs::read(&p).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(b"3 \xff\xfe\xfd 7");
        std::fs::write(&p, &torn).unwrap();
        let (_, rec) = Checkpoint::open(&p, &plan, "all").unwrap();
        assert!(rec.torn);
        assert_eq!(std::fs::read(&p).unwrap(), whole);
        // An invalid byte inside a whole line is refused, shown as hex.
        let mut bad = whole.clone();
        bad.extend_from_slice(b"1 \xff 3\n");
        std::fs::write(&p, &bad).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("0xff"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn oversized_counts_are_refused() {
        let plan = UnitPlan::new(8);
        let body = format!("1 {}0 3 0/0,3/3", u64::MAX);
        let line = format!("{body} {:08x}", fnv1a64(body.as_bytes()) as u32);
        assert!(parse_record(&line, &plan)
            .unwrap_err()
            .contains("does not fit"));
    }
}
