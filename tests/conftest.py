"""Fixtures shared by the tests (helpers live in tests/helpers.py)."""

from __future__ import annotations

from .helpers import cli  # noqa: F401  (a fixture)
