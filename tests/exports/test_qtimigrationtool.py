"""Canvas's own QTI 1.2 converter, run: QTIMigrationTool (github.com/instructure/QTIMigrationTool, Python 3
and lxml; Canvas runs it on a QTI .zip and reads the QTI 2.1 items it writes, with their
``instructureMetadata``). Over every kind ``generate`` draws, ``qti12.zip`` and ``ilias.zip`` are
converted, and the items it writes are compared with what was exported: each item kept under its
identifier, its question type (Canvas's ``question_type``), its points, each numeric answer's range
(``customOperator`` ``vargte``/``varlte``, each worth the item's points), a
choice's right option, and each question group's one-of-every-variant selection and ``points_per_item``.

The tool is not on PyPI: a copy is vendored in tests/vendor/QTIMigrationTool (its licence and commit in
VENDORED.md); ``QTIMIGRATIONTOOL`` names another checkout instead. It needs lxml (a test extra)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest

from attncalc import kinds
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import shape
from attncalc.reports.qti12 import ilias_zip, qti12_zip

VENDORED = Path(__file__).resolve().parent.parent / "vendor" / "QTIMigrationTool"
TOOL = Path(os.environ.get("QTIMIGRATIONTOOL") or VENDORED)
pytestmark = pytest.mark.skipif(
    not (TOOL / "migrate.py").is_file(),
    reason=f"QTIMigrationTool not found at {TOOL} (vendored in tests/vendor; QTIMIGRATIONTOOL names a checkout)",
)
V2 = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"


def _local(e: ET.Element) -> str:
    return e.tag.rsplit("}", 1)[-1]


def _exported(data: bytes) -> dict[str, dict[str, object]]:
    """Each exported QTI 1.2 item by ident: its metadata fields, its ranges and choices, its points."""
    out: dict[str, dict[str, object]] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            if name == "imsmanifest.xml":
                continue
            for item in ET.fromstring(z.read(name)).iter():
                if _local(item) != "item":
                    continue
                fields = {}
                for f in item.iter():
                    if _local(f) == "qtimetadatafield":
                        label, entry = (c.text or "" for c in f)
                        fields[label] = entry
                ranges, right, points = [], [], set()
                for cond in item.iter():
                    if _local(cond) != "respcondition":
                        continue
                    var = {_local(c): c.text for c in cond.iter() if _local(c) in ("vargte", "varlte", "varequal")}
                    score = [s.text for s in cond.iter() if _local(s) == "setvar"]
                    if "vargte" in var:
                        ranges.append((Decimal(var["vargte"] or ""), Decimal(var["varlte"] or "")))
                    if "varequal" in var:
                        right.append(var["varequal"])
                    points.update(Decimal(s or "") for s in score)
                out[item.get("ident") or ""] = {"fields": fields, "ranges": ranges, "right": right, "points": points}
    return out


def _migrate(data: bytes, tmp: Path) -> Path:
    src, dst = tmp / "in", tmp / "out"
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        z.extractall(src)
    run = subprocess.run(
        [sys.executable, "migrate.py", "--ucvars", "--nogui", "--overwrite", f"--cpout={dst}", str(src)],
        cwd=TOOL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return dst


def _converted(dst: Path) -> dict[str, ET.Element]:
    return {
        (root := ET.parse(p).getroot()).get("identifier") or "": root
        for p in sorted((dst / "assessmentItems").glob("*.xml"))
    }


def _fields(item: ET.Element) -> dict[str, str]:
    return {f.get("name") or "": f.get("value") or "" for f in item.iter(f"{V2}instructureField")}


def _ranges(item: ET.Element) -> tuple[list[tuple[Decimal, Decimal]], set[Decimal]]:
    """Each range the converted item scores (an ``and`` of ``vargte``/``varlte`` custom operators, read
    by Canvas's ``numeric_interaction.rb``) and the scores it sets for them."""
    ranges, scores = [], set()
    for branch in item.iter():
        if _local(branch) not in ("responseIf", "responseElseIf"):
            continue
        ops = {op.get("class"): op for op in branch.iter(f"{V2}customOperator")}
        if "vargte" in ops and "varlte" in ops:
            lo, hi = (Decimal(ops[c].findtext(f"{V2}baseValue") or "") for c in ("vargte", "varlte"))
            ranges.append((lo, hi))
            for s in branch.iter(f"{V2}setOutcomeValue"):
                scores.add(Decimal(s.findtext(f"{V2}baseValue") or ""))
    return ranges, scores


def _draws(kind: str) -> list[object]:
    o = Options(kind=kind, dim=default_dim(kind), seed=1, count=2, one_shape=True)
    return generate(o, shape).derivations


@pytest.mark.parametrize("kind", kinds.with_drawer())
def test_canvas_converts_every_item_as_exported(kind: str, tmp_path: Path) -> None:
    ds = _draws(kind)
    data = qti12_zip(ds, 1)  # type: ignore[arg-type]
    exported = _exported(data)
    dst = _migrate(data, tmp_path)
    items = _converted(dst)
    assert set(items) == set(exported)
    for ident, want in exported.items():
        item, fields = items[ident], _fields(items[ident])
        want_fields = want["fields"]
        assert isinstance(want_fields, dict)
        assert fields["question_type"] in ("numerical_question", "multiple_choice_question"), ident
        assert fields["question_type"] == want_fields["question_type"]
        assert Decimal(fields["points_possible"]) == Decimal(want_fields["points_possible"])
        ranges, scores = _ranges(item)
        if fields["question_type"] == "numerical_question":
            assert ranges == want["ranges"] and ranges, ident
            assert scores == {Decimal(fields["points_possible"])}, ident  # every range full marks
            assert all(lo < hi for lo, hi in ranges), ident
        else:
            interaction = item.find(f"{V2}itemBody/{V2}choiceInteraction")
            assert interaction is not None and interaction.get("maxChoices") == "1", ident
            assert interaction.get("shuffle") == "true", ident
            right = [
                b.text
                for m in item.iter(f"{V2}match")
                for b in m.iter(f"{V2}baseValue")
                if b.get("baseType") == "identifier"
            ]
            assert right and sorted(right) == sorted(str(r) for r in want["right"]), ident
    # the question groups: one item of every variant, select 1, the items' points per item
    (test,) = (dst / "assessmentTests").glob("*.xml")
    root = ET.parse(test).getroot()
    groups = [s for s in root.iter(f"{V2}assessmentSection") if s.find(f"{V2}selection") is not None]
    assert groups
    for g in groups:
        sel = g.find(f"{V2}selection")
        assert sel is not None and sel.get("select") == "1"
        each = Decimal(sel.findtext(f"{V2}selectionExtension/{V2}points_per_item") or "")
        refs = [r.get("identifier") or "" for r in g.iter(f"{V2}assessmentItemRef")]
        assert sorted(r.split("-v")[-1][:2] for r in refs) == ["01", "02"]
        assert {Decimal(_fields(items[r])["points_possible"]) for r in refs} == {each}


@pytest.mark.parametrize("kind", kinds.with_drawer())
def test_the_ilias_package_gives_canvas_ilias_types(kind: str, tmp_path: Path) -> None:
    # ilias.zip is for ILIAS: Canvas's converter maps its QUESTIONTYPE onto question_type, a type outside
    # Canvas's own list; qti12.zip (above) is the file for Canvas
    data = ilias_zip(_draws(kind), 1)  # type: ignore[arg-type]
    exported = _exported(data)
    items = _converted(_migrate(data, tmp_path))
    assert set(items) == set(exported)
    for ident, item in items.items():
        assert _fields(item)["question_type"] in ("NUMERIC QUESTION", "SINGLE CHOICE QUESTION"), ident
