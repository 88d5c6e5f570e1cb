"""The LMS exports are out of what ``check`` is out of (the LMS gave a copy step such as
``head.1.Q`` or ``concat`` a point where check gives it ``[grading] copies`` = 0: multi-head 23 against
16, a transformer layer 37 against 29), and the entries' shares sum exactly to their step's points (three
items of 0.333333333333 made full marks 9.999999999994 of 10)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.mechanisms import solve
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

from .test_lms_givens import CASES

QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"


def _key(p: Any) -> dict[str, Any]:
    d = solve(p)
    out: dict[str, Any] = {s.id: np.asarray(s.shown).tolist() for s in d.steps if not isinstance(s.value, str)}
    out.update({s.id: s.value for s in d.steps if isinstance(s.value, str)})
    return out


def _value(e: ET.Element | None) -> Decimal:
    assert e is not None and e.text is not None
    return Decimal(e.text)


def _qti(data: bytes) -> tuple[Decimal, Decimal]:
    """The test's MAXSCORE and the sum of its items' MAXSCOREs, as the decimals written."""
    z = zipfile.ZipFile(io.BytesIO(data))
    test = ET.fromstring(z.read("test.xml"))
    best = next(o for o in test.iter(f"{QTI}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
    items = Decimal(0)
    for name in z.namelist():
        if name.startswith("items/"):
            root = ET.fromstring(z.read(name))
            o = next(o for o in root.iter(f"{QTI}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
            items += _value(o.find(f"{QTI}defaultValue/{QTI}value"))
    return _value(best.find(f"{QTI}defaultValue/{QTI}value")), items


def _qti12(data: bytes) -> Decimal:
    z = zipfile.ZipFile(io.BytesIO(data))
    total = Decimal(0)
    for name in z.namelist():
        root = ET.fromstring(z.read(name))
        for f in (e for e in root.iter() if e.tag.split("}")[-1] == "qtimetadatafield"):
            label = next(c for c in f if c.tag.split("}")[-1] == "fieldlabel")
            if label.text == "points_possible":
                total += _value(next(c for c in f if c.tag.split("}")[-1] == "fieldentry"))
    return total


@pytest.mark.parametrize(("kind", "extra"), CASES, ids=[f"{k}-{e.get('strategy', '')}" for k, e in CASES])
def test_the_lms_is_out_of_what_check_is_out_of(kind: str, extra: dict[str, Any]) -> None:
    d = generate(Options(kind=kind, dim=default_dim(kind), seed=5, count=1, **extra)).derivations[0]
    rep = check(d.problem, _key(d.problem), "key.toml")
    assert rep.all_correct
    out_of = Decimal(repr(rep.out_of))
    best, items = _qti(qti_zip([d], seed=5))
    assert best == items == out_of, (best, items, out_of)
    grades = [
        _value(q.find("defaultgrade"))
        for q in ET.fromstring(moodle_xml([d], seed=5)).findall("question")
        if q.get("type") != "category"
    ]
    assert sum(grades) == out_of
    assert _qti12(qti12_zip([d], seed=5)) == out_of


@pytest.mark.parametrize(("kind", "total"), [("multi-head", 16), ("transformer-layer", 29)])
def test_copy_steps_are_worth_nothing_as_in_check(kind: str, total: int) -> None:
    """The counts: the steps of a 2-head variant less its copies (head.N.Q/K/V, concat, output)."""
    d = generate(Options(kind=kind, dim=default_dim(kind), seed=4, count=1)).derivations[0]
    best, _ = _qti(qti_zip([d], seed=4))
    assert best == total
    names = [
        q.find("name/text").text or ""
        for q in ET.fromstring(moodle_xml([d], seed=4)).findall("question")
        if q.get("type") != "category"
    ]
    assert not any("[concat]" in n or "[head.1.Q]" in n for n in names)
