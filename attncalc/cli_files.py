"""Which of `attncalc check`'s files is the problem and which are answers files: the first file read,
whether a file names its own problem, whether two paths are the same file."""

from __future__ import annotations

import os
from typing import Any


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


# keys only a problem file has: a file with none of them (and no `problem`) is an answers file
PROBLEM_ONLY_KEYS = {
    "cache",
    "type",
    "memory_tokens",
    "kind",
    "title",
    "description",
    "score",
    "tokens",
    "given",
    "head",
    "settings",
    "cell",
    "training",
    "grading",
}


def first_file(paths: list[str], limit: int | None) -> dict[str, Any] | None:
    """The first file read, or None when the files are all answers files and the first one is broken
    (cannot be read, or names no problem): it gets its row like any other, instead of costing the class
    its gradebook. Which it is, the second file says: an answers file that names its problem."""
    from .errors import AttncalcError
    from .parse import read_raw

    try:
        first: dict[str, Any] = read_raw(paths[0], limit)
    except AttncalcError:
        if not names_its_problem(paths[1:2], limit):
            raise
        return None
    if "problem" not in first and not set(first) & PROBLEM_ONLY_KEYS and names_its_problem(paths[1:2], limit):
        return None
    return first


def names_its_problem(paths: list[str], limit: int | None) -> bool:
    from .errors import AttncalcError
    from .parse import read_raw

    try:
        raw = read_raw(paths[0], limit) if paths else {}
    except AttncalcError:
        return False
    return "problem" in raw and not set(raw) & PROBLEM_ONLY_KEYS
