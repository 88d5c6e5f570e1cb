"""The examples of the README and the documentation site's pages, found and run as a reader would:
the fenced ``bash``, ``console`` and ``python`` blocks (tests/docs/test_docs_examples.py runs them).

Markers, an HTML comment on the line before a block (a reader of the rendered page does not see it):

* ``<!-- not run: REASON -->`` exempts the block (a server that runs until stopped, a ``pip install``);
  the test lists it as skipped with its reason;
* ``<!-- file: NAME -->`` before any block (a ``toml`` answers file) writes it as NAME in the folder
  the page's examples run in, as a reader saves what the page shows.

Shell lines are run in-process, not by a shell: ``attncalc ...`` and ``python -m attncalc ...``
through the Typer app, with ``&&``, ``>`` and ``>>`` and file-name patterns (``problems/*.toml``)
done here. Any other program is refused with a message asking for a marker.
"""

from __future__ import annotations

import glob
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

RUN = ("bash", "console", "python")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_MARK = re.compile(r"^\s*<!--\s*(not run|file):\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: str  # its path from the repository's root
    line: int  # the line of its opening fence, from 1
    lang: str
    text: str
    not_run: str | None = None  # the reason, when exempted
    file: str | None = None  # written as this file (<!-- file: NAME -->)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path, root: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the marker on the line before each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = _MARK.match(lines[k]) if k >= 0 else None
        out.append(
            Block(
                page=path.relative_to(root).as_posix(),
                line=i + 1,
                lang=lang,
                text="\n".join(body) + "\n",
                not_run=mark.group(2) if mark and mark.group(1) == "not run" else None,
                file=mark.group(2) if mark and mark.group(1) == "file" else None,
            )
        )
        i = j + 1
    return out


def commands(block: Block) -> list[list[str]]:
    """A bash or console block's commands, each a list of words (``&&`` kept as a word)."""
    src = block.text.splitlines()
    if block.lang == "console":  # the lines after a "$ " prompt; the others are the output shown
        src = [x[2:] for x in src if x.startswith("$ ")]
    joined: list[str] = []
    for line in src:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line.strip()
        else:
            joined.append(line)
    return [words for line in joined if (words := shlex.split(line, comments=True))]


Invoke = Callable[[list[str]], tuple[int, bytes, str]]


def run_line(words: list[str], cwd: Path, invoke: Invoke) -> list[str]:
    """Run one shell line in ``cwd`` (its ``&&``-joined commands in turn, each with its redirection);
    the problems found, empty when it ran. A command's exit 1 from `check` (a wrong answer found,
    as the page says) counts as run."""
    problems: list[str] = []
    for cmd in _split(words, "&&"):
        args, target, append = _redirect(cmd)
        if args[:3] == ["python", "-m", "attncalc"]:
            args = ["attncalc", *args[3:]]
        if not args or args[0] != "attncalc":
            return [f"`{' '.join(cmd)}`: only attncalc runs here; mark the block <!-- not run: REASON -->"]
        if args[1:2] == ["serve"]:
            return [f"`{' '.join(cmd)}`: a server runs until stopped; mark the block <!-- not run: REASON -->"]
        argv = [w for a in args[1:] for w in _expand(a, cwd)]
        code, stdout, output = invoke(argv)
        if code != 0 and not (code == 1 and argv[:1] == ["check"]):
            problems.append(f"`{' '.join(cmd)}` exited {code}:\n{output[-2000:]}")
            return problems
        if target is not None:
            with open(cwd / target, "ab" if append else "wb") as f:
                f.write(stdout)
    return problems


def _split(words: list[str], sep: str) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w == sep:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _redirect(cmd: list[str]) -> tuple[list[str], str | None, bool]:
    for op in (">>", ">"):
        if op in cmd:
            i = cmd.index(op)
            return cmd[:i] + cmd[i + 2 :], cmd[i + 1], op == ">>"
    return cmd, None, False


def _expand(word: str, cwd: Path) -> list[str]:
    if not any(c in word for c in "*?["):
        return [word]
    found = sorted(glob.glob(word, root_dir=cwd))
    return found or [word]
