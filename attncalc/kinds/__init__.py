"""The registry of kinds: where everything about a kind is found. Public API: :data:`KINDS`,
:class:`KindEntry`, :data:`BUILTIN` and the helpers below (docs/contributing.md, "Adding a kind").

Its place in the pipeline (parse → mechanisms → derivation → render | check → reports → cli | serve;
docs/contributing.md, "The layers"): the registry every stage reads (a kind is one entry here, or an entry point).

:data:`KINDS` maps each kind's name to its :class:`KindEntry`: the built-in kinds of :data:`BUILTIN`
(the table below), then the plugin kinds other installed distributions declare in the entry-point group
``attncalc.kinds`` (:mod:`attncalc.kinds.plugins`; ``KINDS.origin(kind)`` names the distribution), read the
first time a kind is asked for. A plugin cannot replace a built-in kind.

Each entry names, by module path (``"module:attribute"``), the kind's schema declaration, its
parser, its mechanism, its step ids, its ``attncalc new`` template and its homework drawer (an
:class:`attncalc.homework.base.Drawer`, or ``None``: ``attncalc generate`` does not cover the kind). The
paths are strings, loaded only when asked for, so that ``attncalc --help`` and ``attncalc list`` import
neither numpy nor sympy. ``parse_problem``, the mechanisms' table, ``attncalc new``, ``list``, ``schema``
and ``generate`` read this table, and the top-level and ``[settings]`` keys a file may use are read from
its declarations.

Adding a kind (docs/contributing.md walks through it; tests/registry/test_new_kind.py does it with a fixture, and
tests/registry/test_plugin_kind.py installs a plugin kind): declare its file, write its parser, its mechanism
(``inputs`` and ``run``), its step ids, its template, its header line and its homework drawer in modules
of its own (a built-in kind's step ids and template beside its declaration, its header in its mechanism
module: tests/registry/test_kind_homes.py); then add one entry to :data:`BUILTIN`, or name it in an entry point. The optional fields
(convention, plot_step, entry_name, tables, recurrent, mistakes, elementwise) say what other modules
used to find by the kind's name; ``data`` names the payload class its parser puts in ``Problem.data``
(``parse_problem`` checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..schema.decl import KindSchema

from .builtin import BUILTIN
from .entry import KindEntry, load

__all__ = ["BUILTIN", "KINDS", "KindEntry", "load"]


class Registry(MutableMapping[str, KindEntry]):
    """The kinds by name: the built-ins, then the plugin kinds of the entry-point group
    ``attncalc.kinds`` (:mod:`attncalc.kinds.plugins`), read the first time a kind is asked for.
    ``origin(kind)`` names the distribution a plugin kind came from (None: a built-in)."""

    def __init__(self, builtin: dict[str, KindEntry]) -> None:
        self._builtin = builtin
        self._all: dict[str, KindEntry] | None = None
        self._origin: dict[str, str] = {}

    def _kinds(self) -> dict[str, KindEntry]:
        if self._all is None:
            from .plugins import discover

            found, self._origin = discover(self._builtin, KindEntry)
            self._all = {**self._builtin, **found}
        return self._all

    def __getitem__(self, kind: str) -> KindEntry:
        return self._kinds()[kind]

    def __setitem__(self, kind: str, e: KindEntry) -> None:  # a test registers a kind of its own
        self._kinds()[kind] = e

    def __delitem__(self, kind: str) -> None:
        del self._kinds()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds())

    def __len__(self) -> int:
        return len(self._kinds())

    def origin(self, kind: str) -> str | None:
        """The distribution a plugin kind came from; None for a built-in (or a kind registered in-process)."""
        self._kinds()
        return self._origin.get(kind)


KINDS = Registry(BUILTIN)


def entry(kind: str) -> KindEntry:
    return KINDS[kind]


def entry_namer(problem: Any) -> Callable[[str, tuple[int, ...]], str] | None:
    """How the problem's kind names a step's entries (a similarity: by its vectors, cos(cat, chat)),
    or None: by the step's symbol and index, e_2."""
    e = entry(problem.kind)
    if e.entry_name is None:
        return None
    named = e.load("entry_name")
    return lambda step_id, idx: str(named(problem, step_id, idx))


def tables_after(kind: str, step_id: str) -> list[str]:
    """The tables the kind's sheets show after a step ("": after the last step)."""
    return [table for after, table in entry(kind).tables if after == step_id]


def declarations() -> list[KindSchema]:
    """Every kind's declaration, in the table's order."""
    return [e.declaration for e in KINDS.values()]


def template(kind: str, score: str | None = None) -> str:
    """The text `attncalc new KIND` prints."""
    t = entry(kind).load("template")
    return t(score or "dot") if callable(t) else str(t)


def recurrent() -> tuple[str, ...]:
    """The kinds that run a cell over time steps (rnn, lstm, gru, seq2seq)."""
    return tuple(k for k, e in KINDS.items() if e.recurrent)


def with_drawer() -> list[str]:
    """The kinds `attncalc generate` covers."""
    return [k for k, e in KINDS.items() if e.drawer is not None]


def declared(field: str) -> dict[str, Any]:
    """The union of what the kinds declare in a table field (``mistakes``, ``elementwise``), in the
    registry's order: a kind's own slips or element-wise functions, beside the shared tables."""
    out: dict[str, Any] = {}
    for e in KINDS.values():
        if getattr(e, field) is not None:
            out.update(e.load(field))
    return out
