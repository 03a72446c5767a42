#!/usr/bin/env python3
"""A tool_execution_start guard that starts once and answers every event.

Marked persistent (`persistent = true` on its nanopi entry), it is started at
the first event with HOOK_PROTOCOL=lines/1 in its environment, and reads one
request per line on stdin:

    {"id": 7, "input": {"event": "tool_execution_start", "tool_name": "bash",
     "arguments": {"command": "rm -rf build/"}, ...}, "env": {"NANOPI_EVENT": ...}}

It answers each with one line on stdout: {"id": 7} allows,
{"id": 7, "exit": 2, "stderr": "<reason>"} refuses. It exits when stdin closes.

Without HOOK_PROTOCOL it is an ordinary one-shot hook: it reads the one event
on stdin, and exits 2 with the reason on stderr to refuse, or 0 to allow.
`cargo run --release --example persistent` runs it both ways and compares.
"""

import json
import os
import re
import sys

# Loaded once: a persistent hook pays for this (and for starting Python) once,
# a one-shot hook on every event. The same patterns, in the same order, are in
# persistent-guard.sh; they use only what both Python and bash's [[ =~ ]] read.
RULES = [
    (re.compile(pattern), reason)
    for pattern, reason in [
        (r"(^|[;&| ])rm +-[a-zA-Z]*([rR][a-zA-Z]*f|f[a-zA-Z]*[rR])",
         "rm -rf is not allowed: delete the files you mean by name"),
        (r"(^|[;&| ])git +push( .*)? (-f|--force)( |$)",
         "no force-push from the agent: use --force-with-lease, or ask the user"),
        (r"(curl|wget) .*[|] *(sudo +)?(ba|da|z)?sh( |$)",
         "do not pipe a download into a shell: save it, read it, then run it"),
        (r"(^|[;&| ])(sudo|doas) ",
         "no sudo from the agent: ask the user to run it"),
    ]
]


def refusal(event):
    """Why this event is refused, or None to allow it."""
    if event.get("event") != "tool_execution_start":
        return None
    arguments = event.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str):
        return None
    for pattern, reason in RULES:
        if pattern.search(command):
            return reason
    return None


def serve():
    """The persistent protocol: one request per line, until stdin closes."""
    for line in sys.stdin:
        try:
            request = json.loads(line)
            request_id = request["id"]
            event = request.get("input")
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # not a request: nothing to answer
        reason = refusal(event if isinstance(event, dict) else {})
        answer = {"id": request_id}
        if reason is not None:
            answer.update(exit=2, stderr=reason)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()  # the agent waits for this line: never leave it in a buffer


def answer_once():
    """The one-shot protocol: one event on stdin, the answer in the exit status."""
    try:
        event = json.loads(sys.stdin.readline() or "{}")
    except ValueError:
        event = {}
    reason = refusal(event if isinstance(event, dict) else {})
    if reason is not None:
        print(reason, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    if os.environ.get("HOOK_PROTOCOL") == "lines/1":
        serve()
    else:
        answer_once()
