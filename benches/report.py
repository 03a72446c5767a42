#!/usr/bin/env python3
"""Turn criterion's results for `cargo bench --bench overhead` (and `--bench http`, `--bench replay`, `--bench hosts`) into BENCHMARKS.md
and benches/overhead.svg.

Usage: python3 benches/report.py [--criterion target/criterion] [--out BENCHMARKS.md]
                                 [--svg benches/overhead.svg] [--machine "..."]
                                 [--pinned target/criterion-pinned] [--sections]

Reads each benchmark's `new/estimates.json` (median and its 95% confidence
interval, median absolute deviation), computes the ratios that issue #6 sets as
targets, and writes a Markdown table and an SVG chart of the ratios against their
targets. `--pinned` names the criterion data of the same benches run on one core
(`taskset -c 0`, see REPRODUCE), shown beside the normal run. `--sections` prints
only the sections of the ids that ran (HTTP hooks, the physical floor, the real
hosts side by side) to stdout,
for a run of a few groups. Standard library only. Exits 1 when a target does not hold.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

IDS = [
    "idle/bare_service",
    "idle/gated",
    "idle/no_hooks_for_event",
    "idle/skipped_by_matcher",
    "in_process/one_hook",
    "in_process/ten_hooks_transforming",
    "spawn/floor",
    "spawn/command_hook",
    "spawn/floor_concurrent_64",
    "spawn/command_hook_concurrent_64",
    "spawn/command_hook_big_parent",
    "spawn/floor_concurrent_8",
    "spawn/claude_parallel_8",
    "spawn/floor_sequential_4",
    "spawn/gemini_sequential_4",
    "persistent/floor",
    "persistent/runtime_floor",
    "persistent/round_trip",
    "persistent/concurrent_64",
]

# How the figures are made, run in this order (the pinned runs write to a
# directory of their own).
REPRODUCE = [
    "cargo bench --bench overhead",
    "cargo bench --bench http --features http",
    "cargo bench --bench replay",
    "CRITERION_HOME=target/criterion-pinned taskset -c 0 cargo bench --bench overhead -- persistent/",
    "CRITERION_HOME=target/criterion-pinned taskset -c 0 cargo bench --bench http --features http",
    "python3 benches/report.py --pinned target/criterion-pinned",
]

# The round trips against their physical floor: (label, round trip, floor, limit).
FLOORS = [
    ("persistent round_trip / floor", "persistent/round_trip", "persistent/floor", 1.2),
    ("http round_trip / floor", "http/round_trip", "http/floor", 1.2),
]

# Where a round trip's time goes, beside its floor: (label, round trip, a second
# floor that adds the runtime's I/O driver to the first). Shown, no target.
SHARES = [
    ("persistent round_trip / runtime_floor", "persistent/round_trip", "persistent/runtime_floor"),
]

SCALING = [1, 2, 5, 10]  # scaling/transforming_hooks/N

# (label, numerator, denominator or None for an absolute bound in ns, limit)
TARGETS = [
    ("gated / bare_service", "idle/gated", "idle/bare_service", 1.5),
    ("no_hooks_for_event / bare_service", "idle/no_hooks_for_event", "idle/bare_service", 3.0),
    ("skipped_by_matcher / bare_service", "idle/skipped_by_matcher", "idle/bare_service", 3.0),
    ("one_hook (µs)", "in_process/one_hook", None, 1000.0),
    ("command_hook / floor", "spawn/command_hook", "spawn/floor", 1.05),
    ("command_hook_concurrent_64 / floor_concurrent_64", "spawn/command_hook_concurrent_64",
     "spawn/floor_concurrent_64", 1.10),
    ("command_hook_big_parent / command_hook", "spawn/command_hook_big_parent", "spawn/command_hook", 1.10),
    ("claude_parallel_8 / floor_concurrent_8", "spawn/claude_parallel_8", "spawn/floor_concurrent_8", 1.10),
    ("gemini_sequential_4 / floor_sequential_4", "spawn/gemini_sequential_4", "spawn/floor_sequential_4", 1.05),
    # A persistent hook is at least 20 times cheaper than a spawn per event.
    ("persistent round_trip / command_hook", "persistent/round_trip", "spawn/command_hook", 0.05),
    ("persistent concurrent_64 / command_hook_concurrent_64", "persistent/concurrent_64",
     "spawn/command_hook_concurrent_64", 0.05),
    FLOORS[0],
]


def load(root: str, bench_id: str) -> dict:
    # criterion stores `group/function/param` as `group/function_param`.
    group, rest = bench_id.split("/", 1)
    path = os.path.join(root, group, rest.replace("/", "_"), "new", "estimates.json")
    with open(path) as f:
        est = json.load(f)
    med = est["median"]
    return {
        "median": med["point_estimate"],
        "lo": med["confidence_interval"]["lower_bound"],
        "hi": med["confidence_interval"]["upper_bound"],
        "mad": est["median_abs_dev"]["point_estimate"],
    }


def human(ns: float) -> str:
    if ns < 1_000:
        return f"{ns:.1f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.2f} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1_000_000:.3f} ms"
    return f"{ns / 1_000_000_000:.3f} s"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        rustc = "rustc (unknown version)"
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} × {cpu}{mem}, {platform.system()} {platform.release()}, {rustc}"


def svg(rows: list[tuple[str, float, float, bool]]) -> str:
    """Horizontal bars: each ratio as a share of its target (1.0 = at the target)."""
    width, left, bar_h, gap, top = 940, 350, 22, 10, 40
    scale_max = max(1.25, max(v / lim for _, v, lim, _ in rows) * 1.1)
    plot_w = width - left - 180
    height = top + len(rows) * (bar_h + gap) + 40
    x = lambda frac: left + plot_w * frac / scale_max  # noqa: E731
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">'
        "tower-hooks overhead: measured / target (left of the line = target met)</text>",
    ]
    for i, (label, value, limit, ok) in enumerate(rows):
        y = top + i * (bar_h + gap)
        frac = value / limit
        color = "#3a9d5d" if ok else "#d9534f"
        out.append(f'<text x="{left - 8}" y="{y + bar_h * 0.7}" text-anchor="end">{label}</text>')
        out.append(f'<rect x="{left}" y="{y}" width="{max(1.0, x(frac) - left):.1f}" '
                   f'height="{bar_h}" fill="{color}"/>')
        if limit == 1000.0:
            shown = f"{value / 1000:.3f} µs (target ≤ 1 µs)"
        elif label.startswith("scaling"):
            shown = f"R² = {1 - value:.4f} (target ≥ 0.99)"
        else:
            shown = f"{value:.3f} (target ≤ {limit:g})"
        # Right of the bar, and of the target line where the bar ends near it.
        label_x = max(x(frac), x(1.0) + 4 if frac > 0.85 else 0) + 6
        out.append(f'<text x="{label_x:.1f}" y="{y + bar_h * 0.7}">{shown}</text>')
    line_x = x(1.0)
    out.append(f'<line x1="{line_x:.1f}" y1="{top - 6}" x2="{line_x:.1f}" '
               f'y2="{height - 30}" stroke="black" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{line_x:.1f}" y="{height - 14}" text-anchor="middle">target</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def burst_section(path: str) -> list[str]:
    """How late timed-out calls answered under bursts, from `benches/burst.rs`."""
    try:
        with open(path) as f:
            rows = json.load(f)
    except FileNotFoundError:
        return []
    md = ["## Timeouts under a burst", "",
          "`cargo bench --bench burst`: N calls in flight at once, each to a hook that sleeps past "
          "its 1 s timeout, on a multi-thread runtime. \"Late\" is how long after its deadline "
          "a call answered; the documented bound is 750 ms.", "",
          "| calls in flight | p50 late | p80 late | p99 late | max late | over 750 ms |",
          "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        md.append(f"| {r['calls']} | {r['p50_ms']:.0f} ms | {r['p80_ms']:.0f} ms | {r['p99_ms']:.0f} ms "
                  f"| {r['max_ms']:.0f} ms | {r['over_backstop']} |")
    held = [r["calls"] for r in rows if r["over_backstop"] == 0]
    missed = [r for r in rows if r["over_backstop"] > 0]
    text = ("Each hook is spawned on the thread that polls its call (about a millisecond, "
            "`posix_spawn`); when very many hooks start at once on two cores, those milliseconds "
            "queue up ahead of the timers. ")
    if held:
        text += f"The bound held for every call up to {max(held):,} calls in flight"
        if missed:
            m = min(missed, key=lambda r: r["calls"])
            text += (f"; at {m['calls']:,}, {m['over_backstop']} calls answered later "
                     f"(up to {m['max_ms']:.0f} ms)")
        text += ". The machine did nothing else during the run; other work on its cores lowers the limit."
    md += ["", text, ""]
    return md


def replay_section(root: str) -> list[str]:
    """`hooks replay` over 10,000 recorded events, from `cli/benches/replay.rs` (left out
    when it has not run)."""
    r = try_load(root, "replay/10k_events")
    if r is None:
        return []
    return ["## Replaying sessions", "",
            "`cargo bench --bench replay` (`cli/benches/replay.rs`): the whole `hooks replay` "
            "command (start, read, fire, report) over a record of 10,000 tool calls, each fired "
            "through one persistent hook (a Perl loop that allows).", "",
            "| id | median | 95% CI of the median | per event |", "| --- | ---: | ---: | ---: |",
            f"| `replay/10k_events` | {human(r['median'])} | {human(r['lo'])} – {human(r['hi'])} "
            f"| {human(r['median'] / 10_000)} |", ""]


def try_load(root: str | None, bench_id: str) -> dict | None:
    """`load`, or None when that id has not run (or no directory was given)."""
    if root is None:
        return None
    try:
        return load(root, bench_id)
    except FileNotFoundError:
        return None


def http_section(root: str) -> tuple[list[str], list[bool]]:
    """An HTTP hook against a spawn and against its floor, from `benches/http.rs`
    (left out when it has not run); and whether its targets hold."""
    try:
        trip, spawn = load(root, "http/round_trip"), load(root, "http/command_hook")
    except FileNotFoundError:
        return [], []
    floor = try_load(root, "http/floor")
    ratio = trip["median"] / spawn["median"]
    md = ["## HTTP hooks", "",
          "`cargo bench --bench http --features http` (`benches/http.rs`), all ids in one run:", "",
          "* `http/round_trip`: one `PreToolUse` call for `Bash` through a stack whose only hook is "
          "a Claude Code `http` handler posting to a policy server on 127.0.0.1 that answers 200 "
          "with an empty body (allow). The server is hyper (HTTP/1) on a thread and runtime of its "
          "own, like a separate daemon; the stack's client keeps its connection open between calls.",
          "* `http/floor`: the same body posted to the same server by a bare hyper HTTP/1 "
          "connection (no pool, no tower-hooks code), also kept open, on the same runtime; it and "
          "`round_trip` are each timed with the other run between its iterations.",
          "* `http/command_hook`: the one-shot command hook of `spawn/command_hook` (`bash -c true`, "
          "a 200-byte stdin line), timed the same way, with the spawn floor run untimed between "
          "its iterations.", "",
          "| id | median | 95% CI of the median | MAD |", "| --- | ---: | ---: | ---: |"]
    shown = [("http/round_trip", trip), ("http/floor", floor), ("http/command_hook", spawn)]
    for i, r in shown:
        if r is not None:
            md.append(f"| `{i}` | {human(r['median'])} | {human(r['lo'])} – {human(r['hi'])} | {human(r['mad'])} |")
    verdicts = [ratio <= 0.1]
    md += ["", f"round_trip / command_hook = {ratio:.3f} (target ≤ 0.1: "
           f"{'holds' if ratio <= 0.1 else '**does not hold**'}): an HTTP hook to a local policy "
           f"server costs about 1/{1 / ratio:.0f} of a spawn per event."]
    if floor is not None:
        label, _, _, limit = FLOORS[1]
        over = trip["median"] / floor["median"]
        verdicts.append(over <= limit)
        md.append(f"round_trip / floor = {over:.3f} (target ≤ {limit:g}: "
                  f"{'holds' if over <= limit else '**does not hold**'}): the HTTP client and the "
                  "stack's own work add that much to a bare connection's round trip (see "
                  "\"Against the physical floor\").")
    md.append("")
    return md, verdicts


def floor_section(root: str, pinned: str | None) -> list[str]:
    """The round trips against their floors, beside a run on one core (left out
    when neither floor has run)."""
    ids = [i for _, trip, floor, _ in FLOORS for i in (floor, trip)]
    ids[1:1] = [second for _, _, second in SHARES]
    normal = {i: try_load(root, i) for i in ids}
    on_one = {i: try_load(pinned, i) for i in ids}
    if all(normal[floor] is None for _, _, floor, _ in FLOORS):
        return []
    md = ["## Against the physical floor", "",
          "A persistent hook's round trip and an HTTP hook's are two processes (or two threads) "
          "handing a message to each other and back. On this two-core virtual machine most of "
          "that time is neither side's work but the kernel waking the side that sleeps: issue 22 "
          "measured a bare pipe ping-pong between two processes at 61–67 µs when they sit on "
          "different cores and at 4 µs when both are held on one (`taskset -c 0`), where a "
          "wake-up is a switch on the same core rather than a signal to another one that has to "
          "leave its idle state. The persistent round trip and the slow mode of the bimodal HTTP "
          "round trip wait for that cross-core wake-up. So each round trip is set against a floor "
          "that waits for the same wake-ups with none of our code: `persistent/floor` drives the "
          "same Perl hook with a blocking write-a-line, read-a-line loop (std's `Command`, no "
          "runtime), `http/floor` posts the same body to the same server with a bare hyper "
          "connection. The pinned run is the same benches under `taskset -c 0` (the hook's "
          "process and the server's thread inherit the core). `persistent/runtime_floor` drives "
          "the same hook with a bare async loop on the runtime that times `round_trip` (tokio's "
          "`Command`, the same line written, the answer line read): the step from `floor` to it "
          "is what waiting on the runtime's I/O driver costs, the step from it to `round_trip` "
          "is the library's own work.", "",
          "| id | median | median, one core | normal / one core |",
          "| --- | ---: | ---: | ---: |"]
    for i in ids:
        r, p = normal[i], on_one[i]
        if r is None:
            continue
        pin = human(p["median"]) if p else "–"
        rel = f"{r['median'] / p['median']:.2f}" if p else "–"
        md.append(f"| `{i}` | {human(r['median'])} | {pin} | {rel} |")
    md += ["", "| ratio (medians) | measured | one core | target |", "| --- | ---: | ---: | ---: |"]
    for label, trip, floor, limit in FLOORS:
        if normal[trip] is None or normal[floor] is None:
            continue
        value = normal[trip]["median"] / normal[floor]["median"]
        pin = (f"{on_one[trip]['median'] / on_one[floor]['median']:.3f}"
               if on_one[trip] and on_one[floor] else "–")
        held = "" if value <= limit else " (**does not hold**)"
        md.append(f"| {label} | {value:.3f}{held} | {pin} | ≤ {limit:g} |")
    for label, trip, second in SHARES:
        if normal[trip] is None or normal[second] is None:
            continue
        value = normal[trip]["median"] / normal[second]["median"]
        pin = (f"{on_one[trip]['median'] / on_one[second]['median']:.3f}"
               if on_one[trip] and on_one[second] else "–")
        md.append(f"| {label} | {value:.3f} | {pin} | – |")
    md.append("")
    return md


# `benches/hosts.rs`: shell calls in each session's one turn (its `K`), and the
# hosts it runs, with how each is driven.
HOST_CALLS = 4
HOSTS = [
    ("Claude Code", "claude", HOST_CALLS, "a whole `claude -p` session"),
    ("Codex", "codex", HOST_CALLS, "a whole `codex exec` session"),
    ("Gemini CLI", "gemini", 1, "one `BeforeTool` through its own `HookSystem`"),
]


def hosts_section(root: str) -> list[str]:
    """The same hook through each real host and through tower-hooks, from
    `benches/hosts.rs` (left out when its tower-hooks ids have not run; a host
    it skipped has no row)."""
    floor, ours, ours_idle = (try_load(root, f"hosts/{i}") for i in ("floor", "tower_hooks", "tower_hooks_idle"))
    if floor is None or ours is None:
        return []
    md = ["## Real hosts, side by side", "",
          "`cargo bench --bench hosts` (`benches/hosts.rs`), all ids in one run: one `PreToolUse` "
          "command hook for the shell tool (Gemini CLI: `BeforeTool`), `cat >/dev/null; exit 0` "
          "under bash, through each pinned host of `conformance/hosts/pins.json` and through "
          "tower-hooks; \"idle\" is the same hook with a matcher that does not match the call.", "",
          "* `hosts/floor`: `bash -c` of that script with the runner's own spawn primitive and the "
          "200-byte stdin line (as `spawn/floor`), timed with `hosts/tower_hooks` run between its "
          "iterations, and the other way round.",
          "* `hosts/tower_hooks`: one `Bash` call through a `HookStack` loaded from a Claude Code "
          "settings file holding the hook; `hosts/tower_hooks_idle`: the idle twin.",
          f"* `hosts/claude_*`, `hosts/codex_*`: a whole headless session against "
          f"`conformance/hosts/model_server.py` on 127.0.0.1 whose one turn makes {HOST_CALLS} shell "
          f"calls, with no hook (`none`), the hook (`hook`), the idle hook (`idle`); per call, the "
          f"hook costs (hook − none) / {HOST_CALLS} and the idle hook (idle − none) / {HOST_CALLS}.",
          "* `hosts/gemini_*`: one `BeforeTool` event fired through Gemini CLI's own `HookSystem` "
          "(`conformance/hosts/gemini_bench.mjs`), likewise none / hook / idle; per event, "
          "hook − none and idle − none.", "",
          "The range is what the 95% confidence intervals of the two medians allow for their "
          "difference: a session's own time varies by far more than one hook costs, so a range "
          "that spans zero says the hook's cost is lost in that noise.", "",
          "| path | hook per call | range | hook / floor | idle per call | range |",
          "| --- | ---: | ---: | ---: | ---: | ---: |",
          f"| tower-hooks (`hosts/tower_hooks`) | {human(ours['median'])} | {human(ours['lo'])} – "
          f"{human(ours['hi'])} | {ours['median'] / floor['median']:.3f} | "
          + (f"{human(ours_idle['median'])} | {human(ours_idle['lo'])} – {human(ours_idle['hi'])} |"
             if ours_idle else "– | – |")]

    def signed(ns: float) -> str:
        return ("−" if ns < 0 else "") + human(abs(ns))

    ran = []
    for label, name, calls, how in HOSTS:
        none, hook, idle = (try_load(root, f"hosts/{name}_{v}") for v in ("none", "hook", "idle"))
        if none is None or hook is None:
            continue
        ran.append(label)
        per = (hook["median"] - none["median"]) / calls
        lo, hi = (hook["lo"] - none["hi"]) / calls, (hook["hi"] - none["lo"]) / calls
        row = (f"| {label}, {how} | {signed(per)} | {signed(lo)} – {signed(hi)} | "
               f"{per / floor['median']:.3f} | ")
        if idle is not None:
            idle_per = (idle["median"] - none["median"]) / calls
            ilo, ihi = (idle["lo"] - none["hi"]) / calls, (idle["hi"] - none["lo"]) / calls
            row += f"{signed(idle_per)} | {signed(ilo)} – {signed(ihi)} |"
        else:
            row += "– | – |"
        md.append(row)
    md += ["", f"Spawn floor (`hosts/floor`): {human(floor['median'])}. "
           + ("Hosts not installed for this run, so without a row: "
              + ", ".join(label for label, *_ in HOSTS if label not in ran) + ". "
              if len(ran) < len(HOSTS) else ""), "",
           "| id | median | 95% CI of the median | MAD |", "| --- | ---: | ---: | ---: |"]
    ids = ["floor", "tower_hooks", "tower_hooks_idle"] + [f"{name}_{v}" for _, name, _, _ in HOSTS
                                                          for v in ("none", "hook", "idle")]
    for i in ids:
        r = try_load(root, f"hosts/{i}")
        if r is not None:
            md.append(f"| `hosts/{i}` | {human(r['median'])} | {human(r['lo'])} – {human(r['hi'])} | {human(r['mad'])} |")
    md.append("")
    return md


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--criterion", default="target/criterion")
    ap.add_argument("--out", default="BENCHMARKS.md")
    ap.add_argument("--svg", default="benches/overhead.svg")
    ap.add_argument("--machine", default=None)
    ap.add_argument("--burst", default="target/burst.json",
                    help="what `cargo bench --bench burst` wrote (left out when missing)")
    ap.add_argument("--pinned", default=None,
                    help="criterion data of the same benches run under `taskset -c 0`")
    ap.add_argument("--sections", action="store_true",
                    help="print only the HTTP, floor and real hosts' sections, from the ids that ran")
    a = ap.parse_args()

    if a.sections:
        http_md, http_ok = http_section(a.criterion)
        print("\n".join(http_md + floor_section(a.criterion, a.pinned) + hosts_section(a.criterion)))
        return 0 if all(http_ok) else 1

    results = {i: load(a.criterion, i) for i in IDS}
    scaling = {n: load(a.criterion, f"scaling/transforming_hooks/{n}")["median"] for n in SCALING}
    rows, verdicts = [], []
    for label, num, den, limit in TARGETS:
        value = results[num]["median"] / (results[den]["median"] if den else 1.0)
        ok = value <= limit
        rows.append((label, value, limit, ok))
        verdicts.append(ok)
    # Linear growth: least squares through (N, median), and how well it fits.
    xs, ys = SCALING, [scaling[n] for n in SCALING]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    r2 = 1 - ss_res / ss_tot if ss_tot else 1.0
    # Shown as a bar like the others: 1 - R² against a limit of 0.01.
    rows.append(("scaling: 1 - R² of a straight line", 1 - r2, 0.01, r2 >= 0.99))
    verdicts.append(r2 >= 0.99)

    md = ["# Benchmarks", ""]
    md.append("What the hook stack costs per call, measured by `benches/overhead.rs` with criterion, "
              "all ids in one run so that the ratios compare like with like. Generated by "
              "`benches/report.py` from that run's `target/criterion` data.")
    md += ["", "Reproduce:", "", "```sh", *REPRODUCE, "```", ""]
    md.append(f"Machine: {a.machine or machine()}. Run on "
              f"{datetime.date.today().isoformat()}.")
    md += ["", "![measured / target for each ratio](benches/overhead.svg)", "", "## Targets", "",
           "| ratio (medians) | measured | target | holds |", "| --- | ---: | ---: | :---: |"]
    for label, value, limit, ok in rows:
        if limit == 1000.0:
            md.append(f"| {label} | {value / 1000:.3f} µs | ≤ 1 µs | {'yes' if ok else '**no**'} |")
        elif label.startswith("scaling"):
            md.append(f"| scaling: R² of a straight line | {1 - value:.4f} | ≥ 0.99 | {'yes' if ok else '**no**'} |")
        else:
            md.append(f"| {label} | {value:.3f} | ≤ {limit:g} | {'yes' if ok else '**no**'} |")
    md += ["", "Linear growth: the same rewriting hook chained N times "
           f"(`scaling/transforming_hooks/N`) costs {intercept:.0f} ns + {slope:.0f} ns × N "
           f"(least squares, R² = {r2:.4f}; target R² ≥ 0.99). Medians: "
           + ", ".join(f"N = {n}: {human(scaling[n])}" for n in SCALING)
           + f". `in_process/ten_hooks_transforming` is {results['in_process/ten_hooks_transforming']['median'] / results['in_process/one_hook']['median']:.1f} × "
           "`in_process/one_hook`, an allowing hook: a rewrite costs more than an allow "
           "(it builds a new argument object), so that ratio mixes two kinds of hook.", "",
           "## All results", "", "| id | median | 95% CI of the median | MAD |", "| --- | ---: | ---: | ---: |"]
    for i in IDS:
        r = results[i]
        md.append(f"| `{i}` | {human(r['median'])} | {human(r['lo'])} – {human(r['hi'])} | {human(r['mad'])} |")
    for n in SCALING:
        r = load(a.criterion, f"scaling/transforming_hooks/{n}")
        md.append(f"| `scaling/transforming_hooks/{n}` | {human(r['median'])} | {human(r['lo'])} – {human(r['hi'])} | {human(r['mad'])} |")
    md += ["", "The `*_concurrent_64` ids time one batch of 64 calls in flight on a multi-thread runtime; "
           "`command_hook_big_parent` runs while the bench holds 2 GiB of touched memory; "
           "`claude_parallel_8` is one call through eight Claude Code hooks on one point (they run at "
           "once), against eight floors in flight (`floor_concurrent_8`); `gemini_sequential_4` is "
           "one call through four Gemini CLI hooks of a `sequential` definition (one after "
           "another), against four floors in sequence (`floor_sequential_4`). `persistent/*` run the "
           "same calls through one persistent hook (a Perl loop that allows), whose process is "
           "started once: `round_trip` is one call, `concurrent_64` a batch of 64 (16 in flight at "
           "a time, the hook's bound); a ratio of 0.05 is 20 times cheaper than a spawn per event. "
           "`persistent/floor` is the same Perl hook driven by a bare blocking pipe loop, timed "
           "interleaved with `round_trip`, and `persistent/runtime_floor` the same by a bare async "
           "loop on the runtime (see \"Against the physical floor\").", ""]

    http_md, http_ok = http_section(a.criterion)
    verdicts += http_ok
    md += http_md
    md += floor_section(a.criterion, a.pinned)
    md += replay_section(a.criterion)
    md += hosts_section(a.criterion)
    md += burst_section(a.burst)

    with open(a.out, "w") as f:
        f.write("\n".join(md))
    with open(a.svg, "w") as f:
        f.write(svg(rows))
    for label, value, limit, ok in rows:
        print(f"{'ok  ' if ok else 'FAIL'} {label}: {value:.4f} (≤ {limit:g})")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
