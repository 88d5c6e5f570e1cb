"""A misspelt keyword of the Python API is attncalc's own error, with the keyword it may have meant.

attncalc.check(p, rtoll=0.1) raised Python's bare TypeError. It now raises
:class:`attncalc.errors.ArgumentError`: a ProblemError (an AttncalcError, as the API's other errors)
and a TypeError too, so code that caught TypeError still does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import attncalc
import attncalc.api as api
from attncalc.errors import ArgumentError, AttncalcError, ProblemError

from ..helpers import PROBLEMS

DOT = str(PROBLEMS / "decoder-dot.toml")

CASES: list[tuple[str, Callable[[], Any], str, str]] = [
    ("check", lambda: attncalc.check(DOT, rtoll=0.1), "rtoll", "rtol"),
    ("check", lambda: api.check(DOT, sigfig=3), "sigfig", "sigfigs"),
    ("generate", lambda: attncalc.generate(kinds="attention"), "kinds", "kind"),
    ("generate", lambda: api.generate(kind="attention", cont=2), "cont", "count"),
    ("plot", lambda: attncalc.plot(DOT, formt="svg"), "formt", "format"),
    ("plot", lambda: api.plot(DOT, dip=100), "dip", "dpi"),
    ("solve", lambda: attncalc.solve(DOT, decimal=3), "decimal", "decimals"),
]


@pytest.mark.parametrize(("fn", "call", "wrong", "meant"), CASES)
def test_a_misspelt_keyword_names_the_close_one(fn: str, call: Callable[[], Any], wrong: str, meant: str) -> None:
    with pytest.raises(ArgumentError) as info:
        call()
    exc = info.value
    assert isinstance(exc, TypeError) and isinstance(exc, ProblemError) and isinstance(exc, AttncalcError)
    assert exc.file == f"attncalc.{fn}" and exc.key == wrong
    assert f"did you mean {meant}" in str(exc)


def test_old_code_catching_type_error_still_catches_it() -> None:
    try:
        attncalc.check(DOT, rtoll=0.1)
    except TypeError as exc:
        assert "rtoll" in str(exc)
    else:
        pytest.fail("no error")


def test_a_keyword_close_to_none_lists_the_keywords() -> None:
    with pytest.raises(ArgumentError, match="it takes problem, answers, rtol, atol, sigfigs"):
        attncalc.check(DOT, zzz=1)


def test_too_many_positional_arguments_are_the_same_error() -> None:
    with pytest.raises(ArgumentError):
        api.plot(DOT, None, "svg", 3)


def test_a_right_keyword_still_works() -> None:
    report = attncalc.check(DOT, str(PROBLEMS / "answers" / "decoder-dot.toml"), rtol=0.5)
    assert report.problem.endswith("decoder-dot.toml") and report.results


@pytest.mark.parametrize("name", ["solve", "check", "generate", "plot"])
def test_too_many_positional_arguments_are_attncalcs_own_error(name: str) -> None:
    """attncalc.solve(p, p) raised Python's bare TypeError, though the API raises only its own errors."""
    import attncalc

    problem = {"kind": "attention", "score": "dot", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}
    with pytest.raises(attncalc.AttncalcError, match=f"attncalc.{name}: too many positional arguments"):
        getattr(attncalc, name)(problem, problem, problem, problem)
