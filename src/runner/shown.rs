//! Paths and values as they appear in messages. Every message of the program is one line on
//! a terminal, and a file name may hold anything but `/` and NUL: a newline (which would cut
//! the message, and a script reading its first line would miss the rest), an escape
//! sequence (`\e[2J` clears the screen) or 10,000 characters. So a path or a value given by
//! the user goes through [`path`] or [`value`] before it is written:
//!
//! - control characters (C0, DEL and C1: newline, tab, ESC, ...) are written as Rust escapes
//!   (`\n`, `\t`, `\u{1b}`), so the text shows what the name holds and cannot act on the
//!   terminal; bytes that are not UTF-8 show as U+FFFD;
//! - so are the invisible characters that change how the rest of a line is shown: the
//!   bidirectional controls (U+202E, the right-to-left override, makes `gpj.exe` of
//!   `exe.jpg`), zero-width characters and the line and paragraph separators
//!   ([`is_hidden`]);
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

/// Whether `s` would be shown differently from itself (a control or hidden character, or
/// too long).
pub fn needs_care(s: &str) -> bool {
    s.chars().any(escapes) || s.chars().count() > MAX_SHOWN
}

/// An invisible format character that changes how the text around it is shown: the
/// bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E-U+200F,
/// U+202A-U+202E, U+2066-U+2069), zero-width characters (U+200B-U+200D, U+2060-U+2064,
/// U+FEFF), the line and paragraph separators (U+2028, U+2029), the deprecated format
/// characters U+206A-U+206F and the interlinear annotations (U+FFF9-U+FFFB).
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// Whether `c` is written as an escape.
fn escapes(c: char) -> bool {
    c.is_control() || is_hidden(c)
}

fn escaped(chars: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    for c in chars {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else if is_hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
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

    #[test]
    fn bidirectional_and_invisible_characters_are_escaped() {
        // Issue 30, 10: U+202E was echoed raw, and the terminal turned the rest around.
        assert_eq!(value("x\u{202e}gpj.exe"), "x\\u{202e}gpj.exe");
        for c in [
            '\u{200b}', '\u{200f}', '\u{2028}', '\u{2066}', '\u{feff}', '\u{61c}',
        ] {
            let s = format!("a{c}b");
            assert!(needs_care(&s), "{c:?}");
            assert_eq!(value(&s), format!("a\\u{{{:x}}}b", c as u32));
        }
        // Letters of any script, and combining marks, are shown as they are.
        for s in ["\u{5e9}\u{5dc}\u{5d5}\u{5dd}", "e\u{301}", "\u{1f600}"] {
            assert_eq!(value(s), s);
            assert!(!needs_care(s));
        }
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
