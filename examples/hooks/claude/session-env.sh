#!/bin/sh
# SessionStart: choose where this session may deploy. Claude Code hands a
# SessionStart hook a file in CLAUDE_ENV_FILE; the `export` lines written to it
# set variables for the host's shell commands (never for later hooks). The
# choice is also left in the project, where the deploy guard reads it.
cat >/dev/null
if [ -n "$CLAUDE_ENV_FILE" ]; then
  echo 'export DEPLOY_TARGET=staging' >> "$CLAUDE_ENV_FILE"
fi
echo staging > "$CLAUDE_PROJECT_DIR/.claude/deploy-target"
exit 0
