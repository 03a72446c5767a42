"""Codex: a whole headless session (`codex exec`) against the scripted model
server (OpenAI's Responses API, a custom provider), and the same scenario
through `hooks test --discover codex`.

Codex offers the model a shell tool named `exec_command` (input `{"cmd":
...}`); its hooks see it as `Bash` with `{"command": ...}`. With a model
whose edit tool is the freeform `apply_patch` (a scenario's `"config":
{"model": "gpt-5.5"}`), a call's `input` is the patch text and its `as` is
the same change as a host with Claude Code's tools makes it (`Edit`,
`Write`, `MultiEdit`): that is what tower-hooks is given, and its hooks must
see Codex's patch. What is compared:

* `marker`: the lines the tool calls and hooks wrote (whether and what ran);
* `results`: per tool call, what went back to the model in its
  `function_call_output`: the tool's own output (`{"output": "tool"}`), a
  PreToolUse block with its reason, or the text a PostToolUse block put in
  the output's place;
* `context`: the messages hooks added for the model (`additionalContext`,
  plain text at SessionStart and UserPromptSubmit), in the order the model
  saw them;
* `instructions`: what a Stop block gave the model as its next instruction;
* `files`: the contents, after the session, of the files a scenario lists
  in `observe` (what the edits did);
* `model_requests`: how many requests the session made (whether it went on);
* `statuses`: the `hook: EVENT STATUS` lines `codex exec` prints (Completed,
  Blocked, Failed, Stopped), one per hook run (sorted within one event's
  run: its hooks run at once).

What the person sees beside that (`systemMessage`, a UserPromptSubmit
block's reason) is not printed by `codex exec`, in its text or `--json`
form, nor written to its session file, so no scenario can compare it."""
import json
import re

from common import base_env, model_server, run_bounded

BINARY = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
# Codex's text to the model for a call its PreToolUse hook blocked.
BLOCKED = re.compile(r"^Command blocked by PreToolUse hook: (?P<reason>.*)\. Command: (?P<command>.*)$", re.S)
# The start of a tool's own output: the shell tool's, or `apply_patch`'s.
TOOL_OUTPUT = re.compile(r"^(Chunk ID: |Exit code: 0\n)")
STATUS = re.compile(r"^hook: (?P<event>\w+) (?P<status>Completed|Blocked|Failed|Stopped)\s*$", re.M)
# A Stop block's reason, given to the model as the next instruction: one
# element per blocking hook, several in one message.
HOOK_PROMPT = re.compile(r"<hook_prompt[^>]*>(?P<text>.*?)</hook_prompt>", re.S)

# The settings every run starts from; a scenario's `config` overrides them.
CONFIG = {
    "model_provider": "mock",
    "model": "gpt-5",
    "approval_policy": "never",
    "sandbox_mode": "danger-full-access",
}


def write_config(sandbox, scenario, port):
    """`$CODEX_HOME/config.toml`: the mock provider, the scenario's
    `config` keys, then whatever `config.toml` the scenario wrote itself."""
    path = sandbox.home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    own = path.read_text() if path.exists() else ""
    keys = dict(CONFIG, **scenario.get("config", {}))
    lines = [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    lines += ["", own, "", "[model_providers.mock]", 'name = "mock"',
              f'base_url = "http://127.0.0.1:{port}/v1"', 'wire_api = "responses"',
              "requires_openai_auth = false", ""]
    path.write_text("\n".join(lines))


def host_env(sandbox, scenario):
    env = base_env(sandbox)
    env.update({
        "CODEX_HOME": str(sandbox.home / ".codex"),
        "OPENAI_API_KEY": "dummy",
        # Codex runs hooks under `$SHELL -lc`.
        "SHELL": "/bin/sh",
    })
    env.update(sandbox.fill(scenario.get("env", {})))
    return env


def text_of(item):
    return "".join(part.get("text", "") for part in item.get("content", []) if isinstance(part, dict))


def result_of(output):
    """A `function_call_output` as the observation compares it."""
    if not isinstance(output, str):
        output = json.dumps(output)
    found = BLOCKED.match(output)
    if found:
        return {"output": "blocked", "reason": found["reason"]}
    if TOOL_OUTPUT.match(output):
        return {"output": "tool"}
    return {"output": "replaced", "text": output}


def conversation(reqs, prompt):
    """From the last request's input: the results, the context messages and
    the Stop instructions, each in order."""
    if not reqs:
        return [], [], []
    items = reqs[-1]["body"].get("input", [])
    # Everything before the environment context is Codex's own preamble.
    start = next((i + 1 for i, item in enumerate(items)
                  if item.get("type") == "message" and text_of(item).startswith("<environment_context>")), 0)
    results, context, instructions = [], [], []
    for item in items[start:]:
        kind = item.get("type")
        if kind in ("function_call_output", "custom_tool_call_output"):
            results.append(result_of(item.get("output")))
        elif kind == "message" and item.get("role") in ("user", "developer"):
            text = text_of(item)
            prompts = [m["text"] for m in HOOK_PROMPT.finditer(text)] if text.lstrip().startswith("<hook_prompt") else []
            if prompts:
                instructions.extend(prompts)
            elif item.get("role") == "developer":
                context.append(text)
            elif text != prompt:
                context.append(text)
    return results, context, instructions


def observe_host(scenario, sandbox, install):
    turns = sandbox.fill(scenario["turns"])
    prompt = scenario.get("prompt", "go")
    with model_server(turns, sandbox.root) as (port, requests):
        write_config(sandbox, scenario, port)
        argv = [str(install / BINARY), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
                "--color", "never", prompt]
        code, out, err = run_bounded(argv, cwd=sandbox.proj, env=host_env(sandbox, scenario))
        reqs = [r for r in requests() if r["turn"] >= 0]
    if code is None:
        return {"error": "the host hung: " + err[-400:]}
    results, context, instructions = conversation(reqs, prompt)
    return {
        "marker": sandbox.marker(),
        "results": results,
        "context": context,
        "instructions": instructions,
        "model_requests": len(reqs),
        "statuses": host_statuses(err),
        **observed_files(scenario, sandbox),
    }


def observed_files(scenario, sandbox):
    """The files the scenario's `observe` lists, as they are now (`None`
    for one that is not there)."""
    if "observe" not in scenario:
        return {}
    def content(rel):
        path = sandbox.root / rel
        return path.read_text() if path.exists() else None
    return {"files": {rel: content(rel) for rel in scenario["observe"]}}


def run_edit(name, args):
    """The host's own edit or write tool, as Claude Code's tools do it."""
    path = args["file_path"]
    if name == "Write":
        with open(path, "w") as f:
            f.write(args["content"])
        return
    with open(path) as f:
        text = f.read()
    edits = args.get("edits", [args])
    for edit in edits:
        text = text.replace(edit["old_string"], edit["new_string"], 1)
    with open(path, "w") as f:
        f.write(text)


def statuses_of(event, report):
    """The lines `codex exec` prints for one event's hooks (one per hook
    that ran, in no fixed order, so sorted), from our report."""
    lines = []
    for hook in report["hooks"]:
        outcome = hook["outcome"]
        if outcome in ("skipped", "not_run"):
            continue
        if outcome in ("error", "timeout", "failed_closed"):
            status = "Failed"
        elif report.get("stop") is not None and hook.get("reason") in (None, report["stop"]):
            # continue: false. A hook's record does not carry it; the report's
            # stop does, and the hook that said it has that reason or none.
            status = "Stopped"
        elif outcome == "block":
            status = "Blocked"
        else:
            status = "Completed"
        lines.append(f"{event} {status}")
    return sorted(lines)


def host_statuses(stderr):
    """The `hook: EVENT STATUS` lines, each run of one event sorted (its
    hooks run at once and finish in any order)."""
    runs = []
    for m in STATUS.finditer(stderr):
        line = f"{m['event']} {m['status']}"
        if runs and runs[-1][0].split()[0] == m["event"]:
            runs[-1].append(line)
        else:
            runs.append([line])
    return [line for run in runs for line in sorted(run)]


class Session:
    """The session Codex would have run, with tower-hooks deciding each
    event through `hooks test --discover codex`."""

    def __init__(self, scenario, sandbox, hooks_bin):
        self.sandbox, self.hooks_bin = sandbox, hooks_bin
        self.extra_env = sandbox.fill(scenario.get("env", {}))
        self.statuses, self.context, self.instructions, self.results = [], [], [], []

    def fire(self, event, payload, call_id=None):
        argv = [str(self.hooks_bin), "test", "--json", "--discover", "codex", "--event", event,
                "--payload", json.dumps(payload)]
        if call_id is not None:
            argv += ["--tool-call-id", call_id]
        code, out, err = run_bounded(argv, cwd=self.sandbox.proj, env=self.env())
        if code != 0:
            raise RuntimeError(f"hooks test exited {code}: {err.strip()}")
        report = json.loads(out)
        self.statuses += statuses_of(event, report)
        return report

    def env(self):
        """The environment of the session: the host's, with the same SHELL."""
        env = base_env(self.sandbox)
        env["SHELL"] = "/bin/sh"
        env.update(self.extra_env)
        return env

    def blocked(self, report):
        return report["decision"] == "block" and report["honored"]


def observe_ours(scenario, sandbox, hooks_bin):
    turns = sandbox.fill(scenario["turns"])
    prompt = scenario.get("prompt", "go")
    s = Session(scenario, sandbox, hooks_bin)
    requests = 0

    def observation():
        return {"marker": sandbox.marker(), "results": s.results, "context": s.context,
                "instructions": s.instructions, "model_requests": requests,
                "statuses": host_statuses("".join(f"hook: {line}\n" for line in s.statuses)),
                **observed_files(scenario, sandbox)}

    report = s.fire("SessionStart", {"source": "startup"})
    s.context += report["context"]
    report = s.fire("UserPromptSubmit", {"prompt": prompt})
    if s.blocked(report) or report.get("stop") is not None:
        return observation()
    s.context += report["context"]
    stop_hook_active = False
    k = 0
    while True:
        turn = turns[k] if k < len(turns) else {"text": "done"}
        k += 1
        requests += 1
        if "tools" in turn:
            stopped = False
            for i, call in enumerate(turn["tools"]):
                # The model server's id for the call, which Codex passes on.
                call_id = f"call_{k - 1}_{i}"
                if call["name"] == "apply_patch":
                    name, tool_input = call["as"]["name"], call["as"]["input"]
                else:
                    name, tool_input = "Bash", {"command": call["input"]["cmd"]}
                report = s.fire("PreToolUse", {"tool_name": name, "tool_input": tool_input}, call_id)
                s.context += report["context"]
                if s.blocked(report):
                    s.results.append({"output": "blocked", "reason": report["reason"]})
                    continue
                tool_input = report["arguments"]
                if name == "Bash":
                    run_bounded(["bash", "-lc", tool_input["command"]], cwd=sandbox.proj, env=s.env())
                else:
                    run_edit(name, tool_input)
                report = s.fire("PostToolUse", {"tool_name": name, "tool_input": tool_input,
                                                "tool_response": ""}, call_id)
                s.context += report["context"]
                if s.blocked(report):
                    s.results.append({"output": "replaced", "text": report["reason"]})
                else:
                    s.results.append({"output": "tool"})
                if report.get("stop") is not None:
                    stopped = True
            if stopped:
                return observation()
            continue
        report = s.fire("Stop", {"stop_hook_active": stop_hook_active, "last_assistant_message": turn["text"]})
        if s.blocked(report):
            # Each blocking hook's reason, as Codex gives each its own element.
            s.instructions.extend(h["reason"] for h in report["hooks"] if h["outcome"] == "block")
            stop_hook_active = True
            continue
        return observation()
