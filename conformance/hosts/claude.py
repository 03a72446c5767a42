"""Claude Code: a whole headless session (`claude -p`) against the scripted
model server, and the same scenario through `hooks test --discover claude`.

What is compared:
- `marker`: what the tool calls and hooks wrote to `@ROOT@/marker` (which ran);
- `results`: per scripted tool call, whether a hook kept it from running and
  the reason the model read in its `tool_result`;
- `context`: the text hooks added for the model (`additionalContext`, a
  UserPromptSubmit or SessionStart hook's plain stdout) that reached a later
  model request, as sorted `Event: text` lines;
- `feedback`: the block reasons the model read after a call (PostToolUse /
  PostToolUseFailure blocks, exit 2's stderr), as sorted `Event: text`;
- `follow_up`: the lines a Stop hook made the model go on with (a block's
  reason, exit 2's stderr, a Stop `additionalContext`), sorted;
- `stopped`: whether a hook ended the session early (`continue: false`, a
  PostToolBatch block);
- `user_prompt_sent`: whether the prompt reached the model at all;
- `model_requests`: how many model requests the session made.
"""
import json
import re

from common import base_env, hooks_test, model_server, run_bounded

BINARY = "node_modules/@anthropic-ai/claude-code-linux-x64/claude"

# --- Claude Code's own wording, in one place --------------------------------
# What the host writes around a hook's text. The host side parses these out;
# observe_ours never needs them (it maps the report's fields directly).
#
# A tool call its PreToolUse hook blocked: with the hook's command for an
# exit 2, without it for a JSON deny.
BLOCKED = re.compile(r"^PreToolUse:(?P<tool>\S+) hook error: (?:\[(?P<command>.*?)\]: )?(?P<reason>.*)$", re.S)
# A hook's text for the model, one heading per event (and tool), its lines
# under it: `additionalContext`, or plain stdout where the event takes it
# ("success"); in a system-role message, or a user-role system-reminder.
CONTEXT = re.compile(r"^(?P<event>[A-Za-z]+)(?::\S+)? hook (?:additional context|success): "
                     r"(?P<text>.*?)(?=\n\n|\n</system-reminder>|\Z)", re.M | re.S)
# A PostToolUse / PostToolUseFailure block, in a system-role message: the
# reason, or `[command]: stderr` for an exit 2.
FEEDBACK = re.compile(
    r"^(?P<event>[A-Za-z]+)(?::\S+)? hook blocking error from command: \"(?P<command>[^\"]*)\": "
    r"(?:\[(?P=command)\]: )?(?P<text>.*)$", re.S)
# A Stop block, in a user-role system-reminder (the host repeats it in a
# system-role "blocking error" line, which FEEDBACK leaves to this one).
STOP_FEEDBACK = re.compile(r"^Stop hook feedback:\n(?:\[[^\]\n]*\]: )?(?P<text>.*?)\n*</system-reminder>", re.M | re.S)
# The `result` of `--output-format json` when a hook's `continue: false`
# ended the session before the first model request.
STOPPED_BEFORE = "Operation stopped by hook"
# The one host wording observe_ours uses: the `error` of a PostToolUseFailure
# payload for a Bash call that exited non-zero.
FAILED_CALL = "Exit code {code}"


def host_env(sandbox, port):
    env = base_env(sandbox)
    env.update({
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-ant-loopback",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    })
    return env


def text_of(content):
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def result_of(block, denied):
    """A `tool_result` as the observation compares it. `denied` holds the
    ids of the calls the host's permission step refused (a PreToolUse `ask`
    has nobody to ask in a headless run)."""
    content = text_of(block.get("content"))
    found = BLOCKED.match(content)
    if block.get("is_error") and found:
        return {"blocked": True, "reason": found["reason"].rstrip("\n")}
    if block.get("is_error") and block.get("tool_use_id") in denied:
        return {"blocked": True, "reason": content.rstrip("\n")}
    return {"blocked": False}


def observe_host(scenario, sandbox, install):
    turns = sandbox.fill(scenario["turns"])
    prompt = scenario.get("prompt", "go")
    with model_server(turns, sandbox.root) as (port, requests):
        argv = [str(install / BINARY), "-p", prompt,
                "--allowedTools", "Bash", "--output-format", "json",
                "--max-turns", str(len(turns) + 2)]
        code, out, err = run_bounded(argv, cwd=sandbox.proj, env=host_env(sandbox, port))
        reqs = [r for r in requests() if r["turn"] >= 0]
    if code is None:
        return {"error": "the host hung: " + err[-400:]}
    try:
        summary = json.loads(out)
    except ValueError:
        summary = {}
    denied = {d.get("tool_use_id") for d in summary.get("permission_denials") or []}
    messages = reqs[-1]["body"].get("messages", []) if reqs else []
    results, context, feedback, follow_up, sent = [], [], [], [], False
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            results += [result_of(b, denied) for b in content if b.get("type") == "tool_result"]
            sent = sent or any(b.get("type") == "text" and b.get("text") == prompt for b in content)
        if message.get("role") not in ("user", "system"):
            continue
        if isinstance(content, list):
            texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        else:
            texts = [content or ""]
        for text in texts:
            for found in CONTEXT.finditer(text):
                lines = found["text"].split("\n")
                if found["event"] == "Stop":
                    follow_up += lines
                else:
                    context += [f"{found['event']}: {line}" for line in lines]
            follow_up += [line for m in STOP_FEEDBACK.finditer(text) for line in m["text"].split("\n")]
            if message.get("role") == "system":
                for paragraph in text.split("\n\n"):
                    found = FEEDBACK.match(paragraph)
                    if found and found["event"] != "Stop":
                        feedback.append(f"{found['event']}: {found['text'].strip()}")
    return {
        "marker": sandbox.marker(),
        "results": results,
        "context": sorted(context),
        "feedback": sorted(feedback),
        "follow_up": sorted(follow_up),
        "stopped": summary.get("terminal_reason") == "hook_stopped"
        or str(summary.get("result", "")).startswith(STOPPED_BEFORE),
        "user_prompt_sent": sent,
        "model_requests": len(reqs),
    }


class Session:
    """Our model of Claude Code's headless loop, with tower-hooks deciding:
    what each report's fields make the host do. What a hook gives the model
    (context, a block's reason, a call's result) waits for the next model
    request; a session that ends first never shows it."""

    def __init__(self, sandbox, hooks_bin, flags):
        self.sandbox, self.hooks_bin, self.flags = sandbox, hooks_bin, flags
        self.seen = {"results": [], "context": [], "feedback": [], "follow_up": []}
        self.pending = []
        self.requests, self.stopped = 0, False

    def fire(self, event, payload):
        """One event through `hooks test`; a `stop` (continue: false) ends the session."""
        report = hooks_test(self.hooks_bin, self.sandbox, "claude", event, payload, self.flags)
        if report.get("stop") is not None:
            self.stopped = True
        return report

    def show(self, field, item):
        self.pending.append((field, item))

    def add_context(self, event, report, skip=None):
        """The report's context lines, less a block reason it carries too."""
        entries = list(report.get("context") or [])
        if skip is not None and skip in entries:
            entries.remove(skip)
        for entry in entries:
            for line in entry.split("\n"):
                self.show("context", f"{event}: {line}")

    def request(self):
        self.requests += 1
        for field, item in self.pending:
            self.seen[field].append(item)
        self.pending = []

    def after_call(self, event, report):
        blocked = report["decision"] == "block" and report.get("reason") is not None
        if blocked:
            self.show("feedback", f"{event}: {report['reason'].strip()}")
        self.add_context(event, report, report.get("reason") if blocked else None)


def observe_ours(scenario, sandbox, hooks_bin):
    """The session Claude Code would have run, with tower-hooks deciding."""
    turns = sandbox.fill(scenario["turns"])
    prompt = scenario.get("prompt", "go")
    max_requests = len(turns) + 2  # the host's --max-turns
    # A scenario may ask for the host's own rule for project files.
    s = Session(sandbox, hooks_bin, ["--trust-project"] if scenario.get("trust_project") else [])
    sent = False
    env = base_env(sandbox)
    env["CLAUDE_PROJECT_DIR"] = str(sandbox.proj)

    def observation():
        s.fire("SessionEnd", {"reason": "other"})
        return {"marker": sandbox.marker(), "results": s.seen["results"],
                "context": sorted(s.seen["context"]), "feedback": sorted(s.seen["feedback"]),
                "follow_up": sorted(s.seen["follow_up"]), "stopped": s.stopped,
                "user_prompt_sent": sent, "model_requests": s.requests}

    report = s.fire("SessionStart", {"source": "startup"})
    s.add_context("SessionStart", report)
    env.update(report.get("env") or {})  # CLAUDE_ENV_FILE: the shell the tools run in
    report = s.fire("UserPromptSubmit", {"prompt": prompt})
    if s.stopped or (report["decision"] == "block" and report["honored"]):
        return observation()
    s.add_context("UserPromptSubmit", report)
    sent = True
    k = 0
    stop_active = False
    while s.requests < max_requests:
        s.request()
        turn = turns[k] if k < len(turns) else {"text": "done"}
        k += 1
        if "tools" in turn:
            batch = []
            for call in turn["tools"]:
                payload = {"tool_name": call["name"], "tool_input": call["input"]}
                report = s.fire("PreToolUse", payload)
                s.add_context("PreToolUse", report)
                if report.get("deferred"):
                    # The call waits for a resume: a headless run ends here,
                    # with no result for the model.
                    return observation()
                if report["decision"] in ("block", "ask") and report["honored"]:
                    # headless: an `ask` has nobody to ask, the call is refused
                    s.show("results", {"blocked": True, "reason": report["reason"]})
                    continue
                tool_input = report["arguments"]
                code, out, err = run_bounded(["bash", "-c", tool_input["command"]], cwd=sandbox.proj, env=env)
                s.show("results", {"blocked": False})
                payload = {"tool_name": call["name"], "tool_input": tool_input}
                if code:
                    payload["error"] = FAILED_CALL.format(code=code)
                    s.after_call("PostToolUseFailure", s.fire("PostToolUseFailure", payload))
                    response = payload["error"]
                else:
                    response = {"stdout": out, "stderr": err, "interrupted": False, "isImage": False}
                    payload["tool_response"] = response
                    s.after_call("PostToolUse", s.fire("PostToolUse", payload))
                batch.append({"tool_name": call["name"], "tool_input": tool_input, "tool_response": response})
            if batch:
                report = s.fire("PostToolBatch", {"tool_calls": batch})
                s.add_context("PostToolBatch", report)
                if report["decision"] == "block" and report["honored"]:
                    # A block here ends the turn (the event's block policy);
                    # a headless run has no next prompt, so the session ends.
                    s.stopped = True
            if s.stopped:
                return observation()
            continue
        report = s.fire("Stop", {"stop_hook_active": stop_active, "last_assistant_message": turn["text"]})
        # A Stop `continue: false` ends a session that was ending anyway.
        s.stopped = False
        if not report.get("follow_up"):
            return observation()
        for line in report["follow_up"].split("\n"):
            s.show("follow_up", line)
        stop_active = True
    return observation()
