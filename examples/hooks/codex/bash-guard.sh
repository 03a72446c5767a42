#!/bin/sh
# PreToolUse, matcher "Bash": refuse to delete the root. Codex needs a
# non-empty permissionDecisionReason beside "deny", or the run fails.
payload=$(cat)
case "$payload" in
  *'"command":"rm -rf /"'*)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed in this project: delete the files you mean by name"}}'
    ;;
  *'"command":"git push --force'*)
    # exit 2 blocks with stderr as the reason; an empty stderr would fail.
    echo "force pushes are for the release manager" >&2
    exit 2
    ;;
esac
exit 0
