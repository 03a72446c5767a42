#!/bin/sh
# PreToolUse, matcher "Bash": `npm install` becomes `npm ci`. Codex's only
# rewrite is permissionDecision "allow" together with updatedInput, whose
# `command` must be a string; "allow" alone would fail the run.
payload=$(cat)
case "$payload" in
  *'"command":"npm install"'*)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm ci"},"additionalContext":"npm install was rewritten to npm ci: the lock file decides"}}'
    ;;
esac
exit 0
