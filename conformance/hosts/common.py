"""What the hosts' scenario runner shares: the sandbox a scenario runs in, the
scripted model server, and running a process with a bound."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Generous bound on one host run: a host that hangs fails its scenario.
RUN_BOUND_S = 120


class Sandbox:
    """A scratch directory with `home/` (HOME) and `proj/` (the project),
    holding a scenario's files with `@ROOT@` replaced by its own path."""

    def __init__(self, scenario):
        self.root = Path(tempfile.mkdtemp(prefix="hooks-host-"))
        self.home = self.root / "home"
        self.proj = self.root / "proj"
        self.home.mkdir()
        self.proj.mkdir()
        for rel, content in scenario.get("files", {}).items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            text = content if isinstance(content, str) else json.dumps(content, indent=2)
            path.write_text(self.fill(text))
            if text.startswith("#!"):
                path.chmod(0o755)

    def fill(self, value):
        """`value` (a string, or JSON data) with `@ROOT@` as this sandbox's path."""
        if isinstance(value, str):
            return value.replace("@ROOT@", str(self.root))
        return json.loads(self.fill(json.dumps(value)))

    def marker(self):
        """The lines the scenario's tool calls and hooks wrote to `@ROOT@/marker`."""
        path = self.root / "marker"
        return path.read_text().splitlines() if path.exists() else []

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def model_server(turns, workdir):
    """The scripted model server on 127.0.0.1, answering `turns`; yields
    `(port, read_requests)`. Always stopped on the way out."""
    script = workdir / "turns.json"
    script.write_text(json.dumps(turns))
    log = workdir / "requests.jsonl"
    portfile = workdir / "port"
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "model_server.py"), str(script), str(log), str(portfile)],
        stdin=subprocess.DEVNULL,
        stderr=open(workdir / "model_server.err", "w"),
    )
    try:
        deadline = time.monotonic() + 20
        while not portfile.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the model server did not start: " + (workdir / "model_server.err").read_text())
            time.sleep(0.02)

        def requests():
            if not log.exists():
                return []
            return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

        yield int(portfile.read_text()), requests
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_bounded(argv, *, cwd, env, stdin=None, bound=RUN_BOUND_S):
    """Runs `argv` in its own process group; past `bound` seconds the whole
    group is killed and the run counts as hung. Returns (code, stdout, stderr)."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        out, err = proc.communicate(input=stdin.encode() if stdin is not None else None, timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out.decode(errors="replace"), err.decode(errors="replace") + f"\n[hung: killed after {bound} s]"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what the run left behind
        except ProcessLookupError:
            pass
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def base_env(sandbox):
    """The environment every run starts from: PATH and locale of this machine,
    HOME in the sandbox, nothing of the session that runs the suite."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR")}
    env["HOME"] = str(sandbox.home)
    env["ROOT"] = str(sandbox.root)
    return env


def hooks_test(hooks_bin, sandbox, dialect, event, payload, extra=()):
    """`hooks test --json` for one event, in the sandbox's project: the report."""
    argv = [str(hooks_bin), "test", "--json", "--discover", dialect, "--event", event,
            "--payload", json.dumps(payload), *extra]
    code, out, err = run_bounded(argv, cwd=sandbox.proj, env=base_env(sandbox))
    if code != 0:
        raise RuntimeError(f"hooks test exited {code}: {err.strip()}")
    return json.loads(out)
