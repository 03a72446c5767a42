#!/usr/bin/env bash
# tool_execution_end redactor: strip anything that looks like a token before the
# model (or the screen) sees it. Needs nothing but bash and sed.
#
# The content arrives JSON-escaped inside the payload; tokens never contain
# quotes or backslashes, so the escaped text can be redacted and sent back as is.
payload=$(cat)
content=$(printf '%s' "$payload" | sed -nE 's/.*"tool_response":\{"content":"(([^"\\]|\\.)*)".*/\1/p')
is_error=$(printf '%s' "$payload" | sed -nE 's/.*"tool_response":\{[^}]*"is_error":(true|false).*/\1/p')
clean=$(printf '%s' "$content" | sed -E \
  -e 's/gh[pousr]_[A-Za-z0-9]{20,}/[REDACTED_GITHUB_TOKEN]/g' \
  -e 's/sk-[A-Za-z0-9]{20,}/[REDACTED_API_KEY]/g' \
  -e 's/(AWS_SECRET_ACCESS_KEY=)[^ "\\]+/\1[REDACTED]/g')
# content and is_error go at the TOP LEVEL of updated_input, on one line.
printf '{"decision":"allow","updated_input":{"content":"%s","is_error":%s}}\n' "$clean" "${is_error:-false}"
