#!/bin/sh
# PreToolUse, matcher "mcp__ops__deploy": the host's `deploy` tool, which it
# names so for Claude Code hooks. Only the target that SessionStart chose
# (DEPLOY_TARGET, set through CLAUDE_ENV_FILE) may be deployed to.
payload=$(cat)
target=$(printf '%s\n' "$payload" | sed -E -n 's/.*"target":"([^"]*)".*/\1/p')
if [ "$target" != "${DEPLOY_TARGET:-none}" ]; then
  echo "this session deploys to ${DEPLOY_TARGET:-nowhere}, not to $target" >&2
  exit 2
fi
exit 0
