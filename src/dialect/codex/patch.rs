//! Codex's `apply_patch` input for an edit or write tool of another shape.
//!
//! Codex has one tool for every change to files, `apply_patch`, and its
//! hooks see it as `{"command": "*** Begin Patch … *** End Patch"}`: the
//! file's path is inside the patch text, never a `file_path` key. A host
//! whose edit tools take Claude Code's arguments (`Edit`: `file_path`,
//! `old_string`, `new_string`; `MultiEdit`: `edits`; `Write`: `content`)
//! has its call renamed `apply_patch` for a Codex hook, so the hook gets the
//! same call written as a patch, and a hook's rewritten patch is read back
//! into the host's arguments.
//!
//! The patch shows an edit as whole lines: the old string's lines removed,
//! the new string's added, in one `@@` hunk per edit; a write is an
//! `*** Add File:` with every line of the content.

use serde_json::{Map, Value};

/// The keys a path goes by in the edit and write tools we read.
const PATH_KEYS: [&str; 3] = ["file_path", "path", "filePath"];
/// The keys of a write's whole content.
const CONTENT_KEYS: [&str; 3] = ["content", "contents", "file_text"];
/// The keys of an edit's old and new text, in pairs.
const EDIT_KEYS: [(&str, &str); 3] = [
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("oldString", "newString"),
];

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const UPDATE: &str = "*** Update File: ";

/// Whether `arguments` need writing as a patch for a hook that sees the
/// call as `apply_patch`: they have no string `command` of their own.
pub(super) fn needs_patch(arguments: &Value) -> bool {
    !arguments.get("command").is_some_and(Value::is_string)
}

/// The edit or write in `arguments` as Codex's patch text, or `None` when
/// they are of no shape read here (they are then passed on as they are).
///
/// ```text
/// {"file_path": "a.txt", "old_string": "x", "new_string": "y"}
///   → "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n"
/// ```
pub(super) fn to_patch(arguments: &Value) -> Option<String> {
    let object = arguments.as_object()?;
    let (_, path) = find_str(object, &PATH_KEYS)?;
    let mut out = format!("{BEGIN}\n");
    if let Some((_, content)) = find_str(object, &CONTENT_KEYS) {
        out.push_str(ADD);
        out.push_str(path);
        out.push('\n');
        push_lines(&mut out, '+', content);
    } else {
        let edits = edits(object)?;
        out.push_str(UPDATE);
        out.push_str(path);
        out.push('\n');
        for (old, new) in edits {
            out.push_str("@@\n");
            push_lines(&mut out, '-', old);
            push_lines(&mut out, '+', new);
        }
    }
    out.push_str(END);
    out.push('\n');
    Some(out)
}

/// A hook's rewritten `patch` read back into the host's `arguments`, which
/// the hook was sent as `sent` ([`to_patch`]): the same keys, with the path,
/// content or edits the patch names. The patch
/// must make the kind of change the host's tool makes (one file; an
/// `Add File` for a write, an `Update File` with one hunk per edit for an
/// edit); anything else is an error that says what the tool cannot take.
pub(super) fn from_patch(
    patch: &str,
    sent: &str,
    arguments: &Value,
) -> Result<Map<String, Value>, String> {
    let mut out = arguments.as_object().cloned().unwrap_or_default();
    if patch == sent {
        return Ok(out);
    }
    let file = read(patch)?;
    let path_key = find_str(&out, &PATH_KEYS).map_or("file_path", |(key, _)| key);
    out.insert(path_key.into(), Value::String(file.path.into()));
    if let Some((content_key, old)) = find_str(&out, &CONTENT_KEYS) {
        if !file.added {
            return Err("a write tool takes a patch that adds its file (*** Add File:)".into());
        }
        let lines: Vec<&str> = file
            .hunks
            .iter()
            .flat_map(|h| h.new.iter().copied())
            .collect();
        let content = joined(&lines, old.ends_with('\n') || old.is_empty());
        out.insert(content_key.into(), Value::String(content));
        return Ok(out);
    }
    if file.added {
        return Err("an edit tool takes a patch that updates its file (*** Update File:)".into());
    }
    let Some(old_edits) = edits(&out) else {
        return Err("the tool's arguments are no edit this patch can replace".into());
    };
    let ends: Vec<(bool, bool)> = old_edits
        .iter()
        .map(|(old, new)| (old.ends_with('\n'), new.ends_with('\n')))
        .collect();
    let (old_key, new_key) = edit_keys(&out);
    let pair = |hunk: &Hunk<'_>, (old_nl, new_nl): (bool, bool)| {
        let mut edit = Map::new();
        edit.insert(old_key.into(), Value::String(joined(&hunk.old, old_nl)));
        edit.insert(new_key.into(), Value::String(joined(&hunk.new, new_nl)));
        edit
    };
    match out.get_mut("edits") {
        Some(Value::Array(list)) => {
            // A multi-edit: one hunk an edit, each keeping its other keys.
            let mut next = Vec::with_capacity(file.hunks.len());
            for (i, hunk) in file.hunks.iter().enumerate() {
                let mut edit = list
                    .get(i)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let end = ends.get(i).copied().unwrap_or((false, false));
                edit.extend(pair(hunk, end));
                next.push(Value::Object(edit));
            }
            *list = next;
        }
        _ => {
            let [hunk] = file.hunks.as_slice() else {
                return Err(format!(
                    "an edit tool takes a patch of one hunk; this one has {}",
                    file.hunks.len()
                ));
            };
            out.extend(pair(hunk, ends.first().copied().unwrap_or((false, false))));
        }
    }
    Ok(out)
}

/// One file's change in a patch.
struct FileChange<'p> {
    path: &'p str,
    added: bool,
    hunks: Vec<Hunk<'p>>,
}

/// One hunk: the lines it expects (context and removed) and the lines it
/// leaves (context and added). An added file is one hunk with no old lines.
#[derive(Default)]
struct Hunk<'p> {
    old: Vec<&'p str>,
    new: Vec<&'p str>,
}

/// Reads a patch that changes exactly one file by adding or updating it.
fn read(patch: &str) -> Result<FileChange<'_>, String> {
    let mut lines = patch.lines();
    if lines.next().map(str::trim) != Some(BEGIN) {
        return Err(format!("the patch does not start with '{BEGIN}'"));
    }
    let mut file: Option<FileChange<'_>> = None;
    let mut ended = false;
    for line in lines {
        if ended {
            if line.trim().is_empty() {
                continue;
            }
            return Err(format!("text after '{END}'"));
        }
        if line.trim() == END {
            ended = true;
        } else if let Some(path) = header(line, ADD).or_else(|| header(line, UPDATE)) {
            if file.is_some() {
                return Err("the tool changes one file; the patch changes several".into());
            }
            let added = line.starts_with(ADD);
            let hunks = if added {
                vec![Hunk::default()]
            } else {
                Vec::new()
            };
            file = Some(FileChange { path, added, hunks });
        } else if line.starts_with("*** ") && line != "*** End of File" {
            return Err(format!("the tool cannot take '{line}'"));
        } else {
            let Some(file) = file.as_mut() else {
                return Err(format!("'{line}' before any file of the patch"));
            };
            body_line(file, line)?;
        }
    }
    if !ended {
        return Err(format!("the patch does not end with '{END}'"));
    }
    let file = file.ok_or("the patch changes no file")?;
    if file.hunks.is_empty() {
        return Err(format!("'{UPDATE}{}' has no hunk", file.path));
    }
    Ok(file)
}

/// One line inside a file's section of the patch.
fn body_line<'p>(file: &mut FileChange<'p>, line: &'p str) -> Result<(), String> {
    if file.added {
        let Some(text) = line.strip_prefix('+') else {
            return Err(format!(
                "a line of an added file must start with '+': '{line}'"
            ));
        };
        file.hunks[0].new.push(text);
        return Ok(());
    }
    if line.starts_with("@@") {
        file.hunks.push(Hunk::default());
        return Ok(());
    }
    if line == "*** End of File" {
        return Ok(());
    }
    if file.hunks.is_empty() {
        // Codex lets the first hunk go without its `@@`.
        file.hunks.push(Hunk::default());
    }
    let hunk = file.hunks.last_mut().expect("a hunk was just made");
    match line.split_at_checked(1) {
        Some(("-", text)) => hunk.old.push(text),
        Some(("+", text)) => hunk.new.push(text),
        Some((" ", text)) => {
            hunk.old.push(text);
            hunk.new.push(text);
        }
        _ if line.is_empty() => {
            hunk.old.push("");
            hunk.new.push("");
        }
        _ => {
            return Err(format!(
                "a hunk line must start with ' ', '-' or '+': '{line}'"
            ))
        }
    }
    Ok(())
}

fn header<'p>(line: &'p str, prefix: &str) -> Option<&'p str> {
    line.strip_prefix(prefix)
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

/// The first of `keys` that holds a string, with its key.
fn find_str<'a>(
    object: &'a Map<String, Value>,
    keys: &[&'static str],
) -> Option<(&'static str, &'a str)> {
    keys.iter()
        .find_map(|&key| Some((key, object.get(key)?.as_str()?)))
}

/// The key pair an edit's old and new text go by in these arguments (or in
/// their first `edits` entry); Claude Code's when there is none.
fn edit_keys(object: &Map<String, Value>) -> (&'static str, &'static str) {
    let first = object
        .get("edits")
        .and_then(Value::as_array)
        .and_then(|list| list.first())
        .and_then(Value::as_object)
        .unwrap_or(object);
    EDIT_KEYS
        .into_iter()
        .find(|(old, _)| first.contains_key(*old))
        .unwrap_or(EDIT_KEYS[0])
}

/// The (old, new) text of each edit: one for an edit, the list of a
/// multi-edit; `None` when the arguments are no edit.
fn edits(object: &Map<String, Value>) -> Option<Vec<(&str, &str)>> {
    if let Some(list) = object.get("edits").and_then(Value::as_array) {
        return list
            .iter()
            .map(|edit| edit_pair(edit.as_object()?))
            .collect();
    }
    edit_pair(object).map(|edit| vec![edit])
}

/// One edit's (old, new) text, under whichever key pair it uses.
fn edit_pair(edit: &Map<String, Value>) -> Option<(&str, &str)> {
    EDIT_KEYS
        .iter()
        .find_map(|(old, new)| Some((edit.get(*old)?.as_str()?, edit.get(*new)?.as_str()?)))
}

/// Each line of `text` behind `sign`, one line of the patch each; a final
/// newline ends the last line rather than starting an empty one.
fn push_lines(out: &mut String, sign: char, text: &str) {
    if text.is_empty() {
        return;
    }
    for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
        out.push(sign);
        out.push_str(line);
        out.push('\n');
    }
}

/// Lines joined back into text, with a final newline where the text the
/// host gave had one.
fn joined(lines: &[&str], final_newline: bool) -> String {
    let mut text = lines.join("\n");
    if final_newline && !lines.is_empty() {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// [`from_patch`] of arguments that were sent as their own patch.
    fn back(patch: &str, arguments: &Value) -> Result<Map<String, Value>, String> {
        from_patch(patch, &to_patch(arguments).unwrap(), arguments)
    }

    #[test]
    fn an_edit_is_an_update_with_one_hunk() {
        let args = json!({"file_path": "/p/a.rs", "old_string": "x\ny", "new_string": "z"});
        assert_eq!(
            to_patch(&args).unwrap(),
            "*** Begin Patch\n*** Update File: /p/a.rs\n@@\n-x\n-y\n+z\n*** End Patch\n"
        );
    }

    #[test]
    fn a_write_adds_its_file_and_a_multi_edit_has_a_hunk_an_edit() {
        let write = json!({"file_path": "n.txt", "content": "hi\nthere\n"});
        assert_eq!(
            to_patch(&write).unwrap(),
            "*** Begin Patch\n*** Add File: n.txt\n+hi\n+there\n*** End Patch\n"
        );
        let multi = json!({"file_path": "m", "edits": [
            {"old_string": "a", "new_string": "b"},
            {"old_string": "c", "new_string": ""}
        ]});
        assert_eq!(
            to_patch(&multi).unwrap(),
            "*** Begin Patch\n*** Update File: m\n@@\n-a\n+b\n@@\n-c\n*** End Patch\n"
        );
    }

    #[test]
    fn arguments_of_another_shape_are_no_patch() {
        assert_eq!(to_patch(&json!({"file_path": "a"})), None);
        assert_eq!(
            to_patch(&json!({"old_string": "a", "new_string": "b"})),
            None
        );
        assert_eq!(to_patch(&json!("text")), None);
    }

    #[test]
    fn an_unchanged_patch_gives_the_arguments_back_exactly() {
        for args in [
            json!({"file_path": "a", "old_string": "x\n", "new_string": "y", "replace_all": true}),
            json!({"path": "b", "content": "no newline"}),
            json!({"file_path": "m", "edits": [{"old_string": "a", "new_string": "b"}]}),
        ] {
            let patch = to_patch(&args).unwrap();
            assert_eq!(Value::Object(back(&patch, &args).unwrap()), args);
        }
    }

    #[test]
    fn a_rewritten_patch_is_read_into_the_hosts_keys() {
        let edit = json!({"path": "a", "old_str": "x\n", "new_str": "y\n", "other": 1});
        let patch = "*** Begin Patch\n*** Update File: b\n@@\n ctx\n-old\n+new\n*** End Patch\n";
        assert_eq!(
            Value::Object(back(patch, &edit).unwrap()),
            json!({"path": "b", "old_str": "ctx\nold\n", "new_str": "ctx\nnew\n", "other": 1})
        );
        let write = json!({"file_path": "a", "content": "one\n"});
        let patch = "*** Begin Patch\n*** Add File: a\n+two\n+three\n*** End Patch";
        assert_eq!(
            Value::Object(back(patch, &write).unwrap()),
            json!({"file_path": "a", "content": "two\nthree\n"})
        );
        let multi = json!({"file_path": "m", "edits": [{"old_string": "a", "new_string": "b", "replace_all": false}]});
        let patch = "*** Begin Patch\n*** Update File: m\n@@\n-a\n+B\n@@\n-c\n+d\n*** End Patch\n";
        assert_eq!(
            Value::Object(back(patch, &multi).unwrap()),
            json!({"file_path": "m", "edits": [
                {"old_string": "a", "new_string": "B", "replace_all": false},
                {"old_string": "c", "new_string": "d"}
            ]})
        );
    }

    #[test]
    fn a_patch_the_tool_cannot_take_is_an_error_that_says_why() {
        let edit = json!({"file_path": "a", "old_string": "x", "new_string": "y"});
        let cases = [
            ("*** Update File: a\n@@\n-x\n*** End Patch\n", "does not start"),
            ("*** Begin Patch\n*** Update File: a\n@@\n-x\n", "does not end"),
            ("*** Begin Patch\n*** Update File: a\n@@\n-x\n*** Update File: b\n@@\n-y\n*** End Patch\n", "several"),
            ("*** Begin Patch\n*** Delete File: a\n*** End Patch\n", "cannot take '*** Delete File: a'"),
            ("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n", "updates its file"),
            ("*** Begin Patch\n*** Update File: a\n@@\n-x\n@@\n-y\n*** End Patch\n", "one hunk; this one has 2"),
            ("*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch\n", "must start with"),
            ("*** Begin Patch\n*** End Patch\n", "no file"),
        ];
        for (patch, want) in cases {
            let error = back(patch, &edit).unwrap_err();
            assert!(error.contains(want), "{patch:?}: {error}");
        }
        let write = json!({"file_path": "a", "content": "x"});
        let error = back(
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End Patch\n",
            &write,
        )
        .unwrap_err();
        assert!(error.contains("adds its file"), "{error}");
    }
}
