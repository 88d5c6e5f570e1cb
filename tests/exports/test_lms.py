"""The LMS exports grade as ``attncalc check`` does (docs/lms.md).

QTI 2.1 items are scored by the minimal QTI consumer of tests/exports/test_qti.py (written from the QTI 2.1
spec: equal with an absolute tolerance, or, match, NULL for an unanswered response). Moodle's scoring
of a numerical question is simulated as its question type does it (question/type/numerical: the
answers are tried in file order, the first within ``answer ± tolerance`` gives its fraction and its
feedback). What ``check`` accepts is asked of ``check`` itself, and the slip's numbers are recomputed
here from the givens with numpy.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip

from .test_qti import Package, Q, by_step, maxscore, run, score, shown_feedback

ROOT = Path(__file__).resolve().parents[2]


def moodle_questions(xml: str) -> dict[str, list[ET.Element]]:
    """The questions of a quiz.xml by step id (their names: "Variant 1: Scores [scores] e_1 (x1)")."""
    out: dict[str, list[ET.Element]] = {}
    for q in ET.fromstring(xml).findall("question"):
        if q.get("type") == "category":
            continue
        found = re.search(r"\[([\w.\-]+)\]", q.find("name/text").text.split(": ", 1)[1])
        assert found is not None
        out.setdefault(found.group(1), []).append(q)
    return out


def moodle_grade(q: ET.Element, x: float) -> tuple[float, str]:
    """Moodle's numerical question on a response: the first answer (file order) whose interval
    answer ± tolerance holds x (nominal tolerance, the type's default) gives its fraction and feedback."""
    for a in q.findall("answer"):
        tol = float(a.find("tolerance").text)
        if abs(x - float(a.find("text").text)) <= tol + 1e-14:
            fb = a.find("feedback/text")
            return float(a.get("fraction")) / 100, "" if fb is None or fb.text is None else fb.text
    return 0.0, ""


def _flat(x: Any) -> list[Any]:
    return [v for row in x for v in _flat(row)] if isinstance(x, list) else [x]


def test_a_hand_chain_at_the_asked_decimals_earns_full_marks_in_moodle_and_qti() -> None:
    """decoder-dot rounded and carried at 3 decimals: check grades it all correct, and its context is
    0.577 where the key says 0.578; every entry earns its full points in both formats."""
    p = load_problem(ROOT / "problems" / "decoder-dot.toml")
    hand = solve(p, carry_rounded=True)
    answers = {s.id: np.asarray(s.shown).tolist() for s in hand.steps if not isinstance(s.value, str)}
    answers.update({s.id: s.value for s in hand.steps if isinstance(s.value, str)})
    rep = check(p, answers, "hand.toml")
    assert rep.all_correct, [r.note for r in rep.results if r.verdict != "correct"]
    d = solve(p)
    key = {s.id: np.asarray(s.shown).tolist() for s in d.steps if not isinstance(s.value, str)}
    assert any(_flat(key[k]) != _flat(v) for k, v in answers.items() if k in key)  # the chain is not the key

    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    quiz = moodle_questions(moodle_xml([d], seed=0))
    for step_id, value in answers.items():
        entries = [value] if isinstance(value, str) else [float(x) for x in _flat(value)]
        assert len(steps[step_id]) == len(entries) == len(quiz[step_id]), step_id
        for item, q, x in zip(steps[step_id], quiz[step_id], entries, strict=True):
            if isinstance(x, str):
                choice = {c.text: c.get("identifier") for c in item.iter(f"{Q}simpleChoice")}
                assert score(item, {"RESPONSE": choice[x]}) == maxscore(item)
                right = [a.find("text").text for a in q.findall("answer") if a.get("fraction") == "100"]
                assert q.get("type") == "multichoice" and right == [x]
                continue
            assert score(item, {"RESPONSE": x}) == maxscore(item), (step_id, x)
            assert q.get("type") == "numerical" and moodle_grade(q, x)[0] == 1.0, (step_id, x)


SLIP_PROBLEM = """
kind = "attention"
score = "scaled-dot"
tokens = ["le", "chat", "noir"]
[given]
query = [1, 0, 1, 2]
keys = [[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1]]
values = [[1, 0], [0, 1], [1, 1]]
[settings]
decimals = 3
[grading]
points = { scaled_scores = 3, weights = 2 }
slip = 0.5
"""


def _slip_problem(tmp_path: Path) -> Any:
    path = tmp_path / "p.toml"
    path.write_text(SLIP_PROBLEM, encoding="utf-8")
    return load_problem(path)


def test_a_named_slip_earns_its_share_and_its_feedback(tmp_path: Path) -> None:
    """The scaled scores written without the 1/√d_k scale (q·k_i, recomputed here): check names the slip
    and gives the step the [grading] slip share (0.5 of 3 points); each entry's QTI item and Moodle
    question give it the same share and say check's note."""
    p = _slip_problem(tmp_path)
    query = np.array([1, 0, 1, 2.0])
    keys = np.array([[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1.0]])
    unscaled = keys @ query  # the slip: 3, 1, 5 where 1.5, 0.5, 2.5 are right
    rep = check(p, {"scores": unscaled.tolist(), "scaled_scores": unscaled.tolist()}, "a.toml")
    r = next(r for r in rep.results if r.id == "scaled_scores")
    assert r.mistake == "no_scale" and r.points == 3 and r.credit == 0.5
    note = r.note
    assert "scale" in note

    d = solve(p)
    pkg = Package(qti_zip([d], seed=0))
    items = by_step(pkg, pkg.sections[0])["scaled_scores"]
    assert sum(maxscore(i) for i in items) == 3  # [grading] points, shared by the three entries
    earned = 0.0
    for item, x in zip(items, unscaled, strict=True):
        out = run(item, {"RESPONSE": float(x)})
        assert out["SCORE"] == pytest.approx(0.5 * maxscore(item))
        assert note in shown_feedback(item, out)
        earned += out["SCORE"]
        right = run(item, {"RESPONSE": float(x) / 2})  # the scale applied: full marks, no slip said
        assert right["SCORE"] == maxscore(item) and note not in shown_feedback(item, right)
        typo = run(item, {"RESPONSE": float(x) + 0.01})  # neither right nor the slip: nothing, no slip said
        assert typo["SCORE"] == 0 and note not in shown_feedback(item, typo)
    assert earned == pytest.approx(r.credit * r.points)  # what check gives the step

    quiz = moodle_questions(moodle_xml([d], seed=0))["scaled_scores"]
    assert sum(float(q.find("defaultgrade").text) for q in quiz) == pytest.approx(3, abs=1e-5)
    for q, x in zip(quiz, unscaled, strict=True):
        fraction, feedback = moodle_grade(q, float(x))
        assert fraction == 0.5 and note in feedback
        assert moodle_grade(q, float(x) / 2) == (1.0, "")
        assert moodle_grade(q, float(x) + 0.01) == (0.0, "")
    # the worked step is the general feedback
    assert all(
        "1/√d_k" in q.find("generalfeedback/text").text or "√" in q.find("generalfeedback/text").text for q in quiz
    )


def test_a_slip_is_not_offered_where_it_changes_nothing(tmp_path: Path) -> None:
    """no_scale changes the scaled scores, not the dot products before them: the scores' items accept
    q·k_i at full marks and name no slip."""
    d = solve(_slip_problem(tmp_path))
    pkg = Package(qti_zip([d], seed=0))
    for item in by_step(pkg, pkg.sections[0])["scores"]:
        assert [f for f in item.iter(f"{Q}modalFeedback") if f.get("outcomeIdentifier") == "SLIP"] == []


def test_points_follow_grading_and_default_to_one_per_step(tmp_path: Path) -> None:
    d = solve(_slip_problem(tmp_path))
    pkg = Package(qti_zip([d], seed=0))
    steps = by_step(pkg, pkg.sections[0])
    want = {"scaled_scores": 3.0, "weights": 2.0}
    for step_id, items in steps.items():
        assert sum(maxscore(i) for i in items) == pytest.approx(want.get(step_id, 1.0)), step_id
    test_max = next(o for o in pkg.test.iter(f"{Q}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
    assert float(test_max.find(f"{Q}defaultValue/{Q}value").text) == pytest.approx(len(steps) - 2 + 5)


def _ids(data: bytes) -> set[str]:
    """Every identifier a QTI package declares: manifest, resources, test, sections, items."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out: set[str] = set()
    for name in z.namelist():
        root = ET.fromstring(z.read(name))
        for e in root.iter():
            if e.tag.endswith(
                ("manifest", "resource", "assessmentTest", "assessmentSection", "assessmentItem", "testPart")
            ):
                out.add(e.get("identifier"))
            if e.tag.endswith("assessmentItemRef"):
                out.add(e.get("identifier"))
    out.discard(None)
    return out


def _categories(xml: str) -> set[str]:
    return {q.find("category/text").text for q in ET.fromstring(xml).findall("question") if q.get("type") == "category"}


def test_two_homework_sets_share_no_identifier(cli: Any, tmp_path: Path) -> None:
    """Canvas matches questions by identifier across a course and Moodle files them by category: week 5
    and week 8, drawn with the same options and seed, share neither; nor do two seeds without a name."""
    runs = {
        "week5": ["--seed", "3", "--name", "week5"],
        "week8": ["--seed", "3", "--name", "week8"],
        "seed3": ["--seed", "3"],
        "seed4": ["--seed", "4"],
    }
    ids, cats = {}, {}
    for label, extra in runs.items():
        for fmt in ("qti", "moodle"):
            out = tmp_path / label / fmt
            result = cli("generate", "--kind", "softmax", "--count", "2", *extra, "--format", fmt, "--out", str(out))
            assert result.exit_code == 0, result.stderr
        ids[label] = _ids((tmp_path / label / "qti" / "qti.zip").read_bytes())
        cats[label] = _categories((tmp_path / label / "moodle" / "quiz.xml").read_text(encoding="utf-8"))
        assert len(ids[label]) > 10 and len(cats[label]) > 2  # a category per question slot
    labels = list(runs)
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            assert not ids[a] & ids[b], (a, b, sorted(ids[a] & ids[b])[:3])
            assert not cats[a] & cats[b], (a, b)
    assert any("week5" in c for c in cats["week5"])
    # the same set drawn again keeps its identifiers (a re-import replaces only itself)
    again = tmp_path / "again"
    cli(
        "generate",
        "--kind",
        "softmax",
        "--count",
        "2",
        "--seed",
        "3",
        "--name",
        "week5",
        "--format",
        "qti",
        "--out",
        str(again),
    )
    assert _ids((again / "qti.zip").read_bytes()) == ids["week5"]


@pytest.mark.parametrize("seed", range(4))
def test_beam_search_homework_exports_to_qti(cli: Any, tmp_path: Path, seed: int) -> None:
    """generate --kind decode --strategy beam --format qti crashed (the kept beams, "beam 2: dog, beam 1:
    mat", are no one label): now each rank is a choice among every candidate, and the key scores."""
    args = ["--kind", "decode", "--strategy", "beam", "--seed", str(seed), "--format", "qti", "--out", str(tmp_path)]
    result = cli("generate", *args)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    import tomllib

    key = tomllib.loads((tmp_path / "answers" / "variant-01.toml").read_text(encoding="utf-8"))["kept_labels"]
    pkg = Package((tmp_path / "qti.zip").read_bytes())
    items = by_step(pkg, pkg.sections[0])["kept_labels"]
    ranks = key.split(", ")
    assert len(items) == len(ranks) >= 2
    given = tomllib.loads((tmp_path / "variant-01.toml").read_text(encoding="utf-8"))["given"]
    every = {f"beam {b}: {v}" for b in range(1, len(given["beams"]) + 1) for v in given["vocab"]}
    for item, want in zip(items, ranks, strict=True):
        choice = {c.text: c.get("identifier") for c in item.iter(f"{Q}simpleChoice")}
        assert set(choice) == every  # the options do not give the answer away
        assert score(item, {"RESPONSE": choice[want]}) == maxscore(item)
        # any other option that scores is a named slip's chain's label (check carries it), with its note
        # shown, and most options score nothing
        scoring = [c for lab, c in choice.items() if lab != want and score(item, {"RESPONSE": c}) > 0]
        for c in scoring:
            notes = shown_feedback(item, run(item, {"RESPONSE": c}))
            assert any("follows from an earlier step where it looks like" in n for n in notes), notes
        assert len(scoring) <= len(choice) // 2


def test_a_token_is_never_a_numerical_question(cli: Any, tmp_path: Path) -> None:
    """decode's choice is a word ("cat"): Moodle would store a numerical answer "cat" as no answer. It is
    a multiple-choice question over the vocabulary, the key worth 100%."""
    import tomllib

    result = cli("generate", "--kind", "decode", "--seed", "1", "--format", "moodle", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    key = tomllib.loads((tmp_path / "answers" / "variant-01.toml").read_text(encoding="utf-8"))
    quiz = moodle_questions((tmp_path / "quiz.xml").read_text(encoding="utf-8"))
    labels = [k for k, v in key.items() if k != "problem" and isinstance(v, str) and not re.fullmatch(r"[-\d.]+", v)]
    assert labels
    for step_id in labels:
        for q in quiz[step_id]:
            assert q.get("type") == "multichoice"
            right = [a.find("text").text for a in q.findall("answer") if a.get("fraction") == "100"]
            assert right == [key[step_id]]
    for qs in quiz.values():
        for q in qs:
            if q.get("type") == "numerical":
                assert all(re.fullmatch(r"-?\d+(\.\d+)?", a.find("text").text) for a in q.findall("answer"))


def test_a_set_name_that_is_no_name_is_refused(cli: Any, tmp_path: Path) -> None:
    for bad in ("<week5>", "-x", "a" * 61, "week\n5", "week 5 ", "w "):
        result = cli("generate", "--name", bad, "--format", "qti", "--out", str(tmp_path / "out"))
        assert result.exit_code == 2 and "generate: --name:" in result.stderr, (bad, result.stderr)
        assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()


def test_the_python_api_takes_the_set_name(tmp_path: Path) -> None:
    import attncalc

    attncalc.generate(kind="softmax", seed=2, name="Week 5", format="qti", out=tmp_path)
    ids = _ids((tmp_path / "qti.zip").read_bytes())
    assert ids and all(i.startswith("Week-5-") for i in ids)


# question_bank::fraction_options_full() (question/engine/bank.php), positive half: Moodle's import
# (question/format.php, match_grade_options) refuses a question with any other answer grade
MOODLE_GRADES = {1.0, 0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2}
MOODLE_GRADES |= {0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05, 0.0}


def test_every_moodle_answer_grade_is_one_moodle_accepts(tmp_path: Path) -> None:
    """A slip share of 0.55 is no Moodle grade: the answer is worth 50% there (the largest grade below),
    and exactly 0.55 of the entry's points in QTI 2.1."""
    path = tmp_path / "p.toml"
    path.write_text(SLIP_PROBLEM.replace("slip = 0.5", "slip = 0.55"), encoding="utf-8")
    d = solve(load_problem(path))
    root = ET.fromstring(moodle_xml([d], seed=0))
    fractions = [float(a.get("fraction")) / 100 for a in root.iter("answer")]
    assert fractions and all(any(abs(f - g) < 1e-7 for g in MOODLE_GRADES) for f in fractions)
    assert 0.5 in fractions and 0.55 not in fractions
    pkg = Package(qti_zip([d], seed=0))
    item = by_step(pkg, pkg.sections[0])["scaled_scores"][0]
    assert score(item, {"RESPONSE": 3.0}) == pytest.approx(0.55 * maxscore(item))


@pytest.mark.parametrize("kind", ["transformer-layer", "multi-head"])
def test_a_layer_variants_hand_chain_earns_every_entry_in_qti_and_moodle(kind: str) -> None:
    """The reported case: a layer variant worked by hand at the asked decimals (342 entries, most of them
    not the key's) failed 94 entries when only the key ± half a unit was accepted. check grades the
    chain all correct; every entry earns its full points in QTI 2.1 and in Moodle."""
    from attncalc.homework.generate import Options, default_dim, generate

    d = generate(Options(kind=kind, dim=default_dim(kind), seed=4)).derivations[0]
    p = d.problem
    hand = solve(p, carry_rounded=True)
    chain = {s.id: np.asarray(s.shown).tolist() for s in hand.steps if not isinstance(s.value, str)}
    assert check(p, chain, "hand.toml").all_correct
    steps = by_step(pkg := Package(qti_zip([d], seed=0)), pkg.sections[0])
    quiz = moodle_questions(moodle_xml([d], seed=0))
    differs = 0
    from attncalc.check.points import copy_steps

    copies = copy_steps(d)
    assert copies and not copies & set(steps) and not copies & set(quiz)  # a copy is worth 0: not asked
    for s in d.steps:
        if s.id not in chain or s.id in copies:
            continue
        entries = [float(x) for x in _flat(chain[s.id]) if np.isfinite(float(x))]
        keys = [float(x) for x in _flat(np.asarray(s.shown).tolist()) if np.isfinite(float(x))]
        differs += sum(abs(a - b) > 1e-9 for a, b in zip(entries, keys, strict=True))
        for item, q, x in zip(steps[s.id], quiz[s.id], entries, strict=True):
            assert score(item, {"RESPONSE": x}) == maxscore(item), (s.id, x)
            assert moodle_grade(q, x)[0] == 1.0, (s.id, x)
    assert differs > 50
