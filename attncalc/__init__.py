"""attncalc: worked derivations of attention mechanisms, exact and numeric.

Importing the package is cheap; the heavy parts (numpy, sympy, rich) load on first use.
``attncalc.solve``, ``attncalc.check``, ``attncalc.generate`` and ``attncalc.plot`` are the Python API
(:mod:`attncalc.api`); their errors are :class:`attncalc.errors.AttncalcError`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import AttncalcError, ProblemError
from .reports import exports as _exports  # noqa: F401  (registers the views of results; cheap)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .api import ProblemLike, Variant
    from .check import Report
    from .derivation import Derivation

__version__ = "0.1.0"

__all__ = ["AttncalcError", "ProblemError", "Variant", "__version__", "check", "generate", "plot", "solve"]


def _fitted(fn: Any) -> Any:
    """A function of the API whose arguments are fitted to its signature before it runs: a call that does
    not fit (``attncalc.solve(p, p)``: too many positional arguments) is an ArgumentError naming it (a
    TypeError too), not Python's bare TypeError."""
    import functools
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            sig.bind(*args, **kwargs)
        except TypeError as exc:
            from .errors import ArgumentError

            raise ArgumentError(f"attncalc.{fn.__name__}", "", str(exc)) from None
        return fn(*args, **kwargs)

    return run


@_fitted
def solve(problem: ProblemLike | None = None, /, **keys: Any) -> Derivation:
    """Solve a problem: a path, a dict shaped like a problem file, or keywords; see :func:`attncalc.api.solve`."""
    from .api import solve as run

    return run(problem, **keys)


@_fitted
def check(problem: ProblemLike, answers: str | Path | Mapping[str, Any] | None = None, **options: Any) -> Report:
    """Grade answers (a path or a dict keyed by step id); see :func:`attncalc.api.check`."""
    from .api import check as run

    return run(problem, answers, **options)


@_fitted
def generate(**options: Any) -> list[Variant]:
    """Draw seeded homework variants, as ``attncalc generate``; see :func:`attncalc.api.generate`."""
    from .api import generate as run

    return run(**options)


@_fitted
def plot(problem: ProblemLike | Derivation, step: str | None = None, format: str = "svg", **options: Any) -> bytes:
    """A step's heat map (the attention weights by default) as SVG, PDF or PNG bytes; see :func:`attncalc.api.plot`."""
    from .api import plot as run

    return run(problem, step, format, **options)


def __getattr__(name: str) -> Any:
    """``attncalc.Variant`` loads the API (and numpy) on first use: ``import attncalc`` stays cheap."""
    if name == "Variant":
        from .api import Variant

        return Variant
    raise AttributeError(f"module 'attncalc' has no attribute {name!r}")


class _Package(ModuleType):
    """The package, whose names ``check`` and ``generate`` stay the API functions.

    ``attncalc/check/grade.py`` and ``attncalc/homework/generate.py`` are also modules of the package; importing
    a module normally sets the package attribute of its name, which would replace the function.
    The modules stay importable as ever (``from attncalc.check import Report``); a submodule of the
    ``check`` package is imported with ``from attncalc.check import wide`` (``import attncalc.check.wide as
    wide`` looks ``check`` up as the package's attribute, which is the function).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("check", "generate") and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
