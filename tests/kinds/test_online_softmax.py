"""Kind online-softmax: the softmax taken block by block, as FlashAttention does.

Oracles: torch.softmax, torch.logsumexp and F.scaled_dot_product_attention in float64; a numpy one-shot
softmax written here from the definition (exp(s_j) / Σ_k exp(s_k)); the running values of the online
softmax recomputed here from Milakov & Gimelshein (2018), Algorithm 3, and by hand for a small case; exact
sympy values. All to 1e-9."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import solve_file, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")

TOL = 1e-9


def one_shot(S: np.ndarray) -> np.ndarray:
    """softmax of each row from the definition, in numpy: exp(s_j) / Σ_k exp(s_k)."""
    e = np.exp(S)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def t64(x: Any) -> Any:
    return torch.tensor(np.asarray(x, dtype=float), dtype=torch.float64)


def online_reference(S: np.ndarray, block: int, V: np.ndarray | None) -> dict[str, Any]:
    """The running values after each block, written from Milakov & Gimelshein (2018), Algorithm 3, and
    Dao et al. (2022), Algorithm 1 (plain loops over one row at a time, no code shared with attncalc)."""
    n, mcols = S.shape
    out: dict[str, Any] = {}
    for i in range(n):
        m_old, l_old = -math.inf, 0.0
        o_old = np.zeros(V.shape[1]) if V is not None else None
        for b, start in enumerate(range(0, mcols, block), 1):
            cols = S[i, start : start + block]
            m_new = max(m_old, max(cols))
            r = math.exp(m_old - m_new)  # exp(−∞) = 0 at the first block
            p = [math.exp(x - m_new) for x in cols]
            l_new = l_old * r + sum(p)
            out.setdefault(f"{b}.block_max", []).append(max(cols))
            out.setdefault(f"{b}.max", []).append(m_new)
            out.setdefault(f"{b}.rescale", []).append(r)
            out.setdefault(f"{b}.exponentials", []).append(p)
            out.setdefault(f"{b}.sum", []).append(l_new)
            if V is not None and o_old is not None:
                o_new = o_old * r + sum(pj * V[start + j] for j, pj in enumerate(p))
                out.setdefault(f"{b}.output", []).append(o_new.tolist())
                o_old = o_new
            m_old, l_old = m_new, l_new
    return out


def _rows(x: Any, one_row: bool) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    return a.reshape(1, *a.shape) if one_row else a


# ------------------------------------------------------------------ the examples against the oracles


@pytest.mark.parametrize("name", ["online-softmax-row.toml", "online-softmax-matrix-v.toml", "online-softmax-qk.toml"])
@pytest.mark.parametrize("exact", [True, False])
def test_the_examples_agree_with_torch(name: str, exact: bool) -> None:
    d = solve_file(name, exact=exact)
    g = d.problem.given
    one_row = d.problem.data.one_row
    if "scores" in g:
        S = g["scores"].floats
    else:
        Q, K = g["Q"].floats, g["K"].floats
        S = Q @ K.T / math.sqrt(Q.shape[1])
        np.testing.assert_allclose(d["scores"], (t64(Q) @ t64(K).T / math.sqrt(Q.shape[1])).numpy(), atol=TOL)
    ts = t64(S)
    np.testing.assert_allclose(_rows(d["weights"], one_row), torch.softmax(ts, dim=-1).numpy(), atol=TOL, rtol=0)
    np.testing.assert_allclose(_rows(d["weights"], one_row), one_shot(S), atol=TOL, rtol=0)
    lse = torch.logsumexp(ts, dim=-1).numpy()
    np.testing.assert_allclose(np.ravel(d["logsumexp"]), lse, atol=TOL, rtol=0)
    np.testing.assert_allclose(np.ravel(d["max"]), S.max(axis=1), atol=TOL, rtol=0)
    np.testing.assert_allclose(np.ravel(d["sum"]), np.exp(S - S.max(axis=1, keepdims=True)).sum(axis=1), atol=TOL)
    if "V" in g:
        V = g["V"].floats
        np.testing.assert_allclose(_rows(d["output"], one_row), (torch.softmax(ts, -1) @ t64(V)).numpy(), atol=TOL)
        if "Q" in g:
            sdpa = torch.nn.functional.scaled_dot_product_attention(t64(g["Q"].floats), t64(g["K"].floats), t64(V))
            np.testing.assert_allclose(d["output"], sdpa.numpy(), atol=TOL, rtol=0)
    ref = online_reference(S, d.problem.data.block, g["V"].floats if "V" in g else None)
    for step_id, want in ref.items():
        got = d[step_id]
        np.testing.assert_allclose(_rows(got, one_row) if one_row else got, np.asarray(want), atol=TOL, err_msg=step_id)


def test_a_small_case_recomputed_by_hand() -> None:
    """scores [1, 3, 2, 5, 4, 0] in blocks of 2, by hand: block 1: M = m = 3, r = 0, P = [e⁻², 1],
    l = 1 + e⁻²; block 2: M = m = 5, r = e⁻², P = [e⁻³, 1], l = (1 + e⁻²)e⁻² + e⁻³ + 1; block 3: M = 4,
    m = 5, r = 1, P = [e⁻¹, e⁻⁵], l = 1 + e⁻¹ + e⁻² + e⁻³ + e⁻⁴ + e⁻⁵; L = 5 + ln l."""
    import sympy as sp

    d = solve_file("online-softmax-row.toml")
    e = math.exp
    l1 = 1 + e(-2)
    l2 = l1 * e(-2) + e(-3) + 1
    l3 = l2 + e(-1) + e(-5)
    hand = {
        "1.scores": [1, 3], "1.block_max": 3, "1.max": 3, "1.rescale": 0, "1.exponentials": [e(-2), 1], "1.sum": l1,
        "2.scores": [2, 5], "2.block_max": 5, "2.max": 5, "2.rescale": e(-2), "2.exponentials": [e(-3), 1],
        "2.sum": l2, "3.scores": [4, 0], "3.block_max": 4, "3.max": 5, "3.rescale": 1,
        "3.exponentials": [e(-1), e(-5)], "3.sum": l3, "max": 5, "sum": l3, "logsumexp": 5 + math.log(l3),
    }  # fmt: skip
    assert d.step_ids == [*hand, "weights"]
    for step_id, want in hand.items():
        np.testing.assert_allclose(d[step_id], want, atol=1e-12, err_msg=step_id)
    # exact: l = Σ_k exp(s_k − 5), multiplied out; the weights are exp(s_j − 5) / l
    E = sp.exp
    l_exact = 1 + E(-1) + E(-2) + E(-3) + E(-4) + E(-5)
    assert sp.simplify(d.step("3.sum").exact - l_exact) == 0
    assert d.step("3.sum").exact == sp.expand(l_exact)
    assert sp.simplify(d.step("logsumexp").exact - (5 + sp.log(l_exact))) == 0
    for j, s in enumerate([1, 3, 2, 5, 4, 0]):
        assert sp.simplify(d.step("weights").exact[j] - E(s - 5) / l_exact) == 0
    assert d.step("1.rescale").exact == 0 and d.step("3.rescale").exact == 1


def test_every_running_value_is_one_number_per_row() -> None:
    """One vector of scores: single numbers; a 2 × 4 matrix: one per row; P and O keep their columns."""
    row = solve_file("online-softmax-row.toml")
    for sid in ("1.block_max", "1.max", "1.rescale", "1.sum", "max", "sum", "logsumexp"):
        assert isinstance(row[sid], float), sid
    mat = solve_file("online-softmax-matrix-v.toml")
    assert np.shape(mat["2.max"]) == (2,) and np.shape(mat["2.exponentials"]) == (2, 2)
    assert np.shape(mat["2.output"]) == (2, 2) and np.shape(mat["output"]) == (2, 2)


CASES = [
    # several rows, the last block shorter, negative and decimal scores, V of width 3
    ([[0.5, -1, 2, 0.25, 3, -2, 1], [2, 2.5, -0.5, 1, 0, 4, -3], [-1, 0, 1, 2, 3, 4, 5]], 3, 3),
    ([[5, 4, 3, 2, 1]], 2, 1),  # the maximum in the first block: every later rescale is 1
    ([[1, 2, 3, 4, 5]], 2, 2),  # a new maximum in every block
    ([[0.3, -0.7, 1.1, 2.2]], 1, 2),  # blocks of one key
    ([[0.3, -0.7, 1.1, 2.2]], 4, 2),  # one block: the one-shot softmax itself
    ([[0.3, -0.7, 1.1, 2.2]], 9, 2),  # a block wider than the row
]


@pytest.mark.parametrize(("S", "block", "dv"), CASES)
@pytest.mark.parametrize("exact", [True, False])
def test_cases_agree_with_torch_and_the_recurrence(S: list[list[float]], block: int, dv: int, exact: bool) -> None:
    Sa = np.asarray(S, dtype=float)
    rng = np.random.default_rng(len(S[0]) * 10 + block)
    V = np.round(rng.uniform(-2, 2, size=(Sa.shape[1], dv)), 1)
    d = solve_raw({"kind": "online-softmax", "given": {"scores": S, "V": V.tolist(), "block": block}}, exact=exact)
    ts = t64(Sa)
    np.testing.assert_allclose(d["weights"], torch.softmax(ts, -1).numpy(), atol=TOL, rtol=0)
    np.testing.assert_allclose(d["logsumexp"], torch.logsumexp(ts, -1).numpy(), atol=TOL, rtol=0)
    np.testing.assert_allclose(d["output"], (torch.softmax(ts, -1) @ t64(V)).numpy(), atol=TOL, rtol=0)
    blocks = math.ceil(Sa.shape[1] / block)
    assert f"{blocks}.sum" in d and f"{blocks + 1}.sum" not in d
    for step_id, want in online_reference(Sa, block, V).items():
        np.testing.assert_allclose(d[step_id], np.asarray(want), atol=TOL, err_msg=step_id)


def test_dot_scores_from_q_and_k() -> None:
    Q, K = [[1, -1], [0.5, 2]], [[1, 0], [2, 1], [-1, 1]]
    d = solve_raw({"kind": "online-softmax", "score": "dot", "given": {"Q": Q, "K": K, "block": 2}})
    S = t64(Q) @ t64(K).T
    np.testing.assert_allclose(d["scores"], S.numpy(), atol=TOL)
    np.testing.assert_allclose(d["weights"], torch.softmax(S, -1).numpy(), atol=TOL)
    assert "output" not in d


@pytest.mark.parametrize("name", ["online-softmax-row.toml", "online-softmax-matrix-v.toml", "online-softmax-qk.toml"])
def test_exact_and_float_agree(name: str) -> None:
    """In exact mode every value is the exact form evaluated; the float pass gives the same numbers."""
    ex, fl = solve_file(name), solve_file(name, exact=False)
    assert ex.step_ids == fl.step_ids
    for s in ex.steps:
        assert s.exact is not None, s.id  # small inputs: exact throughout
        np.testing.assert_allclose(ex[s.id], fl[s.id], atol=1e-12, err_msg=s.id)


def test_the_closing_line_says_the_one_shot_softmax_is_the_same() -> None:
    ex = solve_file("online-softmax-matrix-v.toml")
    assert ex.steps[-1].id == "output"
    assert "one-shot softmax" in ex.steps[-1].note and "the difference is 0 exactly" in ex.steps[-1].note
    fl = solve_file("online-softmax-row.toml", exact=False)
    assert fl.steps[-1].id == "weights" and "largest difference is" in fl.steps[-1].note
    hand = solve_file("online-softmax-row.toml", carry_rounded=True)
    assert "rounded to 3 decimals and carried" in hand.steps[-1].note


def test_the_hand_chain_rounds_and_carries() -> None:
    """--carry: each step from the rounded numbers before it (2.sum = 1.135·0.135 + 0.050 + 1, by hand)."""
    d = solve_file("online-softmax-row.toml", carry_rounded=True)
    assert float(d.step("1.sum").shown) == 1.135
    assert float(d.step("2.rescale").shown) == 0.135
    assert float(d.step("2.sum").shown) == round(1.135 * 0.135 + 0.050 + 1, 3)


# ------------------------------------------------------------------ bad input: one line naming the key


@pytest.mark.parametrize(
    ("given", "top", "key", "words"),
    [
        ({"scores": [1, 2], "Q": [[1]], "K": [[1]], "block": 1}, {}, "given.Q", "either the scores or Q and K"),
        ({"Q": [[1, 0]], "block": 1}, {}, "given.K", "missing"),
        ({"K": [[1, 0]], "block": 1}, {}, "given.Q", "missing"),
        ({"block": 1}, {}, "given.scores", "missing"),
        ({"scores": [1, 2]}, {}, "given.block", "missing"),
        ({"scores": [1, 2], "block": 0}, {}, "given.block", "at least 1"),
        ({"scores": [1, 2], "block": 1.5}, {}, "given.block", "whole number"),
        ({"scores": [1, 2], "block": 1}, {"score": "dot"}, "score", "only when the scores are computed"),
        ({"scores": [1, 2, 3], "V": [[1], [2]], "block": 1}, {}, "given.V", "m = 3 from given.scores"),
        ({"Q": [[1, 0]], "K": [[1, 0, 1]], "block": 1}, {}, "given.K", "d_k = 2 from given.Q"),
        ({"scores": [[1, 2], [1]], "block": 1}, {}, "given.scores", ""),
    ],
)
def test_bad_input_names_the_key(given: dict[str, Any], top: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        parse_problem({"kind": "online-softmax", **top, "given": given}, "bad.toml")
    assert e.value.key == key, str(e.value)
    assert words in str(e.value)


def test_settings_it_does_not_take_are_refused() -> None:
    for key, value in (("shift_max", "always"), ("temperature", 2), ("convention", "row")):
        raw = {"kind": "online-softmax", "given": {"scores": [1, 2], "block": 1}, "settings": {key: value}}
        with pytest.raises(ProblemError) as e:
            parse_problem(raw, "bad.toml")
        assert e.value.key == f"settings.{key}"


def test_the_closing_line_is_not_a_foregone_conclusion() -> None:
    """Given weights that are not the softmax (an exact 1/100 added), the line gives the difference, not 0."""
    import sympy as sp

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms.online_softmax_check import closing_note

    S = np.array([[sp.Integer(1), sp.Integer(3)]], dtype=object)
    total = sp.exp(-2) + 1
    right = np.array([[sp.exp(-2) / total, 1 / total]], dtype=object)
    assert "the difference is 0 exactly" in closing_note(Chain("exact"), S, right, None, None)
    wrong = right + sp.Rational(1, 100)
    note = closing_note(Chain("exact"), S, wrong, None, None)
    assert "0 exactly" not in note and "largest difference is 1.0e-02" in note
