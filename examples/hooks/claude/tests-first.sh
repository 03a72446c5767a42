#!/bin/sh
# Stop: send the agent back once to run the tests before it stops.
# stop_hook_active is true when the agent is only still going because a Stop
# hook sent it back: let it stop then, or it would never stop.
payload=$(cat)
if printf '%s\n' "$payload" | grep -Eq '"stop_hook_active": *true'; then
  exit 0
fi
echo '{"decision": "block", "reason": "run the tests first"}'
