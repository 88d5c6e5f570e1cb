"""Kind speculative: every number against an oracle written apart from attncalc.

The accept/residual rule is written here from Leviathan et al. 2023, "Fast Inference from Transformers
via Speculative Decoding", Algorithm 1 (numpy, a few lines): r_i ≤ p_i(x_i)/q_i(x_i) accepts, the run
stops at the first rejection n + 1, and the next token is drawn from norm(max(0, p_(n+1) − q_(n+1))),
or from p_(γ+1) when all γ are accepted. Its acceptance rate (section 3) is α = Σ_x min(p(x), q(x)) = 1 − D_TV(p, q),
and the expected tokens per run for a constant α (1 − α^(γ+1)) / (1 − α).
transformers' ``_speculative_sampling`` (Hugging Face's implementation of Algorithm 1) is a second
oracle, its randomness fixed: ``torch.rand_like`` returns the given uniforms and ``torch.multinomial``
draws by the inverse CDF with the given resample draw (and records the distribution it is handed).
Also: the interface's example worked by hand with its exact forms, exact against float, ties decided
exactly, bad files refused with one message, check on right and carried answers, JSON types."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.mechanisms import solve
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS, one_line_refusal, run_cli

EXAMPLE = Path(PROBLEMS, "speculative-two-drafts.toml")
VOCAB = ["a", "b", "c", "d"]


def raw(draft: Any, target: Any, drafted: Any, uniforms: Any, resample: Any, vocab: Any = VOCAB) -> dict[str, Any]:
    return {
        "kind": "speculative",
        "vocab": list(vocab),
        "given": {"draft": draft, "target": target, "drafted": drafted, "uniforms": uniforms, "resample": resample},
    }


# ---------------------------------------------------------------- the oracle: Algorithm 1, written from the paper
def algorithm1(q: np.ndarray, p: np.ndarray, x: list[int], r: list[float], u: float) -> dict[str, Any]:
    """Leviathan et al. 2023, Algorithm 1 (SpeculativeDecodingStep) with its random draws given:
    r_i ~ U(0, 1) accepts x_i when r_i ≤ p_i(x_i)/q_i(x_i); n = the accepted run's length; p' =
    norm(max(0, p_(n+1) − q_(n+1))) if n < γ, else p_(γ+1); t ~ p' by the inverse CDF with u."""
    gamma = len(x)
    ratios = np.array([p[i, x[i]] / q[i, x[i]] for i in range(gamma)])
    accept = np.minimum(1.0, ratios)
    n = next((i for i in range(gamma) if not r[i] <= ratios[i]), gamma)
    flags = [1 if i < n else 0 for i in range(gamma)]
    if n < gamma:
        res = np.maximum(0.0, p[n] - q[n])
        res = res / res.sum()
    else:
        res = p[gamma]
    cum = np.cumsum(res)
    t = int(np.argmax(cum > u))
    alpha = np.minimum(p[:gamma], q).sum(axis=1)  # the acceptance rate, per position
    expected = 1 + sum(np.prod(alpha[: j + 1]) for j in range(gamma))
    return {
        "ratios": ratios,
        "accept_probabilities": accept,
        "accepted": flags,
        "n_accepted": n,
        "residual": res,
        "residual_cumulative": cum,
        "next": t,
        "output": [*x[:n], t],
        "acceptance_rates": alpha,
        "expected_tokens": expected,
    }


def compare(d: Any, o: dict[str, Any], vocab: list[str]) -> None:
    for key in ("ratios", "accept_probabilities", "residual", "residual_cumulative", "acceptance_rates"):
        np.testing.assert_allclose(np.asarray(d[key], dtype=float), o[key], rtol=1e-12, atol=1e-12, err_msg=key)
    assert [int(v) for v in np.asarray(d["accepted"], dtype=float)] == o["accepted"]
    assert int(float(np.asarray(d["n_accepted"], dtype=float))) == o["n_accepted"]
    assert d.step("next_token").value == vocab[o["next"]]
    assert list(d.step("output").labels) == [vocab[i] for i in o["output"]]
    assert float(np.asarray(d["expected_tokens"], dtype=float)) == pytest.approx(o["expected_tokens"], rel=1e-12)


def _random_case(rng: random.Random) -> tuple[dict[str, Any], np.ndarray, np.ndarray, list[int], list[float], float]:
    gamma, v = rng.randint(1, 4), rng.randint(2, 6)
    vocab = [f"t{i}" for i in range(v)]

    def row() -> list[float]:
        w = [rng.randint(1, 9) for _ in range(v)]
        return [x / sum(w) for x in w]

    q = [row() for _ in range(gamma)]
    p = [row() for _ in range(gamma + 1)]
    x = [rng.randrange(v) for _ in range(gamma)]
    r = [rng.random() for _ in range(gamma)]
    u = rng.random()
    return raw(q, p, [vocab[i] for i in x], r, u, vocab), np.array(q), np.array(p), x, r, u


# ---------------------------------------------------------------- the interface's example, by hand
def test_the_example_worked_by_hand() -> None:
    """ratios 0.3/0.4 = 0.75 and 0.3/0.6 = 0.5; r = 0.5 ≤ 0.75 accepts a, 0.9 > 0.5 rejects b: n = 1.
    Residual at 2: max(0, [0.3, 0.3, 0.3, 0.1] − [0.1, 0.6, 0.2, 0.1]) = [0.2, 0, 0.1, 0], sum 0.3,
    so [2/3, 0, 1/3, 0]; running sums [2/3, 2/3, 1, 1]; 2/3 > 0.35 first: a. Output a, a.
    α_1 = 0.3 + 0.3 + 0.2 + 0.1 = 0.9, α_2 = 0.1 + 0.3 + 0.2 + 0.1 = 0.7; E = 1 + 0.9 + 0.9 · 0.7 = 2.53."""
    d = solve(load_problem(EXAMPLE))
    hand: dict[str, Any] = {
        "ratios": [0.75, 0.5],
        "accept_probabilities": [0.75, 0.5],
        "accepted": [1, 0],
        "n_accepted": 1,
        "residual": [2 / 3, 0, 1 / 3, 0],
        "residual_cumulative": [2 / 3, 2 / 3, 1, 1],
        "acceptance_rates": [0.9, 0.7],
        "expected_tokens": 2.53,
    }
    for key, want in hand.items():
        np.testing.assert_allclose(np.asarray(d[key], dtype=float), want, rtol=1e-12, err_msg=key)
    assert d.step("next_token").value == "a"
    assert d.step("output").labels == ("a", "a")
    exact = {s.id: s.exact for s in d.steps}
    assert [str(e) for e in exact["residual"]] == ["2/3", "0", "1/3", "0"]
    assert [str(e) for e in exact["residual_cumulative"]] == ["2/3", "2/3", "1", "1"]
    assert str(np.asarray(exact["expected_tokens"]).item()) == "253/100"
    assert [str(e) for e in exact["ratios"]] == ["3/4", "1/2"]


def test_the_example_against_algorithm_1() -> None:
    q = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.6, 0.2, 0.1]])
    p = np.array([[0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.3, 0.1], [0.25, 0.25, 0.25, 0.25]])
    compare(solve(load_problem(EXAMPLE), exact=False), algorithm1(q, p, [0, 1], [0.5, 0.9], 0.35), VOCAB)


@pytest.mark.parametrize("seed", range(40))
def test_random_rounds_against_algorithm_1(seed: int) -> None:
    rng = random.Random(seed)
    problem, q, p, x, r, u = _random_case(rng)
    d = solve(parse_problem(problem, "r.toml"), exact=False)
    compare(d, algorithm1(q, p, x, r, u), problem["vocab"])


def test_every_draft_accepted_draws_from_the_targets_last_row() -> None:
    """r_i = 0 accepts every draft: the next token comes from p_(γ+1) = [0.1, 0.2, 0.3, 0.4] (running
    sums 0.1, 0.3, 0.6, 1; 0.65 first exceeded at d); the output is γ + 1 tokens."""
    q = [[0.4, 0.3, 0.2, 0.1], [0.1, 0.6, 0.2, 0.1]]
    p = [[0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.3, 0.1], [0.1, 0.2, 0.3, 0.4]]
    d = solve(parse_problem(raw(q, p, ["a", "b"], [0, 0], 0.65), "a.toml"))
    np.testing.assert_allclose(np.asarray(d["residual"], dtype=float), [0.1, 0.2, 0.3, 0.4])
    assert d.step("output").labels == ("a", "b", "d")
    assert int(float(np.asarray(d["n_accepted"], dtype=float))) == 2


# ---------------------------------------------------------------- α and the expected tokens (the paper)
@pytest.mark.parametrize("gamma", [1, 2, 3, 5])
def test_expected_tokens_for_a_constant_alpha(gamma: int) -> None:
    """Every position has the same q and p, so α is constant: α = min(0.5, 0.2) + min(0.3, 0.6) +
    min(0.2, 0.2) = 0.2 + 0.3 + 0.2 = 0.7, and E = (1 − α^(γ+1)) / (1 − α) (the paper's expected tokens)."""
    q, p = [0.5, 0.3, 0.2], [0.2, 0.6, 0.2]
    problem = raw([q] * gamma, [p] * (gamma + 1), ["a"] * gamma, [0.1] * gamma, 0.5, ["a", "b", "c"])
    d = solve(parse_problem(problem, "c.toml"))
    alpha = 0.7
    np.testing.assert_allclose(np.asarray(d["acceptance_rates"], dtype=float), [alpha] * gamma, rtol=1e-12)
    want = (1 - alpha ** (gamma + 1)) / (1 - alpha)
    assert float(np.asarray(d["expected_tokens"], dtype=float)) == pytest.approx(want, rel=1e-12)


# ---------------------------------------------------------------- transformers' _speculative_sampling
def _hf_round(q: np.ndarray, p: np.ndarray, x: list[int], r: list[float], u: float, monkeypatch: Any) -> Any:
    torch = pytest.importorskip("torch", reason="transformers' _speculative_sampling needs PyTorch")
    utils = pytest.importorskip("transformers.generation.utils", reason="the oracle is transformers' own code")
    handed: list[np.ndarray] = []

    def rand_like(t: Any, *a: Any, **k: Any) -> Any:
        return torch.tensor(r, dtype=t.dtype).reshape(t.shape)

    def multinomial(probs: Any, num_samples: int = 1, **k: Any) -> Any:
        dist = probs.detach().double().numpy().reshape(-1)
        handed.append(dist)
        return torch.tensor([[int(np.argmax(np.cumsum(dist) > u))]])

    monkeypatch.setattr(torch, "rand_like", rand_like)
    monkeypatch.setattr(torch, "multinomial", multinomial)
    with np.errstate(divide="ignore"):
        cand_logits = torch.tensor(np.log(q), dtype=torch.float64)[None]
        new_logits = torch.tensor(np.log(p), dtype=torch.float64)[None]
    ids = torch.tensor([[7, *x]])  # one prompt token, then the drafted ones
    tokens, n = utils._speculative_sampling(ids, cand_logits, len(x), new_logits)
    return [int(t) for t in tokens.reshape(-1)], int(n), handed[0]


@pytest.mark.parametrize("seed", range(12))
def test_random_rounds_against_transformers(seed: int, monkeypatch: Any) -> None:
    rng = random.Random(100 + seed)
    problem, q, p, x, r, u = _random_case(rng)
    tokens, n, dist = _hf_round(q, p, x, r, u, monkeypatch)
    d = solve(parse_problem(problem, "r.toml"), exact=False)
    vocab = problem["vocab"]
    assert int(float(np.asarray(d["n_accepted"], dtype=float))) == n
    np.testing.assert_allclose(np.asarray(d["residual"], dtype=float), dist, rtol=1e-9, atol=1e-12)
    assert list(d.step("output").labels) == [vocab[i] for i in tokens]


def test_the_example_against_transformers(monkeypatch: Any) -> None:
    q = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.6, 0.2, 0.1]])
    p = np.array([[0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.3, 0.1], [0.25, 0.25, 0.25, 0.25]])
    tokens, n, dist = _hf_round(q, p, [0, 1], [0.5, 0.9], 0.35, monkeypatch)
    assert (tokens, n) == ([0, 0], 1)
    np.testing.assert_allclose(dist, [2 / 3, 0, 1 / 3, 0], rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- exact, float and ties
@pytest.mark.parametrize("seed", range(6))
def test_exact_and_float_agree(seed: int) -> None:
    problem = _random_case(random.Random(200 + seed))[0]
    g = problem["given"]  # decimals the exact chain reads exactly
    g["draft"] = [[round(v, 6) for v in row] for row in g["draft"]]
    g["target"] = [[round(v, 6) for v in row] for row in g["target"]]
    for rows in (g["draft"], g["target"]):
        for row in rows:
            row[-1] = round(1 - sum(row[:-1]), 6)
    if any(v <= 0 for rows in (g["draft"], g["target"]) for row in rows for v in row):
        pytest.skip("rounding left an entry at 0")
    p = parse_problem(problem, "e.toml")
    exact, floats = solve(p, exact=True), solve(p, exact=False)
    for s in floats.steps:
        if isinstance(s.value, str):
            assert exact.step(s.id).value == s.value
        else:
            np.testing.assert_allclose(
                np.asarray(exact[s.id], dtype=float), np.asarray(s.value, dtype=float), rtol=1e-12
            )


def test_a_uniform_equal_to_its_ratio_is_accepted_in_floats_too() -> None:
    """0.3 / 0.4 is 0.7499999999999999 in floats but 3/4 exactly: r = 0.75 is accepted (r ≤ 3/4)."""
    assert 0.3 / 0.4 < 0.75
    problem = raw([[0.4, 0.3, 0.2, 0.1]], [[0.3, 0.4, 0.2, 0.1], [0.25] * 4], ["a"], [0.75], 0.1)
    for exact in (True, False):
        d = solve(parse_problem(problem, "t.toml"), exact=exact)
        assert [int(v) for v in np.asarray(d["accepted"], dtype=float)] == [1], exact


def test_a_draw_equal_to_a_running_sum_takes_the_next_token() -> None:
    """q_1 = [0, 0, 1] drafted c: ratio 0.5 / 1, r = 0.9 rejects it. Residual max(0, p_1 − q_1) =
    [0.25, 0.25, 0] over 0.5 = [0.5, 0.5, 0], running 0.5, 1, 1: u = 0.5 is not above 0.5 (strictly
    greater is asked), so the draw is b."""
    q = [[0.0, 0.0, 1.0]]
    p = [[0.25, 0.25, 0.5], [0.2, 0.3, 0.5]]
    d = solve(parse_problem(raw(q, p, ["c"], [0.9], 0.5, ["a", "b", "c"]), "t.toml"))
    np.testing.assert_allclose(np.asarray(d["residual_cumulative"], dtype=float), [0.5, 1, 1])
    assert d.step("next_token").value == "b"


def test_a_running_sum_with_float_noise_is_decided_exactly() -> None:
    """q_1 = [0, 0, 0, 1] drafted d: p_1(d) / q_1(d) = 0, r = 0.5 rejects it. The residual is p_1 itself,
    [0.1, 0.2, 0.7, 0], whose running sum 0.1 + 0.2 is 0.30000000000000004 in floats but 3/10 exactly:
    u = 0.3 is not below it, so the draw is c (not b), in floats as in exact."""
    assert 0.1 + 0.2 > 0.3
    q = [[0.0, 0.0, 0.0, 1.0]]
    p = [[0.1, 0.2, 0.7, 0.0], [0.25] * 4]
    for exact in (True, False):
        d = solve(parse_problem(raw(q, p, ["d"], [0.5], 0.3), "t.toml"), exact=exact)
        assert d.step("next_token").value == "c", exact
        assert d.step("output").labels == ("c",)


# ---------------------------------------------------------------- bad files: one message, exit 2
BAD = [
    ({"target": [[0.3, 0.7], [0.5, 0.5], [0.5, 0.5]]}, "given.target", "γ + 1"),
    ({"drafted": ["a", "b"]}, "given.drafted", "γ = 1"),
    ({"draft": [[0.6, 0.6]]}, "given.draft", "adds up to 1.2"),
    ({"draft": [[1.5, -0.5]]}, "given.draft", "at least 0"),
    ({"drafted": ["z"]}, "given.drafted", "not in vocab"),
    ({"draft": [[0.0, 1.0]]}, "given.drafted", "draft probability"),
    ({"uniforms": [1.0]}, "given.uniforms[1]", "below 1"),
    ({"resample": -0.1}, "given.resample", "at least 0"),
]


@pytest.mark.parametrize(("change", "key", "words"), BAD)
def test_a_bad_file_is_refused_naming_the_key(change: dict[str, Any], key: str, words: str) -> None:
    problem = raw([[0.5, 0.5]], [[0.3, 0.7], [0.5, 0.5]], ["a"], [0.5], 0.5, ["a", "b"])
    problem["given"].update(change)
    with pytest.raises(ProblemError) as e:
        parse_problem(problem, "bad.toml")
    assert key in str(e.value) and words in str(e.value), str(e.value)


def test_a_repeated_vocabulary_label_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(
        'kind = "speculative"\nvocab = ["a", "a"]\n[given]\ndraft = [[0.5, 0.5]]\n'
        'target = [[0.5, 0.5], [0.5, 0.5]]\ndrafted = ["a"]\nuniforms = [0.5]\nresample = 0.5\n',
        encoding="utf-8",
    )
    err = one_line_refusal(run_cli("solve", str(f)), "bad.toml", "vocab")
    assert "each label once" in err


# ---------------------------------------------------------------- check and JSON
HAND_ANSWERS = {
    "ratios": ["0.75", "0.5"],
    "accept_probabilities": ["0.75", "0.5"],
    "accepted": [1, 0],
    "n_accepted": 1,
    "residual": ["0.6667", "0", "0.3333", "0"],
    "residual_cumulative": ["0.6667", "0.6667", "1", "1"],
    "next_token": "a",
    "output": ["a", "a"],
    "acceptance_rates": ["0.9", "0.7"],
    "expected_tokens": "2.53",
}


def test_check_takes_the_hand_answers() -> None:
    r = check(load_problem(EXAMPLE), dict(HAND_ANSWERS), "a.toml")
    assert {x.id: x.verdict for x in r.results} == {k: "correct" for k in HAND_ANSWERS}


def _not_normalised(resample: float) -> dict[str, Any]:
    """The example's answers with the residual not normalised, [0.2, 0, 0.1, 0] (running 0.2, 0.2, 0.3,
    0.3), and the draw worked from those sums: the first above u, or d when none is."""
    answers = dict(HAND_ANSWERS)
    nxt = "c" if resample < 0.3 else "d"
    answers.update(
        residual=["0.2", "0", "0.1", "0"], residual_cumulative=["0.2", "0.2", "0.3", "0.3"], next_token=nxt,
        output=["a", nxt],
    )  # fmt: skip
    problem = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    problem["given"]["resample"] = resample
    return {x.id: x for x in check(parse_problem(problem, "p.toml"), answers, "a.toml").results}


def test_check_carries_a_wrong_residual_into_the_draw() -> None:
    """With u = 0.25 the student's sums pass u at c (0.3 > 0.25): c is right given their own work."""
    by_id = _not_normalised(0.25)
    assert by_id["residual"].verdict == "wrong"
    assert by_id["residual"].mistake == "speculative_residual_not_normalised"
    assert by_id["residual_cumulative"].verdict == "carried"
    assert by_id["next_token"].verdict == "carried", by_id["next_token"].note
    assert by_id["output"].verdict == "carried", by_id["output"].note


def test_running_sums_that_never_pass_the_draw_draw_nothing() -> None:
    """With u = 0.35 none of the student's sums (at most 0.3) is above u: their sums draw no token, so d
    (the last token) is not taken as their own draw; the true draw is a (2/3 > 0.35)."""
    by_id = _not_normalised(0.35)
    assert by_id["residual_cumulative"].verdict == "carried"
    assert by_id["next_token"].verdict == "wrong"
    assert "gives a" in by_id["next_token"].note


def test_json_flags_are_integers_and_the_output_a_list(tmp_path: Path) -> None:
    out = run_cli("solve", str(EXAMPLE), "-f", "json")
    assert out.returncode == 0, out.stderr
    steps = {s["id"]: s for s in json.loads(out.stdout)["steps"]}
    assert steps["accepted"]["value"] == [1, 0] and all(type(v) is int for v in steps["accepted"]["value"])
    assert steps["n_accepted"]["value"] == 1 and type(steps["n_accepted"]["value"]) is int
    assert steps["output"]["value"] == ["a", "a"]
    assert steps["next_token"]["value"] == "a"
    assert steps["residual"]["labels"] == VOCAB and steps["ratios"]["labels"] == ["a", "b"]


# ---------------------------------------------------------------- homework
@pytest.mark.parametrize(("tokens", "dim"), [(1, 2), (2, 4), (4, 6)])
def test_drawn_variants_keep_away_from_ties_and_follow_algorithm_1(tokens: int, dim: int) -> None:
    """Every drawn variant: its numbers against Algorithm 1, no uniform within 0.02 of its acceptance
    probability, no running sum within 0.02 of the resample draw, and no α of 1."""
    from attncalc.homework.generate import Options, generate

    ds = generate(Options(kind="speculative", tokens=tokens, dim=dim, seed=4, count=6)).derivations
    assert len(ds) == 6
    for d in ds:
        g, vocab = d.problem.data, list(d.problem.data.vocab)
        q, p = g.draft.floats, g.target.floats
        r, u = [float(x) for x in g.uniforms.floats], float(np.asarray(d.inputs[-1].value))
        compare(d, algorithm1(q, p, list(g.drafted), r, u), vocab)
        assert np.all(
            np.abs(np.asarray(r) - np.minimum(1, [p[i, x] / q[i, x] for i, x in enumerate(g.drafted)])) >= 0.02
        )
        assert np.all(np.abs(np.asarray(d["residual_cumulative"], dtype=float) - u) >= 0.02)
        assert np.all(np.minimum(p[:tokens], q).sum(axis=1) < 0.98)


@pytest.mark.parametrize(("tokens", "dim"), [(2, 4), (3, 4), (4, 6)])
def test_a_set_of_variants_spreads_the_accepted_counts_from_0_to_gamma_less_1(tokens: int, dim: int) -> None:
    """A markdown set of γ variants accepts every count from 0 to γ − 1 (Algorithm 1 counts them), and
    so do the first variants of γ successive seeds: left to chance, most rounds ended at the first
    or second draft (a tryout saw only 0 and 1 in ten variants); a round accepting all γ teaches no
    rejection."""
    from attncalc.homework.generate import Options, generate

    def accepted(seed: int, count: int) -> list[int]:
        out = []
        for d in generate(Options(kind="speculative", tokens=tokens, dim=dim, seed=seed, count=count)).derivations:
            g = d.problem.data
            u = float(np.asarray(d.inputs[-1].value))
            r = [float(x) for x in g.uniforms.floats]
            flags = algorithm1(g.draft.floats, g.target.floats, list(g.drafted), r, u)["accepted"]
            out.append(sum(flags))
        return out

    assert sorted(accepted(5, tokens)) == list(range(tokens))
    assert sorted(n for seed in range(tokens) for n in accepted(seed, 1)) == list(range(tokens))


@pytest.mark.parametrize("tokens", [1, 3])
def test_every_drawn_variant_rejects_a_drafted_token(tokens: int) -> None:
    """Seeds 0..49 (seed 11 drew a round accepting all three drafts): Algorithm 1 run on each drawn
    variant rejects at some position, so the residual is worked in every variant."""
    from attncalc.homework.generate import Options, generate

    for seed in range(50):
        for d in generate(Options(kind="speculative", tokens=tokens, dim=4, seed=seed, count=1)).derivations:
            g = d.problem.data
            u = float(np.asarray(d.inputs[-1].value))
            r = [float(x) for x in g.uniforms.floats]
            flags = algorithm1(g.draft.floats, g.target.floats, list(g.drafted), r, u)["accepted"]
            assert 0 in flags, (seed, flags)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_quiz_draws_variants_of_one_output_length(seed: int) -> None:
    """generate --format moodle|qti|ilias (one shape): every variant accepts seed mod γ drafts, so
    each asks for an output of the same length (and the same questions)."""
    from attncalc.homework.generate import Options, generate
    from attncalc.reports.lms import shape

    ds = generate(Options(kind="speculative", tokens=3, dim=4, seed=seed, count=3, one_shape=True), shape).derivations
    assert [int(float(np.asarray(d["n_accepted"], dtype=float))) for d in ds] == [seed % 3] * 3
    assert len({shape(d) for d in ds}) == 1


def test_check_decides_a_float_tie_as_solve_does() -> None:
    """The draw of the float-noise case above (c, not b) is the truth check grades against: c is correct."""
    q = [[0.0, 0.0, 0.0, 1.0]]
    p = [[0.1, 0.2, 0.7, 0.0], [0.25] * 4]
    problem = parse_problem(raw(q, p, ["d"], [0.5], 0.3), "t.toml")
    r = check(problem, {"next_token": "c", "output": ["c"]}, "a.toml")
    assert [x.verdict for x in r.results] == ["correct", "correct"], [x.note for x in r.results]


def test_expected_tokens_for_alpha_0_8_and_gamma_5_by_hand() -> None:
    """q = [0.8, 0.2, 0], p = [1, 0, 0] at every position: α = min(1, 0.8) + min(0, 0.2) + min(0, 0) = 0.8.
    By hand, 1 + 0.8 + 0.64 + 0.512 + 0.4096 + 0.32768 = 3.68928, which is (1 − 0.8⁶) / (1 − 0.8) =
    (1 − 0.262144) / 0.2 (Leviathan et al. 2023's expected tokens); exactly 11529/3125."""
    q, p = [0.8, 0.2, 0], [1, 0, 0]
    problem = raw([q] * 5, [p] * 6, ["a"] * 5, [0.5] * 5, 0.5, ["a", "b", "c"])
    d = solve(parse_problem(problem, "c.toml"))
    assert float(np.asarray(d["expected_tokens"], dtype=float)) == pytest.approx(3.68928, rel=1e-12)
    assert str(np.asarray(d.step("expected_tokens").exact).item()) == "11529/3125"
    assert d.step("output").labels == ("a",) * 6  # every ratio is 1/0.8 ≥ 1: all accepted, then a from p_6


def test_check_reports_the_output_as_a_list(tmp_path: Path) -> None:
    """check -f json: the output's given and expected are lists of tokens, as solve writes the step."""
    a = tmp_path / "a.toml"
    a.write_text('next_token = "a"\noutput = "a, b"\n', encoding="utf-8")
    out = run_cli("check", str(EXAMPLE), str(a), "-f", "json")
    assert out.returncode == 1, out.stderr  # (a wrong answer: exit 1)
    by_id = {x["id"]: x for x in json.loads(out.stdout)["results"]}
    assert by_id["output"]["given"] == ["a", "b"] and by_id["output"]["expected"] == ["a", "a"]
    assert by_id["next_token"]["given"] == "a"


# ---------------------------------------------------------------- the slips' arithmetic, by hand
# the example: p_2 = [0.3, 0.3, 0.3, 0.1], q_2 = [0.1, 0.6, 0.2, 0.1], p_2 − q_2 = [0.2, −0.3, 0.1, 0],
# Σ max(0, p_2 − q_2) = 0.3
SLIPS_BY_HAND = [
    ("ratios", ["1.333", "2"], "speculative_ratio_inverted"),  # 0.4 / 0.3, 0.6 / 0.3
    ("residual", ["0.2", "0", "0.1", "0"], "speculative_residual_not_normalised"),
    ("residual", ["0.6667", "-1", "0.3333", "0"], "speculative_residual_no_max"),  # [0.2, −0.3, 0.1, 0] / 0.3
    ("residual", ["0.3", "0.3", "0.3", "0.1"], "speculative_next_from_target"),  # p_2 itself
]


@pytest.mark.parametrize(("step", "answer", "slip"), SLIPS_BY_HAND)
def test_a_slip_worked_by_hand_is_named(step: str, answer: list[str], slip: str) -> None:
    r = check(load_problem(EXAMPLE), {step: answer}, "a.toml").results[0]
    assert (r.verdict, r.mistake) == ("wrong", slip), r.note


@pytest.mark.parametrize(("step", "answer", "slip"), SLIPS_BY_HAND)
def test_a_typo_in_the_slips_numbers_is_not_named(step: str, answer: list[str], slip: str) -> None:
    typo = [answer[0] + "7", *answer[1:]]  # one more digit on the first entry
    r = check(load_problem(EXAMPLE), {step: typo}, "a.toml").results[0]
    assert r.verdict == "wrong" and r.mistake is None, (slip, r.mistake, r.note)


def test_accepting_after_a_rejection_is_named_and_a_typo_is_not() -> None:
    """Three drafts of a with ratio 0.3 / 0.4 = 0.75: r = 0.5 accepts, 0.9 rejects, 0.2 ≤ 0.75 would accept
    had the run gone on: [1, 0, 1] is the slip; [1, 1, 0] (the second flag mistyped) is not."""
    problem = raw(
        [[0.4, 0.3, 0.2, 0.1]] * 3, [[0.3, 0.4, 0.2, 0.1]] * 3 + [[0.25] * 4], ["a"] * 3, [0.5, 0.9, 0.2], 0.35
    )
    p = parse_problem(problem, "c.toml")
    r = check(p, {"accepted": [1, 0, 1]}, "a.toml").results[0]
    assert (r.verdict, r.mistake) == ("wrong", "speculative_continued_after_rejection"), r.note
    r = check(p, {"accepted": [1, 1, 0]}, "a.toml").results[0]
    assert r.verdict == "wrong" and r.mistake is None, r.note
