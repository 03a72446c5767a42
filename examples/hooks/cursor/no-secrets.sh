#!/bin/sh
# beforeReadFile, matcher "Read": the tool's type (Cursor's page: `Read`, or
# `TabRead` for Tab), so this runs for every read and looks at the path
# itself: it refuses .env files and lets the others through.
payload=$(cat)
file=$(printf '%s\n' "$payload" | sed -E -n 's/.*"file_path":"(([^"\\]|\\.)*)".*/\1/p')
case "$file" in
  .env | */.env | .env.* | */.env.*)
    printf '{"permission": "deny", "agent_message": "%s holds secrets: ask the user for the value you need"}\n' "$file"
    ;;
  *) echo '{}' ;;
esac
