"""cloze.xml (``generate --format moodle-cloze``): one Cloze question per variant, read as Moodle's importer
reads it. The parser below is written from Moodle's regexes (question/type/multianswer/questiontype.php,
as transcribed in docs/lms.md), not from attncalc: it extracts each sub-question as
``qtype_multianswer_extract_question`` does, refuses what ``qtype_multianswer_validate_question`` refuses,
and grades as Moodle's multianswer question does (the question's fraction is the sum of each
sub-question's fraction times its mark, over the sum of the marks)."""

from __future__ import annotations

import html
import re
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.derivation import Derivation
from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.mechanisms import solve
from attncalc.parse import parse_problem
from attncalc.reports.lms import questions
from attncalc.reports.moodle_cloze import cloze_files

from .test_lms_givens import CASES

# ---------------------------------------------------------------- Moodle's regexes, as Python ``re``
FRACTION = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
# PCRE's (?<!\\|&|&amp;) is three lookbehinds of fixed widths in Python's re
ANSWER = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"
FEEDBACK = r".*?(?<!\\)(?=[~}]|$)"
ALTERNATIVE = f"({FRACTION})?({ANSWER})(#({FEEDBACK}))?"  # 1 fraction, 2 percent, 3 answer, 5 feedback
NUMBER = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
NUMERICAL_ALTERNATIVE = f"^({NUMBER})(:{NUMBER})?$"  # 1 the answer, 6 the tolerance
TYPE_DEF = (
    "(NUMERICAL|NM)|(MULTICHOICE|MC)|(MULTICHOICE_V|MCV)|(MULTICHOICE_H|MCH)|"
    "(SHORTANSWER|SA|MW)|(SHORTANSWER_C|SAC|MWC)|(MULTICHOICE_S|MCS)|(MULTICHOICE_VS|MCVS)|(MULTICHOICE_HS|MCHS)|"
    "(MULTIRESPONSE|MR)|(MULTIRESPONSE_H|MRH)|(MULTIRESPONSE_S|MRS)|(MULTIRESPONSE_HS|MRHS)"
)
ANSWER_START = r"\{([0-9]*):(" + TYPE_DEF + "):"
ANSWER_REGEX = ANSWER_START + "(" + ALTERNATIVE + "(~" + ALTERNATIVE + ")*)\\}"  # 1 the mark, 16 the alternatives


@dataclass
class Alt:
    fraction: float
    answer: str
    tolerance: float = 0.0
    feedback: str = ""


@dataclass
class Sub:
    mark: int
    qtype: str
    alts: list[Alt] = field(default_factory=list)


def _unescape(text: str) -> str:
    return html.unescape(text).replace("\\}", "}").replace("\\#", "#")


def extract(text: str) -> tuple[list[Sub], str]:
    """The sub-questions of a Cloze question text and the text left (each replaced by ``{#n}``)."""
    subs: list[Sub] = []
    while (m := re.search(ANSWER_REGEX, text, re.S)) is not None:
        # TYPE_DEF's groups: 3 NUMERICAL, 7 SHORTANSWER, 8 SHORTANSWER_C, 9 MULTICHOICE_S (attncalc writes no other)
        kind = (
            "NUMERICAL"
            if m.group(3)
            else "SHORTANSWER"
            if m.group(7) or m.group(8)
            else "MULTICHOICE_S"
            if m.group(9)
            else m.group(2)
        )
        sub = Sub(int(m.group(1)) if m.group(1) != "" else 1, kind)
        rest = m.group(16)
        while rest and (a := re.search("~?" + ALTERNATIVE, rest, re.S)) is not None:
            frac = 1.0 if a.group(1) == "=" else 0.01 * float(a.group(2).replace(",", ".")) if a.group(2) else 0.0
            answer, tol = a.group(3), 0.0
            if kind == "NUMERICAL":
                n = re.match(NUMERICAL_ALTERNATIVE, answer)
                if n is not None:
                    answer, tol = n.group(1), float(n.group(6) or 0)
            else:
                answer = _unescape(answer)
            sub.alts.append(Alt(frac, answer, tol, _unescape(a.group(5) or "")))
            rest = rest[a.end() :]
        subs.append(sub)
        text = text[: m.start()] + f"{{#{len(subs)}}}" + text[m.end() :]
    return subs, text


def validate(subs: list[Sub]) -> list[str]:
    """What ``qtype_multianswer_validate_question`` refuses."""
    errors = [] if subs else ["no sub-question"]
    for k, s in enumerate(subs, 1):
        if not s.alts:
            errors.append(f"{k}: no answer")
        if s.qtype == "NUMERICAL":
            errors += [f"{k}: {a.answer!r} no number" for a in s.alts if not re.fullmatch(NUMBER, a.answer)]
        if not any(a.fraction == 1.0 for a in s.alts):
            errors.append(f"{k}: no answer with full marks")
    return errors


def sub_fraction(s: Sub, response: str) -> float:
    """A numerical sub-question: the first answer whose answer ± tolerance holds the response; a choice:
    the option picked."""
    if s.qtype == "NUMERICAL":
        x = float(response)
        return next((a.fraction for a in s.alts if abs(x - float(a.answer)) <= a.tolerance + 1e-12), 0.0)
    return next((a.fraction for a in s.alts if html.unescape(a.answer) == response), 0.0)


def question_fraction(subs: list[Sub], responses: list[str]) -> float:
    return sum(sub_fraction(s, r) * s.mark for s, r in zip(subs, responses, strict=True)) / sum(s.mark for s in subs)


# ---------------------------------------------------------------- the sets read
# two variants of a few kinds (one file holds both, in the one category), one of every other kind
TWO = ("attention", "softmax", "bpe")


@cache
def _set(k: int) -> tuple[list[Derivation], list[ET.Element], list[list[Any]], list[dict[str, Any]]]:
    """A set of the case's kind: its variants, the file's questions (the category first) and, per
    variant, the entries the moodle format asks (attncalc.reports.lms.questions), in step order, and the
    variants' problem tables (as their files hold them)."""
    kind, extra = CASES[k]
    result = generate(
        Options(
            kind=kind,
            dim=default_dim(kind),
            seed=5,
            count=2 if kind in TWO else 1,
            one_shape=True,
            slip_share=0.5,
            **extra,
        )
    )
    ds = result.derivations
    files = cloze_files(ds, 5, "t", "week5")
    assert list(files) == ["cloze.xml"]
    root = ET.fromstring(files["cloze.xml"])  # (5) the XML parses
    entries = [[e for q in questions(d, v) for e in q.asked] for v, d in enumerate(ds, 1)]
    return ds, root.findall("question"), entries, result.problems


def _key(p: Any) -> dict[str, Any]:
    d = solve(p)
    out: dict[str, Any] = {s.id: np.asarray(s.shown).tolist() for s in d.steps if not isinstance(s.value, str)}
    out.update({s.id: s.value for s in d.steps if isinstance(s.value, str)})
    return out


def _text(q: ET.Element, path: str) -> str:
    e = q.find(path)
    assert e is not None and e.text is not None
    return e.text


IDS = [f"{k}-{e.get('strategy', e.get('top_k', ''))}" for k, e in CASES]


@pytest.mark.parametrize("case", range(len(CASES)), ids=IDS)
def test_each_variant_is_one_cloze_question_moodle_imports(case: int) -> None:
    ds, qs, _, _ = _set(case)
    assert qs[0].get("type") == "category"
    assert re.fullmatch(r"\$course\$/attncalc t/variants", _text(qs[0], "category/text"))
    assert [q.get("type") for q in qs[1:]] == ["cloze"] * len(ds)
    for q in qs[1:]:
        subs, _ = extract(_text(q, "questiontext/text"))
        assert validate(subs) == []
        assert _text(q, "generalfeedback/text").strip()  # the worked steps


@pytest.mark.parametrize("case", range(len(CASES)), ids=IDS)
def test_the_marks_are_checks_points_scaled_to_whole_numbers(case: int) -> None:
    """(sum of marks) / factor is check's total for the variant, and each entry's mark over the factor is
    check's share of its step's points (the step's points over its entries)."""
    ds, qs, _, _ = _set(case)
    for d, q in zip(ds, qs[1:], strict=True):
        rep = check(d.problem, _key(d.problem), "key.toml")
        assert rep.all_correct
        text = _text(q, "questiontext/text")
        subs, _ = extract(text)
        name = _text(q, "name/text")
        m = re.search(r"Maximum mark to ([0-9.]+) \(the question's default mark is ([0-9.]+) x ([0-9]+)\)", name)
        assert m is not None, name
        factor = int(m.group(3))
        total = Fraction(repr(rep.out_of))
        assert Fraction(m.group(1)) == total
        assert Fraction(sum(s.mark for s in subs), factor) == total
        # per step (the step id before each sub-question) the marks of its entries
        steps = [
            re.findall(r"Compute <b>.*?</b> \[([^\]]+)\]", text[: m.start()])[-1]
            for m in re.finditer(ANSWER_REGEX, text, re.S)
        ]
        points = {r.id: (Fraction(repr(r.points)), r.entries) for r in rep.results}
        for sid, s in zip(steps, subs, strict=True):
            pts, _ = points[sid]
            n = steps.count(sid)  # the entries asked of the step
            assert Fraction(s.mark, factor) == pts / n, (sid, s.mark, factor, pts, n)


@pytest.mark.parametrize("case", range(len(CASES)), ids=IDS)
def test_the_key_earns_full_marks_and_a_slip_its_share(case: int) -> None:
    _, qs, asked, _ = _set(case)
    for q, entries in zip(qs[1:], asked, strict=True):
        subs, _ = extract(_text(q, "questiontext/text"))
        assert len(entries) == len(subs)
        key = [e.key if hasattr(e, "key") else e.correct[0] for e in entries]
        assert question_fraction(subs, key) == pytest.approx(1.0)
        total = sum(s.mark for s in subs)
        for i, e in enumerate(entries):
            # a number's slips, and a choice's (a bpe merge chosen with the other tie rule, its chain's tokens)
            found = [(s.value, s.note, s.carried) for s in e.slips] if hasattr(e, "accepted") else list(e.slips)
            for value, note, carried in found:
                answered = [*key[:i], value, *key[i + 1 :]]
                # the 0.5 slip share, on this entry only, where the slip is made here; full marks for a value
                # that follows from a slip made at an earlier step (check carries it)
                expected = 1.0 if carried else (total - subs[i].mark * (1 - 0.5)) / total
                assert question_fraction(subs, answered) == pytest.approx(expected)
                fb = next(a.feedback for a in subs[i].alts if html.unescape(a.answer) == value)
                assert html.unescape(fb) == note  # check's note, shown as HTML


@pytest.mark.parametrize("case", range(len(CASES)), ids=IDS)
def test_no_answer_is_in_the_text_outside_the_sub_questions(case: int) -> None:
    """The question text outside the {...} markers (as Moodle keeps it) holds no step's value: every
    number in it with decimals is one of the problem file's, or near no full-mark answer (a constant of a
    formula, or one too small to show at the asked decimals); and no choice's right label follows its symbol."""
    _, qs, _, problems = _set(case)
    for raw, q in zip(problems, qs[1:], strict=True):
        subs, outside = extract(_text(q, "questiontext/text"))
        assert "{#" in outside and not re.search(ANSWER_START, outside)
        givens = list(_numbers(raw))  # every number of the problem file: givens and settings
        keys = [
            (float(a.answer), a.tolerance) for s in subs if s.qtype == "NUMERICAL" for a in s.alts if a.fraction == 1
        ]
        for x in map(float, re.findall(r"-?\d+\.\d+", html.unescape(re.sub(r"<[^>]+>", " ", outside)))):
            if not any(abs(x - g) < 1e-12 for g in givens):  # (an epsilon such as 1e-05 near an answer 0 tells nothing)
                assert not any(abs(x - a) <= 2 * tol < abs(x) for a, tol in keys), x
        for s in subs:
            for a in s.alts:
                if s.qtype != "NUMERICAL" and a.fraction == 1.0:
                    label = re.escape(html.escape(html.unescape(a.answer)))
                    assert not re.search(rf"(=|:)\s*{label}\s*(<|$)", outside), a.answer


def _numbers(raw: Any) -> Any:
    if isinstance(raw, dict):
        for v in raw.values():
            yield from _numbers(v)
    elif isinstance(raw, list):
        for v in raw:
            yield from _numbers(v)
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        yield float(raw)


def test_a_split_set_keeps_whole_variants_under_the_limit() -> None:
    ds, _, _, _ = _set(0)
    ds = [*ds, *ds, *ds]
    whole = cloze_files(ds, 5, "t")["cloze.xml"]
    size = len(whole.encode("utf-8"))
    limit = size // 2
    files = cloze_files(ds, 5, "t", limit=limit)
    assert list(files) == ["cloze-1.xml", "cloze-2.xml", "cloze-3.xml"][: len(files)] and len(files) >= 2
    got = []
    for text in files.values():
        assert len(text.encode("utf-8")) <= limit
        qs = ET.fromstring(text).findall("question")
        assert qs[0].get("type") == "category"  # each file opens the one category, for its questions
        assert _text(qs[0], "category/text") == "$course$/attncalc t/variants"
        got += [ET.tostring(q) for q in qs[1:]]
    assert got == [ET.tostring(q) for q in ET.fromstring(whole).findall("question")[1:]]
    with pytest.raises(ProblemError, match="variant 1's question"):
        cloze_files(ds, 5, "t", limit=1000)  # a variant's question alone is larger


ATTENTION = """
kind = "attention"
title = "Variant 1"
[settings]
decimals = 3
[given]
query = [1, 2]
keys = [[1, 0], [0, 1], [1, 1]]
[grading]
slip = 0.5
"""


def test_an_attention_variant_graded_from_numpy() -> None:
    """The key and the slip (the exponentials left undivided) worked out with numpy from the givens."""
    d = solve(parse_problem(tomllib.loads(ATTENTION), "v.toml"))
    (q,) = ET.fromstring(cloze_files([d], 1)["cloze.xml"]).findall("question")[1:]
    subs, _ = extract(_text(q, "questiontext/text"))
    s = np.array([[1, 0], [0, 1], [1, 1]], float) @ np.array([1, 2], float)
    e = np.exp(s)
    w = e / e.sum()
    c = w @ np.array([[1, 0], [0, 1], [1, 1]], float)
    key = [*s, *e, e.sum(), *w, *c]
    assert len(subs) == len(key) == 12
    r = [f"{x:.3f}" for x in key]
    assert question_fraction(subs, r) == pytest.approx(1.0)
    # a point a step over its entries: 1/3 for each score, 1 for the sum, 1/2 for each context entry
    assert [s.mark for s in subs] == [2, 2, 2, 2, 2, 2, 6, 2, 2, 2, 3, 3]
    slipped = [*r[:7], *(f"{x:.3f}" for x in e), *r[10:]]  # α_i = exp(e_i)
    assert question_fraction(subs, slipped) == pytest.approx((30 - 0.5 * 6) / 30)


def test_hostile_labels_and_notes_survive_the_cloze_syntax() -> None:
    from attncalc.reports.lms import Choice
    from attncalc.reports.moodle_cloze import _sub, cloze_html

    options = ("a}b", "c#d", "e~f", "g\\h", "i&j", "k&", "<w>", "&amp;")
    question = SimpleNamespace(option_shares=lambda e: dict.fromkeys(e.correct, 1.0))  # no slips: the key alone
    sub = _sub(question, Choice("y", options, ("c#d",)), 3, "0.5")  # type: ignore[arg-type]
    (s,), rest = extract(f"<p>pick {sub} then</p>")
    assert rest == "<p>pick {#1} then</p>"
    assert s.mark == 3 and s.qtype == "MULTICHOICE_S"
    assert [html.unescape(a.answer) for a in s.alts] == list(options)
    assert [a.fraction for a in s.alts] == [0, 1, 0, 0, 0, 0, 0, 0]
    note = "x}y~z#w\\v&u"
    (t,), _ = extract("{1:NUMERICAL:=1.5:0.05~%50%2:0.05#" + cloze_html(note) + "}")
    assert html.unescape(t.alts[1].feedback) == note and t.alts[1].fraction == 0.5


def test_generate_writes_cloze_xml(cli: Any, tmp_path: Any) -> None:
    r = cli("generate", "--out", str(tmp_path), "--kind", "softmax", "--count", "2", "--format", "moodle-cloze")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "cloze.xml").is_file() and not (tmp_path / "quiz.xml").exists()
    qs = ET.fromstring((tmp_path / "cloze.xml").read_text(encoding="utf-8")).findall("question")
    assert [q.get("type") for q in qs] == ["category", "cloze", "cloze"]


def test_the_python_api_writes_cloze_xml(tmp_path: Any) -> None:
    import attncalc

    attncalc.generate(kind="softmax", count=2, seed=3, format="moodle-cloze", out=tmp_path, name="week5")
    text = (tmp_path / "cloze.xml").read_text(encoding="utf-8")
    qs = ET.fromstring(text).findall("question")
    assert _text(qs[0], "category/text").startswith("$course$/attncalc week5-")
    assert [q.get("type") for q in qs[1:]] == ["cloze", "cloze"]


def test_a_brace_in_a_label_starts_no_sub_question() -> None:
    raw = tomllib.loads(ATTENTION.replace('title = "Variant 1"', 'title = "x {1:NUMERICAL:=5} {#1}"'))
    d = solve(parse_problem(raw, "v.toml"))
    (q,) = ET.fromstring(cloze_files([d], 1)["cloze.xml"]).findall("question")[1:]
    subs, outside = extract(_text(q, "questiontext/text"))
    assert len(subs) == 12 and "{#1}" not in outside.split("</p>")[0]
    assert "x &#123;1:NUMERICAL:=5} &#123;#1}" in outside


def test_the_variants_are_the_moodle_formats_one_shape(cli: Any, tmp_path: Any) -> None:
    """moodle-cloze draws variants of one shape as --format moodle does (every variant out of the same
    total, so the one slot's Maximum mark fits each), the same problems for the same seed."""
    files = {}
    for fmt in ("moodle", "moodle-cloze"):
        r = cli(
            "generate",
            "--out",
            str(tmp_path / fmt),
            "--kind",
            "accounting",
            "--count",
            "3",
            "--seed",
            "11",
            "--format",
            fmt,
        )
        assert r.exit_code == 0, r.output
        assert "quiz formats draw variants of one shape" in r.stderr
        files[fmt] = [p.read_bytes() for p in sorted((tmp_path / fmt).glob("variant-*.toml"))]
    assert files["moodle"] == files["moodle-cloze"] and len(files["moodle"]) == 3
    names = [
        q.find("name/text").text for q in ET.parse(tmp_path / "moodle-cloze" / "cloze.xml").findall("question")[1:]
    ]
    assert len({re.sub(r"^Variant \d+", "", n or "") for n in names}) == 1  # one total for every variant
