"""The one line under a problem's title: its kind and what sets it apart (score and convention, cell
and layout, heads, strategy), shared by the terminal view and every sheet. Each kind's registry entry
names the function that writes it (a built-in kind's ``header`` in its mechanism module,
``attncalc/mechanisms/KIND.py``)."""

from __future__ import annotations

from typing import Any

from .. import kinds

__all__ = ["describe"]


def describe(p: Any) -> list[str]:
    """One line about the problem's kind: score and convention, or cell and layout."""
    header: Any = kinds.entry(p.kind).load("header")
    return list(header(p))
