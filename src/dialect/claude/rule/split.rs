//! Reading a shell command line for an `if` rule: its simple commands, the
//! ones inside substitutions, subshells, groups and here-documents included,
//! each as words the way the shell reads them; or `Unreadable`, when the
//! line holds what this reader cannot follow (then the rule matches).

use crate::process::substitute::is_var_name;

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// As written, quotes kept.
    pub(super) text: String,
    /// As the shell reads it: quotes and backslashes removed (`'rm'`, `\rm`,
    /// `r""m` are `rm`); an expansion stays as written.
    pub(super) value: String,
    /// Holds an expansion outside single quotes: `$x`, `${x}`, `$(…)`,
    /// backquotes, `<(…)`, or a `$'…'` / `$"…"` that shells read differently.
    pub(super) dynamic: bool,
    /// Holds an unquoted glob or brace character (`*`, `?`, `[`, `{`):
    /// `{rm,-rf,x}` is `rm -rf x`.
    pub(super) glob: bool,
}

/// One simple command: its words, as written, redirections left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Simple {
    pub(super) words: Vec<Word>,
}

/// Shell words that start a command without being it.
const KEYWORDS: [&str; 15] = [
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "case",
    "esac", "in",
];

impl Simple {
    /// The words from the program on: leading `VAR=value` assignments and shell
    /// keywords dropped. `None` when nothing is left.
    pub(super) fn meaningful_words(&self) -> Option<&[Word]> {
        let start = self
            .words
            .iter()
            .position(|w| !is_assignment(&w.text) && !KEYWORDS.contains(&w.text.as_str()))?;
        Some(&self.words[start..])
    }
}

/// `NAME=…` with a shell name before the `=`.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    is_var_name(name)
}

/// A command line this reader cannot follow, so the rule matches: an unclosed
/// quote, `$(`, `${` or backquote, a `)` without its `(`, a trailing
/// backslash, nesting too deep, a parameter expansion with an operator or a
/// word it does not read (`${x:-$(…)}`, `${x:-{}`, `${!x}`), arithmetic on
/// anything but numbers (`$((x))` evaluates `x`, and `x` may hold
/// `a[$(…)]`), or a here-document without its end line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unreadable;

/// How deep `$(…)`, `(…)` and backquotes may nest before the line counts as
/// unreadable.
const MAX_DEPTH: usize = 32;

/// Splits a command line into its simple commands, the ones inside
/// substitutions, subshells and here-documents included (after the command
/// that holds them).
pub(super) fn split_command(command: &str) -> Result<Vec<Simple>, Unreadable> {
    let chars: Vec<char> = command.chars().collect();
    split_chars(&chars, 0)
}

fn split_chars(chars: &[char], depth: usize) -> Result<Vec<Simple>, Unreadable> {
    let mut splitter = Splitter::new(chars, 0);
    splitter.list(End::Eof, depth)?;
    if !splitter.heredocs.is_empty() {
        return Err(Unreadable);
    }
    Ok(splitter.out)
}

/// The commands that the expansions of a here-document's text run (`$(…)`,
/// backquotes; `$'` and quotes are plain text there).
fn expansions(body: &[char], depth: usize) -> Result<Vec<Simple>, Unreadable> {
    let mut scan = Splitter::new(body, 0);
    let mut cur = Current::default();
    let mut inner = Vec::new();
    while let Some(c) = scan.peek(0) {
        scan.i += 1;
        match c {
            '\\' => scan.i += 1,
            '$' if matches!(scan.peek(0), Some('\'' | '"')) => {}
            '$' => scan.dollar(&mut cur, &mut inner, depth)?,
            '`' => scan.backquoted(&mut cur, &mut inner, depth, false)?,
            _ => {}
        }
    }
    Ok(inner)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
}

/// A here-document whose text starts after the next new line.
struct HereDoc {
    delimiter: String,
    /// `<<-`: leading tabs are dropped from each line.
    strip_tabs: bool,
    /// An unquoted delimiter: the text is expanded.
    expands: bool,
}

struct Splitter<'a> {
    chars: &'a [char],
    i: usize,
    out: Vec<Simple>,
    heredocs: Vec<HereDoc>,
}

/// The simple command being read, and its word.
#[derive(Default)]
struct Current {
    simple: Simple,
    word: String,
    value: String,
    dynamic: bool,
    glob: bool,
    in_word: bool,
    /// The next word is a redirection's target, not a word of the command.
    redirect_target: bool,
}

impl Current {
    fn end_word(&mut self) {
        if self.in_word {
            let text = std::mem::take(&mut self.word);
            let value = std::mem::take(&mut self.value);
            if std::mem::take(&mut self.redirect_target) {
                // `> file`: the target is no word of the command (its
                // substitutions were taken out already).
            } else {
                // A lone `[` or `[[` is no glob.
                let glob = self.glob && !matches!(text.as_str(), "[" | "[[");
                self.simple.words.push(Word {
                    text,
                    value,
                    dynamic: self.dynamic,
                    glob,
                });
            }
        }
        self.in_word = false;
        self.dynamic = false;
        self.glob = false;
    }

    /// Drops the word being read (the `2` of `2>file`).
    fn drop_word(&mut self) {
        self.word.clear();
        self.value.clear();
        self.in_word = false;
        self.dynamic = false;
        self.glob = false;
    }

    fn end_command(&mut self, out: &mut Vec<Simple>) {
        self.end_word();
        self.redirect_target = false;
        let simple = std::mem::take(&mut self.simple);
        if !simple.words.is_empty() {
            out.push(simple);
        }
    }

    /// Adds `c` to the word as written.
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.in_word = true;
    }

    /// Adds `c` to the word as the shell reads it.
    fn lit(&mut self, c: char) {
        self.value.push(c);
    }

    /// Adds an unquoted `c`, written and read alike.
    fn unquoted(&mut self, c: char) {
        self.push(c);
        self.lit(c);
        self.glob |= matches!(c, '*' | '?' | '[' | '{');
    }
}

impl<'a> Splitter<'a> {
    fn new(chars: &'a [char], i: usize) -> Self {
        Splitter {
            chars,
            i,
            out: Vec::new(),
            heredocs: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    /// Reads simple commands until `end`, pushing each to `out`.
    fn list(&mut self, end: End, depth: usize) -> Result<(), Unreadable> {
        if depth > MAX_DEPTH {
            return Err(Unreadable);
        }
        let mut cur = Current::default();
        // Commands found inside this command's substitutions, pushed after it.
        let mut inner: Vec<Simple> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                if end != End::Eof {
                    return Err(Unreadable);
                }
                cur.end_command(&mut self.out);
                self.out.append(&mut inner);
                return Ok(());
            };
            self.i += 1;
            match c {
                ' ' | '\t' | '\r' => cur.end_word(),
                '\n' => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    self.here_documents(depth)?;
                }
                ';' => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                '#' if !cur.in_word => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\\' => match self.peek(0) {
                    None => return Err(Unreadable),
                    Some('\n') => self.i += 1,
                    Some(next) => {
                        cur.push('\\');
                        cur.push(next);
                        cur.lit(next);
                        self.i += 1;
                    }
                },
                '\'' => self.single_quoted(&mut cur)?,
                '"' => {
                    cur.push('"');
                    self.double_quoted(&mut cur, &mut inner, depth)?;
                }
                '`' => self.backquoted(&mut cur, &mut inner, depth, false)?,
                '$' => self.dollar(&mut cur, &mut inner, depth)?,
                // Process substitution: a word whose commands run.
                '<' | '>' if self.peek(0) == Some('(') => {
                    self.process_substitution(&mut cur, &mut inner, depth)?;
                }
                '<' | '>' => self.redirection(c, &mut cur)?,
                '&' if self.peek(0) == Some('>') => {
                    cur.end_word();
                    self.i += 1;
                    if self.peek(0) == Some('>') {
                        self.i += 1;
                    }
                    cur.redirect_target = true;
                }
                '&' | '|' => {
                    if self.peek(0) == Some(c) || (c == '|' && self.peek(0) == Some('&')) {
                        self.i += 1;
                    }
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                }
                // `(( … ))`: arithmetic, read like `$(( … ))`.
                '(' if !cur.in_word && self.peek(0) == Some('(') => {
                    self.i += 1;
                    self.arithmetic()?;
                }
                '(' if !cur.in_word => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    self.list(End::Paren, depth + 1)?;
                }
                ')' if end == End::Paren => {
                    cur.end_command(&mut self.out);
                    self.out.append(&mut inner);
                    return Ok(());
                }
                ')' => return Err(Unreadable),
                c => cur.unquoted(c),
            }
        }
    }

    /// After an opening `'`: it and the text up to and including the
    /// closing one, each character between taken as written.
    fn single_quoted(&mut self, cur: &mut Current) -> Result<(), Unreadable> {
        cur.push('\'');
        loop {
            let Some(q) = self.peek(0) else {
                return Err(Unreadable);
            };
            self.i += 1;
            cur.push(q);
            if q == '\'' {
                return Ok(());
            }
            cur.lit(q);
        }
    }

    /// After the `<` or `>` of `<(` or `>(`: the commands inside go to
    /// `inner`, and the whole is one word whose value is not known.
    fn process_substitution(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unreadable> {
        cur.end_word();
        let start = self.i - 1;
        self.i += 1;
        self.nested_list(inner, depth)?;
        cur.word.extend(&self.chars[start..self.i]);
        cur.value.extend(&self.chars[start..self.i]);
        cur.dynamic = true;
        cur.in_word = true;
        Ok(())
    }

    /// After a `<` or `>` that is no process substitution: the operator, and
    /// what follows it (a target word, or a here-document's delimiter). A
    /// file descriptor written right before (`2>`, `{fd}>`) is no word.
    fn redirection(&mut self, c: char, cur: &mut Current) -> Result<(), Unreadable> {
        let fd = cur.in_word
            && !cur.dynamic
            && ((!cur.word.is_empty() && cur.word.chars().all(|c| c.is_ascii_digit()))
                || cur
                    .word
                    .strip_prefix('{')
                    .and_then(|w| w.strip_suffix('}'))
                    .is_some_and(is_var_name));
        if fd {
            cur.drop_word();
        } else {
            cur.end_word();
        }
        match (c, self.peek(0), self.peek(1)) {
            ('<', Some('<'), Some('<')) => self.i += 2,
            ('<', Some('<'), Some('-')) => {
                self.i += 2;
                return self.here_document(true);
            }
            ('<', Some('<'), _) => {
                self.i += 1;
                return self.here_document(false);
            }
            ('<', Some('>' | '&'), _) | ('>', Some('>' | '|' | '&'), _) => self.i += 1,
            _ => {}
        }
        cur.redirect_target = true;
        Ok(())
    }

    /// After `<<` or `<<-`: the delimiter word. The text comes after the
    /// next new line.
    fn here_document(&mut self, strip_tabs: bool) -> Result<(), Unreadable> {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        let mut delimiter = String::new();
        let mut quoted = false;
        while let Some(c) = self.peek(0) {
            if matches!(
                c,
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
            ) {
                break;
            }
            self.i += 1;
            match c {
                '\'' | '"' => {
                    quoted = true;
                    loop {
                        let q = self.peek(0).ok_or(Unreadable)?;
                        self.i += 1;
                        if q == c {
                            break;
                        }
                        delimiter.push(q);
                    }
                }
                '\\' => {
                    quoted = true;
                    delimiter.push(self.peek(0).ok_or(Unreadable)?);
                    self.i += 1;
                }
                '$' | '`' => return Err(Unreadable),
                c => delimiter.push(c),
            }
        }
        if delimiter.is_empty() {
            return Err(Unreadable);
        }
        self.heredocs.push(HereDoc {
            delimiter,
            strip_tabs,
            expands: !quoted,
        });
        Ok(())
    }

    /// After a new line: the text of each pending here-document, up to its
    /// delimiter line. The commands its expansions run are taken out; its
    /// text is also read as commands when it can be (`bash <<EOF` runs it),
    /// else left as data.
    fn here_documents(&mut self, depth: usize) -> Result<(), Unreadable> {
        for doc in std::mem::take(&mut self.heredocs) {
            let mut body: Vec<char> = Vec::new();
            // In an expanded text, `\` at the end of a line joins the next
            // one, which is then no delimiter line.
            let mut continued = false;
            loop {
                if self.i >= self.chars.len() {
                    return Err(Unreadable);
                }
                let end = self.chars[self.i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.chars.len(), |p| self.i + p);
                let mut line = &self.chars[self.i..end];
                self.i = (end + 1).min(self.chars.len());
                if doc.strip_tabs {
                    while let ['\t', rest @ ..] = line {
                        line = rest;
                    }
                }
                if !continued && line.iter().copied().eq(doc.delimiter.chars()) {
                    break;
                }
                let backslashes = line.iter().rev().take_while(|&&c| c == '\\').count();
                continued = doc.expands && backslashes % 2 == 1;
                body.extend_from_slice(line);
                body.push('\n');
            }
            if doc.expands {
                self.out.append(&mut expansions(&body, depth + 1)?);
            }
            if let Ok(mut commands) = split_chars(&body, depth + 1) {
                self.out.append(&mut commands);
            }
        }
        Ok(())
    }

    /// After `$(` or `<(`: the commands up to the closing `)`, read by a
    /// splitter of their own and added to `inner`.
    fn nested_list(&mut self, inner: &mut Vec<Simple>, depth: usize) -> Result<(), Unreadable> {
        let start = self.i;
        let mut nested = Splitter::new(self.chars, self.i);
        nested.list(End::Paren, depth + 1)?;
        // A here-document must start and end on the same side of the `)`.
        if !nested.heredocs.is_empty()
            || (!self.heredocs.is_empty() && self.chars[start..nested.i].contains(&'\n'))
        {
            return Err(Unreadable);
        }
        self.i = nested.i;
        inner.append(&mut nested.out);
        Ok(())
    }

    /// After `((` or `$((`: up to the closing `))`. Only numbers and
    /// operators are read: a name is evaluated, and its value may hold
    /// `a[$(…)]`, which runs.
    fn arithmetic(&mut self) -> Result<(), Unreadable> {
        let mut open = 0usize;
        loop {
            let c = self.peek(0).ok_or(Unreadable)?;
            self.i += 1;
            match c {
                '(' => open += 1,
                ')' if open > 0 => open -= 1,
                ')' if self.peek(0) == Some(')') => {
                    self.i += 1;
                    return Ok(());
                }
                c if c.is_ascii_digit() || " \t\n+-*/%<>=!&|^~?:,".contains(c) => {}
                _ => return Err(Unreadable),
            }
        }
    }

    /// After `${`: a parameter expansion, read only when it is one of the
    /// plain forms (`${x}`, `${#x}`, `${x[0]}`, `${x:-word}`, `${x%.rs}`,
    /// `${x:1:2}`, …) with a word of plain characters. Anything else
    /// (`${!x}`, `${x:-$(…)}`, `${x:-{}`, quotes, `${x@P}`) is unreadable.
    fn parameter(&mut self) -> Result<(), Unreadable> {
        if self.peek(0) == Some('#') && self.peek(1) != Some('}') {
            self.i += 1;
        }
        match self.peek(0) {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.i += 1;
                }
            }
            Some(c) if c.is_ascii_digit() => {
                while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
            }
            Some('@' | '*' | '#' | '?' | '-' | '$') => self.i += 1,
            _ => return Err(Unreadable),
        }
        if self.peek(0) == Some('[') {
            self.i += 1;
            match self.peek(0) {
                Some('@' | '*') => self.i += 1,
                Some(c) if c.is_ascii_digit() => {
                    while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                        self.i += 1;
                    }
                }
                _ => return Err(Unreadable),
            }
            if self.peek(0) != Some(']') {
                return Err(Unreadable);
            }
            self.i += 1;
        }
        let Some(op) = self.peek(0) else {
            return Err(Unreadable);
        };
        self.i += 1;
        match op {
            '}' => return Ok(()),
            ':' if matches!(self.peek(0), Some('-' | '=' | '?' | '+')) => self.i += 1,
            // `${x:1:2}`: offsets are arithmetic, so numbers only.
            ':' => return self.parameter_word(|c| c.is_ascii_digit() || " :-".contains(c)),
            '-' | '=' | '?' | '+' => {}
            '#' | '%' | '^' | ',' | '/' => {
                if self.peek(0) == Some(op)
                    || (op == '/' && matches!(self.peek(0), Some('#' | '%')))
                {
                    self.i += 1;
                }
            }
            _ => return Err(Unreadable),
        }
        self.parameter_word(|c| c.is_ascii_alphanumeric() || "_./@%+,=:~^*? \t-".contains(c))
    }

    /// The word of a parameter expansion, up to its `}`: only characters
    /// that `plain` accepts.
    fn parameter_word(&mut self, plain: impl Fn(char) -> bool) -> Result<(), Unreadable> {
        loop {
            let c = self.peek(0).ok_or(Unreadable)?;
            self.i += 1;
            match c {
                '}' => return Ok(()),
                c if plain(c) => {}
                _ => return Err(Unreadable),
            }
        }
    }

    /// After an opening `"`: up to and including the closing one.
    fn double_quoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unreadable> {
        loop {
            let Some(c) = self.peek(0) else {
                return Err(Unreadable);
            };
            self.i += 1;
            match c {
                '"' => {
                    cur.push('"');
                    return Ok(());
                }
                '\\' => {
                    let Some(next) = self.peek(0) else {
                        return Err(Unreadable);
                    };
                    self.i += 1;
                    cur.push('\\');
                    cur.push(next);
                    // Only these lose their backslash in double quotes.
                    match next {
                        '\n' => {}
                        '$' | '`' | '"' | '\\' => cur.lit(next),
                        _ => {
                            cur.lit('\\');
                            cur.lit(next);
                        }
                    }
                }
                '`' => self.backquoted(cur, inner, depth, true)?,
                // `$'` and `$"` are a plain `$` in double quotes.
                '$' if matches!(self.peek(0), Some('\'' | '"')) => {
                    cur.push('$');
                    cur.lit('$');
                }
                '$' => self.dollar(cur, inner, depth)?,
                c => {
                    cur.push(c);
                    cur.lit(c);
                }
            }
        }
    }

    /// After a `` ` ``: the command inside, up to the closing one. As the
    /// shell does, the text is read first (`\$`, `` \` ``, `\\`, and `\"`
    /// within double quotes, lose their backslash, so `` \`…\` `` nests) and
    /// then split as a command line of its own.
    fn backquoted(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
        in_double_quotes: bool,
    ) -> Result<(), Unreadable> {
        let start = self.i - 1;
        let mut body = Vec::new();
        loop {
            let c = self.peek(0).ok_or(Unreadable)?;
            self.i += 1;
            match c {
                '`' => break,
                '\\' => {
                    let next = self.peek(0).ok_or(Unreadable)?;
                    self.i += 1;
                    if matches!(next, '$' | '`' | '\\') || (in_double_quotes && next == '"') {
                        body.push(next);
                    } else {
                        body.push('\\');
                        body.push(next);
                    }
                }
                c => body.push(c),
            }
        }
        if !self.heredocs.is_empty() && body.contains(&'\n') {
            return Err(Unreadable);
        }
        inner.append(&mut split_chars(&body, depth + 1)?);
        cur.word.extend(&self.chars[start..self.i]);
        cur.value.extend(&self.chars[start..self.i]);
        cur.dynamic = true;
        cur.in_word = true;
        Ok(())
    }

    /// After a `$`: a substitution, an expansion, `$'…'`, or a plain `$`.
    fn dollar(
        &mut self,
        cur: &mut Current,
        inner: &mut Vec<Simple>,
        depth: usize,
    ) -> Result<(), Unreadable> {
        let start = self.i - 1;
        // Whether this is an expansion (its value is known only when it runs).
        let expansion = match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.i += 2;
                self.arithmetic()?;
                true
            }
            Some('(') => {
                self.i += 1;
                self.nested_list(inner, depth)?;
                true
            }
            Some('{') => {
                self.i += 1;
                self.parameter()?;
                true
            }
            // `$[…]`: old arithmetic.
            Some('[') => return Err(Unreadable),
            Some('\'') => {
                self.i += 1;
                let mut text = String::new();
                let mut escapes = false;
                loop {
                    let Some(c) = self.peek(0) else {
                        return Err(Unreadable);
                    };
                    self.i += 1;
                    match c {
                        '\\' if self.peek(0).is_some() => {
                            self.i += 1;
                            escapes = true;
                        }
                        '\'' => break,
                        c => text.push(c),
                    }
                }
                // An escape stands for what bash says (and dash reads
                // `$'…'` otherwise): undecidable here.
                cur.value.push_str(&text);
                escapes
            }
            // bash translates `$"…"`; dash reads `$` and `"…"`.
            Some('"') => true,
            Some(c) if c.is_ascii_alphanumeric() || "_?@#$!*-".contains(c) => {
                self.i += 1;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        self.i += 1;
                    }
                }
                true
            }
            _ => {
                cur.lit('$');
                false
            }
        };
        let written = &self.chars[start..self.i];
        cur.word.extend(written);
        if expansion && self.chars.get(start + 1) != Some(&'\'') {
            cur.value.extend(written);
        }
        cur.dynamic |= expansion;
        cur.in_word = true;
        Ok(())
    }
}
