"""The rules of a fair TA, each on a case rebuilt from a described failure; every expected verdict and
score is worked out by hand in the test (the true values from the problem's formulas, not from check)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from attncalc.check import check
from attncalc.parse.top import load_problem

ROOT = Path(__file__).resolve().parents[2]


def _grade(problem: str | Path, answers: dict[str, Any], extra: str = "", tmp: Path | None = None) -> Any:
    path = Path(problem)
    if not path.is_absolute():
        path = ROOT / problem
    if extra:
        assert tmp is not None
        copy = tmp / path.name
        copy.write_text(path.read_text(encoding="utf-8") + "\n" + extra, encoding="utf-8")
        path = copy
    return check(load_problem(path), answers, "answers.toml")


def _verdicts(report: Any) -> dict[str, str]:
    return {r.id: r.verdict for r in report.results}


# decoder-dot: s = [1, 1], keys [1, 0], [0, 2], [1, 1]: the true scores are [1, 2, 2]. A student who
# writes all zeros, then works on from them: exp(0) = 1, Z = 3, weights 1/3, context = (1/3)·Σ h_i =
# [2/3, 1] = [0.667, 1.000], u = s + c = [1.667, 2.000], logits = u (W_out is I), softmax:
# exp(1.667)/(exp(1.667) + exp(2)) = 1/(1 + e^0.333) = 0.418, 0.582; the prediction B is also the truth's.
DEGENERATE = {
    "scores": [0, 0, 0],
    "exponentials": [1, 1, 1],
    "exp_sum": 3,
    "weights": ["0.333", "0.333", "0.333"],
    "context": ["0.667", "1.000"],
    "combined": ["1.667", "2.000"],
    "logits": ["1.667", "2.000"],
    "probabilities": ["0.418", "0.582"],
    "prediction": "B",
}


def test_degenerate_answer_earns_no_follow_through_however_far_down() -> None:
    """All zeros where the scores are [1, 2, 2]: the seven steps after it are right from it (carried),
    but none earns credit; only the prediction, right in itself, earns its point: 1 of 9."""
    r = _grade("problems/decoder-dot.toml", DEGENERATE)
    v = _verdicts(r)
    assert v["scores"] == "wrong"
    for step in ("exponentials", "exp_sum", "weights", "context", "combined", "logits", "probabilities"):
        assert v[step] == "carried", step
        res = next(x for x in r.results if x.id == step)
        assert res.earned == 0, step
        assert "degenerate" in res.note and "scores" in res.note, step
    assert v["prediction"] == "correct"
    assert r.score == 1 and r.out_of == 9


def test_degenerate_credit_setting_gives_follow_through_back(tmp_path: Path) -> None:
    """[grading] degenerate = "credit": the seven carried steps earn their point, the scores none: 8 of 9."""
    r = _grade("problems/decoder-dot.toml", DEGENERATE, '[grading]\ndegenerate = "credit"\n', tmp_path)
    assert r.score == 8 and r.out_of == 9


def _slip_run(problem: str, slip: str) -> tuple[Any, dict[str, Any]]:
    """The problem and every step as a student making ``slip`` throughout computes it (the mechanism's
    own run with the slip switched on: how the student's answers are built, not how they are judged)."""
    import numpy as np

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS

    p = load_problem(ROOT / problem)
    chain = Chain("float", mistake=slip)
    MECHANISMS[p.kind].run(p, chain)
    return p, {k: np.asarray(v, dtype=float) for k, v in chain.computed.items()}


def _counts(values: dict[str, Any]) -> dict[str, Any]:
    return {k: int(v.item()) for k, v in values.items() if v.size == 1 and float(v.item()).is_integer()}


def test_one_misconception_is_charged_once_across_independent_steps() -> None:
    """LLaMA-2-7B accounting, every count answered as a student who makes one slip everywhere: the
    five FLOP counts without the 2 of 2·m·n·p, the cache not doubled for K and V, the other dtype's
    bytes at every memory and cache step, SwiGLU with 4·d_model at layer.ffn and again at flops.ffn.
    Each is named where it first shows (wrong, 0 of 1) and every other step is carried: 26 of 27."""
    for slip, first in (
        ("flops_no_two", "flops.attention"),
        ("kv_not_doubled", "kv_cache"),
        ("wrong_dtype_bytes", "memory.parameters"),
        ("swiglu_4d_ff", "layer.ffn"),
    ):
        p, values = _slip_run("problems/llama2-7b-accounting.toml", slip)
        r = check(p, _counts(values), "answers.toml")
        wrong = [x for x in r.results if x.verdict == "wrong"]
        assert [x.id for x in wrong] == [first], (slip, [(x.id, x.note) for x in wrong])
        assert wrong[0].mistake == slip
        again = [x for x in r.results if x.verdict == "carried" and x.mistake == slip]
        assert again and all(first in x.note and "charged once" in x.note for x in again), slip
        assert r.out_of == 27 and r.score == 26, (slip, r.score)


def test_swapped_swiglu_weights_are_charged_once_at_the_gate_and_the_up_projection() -> None:
    """W_1 and W_3 swapped: the gate's pre-activation x W_3 and the up projection x W_1. Named at
    ffn.gate_pre; ffn.up, the same swap, is carried with the slip said."""
    p, values = _slip_run("problems/layer-llama.toml", "swiglu_swapped")
    answers = {k: [[f"{x:.3f}" for x in row] for row in values[k]] for k in ("ffn.gate_pre", "ffn.up")}
    r = check(p, answers, "answers.toml")
    v = {x.id: x for x in r.results}
    assert v["ffn.gate_pre"].verdict == "wrong" and v["ffn.gate_pre"].mistake == "swiglu_swapped"
    assert v["ffn.up"].verdict == "carried" and v["ffn.up"].mistake == "swiglu_swapped"
    assert v["ffn.up"].earned == 1 and v["ffn.gate_pre"].earned == 0


def test_a_wrong_merge_that_is_no_slip_is_followed_through() -> None:
    """bpe-first-tie: merge 2 answered "n e" (the truth is "es t"; no usual slip gives "n e"), and every
    later step worked from that merge (the mechanism's own run following it builds the student's work).
    Only merge 2 loses its point; every later step is correct or carried: 21 of 22."""
    import numpy as np

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS

    p = load_problem(ROOT / "problems/bpe-first-tie.toml")
    steps = MECHANISMS[p.kind].run(p, Chain("float", labels={"2.merge": "n e"}))
    answers = {s.id: s.value if isinstance(s.value, str) else np.asarray(s.value).astype(int).tolist() for s in steps}
    assert answers["2.merge"] == "n e" and answers["merges"].startswith("e s, n e")
    r = check(p, answers, "answers.toml")
    v = _verdicts(r)
    assert v["2.merge"] == "wrong"
    order = list(v)
    later = order[order.index("2.merge") + 1 :]
    assert later and all(v[k] in ("correct", "carried") for k in later), {k: v[k] for k in later}
    assert r.score == r.out_of - 1


def test_a_slip_is_named_from_the_answers_its_step_depends_on_whatever_else_is_right() -> None:
    """bpe-first-tie after merges e s, es t, est </w>: low (5), lower (2), widest (3), newest (6) count
    l o = 5 + 2 = 7 and o w = 5 + 2 = 7, a tie the problem's rule breaks to l o. Merge 4 answered o w
    is the other tie-break (bpe_tie_other), and is named so whether or not the earlier pair tables and
    merges are answered (right): a right earlier answer once stopped the slip being named."""
    import numpy as np

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS

    p = load_problem(ROOT / "problems/bpe-first-tie.toml")
    truth = {s.id: s.value for s in MECHANISMS[p.kind].run(p, Chain("float"))}
    assert truth["4.merge"] == "l o"
    earlier = {}
    for k, v in truth.items():
        if k == "4.merge":
            break
        earlier[k] = v if isinstance(v, str) else np.asarray(v).astype(int).tolist()
    for answered in ({}, {k: v for k, v in earlier.items() if k.endswith(".merge")}, earlier):
        r = check(p, {**answered, "4.merge": "o w"}, "answers.toml")
        res = next(x for x in r.results if x.id == "4.merge")
        assert res.verdict == "wrong" and res.mistake == "bpe_tie_other", (sorted(answered), res.note)


def test_a_typo_in_another_head_does_not_stop_a_slip_being_named(tmp_path: Path) -> None:
    """layer-llama (pre- and post-norm): norm1.mean_square worked with the mean subtracted
    (rms_mean_subtracted) and ffn.gate_pre with W_1 and W_3 swapped (swiglu_swapped), each answered
    beside self.head.2.exp_sum written with a typo (+0.31 in one entry). The typo is the student's own
    error elsewhere; the slip is still named from the step's own answer."""
    import numpy as np

    from attncalc.derivation.arith import Chain
    from attncalc.mechanisms import MECHANISMS

    src = (ROOT / "problems/layer-llama.toml").read_text(encoding="utf-8")
    assert 'norm = "pre"' in src
    for norm in ("pre", "post"):
        path = tmp_path / f"llama-{norm}.toml"
        path.write_text(src.replace('norm = "pre"', f'norm = "{norm}"'), encoding="utf-8")
        p = load_problem(path)
        truth = Chain("float")
        MECHANISMS[p.kind].run(p, truth)
        exp_sum = np.asarray(truth.computed["self.head.2.exp_sum"], dtype=float).copy()
        exp_sum.reshape(-1)[0] += 0.31
        for slip, step in (("rms_mean_subtracted", "norm1.mean_square"), ("swiglu_swapped", "ffn.gate_pre")):
            slipped = Chain("float", mistake=slip)
            MECHANISMS[p.kind].run(p, slipped)
            value = np.asarray(slipped.computed[step], dtype=float)
            answers = {
                step: np.vectorize(lambda x: f"{x:.3f}", otypes=[object])(value).tolist(),
                "self.head.2.exp_sum": [f"{x:.3f}" for x in exp_sum.reshape(-1)],
            }
            res = next(x for x in check(p, answers, "answers.toml").results if x.id == step)
            assert res.verdict == "wrong" and res.mistake == slip, (norm, slip, res.note)


def test_top_p_after_top_k_renormalises_the_students_own_top_k() -> None:
    """decode-top-k-top-p (logits [3, 2, 1, 0, -1], k = 3, p = 0.9; q = [0.665, 0.245, 0.090, 0, 0]):
    a typo in the top k renormalised, q_2 = 0.254 for 0.245. Worked on from it: cumulative 0.665,
    0.919, 1.009, ...; the top p keeps cat and dog (0 < 0.9, 0.665 < 0.9, then 0.919 reaches it), and
    the kept renormalised from the student's q: 0.665 / 0.919 = 0.724, 0.254 / 0.919 = 0.276. These are
    carried: top-p renormalises what top-k left, not the softmax again."""
    answers = {
        "top_k_renormalized": ["0.665", "0.254", "0.090", "0", "0"],
        "cumulative": ["0.665", "0.919", "1.009", "1.009", "1.009"],
        "kept": [1, 1, 0, 0, 0],
        "renormalized": ["0.724", "0.276", "0", "0", "0"],
    }
    v = _verdicts(_grade("problems/decode-top-k-top-p.toml", answers))
    assert v["top_k_renormalized"] == "wrong"
    assert v["cumulative"] == "carried" and v["kept"] == "correct"
    assert v["renormalized"] == "carried", v


def test_calculator_precision_behind_a_carried_step_is_carried() -> None:
    """Two generated LLaMA blocks (RMSNorm, SwiGLU; 3 and 6 decimals), each answered by a student who
    made a typo in one entry of an attention step and then worked every later step unrounded from their
    own numbers, writing each to the decimals asked (tests/fixtures/grading/*-calculator.answers.toml).
    Steps that combine several carried entries once came out a last digit off from the student's
    rounded answers ("silu(0.122) = 0.065, not 0.064"; norm2.mean_square "33.677685, not 33.677683"):
    every step after the typo is correct or carried, and only the typo loses points."""
    from attncalc.check.answers import load_answers

    fixtures = ROOT / "tests" / "fixtures" / "grading"
    for name, typo in (
        ("llama-variant-02", "self.head.2.scaled_scores"),
        ("llama6-variant-04", "self.head.2.exponentials"),
    ):
        raw, _ = load_answers(fixtures / f"{name}-calculator.answers.toml")
        raw.pop("problem", None)
        r = check(load_problem(fixtures / f"{name}.toml"), raw, "answers.toml")
        v = _verdicts(r)
        order = list(v)
        assert v[typo] == "wrong", name
        assert all(v[k] == "correct" for k in order[: order.index(typo)]), name
        later = {k: v[k] for k in order[order.index(typo) + 1 :]}
        assert later and all(x in ("correct", "carried") for x in later.values()), (name, later)
        lost = [x.id for x in r.results if x.earned < x.points - 1e-9]
        assert lost == [typo], (name, lost)


def test_a_charged_slip_explains_a_later_step_before_another_that_gives_the_same_numbers() -> None:
    """GPT-2 small in fp32 counted with bf16's 2 bytes a number: the memory steps and the KV cache are
    halved. At kv_cache a cache not doubled for K and V halves it too, but the student's misconception is
    the dtype's bytes, already charged at memory.parameters: carried with that slip, not a second charge."""
    p, values = _slip_run("problems/gpt2-small-accounting.toml", "wrong_dtype_bytes")
    r = check(p, _counts(values), "answers.toml")
    v = {x.id: x for x in r.results}
    assert [x.id for x in r.results if x.verdict == "wrong"] == ["memory.parameters"]
    assert v["kv_cache"].verdict == "carried" and v["kv_cache"].mistake == "wrong_dtype_bytes"
    assert r.score == r.out_of - 1


def test_answers_so_large_the_arithmetic_overflows_are_graded_wrong_not_a_crash() -> None:
    """mean_loss = 2000 (its perplexity 2^2000 overflows a double), a count of 1e308 (past any
    integer a float holds exactly), bpe word counts of 1e308: each is graded wrong, as any wrong answer."""
    for problem, answers, step in (
        ("problems/lstm-doc-exposure.toml", {"mean_loss": 2000, "perplexity": 2}, "mean_loss"),
        ("problems/mistral-window-cache.toml", {"embedding": 1e308}, "embedding"),
        ("problems/bpe-cs336.toml", {"words": [1e308, 1e308, 1e308, 1e308]}, "words"),
    ):
        v = _verdicts(_grade(problem, answers))
        assert v[step] == "wrong", (problem, v)


def test_a_typo_in_weights_is_not_named_mask_after_softmax() -> None:
    """A causal self-attention (a simulated student's file): the weights written with two entries of
    the last row swapped, a typo. The late-mask slip finishes the weights twice (softmax, then the
    mask); a run shared between steps once applied the mask to the student's own weights and named the
    slip. A typo is never named, and the shared runs give what the runs made one by one give."""
    from attncalc.check import wide
    from attncalc.check.answers import load_answers

    fixtures = ROOT / "tests" / "fixtures" / "grading"
    raw, _ = load_answers(fixtures / "late-mask-typo.answers.toml")
    raw.pop("problem", None)
    p = load_problem(fixtures / "late-mask-typo.toml")
    reports = []
    for share in (True, False):
        saved, wide.SHARE = wide.SHARE, share
        try:
            reports.append({x.id: (x.verdict, x.mistake) for x in check(p, raw, "answers.toml").results})
        finally:
            wide.SHARE = saved
    assert reports[0] == reports[1]
    assert reports[0]["weights"] == ("wrong", None)


def test_mask_after_softmax_is_named_at_the_exponentials_after_right_masked_scores(tmp_path: Path) -> None:
    """Causal self-attention, scaled dot: a calculator student writes the masked scores right, then
    exponentiates the scores before the mask (the mask comes late). Worked with numpy from the
    formulas: Q = X W_Q, K = X W_K, S' = Q Kᵀ/√2; the student's exponentials are exp(S') everywhere.
    The slip's chain from the start takes no masked-scores step, so the right masked scores are no
    evidence against it; the slip is named at the exponentials."""
    import numpy as np

    path = tmp_path / "causal.toml"
    path.write_text(
        'kind = "self-attention"\ntokens = ["the", "cat", "sat"]\nscore = "scaled-dot"\n'
        "[settings]\ndecimals = 3\n[given]\n"
        "X = [[0, 1], [1, 1], [1, -2]]\nW_Q = [[-2, 2], [0, 2]]\nW_K = [[1, 1], [-1, 1]]\n"
        'W_V = [[2, 1], [1, 0]]\nmask = "causal"\n',
        encoding="utf-8",
    )
    X = np.array([[0, 1], [1, 1], [1, -2]], dtype=float)
    Q, K = X @ np.array([[-2, 2], [0, 2]]), X @ np.array([[1, 1], [-1, 1]])
    S = Q @ K.T
    scaled = S / np.sqrt(2)
    masked = np.where(np.tril(np.ones((3, 3))) > 0, scaled, -np.inf)

    def written(a: Any) -> Any:
        return [[("-inf" if x == -np.inf else f"{x:.3f}") for x in row] for row in np.asarray(a)]

    answers = {
        "Q": written(Q),
        "K": written(K),
        "scores": written(S),
        "scaled_scores": written(scaled),
        "masked_scores": written(masked),
        "exponentials": written(np.exp(scaled)),
    }
    res = {r.id: r for r in check(load_problem(path), answers, "answers.toml").results}
    assert res["masked_scores"].verdict == "correct"
    assert res["exponentials"].verdict == "wrong" and res["exponentials"].mistake == "mask_after_softmax", res[
        "exponentials"
    ].note
    # worked on with the mask late: the sums over every score, the weights zeroed where masked and
    # not renormalised, the output A V from those weights: each is carried, the slip charged once
    E = np.exp(scaled)
    A = np.where(np.tril(np.ones((3, 3))) > 0, E / E.sum(axis=1, keepdims=True), 0.0)
    V = X @ np.array([[2, 1], [1, 0]])
    later = {"exp_sum": [f"{x:.3f}" for x in E.sum(axis=1)], "weights": written(A), "output": written(A @ V)}
    res = {r.id: r for r in check(load_problem(path), {**answers, **later}, "answers.toml").results}
    for k in later:
        assert res[k].verdict == "carried", (k, res[k].note)


def test_a_prediction_right_for_the_students_own_probabilities_is_carried(tmp_path: Path) -> None:
    """attention with an output head: q = [-2, 2], keys [1, 2], [-1, 0], [0, 2] (values = keys):
    scores [2, 2, 4], weights e²/(2e² + e⁴) = 0.107 (twice) and 0.787, context [0, 1.787],
    combined q + c = [-2, 3.787], logits W_out·u = [5.574, -11.574, -7.787]: the prediction is A, the
    first entry. A student whose probabilities carry a typo, [0.100, 0.900, 0.000], predicts B, the
    argmax of their own probabilities. Moves of the probabilities that keep the argmax (and a poison
    whose argmax is the first entry, A) do not show that the prediction depends on them; it is carried."""
    path = tmp_path / "head.toml"
    path.write_text(
        'kind = "attention"\ntokens = ["the", "cat", "sat"]\nscore = "dot"\n[settings]\ndecimals = 3\n'
        "[given]\nquery = [-2, 2]\nkeys = [[1, 2], [-1, 0], [0, 2]]\n"
        '[head]\ncombine = "add"\nW_out = [[1, 2], [2, -2], [2, -1]]\nvocab = ["A", "B", "C"]\n',
        encoding="utf-8",
    )
    answers = {
        "logits": ["5.574", "-11.574", "-7.787"],
        "probabilities": ["0.100", "0.900", "0.000"],
        "prediction": "B",
    }
    res = {r.id: r for r in check(load_problem(path), answers, "answers.toml").results}
    assert res["logits"].verdict == "correct"
    assert res["probabilities"].verdict == "wrong"
    assert res["prediction"].verdict == "carried", res["prediction"].note
    assert res["prediction"].began_at == "probabilities"
    # their own probabilities tie A and B at 0.5: B, one of their own largest, is carried too
    answers = {**answers, "probabilities": ["0.500", "0.500", "0.000"]}
    res = {r.id: r for r in check(load_problem(path), answers, "answers.toml").results}
    assert res["prediction"].verdict == "carried", res["prediction"].note


def test_a_slip_is_named_beside_a_typo_its_step_does_not_rest_on(tmp_path: Path) -> None:
    """online-softmax, scores [7, 6, 8] in blocks of 2. A calculator student writes block 1's maximum
    as 4 (a typo for 7) and works on from it: exponentials e³, e², their sum l₁; block 2: maximum 8,
    rescale e⁻⁴, l₂ = l₁·e⁻⁴ + 1, which is the true l = e⁻¹ + e⁻² + 1 (the running maximum cancels).
    Then the logsumexp with the maximum left out, ln l = 0.408 (true L = 8 + ln l = 8.408). The slip's
    chain from the start gives 0.408; the carried answers that disagree with it, taken in, still give
    it: the slip is named. A typo at the logsumexp instead (0.508) names nothing."""
    import numpy as np

    path = tmp_path / "online.toml"
    path.write_text(
        'kind = "online-softmax"\n[given]\nscores = [7, 6, 8]\nV = [[-2, 2], [1, 1], [-2, -1]]\nblock = 2\n'
        "[settings]\ndecimals = 3\n",
        encoding="utf-8",
    )
    exps = np.exp(np.array([7.0, 6.0]) - 4.0)
    l1 = exps.sum()
    rescale = np.exp(4.0 - 8.0)
    l2 = l1 * rescale + 1.0
    assert abs(l2 - (np.exp(-1) + np.exp(-2) + 1)) < 1e-12
    work = {
        "1.block_max": "4.000",
        "1.max": "4.000",
        "1.exponentials": [f"{x:.3f}" for x in exps],
        "1.sum": f"{l1:.3f}",
        "2.max": "8.000",
        "2.rescale": f"{rescale:.3f}",
        "2.sum": f"{l2:.3f}",
        "sum": f"{l2:.3f}",
    }
    assert f"{np.log(l2):.3f}" == "0.408"
    res = {r.id: r for r in check(load_problem(path), {**work, "logsumexp": "0.408"}, "answers.toml").results}
    assert res["1.block_max"].verdict == "wrong" and res["1.block_max"].mistake is None
    assert res["logsumexp"].verdict == "wrong" and res["logsumexp"].mistake == "logsumexp_no_max", res["logsumexp"].note
    res = {r.id: r for r in check(load_problem(path), {**work, "logsumexp": "0.508"}, "answers.toml").results}
    assert res["logsumexp"].verdict == "wrong" and res["logsumexp"].mistake is None, res["logsumexp"].note


def _pair_counts(words: dict[tuple[str, ...], int]) -> list[int]:
    """Adjacent-pair counts in order of first occurrence (Sennrich et al.'s count, written here)."""
    counts: dict[tuple[str, str], int] = {}
    for symbols, n in words.items():
        for pair in itertools.pairwise(symbols):
            counts[pair] = counts.get(pair, 0) + n
    return list(counts.values())


def _merged(words: dict[tuple[str, ...], int], a: str, b: str) -> dict[tuple[str, ...], int]:
    out = {}
    for symbols, n in words.items():
        s, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (a, b):
                s.append(a + b)
                i += 2
            else:
                s.append(symbols[i])
                i += 1
        out[tuple(s)] = n
    return out


def test_a_pair_table_of_the_students_own_words_is_graded_not_refused() -> None:
    """bpe-first-tie (low 5, lower 2, widest 3, newest 6; ties to the pair that occurs first): the
    true merge 1 is "e s" (e s, s t, t </w> tie at 9); a student merges "s t" instead. Their words
    have 13 distinct pairs, the true ones 14: their 2.pairs (counted here from their own words) is
    carried, not a refused file, and their 2.merge, the first of the pairs at 9 in their table
    ("e st"), is carried too. A 13-entry table that is not theirs is wrong, with both lengths said."""
    words = {(*tuple(w), "</w>"): n for w, n in (("low", 5), ("lower", 2), ("widest", 3), ("newest", 6))}
    assert _pair_counts(words) == [7, 7, 5, 8, 2, 2, 3, 3, 3, 9, 9, 9, 6, 6]
    theirs = _pair_counts(_merged(words, "s", "t"))
    assert len(theirs) == 13 and theirs.count(9) == 2
    report = _grade("problems/bpe-first-tie.toml", {"1.merge": "s t", "2.pairs": theirs, "2.merge": "e st"})
    res = {r.id: r for r in report.results}
    assert res["1.merge"].verdict == "wrong"
    assert res["2.pairs"].verdict == "carried" and res["2.pairs"].began_at == "1.merge", res["2.pairs"].note
    assert res["2.merge"].verdict == "carried", res["2.merge"].note
    other = list(theirs)
    other[3] += 3
    res = {r.id: r for r in _grade("problems/bpe-first-tie.toml", {"1.merge": "s t", "2.pairs": other}).results}
    note = res["2.pairs"].note
    assert (
        res["2.pairs"].verdict == "wrong"
        and note == f"Entry 4: your own earlier answers give {theirs[3]}, not {other[3]}."
    )


def test_the_jacobians_diagonal_only_is_charged_once_from_the_jacobian_on() -> None:
    """backward-one-head-causal, worked with numpy from the formulas: Q = X W_Q, K = X W_K,
    V = X W_V, A = softmax(causal(Q Kᵀ/√2)), dA = dY Vᵀ. A student who drops the Jacobian's a aᵀ term
    writes J_i = diag(a_i) for each query row and dS' = A ∘ dA. The slip is named at the first
    Jacobian and charged once: the other rows and dS' are carried with the same slip said."""
    import numpy as np

    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    Q, K, V = X @ np.array([[1, 0], [1, 1]]), X @ np.array([[1, 0], [0, -1]]), X @ np.array([[1, 2], [0, 1]])
    S = np.where(np.tril(np.ones((3, 3))) > 0, Q @ K.T / np.sqrt(2), -np.inf)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    dA = np.array([[1, 0], [0, 1], [1, 1]], dtype=float) @ V.T

    def written(a: Any) -> Any:
        return [[f"{x:.3f}" for x in row] for row in np.asarray(a)]

    answers = {f"head.1.jacobian.{i + 1}": written(np.diag(A[i])) for i in range(3)}
    answers["head.1.grad_scaled_scores"] = written(A * dA)
    res = {r.id: r for r in _grade("problems/backward-one-head-causal.toml", answers).results}
    first = res["head.1.jacobian.1"]
    assert first.verdict == "wrong" and first.mistake == "jacobian_diagonal_only", first.note
    for k in ("head.1.jacobian.2", "head.1.jacobian.3", "head.1.grad_scaled_scores"):
        assert res[k].verdict == "carried" and res[k].mistake == "jacobian_diagonal_only", (k, res[k].note)
        assert "charged once" in res[k].note


def test_w_transposed_is_named_in_multi_head() -> None:
    """mh-self-attention: a student who mixes the row and column conventions uses W_Qᵀ, W_Kᵀ, W_Vᵀ
    (Q = X W_Qᵀ, worked here with numpy). The slip is named at Q and charged once at K and V. A typo
    in Q (one entry +2) names nothing."""
    import numpy as np

    X = np.array([[1, 2, 1, 1], [2, 1, 1, 2], [1, 0, 2, 1]], dtype=float)
    W_Q = np.array([[0, 0, 0, 0], [1, 1, 1, -1], [0, 1, 1, 0], [0, 1, 0, 0]], dtype=float)
    W_K = np.array([[0, 1, 0, 0], [1, 0, 0, -1], [1, 1, 0, -1], [0, 0, 0, 1]], dtype=float)
    W_V = np.array([[1, 0, 1, 1], [0, 1, 0, 1], [1, 1, 0, 0], [1, 0, 0, 0]], dtype=float)
    answers = {"Q": (X @ W_Q.T).tolist(), "K": (X @ W_K.T).tolist(), "V": (X @ W_V.T).tolist()}
    res = {r.id: r for r in _grade("problems/mh-self-attention.toml", answers).results}
    assert res["Q"].verdict == "wrong" and res["Q"].mistake == "w_transposed", res["Q"].note
    assert all(res[k].verdict == "carried" and res[k].mistake == "w_transposed" for k in ("K", "V"))
    typo = (X @ W_Q).tolist()
    typo[1][2] += 2
    res = {r.id: r for r in _grade("problems/mh-self-attention.toml", {"Q": typo}).results}
    assert res["Q"].verdict == "wrong" and res["Q"].mistake is None


def test_a_named_slip_costs_the_entries_it_changes_and_the_slip_share_is_a_floor(tmp_path: Path) -> None:
    """decode-top-p (logits [3, 2, 1, 0, -1], p = 0.9): the probabilities are e^(3−k)/Σ = 0.636, 0.234,
    0.086, 0.032, 0.012; their running sum 0.636, 0.871, 0.957 first reaches 0.9 at the third, so the
    kept flags are [1, 1, 1, 0, 0]. Stopping before the sum crosses p gives [1, 1, 0, 0, 0]: top_p_early,
    named; it changes one flag of five, so the step earns 4/5 (each flag its own LMS item); with
    partial = false, nothing by default and the slip share, a half, with [grading] slip = 0.5."""
    import numpy as np

    p = np.exp(3 - np.arange(5.0))
    p /= p.sum()
    assert np.argmax(np.cumsum(p) >= 0.9) == 2
    res = {r.id: r for r in _grade("problems/decode-top-p.toml", {"kept": [1, 1, 0, 0, 0]}).results}
    assert res["kept"].mistake == "top_p_early" and res["kept"].credit == 0.8, res["kept"].note
    whole = _grade("problems/decode-top-p.toml", {"kept": [1, 1, 0, 0, 0]}, "[grading]\npartial = false\n", tmp_path)
    assert {r.id: r for r in whole.results}["kept"].credit == 0.0
    half = _grade(
        "problems/decode-top-p.toml", {"kept": [1, 1, 0, 0, 0]}, "[grading]\npartial = false\nslip = 0.5\n", tmp_path
    )
    assert {r.id: r for r in half.results}["kept"].credit == 0.5


def test_a_slip_carried_into_a_pair_table_of_the_students_own_words_is_charged_once() -> None:
    """bpe-first-tie counted without the words' frequencies (bpe_unweighted), worked on from the
    student's own words for three merges (counted and merged here, ties to the first pair): the slip
    is named at 1.pairs; 2.pairs, of another length than the true one after the first merge "l o", is
    carried with the same slip said (charged once); 3.pairs and the merges are carried."""
    words = {(*tuple(w), "</w>"): 1 for w in ("low", "lower", "widest", "newest")}
    answers: dict[str, Any] = {}
    for r in (1, 2, 3):
        counts: dict[tuple[str, str], int] = {}
        for symbols in words:
            for pair in itertools.pairwise(symbols):
                counts[pair] = counts.get(pair, 0) + 1
        best = max(counts.values())
        a, b = next(p for p, c in counts.items() if c == best)
        answers[f"{r}.pairs"], answers[f"{r}.merge"] = list(counts.values()), f"{a} {b}"
        words = {k: 1 for k in _merged(dict.fromkeys(words, 1), a, b)}
    assert answers["1.merge"] == "l o" and len(answers["2.pairs"]) == 13
    res = {r.id: r for r in _grade("problems/bpe-first-tie.toml", answers).results}
    assert res["1.pairs"].verdict == "wrong" and res["1.pairs"].mistake == "bpe_unweighted"
    assert res["2.pairs"].verdict == "carried" and res["2.pairs"].mistake == "bpe_unweighted", res["2.pairs"].note
    assert "charged once" in res["2.pairs"].note
    assert res["3.pairs"].verdict == "carried", res["3.pairs"].note
    for k in ("1.merge", "2.merge", "3.merge"):
        assert res[k].verdict == "carried", (k, res[k].note)


def test_a_prediction_below_a_degenerate_answer_earns_nothing_through_the_students_own_states() -> None:
    """tests/fixtures/grading/seq2seq-zero-gate: encoder.2.z written all zeros and everything worked on
    from it. The true computation keeps the prediction whatever that gate is; the student's own hidden
    states, worked from it, move it: the prediction rests on the zeros through encoder.2.h (an answer
    resting on them) and earns no carried credit, however far down (rule 4)."""
    fixtures = ROOT / "tests" / "fixtures" / "grading"
    import tomllib

    answers = tomllib.loads((fixtures / "seq2seq-zero-gate.answers.toml").read_text(encoding="utf-8"))
    answers.pop("problem")
    assert answers["encoder.2.z"] == [0, 0]
    res = {r.id: r for r in _grade(fixtures / "seq2seq-zero-gate.problem.toml", answers).results}
    assert res["encoder.2.z"].verdict == "wrong"
    pred = res["decoder.1.prediction"]
    assert pred.verdict == "carried" and pred.credit == 0.0, pred.note
    assert "rests on your encoder.2.z, which is all zeros" in pred.note
