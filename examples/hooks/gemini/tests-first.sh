#!/bin/sh
# AfterAgent: send the agent back once to run the tests.
input=$(cat)
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;
esac
printf '%s\n' '{"decision": "deny", "reason": "run the tests first"}'
