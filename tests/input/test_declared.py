"""The declaration is the validator (attncalc.parse.declared): required keys, types, defaults, bounds,
choices and named dimensions across keys, each refused with a message naming the file and the key."""

from __future__ import annotations

from typing import Any

import pytest

from attncalc.errors import ProblemError
from attncalc.numbers import to_float
from attncalc.parse import Dims, Reader, read_declared
from attncalc.schema.decl import Key, table

GIVEN = table(
    Key("Q", "matrix", "one row per query", required=True, shape=("n", "d_k")),
    Key("K", "matrix", "one row per key", required=True, shape=("m", "d_k")),
    Key("b", "vector", "a bias", shape=("d_k",)),
    Key("a", "vector", "one number in a list", shape=(1,)),
    Key("block", "integer", "keys per block", default=2, min=1, max=64),
    Key("score", "choice", "the score", choices=("dot", "scaled-dot"), default="scaled-dot"),
    Key("eps", "number", "a small number", default="1e-5"),
    Key("gamma", "number", "a focusing exponent", default=2, min=0),
    Key("share", "number", "a share", default="1/2", min=0, max=1),
    Key("jacobian", "bool", "write the Jacobian", default=False),
    Key("mask", "choice", "causal or a 0/1 matrix", choices=("causal",), also=("matrix",)),
    Key("cfg", "table", "a nested table", table=table(Key("W", "matrix", "weights", shape=("d_k", "d_v")))),
)
Q = [[1, 0], [0, 1], [1, 1]]


def read(raw: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return read_declared(Reader("p.toml"), raw, GIVEN, "given", **kw)


def refused(raw: dict[str, Any]) -> str:
    with pytest.raises(ProblemError) as err:
        read(raw)
    return str(err.value)


def test_values_are_typed_and_defaults_filled() -> None:
    got = read({"Q": Q, "K": [[2, 3]], "mask": "causal"})
    assert got["Q"].floats.tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    assert got["K"].shape == (1, 2)
    assert got["block"] == 2 and got["score"] == "scaled-dot" and got["jacobian"] is False
    assert to_float(got["eps"]) == pytest.approx(1e-5)
    assert got["b"] is None and got["a"] is None and got["cfg"] is None
    assert got["mask"] == "causal"


def test_a_missing_required_key_says_what_it_holds() -> None:
    msg = refused({"Q": Q})
    assert "p.toml" in msg and "given.K" in msg and "missing: one row per key" in msg


def test_named_dimensions_are_bound_across_keys() -> None:
    assert "given.K: is 1×3, but d_k = 2 from given.Q" in refused({"Q": Q, "K": [[1, 2, 3]]})
    assert "given.b: has length 3, but d_k = 2 from given.Q" in refused({"Q": Q, "K": [[1, 2]], "b": [1, 2, 3]})
    # a nested table shares the dimensions of the table around it
    msg = refused({"Q": Q, "K": [[1, 2]], "cfg": {"W": [[1, 2, 3]]}})
    assert "given.cfg.W: is 1×3, but d_k = 2 from given.Q" in msg


def test_dimensions_carry_from_table_to_table() -> None:
    dims = Dims()
    read({"Q": Q, "K": [[1, 2]]}, dims=dims)
    assert dims["n"] == 3 and dims["d_k"] == 2 and dims.get("d_v") is None
    other = table(Key("V", "matrix", "values", shape=("m", "d_v")))
    with pytest.raises(ProblemError, match=r"head\.V: is 2×1, but m = 1 from given\.K"):
        read_declared(Reader("p.toml"), {"V": [[1], [2]]}, other, "head", dims)


def test_fixed_sizes_types_bounds_and_choices() -> None:
    assert "given.a: has length 2: expected length 1" in refused({"Q": Q, "K": [[1, 2]], "a": [1, 2]})
    assert "given.block: is 0: expected a whole number from 1 to 64" in refused({"Q": Q, "K": [[1, 2]], "block": 0})
    assert "given.block: expected a whole number, got" in refused({"Q": Q, "K": [[1, 2]], "block": 2.5})
    assert "given.block: expected a whole number, got" in refused({"Q": Q, "K": [[1, 2]], "block": True})
    assert "given.jacobian: expected true or false" in refused({"Q": Q, "K": [[1, 2]], "jacobian": "yes"})
    msg = refused({"Q": Q, "K": [[1, 2]], "score": "scaled_dot"})
    assert "given.score" in msg and "did you mean 'scaled-dot'" in msg
    assert "given.Q: expected a matrix" in refused({"Q": [1, 2], "K": [[1, 2]]})
    assert "given.eps" in refused({"Q": Q, "K": [[1, 2]], "eps": "one"})


def test_a_number_keys_bounds_hold_on_its_value() -> None:
    """min and max bound a number key as they bound an integer key (a plugin's gamma = -1 was taken)."""
    assert "given.gamma: is -1: expected a number of at least 0" in refused({"Q": Q, "K": [[1, 2]], "gamma": -1})
    assert "given.share: is 1.5: expected a number from 0 to 1" in refused({"Q": Q, "K": [[1, 2]], "share": "3/2"})
    assert "given.share: is -0.25: expected a number from 0 to 1" in refused({"Q": Q, "K": [[1, 2]], "share": -0.25})
    got = read({"Q": Q, "K": [[1, 2]], "gamma": 0, "share": "1/3"})  # the bounds themselves and exact values pass
    assert to_float(got["gamma"]) == 0 and to_float(got["share"]) == pytest.approx(1 / 3)


def test_a_key_of_two_types_reads_either_and_names_both() -> None:
    got = read({"Q": Q, "K": [[1, 2]], "mask": [[1, 0], [1, 1]]})
    assert got["mask"].shape == (2, 2)
    msg = refused({"Q": Q, "K": [[1, 2]], "mask": 3})
    assert "given.mask: expected one of the choices or a matrix (a list of rows), got" in msg


def test_unknown_keys_are_refused_unless_only_some_are_read() -> None:
    msg = refused({"Q": Q, "K": [[1, 2]], "Kk": 1})
    assert "given.Kk" in msg and "unknown key" in msg
    got = read_declared(Reader("p.toml"), {"jacobian": True, "decimals": 3}, GIVEN, "settings", only=("jacobian",))
    assert got == {"jacobian": True}


def test_skipped_keys_are_left_to_the_parser() -> None:
    got = read({"Q": Q, "K": [[1, 2]], "mask": {"not": "read"}}, skip=("mask",))
    assert "mask" not in got


def test_a_number_keys_bounds_are_in_its_json_schema() -> None:
    """An editor reading the JSON Schema refuses what the parser refuses: a number below its min; an exact
    string ("1/3") is left to the parser."""
    import jsonschema

    from attncalc.schema.json_schema import key_schema, whole_schema

    defs = whole_schema([])["$defs"]
    gamma = {**key_schema(next(k for k in GIVEN.keys if k.name == "gamma")), "$defs": defs}
    jsonschema.validate(2, gamma)
    jsonschema.validate("1/3", gamma)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(-1, gamma)
