"""generate --format qti: a QTI 2.1 package (what ILIAS and OpenOLAT import; Canvas and Blackboard through
their QTI importers). No package registry ships the IMS QTI 2.1 XSD, so this test is an independent minimal
QTI consumer: it reads the zip as an LMS would (manifest, test, items), scores responses by the items' own
response processing (the QTI operators equal with an absolute tolerance, match, sum), and checks that the
answers file's values earn every point, that one unit off in the last decimal does not, that every item
shows its variant's givens, and that the feedback is the worked step."""

from __future__ import annotations

import io
import math
import re
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

Q = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"

RUNS = {
    "attention": ["--kind", "attention", "--score", "additive", "--head"],
    "self-attention-causal": ["--kind", "self-attention", "--mask", "causal"],
    "softmax": ["--kind", "softmax", "--tokens", "4"],
    "lstm": ["--kind", "lstm", "--head", "--tokens", "2"],
    "gru-keras": ["--kind", "gru", "--layout", "keras", "--values", "decimal"],
    "seq2seq": ["--kind", "seq2seq", "--attention", "bahdanau", "--cell", "lstm"],
    "sequence": ["--kind", "sequence", "--values", "mixed"],
    "similarity": ["--kind", "similarity", "--decimals", "2"],
    "contrastive": ["--kind", "contrastive", "--tokens", "3"],
}


class Package:
    """A QTI 2.1 content package as an LMS reads it."""

    def __init__(self, data: bytes) -> None:
        self.zip = zipfile.ZipFile(io.BytesIO(data))
        manifest = ET.fromstring(self.zip.read("imsmanifest.xml"))
        self.resources = {r.get("identifier"): r for r in manifest.iter(f"{CP}resource")}
        test = next(r for r in self.resources.values() if r.get("type") == "imsqti_test_xmlv2p1")
        self.test = ET.fromstring(self.zip.read(test.get("href")))
        # a variant's section holds its items; with several variants they sit in one section that
        # selects one of them (QTI 2.1 <selection select="1">), as an LMS gives each student one variant
        self.sections = [
            [ref.get("href") for ref in s.findall(f"{Q}assessmentItemRef")]
            for s in self.test.iter(f"{Q}assessmentSection")
            if s.find(f"{Q}assessmentItemRef") is not None
        ]
        outer = [s for s in self.test.iter(f"{Q}assessmentSection") if s.find(f"{Q}assessmentSection") is not None]
        if len(self.sections) > 1:
            assert len(outer) == 1 and outer[0].find(f"{Q}selection").get("select") == "1"
        for r in self.resources.values():  # every resource's file is in the zip
            assert r.get("href") in self.zip.namelist()

    def item(self, href: str) -> ET.Element:
        return ET.fromstring(self.zip.read(href))


def run(item: ET.Element, responses: dict[str, Any]) -> dict[str, Any]:
    """Run the item's responseProcessing on the responses (QTI 2.1 semantics of the operators it uses:
    an unanswered response is NULL, and an operator on NULL is NULL, which a condition takes as false);
    the outcomes after it."""
    correct = {
        d.get("identifier"): d.find(f"{Q}correctResponse/{Q}value").text for d in item.iter(f"{Q}responseDeclaration")
    }
    outcomes: dict[str, Any] = {"SCORE": 0.0}

    def value(e: ET.Element) -> Any:
        tag = e.tag.removeprefix(Q)
        if tag == "variable":
            ident = e.get("identifier")
            return outcomes[ident] if ident in outcomes else responses.get(ident)
        if tag == "correct":
            return correct[e.get("identifier")]
        if tag == "baseValue":
            return float(e.text) if e.get("baseType") == "float" else e.text
        if tag == "sum":
            return sum(float(value(c)) for c in e)
        if tag == "or":
            got = [value(c) for c in e]
            return True if any(g is True for g in got) else None if any(g is None for g in got) else False
        if tag == "equal":
            a, b = (value(c) for c in e)
            if a is None or b is None:
                return None
            assert e.get("toleranceMode") == "absolute"
            t = [float(x) for x in e.get("tolerance").split()]
            low, high = float(b) - t[0], float(b) + t[-1]
            return (low <= float(a) if e.get("includeLowerBound") == "true" else low < float(a)) and (
                float(a) <= high if e.get("includeUpperBound") == "true" else float(a) < high
            )
        if tag == "match":
            a, b = (value(c) for c in e)
            return None if a is None or b is None else a == b
        raise AssertionError(f"operator {tag} not expected")

    def rule(r: ET.Element) -> None:
        tag = r.tag.removeprefix(Q)
        if tag == "responseCondition":
            for branch in r:
                test, *actions = list(branch)
                if branch.tag == f"{Q}responseElse" or value(test) is True:
                    for a in [test, *actions] if branch.tag == f"{Q}responseElse" else actions:
                        rule(a)
                    break
        elif tag == "setOutcomeValue":
            outcomes[r.get("identifier")] = value(r[0])

    for r in item.find(f"{Q}responseProcessing"):
        rule(r)
    return outcomes


def score(item: ET.Element, responses: dict[str, Any]) -> float:
    return float(run(item, responses)["SCORE"])


def shown_feedback(item: ET.Element, outcomes: dict[str, Any]) -> list[str]:
    """The texts of the modal feedbacks shown for these outcomes (showHide="show": shown when the outcome
    holds the feedback's identifier)."""
    return [
        "".join(f.itertext())
        for f in item.iter(f"{Q}modalFeedback")
        if outcomes.get(f.get("outcomeIdentifier")) == f.get("identifier")
    ]


def maxscore(item: ET.Element) -> float:
    d = next(o for o in item.iter(f"{Q}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
    return float(d.find(f"{Q}defaultValue/{Q}value").text)


def flat(x: Any) -> list[Any]:
    return [v for row in x for v in flat(row)] if isinstance(x, list) else [x]


def key_of(folder: Path, k: int) -> dict[str, Any]:
    raw = tomllib.loads((folder / "answers" / f"variant-{k:02d}.toml").read_text(encoding="utf-8"), parse_float=str)
    out: dict[str, Any] = {}

    def walk(t: dict[str, Any], prefix: str) -> None:
        for name, v in t.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{name}.")
            elif name != "problem":
                out[prefix + name] = v

    walk(raw, "")
    return out


def step_of(item: ET.Element) -> str:
    """The step id an item asks for (its title: "Variant 1: Scores [scores] e_1 (x1)")."""
    found = re.search(r"\[([\w.\-]+)\]", item.get("title").split(": ", 1)[1])
    assert found is not None
    return found.group(1)


def by_step(pkg: Package, hrefs: list[str]) -> dict[str, list[ET.Element]]:
    out: dict[str, list[ET.Element]] = {}
    for h in hrefs:
        item = pkg.item(h)
        out.setdefault(step_of(item), []).append(item)
    return out


def responses_for(item: ET.Element, x: Any, shift: float = 0.0) -> dict[str, Any]:
    """An entry typed into the item's one field, moved by ``shift``; or the label chosen."""
    choice = item.find(f".//{Q}choiceInteraction")
    if choice is not None:
        by_label = {c.text: c.get("identifier") for c in choice.iter(f"{Q}simpleChoice")}
        return {"RESPONSE": by_label[x]}
    return {"RESPONSE": float(x) + shift}


def accepted(item: ET.Element) -> list[float]:
    """The values the item's first branch (full marks) compares the response with."""
    first = item.find(f"{Q}responseProcessing/{Q}responseCondition/{Q}responseIf")
    return [float(b.text) for b in first.iter(f"{Q}baseValue") if b.get("baseType") == "float"][:-1]


def entries_of(key: Any, item: ET.Element) -> list[Any]:
    """A step's key as the entries its items ask for, in order (a masked −∞ is not asked; the beams'
    labels, "beam 2: dog, beam 1: mat", one per rank)."""
    if isinstance(key, str) and item.find(f".//{Q}choiceInteraction") is not None and ", " in key:
        return key.split(", ")
    return [x for x in flat(key) if x not in ("-inf", "inf")]


@pytest.mark.parametrize("name", list(RUNS))
def test_the_key_earns_every_point_and_a_unit_off_does_not(cli: Any, tmp_path: Path, name: str) -> None:
    """One item per entry asked (one text entry or one choice per item: Canvas New Quizzes refuses items
    with more than one); the step's points (1 each here) shared by its entries; the key earns them all."""
    result = cli("generate", *RUNS[name], "--count", "2", "--seed", "3", "--format", "qti", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    pkg = Package((tmp_path / "qti.zip").read_bytes())
    assert len(pkg.sections) == 2
    for k, hrefs in enumerate(pkg.sections, 1):
        key = key_of(tmp_path, k)
        steps = by_step(pkg, hrefs)
        assert sorted(steps) == sorted(key)  # every step
        decimals = int(tomllib.loads((tmp_path / f"variant-{k:02d}.toml").read_text())["settings"]["decimals"])
        for step, its in steps.items():
            entries = entries_of(key[step], its[0])
            assert len(entries) == len(its), step
            assert math.isclose(sum(maxscore(i) for i in its), 1.0)  # the step's point, shared
            for item, x in zip(its, entries, strict=True):
                interactions = [e for e in item.iter() if e.tag.endswith("Interaction")]
                assert len(interactions) == 1
                assert score(item, responses_for(item, x)) == maxscore(item), (step, x)
                if item.find(f".//{Q}choiceInteraction") is None:
                    off = float(x) + 10.0**-decimals
                    if all(abs(off - a) > 1e-9 for a in accepted(item)):
                        assert score(item, {"RESPONSE": off}) < maxscore(item), (step, x)
                    assert score(item, {}) == 0  # nothing answered, nothing earned
    test = pkg.test
    top = next(o for o in test.iter(f"{Q}outcomeDeclaration") if o.get("identifier") == "MAXSCORE")
    assert float(top.find(f"{Q}defaultValue/{Q}value").text) == len(key_of(tmp_path, 1))  # OpenOLAT reads this


def test_every_item_shows_its_givens_and_the_worked_step(cli: Any, tmp_path: Path) -> None:
    """The tables (labelled by the problem file's keys) hold the variant's numbers; the feedback writes the step
    out and ends in the key's values."""
    cli("generate", *RUNS["lstm"], "--count", "1", "--seed", "3", "--format", "qti", "--out", str(tmp_path))
    raw = tomllib.loads((tmp_path / "variant-01.toml").read_text(encoding="utf-8"))
    pkg = Package((tmp_path / "qti.zip").read_bytes())
    key = key_of(tmp_path, 1)
    for href in pkg.sections[0]:
        item = pkg.item(href)
        body = item.find(f"{Q}itemBody")
        # Canvas builds the question text only from itemBody > p and itemBody > div: the givens are in a div
        assert all(c.tag in (f"{Q}p", f"{Q}div", f"{Q}choiceInteraction") for c in body), [c.tag for c in body]
        assert [t for c in body if c.tag == f"{Q}div" for t in c.iter(f"{Q}table")]
        tables = {t.get("label"): t for t in body.iter(f"{Q}table")}
        for name, value in raw["given"].items():
            if name in ("vocab", "targets"):
                continue
            cells = [float(td.text) for td in tables[name].iter(f"{Q}td")]
            np.testing.assert_allclose(cells, [float(Fraction(str(x))) for x in flat(value)], err_msg=name)
        facts = {p.get("label"): "".join(p.itertext()) for p in body.iter(f"{Q}p") if p.get("label")}
        assert facts["targets"] == "Targets, one per step: " + ", ".join(raw["given"]["targets"])
        feedback = shown_feedback(item, run(item, {}))[0]  # the worked step, whatever was answered
        step = step_of(item)
        for v in flat(key[step]):
            assert str(v) in feedback, (step, v, feedback)
    f_item = pkg.item(next(h for h in pkg.sections[0] if step_of(pkg.item(h)) == "1.f"))
    assert "σ(" in shown_feedback(f_item, run(f_item, {}))[0]  # written out: f_1,1 = σ(…) = …


def test_same_seed_same_bytes(cli: Any, tmp_path: Path) -> None:
    for folder in ("a", "b"):
        cli("generate", *RUNS["seq2seq"], "--count", "2", "--format", "qti", "--out", str(tmp_path / folder))
    assert (tmp_path / "a" / "qti.zip").read_bytes() == (tmp_path / "b" / "qti.zip").read_bytes()


def test_the_tolerance_accepts_the_key_where_rounding_half_up_and_python_disagree(tmp_path: Path) -> None:
    """0.25 · 0.5 = 0.125 at 2 decimals: the key is 0.13 (half away from zero); the item accepts it."""
    from attncalc.mechanisms import solve
    from attncalc.parse import parse_problem
    from attncalc.reports.qti import qti_zip

    d = solve(
        parse_problem({"kind": "similarity", "given": {"A": [0.25], "B": [0.5]}, "settings": {"decimals": 2}}, "p")
    )
    pkg = Package(qti_zip([d], seed=0))
    item = pkg.item(pkg.sections[0][0])
    assert score(item, {"RESPONSE": 0.13}) == 1 and score(item, {"RESPONSE": 0.14}) == 0
    assert math.isclose(float(item.find(f".//{Q}correctResponse/{Q}value").text), 0.13)
