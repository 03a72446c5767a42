#!/bin/sh
# beforeReadFile, matcher "(^|/)\.env": a regex tested against the file path,
# so this runs only for .env files, and refuses every one of them.
payload=$(cat)
file=$(printf '%s\n' "$payload" | sed -E -n 's/.*"file_path":"(([^"\\]|\\.)*)".*/\1/p')
printf '{"permission": "deny", "agent_message": "%s holds secrets: ask the user for the value you need"}\n' "$file"
