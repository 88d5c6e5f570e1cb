"""seq2seq without attention: the LSTM document's encoder and decoder as one problem, where the
decoder starts (said in every view), stated gates under [[encoder.gates]] / [[decoder.gates]],
GRU options in [encoder] / [decoder], and bad input.

Expected numbers are the document's, recomputed by hand in the answers files' comments: row 2 of
W_f·[h_0; x_1] is 0.08 + 0.08 + 0.06 + 0.18 − 0.8 = −0.40 (written −0.44); 0.62·tanh(0.85) = 0.43
(written 0.55); the unrounded h_3 is [0.44, 0.72, 0.44, 0.74] and c_3 = [0.71, 1.20, 0.76, 1.12].
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.render.writers import render

from ..helpers import PROBLEMS, solve_file, solve_raw
from ..render.test_render import text_of


def verdicts(cli: Any, name: str) -> dict[str, str]:
    result = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / name), "--format", "json")
    return {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}


def test_one_problem_finds_the_same_slips_as_the_two_files(cli: Any) -> None:
    both = verdicts(cli, "lstm-doc-seq2seq.toml")
    enc = {"encoder." + k: v for k, v in verdicts(cli, "lstm-doc-encoder.toml").items()}
    dec = {"decoder." + k: v for k, v in verdicts(cli, "lstm-doc-decoder.toml").items()}
    assert both == enc | dec
    assert both["encoder.1.f_pre"] == "wrong" and both["encoder.1.f"] == "carried"
    assert both["decoder.2.h"] == "wrong" and both["decoder.3.h"] == "wrong"
    wrong = {k for k, v in both.items() if v == "wrong"}
    assert wrong == {"encoder.1.f_pre", "decoder.2.h", "decoder.3.h"}  # the document's rounding is accepted
    report = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "lstm-doc-seq2seq.toml"))
    assert report.exit_code == 1


def test_the_decoder_starts_from_the_encoders_final_state() -> None:
    d = solve_file("lstm-doc-seq2seq.toml")
    assert np.allclose(np.asarray(d.step("encoder.1.f_pre").value), [0.22, -0.40, 0.87, -0.04])
    sig = [1 / (1 + math.exp(-v)) for v in (0.22, -0.40, 0.87, -0.04)]
    assert np.allclose(np.asarray(d.step("encoder.1.f").value), sig)
    h3 = np.asarray(d.step("encoder.3.h").value, dtype=float)
    c3 = np.asarray(d.step("encoder.3.c").value, dtype=float)
    # decoder step 1 by hand from (h_3, c_3): c_1 = f ⊙ c_3 + i ⊙ c~, h_1 = o ⊙ tanh(c_1)
    f, i, g, o = [0.68, 0.72, 0.65, 0.81], [0.75, 0.69, 0.78, 0.83], [0.4, 0.5, 0.3, 0.6], [0.73, 0.81, 0.69, 0.88]
    c1 = np.multiply(f, c3) + np.multiply(i, g)
    assert np.allclose(np.asarray(d.step("decoder.1.c").value, dtype=float), c1)
    assert np.allclose(np.asarray(d.step("decoder.1.h").value, dtype=float), np.multiply(o, np.tanh(c1)))
    assert np.allclose(np.round(h3, 2), [0.44, 0.72, 0.44, 0.74])
    first = d.step("decoder.1.f")
    assert "The decoder starts from the encoder's final state" in first.intro
    assert "s_0 = h_3 = [0.44, 0.72, 0.44, 0.74], c_0 = c_3 = [0.71, 1.20, 0.76, 1.12]" in first.intro
    ids = [s.id for s in d.steps]
    assert ids[-1] == "decoder.3.h" and not any("logits" in i for i in ids)  # no output layer given


def test_carried_start_is_the_documents_h3() -> None:
    """With every step rounded and carried, the decoder starts from the document's h_3 = [0.45, 0.71, ...]."""
    d = solve_file("lstm-doc-seq2seq.toml", carry_rounded=True)
    assert "s_0 = h_3 = [0.45, 0.71, 0.44, 0.74]" in d.step("decoder.1.f").intro


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_every_view_says_where_the_decoder_starts(fmt: str) -> None:
    d = solve_file("lstm-doc-seq2seq.toml")
    out = render([d], fmt)
    assert "The decoder starts from the encoder" in out
    assert "0.71, 1.20, 0.76, 1.12" in out


def test_text_view_says_where_the_decoder_starts_at_80_columns() -> None:
    text = text_of(solve_file("lstm-doc-seq2seq.toml"), width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    flat = " ".join(text.split())
    assert "The decoder starts from the encoder's final state: s_0 = h_3 = [0.44, 0.72, 0.44, 0.74]" in flat
    assert "no attention" in flat
    assert "1   (gates given)" in text  # the decoder reads no inputs here: its gates are stated


def _small(**decoder: Any) -> dict[str, Any]:
    encoder = {"cell": "lstm", "x": [[1, 0], [0, 1]], "W_f": [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]}
    encoder |= {"W_i": [[0.5, 0, 1, 0], [0, 0.5, 0, 1]], "W_c": [[1, 0, 0, 1], [0, 1, 1, 0]]}
    encoder["W_o"] = [[0, 0, 1, 1], [1, 1, 0, 0]]
    dec: dict[str, Any] = {"cell": "lstm", "attention": "none", "inputs": [[1, 0], [0, 1]]}
    dec |= {k: encoder[k] for k in ("W_f", "W_i", "W_c", "W_o")}
    dec |= {"W_out": [[1, 0], [0, 1], [1, 1]], "vocab": ["a", "b", "<eos>"], "targets": ["a", "<eos>"]}
    return {"kind": "seq2seq", "encoder": encoder, "decoder": dec | decoder}


def test_given_h0_c0_override_the_start_and_the_note_says_so() -> None:
    d = solve_raw(_small(h0=[0.5, -0.5], c0=[1, 0]))
    note = d.step("decoder.1.hx").intro
    assert "from the given initial state" in note and "s_0 = [0.5, -0.5] (given: decoder.h0)" in note
    # step 1 by hand: [h; x] = [0.5, -0.5, 1, 0]
    hx = np.array([0.5, -0.5, 1, 0])
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    f = sig(np.array([[0.5, 0, 1, 0], [0, 0.5, 0, 1]]) @ hx)
    i = f  # W_i = W_f
    g = np.tanh(np.array([[1, 0, 0, 1], [0, 1, 1, 0]]) @ hx)
    o = sig(np.array([[0, 0, 1, 1], [1, 1, 0, 0]]) @ hx)
    c = f * np.array([1, 0]) + i * g
    assert np.allclose(np.asarray(d.step("decoder.1.h").value, dtype=float), o * np.tanh(c))
    assert d.step("decoder.1.prediction").value in ("a", "b", "<eos>")


def _gru_cell(x: np.ndarray, h: np.ndarray, W: dict[str, np.ndarray], update: str) -> np.ndarray:
    """Cho et al.'s GRU, reset before the product: h~ = tanh(W_h [r ⊙ h; x])."""
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    hx = np.concatenate([h, x])
    r, z = sig(W["W_r"] @ hx), sig(W["W_z"] @ hx)
    n = np.tanh(W["W_h"] @ np.concatenate([r * h, x]))
    return (1 - z) * n + z * h if update == "keep" else z * n + (1 - z) * h


@pytest.mark.parametrize("update", ["keep", "replace"])
def test_gru_reset_and_update_go_in_the_encoder_and_decoder_tables(update: str) -> None:
    """encoder.reset / encoder.update and decoder.reset / decoder.update, against the papers' formulas."""
    rng = np.random.default_rng(7)
    We = {k: rng.uniform(-1, 1, size=(2, 4)) for k in ("W_r", "W_z", "W_h")}
    Wd = {k: rng.uniform(-1, 1, size=(2, 5)) for k in ("W_r", "W_z", "W_h")}
    X, Y = rng.uniform(-1, 1, size=(3, 2)), rng.uniform(-1, 1, size=(2, 3))
    opts = {"cell": "gru", "reset": "before", "update": update}
    encoder = opts | {k: v.tolist() for k, v in We.items()} | {"x": X.tolist()}
    decoder = opts | {k: v.tolist() for k, v in Wd.items()} | {"attention": "none", "inputs": Y.tolist()}
    d = solve_raw({"kind": "seq2seq", "encoder": encoder, "decoder": decoder}, exact=False)
    h = np.zeros(2)
    for t in range(3):
        h = _gru_cell(X[t], h, We, update)
    assert np.allclose(np.asarray(d.step("encoder.3.h").value), h, atol=1e-12)
    for t in range(2):
        h = _gru_cell(Y[t], h, Wd, update)
    assert np.allclose(np.asarray(d.step("decoder.2.h").value), h, atol=1e-12)


@pytest.mark.parametrize(
    ("decoder", "key"),
    [
        ({"W_a": [[1, 0], [0, 1]]}, "decoder.W_a"),
        ({"score": "dot"}, "decoder.score"),
        ({"W_att": [[1, 0, 0, 1]]}, "decoder.W_att"),
        ({"input_feeding": True}, "decoder.input_feeding"),
        ({"v": [1, 1]}, "decoder.v"),
        ({"h0": [1, 2, 3]}, "decoder.h0"),
        ({"c0": [1]}, "decoder.c0"),
        ({"gates": [{"f": [0.5, 0.5, 0.5]}]}, "decoder.gates[1].f"),
        ({"gates": [{}, {}, {}]}, "decoder.gates"),
        ({"inputs": None}, "decoder.inputs"),
    ],
)
def test_bad_seq2seq_without_attention_names_the_key(decoder: dict[str, Any], key: str) -> None:
    raw = _small(**decoder)
    raw["decoder"] = {k: v for k, v in raw["decoder"].items() if v is not None}
    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == key, str(err.value)


def test_bad_encoder_inputs_name_the_key() -> None:
    raw = _small()
    raw["encoder"] |= {"bidirectional": True, "gates": [{"i": [0.5, 0.5]}]}
    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == "encoder.gates"
    raw = _small()
    raw["encoder"] = {"cell": "gru", "x": [[1, 0]], "W_r": [[1, 0, 1]], "W_z": [[1, 0, 1]], "W_h": [[1, 0, 1]]}
    raw["encoder"]["c0"] = [0]
    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == "encoder.c0"
    raw = _small()
    del raw["encoder"]["W_o"]
    with pytest.raises(ProblemError) as err:
        solve_raw(raw)
    assert err.value.key == "encoder.W_o" and "[[encoder.gates]]" in str(err.value)


def test_stated_encoder_gates_replace_the_missing_weights() -> None:
    raw = _small()
    del raw["encoder"]["W_o"]
    raw["encoder"]["gates"] = [{"o": [0.5, 0.25]}, {"o": [1, 0]}]
    d = solve_raw(raw)
    c2 = np.asarray(d.step("encoder.2.c").value, dtype=float)
    assert np.allclose(np.asarray(d.step("encoder.2.h").value, dtype=float), [np.tanh(c2[0]), 0])


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("W_a = [[1, 0], [0, 1]]", ["decoder.W_a", 'attention is "none"']),
        ("h0 = [1, 2, 3]", ["decoder.h0", "is 3", "must be 4"]),
    ],
)
def test_cli_exit_2_one_line(cli: Any, tmp_path: Path, extra: str, words: list[str]) -> None:
    text = (PROBLEMS / "lstm-doc-seq2seq.toml").read_text()
    text = text.replace('attention = "none"', 'attention = "none"\n' + extra, 1)
    f = tmp_path / "bad.toml"
    f.write_text(text)
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and str(f) in result.stderr
    for w in words:
        assert w in result.stderr, result.stderr
    assert "Traceback" not in result.output


def test_decoder_input_ids_are_where_the_docs_say() -> None:
    """docs/interface.md: `decoder.t.input` is Bahdanau's [y_{t−1}; c_t] (and Luong's with input
    feeding); without attention, and in Luong without input feeding, y_{t−1} enters through the
    cell's concatenation `decoder.t.hx` = [s_{t−1}; y_{t−1}]."""
    import tomllib

    assert "decoder.1.input" in solve_file("seq2seq-bahdanau.toml").step_ids
    luong = solve_file("seq2seq-luong.toml")
    assert "decoder.1.input" not in luong.step_ids and "decoder.1.hx" in luong.step_ids
    raw = tomllib.loads((PROBLEMS / "seq2seq-luong.toml").read_text())
    raw["decoder"]["attention"] = "none"
    for key in ("score", "W_att"):
        del raw["decoder"][key]
    d = solve_raw(raw)
    assert "decoder.1.input" not in d.step_ids and "decoder.1.scores" not in d.step_ids
    # s_0 is the encoder's final state h_2; y_0 = <s> = [0, 0]; y_1 = [1, 0]
    h2 = np.asarray(d.step("encoder.2.h").value, dtype=float)
    np.testing.assert_allclose(np.asarray(d.step("decoder.1.hx").value, dtype=float), [*h2, 0, 0])
    s1 = np.asarray(d.step("decoder.1.h").value, dtype=float)
    np.testing.assert_allclose(np.asarray(d.step("decoder.2.hx").value, dtype=float), [*s1, 1, 0])


def test_the_start_is_said_before_the_decoders_first_step_not_inside_it() -> None:
    """Under the 'Decoder' heading, on its own, before 'Step 30'; the JSON carries it as intro."""
    d = solve_file("lstm-doc-seq2seq.toml")
    lines = text_of(d, width=80, detail="full").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("The decoder starts from"))
    assert lines[at - 1] == "Decoder"
    assert next(line for line in lines[at:] if line.startswith("Step ")).startswith("Step 30 · ")
    assert not d.step("decoder.1.f").note
    from attncalc.render.json import to_dict

    step = next(s for s in to_dict(d)["steps"] if s["id"] == "decoder.1.f")
    assert step["intro"].startswith("The decoder starts from the encoder's final state") and "note" not in step
