#!/bin/sh
# BeforeAgent: tell the model which branch it works on.
cat > /dev/null
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "You are on branch main; open a pull request for any change."}}'
