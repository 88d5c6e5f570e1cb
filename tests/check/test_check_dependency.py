"""A step's verdict rests only on the answers its value depends on, a slip
carried on is ``carried`` (its note said once, where it happened), and the notes say what a student
can reproduce. Every expected number comes from numpy formulas written here from the papers
(Vaswani et al. 2017 for multi-head attention and the Transformer layer, Holtzman et al. 2020 for
top-p), never from attncalc's own output."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from attncalc.check import check
from attncalc.derivation.arith import round_half_up
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS


def by_id(report: Any) -> dict[str, Any]:
    return {r.id: r for r in report.results}


def r3(x: Any, k: int = 3) -> Any:
    """Rounded half up to k decimals (as by hand), as nested lists."""
    return np.vectorize(lambda v: round_half_up(float(v), k))(np.asarray(x, dtype=float)).tolist()


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mh_given(name: str = "mh-self-attention.toml") -> dict[str, Any]:
    return tomllib.loads(Path(PROBLEMS, name).read_text())


def mh_heads(g: dict[str, Any]) -> list[dict[str, np.ndarray]]:
    """Each head's Q_j, K_j, V_j and scaled scores Q_j K_jᵀ / √d_k, row convention."""
    X, WQ, WK, WV = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K", "W_V"))
    h = g["heads"]
    d = WQ.shape[1] // h
    Q, K, V = X @ WQ, X @ WK, X @ WV
    out = []
    for j in range(h):
        cols = slice(j * d, (j + 1) * d)
        out.append(
            {"Q": Q[:, cols], "K": K[:, cols], "V": V[:, cols], "scaled": Q[:, cols] @ K[:, cols].T / math.sqrt(d)}
        )
    return out


# ---------------------------------------------------------------------------------------- part 1


def test_a_wrong_head_1_answer_never_makes_head_2_carried() -> None:
    """Head 2's weights worked from the student's own rounded head-2 exponentials (one decimal) are
    'correct' alone (consistent with their own rounded answers); a wrong head-1 answer in the same
    file must not make them 'carried': head 2 never uses head 1."""
    raw = mh_given()
    head2 = mh_heads(raw["given"])[1]
    e = np.exp(head2["scaled"])
    e1 = np.asarray(r3(e, 1))  # the exponentials written to one decimal
    z1 = np.asarray(r3(e1.sum(axis=1), 1))
    w = e1 / z1[:, None]  # the weights worked from those rounded numbers
    assert not np.allclose(r3(w), r3(softmax(head2["scaled"]))), "the rounded work must differ from the truth"
    own = {"head.2.exponentials": e1.tolist(), "head.2.exp_sum": z1.tolist(), "head.2.weights": r3(w)}
    problem = load_problem(Path(PROBLEMS, "mh-self-attention.toml"))
    alone = by_id(check(problem, own, "a.toml"))
    assert alone["head.2.weights"].verdict == "correct"
    head1 = np.exp(mh_heads(raw["given"])[0]["scaled"]).sum(axis=1)
    wrong = {"head.1.exp_sum": [float(round(head1[0] - 800.0, 3)), *r3(head1[1:])], **own}
    both = by_id(check(problem, wrong, "a.toml"))
    assert both["head.1.exp_sum"].verdict == "wrong"
    assert both["head.2.weights"].verdict == "correct", both["head.2.weights"].note
    assert "head.1" not in both["head.2.weights"].note


def test_a_carried_step_names_an_answer_it_depends_on() -> None:
    """Head 2's wrong scores carried into its scaled scores, with head 1's exp_sum wrong too: the error
    began at head.2.scores, an ancestor, never at head.1.exp_sum."""
    raw = mh_given()
    heads = mh_heads(raw["given"])
    s2 = heads[1]["Q"] @ heads[1]["K"].T
    s2[0, 1] += 3
    head1 = np.exp(heads[0]["scaled"]).sum(axis=1)
    answers = {
        "head.1.exp_sum": [float(round(head1[0] + 500.0, 3)), *r3(head1[1:])],
        "head.2.scores": s2.tolist(),
        "head.2.scaled_scores": r3(s2 / math.sqrt(2)),
    }
    r = by_id(check(load_problem(Path(PROBLEMS, "mh-self-attention.toml")), answers, "a.toml"))
    assert r["head.2.scaled_scores"].verdict == "carried"
    assert r["head.2.scaled_scores"].began_at == "head.2.scores"


def _layer() -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """problems/layer-encoder.toml and its self-attention sublayer's output, from the paper's formulas."""
    raw = tomllib.loads(Path(PROBLEMS, "layer-encoder.toml").read_text())
    g, sa = raw["given"], raw["self_attention"]
    X = np.array(g["X"], dtype=float)
    heads = mh_heads({"X": g["X"], "heads": g["heads"], **{k: sa[k] for k in ("W_Q", "W_K", "W_V")}})
    concat = np.hstack([softmax(h["scaled"]) @ h["V"] for h in heads])
    out = concat @ np.array(sa["W_O"], dtype=float) + np.array(sa["b_O"], dtype=float)
    return raw, {"X": X, "self.output": out}


def test_residual_left_out_then_the_variance_at_calculator_precision_is_carried() -> None:
    """residual1 = the sublayer's output alone (the residual left out), written to 3 decimals; the
    variance worked from it at calculator precision (6 decimals): named once at residual1, carried at
    the variance."""
    _raw, v = _layer()
    r1 = v["self.output"]  # x left out
    var = ((r1 - r1.mean(axis=1, keepdims=True)) ** 2).mean(axis=1)
    answers = {"residual1": r3(r1), "norm1.variance": r3(var, 6)}
    r = by_id(check(load_problem(Path(PROBLEMS, "layer-encoder.toml")), answers, "a.toml"))
    assert r["residual1"].verdict == "wrong" and r["residual1"].mistake == "residual_left_out"
    assert r["norm1.variance"].verdict == "carried", r["norm1.variance"].note
    assert r["norm1.variance"].began_at == "residual1"
    assert r["norm1.variance"].mistake is None and "residual was left out" not in r["norm1.variance"].note


def _top_p() -> tuple[np.ndarray, list[int]]:
    g = tomllib.loads(Path(PROBLEMS, "decode-top-p.toml").read_text())["given"]
    p = softmax(np.array(g["logits"], dtype=float))
    order = list(np.argsort(-p, kind="stable"))
    return p, order


def test_top_p_cut_early_then_a_last_digit_slip_in_renormalized() -> None:
    """The cut one token early (kept = the two most probable, whose sum 0.871 is still below p = 0.9),
    then renormalised from that with the last digit of one entry wrong: the top-p note is said at
    'kept' only; 'renormalized' gets the arithmetic note."""
    p, order = _top_p()
    kept = np.zeros(p.size)
    kept[order[:2]] = 1
    ren = kept * p / (kept * p).sum()
    written = r3(ren)
    written[order[1]] = float(round(written[order[1]] - 0.001, 3))  # the last digit of one entry
    r = by_id(
        check(
            load_problem(Path(PROBLEMS, "decode-top-p.toml")),
            {"kept": kept.astype(int).tolist(), "renormalized": written},
            "a",
        )
    )
    assert r["kept"].mistake == "top_p_early"
    assert r["renormalized"].verdict == "wrong"
    assert r["renormalized"].mistake is None and "top-p" not in r["renormalized"].note
    assert f"not {written[order[1]]:.3f}" in r["renormalized"].note


def test_top_p_cut_early_then_renormalized_right_from_it_is_carried() -> None:
    p, order = _top_p()
    kept = np.zeros(p.size)
    kept[order[:2]] = 1
    ren = kept * p / (kept * p).sum()
    r = by_id(
        check(
            load_problem(Path(PROBLEMS, "decode-top-p.toml")),
            {"kept": kept.astype(int).tolist(), "renormalized": r3(ren)},
            "a",
        )
    )
    assert r["renormalized"].verdict == "carried" and r["renormalized"].began_at == "kept"
    assert "top-p" not in r["renormalized"].note


# ---------------------------------------------------------------------------------------- part 3


def test_a_hand_chain_verdict_says_which_chain_and_how_to_show_it() -> None:
    """The weights of a self-attention worked by hand with the row maximum subtracted first, every
    step rounded to 3 decimals: the note says 'with the row maximum subtracted' and names the
    ``solve --carry`` (with settings.shift_max = "always") that shows that chain."""
    raw = {
        "kind": "self-attention",
        "given": {
            "X": [[1, 1], [2, -2], [-2, 2]],
            "W_Q": [[-1, 1], [-1, 0]],
            "W_K": [[0, 0], [0, -1]],
            "W_V": [[1, 0], [0, 1]],
        },
        "settings": {"decimals": 3, "shift_max": "never"},
        "score": "scaled-dot",
    }
    X, WQ, WK = (np.array(raw["given"][k], dtype=float) for k in ("X", "W_Q", "W_K"))
    S = np.asarray(r3((X @ WQ) @ (X @ WK).T / np.asarray(r3(math.sqrt(2)))))
    # by hand: subtract the row maximum, exponentiate, add up, divide, each rounded to 3 decimals
    e = np.asarray(r3(np.exp(np.asarray(r3(S - S.max(axis=1, keepdims=True))))))
    z = np.asarray(r3(e.sum(axis=1)))
    w = r3(e / z[:, None])
    true = softmax((X @ WQ) @ (X @ WK).T / math.sqrt(2))
    assert w != r3(true), "the hand chain must differ from the true values somewhere"
    r = by_id(check(parse_problem(raw, "p.toml"), {"weights": w}, "a"))["weights"]
    assert r.verdict == "correct"
    assert "maximum subtracted before exponentiating" in r.note
    assert 'shift_max = "always"' in r.note and "attncalc solve --carry --decimals 3" in r.note
    # and that solve --carry --decimals 3 with that setting shows the student's numbers
    from attncalc.mechanisms import solve

    shown = {**raw, "settings": {**raw["settings"], "shift_max": "always"}}
    d = solve(parse_problem(shown, "p.toml"), decimals=3, carry_rounded=True)
    assert np.asarray(d.step("weights").shown).tolist() == w


def test_not_x_is_the_value_at_the_answers_precision() -> None:
    """A problem shown to 4 decimals, an answer written to 3: the note's "= v, not x" gives v to 3
    decimals, as the answer was written (the issue's −0.88245 is −0.882, never −0.8825)."""
    raw = {
        "kind": "attention",
        "score": "dot",
        "given": {"query": [1, -0.5], "keys": [[0.3, 2.0], [-0.1, 0.8]]},
        "settings": {"decimals": 4},
    }
    scores = np.array([0.3 - 1.0, -0.1 - 0.4])  # s · h_i by hand: [-0.7, -0.5]
    w = softmax(scores)
    wrong = [float(round(w[0] + 0.01, 3)), float(round(w[1] - 0.01, 3))]
    r = by_id(check(parse_problem(raw, "p.toml"), {"weights": wrong}, "a"))["weights"]
    assert r.verdict == "wrong"
    shown = re.findall(r"= (-?[0-9.]+), not", r.note)
    assert round_half_up(w[0], 4) != round_half_up(w[0], 3)  # 0.4502 to 4 decimals, 0.450 to 3
    assert shown and float(shown[0]) == round_half_up(w[0], 3), r.note


def test_the_decode_formula_says_z_over_t() -> None:
    from attncalc.mechanisms import solve

    raw = {
        "kind": "decode",
        "strategy": "greedy",
        "given": {"logits": [3, 2, 1], "vocab": ["a", "b", "c"]},
        "settings": {"temperature": 2},
    }
    d = solve(parse_problem(raw, "p.toml"))
    probs = d.step("probabilities")
    assert "z_i / T" in probs.formula and "z_j / T" in probs.formula
    assert np.allclose(d["probabilities"], softmax(np.array([3, 2, 1]) / 2))


def test_a_negative_mean_is_subtracted_in_parentheses() -> None:
    """A LayerNorm row whose mean is negative: (x − (−μ))², not (x − −μ)²."""
    from attncalc.mechanisms import solve
    from attncalc.render import expand

    d = solve(load_problem(Path(PROBLEMS, "layer-encoder.toml")))
    text = d.to_text()
    assert "− -" not in text and "− −" not in text
    # the variance line of a row with a negative mean, made here: a layer on negated inputs
    raw = tomllib.loads(Path(PROBLEMS, "layer-encoder.toml").read_text())
    raw["given"]["X"] = [[-v for v in row] for row in raw["given"]["X"]]
    d = solve(parse_problem(raw, "neg.toml"), exact=False)
    means = np.asarray(d["norm1.mean"])
    assert (means < 0).any()
    i = int(np.argmax(means < 0))
    line = expand.rhs(d.step("norm1.variance"), (i,), 3)
    assert line is not None and "− (-" in line and "− -" not in line


def test_what_depends_on_a_step_is_as_fine_as_the_computation() -> None:
    """The steps a wrong answer can reach, read from the mechanisms' structure (the papers' formulas):
    per head in multi-head, per sublayer in a Transformer layer, per time step in a recurrent cell,
    per direction in a bidirectional encoder."""
    from attncalc.check.runs import Runs

    def reach(name: str, step: str) -> frozenset[str]:
        return Runs(load_problem(Path(PROBLEMS, name)), []).descendants(step)

    # Z_1 feeds A_1 = exp(S'_1)/Z_1, then O_1 = A_1 V_1, the concatenation and W_O; nothing of head 2
    assert reach("mh-self-attention.toml", "head.1.exp_sum") == {"head.1.weights", "head.1.output", "concat", "output"}
    # the feed-forward sublayer comes after the attention sublayer and the first norm
    ffn = reach("layer-encoder.toml", "ffn.hidden_pre")
    assert {"ffn.hidden", "ffn.output", "residual2", "norm2.variance", "output"} <= ffn
    assert not any(s.startswith(("self.", "norm1.", "residual1")) for s in ffn)
    # c_2 feeds tanh(c_2), h_2 and step 3's f_3 ⊙ c_2 (the document states step 3's gates)
    assert reach("lstm-doc-encoder.toml", "2.c") == {"2.tanh_c", "2.h", "3.retained", "3.c", "3.tanh_c", "3.h"}
    # the forward direction's h_1 never reaches the backward direction
    fwd = reach("seq2seq-bahdanau.toml", "encoder.fwd.1.h")
    assert "encoder.fwd.2.h" in fwd and not any(s.startswith("encoder.bwd.") for s in fwd)


def _silu(x: np.ndarray) -> np.ndarray:
    return x / (1 + np.exp(-x))


def test_a_slip_named_at_the_second_norm_is_carried_through_its_own_later_steps() -> None:
    """layer-llama (pre-norm, RMSNorm): everything right up to residual1, then norm2 computed as a
    LayerNorm (the mean subtracted: rms_mean_subtracted) and the block finished from it, all at
    3 decimals. Named once, at norm2.mean_square; norm2.normalized, (r − μ)/√(var + ε) from the
    answerer's own variance, and everything after are carried (normalized was wrong: the slip runs
    applied it at norm1 too). A typo in normalized instead stays wrong. residual1 is computed here:
    x + the attention sublayer, read from the truth (the first steps are not under test)."""
    import attncalc

    path = PROBLEMS / "layer-llama.toml"
    raw = tomllib.loads(path.read_text())
    d = attncalc.solve(str(path))
    ids = d.step_ids
    answers: dict[str, Any] = {
        k: r3(np.asarray(d.step(k).value, dtype=float)) for k in ids[: ids.index("residual1") + 1]
    }
    for k, v in list(answers.items()):  # masked scores as the strings the answers grammar reads
        answers[k] = (
            [
                ["-inf" if isinstance(x, float) and math.isinf(x) else x for x in row] if isinstance(row, list) else row
                for row in v
            ]
            if isinstance(v, list)
            else v
        )
    r1 = np.asarray(answers["residual1"], dtype=float)
    eps, gamma, f = raw["settings"]["eps"], np.array(raw["norm2"]["gamma"]), raw["ffn"]
    var = r3(r1.var(axis=1))  # LayerNorm's: the mean subtracted
    z = r3((r1 - r1.mean(axis=1, keepdims=True)) / np.sqrt(np.asarray(var) + eps)[:, None])
    out = r3(np.asarray(z) * gamma)
    gp = r3(np.asarray(out) @ np.array(f["W_1"]))
    gate = r3(_silu(np.asarray(gp)))
    up = r3(np.asarray(out) @ np.array(f["W_3"]))
    hidden = r3(np.asarray(gate) * np.asarray(up))
    ffn = r3(np.asarray(hidden) @ np.array(f["W_2"]))
    r2 = r3(r1 + np.asarray(ffn))
    slipped = {
        "norm2.mean_square": var,
        "norm2.normalized": z,
        "norm2.output": out,
        "ffn.gate_pre": gp,
        "ffn.gate": gate,
        "ffn.up": up,
        "ffn.hidden": hidden,
        "ffn.output": ffn,
        "residual2": r2,
        "output": r2,
    }
    r = by_id(check(load_problem(path), {**answers, **slipped}, "a.toml"))
    assert r["norm2.mean_square"].verdict == "wrong" and r["norm2.mean_square"].mistake == "rms_mean_subtracted"
    for k in list(slipped)[1:]:
        assert r[k].verdict == "carried", (k, r[k].note)
        assert r[k].began_at == "norm2.mean_square" and r[k].mistake is None
    typo = np.asarray(z, dtype=float)
    typo[0, 0] += 0.1
    r = by_id(check(load_problem(path), {**answers, "norm2.mean_square": var, "norm2.normalized": r3(typo)}, "a.toml"))
    assert r["norm2.normalized"].verdict == "wrong" and r["norm2.normalized"].wrong_entries == [[0, 0]]
