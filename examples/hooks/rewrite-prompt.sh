#!/usr/bin/env bash
# before_agent_start: append the project's house rules to the user's prompt, so
# they enter context with the turn. Needs nothing but bash and sed.
#
# The prompt arrives JSON-escaped inside the payload; appending plain text keeps
# it valid JSON, so it goes back as is.
payload=$(cat)
prompt=$(printf '%s' "$payload" | sed -nE 's/.*"prompt":"(([^"\\]|\\.)*)".*/\1/p')
[ -n "$prompt" ] || exit 0 # no prompt: allow, unchanged
rules='(house rules: stay inside the repository; never print secrets)'
# Only the prompt key is honored: turn_count is the agent's, not ours, to rewrite.
printf '{"decision":"allow","updated_input":{"prompt":"%s %s"}}\n' "$prompt" "$rules"
