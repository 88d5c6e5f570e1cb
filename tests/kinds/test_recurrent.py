"""The recurrent kinds against the LSTM reference document, bad input, and gate ranges.

Expected verdicts come from recomputing the document by hand (see the answer files' comments):
row 2 of W_f·[h_0; x_1] is 0.08 + 0.08 + 0.06 + 0.18 = 0.40, not 0.36; 0.62·tanh(0.85) = 0.43;
1.2·0.47 + 0.8·0.68 + 1.5·0.43 + 0.9·0.78 + 0.3 = 2.755.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..helpers import PROBLEMS, solve_file, solve_raw


def verdicts(cli: Any, name: str) -> dict[str, str]:
    result = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / name), "--format", "json")
    return {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}


def test_check_flags_the_lstm_documents_slips_and_accepts_its_rounding(cli: Any) -> None:
    enc = verdicts(cli, "lstm-doc-encoder.toml")
    assert enc["1.f_pre"] == "wrong" and enc["1.f"] == "carried"
    assert all(v == "correct" for k, v in enc.items() if k not in ("1.f_pre", "1.f"))
    dec = verdicts(cli, "lstm-doc-decoder.toml")
    assert dec["2.h"] == "wrong" and dec["3.h"] == "wrong"
    assert dec["1.c"] == "correct" and dec["1.h"] == "correct"  # rounded parts added, as by hand
    out = verdicts(cli, "lstm-doc-output.toml")
    assert out == {"1.h": "correct", "1.logits": "wrong"}
    assert set(verdicts(cli, "lstm-doc-loss.toml").values()) == {"correct"}


def test_lstm_document_forget_gate_is_recomputed_by_hand() -> None:
    d = solve_file("lstm-doc-encoder.toml")
    pre = np.asarray(d.step("1.f_pre").value)
    assert np.allclose(pre, [0.22, -0.40, 0.87, -0.04])
    sig = [1 / (1 + math.exp(-v)) for v in (0.22, -0.40, 0.87, -0.04)]
    assert np.allclose(np.asarray(d.step("1.f").value), sig)
    assert d.step("1.f").exact is not None  # exact forms: 1/(1 + exp(2/5)), ...


def test_answers_may_nest_step_ids_as_toml_tables(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('problem = "lstm-doc-encoder.toml"\n[1]\nf_pre = [0.22, -0.4, 0.87, -0.04]\n')
    result = cli("check", "--problems", str(PROBLEMS), str(tmp_path / "a.toml"))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"kind": "lstm", "given": {"x": [1, 2], "h0": [0], "W_f": [[1, 2]]}}, "given.W_f"),
        (
            {
                "kind": "gru",
                "given": {"x": [1], "weight_ih": [[1], [2]], "weight_hh": [[1]]},
                "cell": {"layout": "pytorch"},
            },
            "given.weight_ih",
        ),
        (
            {"kind": "lstm", "given": {"x": [1], "kernel": [[1, 2, 3, 4]], "recurrent_kernel": [[1, 2, 3, 4]]}},
            "given.kernel",
        ),
        ({"kind": "lstm", "given": {"x": [1, 0], "W_f": [[1, 0, 0]]}}, "given.W_i"),
        ({"kind": "rnn", "given": {"x": [1], "W": [[1, 1]]}, "cell": {"reset": "after"}}, "cell.reset"),
        ({"kind": "rnn", "given": {"x": [1], "W": [[1, 1]], "targets": ["a"]}}, "given.targets"),
        ({"kind": "seq2seq", "encoder": {"x": [[1]]}}, "decoder"),
        ({"kind": "rnn", "given": {"x": [1], "W": [[1, 1]]}, "training": {"lr": 0.1}}, "training"),
    ],
)
def test_bad_recurrent_input_names_the_key(raw: dict[str, Any], key: str) -> None:
    from attncalc.errors import ProblemError

    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == key, str(err.value)


@pytest.mark.parametrize("seed", range(5))
def test_gates_stay_in_range(seed: int) -> None:
    """σ gates lie in (0, 1) and tanh values in (-1, 1), whatever the weights."""
    rng = np.random.default_rng(seed)
    d_h, d_x = 3, 2
    given = {f"W_{g}": rng.uniform(-4, 4, size=(d_h, d_h + d_x)).tolist() for g in "fico"}
    given["x"] = rng.uniform(-3, 3, size=(4, d_x)).tolist()
    d = solve_raw({"kind": "lstm", "given": given}, exact=False)
    for s in d.steps:
        v = np.asarray(s.value, dtype=float)
        name = s.id.split(".")[-1]
        if name in ("f", "i", "o"):
            assert np.all((v > 0) & (v < 1)), s.id
        if name in ("c_tilde", "tanh_c", "h"):
            assert np.all(np.abs(v) < 1), s.id


def test_check_flags_the_retention_slip_and_accepts_the_carried_rounding(cli: Any) -> None:
    """c_t = 0.8^t (f = σ(ln 4) = 4/5, nothing new written): 0.8^10 = 0.1074, 0.8^20 = 0.01153,
    0.8^50 = 1.427e-5; the document writes 0.107, 0.011 and 0.000001."""
    d = solve_file("lstm-doc-retention.toml")
    for t in (10, 20, 50):
        assert math.isclose(float(np.asarray(d.step(f"{t}.c").value)[0]), 0.8**t, rel_tol=1e-12)
    assert d.step("50.c").exact is not None  # exactly 4^50/5^50
    result = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "lstm-doc-retention.toml"), "--format", "json"
    )
    got = {r["id"]: r for r in json.loads(result.stdout)["results"]}
    assert got["10.c"]["verdict"] == "correct"
    assert got["20.c"]["verdict"] == "correct" and "hand chain" in got["20.c"]["note"]
    assert got["50.c"]["verdict"] == "wrong" and got["50.c"]["expected"] == [0.000014]
