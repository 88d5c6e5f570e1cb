"""Compatibility names: kind similarity's parsing and labels moved to :mod:`attncalc.parse.similarity`."""

from __future__ import annotations

from .parse.similarity import entry_name, labels, similarity

__all__ = ["entry_name", "labels", "similarity"]
