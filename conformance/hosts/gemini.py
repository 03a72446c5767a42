"""Gemini CLI: the pinned `@google/gemini-cli-core`'s own HookSystem driven
through one scripted turn by gemini_driver.mjs (BeforeAgent, then BeforeTool,
the tool, AfterTool for each scripted call), and the same turn through
`hooks test --discover gemini`.

No model server is involved: the core package has no headless session of its
own (that is the CLI package, which needs a Gemini login), so the driver plays
the parts of the CLI that read the hooks' answers, as its sources do (see the
note at the top of gemini_driver.mjs). A scenario has `files` (settings under
`home/.gemini/settings.json` and `proj/.gemini/settings.json`), an optional
`prompt`, `calls`: the tool calls of the turn, `{"name", "input"}`, and an
optional `response`: the model's last text, for AfterAgent.

What is compared, flattened so that a kept difference can name one field:
`session.context` and `session.user_messages` (SessionStart), `agent.outcome` (proceed / block / stop), `agent.reason`, `agent.context`,
`agent.user_messages`, `model.outcome` / `model.reason` / `model.model`
(BeforeModel before the first model call: proceed / block / stop, and the
model the possibly rewritten request names), then per call `callN.before` (proceed / block / stop /
ask / invalid), `callN.reason`, `callN.model_text` (the text that reaches the
model instead of the tool's result), `callN.tool_input` (the arguments the
tool ran with), `callN.after` (block / stop after the tool), `callN.context`,
`callN.user_messages`, then `end.outcome` (done / block / stop: AfterAgent),
`end.reason`, `end.retry` (AfterAgent's answer on the retry a block asks
for), `end.user_messages`, and `marker` (what the commands and hooks wrote)."""
import json

from common import HERE, base_env, hooks_test, run_bounded

DRIVER = HERE / "gemini_driver.mjs"
# The session id the driver's Config has, given to ours too.
SESSION = "conformance-session"


def flatten(raw, sandbox):
    """The driver's (or our) nested observation as flat fields, with the
    sandbox's path written `@ROOT@` again (the two runs have two sandboxes)."""
    raw = json.loads(json.dumps(raw).replace(str(sandbox.root), "@ROOT@"))
    seen = {"marker": raw["marker"]}
    for part in ("session", "agent", "model", "end"):
        for key, value in (raw[part] or {}).items():
            seen[f"{part}.{key}"] = value
    seen["calls"] = len(raw["calls"])
    for index, call in enumerate(raw["calls"]):
        for key, value in call.items():
            seen[f"call{index}.{key}"] = value
    return seen


# Where the pinned package is, as observe_host was given it (run.py runs the
# host's side of a scenario first): observe_ours asks its shell tool whether
# rewritten arguments are valid.
INSTALLED = {"dir": None}


def tool_build_error(sandbox, args):
    """The error of Gemini's own shell tool `build` on `args` (its parameter
    check), or None: what the scheduler does with a hook's rewritten input,
    whoever decided the rewrite."""
    if INSTALLED["dir"] is None:
        raise RuntimeError("the host's side of the scenario did not run first: no installed package to check the tool's parameters")
    path = sandbox.root / "build-args.json"
    path.write_text(json.dumps(args))
    code, out, err = run_bounded(["node", str(DRIVER), "--build", str(path), str(sandbox.proj)],
                                 cwd=INSTALLED["dir"], env=base_env(sandbox))
    if code != 0:
        raise RuntimeError(f"the driver's --build exited {code}: {err[-800:]}")
    return json.loads(out)["error"]


def observe_host(scenario, sandbox, install):
    INSTALLED["dir"] = install
    spec = {
        "home": str(sandbox.home),
        "proj": str(sandbox.proj),
        "prompt": scenario.get("prompt", "go"),
        "calls": sandbox.fill(scenario.get("calls", [])),
        "response": scenario.get("response", "done"),
    }
    (sandbox.root / "spec.json").write_text(json.dumps(spec))
    answer = sandbox.root / "host.json"
    code, out, err = run_bounded(["node", str(DRIVER), str(sandbox.root / "spec.json"), str(answer)],
                                 cwd=install, env=base_env(sandbox))
    if code != 0 or not answer.exists():
        return {"error": f"the driver exited {code}: {err[-800:]}"}
    raw = json.loads(answer.read_text())
    raw["marker"] = sandbox.marker()
    return flatten(raw, sandbox)


def joined(texts):
    return "\n".join(texts) if texts else None


def observe_ours(scenario, sandbox, hooks_bin):
    """The same turn with tower-hooks deciding each event."""
    def ask(event, payload):
        return hooks_test(hooks_bin, sandbox, "gemini", event, payload, extra=("--session-id", SESSION))

    calls = sandbox.fill(scenario.get("calls", []))
    prompt, response = scenario.get("prompt", "go"), scenario.get("response", "done")
    report = ask("SessionStart", {"source": "startup"})
    session = {"context": joined(report["context"]), "user_messages": report["user_messages"]}
    report = ask("BeforeAgent", {"prompt": prompt})
    agent = {"outcome": "proceed", "reason": None, "context": None, "user_messages": report["user_messages"]}
    if report["stop"] is not None:
        agent.update(outcome="stop", reason=report["stop"])
    elif report["decision"] == "block" and report["honored"]:
        agent.update(outcome="block", reason=report["reason"])
    else:
        agent["context"] = joined(report["context"])
    raw = {"session": session, "agent": agent, "model": None, "calls": [], "end": None}
    if agent["outcome"] == "proceed":
        request = {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": prompt}]}
        report = ask("BeforeModel", {"llm_request": request})
        model = {"outcome": "proceed", "reason": None, "model": request["model"]}
        if report["stop"] is not None:
            model.update(outcome="stop", reason=report["stop"])
        elif report["decision"] == "block" and report["honored"]:
            model.update(outcome="block", reason=report["reason"])
        else:
            model["model"] = report["arguments"].get("llm_request", {}).get("model", request["model"])
        raw["model"] = model
    goes_on = agent["outcome"] == "proceed" and raw["model"]["outcome"] == "proceed"
    for call in calls if goes_on else []:
        seen = {"before": "proceed", "reason": None, "model_text": None, "tool_input": call["input"],
                "after": None, "context": None, "user_messages": []}
        raw["calls"].append(seen)
        report = ask("BeforeTool",
                            {"tool_name": call["name"], "tool_input": call["input"]})
        seen["user_messages"] += report["user_messages"]
        if report["stop"] is not None:
            seen.update(before="stop", reason=report["stop"], model_text=report["host_message"])
            break
        if report["decision"] == "block" and report["honored"]:
            seen.update(before="block", reason=report["reason"], model_text=report["host_message"])
            continue
        args = report["arguments"]
        if args != call["input"] and call["name"] == "run_shell_command":
            # The host's scheduler, not the hooks: the call is rebuilt from the
            # rewritten arguments and the tool checks its parameters.
            error = tool_build_error(sandbox, args)
            if error is not None:
                seen.update(before="invalid",
                            model_text=f"Tool parameter modification by hook failed validation: {error}")
                continue
        seen["tool_input"] = args
        if report["decision"] == "ask":
            seen["before"] = "ask"
            continue
        result = ""
        if call["name"] == "run_shell_command":
            _, result, _ = run_bounded(["bash", "-c", str(args.get("command", ""))], cwd=sandbox.proj,
                                       env=base_env(sandbox))
        report = ask("AfterTool", {
            "tool_name": call["name"], "tool_input": args,
            "tool_response": {"llmContent": result, "returnDisplay": result},
        })
        seen["user_messages"] += report["user_messages"]
        if report["stop"] is not None:
            seen.update(after="stop", reason=report["stop"], model_text=report["host_message"])
            break
        if report["decision"] == "block" and report["honored"]:
            seen.update(after="block", reason=report["reason"], model_text=report["host_message"])
            continue
        seen["context"] = joined(report["context"])
    stopped = not goes_on or any("stop" in (c["before"], c["after"]) for c in raw["calls"])
    if not stopped:
        def verdict(report):
            if report["stop"] is not None:
                return "stop", report["stop"]
            if report["decision"] == "block" and report["honored"]:
                return "block", report["reason"]
            return "done", None

        payload = {"prompt": prompt, "prompt_response": response, "stop_hook_active": False}
        report = ask("AfterAgent", payload)
        end = {"outcome": None, "reason": None, "retry": None, "user_messages": report["user_messages"]}
        end["outcome"], end["reason"] = verdict(report)
        if end["outcome"] == "block":
            report = ask("AfterAgent", {**payload, "stop_hook_active": True})
            end["user_messages"] += report["user_messages"]
            end["retry"] = verdict(report)[0]
        raw["end"] = end
    raw["marker"] = sandbox.marker()
    return flatten(raw, sandbox)
