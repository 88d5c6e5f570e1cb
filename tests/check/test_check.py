"""attncalc check: verdicts on the reference documents' numbers, named mistakes, exit codes, JSON.

Mistaken answers are built here with independent numpy formulas (not with attncalc's own mistake
switches), rounded to 3 decimals as a student would write them.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from attncalc.check import Tolerance, check
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS

ANSWERS = PROBLEMS / "answers"


def verdicts(cli: Any, *paths: str) -> tuple[int, dict[str, Any]]:
    result = cli("check", "--problems", str(PROBLEMS), *paths, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in data["results"]}


# ------------------------------------------------------------------ the reference documents


def test_decoder_document_is_all_rounding(cli: Any) -> None:
    """Every number of the decoder document is right (its context is the carried chain): exit 0."""
    code, data = verdicts(cli, str(ANSWERS / "decoder-dot.toml"))
    assert code == 0
    assert data["summary"] == {"correct": 9, "carried": 0, "wrong": 0}
    assert "hand chain" in by_id(data)["context"]["note"]


def test_self_attention_document_is_all_rounding(cli: Any) -> None:
    """The self-attention document's z_3 = 0.751 is the carried chain (truth 0.752): accepted."""
    code, data = verdicts(cli, str(ANSWERS / "self-attention-scaled.toml"))
    assert code == 0 and data["summary"]["wrong"] == 0


def test_lecture_sum_and_weights_are_slips(cli: Any) -> None:
    """4.02 is wrong (4.876, which is 4.88 to the answer's 2 decimals), and weights 2 and 3 do not follow
    even from 4.02; weight 1 does."""
    code, data = verdicts(cli, str(ANSWERS / "lecture-dot.toml"))
    r = by_id(data)
    assert code == 1
    assert r["scores"]["verdict"] == "correct"
    assert r["exp_sum"]["verdict"] == "wrong" and "4.88, not 4.02" in r["exp_sum"]["note"]
    assert r["weights"]["verdict"] == "wrong"
    assert r["weights"]["wrong_entries"] == [[1], [2]]
    assert "2.560 / 4.02 = 0.64, not 0.63" in r["weights"]["note"]
    assert "add up to 1.12" in r["weights"]["note"]


def test_lecture_softmax_pairs(cli: Any) -> None:
    """0.64/0.36 for [0.9, 0.1] is wrong (0.69/0.31); 0.98/0.02 for [5, 1] is right to 2 decimals."""
    code, data = verdicts(cli, str(ANSWERS / "lecture-softmax-close.toml"))
    assert code == 1 and data["results"][0]["verdict"] == "wrong"
    assert "0.69, not 0.64" in data["results"][0]["note"]
    code, data = verdicts(cli, str(ANSWERS / "lecture-softmax-far.toml"))
    assert code == 0


def test_luong_document_slips_and_carried_steps(cli: Any) -> None:
    """H·W has 7 wrong entries; scores..context carry them; exp(0.565) is a last-digit slip; W_c·u is wrong."""
    code, data = verdicts(cli, str(ANSWERS / "luong-general.toml"))
    r = by_id(data)
    assert code == 1
    tk = r["transformed_keys"]
    assert tk["verdict"] == "wrong"
    assert tk["wrong_entries"] == [[0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]]
    # by hand: 0.3·(-0.2) + 0.7·0.6 + (-0.2)·0.4 = -0.06 + 0.42 - 0.08 = 0.28
    assert "0.3·(-0.2) + 0.7·0.6 + (-0.2)·0.4 = 0.28, not 0.22" in tk["note"]
    for step in ("scores", "exp_sum", "weights", "context", "combined", "attentional"):
        assert r[step]["verdict"] == "carried", step
    assert r["scores"]["began_at"] == "transformed_keys"
    ex = r["exponentials"]
    assert ex["verdict"] == "wrong" and ex["wrong_entries"] == [[2]]
    assert "exp(0.565) = 1.759, not 1.760" in ex["note"] and "rounding slip" in ex["note"]
    assert "mistake" not in ex
    cp = r["combined_projection"]
    assert cp["verdict"] == "wrong" and len(cp["wrong_entries"]) == 3
    # z_1 from the document's own combined vector, by hand: 0.3 + 0.12 + 0.1 + 0.034 + 0.0944 - 0.0904 = 0.558
    assert "= 0.558, not 0.345" in cp["note"]


# ------------------------------------------------------------------ named mistakes


def grade(raw_problem: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    problem = parse_problem(raw_problem, "p.toml")
    rep = check(problem, answers, "a.toml")
    return {r.id: r for r in rep.results}


def r3(x: Any) -> Any:
    """Round as a student writes 3 decimals, keeping them as written (Decimal)."""
    return np.vectorize(lambda v: Decimal(f"{v:.3f}"), otypes=[object])(np.asarray(x, dtype=float)).tolist()


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


q4 = np.array([1.0, 0, 1, 2])
K4 = np.array([[1.0, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1]])
V2 = np.array([[1.0, 0], [0, 1], [1, 1]])
SCALED = {
    "kind": "attention",
    "score": "scaled-dot",
    "given": {"query": q4.tolist(), "keys": K4.tolist(), "values": V2.tolist()},
}


def test_mistake_scale_forgotten() -> None:
    """Scaled scores equal to the raw dot products: the 1/√d_k scale was left out."""
    r = grade(SCALED, {"scaled_scores": r3(K4 @ q4)})["scaled_scores"]
    assert r.verdict == "wrong" and r.mistake == "no_scale"
    assert "the 1/√d_k scale was left out" in r.note


def test_mistake_given_scale_forgotten_names_the_given_scale() -> None:
    """With `[given] scale = 0.25` the slip is leaving out 0.25, not 1/√d_k (which is 1/2 here)."""
    problem = {**SCALED, "given": {**SCALED["given"], "scale": 0.25}}
    r = grade(problem, {"scaled_scores": r3(K4 @ q4)})["scaled_scores"]
    assert r.verdict == "wrong" and r.mistake == "no_scale"
    assert "the given scale 0.25 was left out" in r.note and "√d_k" not in r.note
    assert grade(problem, {"scaled_scores": r3(K4 @ q4 * 0.25)})["scaled_scores"].verdict == "correct"


def test_mistake_dk_instead_of_sqrt_dk() -> None:
    """Scores divided by d_k = 4 instead of √4 = 2."""
    r = grade(SCALED, {"scaled_scores": r3(K4 @ q4 / 4)})["scaled_scores"]
    assert r.mistake == "dk_not_sqrt"


def test_mistake_scale_forgotten_seen_in_the_weights() -> None:
    """Only the weights given, computed without the scale: still named."""
    r = grade(SCALED, {"weights": r3(softmax(K4 @ q4))})["weights"]
    assert r.mistake == "no_scale"


def test_mistake_not_normalised() -> None:
    """Weights equal to the exponentials: not divided by their sum."""
    r = grade(SCALED, {"weights": r3(np.exp(K4 @ q4 / 2))})["weights"]
    assert r.mistake == "not_normalised"


def test_mistake_keys_instead_of_values() -> None:
    """Context = Σ α_i k_i instead of Σ α_i v_i (values as wide as the keys)."""
    V4 = np.array([[1.0, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
    raw = {**SCALED, "given": {**SCALED["given"], "values": V4.tolist()}}
    a = softmax(K4 @ q4 / 2)
    r = grade(raw, {"context": r3(a @ K4)})
    assert r["context"].mistake == "keys_not_values"


X = np.array([[1.0, 0], [0, 1], [1, 1]])
WQ = np.array([[1.0, 2], [0, 1]])
WK = np.array([[0.5, 0], [1, 1]])
SELF = {"kind": "self-attention", "given": {"X": X.tolist(), "W_Q": WQ.tolist(), "W_K": WK.tolist()}}


def test_mistake_qk_transposed() -> None:
    """S = K Qᵀ instead of Q Kᵀ."""
    Q, K = X @ WQ, X @ WK
    r = grade(SELF, {"scores": r3(K @ Q.T)})["scores"]
    assert r.mistake == "qk_transposed"


def test_mistake_softmax_over_the_wrong_axis() -> None:
    """Softmax down the columns instead of along the rows."""
    S = (X @ WQ) @ (X @ WK).T / np.sqrt(2)
    r = grade(SELF, {"weights": r3(softmax(S, axis=0))})["weights"]
    assert r.mistake == "softmax_wrong_axis"


def test_mistake_w_transposed() -> None:
    """General score computed with Wᵀ: the conventions mixed up."""
    W = np.array([[1.0, 2], [0, 1]])
    q, K = np.array([1.0, -1]), np.array([[1.0, 0], [0, 1], [1, 1]])
    raw = {"kind": "attention", "score": "general", "given": {"query": q.tolist(), "keys": K.tolist(), "W": W.tolist()}}
    wrong = K @ W @ q  # column convention wants q·(W k_i) = K Wᵀ q
    assert not np.allclose(wrong, K @ W.T @ q)
    r = grade(raw, {"scores": r3(wrong)})["scores"]
    assert r.mistake == "w_transposed"


ADD = {
    "kind": "attention",
    "score": "additive",
    "given": {
        "query": [0.5, -1],
        "keys": [[1, 0], [0, 1], [1, 1]],
        "W_q": [[1, 0], [0.5, 1]],
        "W_k": [[1, -1], [0, 2]],
        "v": [1, 0.5],
    },
}


def test_mistake_tanh_left_out() -> None:
    """Additive scores computed from the pre-activation without tanh."""
    g = {k: np.asarray(v, dtype=float) for k, v in ADD["given"].items()}
    pre = g["W_q"] @ g["query"] + g["keys"] @ g["W_k"].T
    r = grade(ADD, {"scores": r3(pre @ g["v"])})["scores"]
    assert r.mistake == "no_tanh"


def test_mistake_concatenation_order_swapped() -> None:
    """Concat score over [k_i; q] instead of [q; k_i]."""
    q, K = np.array([1.0, 0]), np.array([[0.0, 1], [1, 1], [1, 0]])
    W, v = np.array([[0.5, 0, 1, -0.5], [0, 1, -1, 0.5]]), np.array([1.0, 1])
    raw = {
        "kind": "attention",
        "score": "concat",
        "given": {"query": q.tolist(), "keys": K.tolist(), "W": W.tolist(), "v": v.tolist()},
    }
    swapped = np.tanh(np.hstack([K, np.tile(q, (3, 1))]) @ W.T) @ v
    r = grade(raw, {"scores": r3(swapped)})["scores"]
    assert r.mistake == "concat_swapped"


def test_single_product_slip_is_named() -> None:
    """One product with its sign flipped: the note names the entry and the product."""
    q, K = np.array([0.6, -0.4, 0.5]), np.array([[0.65, 0.28, -0.12], [0.42, 0.38, 0.53]])
    raw = {"kind": "attention", "given": {"query": q.tolist(), "keys": K.tolist()}}
    e = K @ q
    e[1] = 0.6 * 0.42 + 0.4 * 0.38 + 0.5 * 0.53  # sign of (-0.4)·0.38 flipped
    r = grade(raw, {"scores": r3(e)})["scores"]
    assert r.verdict == "wrong" and r.wrong_entries == [[1]]
    assert "e_2 = 0.6·0.42 + (-0.4)·0.38 + 0.5·0.53 = 0.365, not 0.669" in r.note
    assert "the sign of (-0.4)·0.38" in r.note


# ------------------------------------------------------------------ precision and carrying


def test_precision_is_the_answers_own() -> None:
    """0.16 is right to 2 decimals for 0.1554; 0.16 is not right to 3 (0.160); --sigfigs and --atol widen it."""
    raw = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    ok = grade(raw, {"weights": [Decimal("0.16"), Decimal("0.42"), Decimal("0.42")]})["weights"]
    assert ok.verdict == "correct"
    bad = grade(raw, {"weights": [Decimal("0.160"), Decimal("0.422"), Decimal("0.422")]})["weights"]
    assert bad.verdict == "wrong" and bad.wrong_entries == [[0]]
    problem = parse_problem(raw, "p.toml")
    wide = check(problem, {"weights": [0.16, 0.42, 0.42]}, "a", Tolerance(atol=0.01))
    assert wide.results[0].verdict == "correct"
    two_sig = check(problem, {"weights": [0.16, 0.42, 0.42]}, "a", Tolerance(sigfigs=2))
    assert two_sig.results[0].verdict == "correct"


def test_one_slip_costs_one_step() -> None:
    """A wrong sum makes the weights computed from it `carried`, pointing at exp_sum."""
    raw = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    r = grade(
        raw,
        {
            "exponentials": [Decimal("2.718"), Decimal("7.389"), Decimal("7.389")],
            "exp_sum": Decimal("17.596"),
            "weights": r3(np.array([2.718, 7.389, 7.389]) / 17.596),
        },
    )
    assert r["exponentials"].verdict == "correct"
    assert r["exp_sum"].verdict == "wrong" and "17.496, not 17.596" in r["exp_sum"].note
    assert r["weights"].verdict == "carried" and r["weights"].began_at == "exp_sum"


# ------------------------------------------------------------------ CLI


def test_problem_answers_table_and_exit_codes(cli: Any, tmp_path: Path) -> None:
    """check P uses P's [answers]; exit 0 all correct, 1 a wrong answer."""
    base = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n[answers]\n'
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text(base + "weights = [0.155, 0.422, 0.422]\n")
    bad.write_text(base + "weights = [0.27, 0.63, 0.22]\n")
    assert cli("check", "--problems", str(PROBLEMS), str(good)).exit_code == 0
    result = cli("check", "--problems", str(PROBLEMS), str(bad))
    assert result.exit_code == 1
    assert "✗ wrong" in result.stdout and "⟨0.27⟩" in result.stdout


def test_unknown_step_id_is_bad_input(cli: Any, tmp_path: Path) -> None:
    """An unknown step id exits 2 and lists the valid ids."""
    f = tmp_path / "a.toml"
    f.write_text("wieghts = [0.1, 0.2, 0.7]\n")
    result = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "decoder-dot.toml"), str(f))
    assert result.exit_code == 2
    assert "wieghts" in result.stderr and "did you mean 'weights'" in result.stderr and "exp_sum" in result.stderr


def test_wrong_shape_is_bad_input(cli: Any, tmp_path: Path) -> None:
    """An answer with the wrong number of entries exits 2 naming the step."""
    f = tmp_path / "a.toml"
    f.write_text("weights = [0.5, 0.5]\n")
    result = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "decoder-dot.toml"), str(f))
    assert result.exit_code == 2 and "weights" in result.stderr and "3 numbers" in result.stderr


def test_no_answers_is_bad_input(cli: Any) -> None:
    """A problem without [answers] and no ANSWERS file: exit 2."""
    result = cli("check", "--problems", str(PROBLEMS), str(PROBLEMS / "decoder-dot.toml"))
    assert result.exit_code == 2 and "answers" in result.stderr


def test_a_class_of_submissions(cli: Any, tmp_path: Path) -> None:
    """Several answers files: one line per submission and a total; --format json lists them all."""
    (tmp_path / "alice.toml").write_text("weights = [0.155, 0.422, 0.422]\ncontext = [0.578, 1.267]\n")
    (tmp_path / "bob.toml").write_text("weights = [0.155, 0.422, 0.422]\ncontext = [0.6, 1.5]\n")
    p = str(PROBLEMS / "decoder-dot.toml")
    result = cli(
        "check",
        "--problems",
        str(PROBLEMS),
        p,
        str(tmp_path / "alice.toml"),
        str(tmp_path / "bob.toml"),
        "--width",
        "200",
    )
    assert result.exit_code == 1
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("✓") and "alice.toml" in lines[0]
    assert lines[1].startswith("✗") and "bob.toml" in lines[1] and "first error is at context" in lines[1]
    assert lines[2].startswith("Total: 2 submissions, 1 all correct")
    data = json.loads(
        cli(
            "check",
            "--problems",
            str(PROBLEMS),
            p,
            str(tmp_path / "alice.toml"),
            str(tmp_path / "bob.toml"),
            "-f",
            "json",
        ).stdout
    )
    assert [s["summary"]["wrong"] for s in data["submissions"]] == [0, 1]
    assert data["total"] == {"correct": 3, "carried": 0, "wrong": 1}


def test_json_shape_follows_the_interface(cli: Any) -> None:
    """summary and results with id, verdict, given, expected, wrong_entries and note."""
    _, data = verdicts(cli, str(ANSWERS / "lecture-dot.toml"))
    assert {"summary", "results", "score"} <= set(data)  # the interface is a floor: fields are added
    assert set(data["summary"]) == {"correct", "carried", "wrong"}
    for r in data["results"]:
        assert {"id", "verdict", "given", "expected", "wrong_entries", "note"} <= set(r)


def test_mixed_precision_answer_is_not_judged_by_a_coarser_chain(cli: Any, tmp_path: Path) -> None:
    """lecture-dot: e = s·h_i = [0.05 − 0.04 + 0.08, 0.4 − 0.02 + 0.56, 0.1 − 0.06 + 0.16] = [0.09, 0.94, 0.2].
    An answer [0.09, 0.90, 0.2] mixes two decimals and one: 0.90 is not 0.94, even though the
    one-decimal hand chain rounds e_2 to 0.9. Likewise weight 0.500 for α_2 = 0.525."""
    e = np.array([0.09, 0.94, 0.2])
    w = np.exp(e) / np.exp(e).sum()
    assert round(w[1], 3) == 0.525
    for key, answer, wrong in (("scores", "[0.09, 0.90, 0.2]", [1]), ("weights", f"[{w[0]:.3f}, 0.500, 0.3]", [1])):
        (tmp_path / "a.toml").write_text(f"{key} = {answer}\n")
        _, data = verdicts(cli, str(PROBLEMS / "lecture-dot.toml"), str(tmp_path / "a.toml"))
        r = by_id(data)
        assert r[key]["verdict"] == "wrong" and [i[0] for i in r[key]["wrong_entries"]] == wrong, r[key]


def test_e_notation_is_read_at_the_precision_it_shows() -> None:
    """A calculator's 1.7496e1 is 17.496, to 3 decimals (the mantissa's 4 less the exponent 1), as the
    number 1.7496e1 is; it was read as an exact form and graded wrong. Z = e + 2e² = 17.49639…, so
    17.496 is right to 3 decimals, 17.5 (1.75e1) to 1, and 1.7497e1 is wrong."""
    raw = {"kind": "attention", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    z = float(np.e + 2 * np.e**2)
    assert round(z, 3) == 17.496 and round(z, 1) == 17.5
    for text in ("1.7496e1", "1.7496E1", "174.96e-1", "1.75e1", "+1.75e+1", "17496e-3"):
        assert grade(raw, {"exp_sum": text})["exp_sum"].verdict == "correct", text
    assert grade(raw, {"exp_sum": "1.7497e1"})["exp_sum"].verdict == "wrong"
    assert grade(raw, {"exp_sum": "1.8e1"})["exp_sum"].verdict == "wrong"  # 18, to 0 decimals: not 17
    # α = [e, e², e²] / Z: 0.155 is 1.55e-1, to 3 decimals
    w = grade(raw, {"weights": ["1.55e-1", "4.22e-1", "4.22e-1"]})["weights"]
    assert w.verdict == "correct"
    assert grade(raw, {"weights": ["1.56e-1", "4.22e-1", "4.22e-1"]})["weights"].verdict == "wrong"


def test_a_minus_infinity_where_no_mask_applies_is_told_the_value_at_the_asked_decimals(
    cli: Any, tmp_path: Path
) -> None:
    """causal-self-attention's masked score [2,1] is 1/√2 = 0.707 (the docs' answer above); "-inf"
    there is wrong, and the note gives 0.707, not the value at 0 decimals (1)."""
    answers = tmp_path / "a.toml"
    answers.write_text(
        'masked_scores = [[0, "-inf", "-inf", "-inf"], ["-inf", 0, "-inf", "-inf"], '
        '[0.707, 0.707, 1.414, "-inf"], [0, 1.414, 1.414, 0]]\n',
        encoding="utf-8",
    )
    assert f"{1 / 2**0.5:.3f}" == "0.707"
    code, data = verdicts(cli, str(PROBLEMS / "causal-self-attention.toml"), str(answers))
    assert code == 1  # a wrong answer
    r = by_id(data)["masked_scores"]
    assert r["verdict"] == "wrong" and r["wrong_entries"] == [[1, 0]]
    assert "= 0.707, not -inf" in r["note"]


def test_a_wrong_masked_score_prints_no_warning() -> None:
    """Which steps rest on a step with masked −∞ entries was found with −∞ + ∞ (numpy's "invalid
    value" warning on the terminal); the grade is unchanged."""
    import warnings

    import attncalc

    path = str(PROBLEMS / "layer-llama.toml")
    d = attncalc.solve(path)
    m = np.asarray(d.step("self.head.1.masked_scores").value, dtype=float)
    answer: list[list[Any]] = [["-inf" if np.isneginf(x) else round(float(x), 3) for x in row] for row in m]
    answer[0][0] = float(answer[0][0]) + 1
    weights = np.round(np.asarray(d.step("self.head.1.weights").value, dtype=float), 3).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep = attncalc.check(path, {"self.head.1.masked_scores": answer, "self.head.1.weights": weights})
    assert [r.verdict for r in rep.results] == ["wrong", "correct"]


def test_a_step_after_a_wrong_answer_kept_at_calculator_precision_is_carried() -> None:
    """adamw-clipping with a wrong norm (no slip of the list: the true one is 1.240), kept as 1.3146
    and written 1.315: the answerer who kept 1.3146 has clip_scale = 1/1.3146 = 0.761, one who went
    on from 1.315 has 1/1.315 = 0.760; both follow from their own work (a norm that rounds to 1.315
    gives 0.76017 to 0.76075); 0.762 and 0.759 do not. (A reported case was the same with
    the biases left out of the norm, 1.13172 written 1.132: now a named slip, carried on the same way.)"""
    assert f"{1 / 1.3146:.3f}" == "0.761" and f"{1 / 1.315:.3f}" == "0.760"
    assert f"{1 / 1.3155:.5f}" == "0.76017" and f"{1 / 1.3145:.5f}" == "0.76075"
    path = str(PROBLEMS / "adamw-clipping.toml")
    for scale, verdict in (("0.761", "carried"), ("0.760", "carried"), ("0.762", "wrong"), ("0.759", "wrong")):
        r = grade_file(path, {"grad_norm": Decimal("1.315"), "clip_scale": Decimal(scale)})
        assert r["grad_norm"].verdict == "wrong" and r["grad_norm"].mistake is None
        assert r["clip_scale"].verdict == verdict, scale
    # written with fewer decimals than asked (1.31: where the answerer's arithmetic ended), it is
    # taken as it is: 1/1.31 = 0.763 follows, 0.761 does not
    assert f"{1 / 1.31:.3f}" == "0.763"
    r = grade_file(path, {"grad_norm": Decimal("1.31"), "clip_scale": Decimal("0.761")})
    assert r["clip_scale"].verdict == "wrong"
    r = grade_file(path, {"grad_norm": Decimal("1.31"), "clip_scale": Decimal("0.763")})
    assert r["clip_scale"].verdict == "carried"
    # a reported case: the biases left out (‖g_W‖ = √5 · ‖p − y‖ = 1.13172…), written 1.132
    logits = np.array([-1.4, 2.0, 1.4])  # W_out h + b, by hand
    p = np.exp(logits) / np.exp(logits).sum()
    norm = float(np.sqrt(5) * np.linalg.norm(p - np.array([0, 1, 0])))
    assert f"{norm:.3f}" == "1.132" and f"{1 / norm:.3f}" == "0.884" and f"{1 / 1.132:.3f}" == "0.883"
    for scale in ("0.884", "0.883"):
        r = grade_file(path, {"grad_norm": Decimal("1.132"), "clip_scale": Decimal(scale)})
        assert r["grad_norm"].mistake == "clip_weights_only" and r["clip_scale"].verdict == "carried"


def grade_file(path: str, answers: dict[str, Any]) -> dict[str, Any]:
    from attncalc.parse import load_problem

    rep = check(load_problem(path), answers, "a.toml")
    return {r.id: r for r in rep.results}
