"""Kind contrastive: InfoNCE (van den Oord et al. 2018) and CLIP's symmetric loss (Radford et al. 2021).

Oracles, none of them attncalc's: F.normalize and F.cross_entropy on the logits and on their transpose
(CLIP's symmetric loss) in float64; a numpy formula written here from the papers; CLIP's Figure 3
pseudocode run on a small typed-in example whose every number was recomputed by hand; exact sympy forms
against the float pass."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, one_line_refusal, solve_file, solve_raw

TOL = 1e-9
EXAMPLES = ["contrastive-clip.toml", "contrastive-infonce.toml"]


def reference(Q: Any, K: Any, tau: float, normalize: bool = True, symmetric: bool = True) -> dict[str, Any]:
    """Every step from the definitions, in numpy: rows over their lengths, S = Q Kᵀ, Z = S / τ, the
    softmax exp(z_j) / Σ_k exp(z_k) of each row (and of each column), −ln of the diagonal, the means."""
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    out: dict[str, Any] = {}
    if normalize:
        out["query_norms"] = np.sqrt((Q**2).sum(axis=1))
        out["key_norms"] = np.sqrt((K**2).sum(axis=1))
        Q = out["normalized_queries"] = Q / out["query_norms"][:, None]
        K = out["normalized_keys"] = K / out["key_norms"][:, None]
    S = out["similarities"] = Q @ K.T
    Z = out["logits"] = S / tau
    e = np.exp(Z)
    P = out["row_probabilities"] = e / e.sum(axis=1, keepdims=True)
    out["row_losses"] = -np.log(np.diag(P))
    out["row_loss"] = out["row_losses"].mean()
    out["loss"] = out["row_loss"]
    if symmetric:
        C = out["column_probabilities"] = (e / e.sum(axis=0, keepdims=True)).T
        out["column_losses"] = -np.log(np.diag(C))
        out["column_loss"] = out["column_losses"].mean()
        out["loss"] = (out["row_loss"] + out["column_loss"]) / 2
    return out


def _given(name: str) -> dict[str, Any]:
    import tomllib

    return dict(tomllib.loads((PROBLEMS / name).read_text())["given"])


def _case(g: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "contrastive", "given": g}


CASES = [
    {"queries": [[1, 0], [0.6, 0.8], [0, 1]], "keys": [[0.8, 0.6], [1, 0], [0, 1]], "temperature": 0.5},
    {"queries": [[1, 2, -1], [0.5, 0, 2], [3, 1, 1], [-1, 1, 0]], "keys": [[2, 1, 0], [0, -1, 1], [1, 1, 1], [-2, 0.5, 1]],
     "temperature": 0.07},
    {"queries": [[1, -2], [3, 0.5]], "keys": [[0.5, 1], [-1, 2]], "temperature": 2, "normalize": False},
    {"queries": [[2, 1], [1, 3], [0, 1]], "keys": [[1, 1], [2, -1], [0.5, 0.5]], "temperature": 1, "symmetric": False},
    {"queries": [[1, 1]], "keys": [[2, 0]], "temperature": 0.3},
]  # fmt: skip


def _flags(g: dict[str, Any]) -> tuple[bool, bool]:
    return bool(g.get("normalize", True)), bool(g.get("symmetric", True))


@pytest.mark.parametrize("g", [*CASES, *(_given(n) for n in EXAMPLES)], ids=lambda g: str(len(g["queries"])))
@pytest.mark.parametrize("exact", [False, True])
def test_every_step_agrees_with_torch(g: dict[str, Any], exact: bool) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")
    F = torch.nn.functional
    normalize, symmetric = _flags(g)
    d = solve_raw(_case(g), exact=exact)
    Q = torch.tensor(g["queries"], dtype=torch.float64)
    K = torch.tensor(g["keys"], dtype=torch.float64)
    if normalize:
        np.testing.assert_allclose(d["query_norms"], torch.linalg.vector_norm(Q, dim=1).numpy(), atol=TOL)
        np.testing.assert_allclose(d["key_norms"], torch.linalg.vector_norm(K, dim=1).numpy(), atol=TOL)
        Q, K = F.normalize(Q, dim=1), F.normalize(K, dim=1)
        np.testing.assert_allclose(d["normalized_queries"], Q.numpy(), atol=TOL)
        np.testing.assert_allclose(d["normalized_keys"], K.numpy(), atol=TOL)
    else:
        assert "query_norms" not in d and "normalized_keys" not in d
    logits = Q @ K.T / g["temperature"]
    labels = torch.arange(len(g["queries"]))
    np.testing.assert_allclose(d["similarities"], (Q @ K.T).numpy(), atol=TOL)
    np.testing.assert_allclose(d["logits"], logits.numpy(), atol=TOL)
    np.testing.assert_allclose(d["row_probabilities"], torch.softmax(logits, dim=1).numpy(), atol=TOL)
    rows = F.cross_entropy(logits, labels, reduction="none")
    np.testing.assert_allclose(d["row_losses"], rows.numpy(), atol=TOL)
    np.testing.assert_allclose(d["row_loss"], F.cross_entropy(logits, labels).item(), atol=TOL)
    if symmetric:
        np.testing.assert_allclose(d["column_probabilities"], torch.softmax(logits.T, dim=1).numpy(), atol=TOL)
        cols = F.cross_entropy(logits.T, labels, reduction="none")
        np.testing.assert_allclose(d["column_losses"], cols.numpy(), atol=TOL)
        np.testing.assert_allclose(d["column_loss"], F.cross_entropy(logits.T, labels).item(), atol=TOL)
        clip = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
        np.testing.assert_allclose(d["loss"], clip.item(), atol=TOL)
    else:
        assert "column_probabilities" not in d
        np.testing.assert_allclose(d["loss"], F.cross_entropy(logits, labels).item(), atol=TOL)


@pytest.mark.parametrize("g", [*CASES, *(_given(n) for n in EXAMPLES)], ids=lambda g: str(len(g["queries"])))
def test_every_step_agrees_with_the_numpy_formula(g: dict[str, Any]) -> None:
    normalize, symmetric = _flags(g)
    ref = reference(g["queries"], g["keys"], g["temperature"], normalize, symmetric)
    d = solve_raw(_case(g), exact=False)
    assert set(d.step_ids) == set(ref)
    for k, v in ref.items():
        np.testing.assert_allclose(d[k], v, atol=TOL, err_msg=k)


# ------------------------------------------------------------------ CLIP's Figure 3, typed in


def clip_figure_3(I_f: np.ndarray, T_f: np.ndarray, W_i: np.ndarray, W_t: np.ndarray, t: float) -> dict[str, Any]:
    """Radford et al. (2021), Figure 3, line by line (t: the learned log-temperature; logits × exp(t))."""

    def l2_normalize(x: np.ndarray, axis: int) -> np.ndarray:
        return x / np.linalg.norm(x, axis=axis, keepdims=True)

    def cross_entropy_loss(logits: np.ndarray, labels: np.ndarray, axis: int) -> float:
        # axis=0: each row is a softmax over the texts (the image's loss); axis=1: down each column
        z = logits if axis == 0 else logits.T
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-logp[np.arange(len(labels)), labels].mean())

    I_e = l2_normalize(np.dot(I_f, W_i), axis=1)
    T_e = l2_normalize(np.dot(T_f, W_t), axis=1)
    logits = np.dot(I_e, T_e.T) * np.exp(t)
    labels = np.arange(len(I_f))
    loss_i = cross_entropy_loss(logits, labels, axis=0)
    loss_t = cross_entropy_loss(logits, labels, axis=1)
    return {"I_e": I_e, "T_e": T_e, "logits": logits, "loss_i": loss_i, "loss_t": loss_t, "loss": (loss_i + loss_t) / 2}


# Two pairs, the projections W_i = W_t = identity and t = ln 2 (τ = 1/exp(t) = 0.5), by hand:
#   I_e = [3, 4] / 5, [0, 1] / 1 = [0.6, 0.8], [0, 1];  T_e = [1, 0] / 1, [0, 3] / 3 = [1, 0], [0, 1]
#   S = [[0.6, 0.8], [0, 1]], logits = 2 S = [[1.2, 1.6], [0, 2]]
#   rows:    −ln(e^1.2 / (e^1.2 + e^1.6)) = ln(1 + e^0.4) = 0.9130153,  −ln(e² / (1 + e²)) = ln(1 + e^−2) = 0.1269280
#   columns: −ln(e^1.2 / (e^1.2 + 1)) = ln(1 + e^−1.2) = 0.2632825,  −ln(e² / (e^1.6 + e²)) = ln(1 + e^−0.4) = 0.5130153
#   loss_i = 1.0399433 / 2 = 0.5199716, loss_t = 0.7762977 / 2 = 0.3881489, loss = 0.4540602
BY_HAND = {
    "similarities": [[0.6, 0.8], [0.0, 1.0]],
    "logits": [[1.2, 1.6], [0.0, 2.0]],
    "row_probabilities": [[0.4013123, 0.5986877], [0.1192029, 0.8807971]],
    "row_losses": [0.9130153, 0.1269280],
    "row_loss": 0.5199716,
    "column_probabilities": [[0.7685248, 0.2314752], [0.4013123, 0.5986877]],
    "column_losses": [0.2632825, 0.5130153],
    "column_loss": 0.3881489,
    "loss": 0.4540602,
}


def test_clip_figure_3_on_a_typed_in_example() -> None:
    I_f, T_f = np.array([[3.0, 4.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 3.0]])
    fig = clip_figure_3(I_f, T_f, np.eye(2), np.eye(2), math.log(2))
    # the pseudocode gives the numbers worked by hand
    np.testing.assert_allclose(fig["logits"], BY_HAND["logits"], atol=1e-12)
    for ours, theirs in (("row_loss", "loss_i"), ("column_loss", "loss_t"), ("loss", "loss")):
        assert fig[theirs] == pytest.approx(BY_HAND[ours], abs=1e-7)
    d = solve_raw(_case({"queries": I_f.tolist(), "keys": T_f.tolist(), "temperature": 0.5}))
    np.testing.assert_allclose(d["normalized_queries"], fig["I_e"], atol=TOL)
    np.testing.assert_allclose(d["normalized_keys"], fig["T_e"], atol=TOL)
    for k, v in BY_HAND.items():
        np.testing.assert_allclose(d[k], v, atol=1e-7, err_msg=k)
    assert d["row_loss"] == pytest.approx(fig["loss_i"], abs=TOL)
    assert d["column_loss"] == pytest.approx(fig["loss_t"], abs=TOL)
    assert d["loss"] == pytest.approx(fig["loss"], abs=TOL)


# ------------------------------------------------------------------ exact forms


@pytest.mark.parametrize("name", EXAMPLES)
def test_exact_and_float_agree(name: str) -> None:
    """Every step has an exact form (small inputs), and it evaluates to the float pass's numbers."""
    ex, fl = solve_file(name), solve_file(name, exact=False)
    assert ex.step_ids == fl.step_ids
    for s in ex.steps:
        assert s.exact is not None, s.id
        values = np.vectorize(lambda e: float(e.evalf(30)), otypes=[float])(np.asarray(s.exact, dtype=object))
        np.testing.assert_allclose(values, fl[s.id], atol=1e-12, err_msg=s.id)
        np.testing.assert_allclose(ex[s.id], fl[s.id], atol=1e-12, err_msg=s.id)


def test_exact_forms_by_hand() -> None:
    """contrastive-clip.toml: ‖(3, 4)‖ = 5 and ‖(−1, 1)‖ = √2. q̃_1 = (0.6, 0.8) against k̃ = (0.6, 0.8),
    (0.8, −0.6), (−1, 1)/√2 gives S_1 = [1, 0, 0.2/√2], so Z_1 = [2, 0, √2/5]; q̃_3 = (0, 1) gives
    S_33 = 1/√2 and Z_33 = √2; the first row's loss is −ln(e² / (e² + 1 + e^(√2/5)))."""
    import sympy as sp

    d = solve_file("contrastive-clip.toml")
    exact = {s.id: s.exact for s in d.steps}
    assert list(exact["query_norms"]) == [5, 1, 2]
    assert sp.simplify(exact["key_norms"][2] - sp.sqrt(2)) == 0
    Z = exact["logits"]
    assert sp.simplify(Z[2, 2] - sp.sqrt(2)) == 0
    assert sp.simplify(Z[0, 0] - 2) == 0 and sp.simplify(Z[0, 1]) == 0
    assert sp.simplify(Z[0, 2] - sp.sqrt(2) / 5) == 0  # (0.6·(−1) + 0.8·1)/√2 / 0.5 = 0.4/√2 = √2/5
    l1 = sp.log(1 + sp.exp(-2) + sp.exp(sp.sqrt(2) / 5 - 2))  # −ln(e² / (e² + e⁰ + e^(√2/5)))
    assert abs(float(sp.N(exact["row_losses"][0] - l1, 30))) < 1e-25


# ------------------------------------------------------------------ the views


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "latex", "html"])
def test_every_format_renders(fmt: str, cli: Any) -> None:
    run = cli
    r = run("solve", str(PROBLEMS / "contrastive-clip.toml"), "--format", fmt)
    assert r.exit_code == 0, r.output
    out = r.stdout
    for sid in ("normalized_keys", "row_probabilities", "column_losses", "loss"):
        assert sid.replace("_", r"\_") in out or sid in out, (fmt, sid)
    if fmt == "text":
        widths = [len(line) for line in out.splitlines()]
        assert max(widths) <= 80, max(widths)


def test_json_lists_values_as_lists(cli: Any) -> None:
    import json

    r = cli("solve", str(PROBLEMS / "contrastive-clip.toml"), "--format", "json")
    doc = json.loads(r.stdout)
    steps = {s["id"]: s for s in doc["steps"]}
    assert np.shape(steps["row_probabilities"]["value"]) == (3, 3)
    assert np.shape(steps["column_losses"]["value"]) == (3,)
    assert isinstance(steps["loss"]["value"], float)
    g = _given("contrastive-clip.toml")
    ref = reference(g["queries"], g["keys"], g["temperature"])
    assert steps["loss"]["value"] == pytest.approx(ref["loss"], abs=TOL)


def test_the_hand_chain_rounds_and_carries() -> None:
    """--carry: the row loss is the mean of the rounded row losses, each −ln of a rounded probability."""
    d = solve_file("contrastive-clip.toml", carry_rounded=True)
    P = np.asarray(d.step("row_probabilities").shown, dtype=float)
    losses = [round(-math.log(P[i, i]), 3) for i in range(3)]
    assert np.asarray(d.step("row_losses").shown, dtype=float).tolist() == pytest.approx(losses, abs=1e-12)
    assert float(d.step("row_loss").shown) == pytest.approx(round(sum(losses) / 3, 3), abs=1e-12)


def test_the_header_says_the_choices(cli: Any) -> None:
    d = solve_file("contrastive-infonce.toml")
    r = cli("solve", str(PROBLEMS / "contrastive-infonce.toml"))
    assert "τ = 2" in r.stdout and "rows as given" in r.stdout and "InfoNCE" in r.stdout
    assert d.step_ids[-1] == "loss" and "column_loss" not in d.step_ids


# ------------------------------------------------------------------ bad input: one line naming the key

GOOD = {"queries": [[1, 0], [0, 1]], "keys": [[1, 1], [0, 2]], "temperature": 0.5}


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"temperature": 0}, "given.temperature", "greater than 0"),
        ({"temperature": -1}, "given.temperature", "greater than 0"),
        ({"temperature": None}, "given.temperature", "missing"),
        ({"keys": [[1, 1], [0, 2], [1, 0]]}, "given.keys", "N = 2"),
        ({"keys": [[1, 1, 0], [0, 2, 1]]}, "given.keys", "d = 2"),
        ({"queries": [[1, 0], [0, 0]]}, "given.queries", "row 2 is all zeros"),
        ({"keys": [[0, 0], [0, 2]]}, "given.keys", "row 1 is all zeros"),
        ({"normalize": "yes"}, "given.normalize", ""),
        ({"margin": 1}, "given.margin", ""),
    ],
)
def test_bad_input_names_the_key(change: dict[str, Any], key: str, words: str) -> None:
    g = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(ProblemError) as e:
        parse_problem(_case(g), "bad.toml")
    assert e.value.key == key, str(e.value)
    assert words in str(e.value), str(e.value)


def test_a_zero_row_is_fine_without_normalisation() -> None:
    d = solve_raw(_case({**GOOD, "queries": [[1, 0], [0, 0]], "normalize": False}), exact=False)
    ref = reference([[1, 0], [0, 0]], GOOD["keys"], 0.5, normalize=False)
    np.testing.assert_allclose(d["loss"], ref["loss"], atol=TOL)


def test_settings_it_does_not_take_are_refused() -> None:
    for key, value in (("shift_max", "always"), ("temperature", 2), ("convention", "row")):
        raw = {**_case(GOOD), "settings": {key: value}}
        with pytest.raises(ProblemError) as e:
            parse_problem(raw, "bad.toml")
        assert e.value.key == f"settings.{key}"


def test_the_command_line_refuses_with_one_line(tmp_path: Any, cli: Any) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('kind = "contrastive"\n[given]\nqueries = [[1, 0]]\nkeys = [[1, 0]]\ntemperature = 0\n')
    r = cli("solve", str(f))
    one_line_refusal(r, "bad.toml", "given.temperature")


# ------------------------------------------------------------------ the LMS export


def test_the_moodle_export_asks_every_entry_with_the_numbers_of_the_formula(cli: Any, tmp_path: Any) -> None:
    """One numerical question per entry of every step, each question showing Q, K and τ; the answers
    are the numpy formula's numbers rounded to the decimals asked (QTI: tests/exports/test_qti.py's RUNS)."""
    import tomllib
    import xml.etree.ElementTree as ET

    r = cli(
        "generate", "--kind", "contrastive", "--count", "1", "--seed", "4", "--format", "moodle", "--out", str(tmp_path)
    )
    assert r.exit_code == 0, r.output
    raw = tomllib.loads((tmp_path / "variant-01.toml").read_text())
    g, decimals = raw["given"], raw["settings"]["decimals"]
    ref = reference(g["queries"], g["keys"], g["temperature"])
    want = sorted(round(float(x), decimals) for v in ref.values() for x in np.ravel(v))
    questions = [
        q for q in ET.parse(tmp_path / "quiz.xml").getroot().findall("question") if q.get("type") == "numerical"
    ]
    got = sorted(float(q.findtext("answer/text") or "nan") for q in questions)
    np.testing.assert_allclose(got, want, atol=0.6 * 10.0**-decimals)
    for q in questions:
        text = q.findtext("questiontext/text") or ""
        assert 'title="queries"' in text and 'title="keys"' in text and "τ: the temperature" in text


def test_logits_far_apart_give_finite_losses() -> None:
    """τ = 10⁻⁴: a positive pair's probability underflows to 0 in floats, but its loss is finite
    (logsumexp(z_i) − z_ii), as F.cross_entropy gives it."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")
    F = torch.nn.functional
    g = {"queries": [[1, 0], [0.6, 0.8]], "keys": [[0.8, 0.6], [1, 0]], "temperature": 1e-4}
    d = solve_raw(_case(g), exact=False)
    Q = F.normalize(torch.tensor(g["queries"], dtype=torch.float64), dim=1)
    K = F.normalize(torch.tensor(g["keys"], dtype=torch.float64), dim=1)
    logits, labels = Q @ K.T / 1e-4, torch.arange(2)
    assert float(np.min(d["row_probabilities"])) == 0.0  # the underflow this is about
    np.testing.assert_allclose(d["row_losses"], F.cross_entropy(logits, labels, reduction="none").numpy(), rtol=1e-9)
    np.testing.assert_allclose(
        d["column_losses"], F.cross_entropy(logits.T, labels, reduction="none").numpy(), rtol=1e-9
    )
    clip = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
    assert d["loss"] == pytest.approx(clip.item(), rel=1e-9)
