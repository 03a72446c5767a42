#!/bin/sh
# AfterModel: a response that shows an API key is replaced by one that does not.
input=$(cat)
case "$input" in
  *sk-live-*)
    text=$(printf '%s' "$input" | sed -n 's/.*"parts":\["\([^"]*\)".*/\1/p' | sed 's/sk-live-[A-Za-z0-9]*/[redacted]/g')
    printf '{"hookSpecificOutput": {"hookEventName": "AfterModel", "llm_response": {"candidates": [{"content": {"role": "model", "parts": ["%s"]}}]}}}\n' "$text"
    ;;
esac
