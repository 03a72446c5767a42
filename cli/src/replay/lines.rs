//! Lines of a session file, read one at a time with a cap on their length, so
//! that a session is streamed and one huge line costs a skip, not the memory.

use std::io::{self, BufRead};

/// The longest line `hooks replay` reads (16 MiB): a tool result holding a big
/// file or an image fits; a longer line is skipped and counted.
pub(crate) const MAX_LINE: usize = 16 << 20;

/// A buffer grown past this by one long line is given back after it.
const KEEP: usize = 1 << 20;

/// One line, or why it was not kept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// The line without its line break (and without a `\r` before it).
    Text(&'a [u8]),
    /// A line longer than the cap: its length, read past without being kept.
    TooLong(u64),
}

/// Reads lines of at most `cap` bytes from `inner`.
#[derive(Debug)]
pub(crate) struct Lines<R> {
    inner: R,
    buf: Vec<u8>,
    cap: usize,
    /// The number of the last line read (the first is 1).
    number: u64,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(inner: R, cap: usize) -> Self {
        Lines {
            inner,
            buf: Vec::new(),
            cap,
            number: 0,
        }
    }

    /// The number of the line [`next_line`](Self::next_line) gave last,
    /// counted from 1; 0 before the first.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The next line; `None` at the end. A last line without a line break is
    /// a line.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.buf.capacity() > KEEP {
            self.buf = Vec::new();
        }
        self.buf.clear();
        let mut length: u64 = 0;
        let mut too_long = false;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            length += part.len() as u64;
            if !too_long {
                if self.buf.len() + part.len() > self.cap {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(part);
                }
            }
            self.inner.consume(used);
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.number += 1;
        if too_long {
            return Ok(Some(Line::TooLong(length)));
        }
        let text = self.buf.strip_suffix(b"\r").unwrap_or(&self.buf);
        Ok(Some(Line::Text(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize) -> Vec<Result<String, u64>> {
        let mut lines = Lines::new(io::BufReader::with_capacity(4, input), cap);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push(match line {
                Line::Text(t) => Ok(String::from_utf8(t.to_vec()).unwrap()),
                Line::TooLong(n) => Err(n),
            });
        }
        out
    }

    #[test]
    fn splits_on_line_breaks_across_buffer_ends() {
        assert_eq!(
            all(b"ab\r\ncdefgh\n\nlast", 100),
            [
                Ok("ab".into()),
                Ok("cdefgh".into()),
                Ok("".into()),
                Ok("last".into())
            ]
        );
        assert!(all(b"", 100).is_empty());
    }

    #[test]
    fn a_line_over_the_cap_is_measured_not_kept_and_the_next_one_reads() {
        assert_eq!(
            all(b"0123456789\nok\n0123456789", 5),
            [Err(10), Ok("ok".into()), Err(10)]
        );
    }
}
