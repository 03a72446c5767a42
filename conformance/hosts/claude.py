"""Claude Code: a whole headless session (`claude -p`) against the scripted
model server, and the same scenario through `hooks test --discover claude`.

What is compared, per scripted tool call: whether it ran and what it ran (the
`marker` file its command writes), and what went back to the model in its
`tool_result` (a hook's block, with its reason, or the tool's own result);
then how many model requests the session made (whether it went on)."""
import json
import re

from common import base_env, hooks_test, model_server, run_bounded

BINARY = "node_modules/@anthropic-ai/claude-code-linux-x64/claude"
# Claude Code's words for a tool call its PreToolUse hook blocked: with the
# hook's command for an exit 2, without it for a JSON deny.
BLOCKED = re.compile(r"^PreToolUse:(?P<tool>\S+) hook error: (?:\[(?P<command>.*?)\]: )?(?P<reason>.*)$", re.S)


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


def result_of(block):
    """A `tool_result` as the observation compares it."""
    content = block.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    content = content or ""
    found = BLOCKED.match(content)
    if block.get("is_error") and found:
        return {"blocked": True, "reason": found["reason"].rstrip("\n")}
    return {"blocked": False}


def observe_host(scenario, sandbox, install):
    turns = sandbox.fill(scenario["turns"])
    with model_server(turns, sandbox.root) as (port, requests):
        argv = [str(install / BINARY), "-p", scenario.get("prompt", "go"),
                "--allowedTools", "Bash", "--output-format", "json",
                "--max-turns", str(len(turns) + 2)]
        code, out, err = run_bounded(argv, cwd=sandbox.proj, env=host_env(sandbox, port))
        reqs = requests()
    if code is None:
        return {"error": "the host hung: " + err[-400:]}
    results = []
    for req in reqs:
        messages = req["body"].get("messages", [])
        last = messages[-1] if messages else {}
        if last.get("role") == "user" and isinstance(last.get("content"), list) and req["turn"] > 0:
            results += [result_of(b) for b in last["content"] if b.get("type") == "tool_result"]
    return {
        "marker": sandbox.marker(),
        "results": results,
        "model_requests": sum(1 for r in reqs if r["turn"] >= 0),
    }


def observe_ours(scenario, sandbox, hooks_bin):
    """The session Claude Code would have run, with tower-hooks deciding:
    each scripted tool call goes through PreToolUse; a block answers the
    model with the reason, anything else runs the (possibly rewritten) call."""
    turns = sandbox.fill(scenario["turns"])
    results, requests = [], 0
    for turn in turns:
        requests += 1
        if "tools" not in turn:
            break
        for call in turn["tools"]:
            payload = {"tool_name": call["name"], "tool_input": call["input"]}
            report = hooks_test(hooks_bin, sandbox, "claude", "PreToolUse", payload)
            if report["decision"] == "block" and report["honored"]:
                results.append({"blocked": True, "reason": report["reason"]})
                continue
            tool_input = report["arguments"]
            if call["name"] == "Bash":
                run_bounded(["bash", "-c", tool_input["command"]], cwd=sandbox.proj, env=base_env(sandbox))
            results.append({"blocked": False})
    else:
        requests += 1  # the request after the last turn, answered "done"
    return {"marker": sandbox.marker(), "results": results, "model_requests": requests}
