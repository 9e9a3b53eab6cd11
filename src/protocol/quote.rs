//! Manager input quoted back in replies. Whatever arrived, a reply stays one clean line of
//! printable ASCII: control and non-ASCII characters are escaped, and long input is cut to
//! a prefix followed by its length.

use std::fmt::Write;

/// Input longer than this many characters is quoted as a prefix of this length.
const QUOTE_MAX_CHARS: usize = 60;

/// `text` in single quotes, escaped as [`escape`] does, and cut after `QUOTE_MAX_CHARS`
/// characters with the whole length added: `'XXXX...' (100000 characters)`.
pub fn quote(text: &str) -> String {
    let total = text.chars().count();
    if total <= QUOTE_MAX_CHARS {
        return format!("'{}'", escape(text));
    }
    let end = text
        .char_indices()
        .nth(QUOTE_MAX_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!("'{}...' ({total} characters)", escape(&text[..end]))
}

/// Printable ASCII (blank included) as it is; `\r`, `\n`, `\t`, `\0` and other control
/// characters as `\xHH`, anything beyond ASCII as `\u{HHHH}` (invalid UTF-8 input arrives
/// as U+FFFD). Backslashes are kept as they are, so Windows paths read naturally.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ' '..='~' => out.push(c),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    out
}

/// True when `text` can be printed as it is.
pub fn is_clean(text: &str) -> bool {
    text.bytes().all(|b| (b' '..=b'~').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_would_break_a_line() {
        let cases = [
            ("HELLO", "'HELLO'"),
            ("HELLO\rWORLD", "'HELLO\\rWORLD'"),
            (
                "a\u{7}b\u{8}c\0d\ne\tf\u{1b}",
                "'a\\x07b\\x08c\\0d\\ne\\tf\\x1b'",
            ),
            ("\u{fffd}garbage\u{7f}", "'\\u{fffd}garbage\\x7f'"),
            ("C:\\My AI's", "'C:\\My AI's'"),
        ];
        for (input, want) in cases {
            let got = quote(input);
            assert_eq!(got, want, "{input:?}");
            assert!(is_clean(&got), "{got:?}");
        }
    }

    #[test]
    fn long_input_is_cut_with_its_length() {
        let long = "X".repeat(100_000);
        let q = quote(&long);
        assert_eq!(q, format!("'{}...' (100000 characters)", "X".repeat(60)));
        // A cut never splits a multi-byte character.
        let wide = "\u{e9}".repeat(70);
        assert_eq!(
            quote(&wide),
            format!("'{}...' (70 characters)", "\\u{e9}".repeat(60))
        );
        assert_eq!(quote(&"Y".repeat(60)), format!("'{}'", "Y".repeat(60)));
    }
}
