"""Compatibility names: the parsing moved to :mod:`attncalc.parse` (one module per kind or family).

``derivation.py``, the mechanisms, the checker and the tests import the typed problem and the
readers from here; new code imports from :mod:`attncalc.parse` directly.
"""

from __future__ import annotations

from .parse.attention import HEAD_KEYS, SCORE_KEYS
from .parse.reader import _describe, _Reader, _require, read_raw
from .parse.top import GIVEN_KEYS, SETTINGS_KEYS, TOP_KEYS, load_problem, parse_problem
from .parse.types import RECURRENT_KINDS, Given, Head, Problem, Settings

__all__ = [
    "GIVEN_KEYS",
    "HEAD_KEYS",
    "RECURRENT_KINDS",
    "SCORE_KEYS",
    "SETTINGS_KEYS",
    "TOP_KEYS",
    "Given",
    "Head",
    "Problem",
    "Settings",
    "_Reader",
    "_describe",
    "_require",
    "load_problem",
    "parse_problem",
    "read_raw",
]
