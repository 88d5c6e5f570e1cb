"""Kind moe: mixture-of-experts routing (Switch Transformer, Fedus et al. 2021; Mixtral, Jiang et al. 2024).

Oracles, none of them attncalc's: Hugging Face transformers' ``load_balancing_loss_func`` (Mixtral's,
which returns the loss without the coefficient, so it is multiplied by aux_coef here); a numpy router
written here from the Switch Transformer paper (softmax of each row, top-k with ties to the lower
number, gates, capacity served in token order, the gated sum); ``torch.softmax`` and ``torch.topk``
with Mixtral's renormalisation; the Switch paper's loss (its eq. 4-6) on a small example worked by hand
below; exact sympy forms against the float pass."""

from __future__ import annotations

import json
import math
import tomllib
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, solve_file, solve_raw

TOL = 1e-9
EXAMPLES = ["moe-mixtral.toml", "moe-switch.toml"]


def router(g: dict[str, Any]) -> dict[str, Any]:
    """Every step from the definitions, in numpy (Fedus et al. 2021, §2.1-2.2; Mixtral's top-2)."""
    X, W = np.asarray(g["X"], dtype=float), np.asarray(g["W_router"], dtype=float)
    We = np.asarray(g["experts"], dtype=float)
    k, renorm, aux = g["top_k"], g.get("renormalize", True), float(g.get("aux_coef", 1))
    n, E = X.shape[0], W.shape[1]
    Z = X @ W
    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    P = e / e.sum(axis=1, keepdims=True)
    top = np.array([sorted(range(E), key=lambda j: (-P[i, j], j))[:k] for i in range(n)])
    chosen = np.take_along_axis(P, top, axis=1)
    G = chosen / chosen.sum(axis=1, keepdims=True) if renorm else chosen
    out: dict[str, Any] = {"logits": Z, "probabilities": P, "top_k": top + 1, "gates": G}
    kept = np.ones((n, k))
    if g.get("capacity_factor") is not None:
        C = math.ceil(Fraction(str(g["capacity_factor"])) * n * k / E)
        load = [0] * E
        for i in range(n):  # token by token, each token's choices in rank order
            for r in range(k):
                if load[top[i, r]] < C:
                    load[top[i, r]] += 1
                else:
                    kept[i, r] = 0
        out["capacity"], out["kept"] = C, kept
    Y = np.array([[X[i] @ We[top[i, r]] for r in range(k)] for i in range(n)])
    out["expert_outputs"] = Y
    out["output"] = ((G * kept)[:, :, None] * Y).sum(axis=1)
    f = np.bincount(top.ravel(), minlength=E) / n  # every choice counted, dropped or not
    out["fraction"], out["mean_probability"] = f, P.mean(axis=0)
    out["load_balancing_loss"] = aux * E * float((f * P.mean(axis=0)).sum())
    return out


def _given(name: str) -> dict[str, Any]:
    return dict(tomllib.loads((PROBLEMS / name).read_text())["given"])


def _case(g: dict[str, Any], tokens: list[str] | None = None) -> dict[str, Any]:
    raw: dict[str, Any] = {"kind": "moe", "given": g}
    if tokens is not None:
        raw["tokens"] = tokens
    return raw


I2 = [[1, 0], [0, 1]]
CASES = [
    {"X": [[1, 0], [0, 1], [1, 1]], "W_router": [[1, 0, -1], [0, 1, 1]],
     "experts": [[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[2, 0], [0, 2]]], "top_k": 2},  # the spec's, with ties
    {"X": [[0.5, -1, 2], [1, 1, 0], [-0.5, 2, 1], [2, 0, -1], [0, 0.25, 1]],
     "W_router": [[0.3, -0.2, 0.5, 1], [1, 0.1, -0.4, 0.2], [-0.5, 0.7, 0.2, 0.1]],
     "experts": [[[1, 0], [0, 1], [1, 1]], [[0, 2], [1, 0], [0, -1]], [[-1, 1], [0.5, 0], [1, 2]], [[1, 1], [1, -1], [0, 0.5]]],
     "top_k": 2, "capacity_factor": 1.25, "aux_coef": 0.01},
    {"X": [[1, 2], [2, 1], [1, -1], [0, 3]], "W_router": [[1, 0, -1], [0.5, 1, 0]],
     "experts": [I2, [[0, 1], [1, 0]], [[2, 0], [0, 2]]], "top_k": 1, "renormalize": False, "capacity_factor": 1},
    {"X": [[1, 2], [2, 1], [1, -1]], "W_router": [[1, 0, -1], [0.5, 1, 0]],
     "experts": [I2, [[0, 1], [1, 0]], [[2, 0], [0, 2]]], "top_k": 3, "aux_coef": 0.5},
    {"X": [[1, 2]], "W_router": [[1, 0], [0, 1]], "experts": [I2, [[0, 1], [1, 0]]], "top_k": 1},
    {"X": [[1, 0], [0, 1], [1, 1]], "W_router": [[2, 0, -1, 1], [0, 1, 1, -2]],
     "experts": [I2, I2, I2, I2], "top_k": 2, "renormalize": False, "capacity_factor": 0.5},
]  # fmt: skip
ALL = [*CASES, *(_given(n) for n in EXAMPLES)]


@pytest.mark.parametrize("g", ALL, ids=lambda g: f"n{len(g['X'])}-k{g['top_k']}")
@pytest.mark.parametrize("exact", [False, True])
def test_every_step_agrees_with_the_numpy_router(g: dict[str, Any], exact: bool) -> None:
    ref = router(g)
    d = solve_raw(_case(g), exact=exact)
    assert set(d.step_ids) == set(ref)
    for k, v in ref.items():
        np.testing.assert_allclose(np.asarray(d[k], dtype=float), v, atol=TOL, err_msg=k)


def _seeded(seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n, dim, E = int(rng.integers(2, 9)), int(rng.integers(1, 4)), int(rng.integers(2, 7))
    g: dict[str, Any] = {
        "X": rng.normal(size=(n, dim)).round(3).tolist(),
        "W_router": rng.normal(size=(dim, E)).round(3).tolist(),
        "experts": rng.normal(size=(E, dim, 2)).round(3).tolist(),
        "top_k": int(rng.integers(1, min(E, 3) + 1)),
        "aux_coef": float(rng.choice([1, 0.01, 0.02])),
    }
    if seed % 2:
        g["capacity_factor"] = float(rng.choice([0.5, 1, 1.25, 2]))
    return g


@pytest.mark.parametrize("g", [*ALL, *(_seeded(s) for s in range(12))], ids=lambda g: f"n{len(g['X'])}")
def test_the_loss_is_hugging_faces_load_balancing_loss_times_aux_coef(g: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch runs Hugging Face's loss (pip install torch==2.13.0)")
    mixtral = pytest.importorskip(
        "transformers.models.mixtral.modeling_mixtral", reason="transformers' load_balancing_loss_func is the oracle"
    )
    d = solve_raw(_case(g), exact=False)
    logits = torch.tensor(np.asarray(g["X"], dtype=float) @ np.asarray(g["W_router"], dtype=float))
    E = logits.shape[1]
    hf = mixtral.load_balancing_loss_func((logits,), num_experts=E, top_k=g["top_k"])  # no aux_coef
    aux = float(g.get("aux_coef", 1))
    assert d["load_balancing_loss"] == pytest.approx(aux * float(hf), rel=1e-5, abs=1e-7)
    # its two factors as the function forms them: counts over the tokens, and the mean probability
    probs = torch.softmax(logits, dim=-1)
    _, chosen = torch.topk(probs, g["top_k"], dim=-1)
    counts = torch.nn.functional.one_hot(chosen, E).float().sum(dim=(0, 1)) / logits.shape[0]
    np.testing.assert_allclose(d["mean_probability"], probs.mean(dim=0).numpy(), atol=TOL)
    if not _ties(probs.numpy()):
        np.testing.assert_allclose(d["fraction"], counts.numpy(), atol=TOL)


def _ties(P: np.ndarray) -> bool:
    return any(np.any(np.diff(np.sort(row)) < 1e-12) for row in P)


@pytest.mark.parametrize("g", [*ALL, *(_seeded(s) for s in range(12))], ids=lambda g: f"n{len(g['X'])}")
def test_routing_agrees_with_torch_softmax_and_topk(g: dict[str, Any]) -> None:
    """Mixtral's routing in torch: softmax, topk, the top-k weights over their sum (Switch: not), the sum."""
    torch = pytest.importorskip("torch", reason="PyTorch is an oracle here (pip install torch==2.13.0)")
    X = torch.tensor(g["X"], dtype=torch.float64)
    logits = X @ torch.tensor(g["W_router"], dtype=torch.float64)
    probs = torch.softmax(logits, dim=-1)
    if _ties(probs.numpy()):
        pytest.skip("torch.topk breaks ties its own way")
    weights, chosen = torch.topk(probs, g["top_k"], dim=-1)
    if g.get("renormalize", True):
        weights = weights / weights.sum(dim=-1, keepdim=True)
    d = solve_raw(_case(g), exact=False)
    np.testing.assert_allclose(d["probabilities"], probs.numpy(), atol=TOL)
    np.testing.assert_array_equal(d["top_k"], (chosen + 1).numpy())
    np.testing.assert_allclose(d["gates"], weights.numpy(), atol=TOL)
    experts = torch.tensor(g["experts"], dtype=torch.float64)
    ys = torch.stack([torch.stack([X[i] @ experts[e] for e in row]) for i, row in enumerate(chosen.tolist())])
    np.testing.assert_allclose(d["expert_outputs"], ys.numpy(), atol=TOL)
    if g.get("capacity_factor") is None:
        np.testing.assert_allclose(d["output"], (weights[:, :, None] * ys).sum(dim=1).numpy(), atol=TOL)


# ------------------------------------------------------------------ the Switch paper's loss, worked by hand

# Fedus et al. (2021), eq. 4-6: loss = α · N · Σ_i f_i · P_i, f_i the fraction of the T tokens dispatched
# to expert i (top-1), P_i the fraction of the router probability given to expert i. Two experts, four
# tokens whose logits are [ln 3, 0] or [−ln 3, 0]: p = [3/4, 1/4] for tokens 1, 2 and 4, [1/4, 3/4] for
# token 3. By hand: f = [3/4, 1/4]; P_1 = (3/4 + 3/4 + 1/4 + 3/4) / 4 = 5/8, P_2 = 3/8;
# Σ f P = 15/32 + 3/32 = 9/16; with α = 0.01 and N = 2: loss = 0.01 · 2 · 9/16 = 9/800 = 0.01125.
# A balanced router (f = P = [1/2, 1/2]) would give α · N · 1/2 = α, the paper's minimum.
SWITCH_BY_HAND = {
    "X": [[1], [1], [-1], [1]],
    "W_router": [["ln(3)", 0]],
    "experts": [[[2]], [[-1]]],
    "top_k": 1,
    "renormalize": False,
    "aux_coef": 0.01,
}


def test_the_switch_papers_loss_on_a_hand_worked_example() -> None:
    import sympy as sp

    d = solve_raw(_case(SWITCH_BY_HAND))
    np.testing.assert_allclose(d["probabilities"], [[0.75, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.25]], atol=1e-12)
    np.testing.assert_array_equal(d["top_k"], [[1], [1], [2], [1]])
    np.testing.assert_allclose(d["gates"], [[0.75], [0.75], [0.75], [0.75]], atol=1e-12)
    np.testing.assert_allclose(d["output"], [[1.5], [1.5], [0.75], [1.5]], atol=1e-12)  # 3/4·2; 3/4·(−1)·(−1)
    np.testing.assert_allclose(d["fraction"], [0.75, 0.25], atol=1e-12)
    np.testing.assert_allclose(d["mean_probability"], [0.625, 0.375], atol=1e-12)
    assert d["load_balancing_loss"] == pytest.approx(0.01125, abs=1e-12)
    exact = {s.id: s.exact for s in d.steps}
    assert sp.simplify(exact["load_balancing_loss"].item() - sp.Rational(9, 800)) == 0
    assert sp.simplify(exact["mean_probability"][0] - sp.Rational(5, 8)) == 0


# ------------------------------------------------------------------ exact forms


@pytest.mark.parametrize("name", EXAMPLES)
def test_exact_and_float_agree(name: str) -> None:
    """Every step has an exact form that evaluates to the float pass's numbers; in moe-mixtral.toml (four
    tokens over four experts) the loss's form, a sum of four fractions of four exponentials each, grows
    past the exact budget, which the derivation says in a note (the loss is then computed in floats)."""
    ex, fl = solve_file(name), solve_file(name, exact=False)
    assert ex.step_ids == fl.step_ids
    for s in ex.steps:
        if s.id == "load_balancing_loss" and name == "moe-mixtral.toml":
            assert s.exact is None and any("Exact forms stop at 'load_balancing_loss'" in n for n in ex.notes)
            continue
        assert s.exact is not None, s.id
        values = np.vectorize(lambda e: float(e.evalf(30)), otypes=[float])(np.asarray(s.exact, dtype=object))
        np.testing.assert_allclose(values, fl[s.id], atol=1e-12, err_msg=s.id)


def test_exact_forms_by_hand() -> None:
    """The spec's example: token 1's logits [1, 0, −1] give p = [e², e, 1] / (1 + e + e²); its top 2 are
    experts 1 and 2, and the renormalised gates e² / (e² + e) = e / (1 + e) and 1 / (1 + e). Token 1's
    fraction: experts 1, 2, 3 are chosen 2, 3, 1 times of six: f = [2/3, 1, 1/3]."""
    import sympy as sp

    d = solve_raw(_case(CASES[0]))
    exact = {s.id: s.exact for s in d.steps}
    e = sp.E
    assert sp.simplify(exact["probabilities"][0, 0] - e**2 / (1 + e + e**2)) == 0
    assert sp.simplify(exact["gates"][0, 0] - e / (1 + e)) == 0
    assert sp.simplify(exact["gates"][0, 1] - 1 / (1 + e)) == 0
    assert [sp.nsimplify(x) for x in exact["fraction"]] == [sp.Rational(2, 3), 1, sp.Rational(1, 3)]
    # the ties of tokens 2 and 3 go to the lower number: 2 before 3, then 1 before 2
    np.testing.assert_array_equal(d["top_k"], [[1, 2], [2, 3], [1, 2]])


# ------------------------------------------------------------------ capacity


def test_a_dropped_assignment_is_shown_but_not_summed() -> None:
    """moe-switch.toml by hand: capacity ⌈1 · 4 · 1 / 2⌉ = 2; tokens 1, 3, 4 pick expert 1 (logits
    [1, −1], [1, 0], [2, −1]), token 2 expert 2: token 4 is expert 1's third and is dropped. Its expert
    output x_4 · W_1 = [2, 1] · [[1, 2], [0, 1]] = [2, 5] is still shown; its output is 0; the fraction
    still counts it (f_1 = 3/4)."""
    d = solve_file("moe-switch.toml")
    assert d["capacity"] == 2
    np.testing.assert_array_equal(d["kept"], [[1], [1], [1], [0]])
    np.testing.assert_allclose(d["expert_outputs"][3], [[2, 5]], atol=1e-12)
    np.testing.assert_allclose(d["output"][3], [0, 0], atol=1e-12)
    np.testing.assert_allclose(d["fraction"], [0.75, 0.25], atol=1e-12)


def test_capacity_is_rounded_up_exactly() -> None:
    """1.25 · 3 · 2 / 3 = 2.5 exactly: the capacity is 3 (a float product might land either side)."""
    g = {**CASES[0], "capacity_factor": 1.25}
    assert solve_raw(_case(g))["capacity"] == 3
    g = {**CASES[0], "capacity_factor": 0.1}  # ⌈0.2⌉ = 1: every expert takes one assignment at least
    assert solve_raw(_case(g))["capacity"] == 1


# ------------------------------------------------------------------ the views


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "latex", "html"])
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_format_renders(fmt: str, name: str, cli: Any) -> None:
    r = cli("solve", str(PROBLEMS / name), "--format", fmt)
    assert r.exit_code == 0, r.output
    for sid in ("probabilities", "top_k", "gates", "expert_outputs", "mean_probability", "load_balancing_loss"):
        assert sid.replace("_", r"\_") in r.stdout or sid in r.stdout, (fmt, sid)
    if fmt == "text":
        assert max(len(line) for line in r.stdout.splitlines()) <= 80
        if name == "moe-switch.toml":  # an entry of three axes keeps its three indices: x_2 · W_2, column 2
            assert "y[2,1,2] = 0·0 + 1·1 = 1" in r.stdout


def test_json_integers_and_labels(cli: Any) -> None:
    doc = json.loads(cli("solve", str(PROBLEMS / "moe-switch.toml"), "--format", "json").stdout)
    steps = {s["id"]: s for s in doc["steps"]}
    assert steps["top_k"]["value"] == [[1], [2], [1], [1]]
    assert steps["kept"]["value"] == [[1], [1], [1], [0]]
    assert steps["capacity"]["value"] == 2
    for sid in ("top_k", "kept", "capacity"):
        flat = np.ravel(steps[sid]["value"]).tolist()
        assert all(type(x) is int for x in flat), sid
    tokens = ["we", "like", "to", "route"]
    assert steps["logits"]["labels"] == {"rows": tokens, "columns": ["expert 1", "expert 2"]}
    assert steps["gates"]["labels"] == {"rows": tokens}
    assert steps["fraction"]["labels"] == ["expert 1", "expert 2"]
    assert np.shape(steps["expert_outputs"]["value"]) == (4, 1, 2)
    # three axes, three labels: token, choice, output column; and the expert each choice went to (by hand:
    # logits [1, −1], [0, 1], [1, 0], [2, −1] pick experts 1, 2, 1, 1)
    assert steps["expert_outputs"]["labels"] == {
        "rows": tokens,
        "columns": ["choice 1"],
        "depth": ["1", "2"],
        "cells": [["expert 1"], ["expert 2"], ["expert 1"], ["expert 1"]],
    }


def test_json_labels_of_the_expert_outputs_follow_the_routing(cli: Any) -> None:
    """Mixtral's example, top 2: the cells name the experts the numpy router above chooses, in rank order,
    and every label list is as long as its axis."""
    doc = json.loads(cli("solve", str(PROBLEMS / "moe-mixtral.toml"), "--format", "json").stdout)
    step = next(s for s in doc["steps"] if s["id"] == "expert_outputs")
    labels, top = step["labels"], router(_given("moe-mixtral.toml"))["top_k"]
    n, k, d_out = np.shape(step["value"])
    assert labels["rows"] == ["the", "cat", "sat", "down"] and len(labels["rows"]) == n
    assert labels["columns"] == ["choice 1", "choice 2"] and k == 2
    assert labels["depth"] == [str(j + 1) for j in range(d_out)]
    assert labels["cells"] == [[f"expert {e}" for e in row] for row in top.tolist()]


def test_the_header_says_the_choices(cli: Any) -> None:
    r = cli("solve", str(PROBLEMS / "moe-switch.toml"))
    assert "moe · 4 tokens · 2 experts · top-1 · gates = p · capacity factor 1" in r.stdout


# ------------------------------------------------------------------ bad input: one line naming the key

GOOD = {"X": [[1, 0], [0, 1]], "W_router": [[1, 0], [0, 1]], "experts": [I2, I2], "top_k": 1}


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"top_k": 3}, "given.top_k", "at most E"),
        ({"top_k": 0}, "given.top_k", ""),
        ({"top_k": None}, "given.top_k", "missing"),
        ({"W_router": [[1], [0]], "experts": [I2]}, "given.W_router", "at least 2 experts"),
        ({"experts": [I2, I2, I2]}, "given.experts", "E = 2"),
        ({"experts": [I2, [[1, 0, 0], [0, 1, 0]]]}, "given.experts", "matrix 2 is 2×3"),
        ({"experts": [[[1, 0]], [[0, 1]]]}, "given.experts", "d = 2"),
        ({"experts": [[1, 0], [0, 1]]}, "given.experts[1]", "a vector"),
        ({"experts": 3}, "given.experts", "list of matrices"),
        ({"capacity_factor": 0}, "given.capacity_factor", "above 0"),
        ({"capacity_factor": -1}, "given.capacity_factor", "above 0"),
        ({"renormalize": "yes"}, "given.renormalize", ""),
        ({"margin": 1}, "given.margin", ""),
    ],
)
def test_bad_input_names_the_key(change: dict[str, Any], key: str, words: str) -> None:
    g = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(ProblemError) as e:
        parse_problem(_case(g), "bad.toml")
    assert e.value.key == key, str(e.value)
    assert words in str(e.value), str(e.value)


def test_tokens_must_label_every_row() -> None:
    with pytest.raises(ProblemError) as e:
        parse_problem(_case(GOOD, tokens=["a", "b", "c"]), "bad.toml")
    assert e.value.key == "tokens"


def test_a_bad_file_is_one_line_with_exit_2(cli: Any, tmp_path: Any) -> None:
    from ..helpers import one_line_refusal

    f = tmp_path / "bad.toml"
    f.write_text(
        'kind = "moe"\n[given]\nX = [[1, 0]]\nW_router = [[1, 0], [0, 1]]\nexperts = [[[1]], [[1]]]\ntop_k = 1\n'
    )
    one_line_refusal(cli("solve", str(f)), "bad.toml", "given.experts")


def test_settings_it_does_not_take_are_refused() -> None:
    for key, value in (("shift_max", "always"), ("temperature", 2), ("convention", "row")):
        raw = {**_case(GOOD), "settings": {key: value}}
        with pytest.raises(ProblemError) as e:
            parse_problem(raw, "bad.toml")
        assert e.value.key == f"settings.{key}"


def test_an_entry_of_three_axes_is_typeset_with_its_three_indices() -> None:
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("y[2,1,2]") == "y_{2,1,2}" and to_tex("z[1,2]") == "z_{1,2}"
    assert to_html("y[2,1,2]") == "<i>y</i><sub>2,1,2</sub>"


# ------------------------------------------------------------------ homework


def test_generated_variants_stand_apart_where_the_top_k_is_decided() -> None:
    """Every drawn variant's decisive probabilities (the chosen experts' order, the k-th against the
    next) are at least two units of the last decimal apart, by the numpy router, and --top-k is kept."""
    from attncalc.homework.generate import Options, generate

    for k in (1, 2):
        res = generate(Options(kind="moe", tokens=4, count=4, seed=11, top_k=k))
        for raw in res.problems:
            g = raw["given"]
            assert g["top_k"] == k and g.get("renormalize", True) == (k == 2)
            P = router(g)["probabilities"]
            for row in P:
                gaps = -np.diff(np.sort(row)[::-1])[:k]
                assert np.all(gaps >= 2e-3), row


def test_a_quiz_shares_one_shape() -> None:
    """one_shape (an LMS quiz): every variant has the same number of experts, top_k and capacity."""
    from attncalc.homework.generate import Options, generate

    for seed in (0, 3):
        res = generate(Options(kind="moe", tokens=3, count=5, seed=seed, one_shape=True))
        shapes = {
            (len(r["given"]["W_router"][0]), r["given"]["top_k"], "capacity_factor" in r["given"]) for r in res.problems
        }
        assert len(shapes) == 1, shapes


def test_top_k_beyond_two_is_refused_for_homework() -> None:
    from attncalc.homework.generate import Options, generate

    with pytest.raises(ProblemError) as e:
        generate(Options(kind="moe", top_k=3))
    assert e.value.key == "--top-k"


# ------------------------------------------------------------------ notation and ties
def test_the_capacitys_ceiling_and_the_chosen_experts_subscripts_typeset() -> None:
    """C = ⌈capacity_factor · n · top_k / E⌉ is a ceiling: \\lceil … \\rceil in LaTeX and Markdown, the
    characters ⌈ ⌉ in HTML, never [ ] (switch: ⌈1 · 4 · 1 / 2⌉ = 2). Token i's probability of its r-th
    expert is one subscript pair (i, k_ir), not three indices i, k, ir."""
    from attncalc.render.writers import render

    switch, mixtral = solve_file("moe-switch.toml"), solve_file("moe-mixtral.toml")
    for fmt in ("latex", "markdown"):
        text = render([switch], fmt, "solution")
        assert r"C = \lceil 1 \cdot  4 \cdot  1 / 2\rceil  = 2" in text, fmt
        assert "[1 \\cdot" not in text and r"\text{capacity\_factor}" in text
        text = render([mixtral], fmt, "solution")
        assert r"p_{(i, k_{ir})}" in text and r"W_{(k_{ir})}" in text, fmt
        assert "k,ir" not in text and "k,is" not in text
    page = render([switch], "html", "solution")
    assert "⌈1 · 4 · 1 / 2⌉ = 2" in page and "capacity_factor" in page and "capacity<sub>" not in page
    page = render([mixtral], "html", "solution")
    assert "<i>p</i><sub>(<i>i</i>, <i>k</i><sub>ir</sub>)</sub>" in page


TIED = {
    "X": [[1, 0], [0, 1]],
    # token 1's logits [0, 1, 1]: experts 2 and 3 tie for the top 1; token 2's [2, 0, 1]: no tie
    "W_router": [[0, 1, 1], [2, 0, 1]],
    "experts": [[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[2, 0], [0, -1]]],
    "top_k": 1,
}


def test_a_tie_at_the_top_k_boundary_is_noted() -> None:
    """Token 1's probabilities, by hand: e^0, e^1, e^1 over 1 + 2e: experts 2 and 3 tie at
    e / (1 + 2e) = 0.422319 (numpy below), and the tie goes to the lower number, 2; the top_k step says
    so and that torch.topk may choose otherwise. No tie, no note (the examples)."""
    p = np.exp([0.0, 1.0, 1.0]) / np.exp([0.0, 1.0, 1.0]).sum()
    assert p[1] == p[2] and abs(p[1] - math.e / (1 + 2 * math.e)) < 1e-15
    for exact in (False, True):
        d = solve_raw(_case(TIED, ["the", "cat"]), exact=exact)
        assert np.asarray(d["top_k"], dtype=float).ravel().tolist() == [2, 1]
        note = d.step("top_k").note
        assert "token 1 (the): experts 2, 3 tie at p = 0.422319, expert 2 taken" in note, note
        assert "torch.topk" in note and "token 2" not in note
    two = solve_raw(_case({**TIED, "top_k": 2}), exact=False)  # experts 2 and 3 are both taken: no choice made
    assert not two.step("top_k").note
    for name in EXAMPLES:
        assert not solve_file(name).step("top_k").note


def test_the_loss_at_an_even_spread_is_not_its_least_value() -> None:
    """E = 2, top_k = 1, logits [0.1, 0], [0.1, 0], [0, 5] (X the logits, W_router = I): two tokens choose
    expert 1, one expert 2, so f = [2/3, 1/3] (Σ f = top_k, as Hugging Face counts); P is the mean of the
    softmax rows. E · Σ f · P is below top_k = 1, the value an even spread gives: the step's explanation
    does not call top_k · aux_coef the smallest loss."""
    Z = np.array([[0.1, 0.0], [0.1, 0.0], [0.0, 5.0]])
    probs = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    f = np.array([2 / 3, 1 / 3])
    loss = 2 * float(f @ probs.mean(axis=0))
    assert loss < 1
    g = {"X": Z.tolist(), "W_router": I2, "experts": [I2, I2], "top_k": 1}
    d = solve_raw(_case(g), exact=False)
    np.testing.assert_allclose(d.step("fraction").value, f)
    step = d.step("load_balancing_loss")
    assert float(step.value) == pytest.approx(loss, rel=1e-12)
    assert "smallest" not in step.explain and "not bounded below" in step.explain


def test_the_guide_counts_the_fractions_as_the_code_does() -> None:
    """docs/guide/kinds.md: f_i over the n tokens, adding up to top_k (the Mixtral example's fractions
    [1, 1/2, 0, 1/2] add up to its top_k = 2), and no claim that an even spread is the least loss."""
    from ..helpers import ROOT

    d = solve_file("moe-mixtral.toml", exact=False)
    assert float(np.sum(d.step("fraction").value)) == pytest.approx(2.0)
    guide = " ".join((ROOT / "docs" / "guide" / "kinds.md").read_text(encoding="utf-8").split())
    moe = guide.split("## Mixture-of-experts routing")[1].split("## ")[0]
    assert "Σ f_i = top_k" in moe and "that is not its least value" in moe
    assert "smallest" not in moe


def test_the_top_k_item_asks_expert_numbers_and_the_fraction_says_what_it_counts() -> None:
    """The LMS asked the chosen experts with "Give a count (a whole number)"; f_e did not say whether an
    assignment dropped by the capacity counts (it does, as Hugging Face's load_balancing_loss_func counts
    every top-k choice)."""
    from attncalc.homework.generate import Options, generate
    from attncalc.render.asked import asks_sentence

    d = generate(Options(kind="moe", seed=4, count=1)).derivations[0]
    top_k = next(s for s in d.steps if s.id == "top_k")
    assert asks_sentence(top_k, d) == "Give expert numbers (whole numbers, the first expert 1)."
    fraction = next(s for s in d.steps if s.id == "fraction")
    assert "dropped" in fraction.formula
