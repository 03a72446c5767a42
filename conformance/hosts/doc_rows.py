"""The feature tables of docs/claude-code.md, docs/codex.md and docs/gemini.md
against the real hosts: a row names the scenarios that show it (a backquoted
`claude/<scenario>`, `codex/<scenario>` or `gemini/<scenario>` in its `here`
cell), and its word must agree with how they came out:

* `yes`: every scenario it names passed with no listed difference;
* `partly`: every scenario it names passed, differences listed with a reason
  allowed;
* `no`: one of them at least shows a difference (listed, or failing).

A row that no headless run can show says `host: none (why)` instead.
`tests/migration_docs.rs` checks, without the hosts, that every row does one
or the other and that each named scenario exists."""
import re
from pathlib import Path

PAGES = {"claude": "docs/claude-code.md", "codex": "docs/codex.md", "gemini": "docs/gemini.md"}
REFERENCE = re.compile(r"`(claude|codex|gemini)/([a-z0-9_]+)`")


def cells(line):
    """The cells of a table line; `\\|` is a `|` inside a cell."""
    inner = line.strip().strip("|")
    parts, cell, i = [], "", 0
    while i < len(inner):
        if inner[i] == "\\" and inner[i + 1:i + 2] == "|":
            cell += "|"
            i += 2
            continue
        if inner[i] == "|":
            parts.append(cell.strip())
            cell = ""
        else:
            cell += inner[i]
        i += 1
    parts.append(cell.strip())
    return parts


def rows(page_text):
    """(line number, feature, here) of the page's `| feature | … | here |` table
    (the middle column is `upstream` on one page, the host's name on another)."""
    lines = page_text.splitlines()
    for at, line in enumerate(lines):
        head = cells(line) if line.lstrip().startswith("|") else []
        if len(head) == 3 and head[0] == "feature" and head[2] == "here":
            out = []
            for number, row in enumerate(lines[at + 2:], start=at + 3):
                if not row.lstrip().startswith("|"):
                    break
                c = cells(row)
                out.append((number, c[0], c[2]))
            return out
    return []


def check(repo, host, outcomes):
    """Disagreements between `host`'s page and `outcomes` ({scenario: (passed,
    listed differences)}), one line each; and how many rows were checked."""
    page = PAGES[host]
    problems, checked = [], 0
    for number, feature, here in rows((Path(repo) / page).read_text()):
        word = here.split(":", 1)[0].strip()
        named = [name for h, name in REFERENCE.findall(here) if h == host]
        if not named:
            continue
        checked += 1
        where = f"{page}:{number} ({feature})"
        if word not in ("yes", "partly", "no"):
            problems.append(f"{where} names scenarios but its `here` starts with {word!r}, not yes, partly or no")
            continue
        missing = [n for n in named if n not in outcomes]
        if missing:
            problems.append(f"{where} names {', '.join(missing)}, which did not run")
            continue
        clean = all(outcomes[n][0] and not outcomes[n][1] for n in named)
        passed = all(outcomes[n][0] for n in named)
        if word == "yes" and not clean:
            problems.append(f"{where} says yes, but {', '.join(n for n in named if not (outcomes[n][0] and not outcomes[n][1]))} differ")
        elif word == "partly" and not passed:
            problems.append(f"{where} says partly, but {', '.join(n for n in named if not outcomes[n][0])} fail")
        elif word == "no" and clean:
            problems.append(f"{where} says no, but {', '.join(named)} show no difference")
    return problems, checked
