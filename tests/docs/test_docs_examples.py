"""Every shell and Python example of the README and the documentation pages runs, as a reader would
run it: in a fresh folder holding a copy of the project's problems/, a page's blocks in their order
(a later block may use what an earlier one wrote). The blocks are found and the shell lines run
in-process by tests/docs_blocks.py; a block marked ``<!-- not run: REASON -->`` is listed here as
skipped with its reason."""

from __future__ import annotations

import io
import shutil
import sys
import traceback
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from attncalc.cli import app

from ..docs_blocks import RUN, Block, blocks, commands, run_line
from ..helpers import PROBLEMS, ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
ALL = {p.relative_to(ROOT).as_posix(): blocks(p, ROOT) for p in PAGES}
RUNNABLE = {page: bs for page, bs in ALL.items() if any(b.lang in RUN and b.not_run is None for b in bs)}
EXEMPT = [b for bs in ALL.values() for b in bs if b.not_run is not None]

# what a block needs that a machine may lack: the test skips the page, saying which
NEEDS = {"-f pdf": "pdflatex", "--format pdf": "pdflatex", ".pdf": "pdflatex"}


def _invoke(argv: list[str]) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(app, argv, catch_exceptions=False)
    return result.exit_code, result.stdout_bytes, result.output


def _run_python(block: Block) -> list[str]:
    scope: dict[str, Any] = {"__name__": "__docs_example__"}
    try:
        with redirect_stdout(io.StringIO()):
            exec(compile(block.text, block.where, "exec"), scope)  # the page's own example code
    except Exception:
        return [f"{block.where}: the python block raised\n{traceback.format_exc(limit=-3)}"]
    return []


def _missing_tool(block: Block) -> str | None:
    for needle, tool in NEEDS.items():
        if needle in block.text and shutil.which(tool) is None:
            return tool
    return None


@pytest.mark.parametrize("page", sorted(RUNNABLE))
def test_every_example_of_the_page_runs(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(PROBLEMS, tmp_path / "problems")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["attncalc"])
    monkeypatch.setenv("COLUMNS", "100")
    ran = 0
    problems: list[str] = []
    for block in ALL[page]:
        if block.file is not None:
            target = tmp_path / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            continue
        if block.lang not in RUN or block.not_run is not None:
            continue
        tool = _missing_tool(block)
        if tool is not None:
            pytest.skip(f"{block.where} needs {tool}, which is not installed")
        if block.lang == "python":
            problems += _run_python(block)
        else:
            for words in commands(block):
                problems += [f"{block.where}: {p}" for p in run_line(words, tmp_path, _invoke)]
        ran += 1
    assert ran > 0
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("block", EXEMPT, ids=[b.where for b in EXEMPT])
def test_an_example_not_run_says_why(block: Block) -> None:
    assert len(block.not_run or "") >= 10, f"{block.where}: say why the block is not run"
    pytest.skip(f"{block.where} not run: {block.not_run}")


def test_the_pages_have_examples_and_every_language_is_found() -> None:
    """The finder itself: it sees the README's first commands (exempt: CI runs them) and the
    Start page's runnable ones, and a marker binds only the block right after it."""
    readme = ALL["README.md"]
    assert (
        readme[0].text
        == "python3 -m venv .venv && . .venv/bin/activate && pip install . && attncalc solve problems/decoder-dot.toml\n"
    )
    assert readme[0].not_run and "CI" in readme[0].not_run
    start = ALL["docs/index.md"]
    assert any(b.lang == "bash" and b.not_run is None and "attncalc check" in b.text for b in start)
    assert [b.file for b in start if b.file] == ["my-answers.toml"]
    assert {b.lang for bs in RUNNABLE.values() for b in bs} >= {"bash", "python"}


def test_a_shell_line_the_runner_cannot_do_is_refused(tmp_path: Path) -> None:
    called: list[list[str]] = []

    def fake(argv: list[str]) -> tuple[int, bytes, str]:
        called.append(argv)
        return (1, b"", "wrong") if argv[0] == "check" else (2, b"", "attncalc: error: bad")

    (tmp_path / "a.toml").write_text("")
    (tmp_path / "b.toml").write_text("")
    assert "only attncalc runs here" in run_line(["rm", "-rf", "x"], tmp_path, fake)[0]
    assert run_line(["attncalc", "check", "a.toml"], tmp_path, fake) == []  # 1: a wrong answer found
    assert "exited 2" in run_line(["attncalc", "solve", "*.toml"], tmp_path, fake)[0]
    assert called[-1] == ["solve", "a.toml", "b.toml"]

    def writes(argv: list[str]) -> tuple[int, bytes, str]:
        return 0, f"{argv[0]}\n".encode(), ""

    assert (
        run_line(["attncalc", "new", "x", ">", "n.toml", "&&", "attncalc", "list", ">>", "n.toml"], tmp_path, writes)
        == []
    )
    assert (tmp_path / "n.toml").read_text() == "new\nlist\n"


TRANSCRIPTS = [b for bs in ALL.values() for b in bs if b.lang == "text" and b.text.startswith("$ attncalc solve ")]


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=[b.where for b in TRANSCRIPTS])
def test_a_shown_transcript_is_the_commands_own_output(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ```text block that starts with `$ attncalc solve FILE` shows that command's output: each
    of its lines ("..." marks lines left out) is a line of the real output, in order."""
    monkeypatch.chdir(ROOT)
    first, *shown = block.text.rstrip("\n").split("\n")
    code, out, err = _invoke(first[2:].split()[1:])
    assert code == 0, err
    real = out.decode("utf-8").split("\n")
    at = 0
    for line in shown:
        if line.strip() == "...":
            continue
        while at < len(real) and real[at].rstrip() != line.rstrip():
            at += 1
        assert at < len(real), f"{block.where}: {line!r} is not in `{first[2:]}`'s output (in this order)"
        at += 1
