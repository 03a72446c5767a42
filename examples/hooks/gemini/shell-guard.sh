#!/bin/sh
# BeforeTool on run_shell_command: no rm -rf; npm install becomes npm ci.
input=$(cat)
command=$(printf '%s' "$input" | sed -n 's/.*"tool_input":{"command":"\([^"]*\)".*/\1/p')
case "$command" in
  *'rm -rf'*)
    printf '%s\n' '{"decision": "deny", "reason": "rm -rf is not allowed in this project: delete the files you mean by name"}'
    ;;
  'npm install')
    printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "npm ci"}}, "systemMessage": "npm install was rewritten to npm ci"}'
    ;;
esac
