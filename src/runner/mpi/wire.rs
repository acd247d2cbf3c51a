//! The messages ranks exchange in `count --mpi`, their byte encoding, and a bounded receive.
//!
//! Every message is a byte vector (so a receive never depends on the sender's datatype):
//! a header word, then fixed little-endian u64 words, then, for the kinds that carry one,
//! a UTF-8 text of at most [`MAX_TEXT`] bytes. The header word is [`MAGIC`] (`"nqmp"` in
//! its high half) with the kind in its low half, so a message of another program, or of an
//! nqueens before this protocol (whose four bare u64 start with 0, 1 or 2), is recognised as
//! foreign instead of being read as a unit id. [`Msg::decode`] checks the length, the magic,
//! the kind, the number of words and the text; what a message may say at a point of the
//! exchange (an id in the plan, a slot count) is checked by the caller, which knows the
//! plan. Nothing here panics on any input.
//!
//! [`PROTOCOL`] is the version of this exchange: a rank whose hello names another is
//! refused. Bump it whenever a message changes.

use std::time::{Duration, Instant};

use mpi::point_to_point::{MatchedReceiveVec, Message, Status};
use mpi::topology::{Rank, SimpleCommunicator};
use mpi::traits::{Communicator, Destination, Equivalence, Source};

/// The version of the exchange, sent in every hello and offer.
/// Protocol 2 (2026-12-07): a unit message and its done or abandoned answer carry up to
/// [`MAX_UNITS`] units (a bundle), where protocol 1 carried one.
pub const PROTOCOL: u64 = 2;

/// The high half of every header word: "nqmp".
pub const MAGIC: u64 = 0x6e71_6d70 << 32;

/// The longest message accepted, bytes: the longest kind is an offer (6 words and a version
/// string) or a refusal (a word and a line of text).
pub const MAX_BYTES: usize = 1024;

/// The longest text a message carries, bytes (a program version, a reason).
pub const MAX_TEXT: usize = 512;

/// Most units one message hands out or returns: a bundle of the quadrant engine is one
/// group's frames at one prefix, at most h - 1 = 11 units where bundles are made (odd n up
/// to 25, `quadrant::bundles`); 32 bounds the message at 776 bytes.
pub const MAX_UNITS: usize = 32;

/// One unit's result in a [`Msg::Done`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The unit id.
    pub id: u64,
    /// Its weighted solutions.
    pub solutions: u64,
    /// Its work (nodes or pairs).
    pub nodes: u64,
}

/// What rank 0 offers every other rank: the plan they must all build, by its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    /// Rank 0's protocol version ([`PROTOCOL`]).
    pub protocol: u64,
    /// The board size.
    pub n: u64,
    /// The plan version, which names the engine (`Engine::from_plan_version`).
    pub plan_version: u64,
    /// The plan id (`UnitPlan::id`).
    pub plan_id: u64,
    /// Number of units of the plan.
    pub units: u64,
    /// Rank 0's program version (`CARGO_PKG_VERSION`).
    pub program: String,
}

/// One message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A computing rank's first message: it speaks this protocol.
    Hello {
        /// Its protocol version.
        protocol: u64,
    },
    /// Rank 0's plan.
    Offer(Offer),
    /// Rank 0 cannot start (its options, its plan, its checkpoint): go home.
    Cancel {
        /// Why, one line.
        reason: String,
    },
    /// A computing rank built the offered plan and runs it on `threads` threads.
    Accept {
        /// Its compute threads (slots), 1..=`MAX_THREADS`.
        threads: u64,
        /// Bytes of the quadrant table it builds (0: none).
        table_bytes: u64,
    },
    /// A computing rank will not run the offered plan.
    Refuse {
        /// Why, one line.
        reason: String,
    },
    /// Every rank accepted: the count begins.
    Go,
    /// Some rank refused: the count does not begin.
    End,
    /// A slot asks for its first run of units.
    Ready,
    /// A slot finished the units rank 0 last handed it (one result each, in the order
    /// handed) and asks for more.
    Done {
        /// The results, 1 to [`MAX_UNITS`].
        results: Vec<Finished>,
    },
    /// A slot abandoned the units `ids` after a signal and asks for more.
    Abandoned {
        /// The unit ids, 1 to [`MAX_UNITS`].
        ids: Vec<u64>,
    },
    /// Rank 0's answer to a slot: count units `ids` (a bundle the engine counts together,
    /// or one unit).
    Unit {
        /// The unit ids, 1 to [`MAX_UNITS`].
        ids: Vec<u64>,
    },
    /// Rank 0's answer to a slot: stop.
    Quit,
}

impl Msg {
    /// The kind number and a name for messages.
    fn kind(&self) -> (u64, &'static str) {
        match self {
            Msg::Hello { .. } => (1, "hello"),
            Msg::Offer(_) => (2, "offer"),
            Msg::Cancel { .. } => (3, "cancel"),
            Msg::Accept { .. } => (4, "accept"),
            Msg::Refuse { .. } => (5, "refuse"),
            Msg::Go => (6, "go"),
            Msg::End => (7, "end"),
            Msg::Ready => (8, "ready"),
            Msg::Done { .. } => (9, "done"),
            Msg::Abandoned { .. } => (10, "abandoned"),
            Msg::Unit { .. } => (11, "unit"),
            Msg::Quit => (12, "quit"),
        }
    }

    /// The message's name, for error messages ("a done message").
    pub fn name(&self) -> &'static str {
        self.kind().1
    }

    /// The bytes sent.
    pub fn encode(&self) -> Vec<u8> {
        let (words, text): (Vec<u64>, &str) = match self {
            Msg::Hello { protocol } => (vec![*protocol], ""),
            Msg::Offer(o) => (
                vec![o.protocol, o.n, o.plan_version, o.plan_id, o.units],
                &o.program,
            ),
            Msg::Cancel { reason } | Msg::Refuse { reason } => (vec![], reason),
            Msg::Accept {
                threads,
                table_bytes,
            } => (vec![*threads, *table_bytes], ""),
            Msg::Go | Msg::End | Msg::Ready | Msg::Quit => (vec![], ""),
            Msg::Done { results } => (
                results
                    .iter()
                    .flat_map(|r| [r.id, r.solutions, r.nodes])
                    .collect(),
                "",
            ),
            Msg::Abandoned { ids } | Msg::Unit { ids } => (ids.clone(), ""),
        };
        let text = cut(text, MAX_TEXT);
        let mut out = Vec::with_capacity(8 * (1 + words.len()) + text.len());
        for w in std::iter::once(MAGIC | self.kind().0).chain(words) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out
    }

    /// Reads a message.
    ///
    /// # Errors
    /// One line saying what is wrong: too short or too long, not an nqueens message, an
    /// unknown kind, the wrong number of words, a text that is not UTF-8 or too long.
    pub fn decode(bytes: &[u8]) -> Result<Msg, String> {
        if bytes.len() < 8 || bytes.len() > MAX_BYTES {
            return Err(format!(
                "a message of {} bytes (an nqueens message has 8 to {MAX_BYTES})",
                bytes.len()
            ));
        }
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
            u64::from_le_bytes(w)
        };
        let head = word(0);
        if head & !0xffff_ffff != MAGIC {
            return Err(format!(
                "a {}-byte message that is not an nqueens MPI message (first word {head:#x}; another program, or an nqueens of another version?)",
                bytes.len()
            ));
        }
        let kind = head & 0xffff_ffff;
        // A list of 1 to MAX_UNITS units of `per` words each: how many words it has.
        let units = |per: usize| {
            let words = bytes.len() / 8 - 1;
            match bytes.len().is_multiple_of(8)
                && words.is_multiple_of(per)
                && (1..=MAX_UNITS).contains(&(words / per))
            {
                true => Ok(words),
                false => Err(format!(
                    "a message of kind {kind} with {} bytes, not 8 + {} x (1 to {MAX_UNITS} units)",
                    bytes.len(),
                    8 * per
                )),
            }
        };
        // (kind, fixed words after the header, carries a text)
        let (words, text) = match kind {
            1 => (1, false),
            2 => (5, true),
            3 | 5 => (0, true),
            4 => (2, false),
            6 | 7 | 8 | 12 => (0, false),
            9 => (units(3)?, false),
            10 | 11 => (units(1)?, false),
            k => return Err(format!("a message of unknown kind {k}")),
        };
        let fixed = 8 * (1 + words);
        if bytes.len() < fixed || (!text && bytes.len() != fixed) {
            return Err(format!(
                "a message of kind {} with {} bytes, not {fixed}{}",
                kind,
                bytes.len(),
                if text { " or more" } else { "" }
            ));
        }
        let tail = &bytes[fixed..];
        if tail.len() > MAX_TEXT {
            return Err(format!(
                "a message whose text has {} bytes, more than {MAX_TEXT}",
                tail.len()
            ));
        }
        let text = || {
            std::str::from_utf8(tail)
                .map(str::to_string)
                .map_err(|_| "a message whose text is not UTF-8".to_string())
        };
        let w = |i: usize| word(1 + i);
        Ok(match kind {
            1 => Msg::Hello { protocol: w(0) },
            2 => Msg::Offer(Offer {
                protocol: w(0),
                n: w(1),
                plan_version: w(2),
                plan_id: w(3),
                units: w(4),
                program: text()?,
            }),
            3 => Msg::Cancel { reason: text()? },
            4 => Msg::Accept {
                threads: w(0),
                table_bytes: w(1),
            },
            5 => Msg::Refuse { reason: text()? },
            6 => Msg::Go,
            7 => Msg::End,
            8 => Msg::Ready,
            9 => Msg::Done {
                results: (0..words / 3)
                    .map(|i| Finished {
                        id: w(3 * i),
                        solutions: w(3 * i + 1),
                        nodes: w(3 * i + 2),
                    })
                    .collect(),
            },
            10 => Msg::Abandoned {
                ids: (0..words).map(w).collect(),
            },
            11 => Msg::Unit {
                ids: (0..words).map(w).collect(),
            },
            _ => Msg::Quit,
        })
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Sends `msg` to `rank`.
pub fn send(world: &SimpleCommunicator, rank: Rank, msg: &Msg) {
    world.process_at_rank(rank).send(&msg.encode()[..]);
}

/// Receives the next message from rank `from`, returning the sender.
///
/// # Errors
/// One line naming the sender: a message longer than [`MAX_BYTES`] (left unreceived, so
/// nothing of its size is allocated) or one [`Msg::decode`] refuses.
pub fn receive(world: &SimpleCommunicator, from: Rank) -> Result<(Rank, Msg), String> {
    let (message, status) = world.process_at_rank(from).matched_probe();
    read(message, status)
}

/// [`receive`] from any rank, for rank 0, which only schedules: it asks whether a message
/// has come and, until one has, sleeps for a sixteenth of the time it has waited so far,
/// from 10 µs to 1 ms. A blocking probe spins: with OpenMPI's defaults rank 0 took 95% of
/// a core while it waited (`count 19 --mpi`, 2026-12-06), a core its node's computing rank
/// could use. A message waits at most one nap: a sixteenth of the time since the message
/// before, and 1 ms at most (plus the kernel's timer slack, about 50 µs). Worked numbers: a
/// lone slot whose runs take 100 ms waits about 1 ms a run (1%); runs of 1 ms (n = 19)
/// wait about 60 µs and the slack.
///
/// # Errors
/// As [`receive`].
pub fn receive_idle(world: &SimpleCommunicator) -> Result<(Rank, Msg), String> {
    let start = Instant::now();
    let (message, status) = loop {
        if let Some(found) = world.any_process().immediate_matched_probe() {
            break found;
        }
        let nap = start.elapsed() / 16;
        std::thread::sleep(nap.clamp(Duration::from_micros(10), Duration::from_millis(1)));
    };
    read(message, status)
}

/// Receives the message `message` that a probe matched, bounded and decoded (see
/// [`receive`]).
fn read(message: Message, status: Status) -> Result<(Rank, Msg), String> {
    let rank = status.source_rank();
    let count = status.count(u8::equivalent_datatype());
    if usize::try_from(count).map_or(true, |c| c > MAX_BYTES) {
        // Not received, so nothing of its size is allocated. The caller ends the job (see
        // `MpiError::Protocol`); dropping a matched message unreceived would panic in the
        // mpi crate, so its handle is forgotten instead.
        std::mem::forget(message);
        return Err(format!(
            "rank {rank} sent a message of {count} bytes (an nqueens message has at most {MAX_BYTES})"
        ));
    }
    let (bytes, _) = (message, status).matched_receive_vec::<u8>();
    Msg::decode(&bytes)
        .map(|m| (rank, m))
        .map_err(|e| format!("rank {rank} sent {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<Msg> {
        vec![
            Msg::Hello { protocol: PROTOCOL },
            Msg::Offer(Offer {
                protocol: PROTOCOL,
                n: 14,
                plan_version: 4,
                plan_id: 0x0123_4567_89ab_cdef,
                units: 1234,
                program: "0.1.0".into(),
            }),
            Msg::Cancel {
                reason: "rank 0 could not start: café".into(),
            },
            Msg::Accept {
                threads: 2,
                table_bytes: 200_000,
            },
            Msg::Refuse {
                reason: "given n = 15".into(),
            },
            Msg::Go,
            Msg::End,
            Msg::Ready,
            Msg::Done {
                results: vec![Finished {
                    id: 7,
                    solutions: u64::MAX,
                    nodes: 3,
                }],
            },
            Msg::Done {
                results: (0..MAX_UNITS as u64)
                    .map(|i| Finished {
                        id: i,
                        solutions: 3 * i,
                        nodes: u64::MAX - i,
                    })
                    .collect(),
            },
            Msg::Abandoned { ids: vec![9] },
            Msg::Abandoned { ids: vec![9, 2, 4] },
            Msg::Unit { ids: vec![0] },
            Msg::Unit {
                ids: (0..MAX_UNITS as u64).collect(),
            },
            Msg::Quit,
        ]
    }

    #[test]
    fn unit_lists_hold_one_to_max_units() {
        for kind in [9u64, 10, 11] {
            let per = if kind == 9 { 3 } else { 1 };
            let message = |words: usize| -> Vec<u8> {
                std::iter::once(MAGIC | kind)
                    .chain((0..words as u64).map(|w| w + 1))
                    .flat_map(|w| w.to_le_bytes())
                    .collect()
            };
            assert!(Msg::decode(&message(per)).is_ok(), "kind {kind}, one unit");
            assert!(
                Msg::decode(&message(per * MAX_UNITS)).is_ok(),
                "kind {kind}, most"
            );
            for words in [0, per * (MAX_UNITS + 1)] {
                let e = Msg::decode(&message(words)).unwrap_err();
                assert!(e.contains("units)"), "kind {kind}, {words} words: {e}");
            }
            if per == 3 {
                // A result cut short.
                assert!(Msg::decode(&message(4)).is_err());
            }
        }
    }

    #[test]
    fn every_kind_reads_back() {
        for m in every_kind() {
            assert_eq!(Msg::decode(&m.encode()), Ok(m.clone()), "{}", m.name());
        }
    }

    #[test]
    fn every_cut_and_extension_of_a_message_is_refused_without_a_panic() {
        for m in every_kind() {
            let bytes = m.encode();
            let carries_text = matches!(m, Msg::Offer(_) | Msg::Cancel { .. } | Msg::Refuse { .. });
            // Bytes a list message holds a unit, where it is one.
            let per_unit = match m {
                Msg::Done { .. } => Some(24),
                Msg::Abandoned { .. } | Msg::Unit { .. } => Some(8),
                _ => None,
            };
            for len in 0..bytes.len() {
                let cut = Msg::decode(&bytes[..len]);
                // A text may be cut to a shorter text, and a list of units to a shorter list
                // of whole units; the fixed words may not be cut.
                let shorter_list = per_unit.is_some_and(|per| len > 8 && (len - 8) % per == 0);
                let shorter_text = carries_text && len >= bytes.len() - text_len(&m);
                if !(shorter_text || shorter_list) {
                    assert!(cut.is_err(), "{} cut to {len} bytes: {cut:?}", m.name());
                }
            }
            let mut longer = bytes.clone();
            longer.push(b'x');
            assert_eq!(Msg::decode(&longer).is_err(), !carries_text, "{}", m.name());
            // A flip of any bit of the magic half of the header is refused.
            for bit in 32..64 {
                let mut flipped = bytes.clone();
                flipped[bit / 8] ^= 1 << (bit % 8);
                assert!(Msg::decode(&flipped).is_err(), "bit {bit} of {}", m.name());
            }
        }
    }

    fn text_len(m: &Msg) -> usize {
        match m {
            Msg::Offer(o) => o.program.len(),
            Msg::Cancel { reason } | Msg::Refuse { reason } => reason.len(),
            _ => 0,
        }
    }

    #[test]
    fn foreign_messages_are_named_as_foreign() {
        // The four u64 an nqueens before this protocol sent first: ready, 0 more slots.
        let old: Vec<u8> = [0u64, 0, 0, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let e = Msg::decode(&old).unwrap_err();
        assert!(e.contains("not an nqueens MPI message"), "{e}");
        assert!(Msg::decode(&[]).unwrap_err().contains("0 bytes"));
        let huge = vec![0u8; MAX_BYTES + 1];
        assert!(Msg::decode(&huge).unwrap_err().contains("1025 bytes"));
        let unknown = (MAGIC | 99).to_le_bytes();
        assert!(Msg::decode(&unknown)
            .unwrap_err()
            .contains("unknown kind 99"));
        let mut bad_text = Msg::Refuse { reason: "x".into() }.encode();
        *bad_text.last_mut().unwrap() = 0xff;
        assert!(Msg::decode(&bad_text).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let reason = "é".repeat(MAX_TEXT);
        let m = Msg::Refuse { reason };
        let Ok(Msg::Refuse { reason }) = Msg::decode(&m.encode()) else {
            panic!("a long refusal reads back");
        };
        assert_eq!(reason.len(), MAX_TEXT);
    }
}
