//! What a model answered a model-evaluated hook, read from its text.

use serde_json::Value;

/// What a model answered a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelAnswer {
    /// `ok`: the action may go ahead.
    pub ok: bool,
    /// `reason`.
    pub reason: Option<String>,
    /// `impossible`: at a stop, what it asks cannot be done (let the stop happen).
    pub impossible: bool,
}

impl ModelAnswer {
    /// Reads a model's text: a JSON object with a boolean `ok`, the whole text,
    /// inside a code fence, or between the first `{` and the last `}`.
    pub fn parse(text: &str) -> Result<ModelAnswer, String> {
        let trimmed = text.trim();
        let candidates = [
            Some(trimmed),
            fenced(trimmed),
            trimmed
                .find('{')
                .zip(trimmed.rfind('}'))
                .filter(|(a, b)| a < b)
                .map(|(a, b)| &trimmed[a..=b]),
        ];
        let object = candidates.into_iter().flatten().find_map(|candidate| {
            match serde_json::from_str::<Value>(candidate) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            }
        });
        let shown = || trimmed.chars().take(120).collect::<String>();
        let Some(map) = object else {
            return Err(format!(
                "the model did not answer with {{\"ok\": …}}: {}",
                shown()
            ));
        };
        let Some(ok) = map.get("ok").and_then(Value::as_bool) else {
            return Err(format!(
                "the model's answer has no boolean \"ok\": {}",
                shown()
            ));
        };
        Ok(ModelAnswer {
            ok,
            reason: map.get("reason").and_then(Value::as_str).map(str::to_owned),
            impossible: map.get("impossible").and_then(Value::as_bool) == Some(true),
        })
    }
}

/// The inside of a code fence (```` ```json … ``` ````), if the text has one.
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body_start = after.find('\n')? + 1;
    let body = &after[body_start..];
    let end = body.find("```")?;
    Some(body[..end].trim())
}
