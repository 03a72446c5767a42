#!/bin/sh
# PreToolUse, matcher "Bash", if "Bash(npm install:*)": a bare `npm install`
# becomes `npm ci`, which installs exactly what package-lock.json pins.
# updatedInput replaces the whole tool input, so the script edits the
# tool_input object it was given and keeps its other fields (description, …).
payload=$(cat)
tool_input=$(printf '%s\n' "$payload" | sed -n 's/.*"tool_input":\({[^{}]*}\).*/\1/p')
case "$tool_input" in
  *'"command":"npm install"'*)
    updated=$(printf '%s\n' "$tool_input" | sed 's/"command":"npm install"/"command":"npm ci"/')
    cat <<JSON
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "allow",
    "permissionDecisionReason": "npm install was rewritten to npm ci",
    "updatedInput": $updated
  }
}
JSON
    ;;
esac
exit 0
