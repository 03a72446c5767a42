//! What a Claude Code hook's stdout held that Claude Code ignores, said for
//! the person running `hooks test`: the reasons a guard allowed that are
//! easiest to miss.

use serde_json::Value;

/// The top-level keys of a Claude Code JSON answer.
const ANSWER_KEYS: [&str; 7] = [
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
];

/// What the stdout of a Claude Code hook of `event` (which ended with `exit`)
/// held that is ignored:
///
/// * text that is not JSON, at an event where plain text means nothing
///   (anywhere but `UserPromptSubmit` and `SessionStart`, where it is context);
/// * a line before the JSON (a log line), which makes all of stdout plain
///   text: Claude Code reads JSON only when it is the whole of stdout;
/// * `{…}` that does not parse;
/// * top-level keys Claude Code does not know, each with the known key it
///   most likely meant (`hookSpecifcOutput` → `hookSpecificOutput`).
pub(crate) fn answer_warnings(event: &str, exit: Option<i32>, stdout: &[u8]) -> Vec<String> {
    let mut warnings = Vec::new();
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return warnings;
    }
    let text_is_context = matches!(event, "UserPromptSubmit" | "SessionStart") && exit == Some(0);
    let ignored = if text_is_context {
        "it became model context instead"
    } else {
        "it was ignored"
    };
    if !trimmed.starts_with('{') {
        let json_after = trimmed.lines().skip(1).any(|line| {
            let line = line.trim_start();
            line.starts_with('{') && json_object(&trimmed[offset(trimmed, line)..]).is_some()
        });
        if json_after {
            warnings.push(format!(
                "stdout has text before its JSON, so it is not read as JSON (Claude Code reads \
                 JSON only when it is all of stdout): {ignored}; write logs to stderr"
            ));
        } else if exit == Some(0) && !text_is_context {
            warnings.push(
                "stdout is not JSON, so it was ignored (plain text is model context only on \
                 UserPromptSubmit and SessionStart)"
                    .to_owned(),
            );
        }
        return warnings;
    }
    let Some(object) = json_object(trimmed) else {
        if exit == Some(0) {
            warnings.push(format!(
                "stdout starts with {{ but is not one valid JSON object, so it is plain text: \
                 {ignored}"
            ));
        }
        return warnings;
    };
    for key in object
        .as_object()
        .into_iter()
        .flat_map(|map| map.keys())
        .filter(|key| !ANSWER_KEYS.contains(&key.as_str()))
    {
        let hint = match crate::suggest::closest(key, ANSWER_KEYS) {
            Some(known) => format!(" (did you mean {known:?}?)"),
            None => String::new(),
        };
        warnings.push(format!(
            "key {key:?} is not one Claude Code reads{hint}: ignored"
        ));
    }
    warnings
}

/// `text` as one JSON object, if it is one.
fn json_object(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text.trim())
        .ok()
        .filter(Value::is_object)
}

/// Where `part`, a slice of `whole`, starts in it.
fn offset(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelled_key_is_named_with_the_known_one() {
        let stdout = br#"{"hookSpecifcOutput": {"permissionDecision": "deny"}}"#;
        assert_eq!(
            answer_warnings("PreToolUse", Some(0), stdout),
            [
                "key \"hookSpecifcOutput\" is not one Claude Code reads (did you mean \
              \"hookSpecificOutput\"?): ignored"
            ]
        );
        let clean = br#"{"hookSpecificOutput": {"permissionDecision": "deny"}}"#;
        assert!(answer_warnings("PreToolUse", Some(0), clean).is_empty());
    }

    #[test]
    fn text_and_log_lines_are_said() {
        let plain = answer_warnings("PreToolUse", Some(0), b"all good\n");
        assert!(plain[0].starts_with("stdout is not JSON"), "{plain:?}");
        // Context where plain text is context.
        assert!(answer_warnings("UserPromptSubmit", Some(0), b"note").is_empty());
        let logged = answer_warnings(
            "PreToolUse",
            Some(0),
            b"checking...\n{\n  \"decision\": \"block\"\n}\n",
        );
        assert!(
            logged[0].starts_with("stdout has text before its JSON"),
            "{logged:?}"
        );
        let broken = answer_warnings("Stop", Some(0), b"{\"decision\": ");
        assert!(
            broken[0].contains("not one valid JSON object"),
            "{broken:?}"
        );
    }
}
