"""The small language a kind's problem file is declared in: keys, types, shapes, defaults, descriptions.

Plain frozen dataclasses with no heavy imports, so that ``attncalc list``, ``attncalc schema`` and
``--help`` stay fast. From one declaration come the unknown-key validation (the allowed keys, in the
order the messages list them), the comments of the ``attncalc new`` templates, and the JSON Schema
(:mod:`attncalc.schema.json_schema`).

Types:

``number``     a JSON/TOML/YAML number or a string in the number grammar (``"1/3"``, ``"sqrt(2)"``)
``integer``    a whole number (``min``/``max`` bound it)
``bool``       true or false
``string``     free text
``choice``     one of ``choices``
``choices``    one of ``choices`` or a non-empty list of distinct ones
``labels``     a non-empty list of labels (strings or numbers)
``label``      one label or a 0-based index (an integer)
``sentences``  a non-empty list of sentences, each a list of tokens or one string split at spaces
``indices``    a non-empty list of labels or 0-based indices
``vector``     a non-empty list of numbers (``shape`` = (n,) when fixed)
``matrix``     a non-empty list of equally long non-empty rows of numbers
``vectors``    a vector or a matrix (one vector per row)
``matrices``   a non-empty list of matrices of one shape (moe's experts: ``shape`` = (count, rows, columns))
``table``      a table with the keys of ``table``
``tables``     a list of tables with the keys of ``table`` (TOML ``[[...]]``)
``any``        a table whose keys are not fixed (``[answers]``: step ids)

``also`` names further types a key accepts (``mask``: the choice ``"causal"`` or a 0/1 matrix).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

TYPES = (
    "number",
    "integer",
    "bool",
    "string",
    "choice",
    "choices",
    "labels",
    "label",
    "sentences",
    "indices",
    "vector",
    "matrix",
    "vectors",
    "matrices",
    "table",
    "tables",
    "any",
)


@dataclass(frozen=True)
class Key:
    """One key of a problem file."""

    name: str
    type: str
    doc: str  # one line, as the templates' comments say it
    default: Any = None  # None: no default (required, or absent means "not used")
    choices: tuple[str, ...] = ()
    shape: tuple[int | str, ...] | None = None  # ints are fixed lengths; strings name a dimension
    table: Table | None = None  # for table / tables
    required: bool = False
    also: tuple[str, ...] = ()
    min: float | None = None  # integer and number keys: the value's bounds
    max: float | None = None

    def __post_init__(self) -> None:
        for t in (self.type, *self.also):
            if t not in TYPES:
                raise ValueError(f"key {self.name!r}: unknown type {t!r}")
        if (self.type in ("table", "tables")) != (self.table is not None):
            raise ValueError(f"key {self.name!r}: a table type needs a table and only it has one")

    def but(self, **changes: Any) -> Key:
        """The same key with some fields changed (a kind's own default, description or choices)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Table:
    """The keys of one table, in the order the messages and the templates list them."""

    keys: tuple[Key, ...]
    doc: str = ""
    extra: tuple[str, ...] = field(default=())  # keys accepted (and checked elsewhere) but not declared here
    # ways to fill the table, one of which must hold: (keys required, keys refused) each (accounting:
    # parameters and no architecture, or the architecture's sizes and no parameters); the kind's parser
    # enforces them, the JSON Schema states them
    alternatives: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = field(default=())

    def __post_init__(self) -> None:
        names = [k.name for k in self.keys]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate keys in table: {names}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)

    def __getitem__(self, name: str) -> Key:
        for k in self.keys:
            if k.name == name:
                return k
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def doc_of(self, path: str) -> str:
        """The description of a dotted path (``given.query``, ``head.combine``)."""
        head, _, rest = path.partition(".")
        key = self[head]
        if rest:
            assert key.table is not None, path
            return key.table.doc_of(rest)
        return key.doc


def table(*keys: Key, doc: str = "") -> Table:
    return Table(tuple(keys), doc)


@dataclass(frozen=True)
class Select:
    """A choice that decides which keys of a table apply: attention's ``score`` picks the keys of
    ``[given]`` its score function needs (required ones must be there, other choices' keys not)."""

    key: str  # the top-level choice, "score"
    table: str  # the table it governs, "given"
    keys: dict[str, Table]  # per value: its own keys
    always: tuple[str, ...] = ()  # keys of the table every value allows


@dataclass(frozen=True)
class KindSchema:
    """A kind's problem file: its top-level keys (``kind`` among them) and what they hold."""

    kind: str
    summary: str  # the one line `attncalc list` shows
    top: Table
    selects: tuple[Select, ...] = ()

    def doc_of(self, path: str) -> str:
        return self.top.doc_of(path)

    def fill(self, text: str) -> str:
        """A template's text with each «path» replaced by the declared description of that key: the
        comments of an ``attncalc new`` template are the declaration's, its example values its own.
        «value:key» names a key one value of a select adds («general:W»: the general score's ``W``)."""
        import re

        def doc(m: re.Match[str]) -> str:
            path = m.group(1)
            if ":" in path:
                value, key = path.split(":")
                return next(s.keys[value] for s in self.selects if value in s.keys).doc_of(key)
            return self.doc_of(path)

        return re.sub("«([^»]+)»", doc, text)
