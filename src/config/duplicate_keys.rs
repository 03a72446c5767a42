//! Keys written twice in one JSON object. serde_json keeps the last of them
//! without a word, so `"failClosed": true, "failClosed": false` reads as
//! `false`, and a second `"hooks"` hides the first: the loaders warn.

use super::error::ConfigWarningKind;

/// Where a key stands in the text: line and column, from 1.
type Position = (usize, usize);

/// One warning for each key that appears again in the same object of the
/// JSON `text` (which serde_json has already accepted). Keys are compared
/// after their escapes are decoded, as serde_json compares them.
pub(crate) fn duplicate_keys(text: &str) -> Vec<ConfigWarningKind> {
    let mut scanner = Scanner {
        chars: text.chars().peekable(),
        line: 1,
        column: 1,
    };
    let mut warnings = Vec::new();
    scanner.value("", &mut warnings);
    warnings
}

struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Scanner<'_> {
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_space(&mut self) {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.bump();
        }
    }

    /// Reads one value at `path`; returns `None` where the text is not what
    /// valid JSON would hold (then the scan just stops).
    fn value(&mut self, path: &str, warnings: &mut Vec<ConfigWarningKind>) -> Option<()> {
        self.skip_space();
        match *self.chars.peek()? {
            '{' => self.object(path, warnings),
            '[' => self.array(path, warnings),
            '"' => self.string().map(drop),
            _ => {
                while self
                    .chars
                    .peek()
                    .is_some_and(|c| !matches!(c, ',' | '}' | ']') && !c.is_whitespace())
                {
                    self.bump();
                }
                Some(())
            }
        }
    }

    fn object(&mut self, path: &str, warnings: &mut Vec<ConfigWarningKind>) -> Option<()> {
        self.bump(); // {
        let mut seen: Vec<(String, Position)> = Vec::new();
        loop {
            self.skip_space();
            match self.chars.peek()? {
                '}' => {
                    self.bump();
                    return Some(());
                }
                ',' => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let at = (self.line, self.column);
            let key = self.string()?;
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                warnings.push(ConfigWarningKind::DuplicateKey {
                    at: if path.is_empty() {
                        "the top level".to_owned()
                    } else {
                        path.to_owned()
                    },
                    key: key.clone(),
                    first: *first,
                    second: at,
                });
            } else {
                seen.push((key.clone(), at));
            }
            self.skip_space();
            if self.bump()? != ':' {
                return None;
            }
            let inner = if path.is_empty() {
                key
            } else {
                format!("{path}.{key}")
            };
            self.value(&inner, warnings)?;
        }
    }

    fn array(&mut self, path: &str, warnings: &mut Vec<ConfigWarningKind>) -> Option<()> {
        self.bump(); // [
        let mut index = 0;
        loop {
            self.skip_space();
            match self.chars.peek()? {
                ']' => {
                    self.bump();
                    return Some(());
                }
                ',' => {
                    self.bump();
                    index += 1;
                    continue;
                }
                _ => {}
            }
            self.value(&format!("{path}[{index}]"), warnings)?;
        }
    }

    /// A string, escapes decoded.
    fn string(&mut self) -> Option<String> {
        if self.bump()? != '"' {
            return None;
        }
        let mut out = String::new();
        loop {
            match self.bump()? {
                '"' => return Some(out),
                '\\' => match self.bump()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => {
                        let high = self.hex4()?;
                        let code = if (0xD800..0xDC00).contains(&high) {
                            // A surrogate pair: `\uD83D\uDE00`.
                            if self.bump()? != '\\' || self.bump()? != 'u' {
                                return None;
                            }
                            let low = self.hex4()?;
                            0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?)
                        } else {
                            high
                        };
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    other => out.push(other),
                },
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut value = 0;
        for _ in 0..4 {
            value = value * 16 + self.bump()?.to_digit(16)?;
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, String, Position, Position)> {
        duplicate_keys(text)
            .into_iter()
            .map(|w| match w {
                ConfigWarningKind::DuplicateKey {
                    at,
                    key,
                    first,
                    second,
                } => (at, key, first, second),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_key_written_twice_in_one_object_is_found_with_both_positions() {
        let text = "{\"hooks\": {},\n \"hooks\": {\"Stop\": [{\"failClosed\": true, \"failClosed\": false}]}}";
        assert_eq!(
            found(text),
            [
                ("the top level".into(), "hooks".into(), (1, 2), (2, 2)),
                (
                    "hooks.Stop[0]".into(),
                    "failClosed".into(),
                    (2, 22),
                    (2, 42)
                ),
            ]
        );
    }

    #[test]
    fn the_same_key_in_other_objects_or_spelled_with_escapes() {
        assert!(found(r#"{"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]}"#).is_empty());
        assert!(
            found(r#"{"a": "{\"a\": 1, \"a\": 2}"}"#).is_empty(),
            "inside a string"
        );
        let escaped = found(r#"{"ab": 1, "a\u0062": 2, "😀": 1, "\ud83d\ude00": 2}"#);
        let keys: Vec<&str> = escaped.iter().map(|(_, k, _, _)| k.as_str()).collect();
        assert_eq!(keys, ["ab", "😀"]);
    }
}
