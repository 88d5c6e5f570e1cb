"""The reference documents' examples give the true values, recomputed here independently.

Every expectation is a one-line numpy formula or an exact sympy value written out by hand; the
documents' own numbers are used only where they were recomputed and found right (or, with
carry_rounded, where their rounding chain was recomputed by hand).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from attncalc.render.json import to_dict

from ..helpers import solve_file


def softmax(z: np.ndarray) -> np.ndarray:
    return np.exp(z - z.max(axis=-1, keepdims=True)) / np.exp(z - z.max(axis=-1, keepdims=True)).sum(
        axis=-1, keepdims=True
    )


def value(d: object, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)  # type: ignore[attr-defined]


def test_decoder_example_exact_weights_are_one_over_one_plus_two_e() -> None:
    """The decoder document's weights are exactly 1/(1+2e), e/(1+2e), e/(1+2e)."""
    d = solve_file("decoder-dot.toml")
    E = sp.E
    expected = [1 / (1 + 2 * E), E / (1 + 2 * E), E / (1 + 2 * E)]
    for got, want in zip(d.step("weights").exact, expected, strict=True):
        assert sp.simplify(got - want) == 0
    # and the float value is the exact value evaluated
    assert np.allclose(value(d, "weights"), [float(w) for w in expected], rtol=0, atol=1e-15)


def test_decoder_example_true_values() -> None:
    """Scores, weights, context, head and prediction of the decoder document, from numpy."""
    d = solve_file("decoder-dot.toml")
    s = np.array([1.0, 1.0])
    H = np.array([[1.0, 0], [0, 2], [1, 1]])
    e = H @ s
    a = softmax(e)
    c = a @ H
    u = s + c
    p = softmax(np.eye(2) @ u)
    assert np.allclose(value(d, "scores"), e, atol=1e-12)
    assert np.allclose(value(d, "exponentials"), np.exp(e), atol=1e-12)
    assert np.isclose(float(value(d, "exp_sum")), np.exp(e).sum())
    assert np.allclose(value(d, "weights"), a, atol=1e-12)
    assert np.allclose(value(d, "context"), c, atol=1e-12)
    assert np.allclose(value(d, "probabilities"), p, atol=1e-12)
    assert d.step("prediction").value == ["A", "B"][int(np.argmax(p))]
    # not carried: the truth, rounded once at the end
    assert to_dict(d)["steps"][4]["shown"] == ["0.578", "1.267"]


def test_decoder_example_carried_reproduces_the_documents_chain() -> None:
    """With 3 decimals carried, the context is [0.577, 1.266] exactly as the author got by hand.

    By hand: e^1 = 2.718, e^2 = 7.389, sum 17.496, weights 0.155, 0.422, 0.422,
    c_1 = 0.155 + 0.422 = 0.577, c_2 = 0.844 + 0.422 = 1.266.
    """
    d = solve_file("decoder-dot.toml", carry_rounded=True)
    steps = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    assert steps["exponentials"] == ["2.718", "7.389", "7.389"]
    assert steps["exp_sum"] == "17.496"
    assert steps["weights"] == ["0.155", "0.422", "0.422"]
    assert steps["context"] == ["0.577", "1.266"]
    assert steps["combined"] == ["1.577", "2.266"]
    # the true value is still the truth
    assert np.allclose(value(d, "context"), [0.5776812, 1.2669564], atol=1e-7)
    assert any("carried forward" in n for n in d.notes)


def test_self_attention_example_true_values() -> None:
    """The scaled self-attention document: A = softmax(X Xᵀ/√2), Z = A X."""
    d = solve_file("self-attention-scaled.toml")
    X = np.array([[1.0, 0], [0, 1], [1, 1]])
    S = X @ X.T
    A = softmax(S / np.sqrt(2))
    assert np.allclose(value(d, "scores"), S)
    assert np.allclose(value(d, "scaled_scores"), S / np.sqrt(2))
    assert np.allclose(value(d, "exp_sum"), np.exp(S / np.sqrt(2)).sum(axis=1))
    assert np.allclose(value(d, "weights"), A, atol=1e-12)
    assert np.allclose(value(d, "output"), A @ X, atol=1e-12)
    # row 3 by hand: exp(√2)/(2 exp(√2/2) + exp(√2)) = 1/(1 + 2 exp(-√2/2))
    w33 = d.step("weights").exact[2, 2]
    assert sp.simplify(w33 - 1 / (1 + 2 * sp.exp(-sp.sqrt(2) / 2))) == 0


def test_lecture_example_true_values_not_the_slides() -> None:
    """The lecture's sum is 4.876 and its weights 0.224, 0.525, 0.251 (the slides say 4.02 and 0.27, 0.63, 0.22)."""
    d = solve_file("lecture-dot.toml")
    s = np.array([0.5, -0.2, 0.8])
    H = np.array([[0.1, 0.2, 0.1], [0.8, 0.1, 0.7], [0.2, 0.3, 0.2]])
    e = H @ s
    assert np.allclose(e, [0.09, 0.94, 0.20])  # the slides' scores are right
    assert np.allclose(value(d, "scores"), e)
    assert np.isclose(float(value(d, "exp_sum")), np.exp(e).sum())
    assert np.allclose(value(d, "weights"), softmax(e), atol=1e-12)
    assert np.allclose(value(d, "context"), softmax(e) @ H, atol=1e-12)
    shown = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    assert shown["exp_sum"] == "4.876"
    assert shown["weights"] == ["0.224", "0.525", "0.251"]


@pytest.mark.parametrize(
    ("name", "z"), [("lecture-softmax-close.toml", [0.9, 0.1]), ("lecture-softmax-far.toml", [5.0, 1.0])]
)
def test_lecture_softmax_pairs(name: str, z: list[float]) -> None:
    """The lecture's softmax pairs: 0.690/0.310 (not 0.64/0.36) and 0.982/0.018."""
    d = solve_file(name)
    p = softmax(np.array(z))
    assert np.allclose(value(d, "probabilities"), p, atol=1e-12)
    # exactly 1/(1 + exp(-(z1 - z2)))
    diff = sp.Rational(str(z[0])) - sp.Rational(str(z[1]))
    assert sp.simplify(d.step("probabilities").exact[0] - 1 / (1 + sp.exp(-diff))) == 0


def test_luong_example_true_values_row_convention() -> None:
    """The Luong document in the row convention: H W, scores, weights, context, tanh(W_c [s; c])."""
    d = solve_file("luong-general.toml")
    H = np.array([[0.3, 0.7, -0.2], [0.5, 0.4, 0.6], [0.2, -0.3, 0.8]])
    W = np.array([[0.8, -0.2, 0.3], [0.5, 0.6, -0.1], [-0.3, 0.4, 0.7]])
    s = np.array([0.6, -0.4, 0.5])
    Wc_doc = np.array(
        [[0.5, -0.3, 0.2, 0.1, 0.4, -0.2], [0.3, 0.6, -0.1, 0.5, -0.3, 0.2], [-0.2, 0.4, 0.7, -0.3, 0.1, 0.5]]
    )
    HW = H @ W
    # by hand, row 1 of H W: 0.3·0.8 + 0.7·0.5 + (−0.2)(−0.3) = 0.65; 0.3(−0.2) + 0.7·0.6 + (−0.2)0.4 = 0.28
    assert np.allclose(HW[0], [0.65, 0.28, -0.12])
    e = HW @ s
    a = softmax(e)
    c = a @ H
    assert np.allclose(value(d, "transformed_keys"), HW, atol=1e-12)
    assert np.allclose(value(d, "scores"), e, atol=1e-12)
    assert np.allclose(value(d, "weights"), a, atol=1e-12)
    assert np.allclose(value(d, "context"), c, atol=1e-12)
    assert np.allclose(value(d, "combined"), np.concatenate([s, c]))
    assert np.allclose(value(d, "attentional"), np.tanh(Wc_doc @ np.concatenate([s, c])), atol=1e-12)


def test_stable_softmax_of_huge_scores() -> None:
    """[927, 397, 148, 929] gives the right probabilities, no overflow or NaN, and says why it shifted."""
    d = solve_file("softmax-large-scores.toml")
    p = value(d, "probabilities")
    assert np.all(np.isfinite(p))
    assert np.allclose(p, [1 / (1 + np.exp(2)), 0, 0, 1 / (1 + np.exp(-2))], atol=1e-15)
    note = d.step("exponentials").note
    assert "maximum" in note and "overflow" in note
    assert np.allclose(value(d, "exponentials"), np.exp(np.array([927, 397, 148, 929.0]) - 929))


def test_cross_entropy_and_gradient_by_hand() -> None:
    """L = −ln p_hat and ∂L/∂z = p − y for logits [2, 1, 0.1] with target 'hat' (index 1)."""
    d = solve_file("softmax-cross-entropy.toml")
    z = np.array([2, 1, 0.1])
    p = softmax(z)
    assert np.isclose(float(value(d, "loss")), -np.log(p[1]))
    assert np.allclose(value(d, "gradient"), p - np.array([0, 1, 0]))


def test_exact_forms_that_grow_too_large_fall_back_with_a_note() -> None:
    """luong-concat's exact forms outgrow the limit: a one-line note, numbers after, values still right."""
    d = solve_file("luong-concat.toml")
    notes = [n for n in d.notes if "Exact forms stop" in n]
    assert len(notes) == 1
    stopped = notes[0].split("'")[1]
    ids = d.step_ids
    k = ids.index(stopped)
    assert all(d.steps[i].exact is not None for i in range(k))
    assert all(s.exact is None for s in d.steps[k:] if not isinstance(s.value, str))
    floats = solve_file("luong-concat.toml", exact=False)
    for a, b in zip(d.steps, floats.steps, strict=True):
        if not isinstance(a.value, str):
            assert np.allclose(a.value, b.value, rtol=1e-12, atol=1e-12)


def test_large_problems_skip_exact_forms_with_a_note() -> None:
    """More than 400 input entries: exact forms are skipped up front, and the derivation says so."""
    from ..helpers import solve_raw

    rng = np.random.default_rng(0)
    X = np.round(rng.uniform(-1, 1, size=(30, 16)), 2).tolist()
    d = solve_raw({"kind": "self-attention", "given": {"X": X}})
    assert any("Exact forms skipped" in n for n in d.notes)
    assert all(s.exact is None for s in d.steps)
