#!/bin/sh
# preToolUse, matcher "Deploy": the host calls its tool `ship`, and its tool
# layer names that tool `Deploy` for Cursor's hooks (an alias per dialect), so
# this guard, written for Cursor's name, refuses it.
cat >/dev/null
echo '{"permission": "deny", "agent_message": "deploys go through CI, not the agent"}'
