"""The Python API raises only attncalc's errors, whatever it is given.

Every public function (the callables of ``attncalc.__all__``) is called with each of its
arguments in turn replaced by a hostile value (wrong types, cyclic and deep containers, numpy long
doubles, 5,000-digit integers, NaN, control characters), the others kept valid, and with hostile
values inside the problem and the answers; whatever comes out is the value or an
:class:`attncalc.AttncalcError`. A function added to ``__all__`` without a valid call here fails
:func:`test_every_public_function_is_driven`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc import api
from attncalc.api.args import GENERATE_RANGES, describe, plain

PROBLEM: dict[str, Any] = {"kind": "attention", "score": "dot", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}
ANSWERS: dict[str, Any] = {"scores": [1, 2]}

#: a valid call of each public function: positional arguments and keywords
VALID: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "solve": ((PROBLEM,), {}),
    "check": ((PROBLEM, ANSWERS), {}),
    "generate": ((), {"kind": "attention", "count": 1}),
    "plot": ((PROBLEM,), {}),
}


def _cyclic_dict() -> dict[str, Any]:
    d: dict[str, Any] = {"kind": "attention"}
    d["given"] = d
    return d


def _cyclic_list() -> list[Any]:
    x: list[Any] = [1]
    x.append(x)
    return x


def _deep(levels: int) -> Any:
    x: Any = 1
    for _ in range(levels):
        x = [x]
    return x


def hostile() -> Iterator[tuple[str, Any]]:
    """Values no argument should take, each with a name for the test id."""
    yield "cyclic dict", _cyclic_dict()
    yield "cyclic list", _cyclic_list()
    yield "deep list", _deep(5000)
    yield "deep dict", {"a": _deep(50)}
    yield "longdouble", np.longdouble(1) / 3
    yield "longdouble array", np.array([1, 2], dtype=np.longdouble)
    yield "complex array", np.array([1j, 2])
    yield "0-d array", np.array(3)
    yield "int 5000 digits", 10**5000
    yield "negative int 5000 digits", -(10**5000)
    yield "string '3'", "3"
    yield "string 'x'", "x"
    yield "empty string", ""
    yield "NUL", "a\x00b"
    yield "lone surrogate", "\ud800"
    yield "nan", math.nan
    yield "inf", math.inf
    yield "numpy nan", np.float32("nan")
    yield "Decimal NaN", Decimal("NaN")
    yield "zero", 0
    yield "minus one", -1
    yield "True", True
    yield "None", None
    yield "object", object()
    yield "bytes", b"kind = 'attention'"
    yield "set", {1, 2}
    yield "list", [1, 2]
    yield "empty dict", {}
    yield "complex", 1 + 2j
    yield "function", len
    yield "missing path", Path("/nonexistent/p.toml")
    yield "a folder", Path("/")
    yield "dict with int keys", {1: 2}


HOSTILE = list(hostile())
NAMES = [n for n in attncalc.__all__ if inspect.isfunction(getattr(attncalc, n))]


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    try:
        fn(*args, **kwargs)
    except attncalc.AttncalcError as exc:
        text = str(exc)  # the message itself must be printable: no control character (a NUL) raw in it
        assert not any(ord(ch) < 32 and ch not in "\n" for ch in text), (fn.__name__, text)
    except Exception as exc:  # what this test exists to catch
        raise AssertionError(f"{fn.__name__}(*{describe(args)}, **{describe(kwargs)}) raised {exc!r}") from exc


def test_every_public_function_is_driven() -> None:
    assert NAMES and set(NAMES) == set(VALID), set(NAMES) ^ set(VALID)
    for name in NAMES:  # the valid calls are valid: the hostile ones differ in one argument only
        args, kwargs = VALID[name]
        getattr(attncalc, name)(*args, **kwargs)


def _parameters(name: str) -> list[inspect.Parameter]:
    """The api function's parameters (the package's wrappers forward to it), but ``out`` of
    generate, which writes files: it gets the hostile values that are not paths only."""
    return [p for p in inspect.signature(getattr(api, name)).parameters.values() if p.kind != p.VAR_KEYWORD]


@pytest.mark.parametrize("name", NAMES)
def test_every_argument_with_hostile_values(name: str, tmp_path: Path) -> None:
    fn = getattr(attncalc, name)
    args, kwargs = VALID[name]
    for p in _parameters(name):
        for _label, value in HOSTILE:
            if p.name == "out" and isinstance(value, (str, Path)):
                continue  # generate would write there: its paths are tested in test_output_paths
            if p.kind == p.POSITIONAL_ONLY or (p.kind == p.POSITIONAL_OR_KEYWORD and p.name in ("problem", "answers")):
                position = list(inspect.signature(getattr(api, name)).parameters).index(p.name)
                new_args = list(args) + [None] * (position + 1 - len(args))
                new_args[position] = value
                _call(fn, tuple(new_args), kwargs)
            else:
                _call(fn, args, {**kwargs, p.name: value})


@pytest.mark.parametrize("name", [n for n in NAMES if VALID[n][0]])
def test_hostile_values_inside_the_problem(name: str) -> None:
    """In the problem's given, as its kind, score and title, and as the answers."""
    fn = getattr(attncalc, name)
    args, kwargs = VALID[name]
    for _label, value in HOSTILE:
        for where in ("query", "keys", "kind", "score", "title", "settings", "given"):
            problem = {**PROBLEM, "given": dict(PROBLEM["given"])}
            if where in ("query", "keys"):
                problem["given"][where] = value
            else:
                problem[where] = value
            _call(fn, (problem, *args[1:]), kwargs)
        if name == "check":
            _call(fn, (PROBLEM, {"scores": value}), kwargs)
            _call(fn, (PROBLEM, {"weights": [value, 0.5]}), kwargs)


def test_solve_keywords_with_hostile_values() -> None:
    """solve(**keys): every keyword is a key of the problem (or of [given])."""
    for _label, value in HOSTILE:
        for key in ("query", "given", "kind", "settings", "tokens"):
            keys = {"kind": "attention", "score": "dot", "query": [1, 1], "keys": [[1, 0], [0, 2]], key: value}
            _call(attncalc.solve, (), keys)


# ------------------------------------------------------------------ reported cases, one each


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: attncalc.solve({"kind": "attention", "given": _cyclic_dict()}), "inside itself"),
        (lambda: attncalc.solve(kind="attention", query=_deep(5000), keys=[[1]]), "nested too deeply"),
        (lambda: attncalc.solve(kind="attention", query=_cyclic_list(), keys=[[1]]), "inside itself"),
        (lambda: attncalc.solve(kind="attention", query=[10**5000, 1], keys=[[1, 0], [0, 2]]), "given.query"),
        (lambda: attncalc.check(PROBLEM, ANSWERS, sigfigs="3"), "sigfigs: expected a whole number"),
        (lambda: attncalc.check(PROBLEM, ANSWERS, rtol="x"), "rtol: expected a finite number"),
        (lambda: attncalc.generate(tokens="3"), "tokens: expected a whole number"),
        (lambda: attncalc.generate(kind="multi-head", heads=0), "heads: expected a whole number of 1 or more"),
        (lambda: attncalc.plot(PROBLEM, step=1), "step: expected a string or None"),  # type: ignore[arg-type]
    ],
    ids=["cyclic dict", "deep list", "cyclic list", "int 5000 digits", "sigfigs", "rtol", "tokens", "heads 0", "step"],
)
def test_reported_api_cases_raise_attncalc_errors(call: Callable[[], Any], words: str) -> None:
    with pytest.raises(attncalc.AttncalcError) as info:
        call()
    assert words in str(info.value)


def test_a_long_double_keeps_its_digits() -> None:
    """np.longdouble is read as the decimal it prints as (it recursed forever before); an exact
    problem keeps that value: the query (1/3 as a long double, 1) against keys e1 and 2·e2 scores
    exactly that decimal and 2."""
    import sympy as sp

    third = np.longdouble(1) / 3
    d = attncalc.solve(kind="attention", score="dot", query=[third, 1], keys=[[1, 0], [0, 2]])
    assert d.step("scores").exact[0] == sp.Rational(str(third))  # 0.33333333333333333334 on x86-64
    assert d["scores"][0] == pytest.approx(1 / 3, rel=1e-15)
    assert plain(np.array([third]), "x") == [Decimal(np.format_float_positional(third, unique=True))]


def test_the_api_ranges_are_the_commands() -> None:
    """GENERATE_RANGES is what `attncalc generate` bounds its options to (Typer's min and max)."""
    import typing

    from attncalc.cli.homework import generate as command

    hints = typing.get_type_hints(command, include_extras=True)
    for name, (low, high) in GENERATE_RANGES.items():
        option = hints[name].__metadata__[0]
        assert (option.min, option.max) == (low, high), name


@pytest.mark.parametrize("bad", ["a\x00b", "x\x00/y\x1b[31m"])
def test_a_nul_in_an_output_folder_is_written_out_escaped(tmp_path: Path, bad: str) -> None:
    """generate(out=...) with a NUL in the path: its message showed the NUL raw (a terminal drops it, so
    the path printed looked like another, existing one). It is written as its escape, as a file's is."""
    with pytest.raises(attncalc.AttncalcError) as info:
        attncalc.generate(kind="softmax", count=1, out=str(tmp_path / bad))
    text = str(info.value)
    assert "\\x00" in text and "\x00" not in text and "\x1b" not in text
    assert "NUL" in text
