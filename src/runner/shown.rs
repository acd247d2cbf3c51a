//! Paths and values as they appear in messages. Every message of the program is one line on
//! a terminal, and a file name may hold anything but `/` and NUL: a newline (which would cut
//! the message, and a script reading its first line would miss the rest), an escape
//! sequence (`\e[2J` clears the screen) or 10,000 characters. So a path or a value given by
//! the user goes through [`path`] or [`value`] before it is written:
//!
//! - control characters (C0, DEL and C1: newline, tab, ESC, ...) are written as Rust escapes
//!   (`\n`, `\t`, `\u{1b}`), so the text shows what the name holds and cannot act on the
//!   terminal; bytes that are not UTF-8 show as U+FFFD;
//! - past [`MAX_SHOWN`] characters the middle is cut, keeping the start and the end (a file
//!   name is at the end of its path), and the full length is said.

use std::path::Path;

/// The most characters shown of a path or value (a longer one keeps its start and end).
pub const MAX_SHOWN: usize = 100;

/// `p` as it may appear in a message (see the module doc).
pub fn path(p: &Path) -> String {
    value(&p.to_string_lossy())
}

/// `s` as it may appear in a message (see the module doc).
pub fn value(s: &str) -> String {
    let count = s.chars().count();
    if count <= MAX_SHOWN {
        return escaped(s.chars());
    }
    let (head, tail) = (MAX_SHOWN * 3 / 5, MAX_SHOWN * 2 / 5);
    format!(
        "{}...{} ({count} characters)",
        escaped(s.chars().take(head)),
        escaped(s.chars().skip(count - tail))
    )
}

/// `s`, already bounded in length (a line another rank sent), with its control characters
/// escaped as [`value`] escapes them, but not cut.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub fn text(s: &str) -> String {
    escaped(s.chars())
}

/// Whether `s` would be shown differently from itself (a control character, or too long).
pub fn needs_care(s: &str) -> bool {
    s.chars().any(char::is_control) || s.chars().count() > MAX_SHOWN
}

fn escaped(chars: impl Iterator<Item = char>) -> String {
    chars
        .flat_map(|c| {
            let e: Box<dyn Iterator<Item = char>> = if c.is_control() {
                Box::new(c.escape_debug())
            } else {
                Box::new(std::iter::once(c))
            };
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_shown_as_they_are() {
        for s in [
            "s.json",
            "dir with space/ü.json",
            "quote's \"x\"",
            "back\\slash",
        ] {
            assert_eq!(value(s), s);
            assert!(!needs_care(s));
        }
    }

    #[test]
    fn shown_text_has_no_control_character_and_a_bounded_length() {
        let nasty = format!(
            "{}\n\t\u{1b}[2J\u{7f}\u{9b}{}",
            "x".repeat(300),
            "y".repeat(300)
        );
        let s = value(&nasty);
        assert!(!s.chars().any(char::is_control), "{s:?}");
        assert!(s.chars().count() < MAX_SHOWN + 30, "{s}");
        assert!(
            s.starts_with("xxx") && s.contains("yyy (608 characters)"),
            "{s}"
        );
        assert_eq!(value("a\u{1b}b\u{9b}c"), "a\\u{1b}b\\u{9b}c");
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn shown_example() {
        use crate::runner::shown;
        use std::path::Path;
        assert_eq!(shown::path(Path::new("no\nsuch.json")), "no\\nsuch.json");
        assert_eq!(shown::value("\u{1b}[31mRED"), "\\u{1b}[31mRED");
        let long = "a".repeat(10_000);
        let s = shown::value(&long);
        assert!(s.len() < 140 && s.ends_with("(10000 characters)"), "{s}");
    }
}
