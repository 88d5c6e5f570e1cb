"""What one ``attncalc check`` may cost: the ceiling on an answers file's work, refused up front (exit 2
on the command line, a JSON error on the practice page), and the runs check shares between steps
(attncalc/check/wide.py), which must leave every report as it is: each case is graded with the sharing on and
off and the reports compared. Counted, never timed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import budget as check_budget
from attncalc.check import check, load_answers
from attncalc.check import wide as check_wide
from attncalc.check.answers import Tolerance, parse_answers
from attncalc.check.runs import Runs
from attncalc.derivation.arith import Chain, StopRun
from attncalc.errors import ProblemError
from attncalc.mechanisms import MECHANISMS, solve
from attncalc.mechanisms import bpe_algo as algo
from attncalc.parse import load_problem, parse_problem
from attncalc.reports.check_view import report_dict

from ..helpers import PROBLEMS, ROOT, one_line_refusal, run_cli

_spec = importlib.util.spec_from_file_location("bench_check_cost", ROOT / "benchmarks" / "bench_check_cost.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _report(problem: Path, answers: Path, share: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(check_wide, "SHARE", share)
    raw, _ = load_answers(answers)
    return report_dict(check(load_problem(problem), raw, str(answers)))


def _same_both_ways(problem: Path, answers: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    shared = _report(problem, answers, True, monkeypatch)
    alone = _report(problem, answers, False, monkeypatch)
    assert json.dumps(shared, sort_keys=True) == json.dumps(alone, sort_keys=True)
    return shared


# ------------------------------------------------------------------------------ the ceiling


def test_every_step_of_the_largest_backward_pass_answered_wrong_is_refused_up_front(tmp_path: Path) -> None:
    """32 heads of 45 tokens (every limit), every step answered with whole numbers: 529 steps none of
    which is the true value as written, each rechecked through the whole problem, pass the ceiling;
    refused in one line naming the file and the limit, in a process bounded in memory."""
    problem = bench.backward_problem(tmp_path)
    answers = bench.whole_answers(tmp_path, problem)
    assert answers.stat().st_size < 2**20  # within the default file size: nothing else refuses it
    err = one_line_refusal(run_cli("check", str(problem), str(answers), timeout=120), str(answers))
    truth = solve(load_problem(problem), exact=False)
    steps = len(truth.steps)
    assert steps == 529  # 16 per head, and 17 more: the forward and backward steps of docs/interface.md
    assert f"{steps} answered steps differ from the true value" in err, err
    assert f"{steps * check_budget.size(truth):,} units of work" in err, err
    assert f"at most {check_budget.MAX_WORK:,}" in err, err


def test_the_refusal_is_the_practice_pages_json_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON route refuses the same answers with check's line. (The page itself does not offer a problem
    of this size - over its 4,000 fields, the next test - so the bound is lifted here for the route.)"""
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
    from attncalc.serve import served

    from ..serve_support import client

    monkeypatch.setattr(served, "MAX_PAGE_FIELDS", 10**6)
    problem = bench.backward_problem(tmp_path)
    answers = json.loads(bench.whole_answers(tmp_path, problem).read_text())
    r = client([str(problem)]).post(f"/problems/{problem.stem}/check", json={"answers": answers})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert "units of work" in error and f"at most {check_budget.MAX_WORK:,}" in error, error


def test_the_page_does_not_offer_a_problem_of_that_size(tmp_path: Path) -> None:
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
    from ..serve_support import client

    problem = bench.backward_problem(tmp_path)
    answers = json.loads(bench.whole_answers(tmp_path, problem).read_text())
    r = client([str(problem)]).post(f"/problems/{problem.stem}/check", json={"answers": answers})
    assert r.status_code == 422 and "more than a practice page's 4,000" in r.json()["error"], r.text


def test_the_refusal_on_the_page_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A form posted from the practice page, over a ceiling lowered for the test: the page again, 422,
    saying why (as it says any answer check refuses)."""
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
    from ..serve_support import client

    monkeypatch.setattr(check_budget, "MAX_WORK", 5)  # the one wrong step costs 9
    r = client([str(PROBLEMS / "decoder-dot.toml")]).post(
        "/problems/decoder-dot/check", data={"weights[0]": "0.9", "weights[1]": "0.05", "weights[2]": "0.05"}
    )
    assert r.status_code == 422, r.text
    assert "units of work" in r.text and "at most 5" in r.text


def test_answers_as_written_cost_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work counts only the steps that are not the true value as written: the decoder-dot example has
    9 steps and computes far fewer than 1,000 numbers and multiplications (9 units); two steps answered
    right and one wrong cost 1 × 9 units, graded under a ceiling of 9 and refused under one of 8."""
    problem = load_problem(PROBLEMS / "decoder-dot.toml")
    e = np.exp([1.0, 2.0, 2.0])  # s · h_i by hand: 1, 2, 2 (README's tour)
    answers = {"scores": [1, 2, 2], "exp_sum": f"{e.sum():.3f}", "weights": [0.9, 0.05, 0.05]}
    truth = solve(problem, exact=False, carry_rounded=False)
    assert len(truth.steps) == 9 and check_budget.size(truth) == 9
    parsed = parse_answers(answers, truth, "a.toml")
    assert check_budget.work(parsed, truth, Tolerance()) == (1, 9)
    monkeypatch.setattr(check_budget, "MAX_WORK", 9)
    assert [r.verdict for r in check(problem, answers, "a.toml").results] == ["correct", "correct", "wrong"]
    monkeypatch.setattr(check_budget, "MAX_WORK", 8)
    with pytest.raises(ProblemError, match=r"^a\.toml: 1 answered step differs .* 9 units of work.* at most 8 "):
        check(problem, answers, "a.toml")


def test_answered_entries_ceiling(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = tmp_path / "a.toml"
    answers.write_text('scores = [1, 2, 2]\nweights = [0.155, "?", 0.422]\n')
    monkeypatch.setattr(check_budget, "MAX_ANSWERED", 4)  # 5 entries answered ("?" is not)
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers))
    assert result.exit_code == 2
    assert "5 answered entries: check grades at most 4 in one answers file" in result.stderr, result.stderr
    monkeypatch.setattr(check_budget, "MAX_ANSWERED", 5)
    assert cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers)).exit_code == 0


def test_a_big_problems_key_is_graded(tmp_path: Path) -> None:
    """Every step of an 8-head, 45-token backward pass answered with its true value to 3 decimals
    (105,736 entries, the key generate writes): no work, all correct."""
    problem = bench.backward_problem(tmp_path, 8, 45)
    p = load_problem(problem)
    truth = solve(p, exact=False, carry_rounded=False)
    key = {s.id: np.round(np.asarray(s.value, dtype=float), 3).tolist() for s in truth.steps}
    assert check_budget.work(parse_answers(key, truth, "key"), truth, Tolerance()) == (0, 0)
    report = check(p, key, "key")
    assert {r.verdict for r in report.results} == {"correct"}


def _bpe_at_every_limit(tmp_path: Path) -> tuple[Path, Any]:
    problem = bench.bpe_problem(tmp_path)
    return problem, solve(load_problem(problem), exact=False, carry_rounded=False)


def test_a_bpe_run_is_sized_by_the_words_it_rewrites(tmp_path: Path) -> None:
    """Each merge writes every word as its tokens: 50 merges over 100 words of 40 letters write at least
    50 · 100 · 40 = 200,000 characters (and a space between tokens), 200 units or more beside the 173
    steps; the counts alone (a few thousand numbers) were most of the 196 units the size was before."""
    _, truth = _bpe_at_every_limit(tmp_path)
    assert len(truth.steps) == 173
    assert check_budget.size(truth) >= 173 + 200


def test_every_step_of_the_largest_bpe_problem_with_its_tokens_altered_is_refused_up_front(tmp_path: Path) -> None:
    """Tryout 29's file: every limit of kind bpe, every count one more and every token step answered
    with its tokens altered (an "x" added). Each of the 122 token steps (50 merges, 50 words, merges,
    vocab, 20 encodings) is recomputed from the answerer's own answers and with each of kind bpe's 4
    usual slips in a run of its own (5 runs); the 51 counts (the word counts, 50 pair tables) one run
    each. Graded, it took 2 minutes and 4 GB; refused up front, naming why."""
    problem, truth = _bpe_at_every_limit(tmp_path)
    answers = bench.bpe_token_answers(tmp_path, problem)
    err = one_line_refusal(run_cli("check", str(problem), str(answers), timeout=120), str(answers))
    one = check_budget.size(truth)
    assert "173 answered steps differ from the true value" in err, err
    assert "122 of them labels or tokens, each 5 times that: once more for each of the 4 usual slips" in err, err
    assert f"{one * (51 + 5 * 122):,} units of work" in err, err


def test_every_step_of_the_largest_bpe_problem_answered_wrong_is_refused(tmp_path: Path) -> None:
    """The benchmark's own wrong answers (another pair merged, the words as before the merge, ...):
    the same 122 token steps and 51 counts, refused the same way."""
    problem, truth = _bpe_at_every_limit(tmp_path)
    raw, _ = load_answers(bench.bpe_wrong_answers(tmp_path, problem))
    parsed = parse_answers(raw, truth, "a")
    assert check_budget.costly_steps(parsed, truth, Tolerance()) == (51, 122)
    with pytest.raises(ProblemError, match=r"^a: 173 answered steps differ .*122 of them labels or tokens"):
        check(load_problem(problem), raw, "a")


def test_the_most_the_ceiling_admits_of_the_largest_bpe_problem_is_graded(tmp_path: Path) -> None:
    """16 token steps with their tokens altered (16 · 5 runs of the problem): within the ceiling, graded,
    each wrong (no slip gives a token the problem does not have); and every count wrong, the token steps
    unanswered: graded, each count wrong or carried."""
    problem, truth = _bpe_at_every_limit(tmp_path)
    one = check_budget.size(truth)
    assert 16 * 5 * one <= check_budget.MAX_WORK < 17 * 5 * one  # (the most: one more is refused)
    raw, _ = load_answers(bench.bpe_token_answers(tmp_path, problem, "tokens", 16))
    assert len(raw) == 16
    report = check(load_problem(problem), raw, "a")
    assert [r.verdict for r in report.results] == ["wrong"] * 16
    assert all(r.mistake is None for r in report.results)
    raw, _ = load_answers(bench.bpe_token_answers(tmp_path, problem, "counts"))
    assert len(raw) == 51 and 51 * one <= check_budget.MAX_WORK
    report = check(load_problem(problem), raw, "a")
    assert {r.verdict for r in report.results} <= {"wrong", "carried"} and report.results[0].verdict == "wrong"


def test_the_answerers_whole_runs_are_a_bounded_few(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A label step answered otherwise is tried in whole runs of its own (its answer left out): each
    keeps every step of the problem, several MB for a large bpe problem. They are kept among the
    bounded few (tryout 29: 620 such runs kept at once, 4 GB)."""
    problem = bench.bpe_problem(tmp_path, words=12, merges=8, length=12, encode=4)
    raw, _ = load_answers(bench.bpe_token_answers(tmp_path, problem, "tokens"))
    most = 0
    keep = check_wide.RunStore.keep

    def counting(self: Any, key: tuple[Any, ...], run: Any, bounded: bool, weight: int = 1) -> Any:
        nonlocal most
        got = keep(self, key, run, bounded, weight)
        whole = [k for k, v in self.items() if v is not None and k[5] and not k[-1]]  # answers in it, not light
        most = max(most, len(whole))
        return got

    monkeypatch.setattr(check_wide.RunStore, "keep", counting)
    report = check(load_problem(problem), raw, "a")
    assert len(report.results) == len(raw) > check_wide.RECENT
    assert 0 < most <= check_wide.RECENT


# ------------------------------------------------------------------------------ shared runs: same reports


def test_bpe_every_step_wrong_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    problem = bench.bpe_problem(tmp_path, words=12, merges=8, length=12, encode=4)
    report = _same_both_ways(problem, bench.bpe_wrong_answers(tmp_path, problem), monkeypatch)
    # each answer was made wrong: nothing is correct
    assert report["summary"]["correct"] == 0 and report["summary"]["wrong"] > 0


def test_backward_whole_numbers_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    problem = bench.backward_problem(tmp_path, 4, 8)
    report = _same_both_ways(problem, bench.whole_answers(tmp_path, problem), monkeypatch)
    assert report["summary"]["carried"] > 0 and report["summary"]["wrong"] > 0


def test_backward_carried_and_a_slip_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Head 1's weights wrong in one row (the later steps worked on from them), head 2's grad_scores
    without the 1/√d_k (d_k = 2: a named slip), the rest right: carried steps, a slip, corrects."""
    raw = json.loads(bench.backward_problem(tmp_path, 4, 6).read_text()) | {"score": "scaled-dot"}
    rng = np.random.default_rng(1)
    raw["given"]["W_Q"] = np.round(rng.uniform(-1, 1, (4, 8)), 1).tolist()  # d_k = 2
    raw["given"]["W_K"] = np.round(rng.uniform(-1, 1, (4, 8)), 1).tolist()
    problem = tmp_path / "backward-dk2.json"
    problem.write_text(json.dumps(raw))
    p = load_problem(problem)
    mech = MECHANISMS[p.kind]

    def computed(**kw: Any) -> dict[str, np.ndarray]:
        chain = Chain("float", **kw)
        with np.errstate(all="ignore"):
            mech.run(p, chain)
        return chain.computed

    truth = computed()
    weights = truth["head.1.weights"].copy()
    weights[-1, :2] += [0.2, -0.2]
    over = {"head.1.weights": weights}
    over["head.2.grad_scores"] = computed(mistake="grad_no_scale", overrides=over)["head.2.grad_scores"]
    mine = computed(overrides=over)
    answers = {k: np.round(np.asarray(over.get(k, v), dtype=float), 3).tolist() for k, v in mine.items()}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(answers))
    report = _same_both_ways(problem, path, monkeypatch)
    by_id = {r["id"]: r for r in report["results"]}
    assert by_id["head.1.weights"]["verdict"] == "wrong"
    assert by_id["head.1.output"]["verdict"] == "carried"
    assert by_id["head.2.grad_scores"].get("mistake") == "grad_no_scale"


def test_examples_answers_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example answers files (problems/answers/), graded with the sharing on and off."""
    files = sorted((PROBLEMS / "answers").glob("*"))
    assert files
    for answers in files:
        _, named = load_answers(answers)
        if named is None:
            continue
        problem = Path(named)
        assert _same_both_ways(problem, answers, monkeypatch)


# ------------------------------------------------------------------------------ the pieces


def test_bpe_dependants_without_runs_are_those_the_runs_find(monkeypatch: pytest.MonkeyPatch) -> None:
    """kind bpe says a poisoned step gives up at once, so its dependants are every later step; the
    same as the runs find, for every step of CS336's example and of a word table whose counts are
    999 (the irregular move of a count of 999 is a whole number: then the runs are made)."""
    for raw in (
        None,
        {"kind": "bpe", "given": {"words": {"low": 999, "lower": 999, "newest": 2}, "merges": 3, "encode": ["low"]}},
    ):
        p = load_problem(PROBLEMS / "bpe-cs336.toml") if raw is None else parse_problem(raw, "t.toml")
        steps = [s.id for s in solve(p, exact=False).steps]
        found = {}
        for share in (True, False):
            monkeypatch.setattr(check_wide, "SHARE", share)
            runs = Runs(p, [])
            found[share] = {k: runs.descendants(k) for k in steps}
        assert found[True] == found[False]
        assert found[True]["1.merge"] == frozenset(steps[steps.index("1.merge") + 1 :])


@pytest.mark.parametrize("name", ["lstm-doc-encoder.toml", "mh-self-attention.toml", "decoder-dot.toml"])
def test_dependants_the_same_both_ways(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step's dependants, found with the sharing on (the second run left out once the first
    finds every later step) and off."""
    p = load_problem(PROBLEMS / name)
    steps = [s.id for s in solve(p, exact=False).steps if not isinstance(s.value, str)]  # (not a label)
    found = {}
    for share in (True, False):
        monkeypatch.setattr(check_wide, "SHARE", share)
        runs = Runs(p, [])
        found[share] = {k: runs.descendants(k) for k in steps}
    assert found[True] == found[False]


def test_bpe_written_terms_as_counted_word_by_word() -> None:
    """A merge's written terms, each pair's occurrences found word by word (the way the mechanism did
    before it counted every pair in one pass): CS336's first table, by hand: o w is 5 (low) + 2
    (lower), s t is 3 (widest) + 6 (newest)."""
    d = solve(load_problem(PROBLEMS / "bpe-cs336.toml"), exact=False)
    table = d.step("1.pairs")
    rows = dict(zip(table.rows, table.written, strict=True))
    assert rows["o w"] == "5 (low) + 2 (lower)"
    assert rows["s t"] == "3 (widest) + 6 (newest)"
    words = {"low": 5, "lower": 2, "widest": 3, "newest": 6}
    for pair_text, written in rows.items():
        pair = tuple(pair_text.split(" "))
        found = []  # (times in the word, the word's count, the word)
        for w, n in words.items():
            k = sum(1 for i in range(len(w) - 1) if (w[i], w[i + 1]) == pair)
            if k:
                found.append((k, n, w))
        if len(found) > 1 or found[0][0] > 1:
            expected = " + ".join(f"{k}·{n} ({w})" if k > 1 else f"{n} ({w})" for k, n, w in found)
        else:  # one word, once: the count alone
            expected = str(found[0][1])
        assert written == expected, pair_text


def test_occurrences_by_pair_counts_each_word_once() -> None:
    segs = [("a", "a", "a"), ("b", "a"), ("a", "a")]
    assert algo.occurrences_by_pair(segs) == {("a", "a"): [(0, 2), (2, 1)], ("b", "a"): [(1, 1)]}


def test_the_store_keeps_a_bounded_few_of_the_answerers_runs() -> None:
    """Large runs (a whole run each, or as many numbers): the last RECENT kept, the older made again."""
    store: check_wide.RunStore[int] = check_wide.RunStore()
    for i in range(50):
        store.keep(("own", i), i, bounded=True, weight=check_wide.WHOLE_RUN)
        store.keep(("one step", i), i, bounded=False)
    assert store.get(("own", 0), False) is False  # made again when asked again
    assert [k for k in store if k[0] == "own"] == [("own", i) for i in range(50 - check_wide.RECENT, 50)]
    assert len([k for k in store if k[0] == "one step"]) == 50  # one step's value each: kept


def test_the_store_keeps_more_small_runs_up_to_a_limit() -> None:
    """Runs of 1,000 numbers: as many as KEPT_NUMBERS holds beyond the first RECENT (2,000 of them), up
    to MOST (256); runs of 100,000 numbers: 20 (2,000,000 numbers), at least RECENT (12) whatever their
    size. A run kept again under its key counts once."""
    for weight, kept in ((1_000, check_wide.MOST), (100_000, 20), (10**7, check_wide.RECENT)):
        store: check_wide.RunStore[int] = check_wide.RunStore()
        for i in range(400):
            store.keep(("own", i), i, bounded=True, weight=weight)
            store.keep(("own", i), i, bounded=True, weight=weight)
        assert len(store) == kept, weight
        assert list(store) == [("own", i) for i in range(400 - kept, 400)]


class _Finishing:
    """A mechanism that finishes the steps it is given, in order (a number each), then maybe fails."""

    def __init__(self, order: list[str], fail: bool = False) -> None:
        self.order, self.fail = order, fail

    def run(self, problem: Any, chain: Chain) -> list[Any]:
        for i, k in enumerate(self.order):
            chain.finish(k, np.array([float(i)]))
        if self.fail:
            raise ValueError("given up")
        return []


def test_a_wide_run_serves_only_what_a_stopped_run_gives() -> None:
    index = {"a": 0, "b": 1, "c": 2, "d": 3}

    def wide(order: list[str], fail: bool = False, overrides: dict[str, Any] | None = None) -> check_wide.Wide:
        chain = check_wide.RecordingChain("float", overrides=overrides)
        return check_wide.wide_run(_Finishing(order, fail), None, chain, None, index)

    w = wide(["a", "b", "c"])
    assert [float(w.lookup(k)[0]) for k in "abc"] == [0.0, 1.0, 2.0]
    assert w.lookup("d") is check_wide.FALLBACK  # never finished: the run itself says what it gives
    w = wide(["a", "b", "a", "c"])  # a finished again after b: a run stopped after a ends at b
    assert w.lookup("a") is check_wide.FALLBACK and float(w.lookup("c")[0]) == 3.0
    w = wide(["a", "b"], fail=True)  # fails after b: a run stopped after b fails too, and one after d
    assert float(w.lookup("a")[0]) == 0.0 and w.lookup("b") is None and w.lookup("d") is None
    # d's answer used before b (a slip that reorders the work): b's stopped run does not use it
    w = wide(["a", "d", "b", "c"], overrides={"d": np.array([9.0])})
    assert float(w.lookup("a")[0]) == 0.0 and w.lookup("b") is check_wide.FALLBACK


def test_a_run_failing_on_a_steps_own_answer_leaves_that_step_to_its_stopped_run() -> None:
    """b answered with two numbers where the step computes one: the wide run fails finishing b (its
    answer cannot take b's shape), but the run stopped after b leaves b's own answer out and gives b's
    value; the wide run must not say it fails (a bpe pair table answered with one pair too many)."""
    index = {"a": 0, "b": 1, "c": 2}
    chain = check_wide.RecordingChain("float", overrides={"b": np.array([5.0, 6.0])})
    w = check_wide.wide_run(_Finishing(["a", "b", "c"]), None, chain, None, index)
    assert w.failed and w.gave_up
    assert w.lookup("b") is check_wide.FALLBACK
    stopped = Chain("float", stop_after="b")  # (the stopped run: b's own answer left out)
    with pytest.raises(StopRun):
        _Finishing(["a", "b", "c"]).run(None, stopped)
    assert float(stopped.computed["b"][0]) == 1.0
