#!/usr/bin/env python3
"""The real hosts as the oracle: each scenario runs through the pinned real
host (Claude Code, Codex, Gemini CLI) and through tower-hooks with that host's
dialect, and the two observations are compared field by field.

    python3 conformance/hosts/run.py [--host NAME]... [--bin target/debug/hooks] [-k TEXT]

The hosts are installed from the npm registry, at the versions in pins.json,
into target/hosts/<name>-<version>/ (kept between runs). Model servers run on
127.0.0.1 only, one per scenario, and are stopped when it ends. A difference
we keep on purpose is listed in differences/NAME.json with its reason; any other
difference fails the scenario. After a host's whole set has run, the feature
table of its page in docs/ is held to what the scenarios showed (doc_rows.py):
each row that names scenarios counts as one more check. The last line is
`N passed, M failed`.
"""
import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import HERE, Sandbox  # noqa: E402
import doc_rows  # noqa: E402

REPO = HERE.parent.parent


def install(name, pin, cache):
    """The host's npm package at its pinned version, under `cache`."""
    target = cache / f"{name}-{pin['version']}"
    stamp = target / ".installed"
    if stamp.exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    argv = ["npm", "install", "--prefix", str(target), "--no-audit", "--no-fund", "--loglevel=error",
            f"{pin['npm']}@{pin['version']}"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    except FileNotFoundError:
        sys.exit("npm is not installed: the hosts come from the npm registry (apt-get install npm)")
    except subprocess.TimeoutExpired:
        sys.exit(f"installing {pin['npm']}@{pin['version']} from the npm registry took over 15 minutes")
    if done.returncode != 0:
        sys.exit(f"could not install {pin['npm']}@{pin['version']} from the npm registry:\n{done.stderr[-2000:]}")
    stamp.write_text(pin["version"])
    return target


def compare(host, ours, allowed):
    """The fields that differ and are not allowed to, as `field: host != ours`."""
    problems = []
    for field in sorted(set(host) | set(ours)):
        if host.get(field) != ours.get(field) and field not in allowed:
            problems.append(f"{field}: host {json.dumps(host.get(field))} != ours {json.dumps(ours.get(field))}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", action="append", choices=["claude", "codex", "gemini"])
    parser.add_argument("--bin", default=str(REPO / "target/debug/hooks"))
    parser.add_argument("--cache", default=str(REPO / "target/hosts"))
    parser.add_argument("-k", dest="filter", default="")
    parser.add_argument("--show", action="store_true", help="print both observations of every scenario")
    args = parser.parse_args()
    pins = json.loads((HERE / "pins.json").read_text())
    hooks_bin = Path(args.bin).resolve()
    if not hooks_bin.exists():
        sys.exit(f"{hooks_bin} does not exist: build it first (cargo build -p tower-hooks-cli --bin hooks)")
    passed = failed = 0
    for name in args.host or ["claude", "codex", "gemini"]:
        scenarios = sorted((HERE / "scenarios" / name).glob("*.json"))
        if not scenarios:
            continue
        where = install(name, pins[name], Path(args.cache))
        host = importlib.import_module(name)
        # {scenario: {field: why we differ on purpose}}
        differences = json.loads((HERE / "differences" / f"{name}.json").read_text())
        outcomes = {}
        for path in scenarios:
            label = f"{name}/{path.stem}"
            if args.filter not in label:
                continue
            scenario = json.loads(path.read_text())
            allowed = differences.get(path.stem, {})
            box = Sandbox(scenario)
            try:
                seen = host.observe_host(scenario, box, where)
            finally:
                box.remove()
            box = Sandbox(scenario)
            try:
                ours = host.observe_ours(scenario, box, hooks_bin)
            except Exception as error:  # a scenario the runner cannot play is a failure
                ours = {"error": f"{type(error).__name__}: {error}"}
            finally:
                box.remove()
            problems = compare(seen, ours, allowed)
            listed = any(seen.get(f) != ours.get(f) for f in allowed)
            outcomes[path.stem] = (not problems, listed)
            if args.show or problems:
                print(f"  host: {json.dumps(seen)}\n  ours: {json.dumps(ours)}")
            if problems:
                failed += 1
                print(f"FAIL {label}")
                for problem in problems:
                    print(f"     {problem}")
            else:
                passed += 1
                print(f"ok   {label}")
        if not args.filter:
            # The page's feature table says what these scenarios showed.
            problems, checked = doc_rows.check(REPO, name, outcomes)
            for problem in problems:
                print(f"FAIL {problem}")
            failed += len(problems)
            passed += checked - len(problems)
    if passed + failed == 0:
        sys.exit("no scenario ran")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
