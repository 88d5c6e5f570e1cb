"""``generate --format newquizzes``: one QTI 1.2 package per variant, read here as Canvas New Quizzes'
importer reads it.

The reader below is a Python RE-STATEMENT of the ``qti`` gem's parsing rules (github.com/instructure/qti,
read at commit d575c4ee), not that code: ``lib/qti/models/resource.rb`` (``ResourceGroup``: a resource
of type ``imsqti_xmlv1p2``, its ``href`` or its first ``file/@href``), ``lib/qti/v1/models/assessment.rb``
(``assessment_items``: question groups ``section/selection_ordering`` and the items outside them),
``lib/qti/v1/models/assessment_item.rb`` (``points_possible``: the metadata field, else 1),
``lib/qti/v1/models/interactions.rb`` (``IDENTIFIED_CLASSES`` by ``question_type``),
``lib/qti/v1/models/interactions/numeric_interaction.rb`` (the answers: every ``respcondition`` that
sets ``SCORE``), ``lib/qti/v1/models/numerics/*.rb`` (``ScoringData``: ExactMatch, MarginError,
Precision, WithinRange in that order, else an error), ``choice_interaction.rb`` (the ``varequal`` of
each ``respcondition`` that sets a score) and ``base_interaction.rb`` (``canvas_item_feedback``: the
``general_fb`` item feedback's ``mattext``)."""

from __future__ import annotations

import io
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc import kinds
from attncalc.check import check
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.mechanisms import solve
from attncalc.reports.lms import shape
from attncalc.reports.newquizzes import newquizzes_zips

CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"
Q = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
# interactions.rb IDENTIFIED_CLASSES (the two types attncalc writes, and the names of the others)
IDENTIFIED = {
    "multiple_choice_question": "ChoiceInteraction",
    "true_false_question": "ChoiceInteraction",
    "short_answer_question": "FillBlankInteraction",
    "fill_in_multiple_blanks_question": "FillBlankInteraction",
    "multiple_answers_question": "ChoiceInteraction",
    "multiple_dropdowns_question": "CanvasMultipleDropdownInteraction",
    "matching_question": "MatchInteraction",
    "numerical_question": "NumericInteraction",
    "calculated_question": "FormulaInteraction",
    "file_upload_question": "UploadInteraction",
    "hot_spot_question": "HotSpotInteraction",
    "categorization_question": "CategorizationInteraction",
}


class Unsupported(Exception):
    """ScoringData#unknown_type: 'Unsupported Numeric Type'."""


def _numeric(cond: ET.Element) -> dict[str, Any]:
    """numerics/scoring_data.rb: the first of ExactMatch, MarginError, Precision, WithinRange that reads
    the respcondition (each node the first descendant of its name, scoring_node.rb)."""
    eq, gte, lte, gt = (cond.find(f".//{Q}{n}") for n in ("varequal", "vargte", "varlte", "vargt"))
    if eq is not None and gte is not None and lte is not None:
        if eq.text == gte.text == lte.text:  # exact_match.rb
            return {"type": "exactResponse", "value": eq.text}
        if eq.text != gte.text and eq.text != lte.text:  # margin_error.rb
            margin = eq.get("margin") or str(float(eq.text or "") - float(gte.text or ""))
            return {
                "type": "marginOfError",
                "value": str(float(eq.text or "")),  # equal_node.content.to_f.to_s
                "margin": margin,
                "margin_type": eq.get("margintype") or "absolute",
            }
    if eq is not None and gt is not None and lte is not None:  # precision.rb
        return {"type": "preciseResponse", "value": eq.text}
    if gte is not None and lte is not None and eq is None:  # within_range.rb
        return {"type": "withinARange", "start": gte.text, "end": lte.text}
    raise Unsupported("Unsupported Numeric Type")


def _points(item: ET.Element) -> str:
    """assessment_item.rb points_possible: the entry after the label 'points_possible' in the item's
    first qtimetadata, else 1."""
    meta = item.find(f".//{Q}qtimetadata")
    if meta is not None:
        for f in meta:
            label, entry = f.find(f"{Q}fieldlabel"), f.find(f"{Q}fieldentry")
            if label is not None and label.text == "points_possible" and entry is not None:
                return entry.text or ""
    return "1"


def _question_type(item: ET.Element) -> str | None:
    for f in item.iter(f"{Q}qtimetadatafield"):
        if f.findtext(f"{Q}fieldlabel") == "question_type":
            return f.findtext(f"{Q}fieldentry")
    return None


def _read(data: bytes) -> dict[str, Any]:
    """A package as the gem reads it: the assessment's question groups and items, each item's type,
    points, answers, body and general feedback."""
    z = zipfile.ZipFile(io.BytesIO(data))
    manifest = ET.fromstring(z.read("imsmanifest.xml"))
    (rsc,) = [r for r in manifest.iter(f"{CP}resource") if r.get("type") == "imsqti_xmlv1p2"]
    href = rsc.get("href") or rsc.find(f"{CP}file").get("href")  # type: ignore[union-attr]
    root = ET.fromstring(z.read(href or ""))
    (assessment,) = root.iter(f"{Q}assessment")
    groups = [s for s in assessment.iter(f"{Q}section") if s.find(f"{Q}selection_ordering") is not None]
    items = []
    for item in assessment.iter(f"{Q}item"):
        qtype = _question_type(item)
        model = IDENTIFIED.get(qtype or "")
        scoring = [c for c in item.iter(f"{Q}respcondition") if c.find(f"{Q}setvar[@varname='SCORE']") is not None]
        if model == "NumericInteraction":
            answers = [_numeric(c) for c in scoring]
        elif model == "ChoiceInteraction":
            answers = [
                {"choice": c.findtext(f".//{Q}varequal"), "points": float(c.findtext(f".//{Q}setvar") or "")}
                for c in item.iter(f"{Q}respcondition")
                if (c.findtext(f".//{Q}setvar") or "").strip()
            ]
        else:
            answers = []
        fb = item.find(f".//{Q}itemfeedback[@ident='general_fb']/*/*/{Q}mattext")
        presentation = item.find(f".//{Q}presentation")
        assert presentation is not None
        items.append(
            {
                "ident": item.get("ident"),
                "title": item.get("title") or "",
                "model": model,
                "points": _points(item),
                "answers": answers,
                "labels": [r.get("ident") for r in item.iter(f"{Q}response_label")],
                "body": presentation.findtext(f".//{Q}mattext") or "",
                "feedback": fb.text if fb is not None else None,
            }
        )
    return {"ident": assessment.get("ident"), "groups": groups, "items": items}


def _key(p: Any) -> dict[str, Any]:
    d = solve(p)
    out: dict[str, Any] = {s.id: np.asarray(s.shown).tolist() for s in d.steps if not isinstance(s.value, str)}
    out.update({s.id: s.value for s in d.steps if isinstance(s.value, str)})
    return out


@pytest.mark.parametrize("kind", kinds.with_drawer())
def test_new_quizzes_reads_each_variant_as_a_quiz_of_its_own(kind: str) -> None:
    ds = generate(Options(kind=kind, dim=default_dim(kind), seed=2, count=2), shape).derivations
    packages = newquizzes_zips(ds, 2, "nq", "nq")
    assert list(packages) == ["newquizzes-v01.zip", "newquizzes-v02.zip"]
    for k, (d, data) in enumerate(zip(ds, packages.values(), strict=True), 1):
        quiz = _read(data)
        assert quiz["ident"] == f"nq-v{k:02d}"
        assert quiz["groups"] == []  # no group for New Quizzes to drop or keep: the quiz is the variant
        assert quiz["items"]
        half = Decimal(5) / Decimal(10) ** (d.decimals + 1)
        total = Decimal(0)
        for it in quiz["items"]:
            assert it["ident"].startswith(f"nq-v{k:02d}-"), it["ident"]
            assert f"<b>Variant {k}</b>" in it["body"]
            assert it["feedback"], it["ident"]  # the worked step, New Quizzes' neutral feedback
            total += Decimal(it["points"])
            assert it["answers"], it["ident"]
            if it["model"] == "NumericInteraction":
                for a in it["answers"]:  # every accepted value: an exact answer with half a unit's margin
                    assert a["type"] == "marginOfError" and a["margin_type"] == "absolute", (it["ident"], a)
                    assert Decimal(a["margin"]) == half, (it["ident"], a)
            else:
                assert it["model"] == "ChoiceInteraction", it["ident"]
                assert all(a["choice"] in it["labels"] for a in it["answers"])
                assert all(Decimal(repr(a["points"])) == Decimal(it["points"]) for a in it["answers"])
        rep = check(d.problem, _key(d.problem), "key.toml")
        assert rep.all_correct
        assert total == Decimal(repr(rep.out_of)), (k, total, rep.out_of)  # check's total for this variant


@pytest.mark.parametrize(("kind", "extra", "seed"), [("decode", {"strategy": "beam"}, 5), ("accounting", {}, 5)])
def test_variants_of_other_shapes_are_each_out_of_their_own_total(kind: str, extra: dict[str, Any], seed: int) -> None:
    # (drawn as for the other formats' totals test, whose variants of these seeds differ in size; here
    # nothing redraws them to one shape)
    o = Options(kind=kind, dim=default_dim(kind), seed=seed, count=3, **extra)
    ds = generate(o, shape).derivations
    totals = []
    for d, data in zip(ds, newquizzes_zips(ds, seed).values(), strict=True):
        quiz = _read(data)
        total = sum((Decimal(it["points"]) for it in quiz["items"]), Decimal(0))
        rep = check(d.problem, _key(d.problem), "key.toml")
        assert total == Decimal(repr(rep.out_of))
        totals.append(total)
    assert len(set(totals)) > 1, totals  # the variants differ, and each quiz follows its own


def test_the_weights_and_context_are_accepted_within_half_a_unit() -> None:
    # the worked example: scores, weights and context recomputed with numpy from the problem file
    q, keys = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    e = keys @ q
    w = np.exp(e) / np.exp(e).sum()
    c = w @ keys
    root = next(p for p in Path(__file__).resolve().parents if (p / "problems" / "decoder-dot.toml").is_file())
    d = attncalc.solve(root / "problems" / "decoder-dot.toml")
    quiz = _read(newquizzes_zips([d], 0, "nq", "nq")["newquizzes-v01.zip"])
    margins = [
        (float(a["value"]), float(a["margin"]))
        for it in quiz["items"]
        if it["model"] == "NumericInteraction"
        for a in it["answers"]
    ]
    for x in [*w, *c]:
        assert any(abs(x - v) <= m for v, m in margins), x
    # the document's carried chain (0.577) is accepted too, as check accepts it; one unit off it is not
    assert any(abs(0.577 - v) <= m for v, m in margins)
    assert not any(abs(0.5755 - 0.001 - v) <= m for v, m in margins if abs(v - 0.577) < 0.01)


def test_a_named_slip_earns_nothing_a_right_value_full_marks(cli: Any, tmp_path: Path) -> None:
    # a New Quizzes numeric answer is right or wrong: the slip (the 1/sqrt(d_k) scale left out, q.k_i
    # recomputed with numpy from the problem file) is inside no margin, whatever --slip-share says
    args = ("generate", "--kind", "attention", "--score", "scaled-dot", "--count", "1", "--seed", "3")
    result = cli(*args, "--slip-share", "0.5", "--format", "newquizzes", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    raw = tomllib.loads((tmp_path / "variant-01.toml").read_text(encoding="utf-8"))
    query, keys = np.array(raw["given"]["query"], float), np.array(raw["given"]["keys"], float)
    unscaled = keys @ query
    scaled = unscaled / np.sqrt(len(query))
    quiz = _read((tmp_path / "newquizzes-v01.zip").read_bytes())
    items = [it for it in quiz["items"] if "[scaled_scores]" in it["title"]]
    assert len(items) == len(unscaled)

    def accepted(it: dict[str, Any], x: float) -> bool:
        return any(abs(x - float(a["value"])) <= float(a["margin"]) for a in it["answers"])

    slipped = 0
    for it, x, right in zip(items, unscaled, scaled, strict=True):
        assert accepted(it, round(float(right), 3)), it["title"]
        if abs(x - right) > 1e-3:
            assert not accepted(it, float(x)), it["title"]
            slipped += 1
    assert slipped


def test_the_command_writes_a_package_per_variant(cli: Any, tmp_path: Path) -> None:
    args = ("generate", "--kind", "softmax", "--count", "3", "--format", "newquizzes", "--out", str(tmp_path))
    result = cli(*args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == [f"newquizzes-v0{k}.zip" for k in (1, 2, 3)]
    assert (tmp_path / "questions.md").is_file()
    again = cli(*args)  # nothing overwritten without --force
    assert again.exit_code == 2 and "--force" in again.output
