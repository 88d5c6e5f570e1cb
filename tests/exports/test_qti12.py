"""generate --format qti12 and --format ilias: the QTI 1.2 dialect Canvas classic quizzes and ILIAS import.

No QTI 1.2 consumer installs from PyPI, so each test checks one rule of an importer, read from its
source (docs/lms.md names the files): Canvas's QTI converter reads a numerical answer as a range from
``vargte``/``varlte`` and the question type and points from ``itemmetadata``; its question groups are
sections with ``selection_ordering`` (``selection_number``, ``points_per_item``); its question text is
the ``mattext`` of the item's presentation, and ``itemfeedback ident="general_fb"`` is the general
feedback. ILIAS's assNumericImport keeps the last ``vargte``/``varlte`` it reads and the last
``setvar`` as the points; its question type comes from the ``QUESTIONTYPE`` metadata field, which Canvas
must not see (its QTIMigrationTool reads it as ``question_type``): each gets a package of its own."""

from __future__ import annotations

import html
import io
import re
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem
from attncalc.reports.qti12 import qti12_zip

NS = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"
ROOT = Path(__file__).resolve().parents[2]


def assessment(data: bytes) -> ET.Element:
    """The package as Canvas opens it: the manifest's imsqti_xmlv1p2 resource names the assessment file."""
    z = zipfile.ZipFile(io.BytesIO(data))
    manifest = ET.fromstring(z.read("imsmanifest.xml"))
    res = [r for r in manifest.iter(f"{CP}resource") if r.get("type") == "imsqti_xmlv1p2"]
    assert len(res) == 1
    return ET.fromstring(z.read(res[0].find(f"{CP}file").get("href")))


def meta(item: ET.Element) -> dict[str, str]:
    return {f.find(f"{NS}fieldlabel").text: f.find(f"{NS}fieldentry").text for f in item.iter(f"{NS}qtimetadatafield")}


def ranges(item: ET.Element) -> list[tuple[float, float, float]]:
    """(low, high, setvar) of every respcondition that scores, in order."""
    out = []
    for rc in item.iter(f"{NS}respcondition"):
        cv = rc.find(f"{NS}conditionvar")
        low, high, sv = cv.find(f"{NS}vargte"), cv.find(f"{NS}varlte"), rc.find(f"{NS}setvar")
        if low is not None:
            out.append((float(low.text), float(high.text), float(sv.text)))
    return out


def canvas_numerical(item: ET.Element, x: float) -> bool:
    """Canvas's numerical question: right when any of its range answers holds x (each answer weighs 100)."""
    return any(lo <= x <= hi for lo, hi, _ in ranges(item))


def ilias_numeric(item: ET.Element) -> tuple[float, float, float]:
    """What ILIAS's assNumericImport keeps: the last lower and upper limit, and the last setvar as points."""
    lo = hi = pts = 0.0
    for rc in item.iter(f"{NS}respcondition"):
        for c in rc.find(f"{NS}conditionvar"):
            if c.tag == f"{NS}varlte":
                hi = float(c.text)
            elif c.tag == f"{NS}vargte":
                lo = float(c.text)
        for sv in rc.findall(f"{NS}setvar"):
            pts = float(sv.text)
    return lo, hi, pts


def step_of(item: ET.Element) -> str:
    found = re.search(r"\[([\w.\-]+)\]", item.get("title").split(": ", 1)[1])
    assert found is not None
    return found.group(1)


def _flat(x: Any) -> list[Any]:
    return [v for row in x for v in _flat(row)] if isinstance(x, list) else [x]


@pytest.fixture(scope="module")
def homework(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from attncalc.cli import app

    out = tmp_path_factory.mktemp("qti12")
    args = ["generate", "--kind", "attention", "--head", "--count", "2", "--seed", "5", "--format", "qti12"]
    result = CliRunner().invoke(app, [*args, "--name", "week5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_canvas_question_groups_select_one_variant_of_each_question(homework: Path) -> None:
    doc = assessment((homework / "qti12.zip").read_bytes())
    root = doc.find(f"{NS}assessment/{NS}section")
    groups = root.findall(f"{NS}section")
    assert groups and not root.findall(f"{NS}item")
    for g in groups:
        sel = g.find(f"{NS}selection_ordering/{NS}selection")
        assert sel.find(f"{NS}selection_number").text == "1"
        items = g.findall(f"{NS}item")
        assert [i.get("title").split(":")[0] for i in items] == ["Variant 1", "Variant 2"]
        assert len({step_of(i) for i in items}) == 1  # the same question, one per variant
        per_item = float(sel.find(f"{NS}selection_extension/{NS}points_per_item").text)
        assert all(float(meta(i)["points_possible"]) == per_item for i in items)
        # a group draws a variant per student for this question only (another group may draw another):
        # its title says it holds one of the variants, never "one variant per student"
        assert g.get("title").endswith(f"(one of {len(items)} variants)")
        assert "per student" not in g.get("title")


def test_canvas_numerical_answers_are_ranges_holding_the_key_and_the_hand_chain(homework: Path) -> None:
    """Every scoring respcondition is one vargte/varlte range (what Canvas reads as a range answer); the
    key's values and the hand chain's (rounded and carried, which check grades all correct) fall in one."""
    doc = assessment((homework / "qti12.zip").read_bytes())
    items = [i for i in doc.iter(f"{NS}item") if i.get("title").startswith("Variant 1:")]
    key = tomllib.loads((homework / "answers" / "variant-01.toml").read_text(encoding="utf-8"))
    p = load_problem(homework / "variant-01.toml")
    hand = solve(p, carry_rounded=True)
    chain = {s.id: np.asarray(s.shown).tolist() for s in hand.steps if not isinstance(s.value, str)}
    assert check(p, chain, "hand.toml").all_correct
    differs = [k for k, v in chain.items() if [float(x) for x in _flat(v)] != [float(x) for x in _flat(key[k])]]
    assert differs  # the hand chain is not the key somewhere: the ranges must hold both
    by_step: dict[str, list[ET.Element]] = {}
    for i in items:
        by_step.setdefault(step_of(i), []).append(i)
    for step_id, its in by_step.items():
        m = meta(its[0])
        # Canvas's own field only: QTIMigrationTool maps ILIAS's QUESTIONTYPE to question_type too, and
        # took "NUMERIC QUESTION" (outside Canvas's types) when both were written
        assert "QUESTIONTYPE" not in m
        if m["question_type"] == "multiple_choice_question":
            continue
        assert m["question_type"] == "numerical_question"
        keys = [float(x) for x in _flat(key[step_id]) if x not in ("-inf", "inf")]
        hands = [float(x) for x in _flat(chain[step_id]) if np.isfinite(float(x))]
        for item, k, h in zip(its, keys, hands, strict=True):
            assert all(rc.find(f"{NS}conditionvar") is not None for rc in item.iter(f"{NS}respcondition"))
            assert canvas_numerical(item, k) and canvas_numerical(item, h), (step_id, k, h)
            assert not canvas_numerical(item, k + 0.01)
            presentation = item.find(f"{NS}presentation")
            assert presentation.find(f".//{NS}render_fib").get("fibtype") == "Decimal"


@pytest.fixture(scope="module")
def ilias(homework: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same set (same options and seed) as ILIAS's package."""
    from typer.testing import CliRunner

    from attncalc.cli import app

    out = tmp_path_factory.mktemp("ilias")
    args = ["generate", "--kind", "attention", "--head", "--count", "2", "--seed", "5", "--format", "ilias"]
    result = CliRunner().invoke(app, [*args, "--name", "week5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def ilias_pool(path: Path) -> ET.Element:
    """The package as ILIAS's question pool import opens it: ``<zip stem>/<zip stem>.xml``."""
    z = zipfile.ZipFile(path)
    return ET.fromstring(z.read(f"{path.stem}/{path.stem}.xml"))


def test_ilias_finds_its_file_and_reads_its_type_and_the_worked_step(homework: Path, ilias: Path) -> None:
    doc = ilias_pool(ilias / "ilias.zip")
    items = list(doc.iter(f"{NS}item"))
    canvas = {i.get("ident"): i for i in assessment((homework / "qti12.zip").read_bytes()).iter(f"{NS}item")}
    assert sorted(i.get("ident") for i in items) == sorted(canvas)  # every variant's items, no groups
    assert not any(e.tag == f"{NS}selection_ordering" for e in doc.iter())
    for item in items:
        m = meta(item)
        assert set(m) == {"QUESTIONTYPE"}, m  # Canvas's fields are in Canvas's file only
        interaction = "render_choice" if item.find(f".//{NS}render_choice") is not None else "render_fib"
        assert (
            m["QUESTIONTYPE"]
            == {"render_choice": "SINGLE CHOICE QUESTION", "render_fib": "NUMERIC QUESTION"}[interaction]
        )
        fb = {f.get("ident"): "".join(f.itertext()) for f in item.findall(f"{NS}itemfeedback")}
        assert set(fb) == {"response_allcorrect", "response_onenotcorrect"}  # what ILIAS imports as feedback
        assert fb["response_allcorrect"] == fb["response_onenotcorrect"]
        assert item.get("title").split("] ", 1)[0].split(": ", 1)[1].split(" [")[0] in html.unescape(
            fb["response_allcorrect"]
        )


def test_ilias_keeps_the_last_range_and_setvar_the_key_and_the_points(homework: Path, ilias: Path) -> None:
    """ILIAS keeps one range, the last: it holds the key, and the hand chain's value too where that is the
    key's neighbour (0.577 for 0.578), never a value no other range accepts."""
    doc = ilias_pool(ilias / "ilias.zip")
    canvas = {i.get("ident"): i for i in assessment((homework / "qti12.zip").read_bytes()).iter(f"{NS}item")}
    key = tomllib.loads((homework / "answers" / "variant-01.toml").read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    widths: list[int] = []
    for item in doc.iter(f"{NS}item"):
        if not item.get("title").startswith("Variant 1:") or meta(item)["QUESTIONTYPE"] != "NUMERIC QUESTION":
            continue
        step_id = step_of(item)
        j = seen[step_id] = seen.get(step_id, -1) + 1
        k = float([x for x in _flat(key[step_id]) if x not in ("-inf", "inf")][j])
        lo, hi, pts = ilias_numeric(item)
        assert lo <= k <= hi and pts == float(meta(canvas[item.get("ident")])["points_possible"])
        # ILIAS's one range holds no value Canvas's ranges (each accepted value ± half a unit) leave out
        grid = np.arange(lo + 5e-4, hi, 1e-3)
        assert all(canvas_numerical(item, float(x)) for x in grid), (step_id, lo, hi)
        widths.append(round((hi - lo) / 1e-3))
    assert min(widths) == 1 and max(widths) >= 2  # the key alone, and the key with its hand-chain neighbour


def test_the_givens_are_in_the_question_text_as_html(homework: Path) -> None:
    """Canvas and ILIAS take the question text from the presentation's mattext: the givens' tables are in it
    (as HTML, texttype text/html), with the variant's numbers; the worked step is the general feedback."""
    doc = assessment((homework / "qti12.zip").read_bytes())
    raw = tomllib.loads((homework / "variant-01.toml").read_text(encoding="utf-8"))
    item = next(i for i in doc.iter(f"{NS}item") if i.get("title").startswith("Variant 1:"))
    text = item.find(f"{NS}presentation/{NS}material/{NS}mattext")
    assert text.get("texttype") == "text/html"
    body = ET.fromstring(f"<div>{text.text}</div>")  # well-formed (X)HTML once unescaped
    tables = {t.get("title"): t for t in body.iter("table")}
    cells = [float(td.text) for td in tables["query"].iter("td")]
    assert cells == [float(x) for x in raw["given"]["query"]]
    fb = item.find(f"{NS}itemfeedback")
    assert fb.get("ident") == "general_fb"
    assert html.unescape(fb.find(f".//{NS}mattext").text).startswith("<p>")


def test_one_variant_is_no_group_and_identifiers_carry_the_set(tmp_path: Path) -> None:
    d = solve(load_problem(ROOT / "problems" / "decoder-dot.toml"))
    doc = assessment(qti12_zip([d], seed=0, tag="week8-00000000"))
    root = doc.find(f"{NS}assessment/{NS}section")
    assert not root.findall(f"{NS}section") and root.findall(f"{NS}item")
    assert all(i.get("ident").startswith("week8-00000000-") for i in doc.iter(f"{NS}item"))


def test_same_options_same_bytes_and_nothing_overwritten_without_force(cli: Any, tmp_path: Path) -> None:
    args = ["generate", "--kind", "softmax", "--count", "2", "--seed", "3", "--format", "qti12"]
    for folder in ("a", "b"):
        assert cli(*args, "--out", str(tmp_path / folder)).exit_code == 0
    assert (tmp_path / "a" / "qti12.zip").read_bytes() == (tmp_path / "b" / "qti12.zip").read_bytes()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "qti12.zip").write_bytes(b"mine")
    result = cli(*args, "--out", str(tmp_path / "c"))
    assert result.exit_code == 2 and "qti12.zip" in result.stderr
    assert (tmp_path / "c" / "qti12.zip").read_bytes() == b"mine"


@pytest.mark.parametrize(
    ("value", "decimals", "low", "high"),
    [
        # a count near 10^18 (an accounting budget): in floats both ends were 2833113600000000000
        ("2833113600000000000", 0, "2833113599999999999.5", "2833113600000000000.5"),
        # 33 digits: past Decimal's default 28 significant digits
        (
            "123456789012345678901234567890123",
            0,
            "123456789012345678901234567890122.5",
            "123456789012345678901234567890123.5",
        ),
        ("0.577", 3, "0.5765", "0.5775"),
    ],
)
def test_a_range_keeps_half_a_unit_around_any_value(value: str, decimals: int, low: str, high: str) -> None:
    from decimal import Decimal

    from attncalc.reports.qti12 import _margin, _ranges

    assert _ranges((value,), decimals) == [(Decimal(low), Decimal(high))]
    margin = _margin(value, decimals, 1.0)
    assert f'<vargte respident="response1">{low}' in margin and f'<varlte respident="response1">{high}' in margin


def test_canvas_accepts_the_values_a_slip_made_earlier_carries_to_later_steps() -> None:
    """decoder-dot: scores q·k = [1, 2, 2]; with the weights not divided by their sum, the weights are the
    exponentials [e, e², e²] and the context worked from them is e·[1, 0] + e²·[0, 2] + e²·[1, 1] =
    [e + e², 3e²] = [10.107, 22.167] (3 decimals, unrounded or from 2.718 and 7.389 alike). check carries
    it at full marks; so does Canvas's QTI 1.2 (every range answer weighs 100), beside the key [0.578, 1.267]."""
    e = np.e
    slipped = np.round([e + e**2, 3 * e**2], 3)
    assert list(slipped) == [10.107, 22.167]
    d = solve(load_problem(ROOT / "problems" / "decoder-dot.toml"))
    items = [it for it in assessment(qti12_zip([d], 1)).iter(f"{NS}item") if step_of(it) == "context"]
    assert len(items) == 2
    for item, key, value in zip(items, [0.578, 1.267], slipped, strict=True):
        assert canvas_numerical(item, key) and canvas_numerical(item, float(value)), ranges(item)
