"""A named slip made early costs its share once, in the LMS as in ``check``: ``check`` charges the step
where the slip is made (the ``[grading]`` slip share) and carries the later steps that follow from the
slipped value at full marks ("consistent with your own earlier answers"). Moodle (numerical questions with
answer fractions) and the Cloze question list the slip's value at the step where it is made at the slip
share and the values of its chain at later steps at 100 %, so an answers file with the slip earns the same
in ``check``, in Moodle and in Cloze; QTI 2.1 gives the chain full marks too.

The answers are built here with numpy from the givens (every step rounded to 3 decimals and carried, as a
student works by hand), Moodle's numerical grading is simulated as in tests/exports/test_lms.py and the
Cloze question read with the multianswer parser of tests/exports/test_moodle_cloze.py.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.homework.generate import Options, generate
from attncalc.mechanisms import solve
from attncalc.reports.lms_numbers import NEAR
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.moodle_cloze import cloze_files
from attncalc.reports.qti import qti_zip

from .test_lms import moodle_grade, moodle_questions
from .test_lms_chain import r3
from .test_moodle_cloze import extract, sub_fraction
from .test_qti import Package, by_step, score

SHARE = 0.5


def _variant(seed: int) -> tuple[Any, dict[str, Any]]:
    # d_k = 4: √d_k = 2 exactly, so the hand chain is one chain (no 1.414 against √2 to choose between)
    res = generate(Options(kind="attention", score="scaled-dot", dim=4, seed=seed, count=1, slip_share=SHARE))
    d = res.derivations[0]
    assert d.problem.grading.slip == SHARE
    return d, res.problems[0]["given"]


def _seeds(n: int) -> list[int]:
    """The first n seeds whose scores are all nonzero (both slips then change every entry of the step where
    they are made: where a slip leaves an entry right, the LMS grades that entry right and check gives the
    step the larger of its right entries' share and the slip share, docs/lms.md)."""
    out = []
    for seed in range(1, 100):
        g = _variant(seed)[1]
        if np.all(np.asarray(g["keys"], dtype=float) @ np.asarray(g["query"], dtype=float) != 0):
            out.append(seed)
        if len(out) == n:
            return out
    raise AssertionError("too few seeds")


def _chain(given: dict[str, Any], slip: str) -> dict[str, Any]:
    """The hand chain with one named slip: ``no_scale`` (the scores not divided by √d_k) or ``no_sum``
    (the exponentials not divided by their sum: the weights are the exponentials), each later step
    computed from the slipped values."""
    q, keys = np.asarray(given["query"], dtype=float), np.asarray(given["keys"], dtype=float)
    e = r3(keys @ q)
    s = e if slip == "no_scale" else r3(e / np.sqrt(q.size))
    x = r3(np.exp(s))
    z = r3(x.sum())
    a = x if slip == "no_sum" else r3(x / z)
    c = r3(a @ keys)
    chain = {"scores": e, "scaled_scores": s, "exponentials": x, "exp_sum": z, "weights": a, "context": c}
    return {k: np.asarray(v).tolist() for k, v in chain.items()}


def _flat(answers: dict[str, Any]) -> dict[str, list[float]]:
    return {k: np.ravel(v).tolist() for k, v in answers.items()}


SEEDS = _seeds(3)


def _moodle_score(d: Any, answers: dict[str, Any]) -> float:
    """Each question's fraction times its default mark, summed (what Moodle's quiz gives the variant)."""
    quiz = moodle_questions(moodle_xml([d], seed=0))
    answers = _flat(answers)
    total = 0.0
    for step_id, qs in quiz.items():
        for q, x in zip(qs, answers[step_id], strict=True):
            if q.get("type") == "multichoice":  # a label: the option picked
                right = [float(a.get("fraction", 0)) / 100 for a in q.findall("answer") if a.findtext("text") == x]
                fraction = right[0] if right else 0.0
            else:
                fraction = moodle_grade(q, float(x))[0]
            total += fraction * float(q.find("defaultgrade").text)  # type: ignore[union-attr, arg-type]
    return total


def _cloze_score(d: Any, answers: dict[str, Any]) -> float:
    """The Cloze question's sub-questions, each graded as Moodle's multianswer does, scaled back to check's
    points (the question's name says its marks' factor)."""
    root = ET.fromstring(cloze_files([d], 5, "t", "w")["cloze.xml"])
    q = root.findall("question")[1]
    text = q.find("questiontext/text").text or ""  # type: ignore[union-attr]
    name = q.find("name/text").text or ""  # type: ignore[union-attr]
    factor = int(re.search(r"default mark is [0-9.]+ x ([0-9]+)", name).group(1))  # type: ignore[union-attr]
    subs, _ = extract(text)
    answers = _flat(answers)
    # the step of each sub-question, in the order they are asked
    asked = [(m.group(1), m.start()) for m in re.finditer(r"Compute <b>.*?</b> \[([^\]]+)\]", text)]
    responses = []
    seen: dict[str, int] = {}
    for at in (m.start() for m in re.finditer(r"\{\d+:NUMERICAL:|\{\d+:MULTICHOICE", text)):
        step_id = [sid for sid, start in asked if start < at][-1]
        k = seen.get(step_id, 0)
        seen[step_id] = k + 1
        responses.append(str(answers[step_id][k]))
    assert len(responses) == len(subs)
    return float(
        sum(Fraction(repr(sub_fraction(s, r))) * s.mark for s, r in zip(subs, responses, strict=True)) / factor
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("slip", ["no_scale", "no_sum"])
def test_an_early_slip_costs_its_share_once_in_moodle_and_cloze_as_in_check(seed: int, slip: str) -> None:
    d, given = _variant(seed)
    answers = _chain(given, slip)
    rep = check(d.problem, answers, "a.toml")
    slipped = [r for r in rep.results if r.credit < 1]
    assert len(slipped) == 1 and slipped[0].credit == SHARE and slipped[0].mistake, [
        (r.id, r.credit, r.mistake) for r in rep.results
    ]  # the slip charged once, the later steps carried
    later = [r.id for r in rep.results][[r.id for r in rep.results].index(slipped[0].id) + 1 :]
    assert later  # a chain follows the slip (else the test tests nothing)
    assert _moodle_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
    assert _cloze_score(d, answers) == pytest.approx(rep.score, abs=1e-5)


@pytest.mark.parametrize("slip", ["no_scale", "no_sum"])
def test_qti21_carries_the_slip_chain_at_full_marks(slip: str) -> None:
    d, given = _variant(SEEDS[0])
    answers = _chain(given, slip)
    rep = check(d.problem, answers, "a.toml")
    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    flat = _flat(answers)
    total = sum(
        score(item, {"RESPONSE": x}) for sid, items in steps.items() for item, x in zip(items, flat[sid], strict=True)
    )
    assert total == pytest.approx(rep.score, abs=1e-5)


def test_a_problem_without_a_slip_share_gives_the_chain_full_marks_and_the_slip_nothing() -> None:
    d, given = _variant(SEEDS[0])
    p = dataclasses.replace(d.problem, grading=dataclasses.replace(d.problem.grading, slip=0.0))
    d = solve(p)
    answers = _chain(given, "no_scale")
    rep = check(p, answers, "a.toml")
    assert rep.score == pytest.approx(rep.out_of - 1)  # the scaled scores' point lost, nothing else
    assert _moodle_score(d, answers) == pytest.approx(rep.score, abs=1e-5)


# ---------------------------------------------------------------- the slip's chain from the answer key
# A student works each later step from their own earlier answers as written: the key's rounded values
# before the slip, the slip made at its step on them, then every later step from the rounded values before
# it, rounded at the sheet's 3 decimals (what a student who copies the sheet's key up to the slip writes).
Steps = list[tuple[str, Any]]  # (step id, the step's formula on the values before it)


def _softmax(z: np.ndarray) -> np.ndarray:
    return np.exp(z) / np.exp(z).sum()


def _attention_steps(problem: dict[str, Any]) -> Steps:
    """Bahdanau-Luong attention with a scaled-dot score and an output head (the values are the keys)."""
    s, h = np.asarray(problem["given"]["query"], float), np.asarray(problem["given"]["keys"], float)
    w_out = np.asarray(problem["head"]["W_out"], float)
    return [
        ("scores", lambda w: h @ s),
        ("scaled_scores", lambda w: w["scores"] / np.sqrt(s.size)),
        ("exponentials", lambda w: np.exp(w["scaled_scores"])),
        ("exp_sum", lambda w: w["exponentials"].sum()),
        ("weights", lambda w: w["exponentials"] / w["exp_sum"]),
        ("context", lambda w: w["weights"] @ h),
        ("combined", lambda w: s + w["context"]),
        ("logits", lambda w: w_out @ w["combined"]),
        ("probabilities", lambda w: _softmax(w["logits"])),
    ]


def _smoothing_steps(problem: dict[str, Any]) -> Steps:
    """A softmax with cross-entropy against the target smoothed by ε (PyTorch's: (1 − ε)·y + ε/K)."""
    g, eps = problem["given"], float(problem["settings"]["label_smoothing"])
    z = np.asarray(g["logits"], float)
    y = np.asarray([v == g["target"] for v in g["vocab"]], float)
    return [
        ("exponentials", lambda w: np.exp(z)),
        ("exp_sum", lambda w: w["exponentials"].sum()),
        ("probabilities", lambda w: w["exponentials"] / w["exp_sum"]),
        ("smoothed_target", lambda w: (1 - eps) * y + eps / y.size),
        ("loss", lambda w: -(w["smoothed_target"] * np.log(w["probabilities"])).sum()),
        ("gradient", lambda w: w["probabilities"] - w["smoothed_target"]),
    ]


def _smoothing_slip(problem: dict[str, Any]) -> Any:
    """The Annotated Transformer's smoothing: 1 − ε on the target, ε/(K − 1) on each other class."""
    g, eps = problem["given"], float(problem["settings"]["label_smoothing"])
    y = np.asarray([v == g["target"] for v in g["vocab"]], float)
    return lambda w: (1 - eps) * y + eps / (y.size - 1) * (1 - y)


# each slip (check's name; softmax_ for the softmax kind's): the step it is made at and the step's value
# with it, from the values before it
SLIPS: dict[str, tuple[str, Any]] = {
    "no_scale": ("scaled_scores", lambda p: lambda w: w["scores"]),
    "not_normalised": ("weights", lambda p: lambda w: w["exponentials"]),
    "softmax_not_normalised": ("probabilities", lambda p: lambda w: w["exponentials"]),
    "smoothing_k_minus_1": ("smoothed_target", _smoothing_slip),
}


def _from_key(steps: Steps, slip: str, problem: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The key (true values rounded) and the answers with the slip: the key before the slip's step, the
    slip made there on the key's values, every later step from the written values, each rounded."""
    at, make = SLIPS[slip]
    true: dict[str, np.ndarray] = {}
    for sid, f in steps:
        true[sid] = f(true)
    written: dict[str, np.ndarray] = {}
    made = False
    for sid, f in steps:
        made = made or sid == at
        written[sid] = r3(make(problem)(written) if sid == at else f(written) if made else true[sid])
    return {k: r3(v) for k, v in true.items()}, written


def _fair(key: dict[str, np.ndarray], written: dict[str, np.ndarray], at: str) -> bool:
    """No later value is NEAR units of 0.001 from the key (that keeps the slip share: docs/lms.md). (A slip
    may leave entries of its step right: the LMS grades those right and the changed ones at the slip share,
    and check gives the step the same, each entry on its own.)"""
    later = list(written)[list(written).index(at) + 1 :]
    gaps = [np.abs(written[k] - key[k]) for k in later]
    return not any(np.any((g > 1e-9) & (g < (NEAR + 0.5) * 0.001)) for g in gaps)


CASES = {  # kind: (options, steps, its slips)
    "attention": (
        dict(kind="attention", score="scaled-dot", head=True),
        _attention_steps,
        ("no_scale", "not_normalised"),
    ),
    "softmax": (
        dict(kind="softmax", label_smoothing=0.1),
        _smoothing_steps,
        ("softmax_not_normalised", "smoothing_k_minus_1"),
    ),
}


def _drawn(kind: str, seed: int) -> tuple[Any, dict[str, Any]]:
    res = generate(Options(**CASES[kind][0], seed=seed, count=1, slip_share=SHARE))
    return res.derivations[0], res.problems[0]


def _keyed_seeds(kind: str, n: int, leaves_right: bool = False) -> list[int]:
    """The first n seeds whose slips' chains stay NEAR units away from the key; with ``leaves_right``, only
    seeds where a slip leaves an entry of its step right (a score of 0 unscaled)."""
    out = []
    for seed in range(1, 400):
        problem = _drawn(kind, seed)[1]
        steps = CASES[kind][1](problem)
        made = [(_from_key(steps, slip, problem), SLIPS[slip][0]) for slip in CASES[kind][2]]
        kept = any(np.any(np.abs(w[at] - k[at]) < 1e-9) for (k, w), at in made)
        if all(_fair(k, w, at) for (k, w), at in made) and kept >= leaves_right:
            out.append(seed)
        if len(out) == n:
            return out
    raise AssertionError("too few seeds")


KEYED = [
    (kind, seed, slip)
    for kind, n in (("attention", 3), ("softmax", 8))
    for seed in sorted(
        {*_keyed_seeds(kind, n), *(_keyed_seeds(kind, 1, leaves_right=True) if kind == "attention" else [])}
    )
    for slip in CASES[kind][2]
]


def _with_label(d: Any, written: dict[str, np.ndarray]) -> dict[str, Any]:
    """The answers file: the numbers written at the sheet's 3 decimals ("0.900", not 0.9: an entry written
    with fewer decimals is judged at the precision written, which the LMS's tolerance does not do), and
    the label the written probabilities pick (a prediction)."""
    answers: dict[str, Any] = {k: np.vectorize(lambda x: f"{x:.3f}")(v).tolist() for k, v in written.items()}
    for step in d.steps:
        if isinstance(step.value, str) and step.id == "prediction":
            vocab = list(step.labels)
            answers[step.id] = vocab[int(np.argmax(written["probabilities"]))]
    return answers


@pytest.mark.parametrize(("kind", "seed", "slip"), KEYED)
def test_a_slip_made_on_the_answer_key_costs_its_share_once_in_moodle_and_cloze(
    kind: str, seed: int, slip: str
) -> None:
    d, problem = _drawn(kind, seed)
    _, written = _from_key(CASES[kind][1](problem), slip, problem)
    answers = _with_label(d, written)
    rep = check(d.problem, answers, "a.toml")
    key, _ = _from_key(CASES[kind][1](problem), slip, problem)
    at = SLIPS[slip][0]
    kept = np.abs(np.ravel(written[at]) - np.ravel(key[at])) < 1e-9  # entries the slip leaves right
    share = (kept.sum() + SHARE * (~kept).sum()) / kept.size  # each entry on its own, as an LMS item
    charged = [r for r in rep.results if r.credit < 1]
    assert [r.id for r in charged] == [at] and charged[0].credit == pytest.approx(share, abs=1e-12), [
        (r.id, r.credit, r.mistake) for r in rep.results
    ]  # the slip charged once at its step (on the entries it changes), the later steps carried
    assert charged[0].mistake == slip.removeprefix("softmax_")  # (check's name for it)
    assert rep.score < rep.out_of
    assert _moodle_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
    assert _cloze_score(d, answers) == pytest.approx(rep.score, abs=1e-5)
