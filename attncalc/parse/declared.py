"""The declaration is the validator: one reader for every declared key of a table.

A kind's declaration (:mod:`attncalc.schema.decl`) says each key's type, whether it is required, its
default, its choices, its bounds and its shape, a shape naming its dimensions (``("n", "d_k")``). The
JSON Schema is generated from the same declaration, so the file an editor accepts and the file the
parser accepts cannot disagree. :func:`read_declared` enforces all of it:

- a required key that is missing: ``given.Q: missing: one row per token``;
- a value of the wrong type, a choice that is not one of the choices, a whole number out of bounds;
- named dimensions across keys: the first key that fixes a dimension names it in later messages,
  ``given.K is 1×3, but d_k = 2 from given.Q`` (a :class:`Dims` carries them from table to table).

What it returns is a plain dict of typed values (a number as its number tree, a vector or matrix as a
:class:`Given`, a table as a dict read the same way), from which a kind's parser builds its own typed
payload; the parser keeps only the rules that tie keys together in ways a declaration cannot say.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..schema.decl import Key, Select, Table
from .reader import Reader, describe_raw, shape_text
from .types import Given


@dataclass
class Dims:
    """Named dimensions and the key that fixed each: ``d_k -> (2, "given.Q")``."""

    sizes: dict[str, tuple[int, str]] = field(default_factory=dict)

    def bind(self, r: Reader, name: str, size: int, key: str, have: str) -> None:
        """Fix ``name`` at ``size`` (first sight) or refuse ``key`` when it disagrees with the key
        that fixed it; ``have`` says what the key is ("is 1×3", "has length 4")."""
        if name not in self.sizes:
            self.sizes[name] = (size, key)
            return
        want, source = self.sizes[name]
        if want != size:
            raise r.fail(key, f"{have}, but {name} = {want} from {source}")

    def __getitem__(self, name: str) -> int:
        return self.sizes[name][0]

    def get(self, name: str) -> int | None:
        got = self.sizes.get(name)
        return None if got is None else got[0]


def read_declared(
    r: Reader,
    raw: Any,
    decl: Table,
    where: str,
    dims: Dims | None = None,
    *,
    only: Iterable[str] | None = None,
    skip: Iterable[str] = (),
) -> dict[str, Any]:
    """Every declared key of the table ``raw`` (at ``where``: "given", "" for the top level), read and
    checked; keys the file leaves out get their declared default (None when there is none).

    ``only`` reads just those keys and leaves the unknown-key check to the caller (the top level has
    read ``[settings]`` already); ``skip`` leaves keys to the kind's parser (a key whose type depends on
    another's value). A declared ``extra`` key passes the unknown-key check and is not read.
    """
    dims = Dims() if dims is None else dims
    names = tuple(only) if only is not None else None
    t = r.table(raw, where, decl.names + decl.extra) if names is None else raw if isinstance(raw, dict) else {}
    skipped = set(skip)
    out: dict[str, Any] = {}
    for key in decl.keys:
        if key.name in skipped or (names is not None and key.name not in names):
            continue
        path = f"{where}.{key.name}" if where else key.name
        if key.name not in t or t[key.name] is None:
            if key.required:
                raise r.fail(path, f"missing: {key.doc}")
            out[key.name] = None if key.default is None else read_value(r, key.default, key, path, Dims())
            continue
        out[key.name] = read_value(r, t[key.name], key, path, dims)
    return out


def check_select(r: Reader, raw: Any, sel: Select, value: str, where: str) -> None:
    """The keys a selecting choice allows (the JSON Schema's if/then from the same :class:`Select`): a key
    of another value is refused naming the values that use it, a required key of this value must be there."""
    t = raw if isinstance(raw, dict) else {}
    own = sel.keys[value]
    allowed = set(own.names) | set(sel.always)
    for key in sorted(k for k in t if k not in allowed):
        users = [v for v, keys in sel.keys.items() if key in keys]
        if users:
            hint = f" (it belongs to {sel.key} {' or '.join(map(repr, users))})"
            raise r.fail(f"{where}.{key}", f"not used by {sel.key} {value!r}{hint}")
    for key in own.keys:
        if key.required and t.get(key.name) is None:
            raise r.fail(f"{where}.{key.name}", f"missing: {sel.key} {value!r} needs it ({key.doc})")


def read_value(r: Reader, raw: Any, key: Key, path: str, dims: Dims) -> Any:
    """One value of a declared key (its type, or one of the types in ``also``)."""
    types = (key.type, *key.also)
    if len(types) > 1:
        kind = _which(raw, types)
        if kind is None:
            raise r.fail(path, f"expected {' or '.join(_WORDS[t] for t in types)}, got {describe_raw(raw)}")
        return _read(r, raw, key, kind, path, dims)
    return _read(r, raw, key, key.type, path, dims)


_WORDS = {
    "number": "a number",
    "integer": "a whole number",
    "bool": "true or false",
    "string": "a string",
    "choice": "one of the choices",
    "choices": "a choice or a list of choices",
    "labels": "a non-empty list of labels",
    "label": "a label or a 0-based index",
    "sentences": "a list of sentences",
    "indices": "a list of labels or 0-based indices",
    "vector": "a vector (a list of numbers)",
    "matrix": "a matrix (a list of rows)",
    "vectors": "a vector or a matrix",
    "matrices": "a list of matrices",
    "table": "a table of keys",
    "tables": "a list of tables",
    "any": "a table",
}


def _which(raw: Any, types: tuple[str, ...]) -> str | None:
    """Which of several declared types a raw value is written in (the first that fits its shape)."""
    rows = isinstance(raw, list) and bool(raw) and isinstance(raw[0], list)
    for t in types:
        if t == "vector" and rows and "matrix" in types:
            continue  # a list of rows is the matrix the key also takes
        if t in ("choice", "string", "choices") and isinstance(raw, str):
            return t
        if t in ("matrix", "vectors") and isinstance(raw, list) and raw and isinstance(raw[0], list):
            return t
        if t in ("vector", "labels", "indices", "sentences", "choices") and isinstance(raw, list):
            return t
        if t == "integer" and isinstance(raw, int) and not isinstance(raw, bool):
            return t
        if t == "bool" and isinstance(raw, bool):
            return t
        if t in ("table", "any") and isinstance(raw, dict):
            return t
        if t == "number" and not isinstance(raw, (bool, list, dict)):
            return t
        if t == "label" and isinstance(raw, (str, int)) and not isinstance(raw, bool):
            return t
    return None


def _read(r: Reader, raw: Any, key: Key, kind: str, path: str, dims: Dims) -> Any:
    if kind == "number":
        return _bounded(r, r.number(raw, path), key, path)
    if kind == "integer":
        return _integer(r, raw, key, path)
    if kind == "bool":
        if not isinstance(raw, bool):
            raise r.fail(path, f"expected true or false, got {describe_raw(raw)}")
        return raw
    if kind == "string":
        return r.string(raw, path)
    if kind == "choice":
        return r.string(raw, path, key.choices)
    if kind == "choices":
        return _choices(r, raw, key, path)
    if kind == "labels":
        return _counted(r, r.labels(raw, path), key, path, dims, "labels")
    if kind == "label":
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            raise r.fail(path, f"expected a label or a 0-based index, got {describe_raw(raw)}")
        return raw
    if kind == "indices":
        return _counted(r, _indices(r, raw, path), key, path, dims, "entries")
    if kind == "sentences":
        return _counted(r, _sentences(r, raw, path), key, path, dims, "sentences")
    if kind in ("vector", "matrix", "vectors"):
        return _array(r, raw, key, kind, path, dims)
    if kind == "matrices":
        return _matrices(r, raw, key, path, dims)
    if kind == "table":
        assert key.table is not None  # the declaration checks it: a table type has its table
        return read_declared(r, raw, key.table, path, dims)
    if kind == "tables":
        assert key.table is not None
        if not isinstance(raw, list) or not raw:
            raise r.fail(path, f"expected a non-empty list of tables, got {describe_raw(raw)}")
        return [read_declared(r, item, key.table, f"{path}[{i}]", dims) for i, item in enumerate(raw, 1)]
    if not isinstance(raw, dict):  # "any"
        raise r.fail(path, f"expected a table of keys, got {describe_raw(raw)}")
    return raw


def _bounded(r: Reader, node: Any, key: Key, path: str) -> Any:
    """A number key's declared bounds (``min``, ``max``), as an integer key's: checked on its value."""
    if key.min is None and key.max is None:
        return node
    from ..numbers import to_float

    value = to_float(node)
    if (key.min is not None and value < key.min) or (key.max is not None and value > key.max):
        if key.min is not None and key.max is not None:
            bound = f"from {key.min} to {key.max}"
        else:
            bound = f"of at least {key.min}" if key.min is not None else f"of at most {key.max}"
        raise r.fail(path, f"is {value:g}: expected a number {bound}")
    return node


# a whole number written with an exponent (training_tokens = 1.4e12) is read as one up to this many digits
# (a count of any published size; 1e999999999 is not turned into a billion-digit integer)
WHOLE_EXPONENT_DIGITS = 60


def _integer(r: Reader, raw: Any, key: Key, path: str) -> int:
    if (
        isinstance(raw, Decimal)
        and raw.is_finite()
        and raw.adjusted() < WHOLE_EXPONENT_DIGITS
        and raw == raw.to_integral_value()
    ):
        raw = int(raw)  # 1.4e12 and 70e9 are whole numbers as written: TOML reads them as floats
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise r.fail(path, f"expected a whole number, got {describe_raw(raw)}")
    if key.min is not None and raw < key.min:
        bound = f"from {key.min} to {key.max}" if key.max is not None else f"of at least {key.min}"
        raise r.fail(path, f"is {raw}: expected a whole number {bound}")
    if key.max is not None and raw > key.max:
        bound = f"from {key.min} to {key.max}" if key.min is not None else f"at most {key.max}"
        raise r.fail(path, f"is {raw}: expected a whole number {bound}")
    return raw


def _choices(r: Reader, raw: Any, key: Key, path: str) -> tuple[str, ...]:
    if isinstance(raw, str):
        return (r.string(raw, path, key.choices),)
    if isinstance(raw, list) and not raw:
        raise r.fail(path, f"the list is empty; choose from: {', '.join(key.choices)}")
    if not isinstance(raw, list):
        raise r.fail(path, f"expected one of {', '.join(key.choices)} or a list of them, got {describe_raw(raw)}")
    picked: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            raise r.fail(path, f"expected a name or a list of names, got {describe_raw(item)} in the list")
        name = r.string(item, path, key.choices)
        if name in picked:
            raise r.fail(path, f"{name!r} is listed twice")
        picked.append(name)
    return tuple(picked)


def _counted(r: Reader, items: tuple[Any, ...], key: Key, path: str, dims: Dims, what: str) -> tuple[Any, ...]:
    """A list declared with a length (``shape=("T",)``): its length is bound like a vector's."""
    if key.shape is not None and len(key.shape) == 1:
        want, have = key.shape[0], f"has {len(items)} {what}"
        if isinstance(want, int):
            if len(items) != want:
                raise r.fail(path, f"{have}: expected {want}")
        else:
            dims.bind(r, want, len(items), path, have)
    return items


def _indices(r: Reader, raw: Any, path: str) -> tuple[str | int, ...]:
    if not isinstance(raw, list) or not raw:
        raise r.fail(path, f"expected a non-empty list of labels or 0-based indices, got {describe_raw(raw)}")
    out: list[str | int] = []
    for i, item in enumerate(raw, 1):
        if isinstance(item, bool) or not isinstance(item, (str, int)) or (isinstance(item, int) and item < 0):
            raise r.fail(path, f"entry {i}: expected a label or a 0-based index, got {describe_raw(item)}")
        out.append(item)
    return tuple(out)


def _sentences(r: Reader, raw: Any, path: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list) or not raw or all(not isinstance(x, (list, str)) for x in raw):
        raise r.fail(
            path,
            f"expected a non-empty list of token lists (or strings), got {describe_raw(raw)}; "
            'write one sentence as [[...]] or ["..."]',
        )
    out = []
    for i, item in enumerate(raw, 1):
        if isinstance(item, str):
            words = tuple(item.split())
            if not words:
                raise r.fail(f"{path}[{i}]", "the sentence is empty")
            out.append(words)
        elif isinstance(item, list):
            out.append(r.labels(item, f"{path}[{i}]", answers=False))  # a sentence's tokens
        else:
            raise r.fail(f"{path}[{i}]", f"expected a list of tokens or a string, got {describe_raw(item)}")
    return tuple(out)


def _array(r: Reader, raw: Any, key: Key, kind: str, path: str, dims: Dims) -> Given:
    if kind == "vectors" and isinstance(raw, list) and raw and not any(isinstance(x, list) for x in raw):
        v = r.vector(raw, path)
        g = Given(v.name, v.nodes.reshape(1, -1), v.floats.reshape(1, -1))
    else:
        g = r.vector(raw, path) if kind == "vector" else r.matrix(raw, path)
    if key.shape is not None:
        check_shape(r, g, key.shape, path, dims)
    return g


def _matrices(r: Reader, raw: Any, key: Key, path: str, dims: Dims) -> Given:
    """A list of matrices of one shape (moe's experts), stacked: count × rows × columns."""
    import numpy as np

    if not isinstance(raw, list) or not raw or not all(isinstance(m, list) for m in raw):
        raise r.fail(path, f"expected a non-empty list of matrices (each a list of rows), got {describe_raw(raw)}")
    mats = [r.matrix(m, f"{path}[{i}]") for i, m in enumerate(raw, 1)]
    for i, m in enumerate(mats[1:], 2):
        if m.shape != mats[0].shape:
            raise r.fail(
                path, f"matrix {i} is {shape_text(m)}, but matrix 1 is {shape_text(mats[0])}: all of one shape"
            )
    g = Given(path, np.stack([m.nodes for m in mats]), np.stack([m.floats for m in mats]))
    if key.shape is not None:
        check_shape(r, g, key.shape, path, dims)
    return g


def check_shape(r: Reader, g: Given, shape: tuple[int | str, ...], path: str, dims: Dims) -> None:
    """The array's sizes against the declared shape: fixed numbers must match, names are bound."""
    have = f"has length {g.shape[0]}" if len(g.shape) == 1 else f"is {'×'.join(map(str, g.shape))}"
    if len(shape) != len(g.shape):
        if len(g.shape) == 1 and len(shape) == 2:  # a vector where rows are declared ("vector" or "matrix"): one row
            shape = shape[1:]
        else:
            return  # other ranks are the type's message
    for size, want in zip(g.shape, shape, strict=True):
        if isinstance(want, int):
            if size != want:
                need = f"length {want}" if len(shape) == 1 else "×".join(map(str, shape))
                raise r.fail(path, f"{have}: expected {need}")
        else:
            dims.bind(r, want, size, path, have)
