"""What read_declared gained for the kinds' parsers, and the kinds' messages that now
come from their declarations: a list's declared length, a vector where rows are declared, a key of two
array types, a list of choices, a Select (the keys one choice takes), sentences; each message names the
file, the key and the dimension with the key that fixed it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.errors import ProblemError
from attncalc.parse import Reader, parse_problem, read_declared
from attncalc.parse.declared import check_select
from attncalc.schema.decl import Key, Select, table
from attncalc.schema.json_schema import kind_schema

T = table(
    Key("p", "vector", "one per step", shape=("T",)),
    Key("targets", "labels", "one per step", shape=("T",)),
    Key("A", "vector", "a vector or rows", also=("matrix",), shape=("rows_A", "d")),
    Key("B", "vector", "a vector or rows", also=("matrix",), shape=("rows_B", "d")),
    Key("measure", "choices", "any of a, b", choices=("a", "b"), default="a"),
    Key("refs", "sentences", "sentences"),
)


def read(raw: dict[str, Any]) -> dict[str, Any]:
    return read_declared(Reader("p.toml"), raw, T, "given")


def refused(raw: dict[str, Any]) -> str:
    with pytest.raises(ProblemError) as err:
        read(raw)
    return str(err.value)


def test_a_list_with_a_declared_length_binds_it() -> None:
    assert read({"p": [0.5, 0.5], "targets": ["x", "y"]})["targets"] == ("x", "y")
    assert "p.toml: given.targets: has 3 labels, but T = 2 from given.p" in refused(
        {"p": [0.5, 0.5], "targets": ["x", "y", "z"]}
    )


def test_a_key_of_vector_or_matrix_keeps_a_vector_flat_and_binds_its_width() -> None:
    got = read({"A": [[1, 2], [3, 4]], "B": [5, 6]})
    assert got["A"].shape == (2, 2) and got["B"].shape == (2,)  # a flat vector stays flat
    assert "given.B: has length 3, but d = 2 from given.A" in refused({"A": [[1, 2]], "B": [1, 2, 3]})
    assert "given.B: is 1×3, but d = 2 from given.A" in refused({"A": [1, 2], "B": [[1, 2, 3]]})
    assert "given.A: ragged rows" in refused({"A": [[1, 2], [3]]})


def test_a_list_of_choices_names_what_is_wrong() -> None:
    assert read({"measure": ["b", "a"]})["measure"] == ("b", "a")
    assert read({})["measure"] == ("a",)  # the default
    assert "given.measure: the list is empty; choose from: a, b" in refused({"measure": []})
    assert "given.measure: 'a' is listed twice" in refused({"measure": ["a", "a"]})
    assert "given.measure: expected a name or a list of names, got the number 1" in refused({"measure": [1]})


def test_sentences_name_the_entry_that_is_wrong() -> None:
    assert read({"refs": ["the cat", ["a", "b"]]})["refs"] == (("the", "cat"), ("a", "b"))
    assert "given.refs: expected a non-empty list of token lists" in refused({"refs": "the cat"})
    assert "given.refs[2]: expected a list of tokens or a string, got the number 3" in refused({"refs": ["a", 3]})
    assert "given.refs[1]: the sentence is empty" in refused({"refs": [" "]})


SELECT = Select(
    "score",
    "given",
    {"dot": table(), "general": table(Key("W", "matrix", "the score's weights", required=True))},
    always=("q",),
)


def test_a_select_refuses_another_values_keys_and_asks_for_its_own() -> None:
    r = Reader("p.toml")
    check_select(r, {"q": [1], "W": [[1]]}, SELECT, "general", "given")
    with pytest.raises(ProblemError, match=r"given\.W: not used by score 'dot' \(it belongs to score 'general'\)"):
        check_select(r, {"q": [1], "W": [[1]]}, SELECT, "dot", "given")
    with pytest.raises(ProblemError, match=r"given\.W: missing: score 'general' needs it \(the score's weights\)"):
        check_select(r, {"q": [1]}, SELECT, "general", "given")


# ------------------------------------------------------------------ the kinds' messages from their declarations


def refused_problem(raw: dict[str, Any]) -> ProblemError:
    with pytest.raises(ProblemError) as err:
        parse_problem(raw, "p.toml")
    return err.value


@pytest.mark.parametrize(
    ("raw", "key", "words"),
    [
        (
            {"kind": "sequence", "given": {"probabilities": [0.5, 0.5], "targets": ["a"]}},
            "given.targets",
            "has 1 labels, but T = 2 from given.probabilities",
        ),
        (
            {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 1]], "values": [[1, 2]]}},
            "given.values",
            "is 1×2, but n = 2 from given.keys",
        ),
        (
            {
                "kind": "attention",
                "score": "additive",
                "given": {"query": [1], "keys": [[1]], "W_q": [[1]], "W_k": [[1]], "v": [1], "b": [1, 2]},
            },
            "given.b",
            "has length 2, but a = 1 from given.v",
        ),
        (
            {"kind": "attention", "score": "general", "given": {"query": [1], "keys": [[1]]}},
            "given.W",
            "missing: score 'general' needs it",
        ),
        (
            {"kind": "self-attention", "given": {"X": [[1, 0], [0, 1]], "mask": [[1, 0, 0], [1, 1, 0]]}},
            "given.mask",
            "is 2×3, but n = 2 from given.X",
        ),
        (
            {"kind": "positional-encoding", "given": {"positions": 3, "d_model": 4, "X": [[1, 2, 3, 4]] * 2}},
            "given.X",
            "is 2×4, but positions = 3 from given.positions",
        ),
        (
            {"kind": "positional-encoding", "given": {"positions": 2, "d_model": 4, "X": [[1, 2]] * 2}},
            "given.X",
            "is 2×2, but d_model = 4 from given.d_model",
        ),
        (
            {"kind": "positional-encoding", "given": {"positions": 2, "d_model": 4, "q": [[1, 2]] * 2}},
            "given.q",
            "not used by type 'sinusoidal' (it belongs to type 'rope')",
        ),
        (
            {"kind": "positional-encoding", "given": {"positions": [0, 1.5], "d_model": 4}},
            "given.positions",
            "entry 2: expected a position 0, 1, 2, …, got 1.5",
        ),
        (
            {"kind": "lstm", "given": {"x": [[1]], "gates": [{"f": [0.5], "r": [0.5]}]}},
            "given.gates[1].r",
            "unknown key",
        ),
        (
            {"kind": "gru", "given": {"x": [[1]], "h0": [0, 0], "gates": [{"r": [0.5], "z": [0.5], "h_tilde": [0.5]}]}},
            "given.gates[1].r",
            "has length 1, but d_h = 2 from given.h0",
        ),
    ],
)
def test_kind_messages_name_the_key_and_the_dimension(raw: dict[str, Any], key: str, words: str) -> None:
    err = refused_problem(raw)
    assert err.key == key and words in str(err) and "p.toml" in str(err), str(err)


def test_a_seq2seq_encoder_of_empty_gate_tables_is_refused_not_a_traceback() -> None:
    """[[encoder.gates]] tables that state nothing, and no weights: the hidden size is unknown (this was an
    AssertionError in the parser)."""
    gates = {"f": [0.5], "i": [0.5], "c_tilde": [0.5], "o": [0.5]}
    raw = {
        "kind": "seq2seq",
        "encoder": {"cell": "lstm", "x": [[1, 2]], "gates": [{}]},
        "decoder": {"cell": "lstm", "attention": "none", "gates": [gates]},
    }
    err = refused_problem(raw)
    assert err.key == "encoder.h0" and "hidden size is unknown" in str(err)


def test_the_positional_schema_refuses_what_the_parser_refuses() -> None:
    """The type's keys are one Select: the JSON Schema (made from it) and the parser agree on q under
    sinusoidal and X under rope, which the schema used to accept."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[2] / "docs" / "schema" / "positional-encoding.json").read_text())
    good = {"kind": "positional-encoding", "given": {"positions": 2, "d_model": 4}}
    jsonschema.validate(good, schema)
    parse_problem(good, "p.toml")
    for bad in (
        {**good, "given": {**good["given"], "q": [[1, 2, 3, 4]] * 2}},  # type: ignore[dict-item]
        {"kind": "positional-encoding", "type": "rope", "given": {"positions": 2, "d_k": 2, "X": [[1, 2]] * 2}},
    ):
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad)), bad
        refused_problem(bad)


@pytest.mark.parametrize("kind", [k for k, e in kinds.KINDS.items() if "tokens" not in e.declaration.top])
def test_top_level_tokens_are_refused_where_the_declaration_leaves_them_out(kind: str) -> None:
    """The parser and the JSON Schema read one declaration: a kind without `tokens` refuses them (the
    schema's additionalProperties: false), instead of reading and ignoring them."""
    raw = tomllib.loads(kinds.template(kind))
    assert "tokens" not in kind_schema(kinds.entry(kind).declaration)["properties"]
    with pytest.raises(ProblemError, match="tokens"):
        parse_problem({**raw, "tokens": ["a", "b"]}, "p.toml")
