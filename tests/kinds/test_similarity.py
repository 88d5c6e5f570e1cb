"""Kind similarity: values from one-line numpy formulas and exact sympy forms, every documented key,
the reference documents' verdicts, the named slips and bad input.

Expectations are written here independently of attncalc: numpy (a @ b, np.linalg.norm), sympy
square roots written out by hand, or numbers recomputed by hand in the comments.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

from attncalc.check import check
from attncalc.parse import parse_problem
from attncalc.render.json import to_dict

from ..helpers import json_of, solve_file, solve_raw
from ..render.test_render import text_of

TOL = 1e-9
A3 = [[0.8, 0.2], [0.7, 0.2], [0.2, 0.9]]


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def sim(measure: Any, given: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"kind": "similarity", "measure": measure, "given": given, **extra}


def cos_matrix(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return (A @ B.T) / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))


def dist_matrix(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.linalg.norm(A[:, None, :] - B[None, :, :], axis=-1)


# ------------------------------------------------------------------ values and keys


@pytest.mark.parametrize("exact", [True, False])
def test_rows_against_rows_every_measure(exact: bool) -> None:
    """measure as a list; A and B as rows: every step matches numpy, B's labels from labels_B."""
    rng = np.random.default_rng(7)
    A, B = np.round(rng.uniform(-2, 2, (3, 4)), 2), np.round(rng.uniform(-2, 2, (2, 4)), 2)
    d = solve_raw(
        sim(
            ["euclidean", "dot", "cosine"],
            {"A": A.tolist(), "B": B.tolist(), "labels_B": ["x", "y"]},
            tokens=["p", "q", "r"],
            settings={"exact": exact},
        )
    )
    assert d.step_ids == ["dots", "norms_A", "norms_B", "cosines", "differences", "distances"]
    assert np.allclose(val(d, "dots"), A @ B.T, rtol=0, atol=TOL)
    assert np.allclose(val(d, "norms_A"), np.linalg.norm(A, axis=1), rtol=0, atol=TOL)
    assert np.allclose(val(d, "norms_B"), np.linalg.norm(B, axis=1), rtol=0, atol=TOL)
    assert np.allclose(val(d, "cosines"), cos_matrix(A, B), rtol=0, atol=TOL)
    diffs = (A[:, None, :] - B[None, :, :]).reshape(6, 4)  # one row per pair (i, j), in order
    assert np.allclose(val(d, "differences"), diffs, rtol=0, atol=TOL)
    assert np.allclose(val(d, "distances"), dist_matrix(A, B), rtol=0, atol=TOL)
    text = text_of(d, 80)
    for entry in ("p·x = ", "r·y = ", "cos(p, x) = ", "cos(r, y) = ", "‖p − x‖ = ", "(p − x)_2 = "):
        assert entry in text, entry
    assert d.step("dots").rows == ("p", "q", "r") and d.step("dots").cols == ("x", "y")


def test_single_measure_and_default() -> None:
    """measure = "euclidean" alone computes no dot products; no measure at all means "dot"."""
    d = solve_raw(sim("euclidean", {"A": A3}))
    assert d.step_ids == ["norms_A", "differences", "distances"]  # B = A: no norms_B
    A = np.array(A3)
    assert np.allclose(val(d, "distances"), dist_matrix(A, A), rtol=0, atol=TOL)
    d = solve_raw({"kind": "similarity", "given": {"A": A3}})
    assert d.step_ids == ["dots"] and np.allclose(val(d, "dots"), A @ A.T, rtol=0, atol=TOL)


def test_two_flat_vectors_give_numbers() -> None:
    """a = [3, 4], b = [4, 3]: a·b = 24, ‖a‖ = ‖b‖ = 5, cos = 24/25, ‖a − b‖ = √2 (by hand)."""
    d = solve_raw(sim(["dot", "cosine", "euclidean"], {"A": [3, 4], "B": [4, 3]}))
    assert val(d, "dots").shape == () and float(val(d, "dots")) == 24
    assert float(val(d, "norms_A")) == 5 and float(val(d, "norms_B")) == 5
    assert d.step("cosines").exact[()] == sp.Rational(24, 25)
    assert d.step("distances").exact[()] == sp.sqrt(2)
    assert np.allclose(val(d, "differences"), [-1, 1])
    assert "a·b = 3·4 + 4·3 = 24" in text_of(d, 80)


def test_one_vector_against_rows() -> None:
    """A flat A against rows of B gives a vector with one entry per row of B."""
    a, B = np.array([1.0, 2, 2]), np.array([[2.0, 1, 2], [0, 0, 3]])
    d = solve_raw(sim(["cosine", "euclidean"], {"A": a.tolist(), "B": B.tolist()}))
    assert np.allclose(val(d, "cosines"), (B @ a) / (np.linalg.norm(B, axis=1) * np.linalg.norm(a)), atol=TOL)
    assert np.allclose(val(d, "distances"), np.linalg.norm(B - a, axis=1), atol=TOL)
    d = solve_raw(sim("dot", {"A": B.tolist(), "B": a.tolist()}))  # and rows of A against one b
    assert np.allclose(val(d, "dots"), B @ a, atol=TOL)


def test_exact_cosine_is_the_sympy_value() -> None:
    """cos(cat, sat) = 0.34 / (√0.68 √0.85) = √5/5 exactly, and the float value is it evaluated."""
    d = solve_file("lecture-embeddings.toml")
    cat, sat = [sp.Rational(8, 10), sp.Rational(2, 10)], [sp.Rational(2, 10), sp.Rational(9, 10)]
    dot = sum(x * y for x, y in zip(cat, sat, strict=True))
    want = dot / (sp.sqrt(sum(x**2 for x in cat)) * sp.sqrt(sum(y**2 for y in sat)))
    assert sp.simplify(d.step("cosines").exact[1] - want) == 0
    assert sp.simplify(want - sp.sqrt(5) / 5) == 0
    assert abs(float(val(d, "cosines")[1]) - float(want)) < 1e-15


def test_carry_rounds_the_dots_and_lengths_first() -> None:
    """--carry: cos(cat, sat) from 0.34 / (0.82 · 0.92) = 0.4507 → 0.45 at 2 decimals (by hand)."""
    d = solve_file("lecture-embeddings.toml", carry_rounded=True)
    shown = {s["id"]: s["shown"] for s in to_dict(d)["steps"]}
    assert shown["norms_A"] == "0.82" and shown["norms_B"] == ["0.73", "0.92"]
    assert shown["cosines"] == ["1", "0.45"]  # 0.6 / (0.82 · 0.73) = 1.0023 → 1.00, printed bare


def test_table_view_and_list(cli: Any) -> None:
    """Several rows: a table of every pair once (B = A); `list` shows the kind, measures and ids."""
    d = solve_raw(sim(["dot", "cosine"], {"A": A3}, tokens=["cat", "chat", "sat"]))
    text = text_of(d, 80)
    assert "Every pair" in text and "◀ most similar" in text
    row = next(line for line in text.splitlines() if "◀ most similar" in line)
    assert "cat" in row and "chat" in row  # cos(cat, chat) = 0.9994 is the largest off the diagonal
    assert all(len(line) <= 80 for line in text.splitlines())
    out = cli("list").stdout
    assert "similarity" in out and "euclidean" in out and "norms_B" in out and "differences" in out
    data = json_of(cli("list", "--format", "json"))
    assert data["step_ids"]["similarity"] == ["dots", "norms_A", "norms_B", "cosines", "differences", "distances"]
    assert set(data["measures"]) == {"dot", "cosine", "euclidean"}


def test_json_names_the_measures(cli: Any) -> None:
    data = json_of(cli("solve", "problems/lecture-embeddings.toml", "--format", "json"))
    assert data["kind"] == "similarity" and data["measures"] == ["dot", "cosine"]


# ------------------------------------------------------------------ the reference documents


def test_lecture_dot_products_are_right(cli: Any) -> None:
    """cat·chat = 0.56 + 0.04 = 0.60 and cat·sat = 0.16 + 0.18 = 0.34: the lecture is right."""
    d = solve_file("lecture-embeddings.toml")
    assert np.allclose(val(d, "dots"), [0.8 * 0.7 + 0.2 * 0.2, 0.8 * 0.2 + 0.2 * 0.9], atol=1e-12)
    result = cli("check", "--problems", "problems", "problems/answers/lecture-embeddings.toml", "--format", "json")
    assert result.exit_code == 0, result.output
    assert "cat·chat = 0.8·0.7 + 0.2·0.2 = 0.6" in text_of(d)


def test_lstm_document_cosines_are_slips(cli: Any) -> None:
    """sim(C, C′) is 1.000, not 0.98; sim(C, C″) is −0.215, not −0.87 (numpy, one line each)."""
    C = np.array([0.45, 0.71, 0.44, 0.74, 0.71, 1.20, 0.76, 1.12])
    C1 = np.array([0.44, 0.69, 0.43, 0.71, 0.69, 1.18, 0.74, 1.09])
    C2 = np.array([0.46, -0.72, 0.45, 0.75, 0.73, -1.21, 0.77, -1.10])
    want = [C @ X / (np.linalg.norm(C) * np.linalg.norm(X)) for X in (C1, C2)]
    d = solve_file("lstm-doc-sentences.toml")
    assert np.allclose(val(d, "cosines"), want, rtol=0, atol=TOL)
    assert [f"{w:.3f}" for w in want] == ["1.000", "-0.215"]
    result = cli("check", "--problems", "problems", "problems/answers/lstm-doc-sentences.toml", "--format", "json")
    assert result.exit_code == 1
    (step,) = json_of_any(result)["results"]
    assert step["id"] == "cosines" and step["verdict"] == "wrong"
    assert step["wrong_entries"] == [[0], [1]]
    # the values at the answers' own 2 decimals: 0.99997 is 1.00, −0.2152 is −0.22
    assert "cos(C, C′) = 5.092 / (2.286·2.228) = 1.00, not 0.98" in step["note"]
    assert "cos(C, C″) = -1.132 / (2.286·2.301) = -0.22, not -0.87" in step["note"]


def json_of_any(result: Any) -> dict[str, Any]:
    import json

    data: dict[str, Any] = json.loads(result.stdout)
    return data


# ------------------------------------------------------------------ named slips


def grade(raw: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    rep = check(parse_problem(raw, "p.toml"), answers, "a.toml")
    return {r.id: r for r in rep.results}


def r3(x: Any) -> Any:
    return np.vectorize(lambda v: Decimal(f"{v:.3f}"), otypes=[object])(np.asarray(x, dtype=float)).tolist()


A = np.array([[1.0, 2, 2], [3, 0, 4]])
B = np.array([[2.0, 1, 0], [1, 1, 1], [0, 3, 4]])
ROWS = sim(["cosine", "euclidean"], {"A": A.tolist(), "B": B.tolist()})


def test_slip_norm_without_the_root() -> None:
    """‖a‖² = Σ a_k² given as the lengths: named."""
    r = grade(ROWS, {"norms_A": r3((A * A).sum(axis=1))})["norms_A"]
    assert r.verdict == "wrong" and r.mistake == "norm_squared"
    assert "square root was left out" in r.note


def test_slip_cosine_divided_by_one_length() -> None:
    """a_i · b_j / ‖a_i‖ given as the cosines: named."""
    wrong = (A @ B.T) / np.linalg.norm(A, axis=1)[:, None]
    r = grade(ROWS, {"cosines": r3(wrong)})["cosines"]
    assert r.verdict == "wrong" and r.mistake == "cosine_one_norm"


def test_slip_squared_distance() -> None:
    """Σ (a_k − b_k)² given as the distances: named."""
    wrong = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)
    r = grade(ROWS, {"distances": r3(wrong)})["distances"]
    assert r.verdict == "wrong" and r.mistake == "distance_squared"


def test_right_answers_and_carried_cosines() -> None:
    """True values (numpy) are correct; cosines from a wrong length are carried, not wrong."""
    nA, nB = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    res = grade(ROWS, {"dots": r3(A @ B.T), "norms_B": r3(nB), "distances": r3(dist_matrix(A, B))})
    assert all(r.verdict == "correct" for r in res.values())
    bad_nA = nA + np.array([0.5, 0])
    res = grade(ROWS, {"norms_A": r3(bad_nA), "cosines": r3((A @ B.T) / np.outer(bad_nA, nB))})
    assert res["norms_A"].verdict == "wrong" and res["cosines"].verdict == "carried"


# ------------------------------------------------------------------ bad input


GOOD = 'kind = "similarity"\nmeasure = "cosine"\ntokens = ["x", "y"]\n[given]\nA = [[1, 2], [3, 4]]\n'


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (GOOD.replace('"cosine"', '"cosin"'), "measure", ["did you mean 'cosine'"]),
        (GOOD.replace('"cosine"', '["dot", "dot"]'), "measure", ["twice"]),
        (GOOD.replace('"cosine"', "[]"), "measure", ["empty"]),
        (GOOD + "B = [[1, 2, 3]]\n", "given.B", ["is 1×3", "d = 2 from given.A"]),
        (GOOD + "B = [1, 2, 3]\n", "given.B", ["has length 3", "d = 2 from given.A"]),
        (GOOD.replace("[[1, 2], [3, 4]]", "[[1, 2], [0, 0]]"), "given.A", ["row 2", "zero vector", "undefined"]),
        (GOOD + "B = [0, 0]\n", "given.B", ["zero vector", "undefined"]),
        (GOOD.replace('["x", "y"]', '["x"]'), "tokens", ["1 labels", "2 rows"]),
        (GOOD + 'labels_B = ["u"]\n', "given.labels_B", ["B is not given"]),
        (GOOD + 'B = [[1, 1]]\nlabels_B = ["u", "v"]\n', "given.labels_B", ["has 2 labels", "rows_B = 1 from given.B"]),
        (GOOD + 'B = [1, 1]\nlabels_B = ["u", "v"]\n', "given.labels_B", ["2 labels", "1 row"]),
        (GOOD + "C = [1, 2]\n", "given.C", ["unknown key"]),
        (GOOD.replace("A = ", "AA = "), "given.AA", ["did you mean 'A'"]),
        (GOOD.replace("[[1, 2], [3, 4]]", "[[1, 2], [3]]"), "given.A", ["ragged"]),
        ('kind = "softmax"\nmeasure = "dot"\n[given]\nlogits = [1, 2]\n', "measure", ["similarity"]),
    ],
)
def test_bad_input(cli: Any, tmp_path: Path, text: str, key: str, words: list[str]) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert err.count("\n") == 1 and str(f) in err and f": {key}:" in err, err
    for w in words:
        assert w in err, err


def test_zero_vector_is_fine_without_cosine() -> None:
    """A zero row has length 0 and distances; only the cosine is undefined."""
    d = solve_raw(sim(["dot", "euclidean"], {"A": [[0, 0], [3, 4]]}))
    assert np.allclose(val(d, "distances"), [[0, 5], [5, 0]])


def test_differences_are_written_as_subtractions() -> None:
    """a_1 − b_1 with a_1 = [2, 1], b_1 = [0, 3]: 2 − 0 = 2 and 1 − 3 = −2, never "2 + 0";
    a_1 − b_2 with b_2 = [−1, 1]: 2 − (−1) = 3. The same in the Markdown sheet."""
    raw = {"kind": "similarity", "measure": "euclidean", "given": {"A": [[2, 1]], "B": [[0, 3], [-1, 1]]}}
    d = solve_raw(raw)
    np.testing.assert_allclose(val(d, "differences"), [[2, -2], [3, 0]])
    text = text_of(d)
    for line in ("(a_1 − b_1)_1 = 2 − 0 = 2", "(a_1 − b_1)_2 = 1 − 3 = -2", "(a_1 − b_2)_1 = 2 − (-1) = 3"):
        assert line in text, text
    assert "2 + 0" not in text and "2 + 1" not in text
    md = d.to_markdown()
    assert "2 + 0" not in md and "2 + 1" not in md


def test_exact_lines_name_the_vectors() -> None:
    """‖cat‖ = √(0.8² + 0.2²) = √0.68 = 0.2·√17 and cos(cat, sat) = 0.34 / (√0.68 · √0.85) = 0.2·√5:
    the exact lines say cos(cat, sat), as the written-out lines do, not cos_2."""
    d = solve_file("lecture-embeddings.toml")
    text = text_of(d, width=80)
    assert "exact: ‖cat‖ = 0.2*sqrt(17)" in text and "exact: cos(cat, sat) = 0.2*sqrt(5)" in text
    assert (
        sp.simplify(sp.Rational(34, 100) / sp.sqrt(sp.Rational(68, 100) * sp.Rational(85, 100)) - sp.sqrt(5) / 5) == 0
    )
    assert "cos_2" not in text
    assert r"\cos(\text{cat},\ \text{sat})" in d.to_markdown()
