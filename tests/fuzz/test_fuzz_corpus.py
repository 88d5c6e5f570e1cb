"""The fuzz corpus (tests/fuzz/corpus/): every reproducer found, replayed through the real CLI.

Each case keeps the promise of tests/fuzz/harness.py and gives the exit code and words its entry in
cases.toml expects (a hang fails on the worker's time bound, not on a timing assertion).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Worker, keeps_the_promise

CORPUS = Path(__file__).with_name("corpus")
CASES: list[dict[str, Any]] = tomllib.loads((CORPUS / "cases.toml").read_text(encoding="utf-8"))["case"]


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


def test_every_corpus_file_is_used() -> None:
    """A reproducer no case names would be replayed by nothing."""
    used = set()
    for case in CASES:
        used |= set(case.get("files", [])) | {a for a in case["args"] if (CORPUS / a).is_file()}
    files = {p.name for p in CORPUS.iterdir()} - {"cases.toml", "README.md"}
    assert files == used, files ^ used


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_corpus_keeps_the_promise(worker: Worker, case: dict[str, Any]) -> None:
    names = case.get("files") or [a for a in case["args"] if (CORPUS / a).is_file()]
    files = {n: (CORPUS / n).read_text(encoding="utf-8") for n in names} | case.get("write", {})
    for name, made in case.get("repeat", {}).items():  # a file too large to keep: head, piece × times, tail
        files[name] = made["head"] + made["piece"] * made["times"] + made["tail"]
    request = {
        "files": files,
        "dirs": case.get("dirs", []),
        "links": case.get("links", {}),
        "fifos": case.get("fifos", []),
        "args": case["args"],
    }
    reply = worker.run(request)
    named = [a for a in case["args"] if not a.startswith("-")] + list(files)
    keeps_the_promise(request, reply, named)
    assert reply["exit"] == case["exit"], f"{case['name']}: exit {reply['exit']}\n{reply['stderr']}"
    for words in case.get("stderr", []):
        assert words in reply["stderr"], reply["stderr"]
    for words in case.get("stdout", []):
        assert words in reply["stdout"], reply["stdout"][-2000:]
    for words in case.get("not_stdout", []):
        assert words not in reply["stdout"]
