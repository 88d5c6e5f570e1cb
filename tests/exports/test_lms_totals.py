"""Every variant's student can earn exactly ``check``'s total for that variant, in every LMS.

Variants of one set may differ in size (a beam search that ends early, a bpe corpus with more pairs,
an accounting variant with more steps): beam decode was 3/4/3 points in check, accounting 29/27/27,
while QTI 2.1's test MAXSCORE was variant 1's and Canvas's question groups mixed items of different
points (Canvas takes the first item's) or held only some variants' items (asked of every student). A
quiz's variants now ask the same questions for the same points. Each file is read as its importer
reads it: QTI 2.1's test ``MAXSCORE`` and the items' ``MAXSCORE``s of the section a student is given;
Moodle's quiz of one random question per category (each category one slot, every variant's question
for it, of one ``defaultgrade``); Canvas's quiz total from QTI 1.2 (per question group
``points_per_item`` times the one item it picks, plus the items outside groups, as Canvas's
``assessment_test`` converter reads ``selection_ordering``).
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.mechanisms import solve
from attncalc.reports.lms import shape
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import ilias_zip, qti12_zip

from .test_lms_points import _key

QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
# the kinds whose variants differed in size (beam, bpe, accounting) and some whose never do
CASES = [
    ("decode", {"strategy": "beam"}, 5),
    ("decode", {"strategy": "beam"}, 11),
    ("bpe", {}, 5),
    ("bpe", {}, 2),
    ("accounting", {}, 5),
    ("accounting", {}, 1),
    ("softmax", {}, 5),
    ("decode", {"strategy": "top-p"}, 5),
]


def _local(e: ET.Element) -> str:
    return e.tag.split("}")[-1]


def _dec(text: str | None) -> Decimal:
    assert text is not None
    return Decimal(text.strip())


def _check_totals(ds: list[Any]) -> list[Decimal]:
    out = []
    for d in ds:
        rep = check(d.problem, _key(d.problem), "key.toml")
        assert rep.all_correct
        out.append(Decimal(repr(rep.out_of)))
    return out


def _qti_totals(data: bytes) -> tuple[Decimal, list[Decimal]]:
    """The test's MAXSCORE and, per variant section (the one a student is given), its items' MAXSCOREs summed."""
    z = zipfile.ZipFile(io.BytesIO(data))
    test = ET.fromstring(z.read("test.xml"))
    best = next(o for o in test.iter(f"{QTI}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
    per: list[Decimal] = []
    for sec in test.iter(f"{QTI}assessmentSection"):
        refs = sec.findall(f"{QTI}assessmentItemRef")
        if not refs:
            continue
        total = Decimal(0)
        for ref in refs:
            item = ET.fromstring(z.read(ref.get("href", "")))
            o = next(o for o in item.iter(f"{QTI}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
            total += _dec(o.findtext(f"{QTI}defaultValue/{QTI}value"))
        per.append(total)
    return _dec(best.findtext(f"{QTI}defaultValue/{QTI}value")), per


def _moodle_totals(xml: str, count: int) -> tuple[Decimal, list[Decimal]]:
    """A quiz of one random question per category (Moodle's random slot: the slot's mark is the
    questions' default grade, the same for every question of the category) and, per variant, what its
    questions are worth; every category must hold one question of each variant."""
    quiz = Decimal(0)
    per = [Decimal(0)] * count
    slots: list[list[tuple[int, Decimal]]] = []
    for q in ET.fromstring(xml).findall("question"):
        if q.get("type") == "category":
            slots.append([])
            continue
        m = re.match(r"Variant ([0-9]+): ", q.findtext("name/text") or "")
        assert m is not None
        slots[-1].append((int(m.group(1)), _dec(q.findtext("defaultgrade"))))
    for slot in slots:
        assert sorted(k for k, _ in slot) == list(range(1, count + 1)), "a category without every variant"
        assert len({g for _, g in slot}) == 1, "a category mixes points"
        quiz += slot[0][1]
        for k, g in slot:
            per[k - 1] += g
    return quiz, per


def _canvas(data: bytes, count: int) -> tuple[Decimal, list[Decimal]]:
    """Canvas's quiz total (each group: points_per_item for the one item it picks) and, per variant, what
    its items are worth; every group must hold one item of each variant, each worth points_per_item."""
    z = zipfile.ZipFile(io.BytesIO(data))
    name = next(n for n in z.namelist() if n != "imsmanifest.xml")
    root = ET.fromstring(z.read(name))
    quiz = Decimal(0)
    per = [Decimal(0)] * count

    def points(item: ET.Element) -> Decimal:
        for f in (e for e in item.iter() if _local(e) == "qtimetadatafield"):
            label = next(c for c in f if _local(c) == "fieldlabel")
            if label.text == "points_possible":
                return _dec(next(c for c in f if _local(c) == "fieldentry").text)
        raise AssertionError("no points_possible")

    def variant(item: ET.Element) -> int:
        m = re.search(r"-v([0-9]+)-", item.get("ident", ""))
        assert m is not None
        return int(m.group(1))

    root_section = next(e for e in root.iter() if _local(e) == "section")
    for child in root_section:
        if _local(child) == "item":
            quiz += points(child)
            per[variant(child) - 1] += points(child)
        elif _local(child) == "section":
            pick = next(e for e in child.iter() if _local(e) == "selection_number")
            each = _dec(next(e for e in child.iter() if _local(e) == "points_per_item").text)
            its = [e for e in child if _local(e) == "item"]
            assert int(pick.text or "0") == 1
            assert sorted(variant(i) for i in its) == list(range(1, count + 1)), "a group without every variant"
            assert all(points(i) == each for i in its), "a group mixes points"
            quiz += each
            for i in its:
                per[variant(i) - 1] += points(i)
    return quiz, per


@pytest.mark.parametrize(
    ("kind", "extra", "seed"), CASES, ids=[f"{k}-{e.get('strategy', '')}-{s}" for k, e, s in CASES]
)
def test_each_variant_is_out_of_checks_total_in_every_lms(kind: str, extra: dict[str, Any], seed: int) -> None:
    o = Options(kind=kind, dim=default_dim(kind), seed=seed, count=3, one_shape=True, **extra)
    ds = generate(o, shape).derivations
    totals = _check_totals(ds)
    best, sections = _qti_totals(qti_zip(ds, seed))
    assert sections == totals, (sections, totals)
    assert all(best == t for t in totals), (best, totals)
    quiz, per = _moodle_totals(moodle_xml(ds, seed), len(ds))
    assert per == totals and all(quiz == t for t in totals), (quiz, per, totals)
    quiz, per = _canvas(qti12_zip(ds, seed), len(ds))
    assert per == totals and all(quiz == t for t in totals), (quiz, per, totals)
    assert _ilias(ilias_zip(ds, seed), len(ds)) == totals


def _ilias(data: bytes, count: int) -> list[Decimal]:
    """Per variant, its items' points as ILIAS reads them (an item's last setvar)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    root = ET.fromstring(z.read("ilias/ilias.xml"))
    per = [Decimal(0)] * count
    for item in (e for e in root.iter() if _local(e) == "item"):
        m = re.search(r"-v([0-9]+)-", item.get("ident", ""))
        assert m is not None
        setvars = [e for e in item.iter() if _local(e) == "setvar"]
        per[int(m.group(1)) - 1] += _dec(setvars[-1].text)
    return per


def test_the_command_draws_a_quiz_of_one_shape(cli: Any, tmp_path: Path) -> None:
    """The command's LMS formats draw variants of one shape (here seed 5's beam search, 3/4/3 points
    in check when drawn for worksheets)."""
    result = cli(
        "generate", "--kind", "decode", "--strategy", "beam", "--count", "3", "--seed", "5",
        "--format", "qti", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    from attncalc.parse import load_problem

    ds = [solve(load_problem(tmp_path / f"variant-{k:02d}.toml")) for k in (1, 2, 3)]
    totals = _check_totals(ds)
    best, sections = _qti_totals((tmp_path / "qti.zip").read_bytes())
    assert sections == totals and all(best == t for t in totals), (best, sections, totals)
