#!/bin/sh
# stop: send the agent back to run the tests before it stops. It asks every
# time; "loop_limit": 1 in hooks.json lets its follow-up through once a
# session, and the next stop finishes. loop_count counts the ones that did.
payload=$(cat)
count=$(printf '%s\n' "$payload" | sed -E -n 's/.*"loop_count":([0-9]+).*/\1/p')
echo "tests-first.sh: stop with loop_count $count" >>.cursor/hooks.log
echo '{"followup_message": "run the tests before you stop"}'
