#!/usr/bin/env bash
# A tool_execution_start guard that starts once and answers every event: the
# bash twin of persistent-guard.py (the same rules, the same answers).
#
# Marked persistent, it gets HOOK_PROTOCOL=lines/1 and one request per line on
# stdin, {"id": 7, "input": {<the event>}, "env": {…}}, and answers each with
# one line: {"id":7} allows, {"id":7,"exit":2,"stderr":"<reason>"} refuses. It
# exits when stdin closes. Without HOOK_PROTOCOL it is a one-shot hook: one
# event on stdin, exit 2 with the reason on stderr, or exit 0.
#
# No jq and no subshell per event: the id and the command are cut out of the
# line with [[ =~ ]] and parameter expansion, so an answer costs no fork.

# Loaded once. ERE patterns, the same as the Python guard's, in the same order.
patterns=(
  '(^|[;&| ])rm +-[a-zA-Z]*([rR][a-zA-Z]*f|f[a-zA-Z]*[rR])'
  '(^|[;&| ])git +push( .*)? (-f|--force)( |$)'
  '(curl|wget) .*[|] *(sudo +)?(ba|da|z)?sh( |$)'
  '(^|[;&| ])(sudo|doas) '
)
# Written into JSON as they are: no quote, no backslash.
reasons=(
  'rm -rf is not allowed: delete the files you mean by name'
  'no force-push from the agent: use --force-with-lease, or ask the user'
  'do not pipe a download into a shell: save it, read it, then run it'
  'no sudo from the agent: ask the user to run it'
)
# The engine writes the id first, so the first "id" of the line is the request's.
id_re='^\{ *"id": *([0-9]+)'
event_re='"event": *"tool_execution_start"'
# The first "command" string of the event (the tool's arguments), escapes kept.
command_re='"command": *"(([^"\\]|\\.)*)"'

# refusal LINE: sets $reason to why the event in LINE is refused, or to "".
refusal() {
  reason=""
  [[ $1 =~ $event_re ]] || return 0
  [[ $1 =~ $command_re ]] || return 0
  local cmd=${BASH_REMATCH[1]} i
  cmd=${cmd//\\\"/\"}   # \" -> "
  cmd=${cmd//\\\\/\\}   # \\ -> \  (other escapes, \n and \u…, stay as written)
  for i in "${!patterns[@]}"; do
    if [[ $cmd =~ ${patterns[i]} ]]; then
      reason=${reasons[i]}
      return 0
    fi
  done
}

if [[ ${HOOK_PROTOCOL-} != lines/1 ]]; then
  IFS= read -r line
  refusal "$line"
  [[ -z $reason ]] && exit 0
  printf '%s\n' "$reason" >&2
  exit 2
fi

while IFS= read -r line; do
  [[ $line =~ $id_re ]] || continue   # not a request: nothing to answer
  id=${BASH_REMATCH[1]}
  refusal "$line"
  if [[ -n $reason ]]; then
    printf '{"id":%s,"exit":2,"stderr":"%s"}\n' "$id" "$reason"
  else
    printf '{"id":%s}\n' "$id"
  fi
done
