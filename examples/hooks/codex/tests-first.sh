#!/bin/sh
# Stop: send the agent back once to run the tests. Codex reads a Stop answer
# as JSON only (plain text fails the run); stop_hook_active is true while the
# agent is only going on because a Stop hook sent it back.
payload=$(cat)
case "$payload" in
  *'"stop_hook_active":true'*) exit 0 ;;
esac
printf '%s\n' '{"decision":"block","reason":"run the tests first"}'
