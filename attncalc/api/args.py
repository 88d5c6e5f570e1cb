"""The Python API's arguments, checked before anything uses them.

The command line's options arrive typed and in range (Typer converts and bounds them); the API's
arrive as any Python object. Here each becomes what the API's signature says it is, or a
:class:`~attncalc.errors.ProblemError` naming the function and the argument: never a TypeError,
RecursionError or ValueError from deep inside. A problem or answers dict becomes plain tables
(dicts, lists, numbers, strings) within the bounds a file is read within (nesting, no value inside
itself); numpy arrays and scalars become Python numbers (``np.longdouble`` keeps its digits).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from ..errors import ArgumentError, ProblemError, shorten
from ..parse.formats import LONG_INT, MAX_NESTING

#: the ranges the command line's options give generate (``--heads`` min 1, ``--decimals`` 0 to 6); a
#: test holds them to the Typer options of ``attncalc generate``
GENERATE_RANGES: dict[str, tuple[int | None, int | None]] = {
    "heads": (1, None),
    "kv_heads": (1, None),
    "window": (1, None),
    "top_k": (1, None),
    "decimals": (0, 6),
    "max_pages": (1, None),
}
MAX_SEED_DIGITS = LONG_INT  # a seed is written into every problem file: it must print as digits


def describe(value: Any) -> str:
    """A value as a message quotes it, shortened; never fails (the repr of a 5,000-digit int raises)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a whole number of about {int(value.bit_length() * math.log10(2)) + 1:,} digits"
    try:
        return shorten(repr(value))
    except Exception:  # a deep container (RecursionError), an object whose repr fails
        return f"a {type(value).__name__}"


def _accepts(annotation: str, value: Any) -> Any:
    """The value as the annotation's type (an int from a numpy integer), or raise TypeError."""
    types = {a.strip() for a in annotation.split("|")}
    if value is None and "None" in types:
        return None
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        if "bool" in types:
            return bool(value)
        raise TypeError
    if "int" in types and isinstance(value, numbers.Integral):
        return int(value)
    if "float" in types and isinstance(value, numbers.Real) and not isinstance(value, Decimal):
        try:
            f = float(value)
        except OverflowError:  # a whole number past the largest double
            raise TypeError from None
        if not math.isfinite(f):
            raise TypeError
        return f
    if "str" in types and isinstance(value, str):
        return value
    if "Path" in types and isinstance(value, Path):
        return value
    raise TypeError


_WORDS = {
    "int": ("a whole number",),
    "float": ("a finite number",),
    "bool": ("True", "False"),
    "str": ("a string",),
    "Path": ("a path",),
    "None": ("None",),
}


def checked(fn: Callable[..., Any], where: str, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (argument name → value) as ``fn``'s annotations type them (int, float, bool, str,
    Path or None); a value of another type is a ProblemError naming ``where`` and the argument."""
    params = inspect.signature(fn).parameters
    out: dict[str, Any] = {}
    for name, value in values.items():
        annotation = str(params[name].annotation)
        try:
            out[name] = _accepts(annotation, value)
        except TypeError:
            wanted = [w for t in annotation.split("|") for w in _WORDS.get(t.strip(), ())]
            words = f"{', '.join(wanted[:-1])} or {wanted[-1]}" if len(wanted) > 1 else wanted[0]
            raise ProblemError(where, name, f"expected {words}, got {describe(value)}") from None
    return out


def in_range(where: str, name: str, value: int | None, low: int | None, high: int | None) -> None:
    """A whole number within [low, high] (either end open when None); None passes."""
    if value is None:
        return
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"from {low} to {high}" if low is not None and high is not None else f"of {low} or more"
        if low is None:
            span = f"of {high} or less"
        raise ProblemError(where, name, f"expected a whole number {span}, got {describe(value)}")


def plain(x: Any, label: str) -> Any:
    """Python numbers, strings, lists and dicts from what a caller gives for a problem or answers:
    numpy arrays and scalars, tuples, Mappings. Refuses (naming ``label``) nesting deeper than a
    file may hold, a container inside itself, and a key that is not a string."""
    return _plain(x, label, 0, set())


def _plain(x: Any, label: str, depth: int, path: set[int]) -> Any:
    if depth > MAX_NESTING:
        raise ProblemError(label, "", f"is nested too deeply (more than {MAX_NESTING} levels of tables and lists)")
    if isinstance(x, (Mapping, list, tuple)):
        if id(x) in path:
            raise ProblemError(label, "", "holds a value inside itself (a list or dict that contains itself)")
        path.add(id(x))
        try:
            if isinstance(x, Mapping):
                out: dict[str, Any] = {}
                for k, v in x.items():
                    if not isinstance(k, str):
                        raise ProblemError(label, "", f"keys must be strings, got {describe(k)}")
                    out[k] = _plain(v, label, depth + 1, path)
                return out
            return [_plain(v, label, depth + 1, path) for v in x]
        finally:
            path.discard(id(x))
    if type(x).__module__ == "numpy":
        return _numpy(x, label, depth, path)
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 3 * LONG_INT:
        return Decimal(x)  # as a file's long whole number: the number grammar refuses it, naming the key
    return x


def _numpy(x: Any, label: str, depth: int, path: set[int]) -> Any:
    import numpy as np

    if isinstance(x, np.ndarray):
        if x.ndim > MAX_NESTING:
            raise ProblemError(label, "", f"is nested too deeply (more than {MAX_NESTING} levels of tables and lists)")
        if x.dtype.kind in "biuU" or (x.dtype.kind == "f" and x.dtype.itemsize == 8):
            return x.tolist()  # Python bools, ints, floats and strings already
        if x.dtype == object:
            return _plain(x.tolist(), label, depth, path)
        return [_numpy(v, label, depth + 1, path) for v in x] if x.ndim else _numpy(x[()], label, depth, path)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        if np.finfo(x.dtype).precision > np.finfo(np.float64).precision:  # long double: keep its digits
            text = np.format_float_positional(x, unique=True) if np.isfinite(x) else str(x)
            return Decimal(text) if np.isfinite(x) else str(x)
        if x.dtype.itemsize < 8 and np.isfinite(x):  # float32/float16 (a tensor's .numpy()): the digits it
            # shows, 17.496, not the float64 of its bits, 17.496000289916992
            return float(np.format_float_positional(x, unique=True))
        return float(x)
    if isinstance(x, np.str_):
        return str(x)
    return x  # a complex or a date: the parser says it is not a number


P = ParamSpec("P")
R = TypeVar("R")


def keywords_checked(where: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A function of the API whose keywords are checked before the call: a keyword it does not take is
    an :class:`~attncalc.errors.ArgumentError` naming ``where`` and the keyword, with the close ones
    (did you mean ``rtol``?), instead of Python's bare TypeError."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        sig = inspect.signature(fn)
        named = [n for n, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        open_ended = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())

        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            if not open_ended:
                for key in kwargs:
                    if key not in named:
                        raise ArgumentError(where, key, unknown_keyword(key, named))
            try:
                sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise ArgumentError(where, "", str(exc)) from None
            return fn(*args, **kwargs)

        return run

    return wrap


def unknown_keyword(key: str, named: list[str]) -> str:
    """The message for a keyword a function does not take: the close ones, then every one."""
    import difflib

    close = difflib.get_close_matches(key, named, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"not a keyword of this function; {hint}it takes {', '.join(named) if named else 'none'}"


def misspelt_option(keys: dict[str, Any], options: list[str]) -> None:
    """``solve(path, decimal=3)``: a keyword beside a problem close to one of solve's options is that
    option misspelt (an :class:`~attncalc.errors.ArgumentError`), not a problem's key given twice."""
    import difflib

    for key in sorted(keys):
        close = difflib.get_close_matches(key, options, n=1, cutoff=0.6)
        if close:
            raise ArgumentError(
                "attncalc.solve",
                key,
                f"did you mean {close[0]}? with a problem given, solve takes only {', '.join(options)}",
            )
