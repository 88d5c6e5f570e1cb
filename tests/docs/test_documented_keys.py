"""Every key the guide (docs/guide/) documents, used at least once in a problem that solves, with an assertion
that depends on the key (a value computed independently, an exact form or a message): the
problem-file keys, [given] for every kind and score, [head], [settings] and [training]. The
recurrent and seq2seq keys are in test_documented_keys_recurrent.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy as sp

from ..helpers import solve_raw
from ..key_oracles import A, close, softmax

SCALED = {
    "title": "scale",
    "kind": "attention",
    "score": "scaled-dot",
    "given": {"query": [1, 0, 1, 2], "keys": [[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1]]},
}


def _with(base: dict[str, Any], **given: Any) -> dict[str, Any]:
    raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    raw["given"].update(given)
    return raw


@pytest.mark.parametrize("spelling", [0.5, "1/2", 1])
def test_given_scale_multiplies_every_score(spelling: Any) -> None:
    """[given] scale replaces 1/sqrt(d_k): e'_i = e_i * scale, in every spelling of the number."""
    scale = 1.0 if spelling == 1 else 0.5
    d = solve_raw(_with(SCALED, scale=spelling))
    q = np.array([1, 0, 1, 2.0])
    K = np.array([[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1.0]])
    scores = K @ q  # [3, 1, 5] by hand
    assert list(scores) == [3, 1, 5]
    np.testing.assert_allclose(d.step("scaled_scores").value, scores * scale)
    want = np.exp(scores * scale) / np.exp(scores * scale).sum()
    np.testing.assert_allclose(d.step("weights").value, want, rtol=1e-12)
    exact_scale = sp.Integer(1) if spelling == 1 else sp.Rational(1, 2)
    assert [sp.simplify(x - s * exact_scale) for x, s in zip(d.step("scaled_scores").exact, [3, 1, 5])] == [0] * 3
    # the Given block shows the scale as the one number it is, not as a list [0.5]
    (given,) = [i for i in d.inputs if i.name == "scale"]
    assert np.ndim(given.value) == 0 and float(given.value) == scale
    assert f"scale  score scale  = {scale:g}" in d.to_text(width=80)


S = [1, 1]
K = [[1, 0], [0, 2], [1, 1]]
V = [[1, 2], [0, 1], [2, 0]]


def attention(score: str, **given: Any) -> dict[str, Any]:
    return {"kind": "attention", "score": score, "given": {"query": S, "keys": K, **given}}


# ------------------------------------------------------------------ problem-file keys and [given]


def test_title_kind_score_tokens() -> None:
    raw = {"title": "Three tokens", "tokens": ["I", "love", "you"], **attention("dot")}
    d = solve_raw(raw)
    assert d.problem.title == "Three tokens" and d.problem.kind == "attention" and d.problem.score == "dot"
    assert d.step("weights").rows == ("I", "love", "you")
    close(d.step("scores"), A(K) @ A(S))  # dot: e_i = s · h_i = [1, 2, 2]


def test_values_weight_the_context_instead_of_the_keys() -> None:
    d = solve_raw(attention("dot", values=V))
    close(d.step("context"), softmax(A(K) @ A(S)) @ A(V))


def test_scaled_dot_default_scale_is_one_over_sqrt_dk() -> None:
    d = solve_raw(attention("scaled-dot"))
    close(d.step("scaled_scores"), A(K) @ A(S) / np.sqrt(2))


W_GEN = [[1, 2], [0, -1]]


def test_general_score_column_and_row_convention() -> None:
    col = solve_raw(attention("general", W=W_GEN))
    close(col.step("scores"), np.array([A(S) @ (A(W_GEN) @ h) for h in A(K)]))  # s · (W h_i)
    raw = attention("general", W=W_GEN)
    raw["settings"] = {"convention": "row"}
    row = solve_raw(raw)
    close(row.step("scores"), np.array([(h @ A(W_GEN)) @ A(S) for h in A(K)]))  # (h_i W) · s
    assert not np.allclose(col.step("scores").value, row.step("scores").value)


def test_additive_score_with_and_without_b() -> None:
    Wq, Wk, v, b = [[1, 0], [1, 1]], [[0, 1], [1, -1]], [1, -1], [0.5, -0.5]
    want = np.array([A(v) @ np.tanh(A(Wq) @ A(S) + A(Wk) @ h + A(b)) for h in A(K)])
    close(solve_raw(attention("additive", W_q=Wq, W_k=Wk, v=v, b=b)).step("scores"), want)
    no_b = np.array([A(v) @ np.tanh(A(Wq) @ A(S) + A(Wk) @ h) for h in A(K)])
    close(solve_raw(attention("additive", W_q=Wq, W_k=Wk, v=v)).step("scores"), no_b)


def test_concat_score() -> None:
    W, v = [[1, 0, 0, 1], [0, 1, 1, 0]], [1, 2]
    want = np.array([A(v) @ np.tanh(A(W) @ np.concatenate([A(S), h])) for h in A(K)])
    close(solve_raw(attention("concat", W=W, v=v)).step("scores"), want)


X = [[1, 0], [0, 1], [1, 1]]


def self_attention(**given: Any) -> dict[str, Any]:
    return {"kind": "self-attention", "given": {"X": X, **given}}


def test_self_attention_projections_rectangular_and_default_scale() -> None:
    WQ, WK, WV = [[1, 0, 1], [0, 1, 1]], [[1, 1, 0], [0, 1, 1]], [[1, 0], [2, 1]]
    d = solve_raw(self_attention(W_Q=WQ, W_K=WK, W_V=WV))
    Q, Kx, Vx = A(X) @ A(WQ), A(X) @ A(WK), A(X) @ A(WV)
    close(d.step("Q"), Q)
    close(d.step("K"), Kx)
    close(d.step("V"), Vx)
    close(d.step("output"), softmax(Q @ Kx.T / np.sqrt(3)) @ Vx)  # scaled-dot by default, d_k = 3


def test_self_attention_identity_when_projections_omitted_and_dot_score() -> None:
    raw = self_attention()
    raw["score"] = "dot"
    d = solve_raw(raw)
    close(d.step("output"), softmax(A(X) @ A(X).T) @ A(X))
    assert "scaled_scores" not in d.step_ids


def test_self_attention_masks() -> None:
    causal = solve_raw(self_attention(mask="causal"))
    s = A(X) @ A(X).T / np.sqrt(2)
    want = softmax(np.where(np.tril(np.ones((3, 3))) > 0, s, -np.inf))
    close(causal.step("weights"), want)
    m = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]
    explicit = solve_raw(self_attention(mask=m))
    close(explicit.step("weights"), softmax(np.where(A(m) > 0, s, -np.inf)))


def softmax_problem(**given: Any) -> dict[str, Any]:
    return {"kind": "softmax", "given": given}


def test_softmax_logits_vocab_target_label_and_index() -> None:
    z = A([2, 1, 0.5])
    p = softmax(z)
    by_label = solve_raw(softmax_problem(logits=[2, 1, 0.5], vocab=["A", "B", "C"], target="B"))
    by_index = solve_raw(softmax_problem(logits=[2, 1, 0.5], target=1))
    for d in (by_label, by_index):
        close(d.step("probabilities"), p)
        close(d.step("loss"), -np.log(p[1]))
        close(d.step("gradient"), p - np.eye(3)[1])
    assert by_label.step("probabilities").rows == ("A", "B", "C")


def test_softmax_temperature() -> None:
    raw = softmax_problem(logits=[2, 1, 0.5])
    raw["settings"] = {"temperature": 2}
    d = solve_raw(raw)
    close(d.step("scaled_logits"), A([2, 1, 0.5]) / 2)
    close(d.step("probabilities"), softmax(A([2, 1, 0.5]) / 2))


W_OUT = [[1, 0, 1], [0, 1, -1]]
H = [0.5, -1, 2]


def test_softmax_output_layer_and_sgd() -> None:
    raw = softmax_problem(W_out=W_OUT, hidden=H, b_out=[0.25, -0.25], target=0)
    raw["training"] = {"optimizer": "sgd", "lr": 0.5}
    d = solve_raw(raw)
    z = A(W_OUT) @ A(H) + A([0.25, -0.25])
    close(d.step("logits"), z)
    g = softmax(z) - np.eye(2)[0]
    close(d.step("grad_W_out"), np.outer(g, H))
    close(d.step("W_out_new"), A(W_OUT) - 0.5 * np.outer(g, H))
    close(d.step("b_out_new"), A([0.25, -0.25]) - 0.5 * g)


def test_softmax_adam_change_without_w_out() -> None:
    raw = softmax_problem(logits=[1, 2], hidden=[1, -2], target=1)
    raw["training"] = {"optimizer": "adam", "lr": 0.01}
    d = solve_raw(raw)
    g = np.outer(softmax(A([1, 2])) - np.eye(2)[1], [1, -2])
    m, v = 0.1 * g, 0.001 * g**2  # Adam's first step, beta1 0.9, beta2 0.999
    step = 0.01 * (m / 0.1) / (np.sqrt(v / 0.001) + 1e-8)
    close(d.step("W_out_change"), -step)


def test_sequence_probabilities_and_targets() -> None:
    p = [0.85, 0.78, 0.92, 0.94]
    d = solve_raw({"kind": "sequence", "given": {"probabilities": p, "targets": ["a", "b", "c", "d"]}})
    close(d.step("sequence_probability"), np.prod(p))
    close(d.step("loss"), -np.log(p).sum())
    close(d.step("mean_loss"), -np.log(p).mean())
    close(d.step("perplexity"), np.exp(-np.log(p).mean()))
    close(d.step("2.loss"), -np.log(0.78))
    assert "b" in (d.step("2.loss").title + " ".join(d.step("2.loss").rows or ()) + d.step("2.loss").formula)


# ------------------------------------------------------------------ [head]


def headed(**head: Any) -> dict[str, Any]:
    return {**attention("dot", values=V), "head": head}


def _context() -> np.ndarray:
    return softmax(A(K) @ A(S)) @ A(V)


def test_head_add_w_out_b_out_vocab() -> None:
    Wo, b = [[1, 0], [0, 1], [1, -1]], [0, 0.5, 0]
    d = solve_raw(headed(combine="add", W_out=Wo, b_out=b, vocab=["x", "y", "z"]))
    u = A(S) + _context()
    close(d.step("combined"), u)
    z = A(Wo) @ u + A(b)
    close(d.step("logits"), z)
    assert d.step("prediction").value == "xyz"[int(np.argmax(z))]


def test_head_concat_order_and_w_c() -> None:
    Wc = [[1, 0, 0, 1], [0, 1, -1, 0]]
    c = _context()
    d = solve_raw(headed(combine="concat", W_c=Wc))
    close(d.step("attentional"), np.tanh(A(Wc) @ np.concatenate([c, A(S)])))  # tanh(W_c [c; s])
    swapped = solve_raw(headed(combine="concat", W_c=Wc, order="query-context"))
    close(swapped.step("attentional"), np.tanh(A(Wc) @ np.concatenate([A(S), c])))  # [s; c]


# ------------------------------------------------------------------ [settings]


DOC = {"title": "decoder doc", "kind": "attention", "score": "dot", "given": {"query": S, "keys": K}}


def test_settings_decimals_carry_rounded_exact() -> None:
    from attncalc.render.json import to_dict

    raw = {**DOC, "settings": {"decimals": 2, "exact": True}}
    d = solve_raw(raw)
    steps = {s["id"]: s for s in to_dict(d)["steps"]}
    w = softmax(A(K) @ A(S))  # 1/(1+2e), e/(1+2e), e/(1+2e)
    assert steps["weights"]["shown"] == [f"{x:.2f}" for x in w]
    assert sp.simplify(d.step("weights").exact[0] - 1 / (1 + 2 * sp.E)) == 0
    assert steps["weights"]["exact"][0] == "1/(1 + 2*e)"
    no_exact = solve_raw({**DOC, "settings": {"exact": False}})
    assert no_exact.step("weights").exact is None
    carried = solve_raw({**DOC, "settings": {"decimals": 3, "carry_rounded": True}})
    # by hand: weights rounded to 0.155, 0.422, 0.422, then c = 0.155 h_1 + 0.422 h_2 + 0.422 h_3
    np.testing.assert_allclose(carried.step("context").shown, [0.577, 1.266], atol=1e-12)
    truth = solve_raw({**DOC, "settings": {"decimals": 3}})
    np.testing.assert_allclose(truth.step("context").shown, w @ A(K), atol=1e-12)  # 0.578, 1.267


def test_settings_shift_max() -> None:
    z = [3, 1, 2]
    always = solve_raw({**softmax_problem(logits=z), "settings": {"shift_max": "always"}})
    close(always.step("exponentials"), np.exp(A(z) - 3))
    never = solve_raw({**softmax_problem(logits=z), "settings": {"shift_max": "never"}})
    close(never.step("exponentials"), np.exp(A(z)))
    auto = solve_raw({**softmax_problem(logits=[927, 397, 148, 929]), "settings": {"shift_max": "auto"}})
    close(auto.step("exponentials"), np.exp(A([927, 397, 148, 929]) - 929))
    for d in (always, never, auto):
        close(d.step("probabilities"), softmax(A(d.problem.given["logits"].floats)))
