#!/usr/bin/env bash
# tool_execution_start guard: refuse `rm -rf` and force-pushes.
# Needs nothing but bash: the payload is one JSON line on stdin.
payload=$(cat)
case "$payload" in
  *'rm -rf'*|*'push --force'*|*'push -f'*)
    cmd=$(printf '%s' "$payload" | sed -E 's/.*"command":"(([^"\\]|\\.)*)".*/\1/')
    echo "refused by guard.sh: $cmd" >&2
    exit 2
    ;;
esac
exit 0
