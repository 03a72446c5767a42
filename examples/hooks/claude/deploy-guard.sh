#!/bin/sh
# PreToolUse, matcher "mcp__ops__deploy": the host's `deploy` tool, which it
# names so for Claude Code hooks. Only the target that SessionStart chose
# (left in .claude/deploy-target) may be deployed to.
payload=$(cat)
target=$(printf '%s\n' "$payload" | sed -E -n 's/.*"target":"([^"]*)".*/\1/p')
chosen=$(cat "$CLAUDE_PROJECT_DIR/.claude/deploy-target" 2>/dev/null)
if [ "$target" != "${chosen:-none}" ]; then
  echo "this session deploys to ${chosen:-nowhere}, not to $target" >&2
  exit 2
fi
exit 0
