"""Plugin kinds: kinds that come from other installed distributions.

A distribution declares its kinds in the entry-point group ``attncalc.kinds``, each entry point naming
an :class:`attncalc.kinds.KindEntry`::

    [project.entry-points."attncalc.kinds"]
    margin = "my_course_kinds.margin:ENTRY"

The registry (:data:`attncalc.kinds.KINDS`) reads them the first time it is asked for a kind, after
its built-ins, so a plugin kind goes through the same door as a built-in one and every command treats
it the same. The module an entry point names is imported then, as ``attncalc --help`` and
``attncalc list`` are: it should hold the ``KindEntry`` alone (its paths are strings, loaded only when
asked for), importing neither numpy nor sympy.

A plugin that cannot be used is left out with one line on standard error, and the built-ins work as
before: an entry point that fails to import, an object that is not a ``KindEntry``, a name that a
built-in kind (or an earlier plugin) already has. Nothing here imports numpy or sympy.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Protocol, TypeVar

GROUP = "attncalc.kinds"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


E = TypeVar("E", bound=_Named)  # attncalc.kinds.KindEntry (passed in: the registry imports this module)


def _say(message: str) -> None:
    """One line on standard error (a message of several lines is joined into one)."""
    sys.stderr.write("attncalc: warning: " + " ".join(message.split()) + "\n")


def discover(builtin: Mapping[str, E], entry_type: type[E]) -> tuple[dict[str, E], dict[str, str]]:
    """The usable plugin kinds (name -> entry, each an ``entry_type``, :class:`attncalc.kinds.KindEntry`)
    and the distribution each came from (name -> its name), by distribution and entry-point name; what
    cannot be used is said, one line each."""
    from importlib.metadata import entry_points

    found: dict[str, E] = {}
    origin: dict[str, str] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda ep: (ep.dist.name if ep.dist else "", ep.name)):
        dist = ep.dist.name if ep.dist is not None else "an unknown distribution"
        where = f"plugin kind {ep.name!r} of {dist} ({ep.value})"
        try:
            obj = ep.load()
        except Exception as exc:  # any failure of the plugin's own import: said, and the plugin left out
            _say(f"{where} not loaded: {type(exc).__name__}: {exc}")
            continue
        if not isinstance(obj, entry_type):
            _say(f"{where} not loaded: it names a {type(obj).__name__}, not an attncalc.kinds.KindEntry")
            continue
        if obj.name in builtin:
            _say(f"{where} ignored: it would replace the built-in kind {obj.name!r}, which is kept")
            continue
        if obj.name in found:
            _say(f"{where} ignored: kind {obj.name!r} already comes from {origin[obj.name]}")
            continue
        found[obj.name] = obj
        origin[obj.name] = dist
    return found, origin
