//! Opening a file the user named whose open or I/O can wait for another process — a FIFO
//! (its writer waits for a reader, its reader for a writer), a pipe, a terminal — so that a
//! stop flag still ends the wait.
//!
//! A plain `open(2)` of a FIFO sleeps in the kernel until the other end arrives. Ctrl-C and
//! SIGTERM only raise a flag in this program (the count must end cleanly), so the open never
//! returned: `count --out FIFO` with no reader blocked forever. Here nothing blocks for
//! longer than [`TICK`]:
//!
//! - the file is opened with `O_NONBLOCK`. For writing, Linux then fails with `ENXIO` while
//!   the FIFO has no reader (fifo(7)): the open is retried every [`TICK`]. For reading it
//!   succeeds at once;
//! - every read and write that cannot go on at once is a `poll(2)` of at most [`TICK`], and
//!   the stop flag is looked at between two of them. A read is always preceded by a poll:
//!   on a FIFO that no writer has opened yet, `read(2)` returns 0, which would look like an
//!   empty file, whereas `poll(2)` reports nothing until a writer has written or come and
//!   gone (Linux raises `POLLHUP` only for a writer that left after our open);
//! - after [`NOTICE_AFTER`] of waiting for the other end, the caller is told once, so it can
//!   say what it waits for.
//!
//! A stopped wait is an error that [`stopped`] recognises. It is not
//! `ErrorKind::Interrupted`: `read_to_end` and `write_all` retry that kind, and would spin.

use super::shown;
use std::error::Error;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::io::Errno;

/// Longest sleep between two looks at the stop flag.
pub const TICK: Duration = Duration::from_millis(50);

/// How long a wait for the other end lasts before the caller is told of it.
pub const NOTICE_AFTER: Duration = Duration::from_millis(300);

/// The other end of a FIFO that an open or a read waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A process that opens the FIFO for reading (we write).
    Reader,
    /// A process that opens it for writing and writes (we read).
    Writer,
}

impl fmt::Display for Peer {
    /// "a reader" or "a writer".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Peer::Reader => "a reader",
            Peer::Writer => "a writer",
        })
    }
}

/// What a wait for the other end watches: a stop flag that ends it, and whom to tell (once
/// per file) that it has lasted [`NOTICE_AFTER`].
#[derive(Clone, Copy)]
pub struct Wait<'a> {
    stop: &'a AtomicBool,
    notice: &'a (dyn Fn(&Path, Peer) + Sync),
}

impl fmt::Debug for Wait<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wait").field("stop", &self.stop).finish()
    }
}

#[cfg(test)]
fn silent(_: &Path, _: Peer) {}

impl<'a> Wait<'a> {
    /// A wait that `stop` ends, and that calls `notice` once per file when it lasts.
    pub fn new(stop: &'a AtomicBool, notice: &'a (dyn Fn(&Path, Peer) + Sync)) -> Wait<'a> {
        Wait { stop, notice }
    }

    /// A wait that nothing ends and that says nothing, as a plain `open` would wait.
    #[cfg(test)]
    pub fn forever() -> Wait<'static> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        Wait {
            stop: &NEVER,
            notice: &silent,
        }
    }
}

/// The error of a wait that the stop flag ended: "interrupted while waiting for a reader on
/// PATH".
#[derive(Debug)]
pub struct Stopped {
    /// The file waited on.
    pub path: PathBuf,
    /// What it waited for.
    pub peer: Peer,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "interrupted while waiting for {} on {}",
            self.peer,
            shown::path(&self.path)
        )
    }
}

impl Error for Stopped {}

/// The [`Stopped`] inside `e`, if the stop flag ended the wait that failed.
pub fn stopped(e: &io::Error) -> Option<&Stopped> {
    e.get_ref()?.downcast_ref::<Stopped>()
}

/// An open file whose reads and writes wait in slices, watching a [`Wait`].
#[derive(Debug)]
pub struct PeerFile<'a> {
    file: File,
    path: PathBuf,
    wait: Wait<'a>,
    since: Instant,
    noticed: bool,
    /// True once a read returned something: the writer is there (a late one is no news).
    heard: bool,
}

impl<'a> PeerFile<'a> {
    fn new(file: File, path: &Path, wait: Wait<'a>, since: Instant, noticed: bool) -> Self {
        PeerFile {
            file,
            path: path.to_path_buf(),
            wait,
            since,
            noticed,
            heard: false,
        }
    }

    /// The open file (for its metadata).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Polls for `events` for at most [`TICK`]; true if the file is ready (or hung up).
    fn ready(&self, events: PollFlags) -> io::Result<bool> {
        let mut fds = [PollFd::new(&self.file, events)];
        let tick = Timespec {
            tv_sec: 0,
            tv_nsec: TICK.subsec_nanos().into(),
        };
        match poll(&mut fds, Some(&tick)) {
            Ok(n) => Ok(n > 0),
            // A signal (the one that raises the stop flag): look at the flag.
            Err(Errno::INTR) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}

/// Ends the wait for `peer` if `wait.stop` is raised; tells `wait.notice` once, after
/// [`NOTICE_AFTER`], if `news` (a reader that is there but slow is no news).
fn tick(
    wait: &Wait<'_>,
    path: &Path,
    peer: Peer,
    news: bool,
    since: Instant,
    noticed: &mut bool,
) -> io::Result<()> {
    if wait.stop.load(Ordering::Relaxed) {
        return Err(io::Error::other(Stopped {
            path: path.to_path_buf(),
            peer,
        }));
    }
    if news && !*noticed && since.elapsed() >= NOTICE_AFTER {
        *noticed = true;
        (wait.notice)(path, peer);
    }
    Ok(())
}

fn nonblocking() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.custom_flags(OFlags::NONBLOCK.bits() as i32);
    o
}

/// Opens `path` for writing without creating or truncating it, waiting (as the module doc
/// says) while it is a FIFO that has no reader.
///
/// # Errors
/// The I/O error of the open, or a [`Stopped`] one (see [`stopped`]).
pub(crate) fn open_writer<'a>(path: &Path, wait: Wait<'a>) -> io::Result<PeerFile<'a>> {
    let since = Instant::now();
    let mut noticed = false;
    loop {
        match nonblocking().write(true).open(path) {
            Ok(file) => return Ok(PeerFile::new(file, path, wait, since, noticed)),
            // ENXIO: a FIFO without a reader (a device without its hardware says ENXIO too,
            // and that is an answer, hence the second look).
            Err(e)
                if e.raw_os_error() == Some(Errno::NXIO.raw_os_error())
                    && std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) =>
            {
                tick(&wait, path, Peer::Reader, true, since, &mut noticed)?;
                std::thread::sleep(TICK);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Opens `path` for reading; its reads wait (as the module doc says) for a writer.
///
/// # Errors
/// The I/O error of the open.
pub fn open_reader<'a>(path: &Path, wait: Wait<'a>) -> io::Result<PeerFile<'a>> {
    let file = nonblocking().read(true).open(path)?;
    Ok(PeerFile::new(file, path, wait, Instant::now(), false))
}

impl Read for PeerFile<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.ready(PollFlags::IN)? {
                match self.file.read(buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Ok(n) => {
                        self.heard = true;
                        return Ok(n);
                    }
                    Err(e) => return Err(e),
                }
            }
            // Nothing yet: no writer has come, or it has not written. Only the first is news.
            let news = !self.heard;
            tick(
                &self.wait,
                &self.path,
                Peer::Writer,
                news,
                self.since,
                &mut self.noticed,
            )?;
        }
    }
}

impl Write for PeerFile<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.file.write(buf) {
                // The pipe is full: its reader is there but has not read yet.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !self.ready(PollFlags::OUT)? {
                        tick(
                            &self.wait,
                            &self.path,
                            Peer::Reader,
                            false,
                            self.since,
                            &mut self.noticed,
                        )?;
                    }
                }
                r => return r,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn fifo(name: &str) -> (PathBuf, PathBuf) {
        let d = std::env::temp_dir().join(format!("nqueens-fifo-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("f");
        let made = nix::unistd::mkfifo(&p, nix::sys::stat::Mode::S_IRWXU);
        assert!(made.is_ok(), "mkfifo: {made:?}");
        (d, p)
    }

    #[test]
    fn a_raised_flag_ends_the_wait_for_a_reader_and_the_notice_comes_once() {
        let (d, p) = fifo("writer");
        static STOP: AtomicBool = AtomicBool::new(false);
        static NOTICES: AtomicUsize = AtomicUsize::new(0);
        fn count(_: &Path, peer: Peer) {
            assert_eq!(peer, Peer::Reader);
            NOTICES.fetch_add(1, Ordering::SeqCst);
        }
        let raiser = std::thread::spawn(|| {
            std::thread::sleep(NOTICE_AFTER * 3);
            STOP.store(true, Ordering::SeqCst);
        });
        let start = Instant::now();
        let e = open_writer(&p, Wait::new(&STOP, &count)).unwrap_err();
        raiser.join().unwrap();
        assert!(start.elapsed() < NOTICE_AFTER * 3 + TICK * 4);
        assert_eq!(
            stopped(&e).map(|s| s.peer),
            Some(Peer::Reader),
            "{e}: not a stopped wait"
        );
        assert_eq!(NOTICES.load(Ordering::SeqCst), 1);
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_reader_waits_for_a_late_writer_instead_of_seeing_an_empty_file() {
        let (d, p) = fifo("reader");
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(p, b"late").unwrap();
            })
        };
        let mut got = String::new();
        open_reader(&p, Wait::forever())
            .unwrap()
            .read_to_string(&mut got)
            .unwrap();
        writer.join().unwrap();
        assert_eq!(got, "late");
        std::fs::remove_dir_all(d).unwrap();
    }
}
