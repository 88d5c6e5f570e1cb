"""Grading without numpy's overflow warnings.

Grading compares answers of any size (1e308 either side of the truth: their difference is ∞, so
not close, which is the verdict) and reruns the computation from them (a value may become ±∞, as
docs/interface.md says): numpy's "overflow encountered" is not a message for the user, and the
practice page's log is not the place for it either.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")


def overflow_quiet(fn: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def quiet(*args: P.args, **kwargs: P.kwargs) -> R:
        with np.errstate(over="ignore"):
            return fn(*args, **kwargs)

    return quiet
