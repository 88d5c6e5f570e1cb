"""quiz.xml: every question shows the givens it needs (from the variant's problem file), as XHTML in CDATA."""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

RUNS = [
    ["--kind", "attention", "--score", "dot", "--head"],
    ["--kind", "attention", "--score", "additive", "--values", "decimal"],
    ["--kind", "attention", "--score", "concat", "--values", "mixed"],
    ["--kind", "attention", "--score", "general"],
    ["--kind", "self-attention", "--mask", "causal"],
    ["--kind", "softmax", "--tokens", "4"],
    ["--kind", "lstm", "--head", "--tokens", "2"],
    ["--kind", "gru", "--layout", "keras", "--update", "replace"],
    ["--kind", "rnn", "--layout", "pytorch", "--head"],
    ["--kind", "sequence", "--values", "mixed"],
    ["--kind", "similarity", "--values", "decimal"],
]


def _number(x: Any) -> float:
    return float(Fraction(x)) if isinstance(x, str) else float(x)


def _cells(table: ET.Element) -> np.ndarray:
    rows = [[float(td.text or "") for td in tr.findall("td")] for tr in table.findall("tr")]
    rows = [r for r in rows if r]
    return np.array(rows[0] if len(rows) == 1 else rows)


@pytest.mark.parametrize("opts", RUNS, ids=[" ".join(r[1:4]) for r in RUNS])
def test_every_question_shows_its_givens(cli: Any, tmp_path: Path, opts: list[str]) -> None:
    result = cli("generate", *opts, "--count", "2", "--seed", "4", "--format", "moodle", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    root = ET.parse(tmp_path / "quiz.xml").getroot()  # well-formed XML
    variant = 0
    asked = 0
    for q in root.findall("question"):
        if q.get("type") == "category":  # a question slot: each variant's question for it
            continue
        variant = int(q.find("name/text").text.split(":", 1)[0].removeprefix("Variant "))
        raw = tomllib.loads((tmp_path / f"variant-{variant:02d}.toml").read_text(encoding="utf-8"))
        text = q.find("questiontext/text")
        assert text is not None and text.text is not None
        body = ET.fromstring(f"<div>{text.text}</div>")  # the question text is well-formed (X)HTML
        tables = {t.get("title"): t for t in body.iter("table")}
        paras = {p.get("title"): "".join(p.itertext()) for p in body.iter("p") if p.get("title")}
        given: dict[str, Any] = dict(raw["given"])
        given.update({k: v for k, v in raw.get("head", {}).items() if k.startswith("W")})
        for key, value in given.items():
            if key in ("vocab", "labels_B"):
                assert all(f"<th>{label}</th>" in text.text for label in value)
                continue
            if key == "target":
                assert paras["target"] == f"Target: {value}"
            elif key == "targets" and raw["kind"] != "sequence":
                assert paras["targets"] == "Targets, one per step: " + ", ".join(value)
            elif key == "targets":
                assert all(f"<th>{t}: {label}</th>" in text.text for t, label in enumerate(value, 1))
            elif key == "mask":
                assert value == "causal" and "causal" in paras["mask"]
            else:
                want = np.array([[_number(x) for x in r] if isinstance(r, list) else _number(r) for r in value])
                np.testing.assert_allclose(_cells(tables[key]), want, err_msg=key)
        for key, value in raw.get("cell", {}).items():  # how the cell computes is stated in words
            if key in ("reset", "update"):
                assert f"{key} {value}" in paras["cell"], paras["cell"]
        for label in raw.get("tokens", []) + raw.get("head", {}).get("vocab", []):
            assert label in text.text
        asked += 1
    assert variant == 2 and asked > 4


def test_seq2seq_questions_show_both_cells_and_the_attention(cli: Any, tmp_path: Path) -> None:
    """A seq2seq question shows the encoder's and the decoder's keys (tables encoder.KEY, decoder.KEY), the
    targets, and says which cells and which attention."""
    args = ["--kind", "seq2seq", "--attention", "bahdanau", "--cell", "lstm", "--layout", "pytorch"]
    assert cli("generate", *args, "--format", "moodle", "--out", str(tmp_path)).exit_code == 0
    raw = tomllib.loads((tmp_path / "variant-01.toml").read_text(encoding="utf-8"))
    root = ET.parse(tmp_path / "quiz.xml").getroot()
    questions = [q for q in root.findall("question") if q.get("type") != "category"]
    for q in questions:
        body = ET.fromstring(f"<div>{q.find('questiontext/text').text}</div>")
        tables = {t.get("title"): t for t in body.iter("table")}
        paras = {p.get("title"): "".join(p.itertext()) for p in body.iter("p") if p.get("title")}
        for part in ("encoder", "decoder"):
            for key, value in raw[part].items():
                if isinstance(value, list) and key not in ("vocab", "targets"):
                    np.testing.assert_allclose(_cells(tables[f"{part}.{key}"]), np.array(value, dtype=float))
        assert paras["targets"] == "Targets, one per step: " + ", ".join(raw["decoder"]["targets"])
        assert paras["encoder"].startswith("Encoder: LSTM")
        assert "Bahdanau attention, additive score with s_(t−1)" in paras["decoder"]
        assert "starts from the encoder's final state" in paras["decoder"]
    assert len(questions) > 20


def test_the_key_is_accepted_where_rounding_half_up_and_python_disagree(tmp_path: Path) -> None:
    """0.25 · 0.5 = 0.125 at 2 decimals: the key (half away from zero, as by hand) is 0.13, while Python's
    f"{0.125:.2f}" is 0.12. The quiz's answer accepts the key (and not a value a whole unit off)."""
    from attncalc.homework.generate import answers_toml
    from attncalc.mechanisms import solve
    from attncalc.parse import parse_problem
    from attncalc.reports.moodle import moodle_xml

    raw = {"kind": "similarity", "given": {"A": [0.25], "B": [0.5]}, "settings": {"decimals": 2}}
    d = solve(parse_problem(raw, "p.toml"))
    assert f"{0.125:.2f}" == "0.12"  # what formatting the float would have asked for
    key = tomllib.loads(answers_toml(d, "p.toml"), parse_float=str)["dots"]
    assert key == "0.13"
    root = ET.fromstring(moodle_xml([d], seed=0))
    q = next(q for q in root.findall("question") if q.get("type") == "numerical")
    answer, tol = float(q.find("answer/text").text), float(q.find("answer/tolerance").text)
    assert abs(float(key) - answer) <= tol
    assert abs(0.14 - answer) > tol


def test_each_category_says_its_slots_maximum_mark(cli: Any, tmp_path: Path) -> None:
    """A random slot's Maximum mark is set by hand in Moodle: each category's info says the mark to set,
    the default mark (defaultgrade) every question in the category has."""
    import re

    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), "--kind", "softmax", "--count", "3", "--format", "moodle")
    assert result.exit_code == 0, result.output
    root = ET.parse(out / "quiz.xml").getroot()
    slots: list[tuple[str, list[str]]] = []
    for q in root.findall("question"):
        if q.get("type") == "category":
            slots.append((q.findtext("info/text") or "", []))
        else:
            slots[-1][1].append(q.findtext("defaultgrade") or "")
    assert slots
    for info, grades in slots:
        said = re.search(r"Maximum mark ([0-9.]+)", info)
        assert said is not None, info
        assert len(grades) == 3 and {float(g) for g in grades} == {float(said.group(1))}
