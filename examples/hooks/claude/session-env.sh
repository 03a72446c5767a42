#!/bin/sh
# SessionStart: choose where this session may deploy. Claude Code hands a
# SessionStart hook a file in CLAUDE_ENV_FILE; the `export` lines written to it
# set variables for the session's later hooks (and for the host's shell).
cat >/dev/null
if [ -n "$CLAUDE_ENV_FILE" ]; then
  echo 'export DEPLOY_TARGET=staging' >> "$CLAUDE_ENV_FILE"
fi
exit 0
