#!/bin/sh
# PreToolUse, matcher "Bash": deny `rm -rf` before it runs.
# Plain sh, no jq: the event arrives as one JSON object on stdin.
payload=$(cat)
command=$(printf '%s\n' "$payload" | sed -E -n 's/.*"command":"(([^"\\]|\\.)*)".*/\1/p')
case "$command" in
  *'rm -rf'* | *'rm -fr'*)
    # Claude Code reads the whole of stdout: pretty-printed JSON is fine.
    cat <<'JSON'
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "rm -rf is not allowed in this project: delete the files you mean by name"
  }
}
JSON
    ;;
esac
exit 0
