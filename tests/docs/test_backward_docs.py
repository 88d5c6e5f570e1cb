"""The guide and docs/interface.md say what the backward and online-softmax kinds do (a new user's
report): the examples table lists every example file, the homework list names attention-backward,
and the interface says what masked_given_gradient recomputes and that copy steps carry no points by
default."""

from __future__ import annotations

import re
from pathlib import Path

from ..helpers import PROBLEMS

ROOT = PROBLEMS.parent
EXAMPLES = (ROOT / "docs" / "guide" / "examples.md").read_text(encoding="utf-8")
HOMEWORK = (ROOT / "docs" / "guide" / "homework.md").read_text(encoding="utf-8")
INTERFACE = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8")


def test_the_examples_table_lists_issue_29s_examples() -> None:
    table = EXAMPLES[EXAMPLES.index("# The examples in `problems/`") :]
    listed = set(re.findall(r"^\| `([\w.-]+\.toml)` \|", table, re.M))
    files = {p.name for pat in ("backward-*.toml", "online-softmax-*.toml") for p in Path(PROBLEMS).glob(pat)}
    assert len(files) == 5
    assert files - listed == set()


def test_the_homework_list_names_both_kinds() -> None:
    homework = HOMEWORK[: HOMEWORK.index("\n## ")] if "\n## " in HOMEWORK else HOMEWORK
    for kind in ("attention-backward", "online-softmax"):
        assert re.search(rf"^\* {kind} ", homework, re.M), kind


def test_the_interface_says_what_masked_given_gradient_recomputes() -> None:
    section = INTERFACE[INTERFACE.index("`masked_given_gradient` (") :][:1600]
    assert "grad_scaled_scores_ik = grad_weights_ik" in section
    assert "`[grading] copies`" in section and "0 by default" in section
