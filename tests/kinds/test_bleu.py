"""Kind bleu: the example agrees with the paper's own counts and with NLTK's sentence BLEU (smoothing
off), random sentences agree with NLTK and with a formula written here from Papineni et al. 2002;
`check` names the slips; bad input is one line; `generate` makes variants `check` accepts."""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

EXAMPLE = PROBLEMS / "bleu-papineni.toml"


def papineni(cand: list[str], refs: list[list[str]], N: int = 4, w: list[float] | None = None) -> dict[str, Any]:
    """Sentence BLEU from the paper's definitions: clipped counts, modified precisions, BP with the
    closest reference length (ties to the shorter, as NLTK and sacrebleu choose), no smoothing."""
    w = w or [1 / N] * N
    counts, clipped = [], []
    for n in range(1, N + 1):
        grams = Counter(tuple(cand[i : i + n]) for i in range(len(cand) - n + 1))
        best: Counter[tuple[str, ...]] = Counter()
        for ref in refs:
            best |= Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))  # | keeps the maximum
        counts.append(sum(grams.values()))
        clipped.append(sum(min(k, best[g]) for g, k in grams.items()))
    p = [m / c for m, c in zip(clipped, counts, strict=True)]
    c = len(cand)
    r = sorted((abs(len(x) - c), len(x)) for x in refs)[0][1]
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_mean = sum(wn * math.log(pn) for wn, pn in zip(w, p, strict=True)) if min(p) > 0 else -math.inf
    return {
        "ngram_counts": counts,
        "clipped_counts": clipped,
        "precisions": p,
        "brevity_penalty": bp,
        "log_mean": log_mean,
        "bleu": bp * math.exp(log_mean) if min(p) > 0 else 0.0,
    }


def nltk_bleu(cand: list[str], refs: list[list[str]], w: tuple[float, ...] = (0.25,) * 4) -> float:
    bleu_score = pytest.importorskip("nltk.translate.bleu_score", reason="NLTK is the BLEU oracle (pip install nltk)")
    with pytest.warns(UserWarning) if _has_zero(cand, refs, len(w)) else _nothing():
        return float(bleu_score.sentence_bleu(refs, cand, weights=w))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: object) -> None:
        return None


def _has_zero(cand: list[str], refs: list[list[str]], N: int) -> bool:
    return min(papineni(cand, refs, N)["precisions"]) == 0


def bleu_raw(cand: Any, refs: Any, **given: Any) -> dict[str, Any]:
    return {"kind": "bleu", "given": {"candidate": cand, "references": refs, **given}}


def val(d: Any, sid: str) -> Any:
    return np.asarray(d.step(sid).value, dtype=float)


# ------------------------------------------------------------------ the example


def test_example_has_the_papers_precisions_exact_and_numeric() -> None:
    """Papineni et al. count 17/18 for the unigrams of Candidate 1 and 10/17 for its bigrams."""
    d = attncalc.solve(EXAMPLE)
    prec = d.step("precisions").exact
    assert prec[0] == sp.Rational(17, 18) and prec[1] == sp.Rational(10, 17)
    assert float(val(d, "precisions")[0]) == pytest.approx(17 / 18, abs=1e-15)
    numeric = attncalc.solve(EXAMPLE, exact=False)
    np.testing.assert_allclose(val(numeric, "bleu"), val(d, "bleu"), rtol=0, atol=1e-12)


def test_example_agrees_with_nltk_and_the_paper_formula() -> None:
    import tomllib

    g = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))["given"]
    cand, refs = g["candidate"].split(), [r.split() for r in g["references"]]
    want = papineni(cand, refs)
    for exact in (True, False):
        d = attncalc.solve(EXAMPLE, exact=exact)
        for sid, value in want.items():
            np.testing.assert_allclose(val(d, sid), value, rtol=0, atol=1e-12, err_msg=sid)
    assert float(val(d, "bleu")) == pytest.approx(nltk_bleu(cand, refs), abs=1e-12)


# ------------------------------------------------------------------ random sentences against the oracles

WORDS = ["the", "a", "cat", "sat", "on", "mat", "dog", "ran"]


@pytest.mark.parametrize("seed", range(12))
def test_random_sentences_agree_with_nltk(seed: int) -> None:
    rng = random.Random(seed)
    cand = [rng.choice(WORDS) for _ in range(rng.randint(4, 9))]
    refs = [[rng.choice(WORDS) for _ in range(rng.randint(3, 10))] for _ in range(rng.randint(1, 3))]
    N = rng.choice((1, 2, 3, 4))
    w = tuple([1 / N] * N)
    d = solve_raw(bleu_raw(cand, refs, max_n=N), exact=seed % 2 == 0)
    want = papineni(cand, refs, N)  # first the paper's formula, then NLTK when it is installed
    for sid, value in want.items():
        np.testing.assert_allclose(val(d, sid), value, rtol=0, atol=1e-12, err_msg=sid)
    assert float(val(d, "bleu")) == pytest.approx(nltk_bleu(cand, refs, w), abs=1e-12)


def test_clipping_the_papers_example_two() -> None:
    """'the the the the the the the' against the paper's two references: modified precision 2/7."""
    refs = ["the cat is on the mat", "there is a cat on the mat"]
    d = solve_raw(bleu_raw("the the the the the the the", refs, max_n=1))
    assert d.step("precisions").exact[0] == sp.Rational(2, 7)
    assert "the: min(7,2)" in d.to_text(width=80)


def test_a_clip_is_written_out_however_many_ngrams_there_are() -> None:
    """Past ten distinct n-grams the written-out sum still shows each clipped one (counted less often
    than it occurs), and sums the rest by kind so that the line still adds up to m_n."""
    cand = "a cat sat on my mat by a door near an old red barn the the the the"  # "the" comes last
    refs = ["the cat sat on the mat by the door", "a cat sat near a red barn"]
    d = solve_raw(bleu_raw(cand, refs, max_n=1))
    m1 = papineni(cand.split(), [r.split() for r in refs], 1)["clipped_counts"][0]
    text = d.to_text(width=200)
    line = next(x for x in text.splitlines() if x.strip().startswith("m_1 (1-grams) ="))
    assert "the: min(4,3)" in line  # 4 in the candidate, 3 in reference 1: clipped
    assert line.rstrip().endswith(f"= {m1}")
    # the terms as written add up to m_1: min(k, a) of each shown term, and the summed rests
    shown = sum(min(int(k), int(a)) for k, a in re.findall(r"min\((\d+),(\d+)\)", line))
    rests = sum(int(x) for x in re.findall(r"more matched in full: (\d+)\)", line))
    assert shown + rests == m1


def test_zero_precision_gives_bleu_zero_and_says_why() -> None:
    d = solve_raw(bleu_raw("the cat sat down", ["a cat sat on the mat"]))  # no 3-gram matches
    assert float(val(d, "bleu")) == 0 and math.isinf(float(val(d, "log_mean")))
    assert "ln 0 = −∞" in d.step("log_mean").note
    assert d.to_json()["steps"][4]["value"] is None  # −∞ is null in JSON
    assert nltk_bleu("the cat sat down".split(), ["a cat sat on the mat".split()]) == pytest.approx(0, abs=1e-12)


def test_brevity_penalty_uses_the_closest_length_ties_to_the_shorter() -> None:
    d = solve_raw(bleu_raw("a b c d e", ["a b c d", "a b c d e f"], max_n=1))  # 4 and 6 are both 1 from 5
    assert float(val(d, "brevity_penalty")) == 1.0  # r = 4 < c = 5: no penalty
    assert "4 and 6 are as close, and the shorter is taken" in d.to_text(width=200)
    d = solve_raw(bleu_raw("a b c", ["a b c d", "a b c d e f"], max_n=1))
    assert d.step("brevity_penalty").exact == sp.exp(1 - sp.Rational(4, 3))
    assert float(val(d, "bleu")) == pytest.approx(math.exp(1 - 4 / 3), abs=1e-15)
    assert "as close" not in d.to_text(width=200)  # 4 is closer to 3 than 6: no tie to explain


def test_weights_and_max_n_keys() -> None:
    cand, refs = "the cat sat on the mat".split(), ["the cat is on the mat".split()]
    d = solve_raw(bleu_raw(cand, refs, max_n=2, weights=[0.75, 0.25]))
    assert float(val(d, "log_mean")) == pytest.approx(0.75 * math.log(5 / 6) + 0.25 * math.log(3 / 5), abs=1e-15)
    # weights alone set N
    assert solve_raw(bleu_raw(cand, refs, weights=["1/3", "1/3", "1/3"])).step("precisions").value.shape == (3,)
    assert float(val(d, "bleu")) == pytest.approx(nltk_bleu(cand, refs, (0.75, 0.25)), abs=1e-12)


def test_carried_and_text_view() -> None:
    d = attncalc.solve(EXAMPLE, carry=True)
    text = d.to_text(width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "p_2 (2-grams) = 10 / 17 = 0.588" in text
    assert "sentence BLEU, no smoothing" in text


@pytest.mark.parametrize(
    ("given", "key", "words"),
    [
        ({"max_n": 9}, "given.max_n", "no 9-grams"),
        ({"max_n": 2, "weights": [1]}, "given.weights", "one weight per order"),
        ({"max_n": 2, "weights": [1, 0]}, "given.weights", "not above 0"),
        ({"references": "the cat"}, "given.references", "list of token lists"),
        ({"references": ["the cat", 3]}, "given.references[2]", "a list of tokens or a string"),
        ({"references": ["the cat"], "weights": [1] * 10, "max_n": None}, "given.weights", "up to N = 9"),
        ({"candidate": ""}, "given.candidate", "empty"),
    ],
)
def test_bad_input_names_the_key(given: dict[str, Any], key: str, words: str) -> None:
    raw = bleu_raw("the cat sat on the mat", [["the", "cat"]], **{"max_n": 1, **given})
    with pytest.raises(ProblemError) as e:
        solve_raw(raw)
    assert e.value.key == key and words in str(e.value)


# ------------------------------------------------------------------ check and generate


def _check(problem: Any, answers: dict[str, Any]) -> dict[str, Any]:
    return {r["id"]: r for r in attncalc.check(problem, answers).to_json()["results"]}


def test_slip_no_brevity_penalty() -> None:
    raw = bleu_raw("the cat sat on", ["the cat sat on the mat"], max_n=2)
    p = papineni("the cat sat on".split(), ["the cat sat on the mat".split()], 2)
    no_bp = round(math.exp(p["log_mean"]), 3)  # 1: every n-gram matches, only the penalty is below 1
    got = _check(raw, {"bleu": no_bp})
    assert got["bleu"]["mistake"] == "bleu_no_bp" and "brevity penalty" in got["bleu"]["note"]


def test_slip_no_clipping() -> None:
    refs = ["the cat is on the mat", "there is a cat on the mat"]
    got = _check(bleu_raw("the the the the the the the", refs, max_n=1), {"clipped_counts": [7], "precisions": [1]})
    assert got["clipped_counts"]["mistake"] == "bleu_no_clip"
    assert got["precisions"]["verdict"] == "carried"


def test_generated_bleu_keys_are_accepted_by_check(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--kind", "bleu", "--count", "3", "--tokens", "6", "--out", str(out), "--seed", "2")
    assert result.exit_code == 0, result.output
    for key in sorted((out / "answers").glob("*.toml")):
        report = json.loads(cli("check", "--problems", str(out), str(key), "--format", "json").stdout)
        assert report["summary"]["wrong"] == 0 and report["summary"]["carried"] == 0, key


def test_a_check_counts_the_references_ngrams_once_per_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check reruns the derivation for each answer it weighs; the references' n-gram counts depend on
    the problem alone and are counted once per order (they were counted again on every rerun: 100
    references of 1,000 tokens and N = 9, every step answered + 1, took 17 to 21 s)."""
    from attncalc.mechanisms import bleu

    r = random.Random(3)
    words = [f"w{i}" for i in range(6)]
    refs = [" ".join(r.choice(words) for _ in range(30)) for _ in range(4)]
    cand = " ".join(r.choice(words) for _ in range(30))
    raw = bleu_raw(cand, refs, max_n=3)
    p = papineni(cand.split(), [x.split() for x in refs], 3)
    answers = {sid: (np.asarray(p[sid]) + 1).tolist() for sid in ("ngram_counts", "clipped_counts", "precisions")}
    answers["brevity_penalty"] = p["brevity_penalty"] + 1
    counted: list[int] = []
    real = bleu.ngrams
    monkeypatch.setattr(bleu, "ngrams", lambda tokens, n: counted.append(n) or real(tokens, n))
    bleu.COUNTS.clear()
    got = _check(raw, answers)
    assert got["ngram_counts"]["verdict"] == "wrong" and got["precisions"]["verdict"] != "correct"
    # each order: the candidate once and each reference once
    assert sorted(counted) == sorted([1, 2, 3] * (1 + len(refs)))
