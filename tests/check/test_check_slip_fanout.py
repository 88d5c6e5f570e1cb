"""A slip tried with many arguments is priced: ``wrong_vocab_row`` is tried with every vocabulary row of
an output layer with targets, a whole run of the problem (in floats and in the hand chain) per row.
Tryout 33: a 256-step GRU with a 64-word output layer and its one scalar `loss` answered wrong took
17 to 24 s of CPU, an LSTM with four wrong scalars over 73 s and 1 GB, within the ceiling as it
counted. The 63 other rows are now counted (a quarter of the problem's size each), so such a file is
refused up front in a line that says so; the same problem over 4 words is graded."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.check.budget import slip_fanout
from attncalc.errors import ProblemError
from attncalc.parse import parse_problem


def _raw(steps: int, vocab: int) -> dict[str, Any]:
    r = random.Random(11)

    def m(rows: int, cols: int) -> list[list[float]]:
        return [[round(r.uniform(-0.5, 0.5), 2) for _ in range(cols)] for _ in range(rows)]

    words = [f"w{i}" for i in range(vocab)]
    given = {
        "x": m(steps, 16),
        "W": m(16, 32),
        "b": [0.1] * 16,
        "W_out": m(vocab, 16),
        "b_out": [0.0] * vocab,
        "vocab": words,
        "targets": [r.choice(words) for _ in range(steps)],
    }
    return {"kind": "rnn", "given": given}


def _rnn(steps: int, vocab: int) -> Any:
    return parse_problem(_raw(steps, vocab), "rnn.json")


def test_every_vocabulary_row_is_a_run_counted() -> None:
    assert slip_fanout(_rnn(4, 64)) == 63 and slip_fanout(_rnn(4, 4)) == 3


def test_a_long_sequence_over_many_words_with_one_wrong_loss_is_refused_up_front() -> None:
    with pytest.raises(ProblemError) as e:
        check(_rnn(256, 64), {"loss": 1}, "a.json")
    message = str(e.value)
    assert "1 answered step differs" in message and "63 more runs of a slip" in message, message
    assert "check does at most 40,000" in message


def test_the_same_sequence_over_four_words_is_graded() -> None:
    results = check(_rnn(256, 4), {"loss": 0.5}, "a.json").results  # (the mean loss is about ln 4 = 1.39)
    assert [(r.id, r.verdict) for r in results] == [("loss", "wrong")]


def test_the_refusal_on_the_command_line(tmp_path: Path, cli: Any) -> None:
    import json

    (tmp_path / "p.json").write_text(json.dumps(_raw(256, 64)))
    (tmp_path / "a.json").write_text('{"loss": 1}')
    result = cli("check", str(tmp_path / "p.json"), str(tmp_path / "a.json"))
    assert result.exit_code == 2 and "Traceback" not in result.output and "63 more runs" in result.output
