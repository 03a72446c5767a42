#!/bin/sh
# beforeShellExecution, matcher "rm -rf|curl": a regex tested against the
# command line, so this runs only for commands that contain either.
# Plain sh, no jq: the event arrives as one JSON object on stdin.
payload=$(cat)
command=$(printf '%s\n' "$payload" | sed -E -n 's/.*"command":"(([^"\\]|\\.)*)".*/\1/p')
case "$command" in
  *curl*)
    # Exit 2 denies; stderr is the reason the model sees.
    echo "downloads go through the package manager here, not curl" >&2
    exit 2
    ;;
  *'rm -rf'*)
    # Log lines may come first: the answer is the last line that is a JSON object.
    echo "guard-shell.sh: refusing $command"
    echo '{"permission": "deny", "agent_message": "rm -rf is not allowed in this project: delete the files you mean by name", "user_message": "guard-shell.sh refused an rm -rf"}'
    ;;
esac
exit 0
