"""Kinds decode and softmax: each carries one typed payload in ``Problem.data``
(the strategy's own parameters in a sub-dataclass, the target with its smoothing and training step),
``Problem`` keeps no field of theirs, and the messages that now come from the declarations name the key."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from attncalc.errors import ProblemError
from attncalc.numbers import to_float
from attncalc.parse import Given, Problem, load_problem, parse_problem
from attncalc.parse.decode import Beam, Decode, Draw, TopK, TopP
from attncalc.parse.softmax import OutputLogits, Softmax

from ..helpers import PROBLEMS


def test_problem_has_no_field_of_decode_or_softmax() -> None:
    fields = {f.name for f in dataclasses.fields(Problem)}
    assert not fields & {"decode", "target", "vocab", "training", "head"}


def test_each_strategy_carries_its_own_parameters() -> None:
    beam = load_problem(PROBLEMS / "decode-beam.toml").payload(Decode)
    assert isinstance(beam.choice, Beam) and beam.choice.penalty is not None
    assert (beam.choice.width, beam.choice.penalty.length) == (2, 3)  # the file's beam_width and length
    both = load_problem(PROBLEMS / "decode-top-k-top-p.toml").payload(Decode).choice
    assert isinstance(both, Draw) and isinstance(both.filter, TopP) and both.filter.k == 3
    assert to_float(both.filter.p) == 0.9
    top_k = load_problem(PROBLEMS / "decode-top-k.toml").payload(Decode).choice
    assert isinstance(top_k, Draw) and top_k.filter == TopK(2) and top_k.logits  # the file's k
    given = {"probabilities": [0.25, 0.75]}
    greedy = parse_problem({"kind": "decode", "given": given}, "p.toml").payload(Decode)
    assert isinstance(greedy.choice, Draw) and greedy.choice.filter is None and not greedy.choice.logits
    assert greedy.vocab == ("w1", "w2") and greedy.numbers() == []


def test_softmax_carries_the_layer_the_target_and_its_training() -> None:
    d = load_problem(PROBLEMS / "adamw-clipping.toml").payload(Softmax)
    assert isinstance(d.logits, OutputLogits) and d.layer is d.logits and d.hidden is d.logits.hidden
    assert d.target is not None and d.target.training is not None and d.target.training.optimizer == "adamw"
    d = load_problem(PROBLEMS / "label-smoothing.toml").payload(Softmax)
    assert d.target is not None and d.target.label_smoothing is not None
    raw = {"kind": "softmax", "given": {"logits": [1, 2], "vocab": ["a", "b"], "target": "b"}}
    d = parse_problem(raw, "p.toml").payload(Softmax)
    assert isinstance(d.logits, Given) and d.layer is None and d.hidden is None
    assert d.target is not None and (d.target.index, d.target.label_smoothing, d.target.training) == (1, None, None)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"kind": "softmax", "given": {"W_out": [[1, 2]], "hidden": [1, 2], "b_out": [1, 2]}},
            "p.toml: given.b_out: has length 2, but V = 1 from given.W_out",
        ),
        (
            {"kind": "decode", "strategy": "top-k", "given": {"logits": [1, 2], "k": 0}},
            "p.toml: given.k: is 0: expected a whole number of at least 1",
        ),
        (
            {"kind": "decode", "strategy": "top-k", "given": {"logits": [1, 2], "k": 1.5}},
            "p.toml: given.k: expected a whole number, got the number 1.5",
        ),
        (
            {"kind": "decode", "strategy": "top-k", "given": {"logits": [1, 2], "k": None}},
            "p.toml: given.k: missing: strategy 'top-k' needs it",
        ),
        (
            {"kind": "softmax", "given": {"logits": [1, 2], "target": 1.5}},
            "p.toml: given.target: expected a label or a 0-based index, got the number 1.5",
        ),
    ],
)
def test_the_declaration_messages_name_the_key(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "p.toml")
    assert str(e.value) == message
