#!/bin/sh
# afterFileEdit, matcher "Write": the tool's type (an edit is a `Write` to
# Cursor), so this runs after every edit and formats Rust files only.
# afterFileEdit only observes, so this runs in the background: the agent does
# not wait for it, and its additional_context reaches the model with the
# session's next call.
payload=$(cat)
file=$(printf '%s\n' "$payload" | sed -E -n 's/.*"file_path":"(([^"\\]|\\.)*)".*/\1/p')
case "$file" in
  *.rs) ;;
  *) exit 0 ;;
esac
sleep 0.3 # stands for the formatter's run
# Hooks of a project's .cursor/hooks.json run from the project root.
echo "format.sh: would run rustfmt on $file" >>.cursor/hooks.log
echo "{\"additional_context\": \"$file was reformatted by rustfmt: read it again before you edit it\"}"
